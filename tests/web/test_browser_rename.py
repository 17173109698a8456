"""In Chromium: a player renamed in the admin reaches the pages already open on his match (the TV,
the overlay and the public match page).

The rename adds no event: the server renders the match again at the same seq and pushes it as a
restatement (``log.publish_again``). The pages must take it (it used to be dropped as "not newer
than what is shown"), and an overlay must not replay the pop-ups of the change it already showed.
"""
from __future__ import annotations

import pathlib

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.matches import create_match

from browser import ARGS, CHROMIUM, require_chromium

NAMES = """(sel) => [...document.querySelectorAll(sel)].map(e => e.textContent.trim())"""
SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
POPS = "() => [...document.querySelectorAll('#ov-pops .pop')].map(e => e.dataset.pop)"


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class RenameReachesOpenPagesTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()

    def staff_cookie(self) -> dict:
        from django.conf import settings
        from django.contrib.auth.models import User
        from django.test import Client

        c = Client()
        c.force_login(User.objects.create_superuser("desk", "d@example.com", "pw-desk-123"))
        return {"name": settings.SESSION_COOKIE_NAME, "value": c.cookies[settings.SESSION_COOKIE_NAME].value,
                "domain": "127.0.0.1", "path": "/"}

    def test_an_admin_rename_is_pushed_to_the_open_tv_and_overlay_without_replaying_popups(self):
        from playwright.sync_api import sync_playwright

        created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
        mid, token = created.match.pk, created.token
        base = self.live_server_url
        for seq, ev in enumerate(({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]})):
            r = httpx.post(f"{base}/api/matches/{mid}/events/", json={"event": ev, "expected_seq": seq},
                           headers={"Authorization": f"Bearer {token}"}, timeout=15)
            assert r.status_code == 201, r.text
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                tv = browser.new_page(viewport={"width": 1280, "height": 720}, locale="pt-BR")
                tv.goto(f"{base}/matches/{mid}/tv/")
                # milestones=5: the break of 8 on the page's seq would pop up if it were replayed
                ov = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
                ov.goto(f"{base}/matches/{mid}/overlay/?milestones=5&popup_seconds=30")
                for page in (tv, ov):
                    page.wait_for_function("() => document.getElementById('conn').classList.contains('up')",
                                           timeout=30000)
                    page.evaluate("() => { window.notReloaded = true; }")
                assert tv.evaluate(NAMES, ".tv-name") == ["Ana Souza", "Bia Lima"]
                assert ov.evaluate(POPS) == []
                # the public match page follows the match's feed socket (match.js)
                mp = browser.new_page(viewport={"width": 390, "height": 844}, locale="pt-BR")
                mp.goto(f"{base}/matches/{mid}/")
                mp.wait_for_function("() => document.body.hasAttribute('data-stats-live')", timeout=30000)
                mp.evaluate("() => { window.notReloaded = true; }")
                assert mp.evaluate(NAMES, "#match-stats .ms-name") == ["Ana Souza", "Bia Lima"]

                staff = browser.new_context(viewport={"width": 1280, "height": 800}, locale="pt-BR")
                staff.add_cookies([self.staff_cookie()])
                admin = staff.new_page()
                admin.goto(f"{base}/admin/scoreboard/player/{created.match.player_a_id}/change/")
                admin.fill("input[name=name]", "Ana Souza Lima")
                admin.click("input[name=_save]")
                admin.wait_for_selector(".messagelist .success", timeout=30000)

                tv.wait_for_function(f"() => ({NAMES})('.tv-name')[0] === 'Ana Souza Lima'", timeout=30000)
                ov.wait_for_function(f"() => ({NAMES})('.ov-name')[0] === 'Ana Souza Lima'", timeout=30000)
                for page in (tv, ov):
                    assert page.evaluate("() => window.notReloaded === true")  # pushed, not reloaded
                    assert page.evaluate("() => +document.getElementById('live-seq').dataset.seq") == 2
                assert ov.evaluate(POPS) == []  # the restatement shows no pop-up of its own
                # the match page too, at the same seq: the names, the statistics' columns, the heading
                # (it took only a newer seq, and the statistics kept per seq had the old names)
                mp.wait_for_function(f"() => ({NAMES})('#match-stats .ms-name')[0] === 'Ana Souza Lima'",
                                     timeout=30000)
                assert mp.evaluate("() => window.notReloaded === true")
                assert mp.evaluate("() => document.getElementById('match-stats').dataset.seq") == "2"
                assert "Ana Souza Lima" in mp.evaluate(NAMES, "#match-stats thead th")
                assert mp.evaluate(NAMES, ".venue-head h1") == ["Ana Souza Lima × Bia Lima"]
                SHOTS.mkdir(exist_ok=True)
                mp.screenshot(path=str(SHOTS / "match-page-renamed-390x844.png"), full_page=True)
                assert mp.evaluate("() => document.documentElement.scrollWidth") <= 390  # no sideways scroll

                # the next tap is still applied on top of the restated page
                r = httpx.post(f"{base}/api/matches/{mid}/events/",
                               json={"event": {"type": "pot", "balls": [1]}, "expected_seq": 2},
                               headers={"Authorization": f"Bearer {token}"}, timeout=15)
                assert r.status_code == 201, r.text
                tv.wait_for_function("() => +document.getElementById('live-seq').dataset.seq === 3", timeout=30000)
                assert tv.evaluate(NAMES, ".tv-name") == ["Ana Souza Lima", "Bia Lima"]
            finally:
                browser.close()
