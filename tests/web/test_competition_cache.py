"""A result's effect does not rebuild the competition's plan (bench/competition_flow.py: parsing
the spec and building the plan were a fifth of it): the plan is built once per spec and draw,
and a redraw gives the new draw's plan."""
from __future__ import annotations

import pytest

import tournament
from scoreboard.core import competitions
from scoreboard.core.models import Competition

pytestmark = [pytest.mark.django_db(transaction=True)]

EVENT = {"name": "Copa", "reds": 6, "draw_seed": 1, "players": [f"P{i}" for i in range(1, 9)],
         "tables": ["Mesa 1", "Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}]}


def test_the_plan_is_built_once_per_draw_and_a_redraw_rebuilds_it():
    comp = competitions.create_competition(EVENT).competition
    first = competitions.plan_of(Competition.objects.get(pk=comp.pk))
    assert competitions.plan_of(Competition.objects.get(pk=comp.pk)) is first
    assert competitions.now(Competition.objects.get(pk=comp.pk)).plan is first

    competitions.redraw(comp, "test", seed=99, method="random")
    fresh = Competition.objects.get(pk=comp.pk)
    plan = competitions.plan_of(fresh)
    assert plan is not first
    want = tournament.build(tournament.parse_competition(fresh.spec), competitions.draw_from(fresh.draw))
    assert plan.fixtures == want.fixtures and plan.draw == want.draw
    assert plan.draw.seed == 99 and first.draw.seed == 1
    # the matches made for the new draw are the new plan's first round
    s = competitions.summary(fresh)
    names = {e: p.name for e, p in competitions._names(fresh).items()}
    st = competitions.now(fresh).state
    firsts = [m for m in s["stages"][0]["matches"] if m["round"] == 1]
    assert [m["players"] for m in firsts] == [[names[e] for e in st.matches[m["number"]].players] for m in firsts]


def test_a_match_end_reads_only_the_states_it_has_not_seen_and_an_undo_counts():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoreboard.core import log

    comp = competitions.create_competition(EVENT).competition
    called = [fx for fx in comp.fixtures.select_related("match").order_by("number") if fx.match_id][:2]
    for fx in called:
        log.append_event(fx.match_id, {"type": "lot", "player": 0})
        log.append_event(fx.match_id, {"type": "concede", "player": 1})  # side A wins 1-0
    first = competitions.results(Competition.objects.get(pk=comp.pk))
    assert {n: (r.frames, r.kind) for n, r in first.items()} == {
        called[0].number: ((1, 0), "frames"), called[1].number: ((1, 0), "frames")}
    with CaptureQueriesContext(connection) as q:
        again = competitions.results(Competition.objects.get(pk=comp.pk))
    assert again == first
    assert not [x for x in q.captured_queries if "scoreboard_event" in x["sql"]]  # nothing re-read
    # an undo is a new event: the match is open again, its result gone
    log.append_event(called[0].match_id, {"type": "undo"})
    after = competitions.results(Competition.objects.get(pk=comp.pk))
    assert called[0].number not in after and after[called[1].number] == first[called[1].number]


BIG = {"name": "Bench", "reds": 6, "draw_seed": 2026,
       "players": [{"name": f"Jogador {i}", "club": f"Clube {i % 9}"} for i in range(1, 129)],
       "tables": [f"Mesa {i}" for i in range(1, 17)],
       "stages": [{"format": "double_elimination_groups", "groups": 32, "frames_to_win": 1, "qualify": 2},
                  {"format": "knockout", "frames_to_win": 1}]}


def test_a_128_player_event_is_created_and_its_results_flow_in_few_queries():
    """The speed of issue 17 (bench/competition_flow.py): ``createcompetition`` of 128 players
    ran 910 queries (a player row, an entry, a match and its fixture one by one) and took
    0.6-2.5 s; a result's effect ran 27-32 (the table checked three times over, savepoints, the
    plan's fixture rows made one model at a time). Bulk writes and one read of each thing now."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoreboard.core import log
    from scoreboard.core.models import Match

    with CaptureQueriesContext(connection) as q:
        comp = competitions.create_competition(BIG).competition
    assert len(q.captured_queries) <= 110, len(q.captured_queries)
    assert Match.objects.filter(fixture__competition=comp).count() == 64  # the groups' openings
    assert Match.objects.filter(fixture__competition=comp, table__isnull=False).count() == 16  # called
    counts = []
    real = competitions.advance

    def counted(c):
        with CaptureQueriesContext(connection) as q:
            try:
                return real(c)
            finally:
                counts.append(len(q.captured_queries))

    competitions.advance = counted
    try:
        for _ in range(20):
            m = (Match.objects.filter(fixture__competition=comp, table__isnull=False, seq=0, started_at__isnull=True)
                 .order_by("pk").first())
            log.append_event(m.pk, {"type": "lot", "player": 0})
            log.append_event(m.pk, {"type": "concede", "player": 1})
    finally:
        competitions.advance = real
    # 18: two of them read and clear the marks of the results reacted to (``results_due``)
    assert len(counts) == 20 and max(counts) <= 18, counts
    # the desk pushed after each of them: its tables read at once (three queries per table, one
    # of them over every result the table ever had, were three quarters of its time)
    from scoreboard.live import boards

    with CaptureQueriesContext(connection) as q:
        desk = boards.render_desk(comp.pk, "pt-br")
    assert len(q.captured_queries) <= 10, len(q.captured_queries)
    assert desk.count('class="desk-table st-called"') == 16
