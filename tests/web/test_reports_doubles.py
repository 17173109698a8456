"""Issue 19.3: in doubles the statistics and the súmula attribute breaks, pots, fouls and
warnings to the person who made them, with the side's totals."""
from __future__ import annotations

import sinuca

from scoreboard.reports import stats
from scoreboard.reports.sumula import Sheet

EVENTS = [  # Ana 8 (red, black), Bia 1, Carla 6 (red, pink) then a foul by Carla: 4 to the other side
    {"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"},
    {"type": "pot", "balls": [1]}, {"type": "no_pot"},
    {"type": "pot", "balls": [1]}, {"type": "pot", "balls": [5]}, {"type": "foul", "kind": "other"},
]


def fold() -> stats.MatchStats:
    config = sinuca.Match({"players": [["Ana", "Carla"], ["Bia", "Duda"]], "reds": 6, "first_breaker": 0}).config
    return stats.compute(config, [stats.LogEntry(seq=i, event=e) for i, e in enumerate(EVENTS, start=1)])


def test_breaks_pots_and_fouls_are_the_persons_and_the_sides_totals_stay():
    st = fold()
    assert [[p.name for p in side] for side in st.people] == [["Ana", "Carla"], ["Bia", "Duda"]]
    ana, carla = st.people[0]
    bia, duda = st.people[1]
    assert (ana.breaks, ana.pots, ana.reds_potted, ana.colours_potted, ana.fouls_total) == ([8], 2, 1, 1, 0)
    assert (carla.breaks, carla.pots, carla.fouls_total, carla.foul_points_given) == ([6], 2, 1, 4)
    assert (bia.breaks, bia.pots, duda.pots, duda.breaks) == ([1], 1, 0, [])
    # the side: its two visits, both persons' balls and the foul
    assert (st.players[0].breaks, st.players[0].pots, st.players[0].fouls_total) == ([8, 6], 4, 1)
    assert st.players[1].points_from_fouls == 4
    assert [(b.player, b.person, b.points) for b in st.breaks] == [(0, 0, 8), (1, 0, 1), (0, 1, 6)]


def test_one_player_a_side_has_no_people_and_breaks_as_before():
    config = sinuca.Match({"players": ["Ana", "Bia"], "reds": 6, "first_breaker": 0}).config
    st = stats.compute(config, [stats.LogEntry(seq=i, event=e) for i, e in enumerate(EVENTS, start=1)])
    assert st.people == []
    assert [(b.player, b.person, b.points) for b in st.breaks] == [(0, None, 8), (1, None, 1), (0, None, 6)]


def test_the_sumula_lists_each_person_then_the_sides_total():
    rows = Sheet.player_rows(type("S", (), {"st": fold()})())
    assert [r[0] for r in rows] == ["Ana", "Carla", "Ana / Carla (total)", "Bia", "Duda", "Bia / Duda (total)"]
    assert rows[1] == ["Carla", "", 6, "—", 2, 1, "", 0]
    assert rows[2] == ["Ana / Carla (total)", 0, 8, "—", 4, 1, 0, 0]
    assert rows[5][6] == 4  # the points the side received from fouls
