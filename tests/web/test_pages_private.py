"""Issue 15, item 5: a logged-out tablet shows no cached referee page, and HEAD is answered like
GET everywhere.

The referee page, its fragments and the API sent no ``Cache-Control`` (only ``Vary: Cookie``),
so a browser could keep and show a referee page after the session ended; ``HEAD`` on the
service worker and the engine zip (and every ``require_GET`` page) answered an HTML 405."""
from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from scoreboard.pages import tablet

pytestmark = pytest.mark.django_db
RED = json.dumps({"type": "pot", "balls": [1]})


def no_store(resp) -> bool:
    parts = {p.strip() for p in resp.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= parts


def test_every_referee_answer_and_every_api_answer_is_private_no_store(created, referee_client, auth):
    mid = created.match.pk
    anon = Client(raise_request_exception=False)
    answers = {
        "tablet": referee_client.get(f"/matches/{mid}/referee/"),
        "tap": referee_client.post(f"/matches/{mid}/referee/event/", {"event": RED, "expected_seq": "0"}),
        "foul dialog": referee_client.get(f"/matches/{mid}/referee/foul/"),
        "foul preview": referee_client.post(f"/matches/{mid}/referee/foul/preview/", {"ball": "4"}),
        "fragments": referee_client.get(f"/matches/{mid}/live/referee/"),
        "PIN form": anon.get(f"/matches/{mid}/referee/"),
        "wrong PIN": anon.post(f"/matches/{mid}/referee/", {"pin": "x"}),
        "fragments, logged out": anon.get(f"/matches/{mid}/live/referee/"),
        "tap, logged out": anon.post(f"/matches/{mid}/referee/event/", {"event": RED}),
        "api state": anon.get(f"/api/matches/{mid}/"),
        "api log": anon.get(f"/api/matches/{mid}/events/"),
        "api export": anon.get(f"/api/matches/{mid}/export/"),
        "api tap": anon.post(f"/api/matches/{mid}/events/", data=json.dumps({"event": {"type": "no_pot"}}),
                             content_type="application/json", **auth),
        "api 401": anon.post(f"/api/matches/{mid}/events/", data="{}", content_type="application/json"),
        "api 404": anon.get("/api/matches/999999/"),
        "api overlay": anon.get(f"/api/matches/{mid}/overlay/"),
    }
    assert answers["tablet"].status_code == 200 and answers["fragments"].status_code == 200
    assert answers["wrong PIN"].status_code == 401 and answers["api 401"].status_code == 401
    assert answers["fragments, logged out"].status_code == 403
    assert {name: r.get("Cache-Control") for name, r in answers.items() if not no_store(r)} == {}
    # the screens are not the referee's: they keep their own caching
    assert not no_store(anon.get(f"/matches/{mid}/tv/"))
    assert anon.get(f"/matches/{mid}/sumula.pdf")["Cache-Control"] == "no-cache"


def test_the_service_worker_keeps_only_a_logged_in_tablet_page(created, referee_client):
    mid = created.match.pk
    assert referee_client.get(f"/matches/{mid}/referee/")["X-Sinuca-Tablet"] == "1"
    assert "X-Sinuca-Tablet" not in Client().get(f"/matches/{mid}/referee/")  # the PIN form
    sw = Client().get("/matches/tablet-sw.js").content.decode()
    assert 'r.headers.get("X-Sinuca-Tablet") === "1"' in sw
    assert re.search(r"if \(r\.status < 500\) return c\.delete\(key", sw)  # a PIN form drops the copy


def head_matches_get(client: Client, url: str) -> tuple:
    g, h = client.get(url), client.head(url)
    return (h.status_code, h["Content-Type"], h.content, h.get("Content-Length"),
            g.status_code, g["Content-Type"], b"", g.get("Content-Length"))


@pytest.mark.parametrize("url", [
    "/matches/tablet-sw.js", "tablet-zip", "/", "/tv/", "/display/", "/matches/{mid}/",
    "/matches/{mid}/tv/", "/matches/{mid}/overlay/", "/matches/{mid}/live/tv/", "/matches/{mid}/clock/",
    "/matches/{mid}/sumula.csv", "/matches/{mid}/feed.json", "/api/matches/{mid}/",
    "/api/matches/{mid}/events/", "/api/matches/{mid}/export/", "/api/matches/{mid}/overlay/",
    "/matches/{mid}/referee/",
])
def test_head_is_answered_like_get_without_a_body(created, url):
    url = tablet.engine_zip_url() if url == "tablet-zip" else url.format(mid=created.match.pk)
    h_status, h_type, h_body, h_len, g_status, g_type, _, g_len = head_matches_get(Client(), url)
    assert (h_status, h_type, h_body) == (g_status, g_type, b"") and g_status == 200, url
    if g_len is not None:
        assert h_len == g_len


def test_head_on_the_referee_tablet_and_its_fragments(created, referee_client):
    mid = created.match.pk
    for url in (f"/matches/{mid}/referee/", f"/matches/{mid}/live/referee/", f"/matches/{mid}/referee/foul/"):
        h = referee_client.head(url)
        assert h.status_code == 200 and h.content == b"" and no_store(h), url
