"""The federation's public site on a phone (390×844, Chromium): a player's page reads their
career (totals, by season, last results linked to each match and súmula) and moves by push when
one of their matches ends (no reload, no request); the head-to-head of two players lists every
match with its frame scores; neither page is wider than the phone, body text at least 16 px.
One live server and one browser context for both pages."""
from __future__ import annotations

import pathlib

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.matches import match_config, new_match
from scoreboard.core.models import Match, Player, RefereeCredential

from browser import ARGS, CHROMIUM, SHOTS_ON, require_chromium

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"
MIN_FONT = """() => {
  let min = 1e9, what = '';
  for (const el of document.body.querySelectorAll('*')) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    const f = parseFloat(getComputedStyle(el).fontSize);
    if (f < min) { min = f; what = el.tagName + '.' + el.className + ': ' + el.textContent.trim().slice(0, 30); }
  }
  return [min, what];
}"""


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class PublicSiteBrowserTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()

    def tap(self, match: Match, event: dict) -> None:
        token = getattr(match, "_token", None) or RefereeCredential.issue(match, label="t")[1]
        match._token = token
        r = httpx.post(f"{self.live_server_url}/api/matches/{match.pk}/events/", json={"event": event},
                       headers={"Authorization": f"Bearer {token}"}, timeout=15)
        assert r.status_code == 201, r.text

    def test_player_page_and_head_to_head_on_a_phone(self):
        from playwright.sync_api import sync_playwright

        igor = Player.objects.create(name="Igor Martins de Albuquerque", club="Clube Santista")
        bia = Player.objects.create(name="Bia Lima", club="Bilhar Paulista")
        done = new_match(match_config([igor.name, bia.name], reds=6, frames_to_win=2), players=(igor, bia))
        log.append_event(done.pk, {"type": "lot", "player": 0})
        for _ in range(4):  # a break of 32 by Igor
            log.append_event(done.pk, {"type": "pot", "balls": [1]})
            log.append_event(done.pk, {"type": "pot", "balls": [7]})
        log.append_event(done.pk, {"type": "concede", "player": 1})
        log.append_event(done.pk, {"type": "next_frame"})
        log.append_event(done.pk, {"type": "concede", "player": 0})
        log.append_event(done.pk, {"type": "next_frame"})
        log.append_event(done.pk, {"type": "concede", "player": 1})
        live = new_match(match_config([igor.name, bia.name], reds=6), players=(igor, bia))
        self.tap(live, {"type": "lot", "player": 1})
        base = self.live_server_url
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR",
                                          device_scale_factor=1, has_touch=True, is_mobile=True)
                page = ctx.new_page()
                page.goto(f"{base}/players/{igor.pk}/", wait_until="load")
                totals = dict(zip(page.locator(".pub-totals dt").all_text_contents(),
                                  page.locator(".pub-totals dd").all_text_contents()))
                assert totals["Jogos"] == "1" and totals["Vitórias"] == "1" and totals["% de vitórias"] == "100%"
                assert totals["Partidas ganhas"] == "2" and totals["Partidas perdidas"] == "1"
                assert totals["Maior tacada"] == "32" and totals["Tacadas 30+"] == "1" and totals["Tacadas 50+"] == "0"
                last = page.locator(".pub-last li")
                assert last.count() == 2 and "em jogo" in last.nth(0).text_content()
                assert last.nth(1).locator(f'a[href="/matches/{done.pk}/sumula.pdf?lang=pt-br"]').count() == 1
                assert page.evaluate(WIDTH)[0] <= 390, page.evaluate(WIDTH)
                font = page.evaluate(MIN_FONT)
                assert font[0] >= 16, font
                if SHOTS_ON:
                    SHOTS.mkdir(exist_ok=True)
                    page.screenshot(path=str(SHOTS / "public-player-390x844.png"), full_page=True)
                # the match in play ends: the page shows it by push, without a reload or a request
                page.wait_for_function("() => window.WebSocket && document.body.dataset.boardWs")
                page.evaluate("() => { window.__kept = 1; }")
                requests = []
                page.on("request", lambda r: requests.append(r.url))
                page.wait_for_timeout(0)
                self.tap(live, {"type": "concede", "player": 0})  # Bia wins
                page.wait_for_function("() => document.querySelector('.pub-totals dd').textContent === '2'",
                                       timeout=15000)
                assert page.evaluate("() => window.__kept") == 1
                assert [u for u in requests if not u.startswith("ws")] == []
                assert "50%" in page.locator(".pub-totals").text_content()
                # the head-to-head, in English
                page.goto(f"{base}/players/{igor.pk}/h2h/{bia.pk}/?lang=en", wait_until="load")
                assert page.locator(".pub-tally").text_content().split()[:3] == ["1", "×", "1"]
                items = page.locator(".pub-h2h-list li")
                assert items.count() == 2
                assert items.nth(0).locator(".pub-frames span").all_text_contents() == ["32–0", "0–0", "0–0"]
                assert "2 × 1" in items.nth(0).text_content() and "0 × 1" in items.nth(1).text_content()
                assert page.evaluate(WIDTH)[0] <= 390
                assert page.evaluate(MIN_FONT)[0] >= 16
                if SHOTS_ON:
                    page.screenshot(path=str(SHOTS / "public-h2h-390x844.png"), full_page=True)
            finally:
                browser.close()
