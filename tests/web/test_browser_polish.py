"""What a fresh tester found on the merged tablet (issue 10/11 follow-up), in Chromium with touch.

A double tap on a button that asks for confirmation must not confirm: the confirmation's buttons
appear where the finger is, so they ignore taps for a moment after they appear.
"""
from __future__ import annotations

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import Event, RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class DoubleTapConfirmTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        self.pw = self.browser = None

    def tearDown(self):
        if self.pw:
            self.browser.close()
            self.pw.stop()

    def tablet(self, w=1280, h=800):
        from playwright.sync_api import sync_playwright

        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        self.context = self.browser.new_context(viewport={"width": w, "height": h}, has_touch=True, locale="pt-BR")
        page = self.context.new_page()
        page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
        page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=5000)
        return page

    def seq(self) -> int:
        return Event.objects.filter(match_id=self.mid).count()

    def double_tap(self, page, locator, at=0.5):
        """Two touch taps 300 ms apart on ``locator`` (where it was at the first), ``at`` of its
        width from the left."""
        locator.scroll_into_view_if_needed()
        box = locator.bounding_box()
        x, y = box["x"] + box["width"] * at, box["y"] + box["height"] / 2
        page.touchscreen.tap(x, y)
        page.wait_for_timeout(300)
        page.touchscreen.tap(x, y)
        page.wait_for_timeout(900)
        return x, y

    def test_a_double_tap_on_concede_does_not_concede(self):
        self.mid = create_match("Ana Souza", "Bia Lima", first_breaker=0, frames_to_win=2).match.pk
        log.append_event(self.mid, {"type": "no_pot"}, expected_seq=0)
        page = self.tablet()
        page.locator("details.more summary").tap()
        ask = page.get_by_text("Bia Lima desiste da partida…")
        x, y = self.double_tap(page, ask)
        assert self.seq() == 1, "the second tap of a double tap conceded the frame"
        assert log.snapshot(self.mid).state["phase"] == "play"
        # the confirmation is asked, and after a moment it is tappable
        box = page.locator(".confirmable.confirming")
        assert "Bia Lima" in box.locator(".confirm-what").inner_text()
        yes = box.locator("button", has_text="Sim, encerrar a partida")
        assert yes.is_enabled()
        page.locator(".confirmable.confirming button", has_text="Cancelar").tap()

    def test_a_double_tap_on_undo_does_not_undo(self):
        self.mid = create_match("Ana Souza", "Bia Lima", first_breaker=0, frames_to_win=2).match.pk
        log.append_event(self.mid, {"type": "no_pot"}, expected_seq=0)
        page = self.tablet()
        # "Confirmar" replaces the right part of "Desfazer…"
        # the tester's spot, (1070, 465) at 1280×800: the right part of the button
        self.double_tap(page, page.locator("button.undo-btn"), at=0.8)
        assert self.seq() == 1, "the second tap of a double tap confirmed the undo"
        confirm = page.locator(".undo.confirming button", has_text="Confirmar")
        assert confirm.is_visible() and confirm.is_enabled()
        confirm.tap()
        page.wait_for_function("() => +document.getElementById('live-seq').dataset.seq >= 2", timeout=5000)
        assert log.snapshot(self.mid).state["striker"] == 0  # the miss was taken back: Ana plays again

    def test_the_confirm_button_is_disabled_right_after_it_appears(self):
        self.mid = create_match("Ana Souza", "Bia Lima", first_breaker=0).match.pk
        page = self.tablet(1024, 768)
        page.locator("details.more summary").tap()
        page.get_by_text("Recolocar as bolas (Art. 53)…").tap()
        states = page.evaluate("""() => new Promise(done => {
          const b = [...document.querySelectorAll('.confirmable.confirming button')].find(x => x.textContent.includes('Sim, recolocar'));
          const first = b.disabled;
          setTimeout(() => done([first, b.disabled]), 900);
        })""")
        assert states == [True, False]
