"""``core/limits.py`` and ``http/capacity.py``: every anonymous read waits for a read slot — the spectators' pages too —
and a busy worker answers 503 with ``Retry-After`` (a page that reloads itself, or the API's
JSON), never a 500; the referee never waits behind spectators."""
from __future__ import annotations

import json
import re
import threading

import pytest

import live_server
from django.test import Client

from scoreboard.core import limits
from scoreboard.core.models import Table

from ops_helpers import CONFIG, LOG, play  # noqa: F401
from scoreboard.core.matches import new_match

pytestmark = [pytest.mark.django_db, pytest.mark.pg]

BUSY_TEXT = "Servidor ocupado / Server busy"


@pytest.fixture
def one_slot_taken(settings):
    """READ_SLOTS = 1, held by another request for the whole test; a read waits 50 ms for it."""
    settings.READ_SLOTS, settings.READ_WAIT = 1, 0.05
    live_server.forget_slots(limits.READS)
    with limits.READS.slot():
        yield
    live_server.forget_slots(limits.READS)


@pytest.fixture
def on_table(db):
    """A match in play on table "1": ``(table, match)``."""
    match = play(new_match(CONFIG, table="1"), LOG[:4])
    return Table.objects.get(name="1"), match


def spectator_urls(table: Table, match) -> dict[str, list[str]]:
    """The spectators' pages, by kind."""
    t, m = table.pk, match.pk
    return {
        "venue": ["/", "/?partial=board", "/tv/", "/display/"],
        "table": [f"/tables/{t}/tv/", f"/tables/{t}/overlay/"],
        "match": [f"/matches/{m}/tv/", f"/matches/{m}/overlay/", f"/matches/{m}/live/tv/",
                  f"/matches/{m}/live/overlay/"],
        "statistics": [f"/matches/{m}/"],
    }


def assert_busy_page(r, overlay: bool = False) -> None:
    assert r.status_code == 503
    assert r["Retry-After"] == "2"
    assert r["Content-Type"] == "text/html; charset=utf-8"
    html = r.content.decode()
    assert BUSY_TEXT in html and "tenta de novo sozinha" in html
    refresh = re.search(r'<meta http-equiv="refresh" content="(\d+)">', html)
    assert refresh and 3 <= int(refresh.group(1)) <= 5  # Retry-After plus 1-3 s of jitter
    assert ("background:transparent" in html) == overlay


@pytest.mark.parametrize("kind", ["venue", "table", "match", "statistics"])
def test_a_spectator_page_without_a_read_slot_answers_a_busy_page_that_reloads_itself(kind, on_table,
                                                                                    settings):
    """Issue 9: the venue, jumbotron, table and match TV/overlay pages took no read slot, so a
    crowd of screens loading at once could take every pooled connection. Each waits READ_WAIT
    for a slot, then answers 503 with Retry-After and a page that tries again by itself."""
    urls = spectator_urls(*on_table)[kind]
    client = Client()
    settings.READ_SLOTS, settings.READ_WAIT = 1, 0.05
    live_server.forget_slots(limits.READS)
    with limits.READS.slot():
        busy = [client.get(u) for u in urls]
    for u, r in zip(urls, busy):
        assert_busy_page(r, overlay=u.rstrip("/").endswith("/overlay"))
    assert [client.get(u).status_code for u in urls] == [200] * len(urls)


def test_the_tables_now_answer_is_json_when_busy(on_table, one_slot_taken):
    table, _ = on_table
    r = Client().get(f"/tables/{table.pk}/now/")
    assert (r.status_code, r["Content-Type"], r["Retry-After"]) == (503, "application/json", "2")
    assert r.json()["error"]["code"] == "busy"


def test_the_api_read_answers_json_when_busy(on_table, one_slot_taken):
    _, match = on_table
    r = Client().get(f"/api/matches/{match.pk}/")
    assert (r.status_code, r["Content-Type"], r["Retry-After"]) == (503, "application/json", "2")
    assert r.json()["error"]["code"] == "busy"


def test_a_spectator_page_holds_a_read_slot_while_it_renders(on_table, settings, monkeypatch):
    """The slot is held for the whole page (its reads and its template), then given back."""
    from scoreboard.pages import screens

    settings.READ_SLOTS, settings.READ_WAIT = 2, 0.05
    live_server.forget_slots(limits.READS)
    seen = []
    real = screens.page
    monkeypatch.setattr(screens, "page", lambda *a, **k: seen.append(limits.READS._semaphore()._value)
                        or real(*a, **k))
    _, match = on_table
    assert Client().get(f"/matches/{match.pk}/tv/").status_code == 200
    assert seen == [1] and limits.READS._semaphore()._value == 2


def test_a_pool_timeout_on_a_venue_page_is_a_busy_page_not_a_500(on_table, monkeypatch):
    from django.db import OperationalError
    from psycopg_pool import PoolTimeout

    from scoreboard.pages import venue

    def exhausted(*a, **k):
        raise OperationalError("couldn't get a connection after 10.00 sec") from PoolTimeout("timeout")

    monkeypatch.setattr(venue.boards, "jumbotron_context", exhausted)
    r = Client(raise_request_exception=False).get("/tv/")
    assert_busy_page(r)


def test_the_referee_does_not_wait_behind_spectators(created, referee_client, auth, one_slot_taken):
    """With every read slot held, the referee's tablet page, its live fragments and a tap through
    the API are all answered."""
    mid = created.match.pk
    assert referee_client.get(f"/matches/{mid}/referee/").status_code == 200
    assert referee_client.get(f"/matches/{mid}/live/referee/").status_code == 200
    tap = Client().post(f"/api/matches/{mid}/events/", data=json.dumps({"event": {"type": "pot", "balls": [1]}}),
                        content_type="application/json", **auth)
    assert tap.status_code == 201
    assert Client().get(f"/matches/{mid}/live/tv/").status_code == 503


def test_slots_free_up_for_waiting_spectators(on_table, settings):
    """A read that finds every slot taken waits up to READ_WAIT for one, and is served when it
    frees up in time."""
    settings.READ_SLOTS, settings.READ_WAIT = 1, 5.0
    live_server.forget_slots(limits.READS)
    _, match = on_table
    held = threading.Event()
    release = threading.Event()

    def holder():
        with limits.READS.slot():
            held.set()
            release.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    threading.Timer(0.2, release.set).start()
    r = Client().get(f"/matches/{match.pk}/tv/")
    t.join()
    assert r.status_code == 200


def test_production_slots_have_no_test_only_reset():
    """Issue 16.5: the tests forget a ``Slots``' semaphore themselves (``live_server.forget_slots``);
    ``core.limits`` carries no reset that only tests call."""
    assert not hasattr(limits.Slots, "reset")
    settings_size = limits.READS._semaphore()
    live_server.forget_slots(limits.READS)
    assert limits.READS._sem is None and limits.READS._semaphore() is not settings_size


def test_the_busy_page_speaks_the_catalogue_in_both_languages(settings):
    """Issue 16.4: the busy page's words come from Django's catalogue (``busy.html``, English in
    ``locale/en``), not a hand-made bilingual string; both languages whatever the request asks."""
    from django.test import RequestFactory
    from django.utils import translation

    from scoreboard.http import capacity

    msgid = "Muitos pedidos ao mesmo tempo; esta página tenta de novo sozinha em alguns segundos."
    with translation.override("en"):
        english = translation.gettext(msgid)
    assert english == "Too many requests at once; this page tries again by itself in a few seconds."
    for lang in ("en", "pt-br"):
        r = capacity.busy_response(RequestFactory().get("/tv/", HTTP_ACCEPT_LANGUAGE=lang))
        html = r.content.decode()
        assert (r.status_code, r["Retry-After"]) == (503, "2")
        assert f"<p>{msgid}</p>" in html and f'<p lang="en">{english}</p>' in html
        assert "<h1>Servidor ocupado / Server busy</h1>" in html


def test_the_rate_limited_page_speaks_the_catalogue_in_both_languages():
    """Issue 16.4: the 429 page of a report over ``REPORT_RATE`` (``limited.html``) too."""
    from django.test import RequestFactory

    from scoreboard.http import capacity

    r = capacity.limited_response(RequestFactory().get("/matches/1/log/", HTTP_ACCEPT_LANGUAGE="en"))
    html = r.content.decode()
    assert (r.status_code, r["Retry-After"]) == (429, "60")
    assert "<h1>Pedidos demais / Too many requests</h1>" in html
    assert "<p>Pedidos demais deste endereço; tente de novo em um minuto.</p>" in html
    assert '<p lang="en">Too many requests from this address; try again in a minute.</p>' in html
