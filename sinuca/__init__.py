"""Rules engine for Brazilian snooker (sinuca brasileira) under the CBBS 2008 rules.

Pure Python, no Django. It speaks the contract in ``docs/contract.md`` and cites the articles of
``docs/rules.md``: a :class:`Match` built from a configuration takes events (``apply``), can take
them back (``undo``), previews them (``preview``, ``foul_preview``) and reports its ``state()``.
Each applied event gives a :class:`Step` that tells what it did (``foul``, ``frame_end``,
``match_end``, ``description``). The contract's strings are enums (:class:`Phase`,
:class:`FoulKind`, …) that compare and serialise as those strings.

>>> from sinuca import Match
>>> m = Match({"players": ["Ana", "Bia"], "first_breaker": 0})
>>> m.apply({"type": "foul", "ball": 6}).description["en"]
'Foul by Ana: 6 points to Bia (Art. 40)'
>>> m.state()["phase"] == Phase.DECISION == "decision"
True
"""
from .describe import frame_end_sentence, match_end_sentence
from .engine import EVENT_TYPES, Match, Step, normalize_config
from .errors import (ERRORS, IllegalFoul, IllegalFreeBall, IllegalPot, InvalidConfig, InvalidEvent,
                     MatchIsOver, NothingToUndo, RetornoNotAllowed, SinucaError, WrongPhase, error)
from .messages import MESSAGES, texts
from .position import free_ball_points
from .rules import BALL_NAMES, FOUL_KINDS, ball_name, max_break
from .vocab import Choice, FoulGroup, FoulKind, FrameEnd, MatchResult, Phase, Sanction, TableWarning

__all__ = [
    "Match", "Step", "normalize_config", "EVENT_TYPES", "FOUL_KINDS", "BALL_NAMES", "ball_name", "max_break", "ERRORS",
    "SinucaError", "InvalidConfig", "InvalidEvent", "WrongPhase", "MatchIsOver", "IllegalPot",
    "IllegalFreeBall", "IllegalFoul", "RetornoNotAllowed", "NothingToUndo", "error", "MESSAGES", "texts",
    "Phase", "FrameEnd", "MatchResult", "TableWarning", "Choice", "FoulGroup", "FoulKind", "Sanction",
    "frame_end_sentence", "match_end_sentence", "free_ball_points",
]
