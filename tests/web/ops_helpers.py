"""Shared data of the tests that play a known log: the log, the recorded demo final, a helper
that plays events as the referee, and fixtures that forget the service's caches between tests."""
from __future__ import annotations

import json
import pathlib

import pytest

DEMO = pathlib.Path(__file__).resolve().parents[2] / "demo" / "final.json"

CONFIG = {"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 1, "first_breaker": 0}
# Ana: red, black, red, pink (break 15), miss; Bia fouls (blue involved: 5 to Ana, Art. 40);
# Ana passes, Bia plays again: red, blue, undo of the blue (break 1), miss; Ana: red, black
# (break 8), then a disciplinary foul by Ana (7 to Bia + warning, Art. 49.4).
LOG = [
    {"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]},
    {"type": "pot", "balls": [1]}, {"type": "pot", "balls": [6]},
    {"type": "no_pot"},
    {"type": "foul", "ball": 5, "kind": "ball_on_not_hit_first"},
    {"type": "decision", "choice": "pass"},
    {"type": "pot", "balls": [1]}, {"type": "pot", "balls": [5]},
    {"type": "undo"},
    {"type": "no_pot"},
    {"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]},
    {"type": "foul", "kind": "slow_play"},
]


def demo() -> dict:
    return json.loads(DEMO.read_text())


def play(m, events, entered_by: str = "referee:1"):
    """Append ``events`` to match ``m`` through the log service, as its referee; ``m`` refreshed."""
    from scoreboard.core import log

    for i, ev in enumerate(events, start=m.seq):
        log.append_event(m.pk, ev, expected_seq=i, entered_by=entered_by)
    m.refresh_from_db()
    return m


def fold(config, events):
    """The statistics fold of a log given as bare events (seq 1, 2, …)."""
    from scoreboard.reports import stats

    return stats.compute(config, [stats.LogEntry(i + 1, e) for i, e in enumerate(events)])


@pytest.fixture(autouse=True)
def fresh_engines():
    """Forget this process's memories (``core.memory.forget``, the one hook; ``conftest.py`` does
    it around every test too): a rolled-back test database hands out the same match ids again,
    and a cached engine of another test's match must not answer for them."""
    from scoreboard.core import memory

    memory.forget()
    yield
    memory.forget()


@pytest.fixture(autouse=True)
def fresh_stats():
    """The same hook, under the name the modules that cache statistics import."""
    from scoreboard.core import memory

    memory.forget()
    yield
    memory.forget()


def _pots(*balls):
    return [{"type": "pot", "balls": [b]} for b in balls]


# A whole match of three frames (6 reds, best of 3) with known statistics. Ana breaks 23, then
# 51 (frame 1: 74-0, on the 7); Bia makes 24 and Ana concedes frame 2 (0-24); Ana makes 8 and Bia
# concedes frame 3 (8-0). Frames 2-1; Ana's breaks of 20+: 51, 23; Bia's: 24.
THREE_FRAMES_CONFIG = {"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 2, "first_breaker": 0}
THREE_FRAMES = (
    _pots(1, 7, 1, 7, 1, 6) + [{"type": "no_pot"}, {"type": "no_pot"}]
    + _pots(1, 7, 1, 7, 1, 7, 2, 3, 4, 5, 6, 7)
    + [{"type": "next_frame"}] + _pots(1, 7, 1, 7, 1, 7)
    + [{"type": "no_pot"}, {"type": "concede", "player": 0}, {"type": "next_frame"}]
    + _pots(1, 7) + [{"type": "no_pot"}, {"type": "concede", "player": 1}]
)
