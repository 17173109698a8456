"""In Chromium at 1280×800 (a landscape tablet): the foul dialog shows the penalty preview and
"Confirmar falta" without scrolling, and its touch targets stay at least 48 px.

The heaviest form is used: 15 reds, a red just potted (so the nominated colour is asked too).
The screenshot goes to shots/ (gitignored) for a person to look at.
"""
from __future__ import annotations

import pathlib

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium
SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"

MEASURE = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, height: r.height}; };
  const confirm = document.querySelector('#foul-dialog button[data-close-dialog]');  // "Confirmar falta"
  const c = confirm.getBoundingClientRect();
  const hit = document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2);
  return {
    dialog: box(document.getElementById('foul-dialog')),
    confirm: box(confirm),
    confirmOnTop: hit === confirm || confirm.contains(hit),
    penalty: box(document.querySelector('#foul-preview .pv-penalty')),
    smallest: Math.min(...[...document.querySelectorAll('#foul-dialog .chip, #foul-dialog button, #foul-dialog select')]
      .map(e => e.getBoundingClientRect().height)),
    viewport: innerHeight,
  };
}"""


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class FoulDialogFitsTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        self.created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
        log.append_event(self.created.match.pk, {"type": "pot", "balls": [1]}, expected_seq=0)
        SHOTS.mkdir(exist_ok=True)

    def test_preview_and_confirm_are_in_view_at_1280x800(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for lang in ("pt-BR", "en"):
                page = browser.new_page(viewport={"width": 1280, "height": 800}, has_touch=True, locale=lang)
                # a link of its own for each tablet: the codes are single-use
                page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.created.match.pk)))
                page.locator("#ref-live button.foul").first.tap()
                page.wait_for_selector("#foul-dialog[open] #foul-form")
                # a red was potted: the colour aimed at is asked first (Art. 19), then the penalty shows
                page.locator("#foul-form .nominated-q .chip").nth(3).tap()
                page.wait_for_selector("#foul-preview .pv-penalty")
                page.screenshot(path=str(SHOTS / f"foul-dialog-1280x800-{lang}.png"))
                m = page.evaluate(MEASURE)
                assert m["dialog"]["bottom"] <= 800 and m["dialog"]["top"] >= 0, m
                assert 0 <= m["penalty"]["top"] and m["penalty"]["bottom"] <= 800, m
                assert 0 <= m["confirm"]["top"] and m["confirm"]["bottom"] <= 800 and m["confirmOnTop"], m
                assert m["smallest"] >= 48, m
                page.close()
            browser.close()

    def test_confirm_waits_for_the_colour_only_when_the_offender_and_kind_ask_it(self):
        """A colour is owed (a red just potted): "Confirmar falta" waits for the colour aimed at
        for the striker's foul of a variable penalty, not for the seated player's foul nor for a
        kind of fixed 7 points. The page's script reads the offender's ``data-nominates`` (the
        engine's answer); it used to work those two exceptions out itself."""
        from playwright.sync_api import sync_playwright

        pick = """([name, value]) => { const i = document.querySelector(`#foul-form input[name="${name}"][value="${value}"]`);
            i.checked = true; i.dispatchEvent(new Event('change', {bubbles: true})); }"""
        disabled = "() => document.querySelector('#foul-dialog button[data-close-dialog]').disabled"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800}, has_touch=True, locale="pt-BR")
            page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.created.match.pk)))
            page.locator("#ref-live button.foul").first.tap()
            page.wait_for_selector("#foul-dialog[open] #foul-form[data-needs-nomination]")
            assert page.evaluate(disabled) is True  # Ana's foul, "outra": its penalty hangs on the colour
            for (name, value), want in ((("player", "1"), False),   # Bia, seated (Art. 49)
                                        (("player", "0"), True),
                                        (("kind", "slow_play"), False),  # 7 points whatever the colour (Art. 49.4)
                                        (("kind", "cue_ball_potted"), True)):
                page.evaluate(pick, [name, value])
                page.wait_for_function(f"() => ({disabled})() === {str(want).lower()}", timeout=5000)
            page.locator("#foul-form .nominated-q .chip").nth(3).tap()
            page.wait_for_function(f"() => ({disabled})() === false", timeout=5000)
            browser.close()
