"""Issue 11, finding 6: the venue (``/``) and the jumbotron (``/tv/``) are pushed over the hub.

In Chromium, the pages' requests are recorded after load: with nothing happening for longer than
the old polling periods (3 s / 2 s) they make none, and after taps the boards change — a score, a
match that starts appears, a match that ends leaves for the results — still without one HTTP
request (only their websocket). Screenshots go to shots/ for a person to look at.
"""
from __future__ import annotations

import pathlib
import re

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.matches import new_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
CONFIG = {"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 1, "first_breaker": 0}


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class BoardsPushedTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        self.tokens = {}
        SHOTS.mkdir(exist_ok=True)

    def tap(self, match, event):
        if match.pk not in self.tokens:
            self.tokens[match.pk] = RefereeCredential.issue(match)[1]
        r = httpx.post(f"{self.live_server_url}/api/matches/{match.pk}/events/", json={"event": event},
                       headers={"Authorization": f"Bearer {self.tokens[match.pk]}"}, timeout=10)
        assert r.status_code == 201, r.text

    def test_venue_and_jumbotron_update_without_polling(self):
        from playwright.sync_api import sync_playwright

        first = new_match(CONFIG, table="1", competition="Aberto de Santos")
        second = new_match({**CONFIG, "players": ["Caio Prado", "Davi Reis"]}, table="2", started=False)
        base = self.live_server_url
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                venue = browser.new_context(viewport={"width": 1280, "height": 800}, locale="pt-BR").new_page()
                jumbo = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="pt-BR").new_page()
                requests = {"venue": [], "jumbo": []}
                sockets = {"venue": [], "jumbo": []}
                for name, page, path in (("venue", venue, "/"), ("jumbo", jumbo, "/tv/")):
                    page.on("websocket", lambda ws, n=name: sockets[n].append(ws.url))
                    page.goto(base + path)
                    page.wait_for_load_state("networkidle")
                    page.wait_for_function("() => { const s = document.getElementById('board-status');"
                                           " return !s || s.hidden; }")  # pushed board in
                    # from now on, every request the page makes is recorded
                    page.on("request", lambda r, n=name: requests[n].append((r.resource_type, r.url)))
                venue.wait_for_selector(f'[data-match="{first.pk}"]')
                live = "#venue-board section:first-child"
                assert venue.locator(f'{live} [data-match="{second.pk}"]').count() == 0

                venue.wait_for_timeout(3500)  # longer than the old polling periods: nothing asked
                assert requests == {"venue": [], "jumbo": []}, requests

                self.tap(first, {"type": "pot", "balls": [1]})
                self.tap(first, {"type": "pot", "balls": [7]})
                venue.wait_for_function(
                    f"""() => [...document.querySelectorAll('[data-match="{first.pk}"] .mc-score')]
                           .map(e => e.textContent.trim()).join() === '8,0'""", timeout=30000)
                jumbo.wait_for_function(
                    """() => [...document.querySelectorAll('.jt .jt-score')].slice(0, 2)
                           .map(e => e.textContent.trim()).join() === '8,0'""", timeout=30000)
                # a match that starts appears among those in progress, on both boards
                self.tap(second, {"type": "pot", "balls": [1]})
                venue.wait_for_selector(f'{live} [data-match="{second.pk}"]', timeout=30000)
                jumbo.wait_for_function("() => document.body.textContent.includes('Caio Prado')", timeout=30000)
                venue.screenshot(path=str(SHOTS / "boards-venue.png"), full_page=True)
                jumbo.screenshot(path=str(SHOTS / "boards-jumbotron.png"))
                # a match that ends leaves them: the venue lists it among the results
                self.tap(first, {"type": "concede", "player": 1})
                venue.wait_for_function(
                    f"""() => !document.querySelector('{live} [data-match="{first.pk}"]')
                           && !!document.querySelector('#venue-board [data-match="{first.pk}"]')""", timeout=30000)
                jumbo.wait_for_function("() => document.body.textContent.includes('Último resultado')",
                                        timeout=30000)
                assert requests == {"venue": [], "jumbo": []}, requests  # all of it pushed
                # one socket each, with the digest of the board the page printed (not sent again)
                ws = base.replace("http", "ws")
                assert len(sockets["venue"]) == 1 and re.fullmatch(
                    re.escape(ws + "/ws/boards/?view=venue&lang=pt-br&have=") + "[0-9a-f]{16}", sockets["venue"][0])
                assert len(sockets["jumbo"]) == 1 and re.fullmatch(
                    re.escape(ws + "/ws/boards/?view=jumbotron&lang=pt-br&have=") + "[0-9a-f]{16}", sockets["jumbo"][0])
                # the jumbotron fits its screen
                assert jumbo.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]") \
                    == [1920, 1080]
            finally:
                browser.close()


class DisplayGuideTest(BoardsPushedTest):
    """A class of its own: the live server of a class sees the database of its first test only
    (the second test of one class saw an empty venue)."""

    test_venue_and_jumbotron_update_without_polling = None

    def test_display_previews_show_the_whole_page(self):
        """/display/: each preview is the real 1920×1080 page scaled into its frame (it was shown
        at the frame's size, so a 1080p page was cropped)."""
        from playwright.sync_api import sync_playwright

        m = new_match(CONFIG, table="1")
        self.tap(m, {"type": "pot", "balls": [1]})
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                for width, height in ((1280, 800), (390, 844)):
                    page = browser.new_context(viewport={"width": width, "height": height}, locale="pt-BR").new_page()
                    page.goto(self.live_server_url + "/display/")
                    frames = page.locator(".preview-frame")
                    n = frames.count()
                    assert n == 9
                    assert page.evaluate("document.documentElement.scrollWidth") == width  # no sideways scroll
                    for i in range(n):
                        frame = frames.nth(i)
                        frame.scroll_into_view_if_needed()
                        iframe = frame.locator("iframe")
                        fb, ib = frame.bounding_box(), iframe.bounding_box()
                        # the scaled page covers the frame exactly (2 px border)
                        assert abs(ib["width"] - (fb["width"] - 4)) <= 1 and abs(ib["height"] - (fb["height"] - 4)) <= 1, (fb, ib)
                        inner = iframe.element_handle().content_frame()
                        inner.wait_for_load_state()
                        assert inner.evaluate("[innerWidth, innerHeight]") == [1920, 1080]
                    page.screenshot(path=str(SHOTS / f"display-guide-{width}.png"), full_page=True)
            finally:
                browser.close()
