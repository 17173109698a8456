"""The public match page (``/matches/<id>/``) is pushed, not polled.

In Chromium the page's requests are recorded after load: a tap made through the API shows on the
page within a couple of seconds (the match's feed socket announces the new seq and the page
fetches ``?partial=stats`` once), an undo too, and a quiet period longer than the old polling
period (5 s) makes no request at all. Once the match is over the page still listens: an undo of
the concession reopens it on the page.
"""
from __future__ import annotations

import time

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.matches import new_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium

CONFIG = {"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 1, "first_breaker": 0}
# The charts' texts as drawn on the phone: font size times the picture's scale, in px (6.6–7.7 px
# when the pictures were drawn 640 units wide)
CHART_TEXT = """() => [...document.querySelectorAll('#match-stats svg text')].filter(t => t.getClientRects().length)
  .map(t => [t.textContent, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a])"""
SCORE = "() => document.querySelector('#match-stats .ms-status').textContent.replace(/\\s+/g, ' ')"


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class MatchStatsPushedTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        self.token = None

    def tap(self, match, event):
        if self.token is None:
            self.token = RefereeCredential.issue(match)[1]
        r = httpx.post(f"{self.live_server_url}/api/matches/{match.pk}/events/", json={"event": event},
                       headers={"Authorization": f"Bearer {self.token}"}, timeout=10)
        assert r.status_code == 201, r.text
        return time.monotonic()

    def test_stats_follow_the_taps_by_push_and_ask_nothing_when_quiet(self):
        from playwright.sync_api import sync_playwright

        match = new_match(CONFIG, table="1")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR").new_page()
                sockets, stats = [], []
                page.on("websocket", lambda ws: sockets.append(ws))
                page.goto(f"{self.live_server_url}/matches/{match.pk}/")
                page.on("request", lambda r: stats.append(r.url) if "partial=stats" in r.url else None)
                page.wait_for_load_state("networkidle")
                assert "0 × 0" in page.evaluate(SCORE)

                # Quiet: longer than the old polling period (5 s), and nothing is asked.
                page.wait_for_timeout(6000)
                assert stats == [], stats
                # meanwhile the page listens on the match's socket (the script marks it open)
                assert page.evaluate("() => document.body.hasAttribute('data-stats-live')")

                # A tap shows within a couple of seconds, fetched once.
                tapped = self.tap(match, {"type": "pot", "balls": [1]})
                page.wait_for_function(f"() => ({SCORE})().includes('1 × 0')", timeout=2500)
                took = time.monotonic() - tapped
                assert page.locator("#match-stats .hb0").text_content() == "1"
                # the frame's worm and the match's breaks, readable on the phone and within its width
                chart = page.evaluate(CHART_TEXT)
                assert len(chart) > 5 and min(px for _, px in chart) >= 12, chart
                assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
                page.wait_for_timeout(300)  # a second fetch for the same seq would have started
                assert len(stats) == 1, stats

                # An undo is a new seq too: the page goes back.
                self.tap(match, {"type": "undo"})
                page.wait_for_function(f"() => ({SCORE})().includes('0 × 0')", timeout=2500)
                assert len(stats) == 2, stats

                # The match ends, then the referee takes the concession back: the page follows both.
                self.tap(match, {"type": "concede_match", "player": 1})
                page.wait_for_function("() => document.querySelector('#match-stats')"
                                       ".getAttribute('data-over') === '1'", timeout=2500)
                self.tap(match, {"type": "undo"})
                page.wait_for_function("() => !document.querySelector('#match-stats').hasAttribute('data-over')",
                                       timeout=2500)
                assert len(stats) == 4, stats
                assert len(sockets) == 1 and not sockets[0].is_closed(), [ws.url for ws in sockets]
                print(f"tap to page: {took * 1000:.0f} ms; stats requests: {len(stats)}")
            finally:
                browser.close()
