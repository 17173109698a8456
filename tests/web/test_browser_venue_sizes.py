"""The venue page ``/`` grows with the screen, measured in Chromium: on a 3840×2160 TV its
scores, names and headings are at least 1.6× their size on a 1920×1080 one, while 1280×720 and a
390×844 phone keep their size, with no sideways scrolling and no name cut.

Screenshots go to ``shots/`` (not committed) for a person to look at.
"""
from __future__ import annotations

import pathlib

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.matches import new_match

from browser import ARGS, CHROMIUM, require_chromium

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
SIZES = ((390, 844), (1280, 720), (1920, 1080), (3840, 2160))
NAME = "Igor Martins de Albuquerque Cavalcanti Neto"  # a card that takes two lines for it
# the venue's text a spectator reads across the room, by selector: font size in px of the first one
VENUE_TYPE = """() => Object.fromEntries(['.mc-score', '.mc-name', '.mc-table', '.venue-board h2', '.venue-head h1']
  .map(s => [s, parseFloat(getComputedStyle(document.querySelector(s)).fontSize)]))"""
VENUE_FITS = """() => {
  const out = [];
  if (document.documentElement.scrollWidth > innerWidth) out.push('page ' + document.documentElement.scrollWidth);
  for (const el of document.querySelectorAll('.mcard, .mc-name, .mc-score, .next-list li'))
    if (el.scrollWidth > el.clientWidth + 1) out.push(el.className + ' ' + el.textContent.trim().slice(0, 40));
  for (const el of document.querySelectorAll('.mcard')) {
    const r = el.getBoundingClientRect();
    if (r.left < 0 || r.right > innerWidth) out.push('card outside ' + r.left + ' ' + r.right);
  }
  return out;
}"""

@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class VenueSizesTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        SHOTS.mkdir(exist_ok=True)

    def test_venue_grows_with_the_screen(self):
        from playwright.sync_api import sync_playwright

        cfg = {"reds": 6, "frames_to_win": 2, "first_breaker": 0}
        live = new_match({**cfg, "players": [NAME, "Bia Lima"]}, table="Mesa 1")
        for i, ev in enumerate([{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}]):
            log.append_event(live.pk, ev, expected_seq=i)
        new_match({**cfg, "players": ["Caio Prado", "Davi Reis"]}, table="Mesa 2")
        new_match({**cfg, "players": ["Ana Souza", "Eva Rocha"]}, table="Mesa 1", started=False)
        done = new_match({**cfg, "players": ["Fábio Nunes", "Gil Torres"]}, table="Mesa 3")
        log.append_event(done.pk, {"type": "concede_match", "player": 1}, expected_seq=0)
        sizes = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for w, h in SIZES:
                page = browser.new_page(viewport={"width": w, "height": h})
                page.goto(self.live_server_url + "/")
                page.wait_for_selector(f'[data-match="{live.pk}"]')
                sizes[w] = page.evaluate(VENUE_TYPE)
                assert page.evaluate(VENUE_FITS) == [], (w, h)
                page.screenshot(path=str(SHOTS / f"venue-{w}x{h}.png"))
                page.close()
            browser.close()
        print("venue type px:", sizes)
        for sel, px in sizes[1920].items():
            # across a room at 4K: the same share of the screen as at 1080p, near enough
            assert sizes[3840][sel] >= 1.6 * px, (sel, sizes[3840][sel], px)
            # a laptop and a phone keep the sizes that suit them
            assert sizes[1280][sel] == px, (sel, sizes[1280][sel], px)
        assert sizes[390][".mc-score"] >= 24 and sizes[390][".mc-name"] >= 18, sizes[390]

    def test_jumbotron_stage_label_and_scores_at_1080p(self):
        """The jumbotron at 1920×1080: a card's round ("J1 · Grupo A · Jogo de abertura") is a
        label of 26 px at the least (it was 25.7), and a card's scores end at one edge inside the
        card: "147" sat 27 px right of the "0" below it, in the card's padding."""
        from playwright.sync_api import sync_playwright

        from scoreboard.core.competitions import create_competition
        from scoreboard.core.matches import create_match
        from scoreboard.core.models import Match

        from test_competition_event import EVENT

        comp = create_competition(EVENT).competition
        j1 = Match.objects.get(fixture__competition=comp, fixture__number=1)
        log.append_event(j1.pk, {"type": "lot", "player": 0})
        log.append_event(j1.pk, {"type": "pot", "balls": [1]})
        mid = create_match("Maximiliano Albuquerque", "Ronnie Souza", frames_to_win=2, first_breaker=0,
                           table="Mesa 3").match.pk
        for ball in [1, 7] * 15 + [2, 3, 4, 5, 6, 7]:
            log.append_event(mid, {"type": "pot", "balls": [ball]})
        # each card's scores: the right edge of each score's text and of its row's content box
        scores = """() => [...document.querySelectorAll('.jt')].filter(c => c.querySelector('.jt-score')).map(c =>
          [...c.querySelectorAll('.jt-score')].map(s => {
            const r = document.createRange(); r.selectNodeContents(s);
            const row = s.parentElement.getBoundingClientRect(), pad = parseFloat(getComputedStyle(s.parentElement).paddingRight);
            return [s.textContent, Math.round(r.getBoundingClientRect().right), Math.round(row.right - pad)];
          }))"""
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="pt-BR").new_page()
            page.goto(self.live_server_url + "/tv/")
            page.wait_for_function("() => [...document.querySelectorAll('.jt-score')].some(e => e.textContent === '147')")
            stage = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.jt-stage')).fontSize)")
            assert stage >= 26, stage
            cards = page.evaluate(scores)
            assert len(cards) == 2, cards
            for rows in cards:
                assert len({right for _, right, _ in rows}) == 1, rows  # one edge
                assert all(right <= inside for _, right, inside in rows), rows
            page.screenshot(path=str(SHOTS / "jumbotron-147-1920x1080.png"))
            browser.close()
