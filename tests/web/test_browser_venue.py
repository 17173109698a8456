"""In Chromium: the venue updates by itself, a table's overlay follows the table from one match to
the next, the corner layout sits in the corner, and ``delay`` holds changes back.

Screenshots go to shots/ (gitignored) for a person to look at.
"""
from __future__ import annotations

import pathlib
import time

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings
from django.utils import timezone

from scoreboard.core.matches import new_match
from scoreboard.core import log
from scoreboard.core.models import Match, RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium
SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
CONFIG = {"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 1, "first_breaker": 0}


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class VenueBrowserTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        self.tokens = {}
        SHOTS.mkdir(exist_ok=True)

    def tap(self, match, event):
        """Enter an event as the referee does, through the running server (which broadcasts)."""
        if match.pk not in self.tokens:
            self.tokens[match.pk] = RefereeCredential.issue(match)[1]
        r = httpx.post(f"{self.live_server_url}/api/matches/{match.pk}/events/", json={"event": event},
                       headers={"Authorization": f"Bearer {self.tokens[match.pk]}"}, timeout=10)
        assert r.status_code == 201, r.text

    def test_venue_table_overlay_and_options(self):
        from playwright.sync_api import sync_playwright

        first = new_match(CONFIG, table="1")
        nxt = new_match({**CONFIG, "players": ["Caio Prado", "Davi Reis"]}, table="1", started=False)
        base = self.live_server_url
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                venue = ctx.new_page()
                venue.goto(base + "/")
                venue.wait_for_selector(f'[data-match="{first.pk}"]')
                self.tap(first, {"type": "pot", "balls": [1]})
                self.tap(first, {"type": "pot", "balls": [7]})
                # htmx polling brings the new score without a reload
                venue.wait_for_function(
                    f"""() => [...document.querySelectorAll('[data-match="{first.pk}"] .mc-score')]
                           .map(e => e.textContent.trim()).join() === '8,0'""", timeout=30000)
                venue.screenshot(path=str(SHOTS / "ops-browser-venue.png"))

                ov = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
                ov.goto(base + f"/tables/{first.table_id}/overlay/?layout=corner&delay=2")
                box = ov.locator(".ov").bounding_box()
                assert box["x"] < 100 and box["y"] < 100, box  # the corner bug is in the top-left corner
                bg = ov.evaluate("getComputedStyle(document.body).backgroundColor")
                assert bg == "rgba(0, 0, 0, 0)"  # transparent
                scores = ".ov-score"
                assert ov.locator(scores).all_text_contents() == ["8", "0"]
                ov.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
                t0 = time.monotonic()
                self.tap(first, {"type": "pot", "balls": [1]})
                # held back by delay=2: not shown before 2 s have passed (the time is checked below,
                # on the wall clock, so a loaded machine can only make it later, never pass it early)
                assert ov.locator(scores).all_text_contents() == ["8", "0"]
                ov.wait_for_function("() => document.querySelector('.ov-score').textContent === '9'",
                                     timeout=30000)
                assert time.monotonic() - t0 >= 1.9
                ov.screenshot(path=str(SHOTS / "ops-browser-overlay-corner.png"))

                # the match ends: the same overlay URL shows the result and the next match
                self.tap(first, {"type": "concede_match", "player": 1})
                ov.wait_for_selector(".idle-ov", timeout=30000)
                assert "Caio Prado × Davi Reis" in ov.content()
                # the organiser starts the next match: the overlay switches to it by itself
                Match.objects.filter(pk=nxt.pk).update(started_at=timezone.now())
                ov.wait_for_selector(".ov-name:text('Caio Prado')", timeout=30000)
                assert f"/ws/matches/{nxt.pk}/" in ov.content()

                tv = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
                tv.goto(base + f"/tables/{first.table_id}/tv/?theme=light&lang=en")
                assert tv.evaluate("document.documentElement.lang") == "en"
                assert tv.evaluate("document.documentElement.scrollWidth") == 1920  # no sideways overflow
                tv.screenshot(path=str(SHOTS / "ops-browser-tv-light.png"))
            finally:
                browser.close()
