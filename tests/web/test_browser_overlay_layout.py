"""The overlay's layouts in Chromium (issue 18): nothing in the bar is cut off in Portuguese or
English, even with a three-digit difference and snookers required; ``?position=`` moves the bar."""
from __future__ import annotations

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core.matches import create_match

from browser import ARGS, CHROMIUM, require_chromium, frames

CLIPPED = """() => [...document.querySelectorAll('#ov-live [data-fit], #ov-live .ov-cell, .ov-score, .ov-frames')]
  .filter(el => el.getClientRects().length && el.scrollWidth > el.clientWidth + 1).map(el => el.textContent.trim())"""
# the longest the stroke-facts line gets: a three-digit difference and snookers required, a 3-digit break
WORST = """() => {
  const d = document.querySelector('.c-diff'), b = document.querySelector('.ov-break');
  d.innerHTML = d.innerHTML.replace(/<b>\\d+<\\/b>.*$/s, '<b>104</b> · ' + SNOOKERS + ' <b>3</b>');
  b.textContent = '147';
  window.dispatchEvent(new Event('resize'));
}"""
BOX = "() => { const r = document.querySelector('.ov').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class OverlayLayoutTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()

    def test_no_layout_clips_in_either_language_and_the_bar_moves(self):
        from playwright.sync_api import sync_playwright

        mid = create_match("Ana Souza", "Bia Lima", first_breaker=0).match.pk
        base = self.live_server_url
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for lang, snookers in (("pt-br", "Sinucas"), ("en", "Snookers")):
                for layout in ("lower-third", "corner", "full"):
                    page = browser.new_page(viewport={"width": 1920, "height": 1080})
                    page.goto(f"{base}/matches/{mid}/overlay/?layout={layout}&lang={lang}")
                    page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=5000)
                    page.evaluate(WORST.replace("SNOOKERS", repr(snookers)))
                    frames(page)  # the resize handler has run and its result is laid out
                    assert page.evaluate(CLIPPED) == [], (lang, layout)
                    page.add_style_tag(content="html { background: radial-gradient(#1b5e20, #000) !important; }")
                    page.screenshot(path=f"/tmp/h18-overlay-{layout}-{lang}.png")
                    page.close()
            # ?position= : the full layout at the top right, the lower third at the top
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(f"{base}/matches/{mid}/overlay/?layout=full&position=top-right")
            left, top, right, bottom = page.evaluate(BOX)
            assert top < 60 and 1920 - 60 < right <= 1920, (left, top, right, bottom)
            page.goto(f"{base}/matches/{mid}/overlay/?position=top")
            left, top, right, bottom = page.evaluate(BOX)
            assert top < 60 and left < 100, (left, top, right, bottom)
            page.goto(f"{base}/matches/{mid}/overlay/?layout=corner&position=bottom-right")
            left, top, right, bottom = page.evaluate(BOX)
            assert bottom > 1080 - 80 and right > 1920 - 60, (left, top, right, bottom)
            page.add_style_tag(content="html { background: radial-gradient(#1b5e20, #000) !important; }")
            page.screenshot(path="/tmp/h18-overlay-corner-bottom-right.png")
            browser.close()
