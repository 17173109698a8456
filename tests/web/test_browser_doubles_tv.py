"""In Chromium: a doubles match on the venue TV (1280×720, 1920×1080) names each side's players,
marks the one at the table, names who plays next on the other side, and still fits the screen
with long names; between frames the statistics are headed by the sides. Screenshots go to
shots/ for a person to read."""
from __future__ import annotations

import pathlib

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.matches import create_match

from browser import ARGS, CHROMIUM, require_chromium
from test_browser_screens import TV_FITS

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class DoublesTvTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        SHOTS.mkdir(exist_ok=True)

    def test_the_doubles_tv_names_who_is_at_the_table_and_who_is_next_and_fits(self):
        from playwright.sync_api import sync_playwright

        created = create_match(["Ana Beatriz Souza", "Carla Regina Dias"], ["Bianca Lima Fontes", "Duda Maria Rocha"],
                               first_breaker=0)
        mid, token = created.match.pk, created.token
        base = self.live_server_url
        seq = 0

        def post(event):
            nonlocal seq
            r = httpx.post(f"{base}/api/matches/{mid}/events/", json={"event": event, "expected_seq": seq},
                           headers={"Authorization": f"Bearer {token}"}, timeout=15)
            assert r.status_code == 201, r.text
            seq += 1
            for page in pages:
                page.wait_for_function(f"() => +document.getElementById('live-seq').dataset.seq === {seq}",
                                       timeout=30000)

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                pages = []
                for w, h in ((1280, 720), (1920, 1080)):
                    page = browser.new_page(viewport={"width": w, "height": h}, locale="pt-BR")
                    page.goto(f"{base}/matches/{mid}/tv/")
                    page.wait_for_function("() => document.getElementById('conn').classList.contains('up')",
                                           timeout=30000)
                    pages.append(page)
                post({"type": "pot", "balls": [1]})
                post({"type": "no_pot"})  # Ana misses: Bianca at the table, Carla next for side A
                for page in pages:
                    w = page.viewport_size["width"]
                    assert page.inner_text(".tv-player.p1 .tv-at") == "NA MESA: Bianca Lima Fontes"
                    assert page.inner_text(".tv-player.p0 .tv-at") == "A SEGUIR: Carla Regina Dias"
                    # the side's name lists its players: no second line repeating them
                    assert page.inner_text(".tv-player.p0 .tv-name") == "Ana Beatriz Souza / Carla Regina Dias"
                    assert page.locator(".tv-members").count() == 0
                    page.screenshot(path=str(SHOTS / f"h19-tv-doubles-{w}x{page.viewport_size['height']}.png"))
                    assert page.evaluate(TV_FITS) == [], w
                post({"type": "concede", "player": 1})
                for page in pages:
                    w = page.viewport_size["width"]
                    heads = page.eval_on_selector_all(".st-table thead th[data-fit]", "hs => hs.map(h => h.textContent)")
                    assert heads == ["Ana / Carla", "Bianca / Duda"]
                    page.screenshot(path=str(SHOTS / f"h19-tv-doubles-stats-{w}x{page.viewport_size['height']}.png"))
                    assert page.evaluate(TV_FITS) == [], w
            finally:
                browser.close()
