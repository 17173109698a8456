"""The words and the tablet's view of the rules engine: presentation, apart from the rules.

:mod:`presentation.explain` turns the engine's facts (its state, options and
:meth:`sinuca.Match.foul_preview`) into the referee's sentences in Portuguese and English;
the referee tablet's view is :mod:`presentation.tablet_board`, its foul dialog (form, parser,
preview) :mod:`presentation.tablet_foul`, its button words :mod:`presentation.tablet_labels`, the
HTML of both :mod:`presentation.referee_html`, and :mod:`presentation.tablet` the JSON bridge the
tablet's browser calls (Pyodide runs this package and ``sinuca`` unchanged, from the engine
zip). It imports ``sinuca`` and nothing of Django; ``sinuca`` never imports it (import-linter
contracts in ``pyproject.toml``).
"""
