"""Issue 17, what an audit of the competition's desk found missing: a table a match is called
to refused to no start path but the desk's; stream tables were never called; no confirm mode for
the queue; a withdrawal by name only; a redraw by seed only; and small gaps of the desk.

Transactional: results and calls flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import io
import json
import threading
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections
from django.test import Client

from scoreboard.core import competitions, operations, tables
from scoreboard.core.matches import match_config, new_match
from scoreboard.core.models import Competition, Match, Table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]

PLAYERS = ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes", "Eva Prado", "Fábio Reis", "Gil Matos", "Hugo Dias"]
KNOCKOUT = {"name": "Copa", "reds": 6, "draw_seed": 3, "players": PLAYERS[:4], "tables": ["Mesa 1"],
            "stages": [{"format": "knockout", "frames_to_win": 1}]}


def api(comp_id: int, token: str, **body):
    return Client().post(f"/api/competitions/{comp_id}/actions/", json.dumps(body),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def post(match_id: int, token: str, event: dict):
    return Client().post(f"/api/matches/{match_id}/events/", json.dumps({"event": event}),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def wait_until(cond, timeout: float = 10.0) -> bool:
    """Poll ``cond`` until it holds (True) or ``timeout`` s pass (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return bool(cond())


def friendly(table: Table) -> Match:
    """A match of no competition put on ``table`` and not started (as the admin schedules one)."""
    return new_match(match_config(["Zé Prado", "Léo Lima"], reds=6), table=table, started=False)


def test_a_table_a_match_is_called_to_refuses_every_other_start():
    """The audit's repro: with J1 called to Mesa 1, the admin's "Iniciar" of a friendly on Mesa 1
    was accepted, and so were its first event through the API and ``creatematch --table Mesa 1``;
    the table then showed the friendly and J1 vanished from its TV and tablet. Each is refused
    now, naming the call, and nothing changes."""
    comp = competitions.create_competition(KNOCKOUT).competition
    t1 = Table.objects.get(name="Mesa 1")
    j1 = Match.objects.get(fixture__competition=comp, fixture__number=1)
    assert j1.table_id == t1.pk and j1.started_at is None  # called
    other = friendly(t1)
    said = f"A mesa Mesa 1 está reservada: o jogo {j1.pk} (J1: {j1.player_a} × {j1.player_b}) foi chamado para ela"
    # the admin's "Iniciar" (page and list action): operations.start_match
    with pytest.raises(operations.TableHeld) as e:
        operations.start_match(other, 0, "user:org")
    assert e.value.code == "table_busy" and str(e.value.message).startswith(said), e.value.message
    # its first event through the referee API
    token = operations.issue_token(other, "test")
    r = post(other.pk, token, {"type": "lot", "player": 0})
    assert r.status_code == 422 and r.json()["error"]["code"] == "table_busy"
    assert r.json()["error"]["message"].startswith(said)
    assert f"M1: {j1.player_a} × {j1.player_b}) is called to it" in r.json()["error"]["message"]
    # creatematch on that table
    before = Match.objects.count()
    with pytest.raises(CommandError) as e:
        call_command("creatematch", "--player-a", "Rui Costa", "--player-b", "Tito Melo", "--table", "Mesa 1",
                     stdout=io.StringIO())
    assert str(e.value).startswith(said), str(e.value)
    assert Match.objects.count() == before
    # nothing changed: the friendly waits, J1 is still the table's next match
    other.refresh_from_db()
    assert other.started_at is None and other.seq == 0
    now = tables.table_now(t1)
    assert now.current is None and now.next.pk == j1.pk
    # J1 itself starts (its own table), and then the friendly finds it in progress
    operations.start_match(j1, 0, "user:org")
    with pytest.raises(operations.TableBusy):
        operations.start_match(other, 0, "user:org")


def test_a_friendly_waiting_on_a_table_does_not_hold_it_for_the_admins_own_matches():
    """Only a call holds a table for the admin: two friendlies scheduled on one table start in
    whichever order the organiser chooses (one at a time)."""
    t = Table.objects.create(name="Mesa 7")
    first, second = friendly(t), friendly(t)
    operations.start_match(second, 0, "user:org")
    assert Match.objects.get(pk=second.pk).started_at is not None
    with pytest.raises(operations.TableBusy):
        operations.start_match(first, 0, "user:org")


def test_two_starts_on_one_table_at_once_cannot_both_pass():
    """Two starts at once each found the table free (neither saw the other's uncommitted start)
    and both went in progress on one table. The table's row is locked by the check now: the
    second waits for the first to commit, then is refused."""
    t = Table.objects.create(name="Mesa 8")
    x, y = friendly(t), friendly(t)
    held, release = threading.Event(), threading.Event()
    original = operations.record
    out: dict = {}

    def record(match, kind, by, *args, **kwargs):
        row = original(match, kind, by, *args, **kwargs)
        if by == "user:first":  # inside the first start's transaction, after its check
            held.set()
            release.wait(20)
        return row

    def start(m, by):
        try:
            operations.start_match(m, 0, by)
            out[by] = "started"
        except operations.OperationRefused as e:
            out[by] = e.code
        finally:
            connections.close_all()

    operations.record = record
    try:
        a = threading.Thread(target=start, args=(x, "user:first"), daemon=True)
        a.start()
        assert held.wait(10)
        b = threading.Thread(target=start, args=(y, "user:second"), daemon=True)
        b.start()
        if connection.vendor == "postgresql":
            # the second start either passed at once (the old code) or waits on the table's lock
            def blocked() -> bool:
                with connection.cursor() as cur:
                    cur.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                "AND wait_event_type = 'Lock'")
                    return cur.fetchone()[0] > 0
            wait_until(lambda: "user:second" in out or blocked())
        release.set()
        a.join(20)
        b.join(20)
    finally:
        operations.record = original
        release.set()
    assert out == {"user:first": "started", "user:second": "table_busy"}, out
    assert list(Match.objects.filter(table=t, started_at__isnull=False).values_list("pk", flat=True)) == [x.pk]


STREAMED = {**KNOCKOUT, "tables": ["Mesa 1", {"name": "TV", "stream": True}]}


def by_number(comp: Competition) -> dict:
    s = competitions.summary(Competition.objects.get(pk=comp.pk))
    return {m["number"]: m for st in s["stages"] for m in st["matches"]}


def test_a_stream_table_takes_the_next_match_until_one_is_flagged_and_the_desk_flags_one():
    """A stream table sat idle at the start while matches queued (the queue gave it only flagged
    matches). With nothing flagged ready it now takes the queue's next match like any table; a
    flagged match still waits for it (never called to another table), and the desk flags one
    (the API's and the desk's ``stream`` action)."""
    from scoreboard.live import boards

    created = competitions.create_competition(STREAMED)
    comp, token = created.competition, created.desk_token
    ms = by_number(comp)
    assert (ms[1]["table"], ms[1]["status"], ms[1]["stream"]) == ("Mesa 1", "called", False)
    assert (ms[2]["table"], ms[2]["status"], ms[2]["stream"]) == ("TV", "called", False)
    desk = boards.render_desk(comp.pk, "pt-br")
    assert "Aguarda um jogo marcado" not in desk
    assert '{"action":"stream","match":3,"stream":true}' in desk  # the final, waiting: its button
    r = api(comp.pk, token, action="stream", match="J3", stream=True)
    assert r.status_code == 200, r.content
    # Mesa 1 frees first: the flagged final waits for the stream table, then goes there
    assert api(comp.pk, token, action="walkover", match=1, absent=[1], reason="não compareceu").status_code == 200
    assert api(comp.pk, token, action="walkover", match=2, absent=[1], reason="não compareceu").status_code == 200
    ms = by_number(comp)
    assert (ms[3]["table"], ms[3]["status"], ms[3]["stream"]) == ("TV", "called", True)
    # a started match keeps its table: its flag is refused; a bad value too; nothing changes
    assert api(comp.pk, token, action="start", match=3).status_code == 200
    r = api(comp.pk, token, action="stream", match=3, stream=False)
    assert r.status_code == 422 and r.json()["error"]["code"] == "already_started"
    r = api(comp.pk, token, action="stream", match=1, stream="sim")
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_field"
    assert by_number(comp)[1]["stream"] is False


def test_the_files_stream_rounds_send_the_final_to_the_stream_table():
    """Flags from the file: a stage's ``stream_rounds`` (the final) go to the stream table when
    their players are known, the others never."""
    created = competitions.create_competition(
        {**STREAMED, "stages": [{"format": "knockout", "frames_to_win": 1, "stream_rounds": ["final"]}]})
    comp, token = created.competition, created.desk_token
    ms = by_number(comp)
    assert [ms[n]["stream"] for n in (1, 2, 3)] == [False, False, True]
    for n in (1, 2):
        assert api(comp.pk, token, action="walkover", match=n, absent=[1], reason="não compareceu").status_code == 200
    ms = by_number(comp)
    assert (ms[3]["status"], ms[3]["table"]) == ("called", "TV")


def test_confirm_mode_offers_the_queues_pick_and_calls_nothing_by_itself(admin_client):
    """The issue: "when a table frees, the next match is called (auto, or offered to the desk to
    confirm)"; only the automatic call existed. With ``"assignment": "confirm"`` nothing is
    called by itself: the desk shows each free table's suggestion (pushed like the rest of the
    board) and its "Confirmar" performs the call."""
    from scoreboard.live import boards

    comp = competitions.create_competition({**KNOCKOUT, "assignment": "confirm",
                                            "tables": ["Mesa 1", "Mesa 2"]}).competition
    assert not Match.objects.filter(fixture__competition=comp, table__isnull=False).exists()
    desk = boards.render_desk(comp.pk, "pt-br")
    assert "Sugerido: J1 → Mesa 1" in desk and "Sugerido: J2 → Mesa 2" in desk
    act = '{&quot;action&quot;: &quot;call&quot;, &quot;match&quot;: 1, &quot;table&quot;: &quot;Mesa 1&quot;}'
    assert f'data-act="{act}">Confirmar</button>' in desk
    assert "Suggested: M1 → Mesa 1" in boards.render_desk(comp.pk, "en")
    # the desk confirms J1 (what the button posts): called; Mesa 2 still offers J2
    r = admin_client.post(f"/desk/{comp.pk}/action/", json.dumps({"action": "call", "match": 1, "table": "Mesa 1"}),
                          content_type="application/json")
    assert r.status_code == 200, r.content
    ms = by_number(comp)
    assert (ms[1]["status"], ms[1]["table"]) == ("called", "Mesa 1") and ms[2]["table"] is None
    desk = boards.render_desk(comp.pk, "pt-br")
    assert "Sugerido: J1" not in desk and "Sugerido: J2 → Mesa 2" in desk
    # a result frees Mesa 1: nothing is called by itself there either
    competitions.perform(comp, {"action": "walkover", "match": 1, "absent": [1], "reason": "não compareceu"}, "user:org")
    assert by_number(comp)[2]["table"] is None
    assert "Sugerido: J2 → Mesa 1" in boards.render_desk(comp.pk, "pt-br")


def test_a_withdrawal_names_its_entrant_by_number_or_club_and_an_ambiguous_name_is_refused():
    """The audit: ``withdraw`` matched by name only (the first of that name): with "Ana (X)" and
    "Ana (Y)" entered, the second Ana could not be withdrawn, and "Ana" silently withdrew the
    first. The entry number, or the name with the club, says which; a shared name is refused."""
    created = competitions.create_competition(
        {**KNOCKOUT, "players": [{"name": "Ana", "club": "Clube X"}, {"name": "Ana", "club": "Clube Y"},
                                 "Bia Lima", "Caio Rocha"]})
    comp, token = created.competition, created.desk_token
    r = api(comp.pk, token, action="withdraw", player="Ana")
    assert r.status_code == 422 and r.json()["error"]["code"] == "ambiguous_entrant"
    assert r.json()["error"]["message"].startswith(
        "Há 2 inscritos chamados Ana (1: Ana (Clube X), 2: Ana (Clube Y)): informe o número de inscrição")
    assert Competition.objects.get(pk=comp.pk).withdrawn == []
    r = api(comp.pk, token, action="withdraw", entry=2, reason="lesão")
    assert r.status_code == 200, r.content
    assert Competition.objects.get(pk=comp.pk).withdrawn == [2]
    r = api(comp.pk, token, action="withdraw", player="Ana (Clube Y)")
    assert r.status_code == 422 and r.json()["error"]["code"] == "already_withdrawn"
    assert r.json()["error"]["message"].startswith("Ana (Clube Y) já desistiu")
    assert api(comp.pk, token, action="withdraw", player="Ana (Clube X)").status_code == 200
    assert Competition.objects.get(pk=comp.pk).withdrawn == [1, 2]
    for body, code in (({"entry": 9}, "unknown_entrant"), ({"entry": "2"}, "invalid_field")):
        r = api(comp.pk, token, action="withdraw", **body)
        assert r.status_code == 422 and r.json()["error"]["code"] == code


def test_the_desk_redraws_by_method_seed_or_a_manual_order_until_the_first_start():
    """The audit: ``redraw`` took only a seed (no method, no manual order) and the desk had no
    control for it. Now both the API and the desk's form (shown until the first start) take
    the method, the seed and a manual order; a bad one is refused and changes nothing."""
    from scoreboard.live import boards

    created = competitions.create_competition({**KNOCKOUT, "tables": ["Mesa 1", "Mesa 2"]})
    comp, token = created.competition, created.desk_token
    desk = boards.render_desk(comp.pk, "pt-br")
    assert 'id="redraw-form"' in desk and "atual: potes de cabeças de chave, semente 3" in desk
    r = api(comp.pk, token, action="redraw", method="manual", manual=[4, 3, 2, 1])
    assert r.status_code == 200, r.content
    assert r.json()["competition"]["draw"] == {"method": "manual", "seed": 3, "groups": [], "order": [4, 3, 2, 1]}
    ms = by_number(comp)
    # bracket slots 1 × 4 hold the order's first and fourth: Davi (4) × Ana (1)
    assert ms[1]["players"] == ["Davi Nunes", "Ana Souza"] and ms[1]["table"] == "Mesa 1"
    r = api(comp.pk, token, action="redraw", method="snake", seed=11)
    assert r.status_code == 200 and r.json()["competition"]["draw"]["method"] == "snake"
    assert r.json()["competition"]["draw"]["seed"] == 11
    for body, code in (({"method": "swiss"}, "invalid_field"), ({"method": "manual"}, "invalid_draw"),
                       ({"method": "manual", "manual": [1, 2, 3]}, "invalid_draw"),
                       ({"method": "manual", "manual": "1,2,3,4"}, "invalid_draw"),
                       ({"seed": "7"}, "invalid_field")):
        r = api(comp.pk, token, action="redraw", **body)
        assert r.status_code == 422 and r.json()["error"]["code"] == code, (body, r.content)
        assert " / " in r.json()["error"]["message"]
    assert Competition.objects.get(pk=comp.pk).draw["method"] == "snake"
    # the first start locks the draw: no form on the desk, the API refuses
    assert api(comp.pk, token, action="start", match=1).status_code == 200
    assert 'id="redraw-form"' not in boards.render_desk(comp.pk, "pt-br")
    r = api(comp.pk, token, action="redraw", method="random")
    assert r.status_code == 422 and r.json()["error"]["code"] == "draw_locked"


def test_a_redraw_at_the_moment_a_match_starts_waits_for_it_and_is_refused():
    """The started check was read without a lock: a start committing meanwhile was missed, and
    the redraw then deleted the match in play. The redraw now takes the competition's lock and
    its matches' locks first: it waits for the start and refuses."""
    created = competitions.create_competition(KNOCKOUT)
    comp = created.competition
    j1 = Match.objects.get(fixture__competition=comp, fixture__number=1)
    held, release = threading.Event(), threading.Event()
    original = operations.record
    out: dict = {}

    def record(match, kind, by, *args, **kwargs):
        row = original(match, kind, by, *args, **kwargs)
        if by == "user:first":
            held.set()
            release.wait(20)
        return row

    def start():
        try:
            operations.start_match(j1, 0, "user:first")
            out["start"] = "started"
        finally:
            connections.close_all()

    def redraw():
        try:
            competitions.redraw(comp, "user:second", method="random", seed=99)
            out["redraw"] = "redrawn"
        except competitions.TournamentError as e:
            out["redraw"] = e.code
        finally:
            connections.close_all()

    operations.record = record
    try:
        a = threading.Thread(target=start, daemon=True)
        a.start()
        assert held.wait(10)
        b = threading.Thread(target=redraw, daemon=True)
        b.start()
        if connection.vendor == "postgresql":
            def blocked() -> bool:
                with connection.cursor() as cur:
                    cur.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                "AND wait_event_type = 'Lock'")
                    return cur.fetchone()[0] > 0
            wait_until(lambda: "redraw" in out or blocked())
        release.set()
        a.join(20)
        b.join(20)
    finally:
        operations.record = original
        release.set()
    assert out == {"start": "started", "redraw": "draw_locked"}, out
    assert Match.objects.get(pk=j1.pk).started_at is not None
    assert Competition.objects.get(pk=comp.pk).draw["seed"] == 3


def test_the_desk_offers_to_correct_a_walkover_too():
    """The API corrected a W.O. (a player's arrival proved late), but the desk's results list
    had "Corrigir" only for a match played."""
    from scoreboard.live import boards

    created = competitions.create_competition({**KNOCKOUT, "tables": ["Mesa 1", "Mesa 2"]})
    comp, token = created.competition, created.desk_token
    assert api(comp.pk, token, action="walkover", match=1, absent=[1], reason="não compareceu").status_code == 200
    desk = boards.render_desk(comp.pk, "pt-br")
    done = desk[desk.index('class="desk-done"'):]
    assert '<button type="button" class="small" data-correct="1">Corrigir</button>' in done
    r = api(comp.pk, token, action="correct", match=1, result={"winner": 1, "frames": [0, 1]},
            reason="chegou a tempo")
    assert r.status_code == 200 and by_number(comp)[1]["kind"] == "frames"


def test_the_competitions_ranking_points_in_its_api_and_standings_csv(admin_client):
    """The season ranking counted each competition's points, but neither the competition's API
    nor its standings CSV said how many a player earned."""
    import csv

    created = competitions.create_competition(
        {"name": "Grupo único", "reds": 6, "draw_seed": 1, "players": PLAYERS[:3], "points": {"1": 50, "2": 30, "3": 10},
         "stages": [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 1}]})
    comp, token = created.competition, created.desk_token
    for n in (1, 2, 3):
        m = by_number(comp)[n]
        winner = "Ana Souza" if "Ana Souza" in m["players"] else "Bia Lima"  # Ana beats all, Bia beats Caio
        absent = [1 - m["players"].index(winner)]
        assert api(comp.pk, token, action="walkover", match=n, absent=absent, reason="não compareceu").status_code == 200
    s = competitions.summary(Competition.objects.get(pk=comp.pk))
    assert s["complete"] and [(p["name"], p["placing"], p["points"]) for p in s["placings"]] == [
        ("Ana Souza", 1, 50), ("Bia Lima", 2, 30), ("Caio Rocha", 3, 10)]
    rows = list(csv.reader(admin_client.get(f"/desk/{comp.pk}/standings.csv").content.decode("utf-8-sig").splitlines()))
    assert rows[0][-2:] == ["Colocação final", "Pontos de ranking"]
    assert [(r[3], r[-2], r[-1]) for r in rows[1:]] == [("Ana Souza", "1", "50"), ("Bia Lima", "2", "30"),
                                                       ("Caio Rocha", "3", "10")]
    en = list(csv.reader(admin_client.get(f"/desk/{comp.pk}/standings.csv?lang=en").content.decode("utf-8-sig").splitlines()))
    assert en[0][-2:] == ["Final placing", "Ranking points"]


def test_the_audit_kinds_read_in_words_and_the_match_list_filters_by_situation_and_stage(admin_client):
    """The admin's desk records listed "call", "move", "start" raw; the match list had no
    filter by situation or by a competition's stage."""
    created = competitions.create_competition({**KNOCKOUT, "tables": ["Mesa 1"]})
    comp = created.competition
    page = admin_client.get("/admin/scoreboard/matchrecord/").content.decode()
    assert "chamada para a mesa" in page and "<td class=\"field-kind\">call</td>" not in page
    en = admin_client.get("/admin/scoreboard/matchrecord/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "call to a table" in en
    j1 = Match.objects.get(fixture__competition=comp, fixture__number=1)
    j2 = Match.objects.get(fixture__competition=comp, fixture__number=2)

    def listed(query: str) -> set:
        html = admin_client.get(f"/admin/scoreboard/match/?{query}").content.decode()
        return {pk for pk in (j1.pk, j2.pk) if f'href="/admin/scoreboard/match/{pk}/change/' in html}

    assert listed("situacao=called") == {j1.pk} and listed("situacao=scheduled") == {j2.pk}
    operations.start_match(j1, 0, "user:org")
    assert listed("situacao=in_play") == {j1.pk} and listed("situacao=called") == set()
    assert listed(f"fase={comp.pk}-0") == {j1.pk, j2.pk}
    page = admin_client.get("/admin/scoreboard/match/").content.decode()
    assert "Copa · fase 1 (mata-mata)" in page and "situação" in page.lower()


def test_desktoken_issues_a_new_desk_token_and_the_old_one_stops():
    created = competitions.create_competition(KNOCKOUT)
    comp, old = created.competition, created.desk_token
    out = io.StringIO()
    call_command("desktoken", str(comp.pk), stdout=out)
    data = json.loads(out.getvalue())
    assert data["competition"] == comp.pk and data["desk_token"] != old and data["api_url"].endswith(
        f"/api/competitions/{comp.pk}/")
    assert api(comp.pk, old, action="advance").status_code == 403
    assert api(comp.pk, data["desk_token"], action="advance").status_code == 200
    for bad, said in (("x", "Id de competição inválido"), ("999", "Competição 999 não encontrada")):
        with pytest.raises(CommandError) as e:
            call_command("desktoken", bad, stdout=io.StringIO())
        assert said in str(e.value) and " / " in str(e.value)
