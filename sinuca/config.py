"""The match configuration (``docs/contract.md`` section 2): checks, defaults, first position."""
from __future__ import annotations

from typing import Any

from .errors import error
from .position import LOT, PLAY, State, breaker_of, default_order
from .rules import COLOURS, REDS_ALLOWED

_CONFIG_KEYS = frozenset({"reds", "frames_to_win", "players", "sides", "first_breaker", "retorno", "position"})
MAX_SIDE = 4
"""Most players a side may have (doubles decision: a side has 1 to 4 players)."""
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
    players, sides = _normalize_sides(config.get("players"), config.get("sides"))
    out: dict = {"reds": reds, "frames_to_win": ftw, "players": players}
    if sides:
        out["sides"] = sides
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


def _name(v: Any) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


def _normalize_sides(players: Any, sides: Any) -> tuple[list, list | None]:
    """``(players, sides)``: the two side names and, when a side has several players, each
    side's player names (``None`` with one player a side, which is today's configuration).

    ``players`` is two names, or two sides each a name or a list of 1 to 4 names (the side's
    name is then its players' names joined by " / "); ``sides``, given with two names in
    ``players``, lists each side's players under those names (what the engine normalizes to).
    Raises ``invalid_config`` for more or fewer than two sides (``sides_count``), a side without
    players (``side_empty``), more than 4 (``side_too_big``), an empty name in a side
    (``side_name``), or a name twice (``player_twice``).
    """
    if not isinstance(players, list):
        raise error("invalid_config.players")
    if len(players) != 2:
        # More sides: the text's "o adversário" has no single receiver of a penalty (Art. 35.1).
        raise error("invalid_config.sides_count", count=len(players))
    if sides is None:
        lists = [p if isinstance(p, list) else [p] for p in players]
        labels = [p if not isinstance(p, list) else None for p in players]
    else:
        if not all(_name(p) for p in players):
            raise error("invalid_config.players")
        if isinstance(sides, list) and len(sides) != 2 and all(isinstance(x, list) for x in sides):
            raise error("invalid_config.sides_count", count=len(sides))
        if not isinstance(sides, list) or len(sides) != 2 or not all(isinstance(x, list) for x in sides):
            raise error("invalid_config.sides")
        lists, labels = sides, list(players)
    names = []
    for i, side in enumerate(lists):
        if not side:
            raise error("invalid_config.side_empty", side="AB"[i])
        if len(side) > MAX_SIDE:
            raise error("invalid_config.side_too_big", side="AB"[i], most=MAX_SIDE, count=len(side))
        got = [_name(p) for p in side]
        if None in got:
            if labels[i] is not None and sides is None:
                raise error("invalid_config.players")  # a plain name, as before sides existed
            raise error("invalid_config.side_name", side="AB"[i], number=got.index(None) + 1)
        names.append(got)
    if len(names[0]) == 1 and len(names[1]) == 1:
        # One player a side: today's configuration, where two players may share a name.
        return [_name(labels[i]) or names[i][0] for i in (0, 1)], None
    seen: set = set()
    for side in names:
        for p in side:
            if p.casefold() in seen:
                raise error("invalid_config.player_twice", name=p[:40])
            seen.add(p.casefold())
    return [_name(labels[i]) or " / ".join(names[i]) for i in (0, 1)], names


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
    sides = config.get("sides")
    s.sizes = (len(sides[0]), len(sides[1])) if sides else None
    s.order = default_order(s.sizes) if sides else ((0,), (0,))
    s.due = (0, 0)
    s.started = False
    s.pwarn = tuple((0,) * k for k in s.sizes) if sides else ((0,), (0,))
    s.lost_on_foul = False
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
