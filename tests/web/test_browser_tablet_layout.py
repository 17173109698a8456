"""The referee tablet looked at as a referee would, at 1280×800, 800×1280 and 1024×768
(screenshots in ``$TABLET_SHOTS``, else ``shots/``): a warning does not wrap its line and push
the board down, "Desfazer…" sits at the same place in a decision as in play, a long log line is
not cut with "…" (a tablet cannot hover), and in portrait the foul dialog's circumstances fit
without scrolling.
"""
from __future__ import annotations

import os
import pathlib

from concurrent.futures import ThreadPoolExecutor

from scoreboard.core import log
from scoreboard.core.matches import create_match

from browser import ARGS, CHROMIUM, frames
from test_browser_tablet_engine import SEQ, SHOTS, EngineCase

OUT = pathlib.Path(os.environ.get("TABLET_SHOTS") or SHOTS)
BOX = "(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"


class LayoutTest(EngineCase):
    def setUp(self):
        super().setUp()
        OUT.mkdir(parents=True, exist_ok=True)
        self.created = create_match("Maria Aparecida dos Santos Oliveira", "Bia Lima", first_breaker=0, reds=15,
                                    frames_to_win=2)
        self.mid = self.created.match.pk
        self.seq = 0

    def append(self, page, event):
        # off Playwright's thread (its event loop): the commit's publisher runs as on the server
        with ThreadPoolExecutor(1) as pool:
            pool.submit(log.append_event, self.mid, event, expected_seq=self.seq).result()
        self.seq += 1
        page.wait_for_function(f"(n) => ({SEQ})() === n", arg=self.seq, timeout=10000)

    def test_the_tablet_at_three_sizes(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser, (1280, 800))
            self.append(page, {"type": "pot", "balls": [1]})
            facts, undo_play = page.evaluate(BOX, "#ref-live .ref-facts"), page.evaluate(BOX, "#ref-live .undo-btn")
            # a disciplinary warning to the seated player: one line still, the board where it was
            self.append(page, {"type": "foul", "kind": "slow_play", "player": 1})
            line = page.locator("#ref-live .ref-frames").nth(1)
            assert line.inner_text() == "partidas: 0 · advertências: 1"
            assert page.evaluate("() => { const e = document.querySelectorAll('#ref-live .ref-frames')[1];"
                                 " return e.scrollWidth <= e.clientWidth + 1 && e.getBoundingClientRect().height < 30; }")
            assert page.evaluate(BOX, "#ref-live .ref-facts") == facts  # it moved ~21 px down before
            page.screenshot(path=str(OUT / "tablet-play-1280x800.png"))
            # a foul: the decision's tall choices, "Desfazer…" where it was in play (~200 px lower before)
            self.append(page, {"type": "foul", "ball": 4, "retorno": True, "snooker": True})
            page.wait_for_selector("#ref-live .decision-list", timeout=5000)
            assert page.evaluate(BOX, "#ref-live .undo-btn") == undo_play
            # a long log line is shown whole, wrapped, never cut with "…"
            assert page.evaluate("""() => [...document.querySelectorAll('#ref-live .ref-log li')].every(li =>
                getComputedStyle(li).textOverflow !== 'ellipsis' && li.scrollWidth <= li.clientWidth + 1)""")
            page.screenshot(path=str(OUT / "tablet-decision-1280x800.png"))

            # the same page resized: one engine load for the three sizes
            for size in ((800, 1280), (1024, 768)):
                page.set_viewport_size({"width": size[0], "height": size[1]})
                frames(page)
                self.append(page, {"type": "decision", "choice": "play"}) if size == (800, 1280) else None
                page.screenshot(path=str(OUT / f"tablet-{size[0]}x{size[1]}.png"))
                page.locator("#ref-live button.foul").first.tap()
                page.wait_for_selector("#foul-dialog[open] #foul-form input[name=retorno]", state="attached",
                                       timeout=10000)
                # the modal's opening is drawn (a screenshot only)
                page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
                frames(page)
                page.screenshot(path=str(OUT / f"tablet-foul-{size[0]}x{size[1]}.png"))
                if size == (800, 1280):
                    # retorno / snooker / agravada above the pinned footer, the dialog not scrolled
                    fits = page.evaluate("""() => {
                      const d = document.getElementById('foul-dialog');
                      const foot = d.querySelector('.foul-actions').getBoundingClientRect().top;
                      return d.scrollTop === 0 && ['snooker', 'retorno', 'aggravated'].every(n =>
                        d.querySelector(`input[name=${n}]`).closest('label').getBoundingClientRect().bottom <= foot);
                    }""")
                    assert fits
                page.locator("#foul-dialog [data-action=close-dialog]").tap()
                page.wait_for_function("() => !document.getElementById('foul-dialog').open", timeout=10000)
            ctx.close()
            browser.close()
