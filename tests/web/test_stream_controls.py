"""A table's stream controls page (``/tables/<id>/controls/``): the streamer of that table,
logged in, switches the overlay's score bar and statistics and every stream graphic from the page
(no token); a streamer of another table, staff with no role and a visitor cannot; a bad value is
refused in Portuguese and English and changes nothing."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from scoreboard.core import access
from scoreboard.core.matches import new_match
from scoreboard.core.models import Match, Table

pytestmark = pytest.mark.django_db

CONFIG = {"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 1, "first_breaker": 0}


def _client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


@pytest.fixture
def world():
    ours, other = Table.objects.create(name="Mesa 1"), Table.objects.create(name="Mesa 2")
    match = new_match(CONFIG, table=ours, started=False)
    make = get_user_model().objects.create_user
    streamer, elsewhere, staff = (make(n, password="x-long-password", is_staff=True)
                                  for n in ("stream1", "stream2", "staff0"))
    access.grant(streamer, "streamer", "cmd:test", table=ours)
    access.grant(elsewhere, "streamer", "cmd:test", table=other)
    return {"table": ours, "match": match, "url": f"/tables/{ours.pk}/controls/",
            "streamer": _client(streamer), "elsewhere": _client(elsewhere), "staff": _client(staff)}


def _state(world) -> tuple:
    t, m = Table.objects.get(pk=world["table"].pk), Match.objects.get(pk=world["match"].pk)
    return t.overlay_bar, t.overlay_stats, m.overlay_bar, m.overlay_ver, t.graphics, t.graphics_ver


def test_the_tables_streamer_switches_the_overlay_and_graphics_from_the_page(world):
    c, url = world["streamer"], world["url"]
    page = c.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Mesa 1" in html and "Ana Souza" in html and "Bia Lima" in html
    for name in ("bar", "stats", "ticker", "sponsors", "next", "holding", "intro", "h2h", "bracket", "group"):
        assert f'data-switch="{name}"' in html, name
    assert 'data-switch="bar" data-on="1"' in html and 'data-switch="ticker" data-on="0"' in html
    # a staff page: kept by no cache, framed by no site
    assert page["Cache-Control"] == "private, no-store"
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"] and page["X-Frame-Options"] == "DENY"
    ver = world["match"].overlay_ver
    r = c.post(url, {"bar": "hide"})
    assert r.status_code == 303 and r["Location"] == url
    bar, stats, match_bar, match_ver, gfx, gfx_ver = _state(world)
    assert (bar, stats, match_bar, match_ver) == (False, False, False, ver + 1)  # stats: off, as before
    assert c.post(url, {"ticker": "show"}).status_code == 303
    assert c.post(url, {"holding": "show"}).status_code == 303
    assert c.post(url, {"countdown": "9:05", "player": "b"}).status_code == 303
    *_, gfx, gfx_ver = _state(world)
    assert (gfx["ticker"], gfx["holding"], gfx["countdown"], gfx["player"]) == (True, True, "09:05", "b")
    assert gfx_ver == 3
    # showing a card replaces the one on air, as from the Stream Deck
    assert c.post(url, {"h2h": "show"}).status_code == 303
    *_, gfx, _ = _state(world)
    assert gfx["h2h"] and not gfx["holding"]
    html = c.get(url).content.decode()
    assert 'data-switch="bar" data-on="0"' in html and 'data-switch="h2h" data-on="1"' in html
    assert 'value="09:05"' in html and '<option value="b" selected>' in html
    # the English page
    assert "Stream controls" in c.get(url + "?lang=en").content.decode()


def test_a_bad_value_is_refused_in_both_languages_and_changes_nothing(world):
    c, url = world["streamer"], world["url"]
    before = _state(world)
    for body in ({"countdown": "25:00", "ticker": "show"}, {"player": "c", "bar": "hide"}, {"ticker": "maybe"}, {}):
        r = c.post(url, body)
        assert r.status_code == 400, body
        text = r.content.decode()
        assert " deve " in text and " must " in text or ("Nenhum controle" in text and "No control" in text), text
        assert _state(world) == before, body


@pytest.mark.parametrize("who", ["elsewhere", "staff"])
def test_a_streamer_of_another_table_or_staff_with_no_role_is_refused(world, who):
    before = _state(world)
    for r in (world[who].get(world["url"]), world[who].post(world["url"], {"bar": "hide", "ticker": "show"})):
        assert r.status_code == 403
    assert _state(world) == before
    r = Client().get(world["url"])  # a visitor: the log-in first
    assert r.status_code == 302 and r["Location"].startswith("/admin/login/")
