"""Shared data of the event-day tests: a short known log and the recorded demo final."""
from __future__ import annotations

import json
import pathlib

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


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_engines():
    """Forget the service's cached engines: a rolled-back test database hands out the same match
    ids again, and a cached engine of another test's match must not answer for them."""
    from scoreboard.core import log

    log._engines.clear()
    yield
    log._engines.clear()
