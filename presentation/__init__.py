"""The words and the tablet's view of the rules engine: presentation, apart from the rules.

:mod:`presentation.explain` turns the engine's facts (its state, options and
:meth:`sinuca.Match.foul_preview`) into the referee's sentences in Portuguese and English;
:mod:`presentation.tablet` builds the referee tablet's view, its foul form, and the JSON bridge
the tablet's browser calls (Pyodide runs this package and ``sinuca`` unchanged, from the engine
zip). It imports ``sinuca`` and nothing of Django; ``sinuca`` never imports it (import-linter
contracts in ``pyproject.toml``).
"""
