"""A doubles frame on the referee tablet (issue 19), in Chromium with the rules in the tablet
(Pyodide): the order set at the frame's start, who is at the table and who is next, a foul with
*passar* naming the offender, then taps made offline that the tablet's own engine draws (the
rotation included) and the server takes when the network is back; the TV names the player at
the table; a side of three set to any order by tapping its names in turn. Screenshots in shots/ (1280×800 and 800×1280)."""
from __future__ import annotations

import pathlib
import re

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

import sinuca
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium, ENGINE_READY

SEQ = "() => +document.getElementById('live-seq').dataset.seq"
HEAD = "() => (document.querySelector('#ref-live h2.ref-head') || {}).textContent"
SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
PYODIDE = pathlib.Path(__file__).resolve().parents[2] / "static" / "vendor" / "pyodide" / "pyodide.asm.wasm"


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class DoublesTabletTest(ChannelsLiveServerTestCase):
    """One live server per class, one test per class (as the other browser tests)."""

    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        if not PYODIDE.exists():
            pytest.fail(f"{PYODIDE} is missing: bash -c 'source scripts/lib.sh; ensure_pyodide'")
        SHOTS.mkdir(exist_ok=True)
        self.created = create_match(["Ana", "Carla"], ["Bia", "Duda"], first_breaker=0)
        self.mid = self.created.match.pk
        self.trio = create_match(["Gil", "Hugo", "Ivo"], ["Jó", "Lia"], first_breaker=0).match.pk

    def served(self) -> dict:
        return httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/", timeout=10).json()

    def test_a_doubles_frame_online_and_offline(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True, locale="pt-BR")
            page = ctx.new_page()
            page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
            tv = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
            tv.goto(self.live_server_url + self.created.tv_url)
            for pg in (page, tv):
                pg.wait_for_function("() => document.getElementById('conn').classList.contains('up')",
                                     timeout=30000)
            page.wait_for_function(ENGINE_READY,
                                   timeout=90000)
            assert page.evaluate("() => sinucaEngine.failed") is None

            def head(text):
                page.wait_for_function(f"t => ({HEAD})() === t", arg=text, timeout=30000)

            def served_seq(n):
                page.wait_for_function(f"() => ({SEQ})() === {n}", timeout=30000)
                tv.wait_for_function(f"() => ({SEQ})() === {n}", timeout=30000)

            def tap(text):
                page.locator("#ref-live button:not([disabled])").filter(has_text=text).first.tap()

            def ball(n):
                page.locator(f"#ref-live .row.balls button.ball-{n}:not([disabled]):not(.multi)").filter(
                    has_not_text="Livre").first.tap()

            head("Na mesa: Ana · a seguir: Bia")
            assert page.inner_text("#ref-live .order-title") == "Ordem de jogo (Art. 1): Ana, Bia, Carla, Duda"
            page.screenshot(path=str(SHOTS / "doubles-tablet-1280x800-order.png"))
            tap("Carla 1º na ordem")
            served_seq(1)
            head("Na mesa: Carla · a seguir: Bia")
            assert "NA MESA: Carla" in tv.inner_text(".tv-player.p0")
            ball(1)
            served_seq(2)
            assert page.locator("#ref-live .order-row").count() == 0  # fixed once the frame started
            tap("Sem ponto")
            served_seq(3)
            head("Na mesa: Bia · a seguir: Ana")
            assert "NA MESA: Bia" in tv.inner_text(".tv-player.p1")
            assert page.inner_text("#ref-live .ref-player.at-table .member.at-table") == "▶ Bia"

            # Bia fouls; the dialog names her at the table and offers every player as the offender
            tap("Falta…")
            page.wait_for_selector("#foul-dialog[open] #foul-form", timeout=30000)
            assert page.inner_text("#foul-form h2") == "Falta — na mesa: Bia"
            assert page.locator("#foul-form input[name=player][value='1.0']").is_checked()
            page.locator("#foul-form input[name=ball][value='4']").check(force=True)
            page.wait_for_function("() => { const p = document.querySelector('#foul-preview .pv-penalty');"
                                   " return p && p.textContent.startsWith('4 pontos para Ana / Carla'); }",
                                   timeout=30000)
            page.locator("#foul-dialog button.danger").tap()
            served_seq(4)
            head("Decisão de Ana (Art. 25, 35)")
            assert "DECIDE: Ana" in tv.inner_text(".tv-player.p0")
            page.locator('#ref-live button[data-choice="pass"]').tap()
            served_seq(5)
            head("Na mesa: Bia · a seguir: Ana")  # the offender plays again

            # offline: the tablet's engine draws the rotation itself
            ctx.set_offline(True)
            page.wait_for_function("() => navigator.onLine === false", timeout=30000)
            tap("Sem ponto")
            head("Na mesa: Ana · a seguir: Duda")
            ball(1)
            tap("Sem ponto")
            head("Na mesa: Duda · a seguir: Carla")
            page.wait_for_function("() => refereeQueue.length() === 3", timeout=30000)
            page.screenshot(path=str(SHOTS / "doubles-tablet-1280x800-offline.png"))
            local = page.evaluate("() => sinucaEngine.call({op: 'state'})")
            assert local["state"]["striker_player"] == 1 and local["state"]["next_player"] == 1
            assert self.served()["seq"] == 5

            ctx.set_offline(False)
            page.wait_for_function(f"() => ({SEQ})() === 8 && refereeQueue.length() === 0", timeout=30000)
            tv.wait_for_function(f"() => ({SEQ})() === 8", timeout=30000)
            served = self.served()
            assert served["state"] == local["state"]
            assert "NA MESA: Duda" in tv.inner_text(".tv-player.p1")
            tv.screenshot(path=str(SHOTS / "doubles-tv-1920x1080.png"))
            for layout in ("lower-third", "corner", "full"):  # each layout marks who is at the table
                ov = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
                ov.goto(f"{self.live_server_url}/matches/{self.mid}/overlay/?layout={layout}")
                ov.wait_for_selector(".ov-now")
                assert ov.inner_text(".ov-now") == "Duda" and ov.is_visible(".ov-now")
                ov.screenshot(path=str(SHOTS / f"doubles-overlay-{layout}.png"))
                ov.close()
            portrait = browser.new_page(viewport={"width": 800, "height": 1280}, has_touch=True, locale="pt-BR")
            portrait.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
            portrait.wait_for_function(f"t => ({HEAD})() === t", arg="Na mesa: Duda · a seguir: Carla",
                                       timeout=30000)
            portrait.screenshot(path=str(SHOTS / "doubles-tablet-800x1280.png"), full_page=True)

            # a side of three gets any order by tapping its names in turn: Ivo, then Gil (Hugo last);
            # the order screen offered only its rotations ("Começa X")
            trio = ctx.new_page()
            trio.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.trio)))
            trio.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
            trio.locator("#ref-live details.order-pick > summary").tap()
            trio.locator("#ref-live details.order-node > summary").filter(has_text="Ivo").tap()
            leaf = trio.locator("#ref-live details.order-node[open] button.order-leaf").filter(has_text=re.compile("^Gil"))
            assert leaf.inner_text().split("\n") == ["Gil", "Ivo → Gil → Hugo"] and leaf.is_visible()
            trio.screenshot(path=str(SHOTS / "doubles-tablet-1280x800-order-pick.png"), full_page=True)
            leaf.tap()
            trio.wait_for_function(f"t => ({HEAD})() === t", arg="Na mesa: Ivo · a seguir: Jó", timeout=30000)
            trio.wait_for_function(f"() => ({SEQ})() === 1", timeout=30000)
            got = httpx.get(f"{self.live_server_url}/api/matches/{self.trio}/", timeout=10).json()
            assert got["state"]["order"] == [[2, 0, 1], [0, 1]] and got["seq"] == 1  # one order event
            browser.close()
        log = httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/events/", timeout=10).json()["events"]
        assert sinuca.Match.replay(served["config"], [e["event"] for e in log]).state() == served["state"]
