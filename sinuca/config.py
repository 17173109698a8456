"""The match configuration (``docs/contract.md`` section 2): checks, defaults, first position."""
from __future__ import annotations

from typing import Any

from .errors import error
from .position import LOT, PLAY, State, breaker_of
from .rules import COLOURS, REDS_ALLOWED

_CONFIG_KEYS = frozenset({"reds", "frames_to_win", "players", "first_breaker", "retorno", "position"})
_POSITION_KEYS = frozenset({"reds_remaining", "colours_remaining", "scores", "striker", "frames"})


def is_int(v: Any) -> bool:
    """An int of the contract: bools are ints in Python, not in JSON."""
    return type(v) is int


def normalize_config(config: Any) -> dict:
    """Check a match configuration and fill in its defaults.

    Args:
        config: the contract's section-2 dict.
    Returns:
        a new dict with ``reds``, ``frames_to_win``, ``players``, ``retorno`` always present, and
        ``first_breaker`` / ``position`` when given.
    Raises:
        InvalidConfig: a key is unknown, missing or out of range (Art. 1, 17, 29, 54.1).
    """
    if not isinstance(config, dict):
        raise error("invalid_config.not_object")
    unknown = set(config) - _CONFIG_KEYS
    if unknown:
        raise error("invalid_config.unknown_key", key=sorted(unknown)[0])
    reds = config.get("reds", 15)
    if not is_int(reds) or reds not in REDS_ALLOWED:
        raise error("invalid_config.reds")
    ftw = config.get("frames_to_win", 1)
    if not is_int(ftw) or ftw < 1:
        raise error("invalid_config.frames_to_win")
    players = config.get("players")
    if (not isinstance(players, list) or len(players) != 2
            or not all(isinstance(p, str) and p.strip() for p in players)):
        raise error("invalid_config.players")
    out: dict = {"reds": reds, "frames_to_win": ftw, "players": [p.strip() for p in players]}
    if "first_breaker" in config and config["first_breaker"] is not None:
        fb = config["first_breaker"]
        if fb not in (0, 1) or not is_int(fb):
            raise error("invalid_config.first_breaker")
        out["first_breaker"] = fb
    retorno = config.get("retorno", True)
    if type(retorno) is not bool:
        raise error("invalid_config.retorno")
    out["retorno"] = retorno
    if "position" in config and config["position"] is not None:
        out["position"] = _normalize_position(config["position"], reds, ftw)
    return out


def _normalize_position(pos: Any, reds: int, ftw: int) -> dict:
    if not isinstance(pos, dict):
        raise error("invalid_config.position")
    unknown = set(pos) - _POSITION_KEYS
    if unknown:
        raise error("invalid_config.position_key", key=sorted(unknown)[0])
    r = pos.get("reds_remaining", reds)
    if not is_int(r) or not 0 <= r <= reds:
        raise error("invalid_config.reds_remaining", reds=reds)
    cols = pos.get("colours_remaining", list(COLOURS))
    # Colours leave the table only in ascending order once the reds are gone (Art. 11.2, 12.2),
    # so what remains is always n..7.
    if (not isinstance(cols, list) or not cols or not all(is_int(c) for c in cols)
            or cols != list(range(cols[0], 8)) or cols[0] < 2):
        raise error("invalid_config.colours_remaining")
    if r and cols != list(COLOURS):
        raise error("invalid_config.colours_with_reds")
    scores = pos.get("scores", [0, 0])
    if not (isinstance(scores, list) and len(scores) == 2 and all(is_int(x) and x >= 0 for x in scores)):
        raise error("invalid_config.scores")
    striker = pos.get("striker")
    if not is_int(striker) or striker not in (0, 1):
        raise error("invalid_config.striker")
    frames = pos.get("frames", [0, 0])
    if not (isinstance(frames, list) and len(frames) == 2
            and all(is_int(x) and 0 <= x < ftw for x in frames)):
        raise error("invalid_config.frames", most=ftw - 1)
    return {"reds_remaining": r, "colours_remaining": list(cols), "scores": list(scores),
            "striker": striker, "frames": list(frames)}


def initial(config: dict) -> State:
    """The first position of a match under a normalized ``config``: a full rack (Art. 16) or the
    configured position; phase ``lot`` until a first breaker is known (Art. 17)."""
    s = State.__new__(State)
    s.phase = LOT
    s.frame_number = 1
    s.first = config.get("first_breaker")
    s.breaker = s.striker = None
    s.scores = s.frames = s.highest = s.warnings = (0, 0)
    s.reds = config["reds"]
    s.colours = COLOURS
    s.colour_on = s.free_ball = s.decider = s.bonus7 = s.replay = False
    s.brk = s.agg = 0
    s.pending = s.warning = s.last_penalty = None
    s.frame_winner = s.match_winner = s.match_result = None
    s.history = s.brk_balls = ()
    pos = config.get("position")
    if pos:
        s.phase = PLAY
        s.frames = tuple(pos["frames"])
        s.frame_number = s.frames[0] + s.frames[1] + 1
        s.reds = pos["reds_remaining"]
        s.colours = tuple(pos["colours_remaining"])
        s.scores = tuple(pos["scores"])
        s.striker = pos["striker"]
        if s.first is None:  # the striker of the position is taken as this frame's breaker
            s.first = breaker_of(s.striker, s.frame_number)
        s.breaker = breaker_of(s.first, s.frame_number)
    elif s.first is not None:
        s.phase = PLAY
        s.breaker = s.striker = s.first
    return s
