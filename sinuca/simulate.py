"""Seeded play: legal event streams for benchmarks, property tests and demos.

A :class:`random.Random` picks, at every step, an event the engine accepts now (asking
``Match.options()``), weighted like real play: mostly pots and misses, some fouls with free
balls, retornos and the odd undo.
"""
from __future__ import annotations

import random

from .engine import Match
from .errors import SinucaError
from .vocab import FoulGroup, FoulKind, Phase


def play(m: Match, rng: random.Random, max_events: int, undo_rate: float = 0.02):
    """Apply up to ``max_events`` plausible events to ``m``, yielding each :class:`Step` applied
    (events the engine refuses are drawn again); stops early when the match is over."""
    applied = 0
    while applied < max_events:
        ev = next_event(m, rng, undo_rate)
        if ev is None:
            return
        try:
            step = m.apply(ev)
        except SinucaError:
            continue
        applied += 1
        yield step


def play_match(config: dict, seed: int = 0, max_events: int = 100_000, undo_rate: float = 0.02) -> list[dict]:
    """Events of a whole match played by chance under ``config``.

    Args:
        config: a contract configuration; seed: the random seed; max_events: a bound;
        undo_rate: share of steps that take back the last event.
    Returns:
        the event list (every event accepted by the engine, in order).
    """
    return [step.event for step in play(Match(config), random.Random(seed), max_events, undo_rate)]


DEMO_FRAME = ([{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"},
               {"type": "foul", "ball": 1, "snooker": True}, {"type": "decision", "choice": "play"},
               {"type": "pot", "balls": [5], "free_ball": 5}, {"type": "pot", "balls": [6]},
               {"type": "pot", "balls": [1, 1]}, {"type": "pot", "balls": [7]}, {"type": "pot", "balls": [1]},
               {"type": "undo"}, {"type": "no_pot"},
               {"type": "foul", "ball": 1, "potted": [1], "retorno": True},
               {"type": "decision", "choice": "retorno"}]
              + [e for _ in range(12) for e in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]})]
              + [{"type": "pot", "balls": [c]} for c in (2, 3, 4, 5, 6, 7)])
"""44 legal events of a 15-red frame (Ana breaking): a free ball, a retorno and an undo; it
ends on the 6 (Art. 50.1) and the extra 7. For benchmarks, load tests and demos."""


# Events are plain JSON: the codes as str, in a fixed order so that a seed replays the same match.
_KINDS = sorted(k.value for k in FoulKind)
_DISCIPLINARY = frozenset(k.value for k in FoulKind if k.group is FoulGroup.DISCIPLINARY)


def next_event(m: Match, rng: random.Random, undo_rate: float = 0.02) -> dict | None:
    """One plausible event for ``m`` as it stands, or ``None`` when the match is over."""
    o = m.options()
    evs = o["events"]
    if "undo" in evs and rng.random() < undo_rate:
        return {"type": "undo"}
    if "lot" in evs:
        return {"type": "lot", "player": rng.randrange(2)}
    if "decision" in evs:
        opts = o["decision_options"]
        return {"type": "decision", "choice": str(rng.choice(opts))}
    if o["bonus_seven"] and rng.random() < 0.7:
        return {"type": "pot", "balls": [7]}
    if "next_frame" in evs:
        return {"type": "next_frame"}
    if "pot" not in evs or m.state()["phase"] is Phase.MATCH_OVER:
        return None
    r = rng.random()
    on = o["pot"]
    if r < 0.55:
        if on == [1]:
            if o["free_ball"] and rng.random() < 0.5:
                fb = rng.choice(o["free_ball"])
                return {"type": "pot", "balls": [fb], "free_ball": fb}
            k = 2 if o["max_reds"] >= 2 and rng.random() < 0.05 else 1
            return {"type": "pot", "balls": [1] * k}
        ball = rng.choice(on)
        if o["free_ball"] and rng.random() < 0.5:
            fb = rng.choice(o["free_ball"])
            return {"type": "pot", "balls": [fb], "free_ball": fb}
        return {"type": "pot", "balls": [ball]}
    if r < 0.85:
        return {"type": "no_pot", "safety": rng.random() < 0.3}
    if r < 0.995:
        ev: dict = {"type": "foul", "kind": rng.choice(_KINDS) if rng.random() < 0.2 else FoulKind.OTHER.value}
        if len(on) > 1:
            ev["nominated"] = rng.choice(on)
        if rng.random() < 0.3:
            ev["snooker"] = True
        if rng.random() < 0.3:
            ev["retorno"] = True
        if rng.random() < 0.1:
            ev["aggravated"] = True
        if ev["kind"] in _DISCIPLINARY and rng.random() < 0.9:
            ev["kind"] = FoulKind.OTHER.value  # disciplinary fouls are rare
        if o["free_ball"] and rng.random() < 0.5:
            ev["free_ball"] = rng.choice(o["free_ball"])
        return ev
    return {"type": "stalemate_warning"}
