"""The JSON file parser, the table queue and ranking points: exact values."""
import json

import pytest

from tournament import (Competition, TournamentError, assign, build, check_redraw, evaluate,
                        next_call, parse_competition, points_for, season_ranking, seed_order,
                        waiting_reasons)
from tournament.spec import Table

FILE = {
    "name": "Etapa 1 · Circuito Paulista", "reds": 15, "draw_seed": 42,
    "players": ["Ana", {"name": "Bia", "club": "Clube X"}, "Caio", "Duda", "Edu", "Fábio",
                "Gil", "Hugo"],
    "tables": ["Mesa 1", {"name": "Mesa 2", "stream": True}],
    "stages": [{"format": "double_elimination_groups", "groups": 2, "frames_to_win": 2,
                "qualify": 2},
               {"format": "knockout", "frames_to_win": 3, "third_place": False}],
}


def test_file_parses_and_round_trips():
    c = parse_competition(json.loads(json.dumps(FILE)))
    assert isinstance(c, Competition)
    assert [(e.id, e.name, e.club, e.seed) for e in c.entries][:2] == [(1, "Ana", "", 1),
                                                                       (2, "Bia", "Clube X", 2)]
    assert [(t.name, t.stream) for t in c.tables] == [("Mesa 1", False), ("Mesa 2", True)]
    assert c.stages[0].qualify == 2 and c.stages[1].frames_to_win == 3
    assert c.wo_tolerance_minutes == 10
    again = parse_competition(json.loads(json.dumps(c.to_dict())))
    assert again == c


@pytest.mark.parametrize("change, code", [
    ({"stages": [{"format": "swiss"}]}, "unknown_format"),
    ({"players": ["Ana"]}, "too_few_entrants"),
    ({"players": ["Ana", "Bia", "Ana"]}, "duplicate_entrant"),
    ({"reds": 9}, "invalid_field"),
    ({"draw_seed": "x"}, "invalid_field"),
    ({"stages": [{"format": "knockout"}, {"format": "knockout"}]}, "knockout_not_last"),
    ({"stages": [{"format": "round_robin_groups", "groups": 2}]}, "no_champion"),
    ({"stages": [{"format": "double_elimination_groups", "groups": 1}]}, "too_many_entrants"),
    ({"stages": [{"format": "round_robin_groups", "groups": 2, "qualify": 5},
                 {"format": "knockout"}]}, "qualify_too_many"),
    ({"tables": ["Mesa 1", "Mesa 1"]}, "duplicate_table"),
])
def test_bad_files_are_refused(change, code):
    with pytest.raises(TournamentError) as e:
        parse_competition({**FILE, **change})
    assert e.value.code == code
    assert e.value.pt and e.value.en and e.value.pt != e.value.en
    assert e.value.message == f"{e.value.pt} / {e.value.en}"


def test_redraw_is_locked_once_a_match_started():
    check_redraw({}, [])
    with pytest.raises(TournamentError) as e:
        check_redraw({}, [3])
    assert e.value.code == "draw_locked"
    assert e.value.en == "The draw cannot be redone: the first match has started"


def _ready(*specs):
    return [{"id": i, "group": g, "players": list(p), "stream": s} for i, g, p, s in specs]


def test_next_free_table_in_schedule_order_with_rest():
    tables = [Table("Mesa 1"), Table("Mesa 2")]
    ready = _ready((1, "A", (1, 4), False), (2, "A", (2, 3), False), (3, "B", (5, 8), False))
    # player 1 finished 2 minutes ago, rest 5 minutes: match 1 waits, match 2 goes
    got = next_call(tables[0], ready, tables, busy=(), last_finish={1: 0}, now=120,
                    rest_minutes=5)
    assert got["id"] == 2
    assert next_call(tables[0], ready, tables, busy={2}, last_finish={1: 0}, now=120,
                     rest_minutes=5)["id"] == 3
    assert next_call(tables[0], ready, tables, last_finish={1: 0}, now=300, rest_minutes=5)["id"] == 1
    why = waiting_reasons(ready[0], tables[0], tables, last_finish={1: 0}, now=120, rest_minutes=5)
    assert why == [{"code": "resting", "pt": "jogador em descanso", "en": "player resting",
                    "entry": 1, "until": 300}]


def test_fixed_group_tables_and_stream():
    tables = [Table("Mesa 1", group="A"), Table("Mesa 2", group="B"), Table("TV", stream=True)]
    ready = _ready((1, "A", (1, 4), False), (2, "B", (2, 3), False), (3, None, (5, 6), True),
                   (4, None, (7, 8), False))
    assert next_call(tables[1], ready, tables)["id"] == 2
    assert next_call(tables[0], ready, tables)["id"] == 1
    assert next_call(tables[2], ready, tables)["id"] == 3   # the flagged match on the stream table
    # nothing flagged ready: the stream table takes the next match it may (J1, J2 have their
    # groups' tables), not idle while the queue waits
    assert next_call(tables[2], ready[:2] + ready[3:], tables)["id"] == 4
    assert next_call(tables[2], ready[:2], tables) is None
    calls = assign(tables, ready, tables)
    assert [(t.name, m["id"]) for t, m in calls] == [("Mesa 1", 1), ("Mesa 2", 2), ("TV", 3)]


def test_state_ready_matches_feed_the_queue():
    c = parse_competition(FILE)
    plan = build(c)
    s = evaluate(plan)
    calls = assign([c.tables[0]], s.ready(), c.tables)
    assert [(t.name, m.id) for t, m in calls] == [("Mesa 1", 1)]


def test_points_and_season_ranking():
    table = {1: 100, 2: 70, 3: 50, 5: 30}
    assert [points_for(p, table) for p in (1, 2, 3, 4, 5, 8)] == [100, 70, 50, 50, 30, 30]
    ranking = season_ranking([
        {"placings": {"Ana": 1, "Bia": 2, "Caio": 3}, "points": table},
        {"placings": {"Ana": 5, "Bia": 1, "Duda": 2}, "points": table, "weight": 2},
    ])
    assert [(r["player"], r["points"], r["etapas"], r["position"]) for r in ranking] == [
        ("Bia", 270, 2, 1), ("Ana", 160, 2, 2), ("Duda", 140, 1, 3), ("Caio", 50, 1, 4)]
    assert seed_order(["Eva", "Caio", "Ana", "Bia"], ranking) == ["Bia", "Ana", "Caio", "Eva"]


def test_busy_table_and_overdue_calls():
    from tournament import check_table_free, overdue
    check_table_free("Mesa 1", {"Mesa 2": 4})
    check_table_free("Mesa 1", {"Mesa 1": 4}, match_id=4)
    with pytest.raises(TournamentError) as e:
        check_table_free("Mesa 1", {"Mesa 1": 4}, match_id=7)
    assert e.value.code == "table_busy"
    assert e.value.pt.startswith("A Mesa 1 já tem um jogo em andamento (J4)")
    assert e.value.en.startswith("Mesa 1 already has a match in progress (M4)")
    assert overdue({3: 0, 5: 100, 9: 500}, now=700, tolerance_minutes=10) == [3, 5]
    assert overdue({3: 0}, now=599, tolerance_minutes=10) == []


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["A", "B", None]), st.integers(1, 10),
                          st.integers(1, 10), st.booleans()), max_size=12),
       st.lists(st.integers(1, 10), max_size=4),
       st.dictionaries(st.integers(1, 10), st.integers(0, 600), max_size=5),
       st.integers(0, 900))
def test_the_queue_never_calls_a_busy_or_resting_player(specs, busy, last, now):
    ready = [{"id": i, "group": g, "players": [a, b], "stream": s}
             for i, (g, a, b, s) in enumerate(specs) if a != b]
    tables = [Table("Mesa 1", group="A"), Table("Mesa 2"), Table("TV", stream=True)]
    calls = assign(tables, ready, tables, busy=busy, last_finish=last, now=now, rest_minutes=5)
    called = [p for _, m in calls for p in m["players"]]
    assert len(called) == len(set(called))
    assert not set(called) & set(busy)
    for p in called:
        assert p not in last or now >= last[p] + 300
    for t, m in calls:
        if m["stream"]:
            assert t.stream is True
        elif t.stream:  # an unflagged match on the stream table only while none flagged is ready
            assert not any(r["stream"] for r in ready)
        assert t.group is None or m["group"] in (t.group, None)
        assert m["group"] != "A" or t.name == "Mesa 1"  # group A has its own table


def test_projected_schedule_of_the_issue_event():
    from tournament import make_draw, projected_schedule
    c = parse_competition({**FILE, "rest_minutes": 0, "tables": ["Mesa 1", "Mesa 2"]})
    plan = build(c, make_draw(c, method="snake"))
    sch = projected_schedule(plan, minutes_per_frame=10)
    # best of 3 ≈ 25 min, best of 5 ≈ 40 min; two tables
    assert sch[1] == {"table": "Mesa 1", "start": 0, "end": 25.0}
    assert sch[2] == {"table": "Mesa 2", "start": 0, "end": 25.0}
    assert sch[5]["start"] == 50.0           # after J1 and J2 (J3, J4 took 25–50)
    assert sch[9]["start"] >= max(sch[5]["end"], sch[6]["end"])
    # each semi-final takes a player from each group: after both groups
    group_ends = max(sch[i]["end"] for i in range(1, 11))
    assert sch[11]["start"] == sch[12]["start"] == group_ends
    assert sch[13]["start"] >= max(sch[11]["end"], sch[12]["end"])
    # no table holds two matches at once
    by_table: dict = {}
    for v in sch.values():
        by_table.setdefault(v["table"], []).append((v["start"], v["end"]))
    for spans in by_table.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_stream_flags_from_the_file_reach_the_plan_the_queue_and_the_timetable():
    """The audit: nothing could flag a match for the stream table, so the queue (which gives a
    stream table only flagged matches) never called it, while the timetable's docstring said
    stream tables are used like the others. Flags now come by round (a stage's
    ``stream_rounds``) or by match number (``stream_matches``), and the timetable follows the
    queue's rule."""
    from tournament import make_draw, projected_schedule

    c = parse_competition({**FILE, "rest_minutes": 0, "stream_matches": [1, 3],
                           "stages": [FILE["stages"][0], {**FILE["stages"][1], "stream_rounds": ["final"]}]})
    assert c.stream_matches == (1, 3) and c.stages[1].stream_rounds == ("final",)
    assert parse_competition(json.loads(json.dumps(c.to_dict()))) == c
    plan = build(c, make_draw(c, method="snake"))
    assert [f.id for f in plan.fixtures if f.stream] == [1, 3, 13]  # J13 is the final
    assert plan.fixtures[0].to_dict()["stream"] is True
    ready = evaluate(plan, {}).ready()  # J1–J4, the openings of both groups
    calls = assign(c.tables, ready, c.tables)
    assert [(t.name, m.id) for t, m in calls] == [("Mesa 1", 2), ("Mesa 2", 1)]
    why = waiting_reasons(ready[0], c.tables[0], c.tables)
    assert [r["code"] for r in why] == ["stream_table"] and why[0]["pt"] == "aguarda a mesa de transmissão"
    sch = projected_schedule(plan, minutes_per_frame=10)
    assert {n for n, v in sch.items() if v["table"] == "Mesa 2"} == {1, 3, 13}
    # nothing flagged: the stream table stays empty in the timetable
    plain = build(parse_competition(FILE), make_draw(parse_competition(FILE), method="snake"))
    assert all(v["table"] == "Mesa 1" for v in projected_schedule(plain).values())


@pytest.mark.parametrize("extra, pt", [
    ({"stream_matches": [0]}, "'stream_matches' deve ser uma lista de números de jogo"),
    ({"stream_matches": ["J1"]}, "'stream_matches' deve ser uma lista de números de jogo"),
    ({"stream_matches": [99]}, "'stream_matches': não há jogo J99 (a competição tem 13 jogos)"),
    ({"stages": [FILE["stages"][0], {**FILE["stages"][1], "stream_rounds": ["finale"]}]},
     "fase 2: rodada desconhecida 'finale' em 'stream_rounds'"),
])
def test_bad_stream_flags_are_refused(extra, pt):
    with pytest.raises(TournamentError) as e:
        build(parse_competition({**FILE, **extra}))
    assert e.value.code == "invalid_field" and e.value.pt.startswith(pt), e.value.pt
