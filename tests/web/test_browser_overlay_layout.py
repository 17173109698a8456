"""The overlay's layouts in Chromium (issue 18): nothing in the bar is cut off in Portuguese or
English, even with a three-digit difference and snookers required; ``?position=`` moves the bar."""
from __future__ import annotations

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core.matches import create_match
from scoreboard.models import Player, Table

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
            # one page, each layout loaded into it afresh (a new document each time: a context a
            # layout cost a window's start and end and checked nothing more)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            for lang, snookers in (("pt-br", "Sinucas"), ("en", "Snookers")):
                for layout in ("lower-third", "corner", "full"):
                    page.goto(f"{base}/matches/{mid}/overlay/?layout={layout}&lang={lang}")
                    page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=5000)
                    page.evaluate(WORST.replace("SNOOKERS", repr(snookers)))
                    frames(page)  # the resize handler has run and its result is laid out
                    assert page.evaluate(CLIPPED) == [], (lang, layout)
                    page.add_style_tag(content="html { background: radial-gradient(#1b5e20, #000) !important; }")
                    page.screenshot(path=f"/tmp/h18-overlay-{layout}-{lang}.png")
            # ?position= : the full layout at the top right, the lower third at the top
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


# Each name's size, whether any of it is cut or overflows its column, and whether it touches its score.
NAMES = """() => [...document.querySelectorAll('#ov-live .ov-name')].map(n => {
  const r = n.getBoundingClientRect(), who = n.closest('.ov-who'), w = who.getBoundingClientRect();
  const s = n.closest('.ov-p').querySelector('.ov-score').getBoundingClientRect();
  return {size: parseFloat(getComputedStyle(n).fontSize), lines: Math.round(r.height / parseFloat(getComputedStyle(n).lineHeight)),
    cut: n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1 || who.scrollHeight > who.clientHeight + 1,
    outside: r.left < w.left - 1 || r.right > w.right + 1 || r.top < w.top - 1 || r.bottom > w.bottom + 1,
    on_score: r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom};
})"""
# Every box of the overlay that is shown, as [selector, left, top, right, bottom], when it leaves the frame.
OUTSIDE = """() => [...document.querySelectorAll('.ov, .ov-bar, .ov-sub, .ov-p, .ov-frames, .ov-pops, .ov-stats')]
  .filter(el => el.getClientRects().length).map(el => [el.className, el.getBoundingClientRect()])
  .filter(([c, r]) => r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5)
  .map(([c, r]) => [c, Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)])"""
BAR_H = "() => document.querySelector('#ov-live .ov-bar').getBoundingClientRect().height"
INITIALS = "() => [...document.querySelectorAll('#ov-live .ov-photo')].map(p => p.getClientRects().length ? p.textContent.trim() : null)"
UP = "() => document.getElementById('conn').classList.contains('up')"
# the readable floor of a name at 1080p, in CSS px of a 1920x1080 source (ops.css --fit-min)
FLOOR = {"lower-third": 24, "corner": 20, "full": 30}
LONG = "Maximiliano Albuquerque Figueiredo"
LONG_CLUB = "Associação Recreativa e Cultural dos Bancários de Minas"
# the full layout's clubs: [text, px, cut] (a long club shrank alone to 12.6 px beside the other's 26)
CLUBS = """() => [...document.querySelectorAll('#ov-live .ov-club > span')].filter(e => e.getClientRects().length)
  .map(e => [e.textContent.trim(), parseFloat(getComputedStyle(e).fontSize),
             e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1])"""


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class OverlayNamesScaleTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()

    def open(self, page, url):
        page.goto(self.live_server_url + url)
        page.wait_for_function(UP, timeout=5000)
        frames(page)

    def test_long_names_keep_a_floor_the_bar_stays_in_the_frame_and_grows_with_4k(self):
        from playwright.sync_api import sync_playwright

        long_mid = create_match(LONG, "Bia Lima", first_breaker=0, table="Mesa 7").match.pk
        short_mid = create_match("Ana Souza", "Bia Lima", first_breaker=0).match.pk
        table = Table.objects.get(name="Mesa 7").pk
        Player.objects.filter(name=LONG).update(club=LONG_CLUB)
        Player.objects.filter(name="Bia Lima").update(club="Clube Pinheiros")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            sizes_1080 = {}
            for layout in ("lower-third", "corner", "full"):
                self.open(page, f"/matches/{short_mid}/overlay/?layout={layout}")
                short = page.evaluate(NAMES)
                short_bar = page.evaluate(BAR_H)
                self.open(page, f"/matches/{long_mid}/overlay/?layout={layout}&lang=en")
                names = page.evaluate(NAMES)
                sizes_1080[layout] = names[0]["size"]
                # one size for both names, never below the layout's floor; a long name takes a
                # second line instead, inside its column, off the scores, the bar as high as ever
                assert names[0]["size"] == names[1]["size"] >= FLOOR[layout], (layout, names, short)
                assert not any(n["cut"] or n["outside"] or n["on_score"] for n in names), (layout, names)
                assert page.evaluate(BAR_H) == short_bar, layout
                if layout == "full":  # no photo: the player's initial in the circle, as on the cards
                    assert page.evaluate(INITIALS) == ["M", "B"]
                    # both clubs at one size, 20 px at the least, a second line rather than cut
                    clubs = page.evaluate(CLUBS)
                    assert len(clubs) == 2 and clubs[0][1] == clubs[1][1] >= 20, clubs
                    assert not any(cut for *_, cut in clubs), clubs
                page.add_style_tag(content="html { background: radial-gradient(#1b5e20, #000) !important; }")
                page.screenshot(path=f"shots/overlay-long-name-{layout}.png")
            # every advertised scale, every layout and corner: all of it inside the 1920x1080 frame
            for layout, position, scale in (("lower-third", "", 1.5), ("lower-third", "top-right", 4),
                                            ("corner", "bottom-right", 4), ("full", "", 1.5), ("full", "top-left", 4),
                                            ("lower-third", "", 0.25)):
                self.open(page, f"/tables/{table}/overlay/?lang=en&layout={layout}&position={position}&scale={scale}")
                page.evaluate("() => { document.getElementById('ov-ctl').dataset.stats = '1'; }")
                page.evaluate(WORST.replace("SNOOKERS", repr("Snookers")))
                frames(page)
                assert page.evaluate(OUTSIDE) == [], (layout, position, scale)
                assert page.evaluate(CLIPPED) == [], (layout, position, scale)
                if scale == 1.5:
                    page.screenshot(path=f"shots/overlay-scale-1.5-{layout}-en.png")
            # a 3840x2160 source: the 1080p overlay at twice the size
            self.open(page, f"/matches/{long_mid}/overlay/?lang=en")
            box_1080 = page.evaluate(BOX)
            page.set_viewport_size({"width": 3840, "height": 2160})
            frames(page)
            page.wait_for_function("w => document.querySelector('.ov').getBoundingClientRect().right > w", arg=box_1080[2] * 1.5, timeout=5000)
            box_4k = page.evaluate(BOX)
            assert [round(v) for v in box_4k] == [round(2 * v) for v in box_1080], (box_1080, box_4k)
            names = page.evaluate(NAMES)
            assert names[0]["size"] == names[1]["size"] == 2 * sizes_1080["lower-third"], names
            page.evaluate(WORST.replace("SNOOKERS", repr("Snookers")))
            frames(page)
            assert page.evaluate(CLIPPED) == [] and page.evaluate(OUTSIDE) == []
            page.screenshot(path="shots/overlay-4k-en.png")
