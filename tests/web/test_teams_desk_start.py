"""The desk's ``start`` on a team competition (found by a fresh tester): it ignored ``table``,
so a rubber was started on no table, or "on" a busy table, and a player who was at one table
was put in play at another. Now, as an individual competition's start: at the table given only
when it is free, where the rubber is called otherwise, never on no table; and never while one
of its players is in another match in progress (``player_busy``, also for an individual
competition and the admin). Each refusal is pt/en and changes nothing."""
from __future__ import annotations

import pytest

from scoreboard.core import operations
from scoreboard.core.models import Fixture, Match

from test_teams_event import EVENT, api, create

pytestmark = [pytest.mark.django_db(transaction=True)]


def rubber(cid: int, number: int) -> Match:
    return Fixture.objects.select_related("match__table").get(competition_id=cid, number=number).match


def test_start_keeps_one_match_per_table_and_per_player():
    out = create({**EVENT, "tables": ["Mesa 1", "Mesa 2"]})
    cid, desk = out["competition"], out["desk_token"]
    first = rubber(cid, 1)  # C1 · Jogo 1: Duda × Fábio, called to Mesa 1
    assert first.table.name == "Mesa 1" and first.config["players"] == ["Duda", "Fábio"]
    assert api(cid, desk, action="start", match=1).status_code == 200
    fourth = rubber(cid, 4)  # C2 · Jogo 1: Fábio × Ana
    assert "Fábio" in fourth.config["players"] and fourth.started_at is None
    before = (fourth.table_id, fourth.started_at)

    r = api(cid, desk, action="start", match=4, table="Mesa 1")
    assert r.status_code == 422 and r.json()["error"]["code"] == "table_busy"
    r = api(cid, desk, action="start", match=4, table="Mesa 2")
    assert r.status_code == 422 and r.json()["error"]["code"] == "player_busy"
    assert r.json()["error"]["message"].startswith(f"Fábio está em jogo na mesa 1, no jogo {first.pk} (J1: Duda × Fábio)")
    assert f"/ Fábio is playing at table 1, in match {first.pk} (M1: Duda × Fábio)" in r.json()["error"]["message"]
    r = api(cid, desk, action="start", match=4, table="Mesa 9")
    assert r.status_code == 422 and r.json()["error"]["code"] == "unknown_table"
    fourth.refresh_from_db()
    assert (fourth.table_id, fourth.started_at) == before and fourth.seq == 0

    # the admin's "Iniciar" (operations.start_match) refuses him too
    with pytest.raises(operations.PlayerBusy):
        operations.start_match(fourth, 0, "admin")
    fourth.refresh_from_db()
    assert fourth.started_at is None and fourth.seq == 0


def test_a_rubber_on_no_table_is_not_started():
    out = create(EVENT)  # no tables: nothing is called
    cid, desk = out["competition"], out["desk_token"]
    assert rubber(cid, 1).table is None
    r = api(cid, desk, action="start", match=1)
    assert r.status_code == 422 and r.json()["error"]["code"] == "no_table"
    assert r.json()["error"]["message"] == ("J1: escolha a mesa antes de iniciar / "
                                            "M1: choose its table before starting it")
    assert rubber(cid, 1).started_at is None
    from scoreboard.core.models import Table

    Table.objects.create(name="Mesa 3")
    assert api(cid, desk, action="start", match=1, table="Mesa 3").status_code == 200
    m = rubber(cid, 1)
    assert m.table.name == "Mesa 3" and m.started_at is not None


def test_a_team_competitions_table_goes_out_of_service_and_its_called_rubber_goes_elsewhere():
    """The tables' service is the venue's, whatever the format: a rubber called to a table put
    out of service goes back to the ties' queue and is called to the free table; nothing is
    called to the table until it is back."""
    out = create({**EVENT, "tables": ["Mesa 1", "Mesa 2"]})
    cid, desk = out["competition"], out["desk_token"]
    assert rubber(cid, 1).table.name == "Mesa 1"
    assert api(cid, desk, action="out_of_service", table="Mesa 1", reason="taco quebrado").status_code == 200
    assert rubber(cid, 1).table.name == "Mesa 2"
    r = api(cid, desk, action="start", match=1, table="Mesa 1")
    assert r.status_code == 422 and r.json()["error"]["code"] == "table_out_of_service"
    assert api(cid, desk, action="in_service", table="Mesa 1").status_code == 200
    assert rubber(cid, 1).table.name == "Mesa 2" and rubber(cid, 1).started_at is None
