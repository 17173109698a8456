"""A table's stream graphics in Chromium (issue 18, item 3): each graphic is shown and hidden
through the table's control endpoint and arrives by push (no reload); with long names, in
Portuguese and English, at 1920×1080 (and scaled to 3840×2160 and 1280×720) no text box is cut
off, nothing spills out of its bar or card and no label is below 26 px of the stage; the page's
background is transparent; the bars move with ``?position=``. Screenshots go to ``shots/`` (not
committed)."""
from __future__ import annotations

import io
import pathlib
import tempfile

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from browser import ARGS, CHROMIUM, require_chromium

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
LONG = ["Igor Martins de Albuquerque Cavalcanti Neto", "Maria Eduarda Fernandes de Oliveira Santos",
        "Christopher Alexander Wellington-Smythe III", "Ana Beatriz Nascimento dos Santos Pereira"]
CLUB = "Associação Atlética Recreativa de Sinuca do Vale do Paraíba"
COMPETITION = "Circuito Paulista de Sinuca Brasileira · Etapa de Santos"
ORDER = ("ticker", "sponsors", "next", "holding", "intro", "h2h", "bracket", "group")
CLIPPED = """() => {
  const out = [];
  for (const el of document.querySelectorAll('#gfx-stage [data-fit]'))
    if (el.getClientRects().length && el.scrollWidth > el.clientWidth) out.push(el.textContent.trim());
  for (const el of document.querySelectorAll('#gfx-stage .grp th, #gfx-stage .grp td, #gfx-stage .tk-score, #gfx-stage .res-s'))
    if (el.getClientRects().length && el.scrollWidth > el.clientWidth) out.push('cell ' + el.textContent.trim());
  for (const el of document.querySelectorAll('#gfx-stage .gfx-bar, #gfx-stage .gfx-card, #gfx-stage .tk-item, #gfx-stage .res, #gfx-stage .br-m'))
    if (el.getClientRects().length && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1))
      out.push('box ' + el.className);
  const boxes = [...document.querySelectorAll('#gfx-stage .gfx-bar, #gfx-stage .gfx-card')].filter(e => e.getClientRects().length);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].getBoundingClientRect(), b = boxes[j].getBoundingClientRect();
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
      out.push('overlap ' + boxes[i].dataset.gfx + ' ' + boxes[j].dataset.gfx);
  }
  return out;
}"""
# rows whose two names are at different sizes (screenshots: on the holding card's results a long
# name shrunk alone beside its opponent at full size)
UNEVEN = """() => [...document.querySelectorAll('#gfx-stage .tk-item, #gfx-stage .res, #gfx-stage .vs, #gfx-stage .br-m')]
  .filter(r => r.getClientRects().length)
  .map(r => [...r.querySelectorAll('.tk-name, .res-n, .pl-name, .br-n')].filter(n => n.getClientRects().length))
  .filter(ns => ns.length > 1 && new Set(ns.map(n => getComputedStyle(n).fontSize)).size > 1)
  .map(ns => ns.map(n => n.textContent.trim() + ' ' + getComputedStyle(n).fontSize).join(' | '))"""
# labels of the stage below 26 px (its 1920×1080 px, whatever the stage's scale): the intro's record
# ("Jogos disputados" 17 px), a bracket box's code ("J11" 18.6), a group table's heads (25.5) and
# the ticker's tag ("OUTRAS MESAS" 20) were smaller
SMALL_LABELS = """() => [...document.querySelectorAll('#gfx-stage :is(.tk-tag, .tk-table, .tk-state, .rec dt, .br-code, .br-name, .grp th, .res-t, .res-c)')]
  .filter(e => e.getClientRects().length && parseFloat(getComputedStyle(e).fontSize) < 26)
  .map(e => [e.textContent.trim(), parseFloat(getComputedStyle(e).fontSize)])"""
# names and the competition's line of the stage below 26 px: the ticker's names were 23.1–24.7 px,
# the holding card's results 23.8 and the intro's line under the club 22.4 (they take a second line)
SMALL_NAMES = """() => [...document.querySelectorAll('#gfx-stage :is(.tk-name, .res-n, .card-sub, .pl-name, .intro-name)')]
  .filter(e => e.getClientRects().length && parseFloat(getComputedStyle(e).fontSize) < 26)
  .map(e => [e.textContent.trim(), parseFloat(getComputedStyle(e).fontSize)])"""
TRANSPARENT = """() => [getComputedStyle(document.documentElement).backgroundColor,
                       getComputedStyle(document.body).backgroundColor]"""


def png(colour, size=(400, 160)) -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", size, colour)
    ImageDraw.Draw(img).rectangle((20, 20, size[0] - 20, size[1] - 20), outline=(255, 255, 255), width=8)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}},
                   MEDIA_ROOT=tempfile.mkdtemp(prefix="sinuca-media-"))
class GraphicsTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        SHOTS.mkdir(exist_ok=True)

    def event_day(self) -> tuple[int, str]:
        """The issue-17 event (8 players, groups then a knockout on Mesa 1 and Mesa 2) with the
        players renamed to long names and given long clubs; two more tables, one live, one
        finished; two sponsors; returns Mesa 1's id and its overlay token."""
        from django.core.files.base import ContentFile

        from scoreboard.core import competitions, log
        from scoreboard.core.credentials import issue_overlay_token
        from scoreboard.core.matches import new_match
        from scoreboard.core.models import Player, Sponsor, Table

        from test_competition_event import EVENT

        # a long competition name: the intro card's line under the club ("<competition> · J1 ·
        # Grupo A · Jogo de abertura") went to 22.4 px on one line
        competitions.create_competition({**EVENT, "name": COMPETITION})
        table = Table.objects.get(name="Mesa 1")
        m = table.match_set.order_by("pk").first()
        Player.objects.filter(pk=m.player_a_id).update(name=LONG[0], club=CLUB, country="BR")
        Player.objects.filter(pk=m.player_b_id).update(name=LONG[1], club=CLUB, country="PT")
        Player.objects.get(pk=m.player_a_id).photo.save("igor.png", ContentFile(png((30, 80, 160), (256, 256))))
        live = new_match({"players": [LONG[2], LONG[3]], "reds": 6, "frames_to_win": 3, "first_breaker": 0},
                         table="Mesa 3")
        for i, ev in enumerate([{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}]):
            log.append_event(live.pk, ev, expected_seq=i)
        done = new_match({"players": [LONG[3], LONG[0]], "reds": 6, "frames_to_win": 1, "first_breaker": 0},
                         table="Mesa 4")
        for i, ev in enumerate([{"type": "pot", "balls": [1]}, {"type": "concede", "player": 1}]):
            log.append_event(done.pk, ev, expected_seq=i)
        for name, colour, t in (("Banco do Vale", (200, 30, 30), table), ("Cervejaria Serrana", (20, 120, 40), None)):
            s = Sponsor(name=name, table=t)
            s.image.save("logo.png", ContentFile(png(colour)), save=False)
            s.save()
        return table.pk, issue_overlay_token(table)

    def test_each_graphic_shows_and_hides_by_push_and_nothing_clips(self):
        from playwright.sync_api import sync_playwright
        from PIL import Image

        tid, token = self.event_day()
        base = self.live_server_url
        http = httpx.Client(timeout=10)

        def switch(**body):
            r = http.post(f"{base}/api/tables/{tid}/overlay/", json=body, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text
            return r.json()["graphics"]

        def fits(page, what):
            page.evaluate("() => window.gfxRefit()")
            assert page.evaluate(CLIPPED) == [], what
            assert page.evaluate(UNEVEN) == [], what
            assert page.evaluate(SMALL_LABELS) == [], what
            assert page.evaluate(SMALL_NAMES) == [], what

        switch(countdown="23:59", player="a")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for lang in ("pt-br", "en"):
                page = browser.new_page(viewport={"width": 1920, "height": 1080})
                page.goto(f"{base}/tables/{tid}/graphics/?lang={lang}")
                page.wait_for_selector("#gfx-stage")
                assert page.evaluate(TRANSPARENT) == ["rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)"]
                assert page.query_selector("[data-gfx]") is None  # nothing until switched
                for name in ORDER:
                    g = switch(**{name: "show"})
                    page.wait_for_selector(f"[data-gfx={name}]", timeout=30000)  # pushed: no reload
                    if name in ("next", "holding", "intro", "h2h", "bracket", "group"):
                        # one card at a time: the one shown before has left
                        assert [k for k in ORDER[2:] if g[k]] == [name]
                        page.wait_for_function(
                            f"() => [...document.querySelectorAll('.gfx-card')].map(e => e.dataset.gfx).join() === '{name}'",
                            timeout=30000)
                    if name == "ticker":
                        for n in (0, 1, 2):  # one page per other table (Mesa 2, 3, 4)
                            page.evaluate(f"() => window.gfxShowPage({n})")
                            fits(page, (lang, name, n))
                            if lang == "pt-br":  # the pages with the long names
                                page.screenshot(path=str(SHOTS / f"graphics-ticker-page{n}-1920.png"), omit_background=True)
                        page.evaluate("() => window.gfxShowPage(null)")
                        text = page.inner_text(".gfx-ticker")
                    fits(page, (lang, name))
                    if lang == "pt-br":
                        page.screenshot(path=str(SHOTS / f"graphics-{name}-1920.png"), omit_background=True)
                    else:
                        page.screenshot(path=str(SHOTS / f"graphics-{name}-en-1920.png"), omit_background=True)
                stage = page.inner_text("#gfx-stage")
                assert LONG[0] in stage and LONG[1] in stage  # the group table holds the Mesa 1 pair
                # hide everything: each leaves by push
                for name in ORDER:
                    switch(**{name: "hide"})
                page.wait_for_function("() => !document.querySelector('[data-gfx]')", timeout=30000)
                page.close()
            # the cards' content, read as a viewer does (Portuguese)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(f"{base}/tables/{tid}/graphics/?lang=pt-br")
            switch(ticker="show", intro="show")
            page.wait_for_selector("[data-gfx=intro]", timeout=30000)
            page.wait_for_selector("[data-gfx=ticker]", timeout=30000)
            ticker = page.inner_text(".gfx-ticker")
            pages = []
            for n in (0, 1, 2):  # one other table per page
                page.evaluate(f"() => window.gfxShowPage({n})")
                pages.append(page.inner_text(".gfx-ticker"))
            page.evaluate("() => window.gfxShowPage(null)")
            assert any("Mesa 3" in t and LONG[2] in t and "AO VIVO" in t and "(8–0)" in t for t in pages), pages
            assert any("Mesa 4" in t and LONG[3] in t and "FINAL" in t and "1–0" in t for t in pages), pages
            assert any("Mesa 2" in t and "A SEGUIR" in t for t in pages), pages
            intro = page.inner_text(".gfx-intro")
            assert LONG[0] in intro and CLUB in intro and "Derrotas" in intro
            # the photo arrives after the card: wait until the browser has decoded it
            page.wait_for_function(
                "() => { const i = document.querySelector('.intro-photo');"
                " return i && i.complete && i.naturalWidth > 0 }", timeout=30000)
            assert page.evaluate("() => document.querySelector('.intro-photo').naturalWidth") == 256
            # the same stage scaled: 4K and 720p, nothing clips, the stage fills the viewport
            for w, h in ((3840, 2160), (1280, 720)):
                page.set_viewport_size({"width": w, "height": h})
                fits(page, (w, h))
                box = page.evaluate("() => { const r = document.getElementById('gfx-root').getBoundingClientRect(); return [r.width, r.height]; }")
                assert [round(x) for x in box] == [w, h], box
                for name in ORDER:  # every graphic, for a person to look at each size
                    switch(**{name: "show"})
                    page.wait_for_selector(f"[data-gfx={name}]", timeout=30000)
                    fits(page, (w, h, name))
                    page.screenshot(path=str(SHOTS / f"graphics-{name}-{w}.png"), omit_background=True)
            # transparent where nothing is drawn: a corner pixel of the screenshot has alpha 0
            page.set_viewport_size({"width": 1920, "height": 1080})
            shot = page.screenshot(omit_background=True)
            assert Image.open(io.BytesIO(shot)).convert("RGBA").getpixel((5, 1075))[3] == 0
            # ?position=bottom-left: the ticker at the bottom, the sponsor slot on the left
            switch(sponsors="show")
            page.goto(f"{base}/tables/{tid}/graphics/?position=bottom-left")
            page.wait_for_selector("[data-gfx=sponsors]")
            tk = page.evaluate("() => document.querySelector('.gfx-ticker').getBoundingClientRect().bottom")
            sp = page.evaluate("() => document.querySelector('.gfx-sponsors').getBoundingClientRect().left")
            assert tk > 1000 and sp < 100, (tk, sp)
            fits(page, "bottom-left")
            shown = "() => [...document.querySelectorAll('.sp-img')].filter(e => !e.hidden).map(e => e.alt)"
            seen = []
            for n in (0, 1):  # the sponsors rotate one at a time, in their order (then as added)
                page.evaluate(f"() => window.gfxShowPage({n})")
                seen.append(page.evaluate(shown))
            assert seen == [["Banco do Vale"], ["Cervejaria Serrana"]], seen
            page.evaluate("() => window.gfxShowPage(null)")
            page.screenshot(path=str(SHOTS / "graphics-bottom-left-1920.png"), omit_background=True)
            browser.close()

    def test_the_holding_card_with_a_full_day_of_long_names_overprints_nothing(self):
        """Eight results of the day, each with two long names that take a second line: the
        holding card drew a wrapped name over the row above. Every text box of the card (title,
        countdown, heading, each shown row's table, names and score) is measured at 1920×1080
        and 3840×2160: no two overlap and each lies inside the card."""
        from playwright.sync_api import sync_playwright

        from scoreboard.core import log
        from scoreboard.core.credentials import issue_overlay_token
        from scoreboard.core.matches import new_match
        from scoreboard.core.models import Table

        names = [f"{first} {LONG[i % 4]}" for i, first in enumerate(
            ["Antônio", "Bernardo", "Cecília", "Diogo", "Eduarda", "Felipe", "Gabriela", "Heitor",
             "Isadora", "João", "Kátia", "Lucas", "Marina", "Nicolau", "Otávio", "Paula"])]
        for k in range(8):
            m = new_match({"players": names[2 * k:2 * k + 2], "reds": 6, "frames_to_win": 1, "first_breaker": 0},
                          table=f"Mesa {k + 1}")
            for i, ev in enumerate([{"type": "pot", "balls": [1]}, {"type": "concede", "player": 1}]):
                log.append_event(m.pk, ev, expected_seq=i)
        table = Table.objects.get(name="Mesa 1")
        r = httpx.post(f"{self.live_server_url}/api/tables/{table.pk}/overlay/", json={"holding": "show", "countdown": "23:59"},
                       headers={"Authorization": f"Bearer {issue_overlay_token(table)}"}, timeout=10)
        assert r.status_code == 200, r.text
        overlaps = """() => {
          const card = document.querySelector('.gfx-holding').getBoundingClientRect();
          const boxes = [...document.querySelectorAll('.gfx-holding :is(.card-title, .card-count span, .card-count b, .card-sub, .res-t, .res-n, .res-s)')]
            .filter(e => e.getClientRects().length && e.textContent.trim())
            .map(e => { const range = document.createRange(); range.selectNodeContents(e);
                        return [e.textContent.trim(), range.getBoundingClientRect()]; });
          const out = [];
          for (const el of document.querySelectorAll('.gfx-holding .card-count b')) {  // the clock inside its bar
            const bar = el.parentElement.getBoundingClientRect(), range = document.createRange();
            range.selectNodeContents(el);
            const b = range.getBoundingClientRect();
            if (b.left < bar.left - 1 || b.right > bar.right + 1) out.push('clock ' + el.textContent);
          }
          for (const [t, b] of boxes)
            if (b.left < card.left - 1 || b.right > card.right + 1 || b.top < card.top - 1 || b.bottom > card.bottom + 1)
              out.push('outside ' + t);
          for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i][1], b = boxes[j][1];
            if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
              out.push(boxes[i][0] + ' × ' + boxes[j][0]);
          }
          return [out, boxes.filter(([t]) => /Mesa \\d/.test(t)).length];
        }"""
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(f"{self.live_server_url}/tables/{table.pk}/graphics/?lang=pt-br")
            page.wait_for_selector("[data-gfx=holding] .res-n", timeout=30000)
            for w, h in ((1920, 1080), (3840, 2160)):
                page.set_viewport_size({"width": w, "height": h})
                page.evaluate("() => window.gfxRefit()")
                bad, rows = page.evaluate(overlaps)
                assert bad == [] and rows >= 4, (w, bad, rows)
                assert page.evaluate(SMALL_NAMES) == [], w
            page.screenshot(path=str(SHOTS / "graphics-holding-full-day-3840.png"), omit_background=True)
            browser.close()
