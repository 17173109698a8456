"""Venue, jumbotron, table-following pages, the organiser's admin and the table PIN."""
from __future__ import annotations

import pytest
from django.test import Client

from scoreboard.reports import exports
from scoreboard.core.matches import new_match
from scoreboard.core import log
from scoreboard.core import tables
from scoreboard.core.models import Match, RefereeCredential, Table

from ops_helpers import CONFIG, LOG, demo, fresh_engines  # noqa: F401

pytestmark = pytest.mark.django_db


def play(m, events):
    for i, ev in enumerate(events, start=m.seq):
        log.append_event(m.pk, ev, expected_seq=i)
    m.refresh_from_db()
    return m


def test_venue_lists_matches_in_progress_with_and_without_table(client):
    on_table = play(new_match(CONFIG, table="1"), LOG[:4])
    loose = new_match({**CONFIG, "players": ["Caio", "Davi"]})
    done = exports.import_document(demo(), table="2")
    later = new_match({**CONFIG, "players": ["Eva", "Fábio"]}, table="1", started=False)
    assert set(tables.in_progress()) == {on_table, loose}
    html = client.get("/").content.decode()
    live = html.split("A seguir")[0]
    assert "Ana Souza" in live and "Caio" in live and f'data-match="{on_table.pk}"' in live
    assert "Eva × Fábio" in html  # up next
    assert f'data-match="{done.pk}"' in html.split("Resultados")[1]
    assert 'hx-trigger="every 3s"' in html and 'lang="pt-br"' in html
    fragment = client.get("/?partial=board").content.decode()
    assert fragment.lstrip().startswith('<main id="venue-board"') and "<html" not in fragment
    assert later.pk not in [m.pk for m in tables.in_progress()]


def test_jumbotron_shows_every_table(client):
    play(new_match(CONFIG, table="1"), LOG[:4])
    exports.import_document(demo(), table="2")
    new_match({**CONFIG, "players": ["Eva", "Fábio"]}, table="2", started=False)
    html = client.get("/tv/").content.decode()
    assert "Mesa 1" in html and "Mesa 2" in html
    assert ">15<" in html  # Ana's score on table 1
    assert "Ana Souza 2 × 1 Bia Lima" in html and "Eva × Fábio" in html  # table 2: last result, next


def test_table_pages_follow_the_current_match(client):
    t = Table.objects.create(name="3")
    first = new_match(CONFIG, table="3")
    key1 = client.get(f"/tables/{t.pk}/now/").json()
    assert key1 == {"key": f"match:{first.pk}", "match": first.pk}
    html = client.get(f"/tables/{t.pk}/tv/").content.decode()
    assert "Ana Souza" in html and f"/ws/matches/{first.pk}/" in html and 'id="follow"' in html
    ov = client.get(f"/tables/{t.pk}/overlay/?layout=corner").content.decode()
    assert f"/ws/matches/{first.pk}/?view=overlay" in ov and "layout-corner" in ov
    # the match ends; the next one is scheduled: the table shows the result and the next match
    play(first, [{"type": "concede_match", "player": 1}])
    nxt = new_match({**CONFIG, "players": ["Gil", "Hugo"]}, table="3", started=False)
    now = client.get(f"/tables/{t.pk}/now/").json()
    assert now == {"key": f"idle:{first.pk}:{nxt.pk}", "match": None}
    idle = client.get(f"/tables/{t.pk}/tv/").content.decode()
    assert "Último resultado" in idle and "Gil × Hugo" in idle and "Ana Souza" in idle
    assert "Próximo jogo" in client.get(f"/tables/{t.pk}/overlay/").content.decode()
    # the organiser starts the next match: the same URLs now show it
    from scoreboard.admin import start_match

    start_match(nxt, None, "test")
    assert client.get(f"/tables/{t.pk}/now/").json()["match"] == nxt.pk
    assert "Gil" in client.get(f"/tables/{t.pk}/tv/").content.decode()


def test_admin_creates_starts_with_the_lot_and_shows_the_qr(admin_client):
    from scoreboard.core.models import Player

    a, b = Player.objects.create(name="Ana"), Player.objects.create(name="Bia")
    t = Table.objects.create(name="9")
    r = admin_client.post("/admin/scoreboard/match/add/", {
        "player_a": a.pk, "player_b": b.pk, "reds": 10, "frames_to_win": 2, "table": t.pk,
        "referee_name": "Rui", "shot_clock": 45})  # retorno unchecked: the event regulation disables it
    assert r.status_code == 302
    m = Match.objects.get()
    assert m.config == {"reds": 10, "frames_to_win": 2, "players": ["Ana", "Bia"], "retorno": False}
    assert m.started_at is None and m not in tables.in_progress()
    page = admin_client.get(f"/admin/scoreboard/match/{m.pk}/change/").content.decode()
    assert "<svg" in page and f"/matches/{m.pk}/referee/?t=" in page
    assert admin_client.post(f"/admin/scoreboard/match/{m.pk}/start/", {"lot": "1"}).status_code == 302
    state = log.snapshot(m.pk).state
    assert state["phase"] == "play" and state["breaker"] == 1  # Bia won the lot (Art. 17)
    assert log.events_of(m.pk)[0].event == {"type": "lot", "player": 1}


def test_admin_refuses_a_config_the_engine_refuses(admin_client):
    from scoreboard.core.models import Player

    a = Player.objects.create(name="Ana")
    r = admin_client.post("/admin/scoreboard/match/add/", {"player_a": a.pk, "player_b": a.pk, "reds": 15,
                                                          "frames_to_win": 1})
    assert r.status_code == 200 and Match.objects.count() == 0


def test_table_pin_logs_the_tablet_into_each_match_of_the_table():
    t = Table.objects.create(name="4")
    tables.set_pin(t, "2468")
    m1 = new_match(CONFIG, table="4")
    tablet = Client()
    r = tablet.post(f"/tables/{t.pk}/referee/", {"pin": "1111"})
    assert r.status_code == 401
    r = tablet.post(f"/tables/{t.pk}/referee/", {"pin": "2468"})
    assert r.status_code == 302 and r["Location"] == f"/matches/{m1.pk}/referee/"
    assert b"Vermelha" in tablet.get(r["Location"]).content
    play(m1, [{"type": "concede_match", "player": 0}])
    m2 = new_match({**CONFIG, "players": ["Caio", "Davi"]}, table="4")
    r = tablet.get(f"/tables/{t.pk}/referee/")  # no PIN again
    assert r["Location"] == f"/matches/{m2.pk}/referee/"
    assert RefereeCredential.objects.filter(match=m2, label="mesa 4").exists()
    tables.set_pin(t, "9999")  # a new PIN locks the old tablet out of the table
    assert tablet.get(f"/tables/{t.pk}/referee/").status_code == 200


def test_shot_clock_is_off_by_default_and_runs_when_set(client):
    m = new_match(CONFIG)
    assert client.get(f"/matches/{m.pk}/clock/").json()["seconds"] == 0
    assert "shot-clock" not in client.get(f"/matches/{m.pk}/tv/").content.decode()
    Match.objects.filter(pk=m.pk).update(shot_clock=30)
    assert 'id="shot-clock"' in client.get(f"/matches/{m.pk}/tv/").content.decode()
    assert client.post(f"/matches/{m.pk}/clock/", {"action": "start"}).status_code == 403  # viewers cannot
    ref = Client()
    cred, token, pin = RefereeCredential.issue(m)
    ref.post(f"/matches/{m.pk}/referee/", {"pin": pin})
    assert b'data-clock="start"' in ref.get(f"/matches/{m.pk}/referee/").content
    started = ref.post(f"/matches/{m.pk}/clock/", {"action": "start"}).json()
    assert started["running"] and 29 <= started["remaining"] <= 30
    log.append_event(m.pk, {"type": "pot", "balls": [1]})  # the stroke was played
    assert client.get(f"/matches/{m.pk}/clock/").json()["running"] is False
