"""``reports/stats.py``: statistics as a fold over the log with the engine (breaks, pots, fouls by
kind, sanctions, frames and their worms), agreeing with the engine's own state."""
from __future__ import annotations

import pytest

import sinuca

from ops_helpers import CONFIG, LOG, demo, fold, fresh_engines  # noqa: F401

pytestmark = pytest.mark.django_db


def test_breaks_pots_and_fouls_of_a_known_log():
    st = fold(CONFIG, LOG)
    ana, bia = st.players
    assert ana.breaks == [15, 8] and ana.highest_break == 15
    assert bia.breaks == [1] and bia.highest_break == 1  # the undone blue does not count
    assert (ana.pots, ana.reds_potted, ana.colours_potted) == (6, 3, 3)
    assert bia.pots == 1
    assert ana.fouls == {"slow_play": 1} and bia.fouls == {"ball_on_not_hit_first": 1}
    assert ana.points_from_fouls == 5 and bia.points_from_fouls == 7
    assert ana.warnings == 1 and bia.warnings == 0
    assert [(f.seq, f.offender, f.kind, f.article, f.penalty) for f in st.fouls] == [
        (6, 1, "ball_on_not_hit_first", "40", 5), (14, 0, "slow_play", "49.4", 7)]
    assert [(s.seq, s.players, s.what) for s in st.sanctions] == [(14, [0], "warning")]
    assert len(st.frames) == 1 and st.frames[0].scores == [28, 8] and st.frames[0].winner is None
    assert st.frames[0].worm[0] == (0, 0) and st.frames[0].worm[-1] == (28, 8)


def test_the_demo_final_agrees_with_the_engine():
    doc = demo()
    st = fold(doc["config"], doc["events"])
    final = sinuca.Match.replay(doc["config"], doc["events"]).state()
    assert [p.highest_break for p in st.players] == final["highest_break"] == [49, 13]
    assert [(f.frame, f.scores, f.winner, f.ended_by) for f in st.frames] == [
        (h["frame"], h["scores"], h["winner"], h["ended_by"]) for h in final["history"]]
    assert st.players[0].big_breaks == [49]
    for f in st.frames:
        assert f.worm[-1] == tuple(f.scores)
    # every penalty went to someone: the two players' foul points add up
    assert sum(p.points_from_fouls for p in st.players) == sum(f.penalty for f in st.fouls)


@pytest.mark.parametrize("seed", range(12))
def test_highest_break_equals_the_engines_on_simulated_matches(seed):
    from sinuca.simulate import play_match

    cfg = {"players": ["A", "B"], "reds": (6, 10, 15)[seed % 3], "frames_to_win": 1 + seed % 2}
    events = play_match(cfg, seed=seed)
    st = fold(cfg, events)
    assert [p.highest_break for p in st.players] == sinuca.Match.replay(cfg, events).state()["highest_break"]