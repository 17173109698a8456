"""On the stream graphics a long club (40 and 59 characters) or player name stays readable at
1920×1080, never below the stated minimum, and neither it nor its card spills over, measured in
Chromium on the next-match, head-to-head and player-intro cards.

Screenshots go to ``shots/`` (not committed) for a person to look at.
"""
from __future__ import annotations

import pathlib

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.matches import new_match

from browser import ARGS, CHROMIUM, require_chromium

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
SIZES = ((390, 844), (1280, 720), (1920, 1080), (3840, 2160))
CLUB40 = "Clube Recreativo de Sinuca do Vale Verde"  # 40 characters
CLUB59 = "Associação Atlética Recreativa de Sinuca do Vale do Paraíba"
NAME = "Igor Martins de Albuquerque Cavalcanti Neto"
# a viewer reads the graphics at 1920×1080: the smallest size, in px, of a club and a player's name
CLUB_MIN, NAME_MIN = 26, 30
# each club and player name on the shown card: its font size and whether it or its box spills over
GFX_TEXT = """() => [...document.querySelectorAll('#gfx-stage .pl-club, #gfx-stage .intro-club, #gfx-stage .pl-name, #gfx-stage .intro-name')]
  .filter(e => e.getClientRects().length)
  .map(e => { const t = e.matches('.pl-club, .intro-club') ? e.querySelector('[data-fit]') : e;
              const card = e.closest('.gfx-card');
              return {kind: e.className, text: t.textContent.trim(), px: parseFloat(getComputedStyle(t).fontSize),
                      over: t.scrollWidth > t.clientWidth || e.scrollWidth > e.clientWidth
                            || t.scrollHeight > t.clientHeight + 1
                            || card.scrollHeight > card.clientHeight + 1 || card.scrollWidth > card.clientWidth + 1}; })"""



@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class GraphicsLongClubTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        SHOTS.mkdir(exist_ok=True)

    def test_graphics_long_club_and_name_stay_readable(self):
        from scoreboard.core.credentials import issue_overlay_token
        from scoreboard.core.models import Player, Table
        from playwright.sync_api import sync_playwright

        cfg = {"reds": 6, "frames_to_win": 2, "first_breaker": 0}
        m = new_match({**cfg, "players": [NAME, "Bia Lima"]}, table="Mesa 1")
        new_match({**cfg, "players": ["Caio Prado", "Davi Reis"]}, table="Mesa 1", started=False)
        Player.objects.filter(pk=m.player_a_id).update(club=CLUB40, country="BR")
        Player.objects.filter(pk=m.player_b_id).update(club=CLUB59, country="PT")
        Player.objects.filter(name="Caio Prado").update(club=CLUB40)
        Player.objects.filter(name="Davi Reis").update(club=CLUB59)
        table = Table.objects.get(name="Mesa 1")
        token = issue_overlay_token(table)
        http = httpx.Client(timeout=10)

        def switch(**body):
            r = http.post(f"{self.live_server_url}/api/tables/{table.pk}/overlay/", json=body,
                          headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text

        seen = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(f"{self.live_server_url}/tables/{table.pk}/graphics/")
            page.wait_for_selector("#gfx-stage")
            for card, extra in (("next", {}), ("h2h", {}), ("intro", {"player": "a"}), ("intro", {"player": "b"})):
                switch(**{card: "show"}, **extra)
                page.wait_for_selector(f"[data-gfx={card}]", timeout=30000)
                page.wait_for_function(
                    f"() => [...document.querySelectorAll('.gfx-card')].map(e => e.dataset.gfx).join() === '{card}'",
                    timeout=30000)
                if extra:
                    want = NAME if extra["player"] == "a" else "Bia Lima"
                    page.wait_for_function(f"() => document.querySelector('.intro-name').textContent.trim() === {want!r}",
                                           timeout=30000)
                for w, h in SIZES[1:]:
                    page.set_viewport_size({"width": w, "height": h})
                    page.evaluate("() => window.gfxRefit()")
                    tag = f"{card}{extra.get('player', '')}"
                    page.screenshot(path=str(SHOTS / f"graphics-long-club-{tag}-{w}.png"), omit_background=True)
                    if (w, h) == (1920, 1080):
                        seen[tag] = page.evaluate(GFX_TEXT)
                page.set_viewport_size({"width": 1920, "height": 1080})
                page.evaluate("() => window.gfxRefit()")
            browser.close()
        print("graphics type px:", {k: [(t["text"][:20], t["px"]) for t in v] for k, v in seen.items()})
        clubs = [t for v in seen.values() for t in v if "club" in t["kind"]]
        names = [t for v in seen.values() for t in v if "name" in t["kind"]]
        assert {t["text"] for t in clubs} >= {CLUB40, CLUB59}, clubs  # every club shown, whole
        assert [t for t in clubs if t["px"] < CLUB_MIN] == [], clubs
        assert [t for t in names if t["px"] < NAME_MIN] == [], names
        assert [t for v in seen.values() for t in v if t["over"]] == [], seen
