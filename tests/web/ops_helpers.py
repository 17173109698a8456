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
    """Forget the service's cached engines: a rolled-back test database hands out the same match
    ids again, and a cached engine of another test's match must not answer for them."""
    from scoreboard.core import log

    log._engines.clear()
    yield
    log._engines.clear()


@pytest.fixture(autouse=True)
def fresh_stats():
    """Forget cached statistics: a rolled-back test database hands out the same match ids and
    seqs again, with other events (and times) behind them."""
    from scoreboard.reports import stats

    stats._cache.clear()
    yield
    stats._cache.clear()
