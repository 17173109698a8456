"""``admin.py``: the organiser's admin — creating a match (the engine checks its configuration),
starting it with the lot, the referee's QR code, importing a match file, and the event log inline."""
from __future__ import annotations

import json

import pytest
from django.utils import translation

from scoreboard.core import log, tables
from scoreboard.core.matches import new_match
from scoreboard.core.models import Event, Match, Table

from ops_helpers import CONFIG, LOG, demo, fresh_engines, fresh_stats, play  # noqa: F401

pytestmark = pytest.mark.django_db


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
    assert "<svg" in page and f"/matches/{m.pk}/referee/?c=" in page
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


def test_admin_imports_a_match_file(admin_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    f = SimpleUploadedFile("final.json", json.dumps(demo()).encode(), content_type="application/json")
    r = admin_client.post("/admin/scoreboard/match/import/", {"file": f, "table": "2"})
    m = Match.objects.get()
    assert r.status_code == 302 and m.seq == len(demo()["events"]) and m.table.name == "2"


def test_admin_event_inline_headers_are_translated(admin_client):
    m = play(new_match(CONFIG), LOG[:2])
    field = Event._meta.get_field
    with translation.override("pt-br"):
        assert [str(field(f).verbose_name) for f in ("seq", "entered_by", "at", "description_pt")] == [
            "nº", "registrado por", "hora", "descrição (pt)"]
    with translation.override("en"):
        assert [str(field(f).verbose_name) for f in ("seq", "event", "entered_by", "at", "description_pt")] == [
            "no.", "event", "entered by", "time", "description (pt)"]
    page = admin_client.get(f"/admin/scoreboard/match/{m.pk}/change/").content.decode()
    assert "Registrado por" in page and "Descrição (pt)" in page


def test_admin_login_tries_are_limited_per_address_by_django_axes(db):
    """40 wrong passwords in 11 s, then the right one logged in: now the 11th try from an address
    (the 10th failure) is locked out (429), even with the right password, for 15 minutes; another address still logs in,
    and a success clears its count."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    get_user_model().objects.create_superuser("boss", password="x-long-password")
    attacker = Client(REMOTE_ADDR="198.51.100.7")
    codes = [attacker.post("/admin/login/", {"username": "boss", "password": f"wrong-{i}"}).status_code
             for i in range(10)]
    assert codes == [200] * 9 + [429]  # the form again with its error; the 10th failure locks
    r = attacker.post("/admin/login/", {"username": "boss", "password": "x-long-password"})
    assert r.status_code == 429
    assert attacker.get("/admin/scoreboard/match/").status_code == 302  # not logged in
    organiser = Client(REMOTE_ADDR="192.0.2.10")
    r = organiser.post("/admin/login/", {"username": "boss", "password": "x-long-password",
                                         "next": "/admin/"})
    assert r.status_code == 302 and organiser.get("/admin/scoreboard/match/").status_code == 200


# -- crafted match files (issue finding 13): a form error, nothing stored, never a 500 ----------

def _import(admin_client, doc_or_text, table: str = ""):
    from django.core.files.uploadedfile import SimpleUploadedFile

    text = doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text)
    f = SimpleUploadedFile("crafted.json", text.encode(), content_type="application/json")
    return admin_client.post("/admin/scoreboard/match/import/", {"file": f, "table": table})


def _error(resp) -> str:
    import html
    import re

    found = re.search(r'<p class="errornote">(.*?)</p>', resp.content.decode(), re.S)
    return html.unescape(found.group(1)) if found else ""


@pytest.mark.parametrize("crafted, message", [
    ('{"config": {"players": ["A", "B"]}, "events": [' + "[" * 50_000 + "]" * 50_000 + "]}",
     "JSON aninhado demais / JSON nested too deeply"),
    ({"config": {"players": ["A", "B"]}, "events": [{"type": "pot", "balls": [[[[[[[[[[1]]]]]]]]]]}]},
     "JSON aninhado demais (máximo 8 níveis) / JSON nested too deeply (at most 8 levels)"),
    ({"config": {"players": ["A" * 150, "B"]}, "events": []},
     "jogador 1: mais de 80 caracteres (150) / player 1: more than 80 characters (150)"),
    ({"config": {"players": ["Ana", "B" * 200]}, "events": []},
     "jogador 2: mais de 80 caracteres (200) / player 2: more than 80 characters (200)"),
    ({"config": {"players": ["An\x00a", "Bia"]}, "events": []},
     "jogador 1: caractere de controle U+0000 na posição 3 não é aceito / "
     "player 1: control character U+0000 at position 3 is not accepted"),
    ({"config": {"players": ["Ana", "Bia"], "frames_to_win": 40000}, "events": []},
     "frames_to_win deve estar entre 1 e 99 / frames_to_win must be between 1 and 99"),
])
def test_admin_import_of_a_crafted_file_is_a_form_error_and_stores_nothing(admin_client, crafted, message):
    from scoreboard.core.models import Player

    r = _import(admin_client, crafted)
    assert (r.status_code, _error(r)) == (200, message)
    assert (Match.objects.count(), Player.objects.count(), Event.objects.count()) == (0, 0, 0)


def test_admin_import_refuses_a_table_name_it_cannot_store(admin_client):
    r = _import(admin_client, demo(), table="T" * 41)
    assert (r.status_code, _error(r)) == (200, "mesa: mais de 40 caracteres (41) / table: more than 40 characters (41)")
    assert (Match.objects.count(), Table.objects.count()) == (0, 0)


def test_admin_import_broadcasts_nothing_per_event(admin_client, django_capture_on_commit_callbacks):
    """The import stores the log in one transaction without handing each event to the live
    layer (it rendered every page once per event: about 2 minutes for 3,277 events)."""
    seen = []
    log.on_commit(seen.append)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            r = _import(admin_client, demo())
    finally:
        log._subscribers.remove(seen.append)
    m = Match.objects.get()
    assert r.status_code == 302 and m.seq == len(demo()["events"]) == 187
    assert list(m.events.order_by("seq").values_list("seq", flat=True)) == list(range(1, 188))
    assert seen == []
