"""``core.operations``: one match in progress per table (admin, API, command), moving a match
in progress (asked first, its tablet follows), W.O. as a result of its own on every screen, a
referee token for any match (command and admin), and the admin's player and match lists."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from scoreboard.core import log, operations, tables
from scoreboard.core.matches import create_match, new_match
from scoreboard.core.models import Event, Match, MatchRecord, Player, RefereeCredential, Table

from ops_helpers import CONFIG, LOG, play  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.pg]

OTHER = {"players": ["Caio", "Davi"], "reds": 6, "frames_to_win": 1}  # waits for the lot


def _busy_table():
    t = Table.objects.create(name="Mesa 1")
    first = play(new_match(CONFIG, table=t), LOG[:2])
    second = new_match(OTHER, table=t, started=False)
    return t, first, second


# -- one match in progress per table ----------------------------------------------------------

def test_admin_start_on_a_busy_table_is_refused_in_portuguese_and_english(admin_client):
    t, first, second = _busy_table()
    r = admin_client.post(f"/admin/scoreboard/match/{second.pk}/start/", {"lot": "0"}, follow=True)
    page = r.content.decode()
    assert "A mesa Mesa 1 já tem um jogo em andamento" in page and f"jogo {first.pk}" in page
    second.refresh_from_db()
    assert second.started_at is None and second.seq == 0  # nothing changed
    assert [m.pk for m in tables.in_progress().filter(table=t)] == [first.pk]
    # the list's action says the same, and starts nothing
    r = admin_client.post("/admin/scoreboard/match/", {"action": "start_with_drawn_lot",
                                                        "_selected_action": [second.pk]}, follow=True)
    assert "já tem um jogo em andamento" in r.content.decode()
    assert Match.objects.get(pk=second.pk).started_at is None
    en = operations.TableBusy(t, first).message_en
    assert en.startswith("Table Mesa 1 already has a match in progress")


def test_the_first_event_of_a_second_match_on_a_busy_table_is_refused_by_the_api():
    t, first, second = _busy_table()
    token = operations.issue_token(second, "test")
    r = Client().post(f"/api/matches/{second.pk}/events/", json.dumps({"event": {"type": "lot", "player": 0}}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "table_busy" and "já tem um jogo em andamento" in err["message"]
    assert "already has a match in progress" in err["message"]
    assert Match.objects.get(pk=second.pk).seq == 0 and not Event.objects.filter(match=second).exists()
    # once the first match is over, the second may start on that table
    play(first, [{"type": "concede_match", "player": 1}])
    r = Client().post(f"/api/matches/{second.pk}/events/", json.dumps({"event": {"type": "lot", "player": 0}}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert r.status_code == 201 and tables.table_now(t).current.pk == second.pk


def test_creatematch_on_a_busy_table_is_refused():
    create_match("Ana", "Bia", table="Mesa 7")
    with pytest.raises(CommandError, match="Mesa 7 já tem um jogo em andamento"):
        call_command("creatematch", "--player-a", "Caio", "--player-b", "Davi", "--table", "Mesa 7",
                     stdout=io.StringIO())
    assert Match.objects.count() == 1


# -- moving a match in progress ---------------------------------------------------------------

def test_moving_a_match_in_progress_asks_first_and_its_tablet_follows(admin_client):
    t1, t2 = Table.objects.create(name="1"), Table.objects.create(name="2")
    tables.set_pin(t1, "135790")
    tables.set_pin(t2, "246802")
    m = play(new_match(CONFIG, table=t1), LOG[:2])
    old_tablet, new_tablet = Client(), Client()
    assert old_tablet.post(f"/tables/{t1.pk}/referee/", {"pin": "135790"})["Location"] == f"/matches/{m.pk}/referee/"
    page = new_tablet.post(f"/tables/{t2.pk}/referee/", {"pin": "246802"}).content.decode()
    assert 'data-follow-key="idle:0:0"' in page  # table 2's tablet waits for a match
    assert "Vermelha" in old_tablet.get(f"/matches/{m.pk}/referee/").content.decode()
    form = {"table": t2.pk, "competition": "", "referee_name": "", "scheduled_at": "", "shot_clock": 0}
    # without the confirmation: refused, nothing moved
    r = admin_client.post(f"/admin/scoreboard/match/{m.pk}/change/", {**form, **_inline()})
    assert r.status_code == 200 and "confirmar a mudança de mesa" in r.content.decode()
    assert Match.objects.get(pk=m.pk).table_id == t1.pk
    # confirmed: moved, audited, the old table's tablet loses it and the new table's gets it
    r = admin_client.post(f"/admin/scoreboard/match/{m.pk}/change/", {**form, "confirm_move": "on", **_inline()})
    assert r.status_code == 302, r.context["adminform"].form.errors
    assert Match.objects.get(pk=m.pk).table_id == t2.pk
    rec = MatchRecord.objects.get(match=m, kind="move")
    assert rec.data == {"from": t1.pk, "to": t2.pk, "in_progress": True} and rec.by == "user:admin"
    assert old_tablet.get(f"/matches/{m.pk}/referee/").status_code == 200
    assert "Vermelha" not in old_tablet.get(f"/matches/{m.pk}/referee/").content.decode()  # PIN page now
    assert Client().get(f"/tables/{t1.pk}/now/").json()["tablet"] is None
    assert Client().get(f"/tables/{t2.pk}/now/").json()["tablet"] == m.pk
    assert new_tablet.get(f"/tables/{t2.pk}/referee/")["Location"] == f"/matches/{m.pk}/referee/"
    assert "Vermelha" in new_tablet.get(f"/matches/{m.pk}/referee/").content.decode()


def _inline() -> dict:
    return {"events-TOTAL_FORMS": "0", "events-INITIAL_FORMS": "0", "events-MIN_NUM_FORMS": "0",
            "events-MAX_NUM_FORMS": "1000"}


def test_moving_onto_a_busy_table_is_refused():
    t1, t2 = Table.objects.create(name="1"), Table.objects.create(name="2")
    m1 = play(new_match(CONFIG, table=t1), LOG[:2])
    m2 = play(new_match(OTHER | {"first_breaker": 0}, table=t2), LOG[:1])
    with pytest.raises(operations.NeedsConfirmation):
        operations.move_match(m1, t2, "test")
    with pytest.raises(operations.TableBusy):
        operations.move_match(m1, t2, "test", confirm=True)
    assert Match.objects.get(pk=m1.pk).table_id == t1.pk and not MatchRecord.objects.filter(kind="move").exists()
    # a match not started moves without asking
    m3 = new_match(OTHER, table=t1, started=False)
    operations.move_match(m3, t2, "test")
    assert Match.objects.get(pk=m3.pk).table_id == t2.pk and m2.pk


# -- W.O. -------------------------------------------------------------------------------------

def test_walkover_is_a_result_of_its_own_on_every_screen_feed_export_and_sumula():
    t = Table.objects.create(name="Mesa 5")
    m = new_match({**CONFIG, "frames_to_win": 2}, table=t, started=False)
    operations.walkover(m, [1], "user:desk", reason="não compareceu")
    rec = MatchRecord.objects.get(match=m, kind="walkover")
    assert rec.data == {"absent": [1], "winner": 0} and rec.by == "user:desk"
    s = log.snapshot(m.pk).state
    assert s["phase"] == "match_over" and s["frames"] == [2, 0] and s["match_winner"] == 0
    assert s["match_result"] == "walkover" and Match.objects.get(pk=m.pk).seq == 0  # no engine event
    c = Client()
    tv = c.get(f"/matches/{m.pk}/tv/").content.decode()
    assert "W.O. — vence Ana Souza" in tv and "desistência" not in tv and "Partida 1" not in tv
    assert "W.O." in c.get(f"/tables/{t.pk}/tv/").content.decode()  # the table shows it as its last result
    feed = c.get(f"/matches/{m.pk}/feed.json").json()
    assert feed["match_result"] == "walkover" and feed["match_winner"] == "Ana Souza"
    assert feed["match_result_label"].startswith("W.O.")
    assert c.get(f"/api/matches/{m.pk}/export/").json()["walkover"] == {"absent": [1], "winner": 0}
    rows = list(csv.reader(io.StringIO(c.get(f"/matches/{m.pk}/sumula.csv").content.decode())))
    flat = " ".join(" ".join(r) for r in rows)
    assert "W.O. (não comparecimento do adversário)" in flat and "desistência" not in flat
    venue = c.get("/").content.decode()
    assert "W.O." in venue and "Resultados do dia" in venue
    assert "W.O. — Ana Souza wins" in c.get(f"/matches/{m.pk}/tv/?lang=en").content.decode()
    # nothing more can be scored, and a second W.O. is refused
    with pytest.raises(operations.OperationRefused, match="terminou por W.O."):
        log.append_event(m.pk, {"type": "lot", "player": 0})
    with pytest.raises(operations.OperationRefused, match="já terminou por W.O."):
        operations.walkover(m, [0], "user:desk", "não compareceu")


def test_double_walkover_and_walkover_after_play_is_refused():
    m = new_match(CONFIG, started=False)
    operations.walkover(m, [0, 1], "user:desk", "não compareceram")
    s = log.snapshot(m.pk).state
    assert s["frames"] == [0, 0] and s["match_winner"] is None and s["match_result"] == "double_walkover"
    played = play(new_match(OTHER | {"first_breaker": 0}), LOG[:3])
    with pytest.raises(operations.OperationRefused, match="desistência") as e:
        operations.walkover(played, [1], "user:desk", "não compareceu")
    assert e.value.code == "walkover_after_play"
    assert Match.objects.get(pk=played.pk).walkover is None and not MatchRecord.objects.filter(match=played).exists()


def test_admin_walkover_action_asks_its_reason_first(admin_client):
    m = new_match(CONFIG, started=False)
    chosen = {"action": "walkover_a", "_selected_action": [m.pk]}
    r = admin_client.post("/admin/scoreboard/match/", chosen)
    assert r.status_code == 200 and 'name="reason"' in r.content.decode() and "Ana Souza" in r.content.decode()
    assert Match.objects.get(pk=m.pk).walkover is None
    r = admin_client.post("/admin/scoreboard/match/", {**chosen, "apply": "1", "reason": "  "})
    assert "Informe o motivo do W.O." in r.content.decode() and 'name="reason"' in r.content.decode()
    assert Match.objects.get(pk=m.pk).walkover is None and not MatchRecord.objects.filter(match=m).exists()
    r = admin_client.post("/admin/scoreboard/match/", {**chosen, "apply": "1", "reason": "não compareceu"}, follow=True)
    assert "W.O. registrado" in r.content.decode()
    assert Match.objects.get(pk=m.pk).walkover == {"absent": [0], "winner": 1}
    assert MatchRecord.objects.get(match=m, kind="walkover").reason == "não compareceu"


# -- referee tokens ---------------------------------------------------------------------------

def test_matchtoken_prints_a_working_token_for_any_match():
    m = new_match(CONFIG, started=False)  # made in the admin: no token anywhere until now
    out = io.StringIO()
    call_command("matchtoken", str(m.pk), stdout=out)
    doc = json.loads(out.getvalue())
    assert doc["match"] == m.pk and doc["events_url"].endswith(f"/api/matches/{m.pk}/events/")
    r = Client().post(f"/api/matches/{m.pk}/events/", json.dumps({"event": {"type": "pot", "balls": [1]}}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {doc['referee_token']}")
    assert r.status_code == 201 and r.json()["seq"] == 1
    assert MatchRecord.objects.filter(match=m, kind="token").count() == 1
    with pytest.raises(CommandError, match="não encontrado"):
        call_command("matchtoken", "999999", stdout=io.StringIO())


def test_admin_issues_a_token_shown_once(admin_client):
    m = new_match(CONFIG, started=False)
    r = admin_client.post("/admin/scoreboard/match/", {"action": "issue_token", "_selected_action": [m.pk]},
                          follow=True)
    page = r.content.decode()
    token = page.split("token do árbitro: <code>")[1].split("</code>")[0]
    from scoreboard.core.credentials import credential_for_token

    assert credential_for_token(token).match_id == m.pk
    assert token not in admin_client.get("/admin/scoreboard/match/").content.decode()


# -- admin: players, the match list -----------------------------------------------------------

def test_duplicate_player_needs_a_club_and_drop_downs_show_it(admin_client):
    Player.objects.create(name="João Silva", club="Clube A")
    r = admin_client.post("/admin/scoreboard/player/add/", {"name": "João  Silva", "club": "clube a"})
    assert r.status_code == 200 and "Já existe o jogador João Silva do clube Clube A" in r.content.decode()
    Player.objects.create(name="Pedro")
    r = admin_client.post("/admin/scoreboard/player/add/", {"name": "pedro", "club": ""})
    assert "informe o clube" in r.content.decode()
    r = admin_client.post("/admin/scoreboard/player/add/", {"name": "João Silva", "club": "Clube B"})
    assert r.status_code == 302 and Player.objects.filter(name="João Silva").count() == 2
    page = admin_client.get("/admin/scoreboard/match/add/").content.decode()
    assert "João Silva (Clube A)" in page and "João Silva (Clube B)" in page


def test_match_list_is_translated_and_shows_time_score_winner_with_filters_and_search(admin_client):
    done = play(new_match(CONFIG, table="Mesa 2", competition="Aberto de Santos"),
                LOG[:2] + [{"type": "concede_match", "player": 1}])
    new_match(OTHER, started=False)
    page = admin_client.get("/admin/scoreboard/match/").content.decode()
    for header in ("REDS", "FRAMES TO WIN", "Reds", "Frames to win"):
        assert header not in page
    assert "melhor de" in page.lower() and "vencedor" in page.lower() and "placar" in page.lower()
    assert '<td class="field-winner">Ana Souza</td>' in page and "Aberto de Santos" in page
    assert '<td class="field-score">0 × 0</td>' in page and '<td class="field-status">encerrado</td>' in page
    assert "Pesquisar" in page or "search" in page.lower()
    found = admin_client.get("/admin/scoreboard/match/?q=Caio").content.decode()
    assert '<td class="field-player_a nowrap">Caio</td>' in found
    assert '<td class="field-competition">Aberto de Santos</td>' not in found
    assert admin_client.get("/admin/scoreboard/match/?created_at__gte=2000-01-01").status_code == 200
    assert done.pk


def test_the_referee_tablet_and_match_page_of_a_walkover(admin_client):
    m = new_match(CONFIG, started=False)
    operations.walkover(m, [0], "user:desk", "não compareceu")
    page = admin_client.get(f"/matches/{m.pk}/referee/").content.decode()
    assert "Bia Lima vence por W.O. (Ana Souza ausente)" in page
    stats = admin_client.get(f"/matches/{m.pk}/").content.decode()
    assert "W.O. (não comparecimento do adversário)" in stats
    pdf = admin_client.get(f"/matches/{m.pk}/sumula.pdf")
    from pypdf import PdfReader

    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "W.O." in text and "desistência" not in text
