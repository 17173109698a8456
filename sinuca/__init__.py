"""Rules engine for Brazilian snooker (sinuca brasileira) under the CBBS 2008 rules.

Pure Python, no Django. It speaks the contract in ``shared/spec/engine-contract.md``: a
:class:`Match` built from a configuration takes events (``apply``), can take them back
(``undo``), previews them (``preview``, ``foul_preview``) and reports its ``state()``.

>>> from sinuca import Match
>>> m = Match({"players": ["Ana", "Bia"], "first_breaker": 0})
>>> m.apply({"type": "foul", "ball": 6}).description["en"]
'Foul by Ana: 6 points to Bia (Art. 40)'
"""
from .engine import EVENT_TYPES, Match, Step, normalize_config
from .errors import (ERRORS, IllegalFoul, IllegalFreeBall, IllegalPot, InvalidConfig, InvalidEvent,
                     MatchIsOver, NothingToUndo, RetornoNotAllowed, SinucaError, WrongPhase)
from .rules import BALL_NAMES, FOUL_KINDS

__all__ = [
    "Match", "Step", "normalize_config", "EVENT_TYPES", "FOUL_KINDS", "BALL_NAMES", "ERRORS",
    "SinucaError", "InvalidConfig", "InvalidEvent", "WrongPhase", "MatchIsOver", "IllegalPot",
    "IllegalFreeBall", "IllegalFoul", "RetornoNotAllowed", "NothingToUndo",
]
