"""The referee tablet through Wi-Fi drops, in Chromium: taps made offline are queued (and survive a
reload), sent in order when the network is back, and a tap made against a stale screen (a second
tablet scored meanwhile) stops the queue with a clear message until the referee discards or resends.
"""
from __future__ import annotations

import json
import pathlib

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

import sinuca
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium, settled
from rules_tablet import close_rule, open_rule
SEQ = "() => +document.getElementById('live-seq').dataset.seq"
QUEUE = "document.getElementById('tap-queue')"
SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class TabletCase(ChannelsLiveServerTestCase):
    """One live server per class, so one test per class: a second test of the same class did not
    see its match in the server process on SQLite."""

    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        SHOTS.mkdir(exist_ok=True)
        self.created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
        self.mid = self.created.match.pk

    # -- helpers --
    def log(self) -> list[dict]:
        return httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/events/", timeout=10).json()["events"]

    def assert_log_replays(self) -> None:
        served = httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/", timeout=10).json()
        log = self.log()
        assert [e["seq"] for e in log] == list(range(1, served["seq"] + 1))
        assert sinuca.Match.replay(served["config"], [e["event"] for e in log]).state() == served["state"]

    def tablet(self, browser, lang="pt-BR"):
        ctx = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True, locale=lang)
        # These tests cover the queue as it works without the in-browser engine (its fallback: the
        # server checks every tap); test_browser_tablet_engine.py covers the tablet with it.
        ctx.route("**/*.wasm", lambda route: route.abort())
        page = ctx.new_page()
        # each tablet gets a link of its own: the codes are single-use
        page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
        page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
        return ctx, page

    @staticmethod
    def tap_ball(page, n):
        page.locator(f"#ref-live button.ball-{n}:not([disabled]):not(.multi)").filter(has_not_text="Livre").first.tap()

    @staticmethod
    def tap_text(page, text):
        page.locator("#ref-live button:not([disabled])").filter(has_text=text).first.tap()

    @staticmethod
    def wait_queue_text(page, text, timeout=30000):
        page.wait_for_function(f"t => {QUEUE}.textContent.includes(t)", arg=text, timeout=timeout)



@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class OfflineQueueTest(TabletCase):
    def test_taps_made_offline_are_queued_survive_a_reload_and_are_sent_in_order(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, ref = self.tablet(browser)
            tv = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
            tv.goto(self.live_server_url + self.created.tv_url)
            tv.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)

            # Wi-Fi drops: three legal taps on the screen as it was (red, no pot, red for Bia)
            ctx.set_offline(True)
            ref.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_ball(ref, 1)
            self.wait_queue_text(ref, "sem conexão — 1 toque na fila")
            self.tap_text(ref, "Sem ponto")
            self.tap_ball(ref, 1)
            self.wait_queue_text(ref, "sem conexão — 3 toques na fila")
            assert ref.is_visible("#tap-queue")
            items = ref.evaluate("() => window.refereeQueue.items()")
            assert [q["expected"] for q in items] == [0, 1, 2]
            assert len({q["key"] for q in items}) == 3
            assert json.loads(ref.evaluate("() => localStorage.getItem('sinuca.tapQueue.%d')" % self.mid))
            ref.screenshot(path=str(SHOTS / "referee-offline-queue.png"))
            settled(ref)  # the offline tablet tried nothing more
            assert tv.evaluate(SEQ) == 0 and self.log() == []  # nothing reached the server

            # back online: sent in order, the TV follows to seq 3
            ctx.set_offline(False)
            tv.wait_for_function(f"() => ({SEQ})() >= 3", timeout=30000)
            ref.wait_for_function(f"() => ({SEQ})() === 3 && window.refereeQueue.length() === 0", timeout=30000)
            assert ref.is_hidden("#tap-queue")
            assert [(e["seq"], e["event"]["type"]) for e in self.log()] == [(1, "pot"), (2, "no_pot"), (3, "pot")]

            # offline again, two taps, then the tablet is reloaded: the queue is still there and sent
            ctx.set_offline(True)
            ref.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_ball(ref, 7)  # Bia's red is followed by the black (enabled offline too)
            self.tap_ball(ref, 1)
            self.wait_queue_text(ref, "2 toques na fila")
            ref.goto("about:blank")  # the tab is closed / reloaded while the taps wait
            ctx.set_offline(False)
            ref.goto(self.live_server_url + f"/matches/{self.mid}/referee/")
            tv.wait_for_function(f"() => ({SEQ})() >= 5", timeout=30000)
            ref.wait_for_function(f"() => ({SEQ})() === 5 && window.refereeQueue.length() === 0", timeout=30000)
            assert [e["event"] for e in self.log()][3:] == [{"type": "pot", "balls": [7]}, {"type": "pot", "balls": [1]}]
            st = httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/", timeout=10).json()["state"]
            assert st["scores"] == [1, 9] and tv.evaluate(SEQ) == 5

            # a queued tap the rules refuse (the black twice) stops the queue with the rule's reason
            ctx.set_offline(True)
            ref.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_ball(ref, 7)
            ref.wait_for_timeout(600)  # the gesture: two deliberate taps (the same button within 0.5 s is one bounce)
            self.tap_ball(ref, 7)
            self.tap_ball(ref, 1)
            self.wait_queue_text(ref, "3 toques na fila")
            ctx.set_offline(False)
            ref.wait_for_selector("#tap-queue.blocked", timeout=30000)
            text = ref.inner_text("#tap-queue")
            assert "Toque recusado (422)" in text and "2 toques parados" in text, text
            assert "Art." in text  # the engine's reason, in Portuguese
            # each article of the reason is a tap: the article's words over the board, one tap closes
            why = ref.locator("#tap-queue .tq-why .art").first
            open_rule(ref, why, why.get_attribute("data-art"))
            close_rule(ref)
            tv.wait_for_function(f"() => ({SEQ})() === 6", timeout=30000)
            assert len(self.log()) == 6
            ref.get_by_text("Descartar 2 toques…").tap()
            ref.get_by_text("Sim, descartar").tap()  # asked first; tapped once it arms
            ref.wait_for_function("() => window.refereeQueue.length() === 0", timeout=30000)
            assert len(self.log()) == 6
            browser.close()
        self.assert_log_replays()



@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class SecondTabletConflictTest(TabletCase):
    def test_a_second_tablet_gets_a_clear_conflict_and_can_discard_or_resend(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx_a, a = self.tablet(browser)
            ctx_b, b = self.tablet(browser, lang="en")
            b.goto(self.live_server_url + f"/matches/{self.mid}/referee/?lang=en")
            b.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)

            # B loses Wi-Fi and taps the red; meanwhile A scores the red
            ctx_b.set_offline(True)
            b.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_ball(b, 1)
            self.wait_queue_text(b, "offline — 1 tap queued")
            self.tap_ball(a, 1)
            a.wait_for_function(f"() => ({SEQ})() === 1", timeout=30000)

            # B is back: its tap was made against seq 0, so it is refused (409) and the queue stops
            ctx_b.set_offline(False)
            b.wait_for_selector("#tap-queue.blocked", timeout=30000)
            text = b.inner_text("#tap-queue")
            b.screenshot(path=str(SHOTS / "referee-conflict-en.png"))
            assert "Tap refused (409)" in text and "on another device" in text and "1 tap held" in text
            b.wait_for_function(f"() => ({SEQ})() === 1", timeout=30000)  # B now shows what A did
            assert len(self.log()) == 1
            # A is told that B holds a tap it has not sent (B's report, pushed on A's socket)
            a.wait_for_function("() => !document.getElementById('held-elsewhere').hidden", timeout=30000)
            assert a.inner_text("#held-elsewhere") == ("Outro tablet deste jogo tem 1 toque não enviado (fila parada):"
                                                       " confira com ele antes de marcar.")
            assert b.is_hidden("#held-elsewhere")  # B's own queue is not "another tablet's"
            # new taps are refused while the queue is stopped
            self.tap_text(b, "No pot")
            assert "queue is stopped" in b.inner_text("#ref-msg")
            assert b.evaluate("() => window.refereeQueue.length()") == 1
            b.get_by_text("Discard 1 tap…").tap()
            b.get_by_text("Yes, discard").tap()
            b.wait_for_function("() => window.refereeQueue.length() === 0", timeout=30000)
            a.wait_for_function("() => document.getElementById('held-elsewhere').hidden", timeout=30000)
            assert b.is_hidden("#tap-queue") and len(self.log()) == 1

            # again: B offline taps "Sem ponto", A pots the black; B resends on the current score
            ctx_b.set_offline(True)
            b.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_text(b, "No pot")
            self.wait_queue_text(b, "1 tap queued")
            self.tap_ball(a, 7)
            a.wait_for_function(f"() => ({SEQ})() === 2", timeout=30000)
            ctx_b.set_offline(False)
            b.wait_for_selector("#tap-queue.blocked", timeout=30000)
            assert len(self.log()) == 2
            b.get_by_text("Send again on the current score").tap()
            b.wait_for_function(f"() => ({SEQ})() === 3 && window.refereeQueue.length() === 0", timeout=30000)
            a.wait_for_function(f"() => ({SEQ})() === 3", timeout=30000)
            log = self.log()
            assert [e["event"] for e in log] == [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]},
                                                 {"type": "no_pot"}]
            assert log[2]["seq"] == 3
            browser.close()
        self.assert_log_replays()
