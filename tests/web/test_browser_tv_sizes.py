"""The table TV's type sizes in Chromium (issue 18): both names at one size, every label readable
from the back of the room (at least 26 px at 1920x1080), nothing clipped at 720p, 1080p and 4K."""
from __future__ import annotations

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core.matches import create_match

from browser import ARGS, CHROMIUM, require_chromium
from test_browser_screens import TV_FITS, TV_SIZES

# Font size in px of every visible text leaf of the board that is a label (not a name, a value or a
# description), with its text.
LABELS = """() => [...document.querySelectorAll(
    '.tv-facts .k, .tv-frames small, .tv-hb, .tv-last .k, .tv-history .k, .tv-head, .tv-at')]
  .filter(e => e.textContent.trim() && e.getClientRects().length)
  .map(e => [e.textContent.trim().replace(/\\s+/g, ' ').slice(0, 30), parseFloat(getComputedStyle(e).fontSize)])"""
NAMES = "() => [...document.querySelectorAll('.tv-name')].map(e => parseFloat(getComputedStyle(e).fontSize))"


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class TvSizesTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()

    def test_names_at_one_size_labels_26px_nothing_clipped(self):
        from playwright.sync_api import sync_playwright

        created = create_match("Maria Aparecida dos Santos Oliveira Silva", "Bia Lima", first_breaker=0)
        mid = created.match.pk
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for lang, locale in (("pt-br", "pt-BR"), ("en", "en-GB")):
                for w, h in TV_SIZES:
                    page = browser.new_page(viewport={"width": w, "height": h}, locale=locale)
                    page.goto(f"{self.live_server_url}/matches/{mid}/tv/?lang={lang}")
                    page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=5000)
                    bad = page.evaluate(TV_FITS)
                    assert bad == [], (lang, w, h, bad)
                    cut = page.evaluate("() => [...document.querySelectorAll('.tv-facts .k, .tv-frames small')]"
                                        ".filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)"
                                        ".map(e => [e.textContent, e.scrollWidth, e.clientWidth, e.scrollHeight, e.clientHeight])")
                    assert cut == [], (lang, w, h, cut)
                    page.screenshot(path=f"/tmp/h18-tv-{lang}-{w}x{h}.png")
                    names = page.evaluate(NAMES)
                    # the long name shrank to fit, and the short one with it
                    assert names[0] == names[1] and names[0] < 6.4 * h / 100, (lang, w, h, names)
                    if (w, h) == (1920, 1080):
                        small = [(t, s) for t, s in page.evaluate(LABELS) if s < 26]
                        assert small == [], (lang, small)
                    page.close()
            browser.close()
