"""The table TV's type sizes in Chromium (issue 18): both names at one size, every label readable
from the back of the room (at least 26 px at 1920x1080), nothing clipped at 720p, 1080p and 4K."""
from __future__ import annotations

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core.matches import create_match

from browser import ARGS, CHROMIUM, frames, require_chromium
from test_browser_screens import SHOTS, TV_FITS, TV_SIZES

# Font size in px of every visible text leaf of the board that is a label (not a name, a value or a
# description), with its text.
LABELS = """() => [...document.querySelectorAll(
    '.tv-facts .k, .tv-frames small, .tv-hb, .tv-last .k, .tv-history .k, .tv-head, .tv-at')]
  .filter(e => e.textContent.trim() && e.getClientRects().length)
  .map(e => [e.textContent.trim().replace(/\\s+/g, ' ').slice(0, 30), parseFloat(getComputedStyle(e).fontSize)])"""
NAMES = "() => [...document.querySelectorAll('.tv-name')].map(e => parseFloat(getComputedStyle(e).fontSize))"
# Each visible SVG text (the frame's worm) as drawn: its font size times the picture's scale, in px.
SVG_TEXT = """() => [...document.querySelectorAll('svg text')].filter(t => t.getClientRects().length)
  .map(t => [t.textContent, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a])"""
# The statistics between frames, the last action and the frames row: [text, px] of each visible text.
BETWEEN_TEXT = """() => [...document.querySelectorAll('.tv-stats th, .tv-stats td, .tv-last span, .tv-history .k, .tv-history small, .tv-hb')]
  .filter(e => e.textContent.trim() && e.getClientRects().length)
  .map(e => [e.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(e).fontSize)])"""
# Words a line break cut in two ("encaçap / adas"), in the statistics and the last action.
CUT_WORDS = """() => {
  const cut = [];
  for (const el of document.querySelectorAll('.tv-stats th, .tv-stats td, .tv-last span')) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const re = /[^\\s-]+/g;
      let m;
      while ((m = re.exec(n.textContent))) {
        const r = document.createRange();
        r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        if (new Set([...r.getClientRects()].filter(x => x.width).map(x => Math.round(x.top))).size > 1) cut.push(m[0]);
      }
    }
  }
  return cut;
}"""
# Text cut off: a box of the last action or the statistics whose content is taller or wider than it.
CLIPPED = """() => [...document.querySelectorAll('.tv-last, .tv-last span, .tv-stats, .tv-stats th, .tv-stats td')]
  .filter(e => e.getClientRects().length && (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1))
  .map(e => [e.className || e.tagName, e.textContent.trim().slice(0, 30), e.scrollHeight, e.clientHeight])"""

# Rows of the TV board whose boxes overlap (what one shows is under another).
OVERLAPS = """() => {
  const rows = [...document.getElementById('tv-live').querySelectorAll('.tv-players, .tv-facts, .tv-banners, .tv-last, .tv-history')]
    .filter(e => e.getClientRects().length && e.getBoundingClientRect().height > 0);
  const out = [];
  for (let i = 0; i < rows.length; i++) for (let j = i + 1; j < rows.length; j++) {
    const a = rows[i].getBoundingClientRect(), b = rows[j].getBoundingClientRect();
    if (a.top < b.bottom - 1 && b.top < a.bottom - 1) out.push([rows[i].className, rows[j].className]);
  }
  return out;
}"""


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
                # one page per language, loaded afresh at each size (set before the load)
                page = browser.new_page(locale=locale)
                for w, h in TV_SIZES:
                    page.set_viewport_size({"width": w, "height": h})
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

    def test_between_frames_on_a_phone_and_a_tv(self):
        """A table's TV after a 147 ended frame 1: on a phone held upright the statistics, the
        worm and the last action are read at a phone's sizes (the names were 6 and 11 px, the
        worm's text 3 px, labels broke inside words, the last action was cut at its top and
        bottom); on a 1080p TV the worm's text, the frames row's numbers and a long foul's last
        action keep 26 px (they were 15, 25 and 19 px)."""
        from playwright.sync_api import sync_playwright

        from scoreboard.core import log
        from scoreboard.core.models import Table

        log._engines.clear()
        mid = create_match("Maximiliano Albuquerque", "Ronnie Souza", frames_to_win=2, first_breaker=0,
                           table="Mesa 3").match.pk
        for ball in [1, 7] * 15 + [2, 3, 4, 5, 6, 7]:
            log.append_event(mid, {"type": "pot", "balls": [ball]})
        url = f"{self.live_server_url}/tables/{Table.objects.get(name='Mesa 3').pk}/tv/"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR").new_page()
            page.goto(url)
            page.wait_for_function("() => document.getElementById('conn').classList.contains('up')"
                                   " && document.querySelector('.tv-stats svg')", timeout=10000)
            page.screenshot(path=str(SHOTS / "tv-between-390x844.png"), full_page=True)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
            small = [(t, s) for t, s in page.evaluate(BETWEEN_TEXT) if s < 16]
            assert small == [], small
            names = page.evaluate("() => [...document.querySelectorAll('.tv-stats thead th[data-fit]')]"
                                  ".map(e => parseFloat(getComputedStyle(e).fontSize))")
            assert len(names) == 2 and names[0] == names[1] >= 18, names
            chart = page.evaluate(SVG_TEXT)
            assert chart and min(s for _, s in chart) >= 12, chart
            assert page.evaluate(CUT_WORDS) == []
            assert page.evaluate(CLIPPED) == []
            for w, h in TV_SIZES:
                page.set_viewport_size({"width": w, "height": h})
                page.wait_for_function(f"() => innerWidth === {w}")
                page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
                assert page.evaluate(TV_FITS) == [], (w, h, page.evaluate(TV_FITS))
                least = 26 * h / 1080 - 0.05  # 26 px at 1080p, in proportion at the other sizes
                small = [(t, s) for t, s in page.evaluate(LABELS) + page.evaluate(SVG_TEXT)
                         + page.evaluate(BETWEEN_TEXT) if s < least]
                assert small == [], (w, h, small)
                page.screenshot(path=str(SHOTS / f"tv-between-{w}x{h}.png"))
            # frame 2: a foul with its kind and a replay offered, the longest usual last action
            log.append_event(mid, {"type": "next_frame"})
            seq = log.append_event(mid, {"type": "foul", "ball": 5, "kind": "ball_on_not_hit_first", "retorno": True}).seq
            page.set_viewport_size({"width": 1920, "height": 1080})
            page.goto(url)
            page.wait_for_function(f"() => document.getElementById('live-seq').dataset.seq === '{seq}'"
                                   " && document.getElementById('conn').classList.contains('up')", timeout=10000)
            last = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.tv-last [data-fit]')).fontSize)")
            assert last >= 26, last
            assert page.evaluate(TV_FITS) == [], page.evaluate(TV_FITS)
            assert page.evaluate(CLIPPED) == []
            page.screenshot(path=str(SHOTS / "tv-foul-1920x1080.png"))
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_function("() => innerWidth === 390")
            assert page.evaluate(CUT_WORDS) == []
            # in play on a phone the last action was cut after three lines, under the banners:
            # the board grows and the page scrolls, as between frames, and no row covers another
            assert page.evaluate(CLIPPED) == [], page.evaluate(CLIPPED)
            assert page.evaluate(OVERLAPS) == [], page.evaluate(OVERLAPS)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
            page.screenshot(path=str(SHOTS / "tv-foul-390x844.png"), full_page=True)
            browser.close()


# A table's long names and clubs (a user's re-check): the players' names, their clubs, and on the
# board between matches the last result's names, each [text, px, cut] (cut: wider or taller than its box).
LONG_A, LONG_B = "Bartholomeu Vasconcellos de Albuquerque Neto", "Hugo Prates Cavalcanti Filho"
LONG_CLUB = "Associação Recreativa e Cultural dos Bancários de Minas"
BOXED = """sel => [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length)
  .map(e => [e.textContent.trim(), parseFloat(getComputedStyle(e).fontSize),
             e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1])"""
# The frame clock in the header: [its label, whether it is stopped, what it shows, the stopped length].
FRAME_CLOCK = """() => { const b = document.querySelector('.tv-clocks .tv-clock');
  const stop = Date.parse(b.dataset.clockStop), since = Date.parse(b.dataset.clockSince), t = Math.floor((stop - since) / 1000);
  return [b.parentElement.firstChild.textContent.trim(), !isNaN(stop), b.textContent, Math.floor(t / 60) + ':' + String(t % 60).padStart(2, '0')]; }"""


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class LongNamesTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()

    def test_long_names_and_clubs_on_a_phone_and_between_matches(self):
        """A table's TV on a phone in play and between frames: the names were 11–13 px and a long
        club 8–12 px on one line (the name cut at its end in play); now the names take two lines
        at 18 px or more, both at one size, and a club wraps at 16 px. Between frames the header's
        frame clock names the frame it timed, stopped at its length ("Partida 0:00" read as a
        frame just started). The match page's statistics, whose headers are the names, made the
        page 406–417 px wide. Between matches at 1080p the last result's names ended in "…"."""
        from playwright.sync_api import sync_playwright

        from scoreboard.core import log
        from scoreboard.core.matches import new_match
        from scoreboard.core.models import Player, Table

        log._engines.clear()
        m = create_match(LONG_A, LONG_B, frames_to_win=2, first_breaker=0, table="Mesa 9").match
        Player.objects.filter(pk=m.player_a_id).update(club=LONG_CLUB, country="BR")
        Player.objects.filter(pk=m.player_b_id).update(club="Clube Pinheiros")
        for ball in (1, 7, 1):
            log.append_event(m.pk, {"type": "pot", "balls": [ball]})
        tid = Table.objects.get(name="Mesa 9").pk
        base = self.live_server_url
        up = "() => document.getElementById('conn').classList.contains('up')"

        def phone_board(page, what):
            names, clubs = page.evaluate(BOXED, ".tv-name"), page.evaluate(BOXED, ".tv-club > span")
            assert len(names) == 2 and names[0][1] == names[1][1] >= 18 and not any(c for *_, c in names), (what, names)
            assert len(clubs) == 2 and min(s for _, s, _ in clubs) >= 16 and not any(c for *_, c in clubs), (what, clubs)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, what

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR").new_page()
            for lang in ("pt-br", "en"):
                page.goto(f"{base}/tables/{tid}/tv/?lang={lang}")
                page.wait_for_function(up, timeout=10000)
                phone_board(page, ("play", lang))
            page.screenshot(path=str(SHOTS / "tv-long-names-390x844.png"), full_page=True)
            log.append_event(m.pk, {"type": "concede", "player": 1})
            for lang, frame in (("pt-br", "Partida 1"), ("en", "Frame 1")):
                page.goto(f"{base}/tables/{tid}/tv/?lang={lang}")
                page.wait_for_function(up + " && document.querySelector('.tv-stats')", timeout=10000)
                phone_board(page, ("between", lang))
                label, stopped, shown, length = page.evaluate(FRAME_CLOCK)
                assert (label, stopped, shown) == (frame, True, length), (lang, label, stopped, shown, length)
                page.screenshot(path=str(SHOTS / f"tv-long-names-between-{lang}-390x844.png"), full_page=True)
                # the match page: the statistics' headers are the names
                page.goto(f"{base}/matches/{m.pk}/?lang={lang}")
                page.wait_for_selector("#match-stats")
                assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, lang
            page.screenshot(path=str(SHOTS / "match-long-names-390x844.png"), full_page=True)
            # between matches, the called match after it: every name whole at 1080p, at one size
            log.append_event(m.pk, {"type": "next_frame"})
            log.append_event(m.pk, {"type": "concede_match", "player": 1})
            new_match({"players": [LONG_B, LONG_A], "reds": 6, "frames_to_win": 1, "first_breaker": 0},
                      table=Table.objects.get(pk=tid), started=False)
            page.set_viewport_size({"width": 1920, "height": 1080})
            page.goto(f"{base}/tables/{tid}/tv/")
            page.wait_for_selector(".idle-board")
            frames(page)
            names = page.evaluate(BOXED, ".idle-name")
            assert len(names) == 2 and names[0][1] == names[1][1] >= 26 and not any(c for *_, c in names), names
            blocks = page.evaluate(BOXED, ".idle-block")
            assert not any(c for *_, c in blocks), blocks
            page.screenshot(path=str(SHOTS / "tv-idle-long-names-1920x1080.png"))
            browser.close()
