"""The TV and the broadcast overlay in Chromium, during the whole demo final and in a worst case.

The demo final (``demo/final.json``, 187 events) is posted event by event through the API to a
live Daphne server while three TVs (1280x720, 1920x1080, 3840x2160) and the overlay in its three
layouts follow over their sockets (each page loaded once; every check waits for the pushed seq).
At every seq each TV's page must fit its screen (``scrollHeight``/``scrollWidth`` of the document
and of each row, no name or banner clipped) and each overlay bar must keep the box it had at the
start. Then a crafted worst case (every banner at once, 40-character names, three-digit scores,
decider, match over) is pushed into the same TVs. Screenshots go to shots/ for a person to read.
"""
from __future__ import annotations

import json
import pathlib
import tempfile

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings
from django.utils import translation

from scoreboard.core import log
from scoreboard.core.matches import create_match
from scoreboard.core.models import Match, Player
from scoreboard.live import render

from browser import ARGS, CHROMIUM, frames, require_chromium

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "shots"
TV_SIZES = [(1280, 720), (1920, 1080), (3840, 2160)]
LAYOUTS = ["lower-third", "corner", "full"]

# Everything that can overflow on a TV page: the document, each row of the board, each text that
# shrinks to fit. Returns the offenders (empty when the page fits).
TV_FITS = """() => {
  const bad = [], W = innerWidth, H = innerHeight, de = document.documentElement;
  if (de.scrollHeight > H || de.scrollWidth > W) bad.push(`document ${de.scrollWidth}x${de.scrollHeight} > ${W}x${H}`);
  const board = document.getElementById('tv-live');
  const b = board.getBoundingClientRect();
  if (b.bottom > H + 0.5 || b.right > W + 0.5) bad.push(`board ${b.right}x${b.bottom}`);
  for (const row of board.children) {
    const r = row.getBoundingClientRect();
    if (r.bottom > H + 0.5 || r.right > W + 0.5) bad.push(`${row.className} ends at ${r.right}x${r.bottom}`);
    if (row.scrollHeight > row.clientHeight + 1 || row.scrollWidth > row.clientWidth + 1)
      bad.push(`${row.className} content ${row.scrollWidth}x${row.scrollHeight} in ${row.clientWidth}x${row.clientHeight}`);
  }
  for (const el of board.querySelectorAll('[data-fit], .tv-score, .tv-frames, .tv-facts > div, .tv-player, .balls, .tv-club')) {
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
      bad.push(`${el.className || el.tagName} '${el.textContent.trim().slice(0, 30)}' ${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`);
  }
  return bad;
}"""
OV_BOX = """() => ['.ov', '.ov-bar', '.ov-sub'].map(s => {
  const r = document.querySelector(s).getBoundingClientRect();
  return [Math.round(r.x * 100) / 100, Math.round(r.y * 100) / 100, Math.round(r.width * 100) / 100, Math.round(r.height * 100) / 100];
})"""
OV_CLIPPED = """() => [...document.querySelectorAll('#ov-live [data-fit], .ov-score, .ov-frames, .layout-full .ov-club')]
  .filter(el => el.scrollWidth > el.clientWidth + 1).map(el => el.textContent.trim())"""


def seq_is(page, seq: int, timeout: int = 30000) -> None:
    page.wait_for_function(f"() => +document.getElementById('live-seq').dataset.seq === {seq}", timeout=timeout)


# Run a check (a function's source) each time the page applies a new seq, right after the page's
# own listeners (live.js fits the texts in its listener, registered first): window.__checked
# holds [seq, result] per applied seq.
RECORD = """(check) => { const f = (0, eval)('(' + check + ')'); window.__checked = [];
  document.addEventListener('live:applied', e => window.__checked.push([e.detail.seq, f()])); }"""


def at_seq(page, seq: int, check: str, timeout: int = 30000):
    """Wait (frame by frame) until ``page`` shows ``seq``, then run ``check`` (a function's
    source) in that same frame and return its value: one round trip to the browser instead of
    one per wait and per check (187 seqs × 6 pages)."""
    return page.evaluate("""async ([seq, check, timeout]) => {
      const end = performance.now() + timeout;
      while (+document.getElementById('live-seq').dataset.seq !== seq) {
        if (performance.now() > end) throw new Error('seq ' + seq + ' not shown, still ' + document.getElementById('live-seq').dataset.seq);
        await new Promise(r => requestAnimationFrame(r));
      }
      return (0, eval)('(' + check + ')')();
    }""", [seq, check, timeout])


def ready(page, image: str | None = None) -> None:
    """The page as a viewer sees it once loaded: its socket up, its fonts (and ``image``) loaded,
    laid out (two frames drawn)."""
    page.wait_for_function("img => document.getElementById('conn').classList.contains('up')"
                           " && document.fonts.status === 'loaded'"
                           " && (!img || (document.querySelector(img) || {}).complete === true)",
                           arg=image, timeout=30000)
    frames(page)


LONG_NAMES = ["Maria Aparecida dos Santos Oliveira Silva", "Bartholomew Montgomery-Fitzwilliam Junior"]


def worst_case_html(match: Match, seq: int, over: bool, lang: str = "pt-br") -> str:
    """The TV's live fragment for states no match reaches at once: every banner, three-digit
    scores, a decider, long names with clubs and flags; ``over``: also the match over (the
    statistics between frames), else in play (the stroke facts with a full break)."""
    snap = log.snapshot(match.pk)
    match.config = {**match.config, "players": LONG_NAMES}
    state = dict(snap.state)
    state.update(scores=[147, 139], frames=[12, 11], phase="match_over" if over else "decision", decider=True,
                 free_ball=True, warning="aggravated_last_chance", last_penalty={"player": 1, "points": 7},
                 decision_options=["play", "pass", "retorno"], frame_winner=0, match_winner=0 if over else None,
                 highest_break=[147, 139], snookers_required=3, points_remaining=107, reds_remaining=10,
                 ball_on=[2, 3, 4, 5, 6, 7], striker=0)
    state["break"] = 136
    options = {**snap.options, "break_balls": [1, 7] * 15 + [2, 3]}
    ctx = render.page_context(match, seq, state, options, render.recent_events(match.pk, snap.seq))
    ctx.update(banner_retorno=True, banner_free_ball=True, banner_aggravated=True, banner_stalemate=True,
               banner_decider=True, frame_over=False, match_over=over,
               match_winner_name=LONG_NAMES[0] if over else "")
    ctx["ph"] = {**ctx["ph"], "decision": True}  # the foul banner too
    with translation.override(lang):
        return render.render_view("tv", ctx)


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class ScreensTest(ChannelsLiveServerTestCase):
    """The demo final on three TVs and three overlays, then the worst case."""

    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        SHOTS.mkdir(exist_ok=True)
        self.demo = json.loads((ROOT / "demo" / "final.json").read_text())

    def post(self, mid: int, token: str, event: dict, seq: int) -> None:
        r = self.http.post(f"{self.live_server_url}/api/matches/{mid}/events/", json={"event": event, "expected_seq": seq},
                           headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201, r.text

    def test_demo_final_fits_every_tv_and_keeps_every_overlay_bar(self):
        from playwright.sync_api import sync_playwright

        names = self.demo["config"]["players"]
        created = create_match(names[0], names[1], reds=15, frames_to_win=2)
        mid = created.match.pk
        base = self.live_server_url
        self.http = httpx.Client(timeout=10)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            tvs = {}
            for w, h in TV_SIZES:
                page = browser.new_page(viewport={"width": w, "height": h}, locale="pt-BR")
                page.goto(f"{base}/matches/{mid}/tv/")
                tvs[(w, h)] = page
            ovs = {}
            for layout in LAYOUTS:
                page = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
                page.goto(f"{base}/matches/{mid}/overlay/?layout={layout}")
                ovs[layout] = page
            for page in [*tvs.values(), *ovs.values()]:
                page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
                page.evaluate("() => { window.notReloaded = true; }")
            boxes = {layout: page.evaluate(OV_BOX) for layout, page in ovs.items()}
            for layout, box in boxes.items():
                assert all(w > 0 and h > 0 for _, _, w, h in box), (layout, box)
            # Each page checks itself as it applies each seq (after its own fitting, in the same
            # listener turn), and the test reads the record once at the end: one round trip per
            # tap instead of one per page and tap (40 s of the test went on them).
            for page in tvs.values():
                page.evaluate(RECORD, TV_FITS)
            for page in ovs.values():
                page.evaluate(RECORD, f"() => [({OV_BOX})(), ({OV_CLIPPED})()]")
            shots = {55: "between-frames", 30: "play", 186: "match-over"}
            pages = [*tvs.values(), *ovs.values()]
            for i, event in enumerate(self.demo["events"]):
                seq = i + 1
                self.post(mid, created.token, event, i)
                seq_is(pages[i % len(pages)], seq)  # in step with the screens, one page a tap
                if seq in shots:
                    for (w, h), page in tvs.items():
                        seq_is(page, seq)
                        page.screenshot(path=str(SHOTS / f"tv-{w}x{h}-{shots[seq]}.png"))
            last = len(self.demo["events"])
            for size, page in tvs.items():
                seq_is(page, last)
                checked = page.evaluate("() => window.__checked")
                assert [seq for seq, _ in checked] == list(range(1, last + 1)), (size, checked)
                for seq, bad in checked:
                    assert bad == [], (seq, size, bad)
            for layout, page in ovs.items():
                seq_is(page, last)
                checked = page.evaluate("() => window.__checked")
                assert [seq for seq, _ in checked] == list(range(1, last + 1)), (layout, checked)
                for seq, (box, clipped) in checked:
                    assert box == boxes[layout], (seq, layout, box, boxes[layout])
                    assert clipped == [], (seq, layout, clipped)
            # what the TV shows came from the engine: the final state's numbers are on the page
            st = httpx.get(f"{base}/api/matches/{mid}/", timeout=10).json()["state"]
            tv = tvs[(1920, 1080)]
            assert [tv.inner_text(f'[data-score="{i}"]') for i in (0, 1)] == [str(x) for x in st["scores"]]
            assert [tv.inner_text(f'[data-frames="{i}"] b') for i in (0, 1)] == [str(x) for x in st["frames"]] == ["2", "1"]
            for page in [*tvs.values(), *ovs.values()]:
                assert page.evaluate("() => window.notReloaded") is True  # every update was pushed

            # the worst cases, pushed into the same pages as later seqs
            match = Match.objects.select_related("player_a", "player_b").get(pk=mid)
            Player.objects.filter(pk__in=[match.player_a_id, match.player_b_id]).update(
                club="Clube Atlético Paulistano de Sinuca Brasileira", country="BR")
            match = Match.objects.select_related("player_a", "player_b").get(pk=mid)
            for seq, over in ((10_000, False), (10_001, True)):
                html = worst_case_html(match, seq, over)
                for (w, h), page in tvs.items():
                    page.evaluate("html => window.liveApply(html)", html)
                    seq_is(page, seq)
                    banners = page.eval_on_selector_all(".tv-banners .banner", "els => els.map(e => e.textContent)")
                    assert len(banners) == (7 if over else 6), banners
                    assert page.evaluate(TV_FITS) == [], ((w, h), over, page.evaluate(TV_FITS))
                    assert page.inner_text('[data-score="0"]') == "147"
                    assert page.inner_text('[data-score="1"]') == "139"
                    assert LONG_NAMES[1] in page.inner_text(".tv-player.p1 .tv-name")
                    page.screenshot(path=str(SHOTS / f"tv-{w}x{h}-worst-{'over' if over else 'play'}.png"))
            browser.close()


POPS = "() => [...document.querySelectorAll('#ov-pops .pop')].map(e => [e.dataset.pop, e.textContent.trim().replace(/\\s+/g, ' ')])"


def pops_once(page, shown: str, count: int = 1) -> tuple[list, bool]:
    """The pop-ups on screen, and whether each fits its box, read in the first frame where
    ``shown`` (a selector) is in with ``count`` pop-ups: they leave by themselves after popup_seconds, which a slow
    screenshot or a loaded machine could outlast between two separate reads."""
    got = page.wait_for_function(f"""() => document.querySelector({shown!r})
        && document.querySelectorAll('#ov-pops .pop').length >= {count} ? {{
        pops: ({POPS})(),
        fit: [...document.querySelectorAll('#ov-pops .pop')].every(e => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight),
      }} : null""", polling="raf", timeout=30000).json_value()
    return got["pops"], got["fit"]


def face_png() -> bytes:
    """A stand-in photo: a face-coloured disc on a blue ground, 256 px."""
    import io

    from PIL import Image, ImageDraw

    img = Image.new("RGB", (256, 256), (30, 80, 160))
    ImageDraw.Draw(img).ellipse((48, 28, 208, 228), fill=(224, 172, 130))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}},
                   MEDIA_ROOT=tempfile.mkdtemp(prefix="sinuca-media-"))
class OverlayTest(ChannelsLiveServerTestCase):
    """Pop-ups come and go by the URL's options; the control endpoint's switches are pushed."""

    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        SHOTS.mkdir(exist_ok=True)

    def test_popups_and_control_endpoint(self):
        from playwright.sync_api import sync_playwright

        created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
        mid, token = created.match.pk, created.token
        Player.objects.filter(pk=created.match.player_a_id).update(club="Clube Paulistano", country="BR")
        Player.objects.filter(pk=created.match.player_b_id).update(club="Sinuca Clube do Porto", country="PT")
        from django.core.files.base import ContentFile

        Player.objects.get(pk=created.match.player_a_id).photo.save("ana.png", ContentFile(face_png()))
        base = self.live_server_url
        http = httpx.Client(timeout=10)
        seq = 0

        def post(event):
            nonlocal seq
            r = http.post(f"{base}/api/matches/{mid}/events/", json={"event": event, "expected_seq": seq},
                          headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 201, r.text
            seq += 1
            for page in pages:
                seq_is(page, seq)

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            quick = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
            quick.goto(f"{base}/matches/{mid}/overlay/?popup_seconds=1.5&milestones=5,50")
            only_frames = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
            only_frames.goto(f"{base}/matches/{mid}/overlay/?popups=frame,match&layout=corner")
            pages = [quick, only_frames]
            for page in pages:
                page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
                page.evaluate("() => { window.notReloaded = true; }")
            # a dark video frame behind the transparent page, for the screenshots
            quick.add_style_tag(content="html { background: radial-gradient(#1b5e20, #000) !important; }")
            box = quick.evaluate(OV_BOX)
            assert quick.evaluate(POPS) == []  # the state a page opens on pops nothing up

            post({"type": "pot", "balls": [1]})  # break 1: no milestone passed
            seq_is(quick, 1, timeout=30000)  # the change arrived and was drawn
            frames(quick)
            assert quick.evaluate(POPS) == []
            post({"type": "pot", "balls": [7]})  # break 8 passes the milestone 5
            pops, _ = pops_once(quick, "#ov-pops .pop-break.in")
            assert pops == [["break", "Tacada de Ana Souza 8"]]
            quick.wait_for_selector("#ov-pops .pop", state="detached", timeout=30000)  # gone by itself
            post({"type": "no_pot"})
            post({"type": "foul", "ball": 1, "retorno": True})
            pops, fit = pops_once(quick, "#ov-pops .pop-retorno.in")
            quick.screenshot(path=str(SHOTS / "overlay-popup-foul.png"))
            # one pop-up at a time: the pending choice (it says the foul too)
            # the article's short title shown; the rule's first words are in the pop-up but
            # hidden while the stream's "words" switch is off (the default)
            assert pops == [
                ["retorno", "FALTA E RETORNO Ana Souza decide: jogar, passar ou mandar repetir (Art. 25 · Falta e retorno)"
                            "Art. 25.5: “requerer a repetição da jogada.”"]]
            assert quick.locator("#ov-pops .pop-retorno .pop-words").is_hidden()
            assert fit  # nothing cut off: each pop-up fits its box
            assert only_frames.evaluate(POPS) == []  # ?popups=frame,match: a foul pops nothing up
            quick.wait_for_timeout(2000)  # longer than popup_seconds: the choice is still pending
            assert [k for k, _ in quick.evaluate(POPS)] == ["retorno"]

            # the control endpoint: refused without a proper token, pushed live with one
            url = f"{base}/api/matches/{mid}/overlay/"
            r = http.post(url, json={"bar": "hide"})
            assert r.status_code == 401 and "Bearer" in r.json()["error"]["message"]
            r = http.post(url, json={"bar": "hide"}, headers={"Authorization": "Bearer nope"})
            assert r.status_code == 401 and r.json()["error"]["message"] == "Token inválido / Invalid token"
            assert quick.evaluate("() => getComputedStyle(document.querySelector('.ov')).opacity") == "1"
            r = http.post(url, json={"bar": "hide", "stats": "show"}, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200 and r.json() == {"match": mid, "bar": False, "stats": True, "words": False, "ver": 1}
            for page in pages:
                page.wait_for_function("() => document.getElementById('ov-ctl').dataset.bar === '0'", timeout=30000)
                page.wait_for_function("() => getComputedStyle(document.querySelector('.ov')).opacity === '0'", timeout=30000)
                page.wait_for_selector(".ov-stats table", state="visible", timeout=30000)
            rows = quick.eval_on_selector_all(".ov-stats tbody tr", "rs => rs.map(r => r.innerText.replace(/\\s+/g, ' ').trim())")
            assert rows[:2] == ["0 Partidas 0", "8 Maior tacada 0"], rows
            quick.screenshot(path=str(SHOTS / "overlay-stats-bar-hidden.png"))
            r = http.post(url + "?bar=toggle&stats=hide", headers={"Authorization": f"Bearer {token}"})
            assert r.json() == {"match": mid, "bar": True, "stats": False, "words": False, "ver": 2}
            quick.wait_for_function("() => getComputedStyle(document.querySelector('.ov')).opacity === '1'", timeout=30000)
            quick.wait_for_selector(".ov-stats", state="hidden", timeout=30000)
            post({"type": "decision", "choice": "play"})  # the next event keeps the switches
            # ...and settles the choice: its pop-up leaves
            quick.wait_for_selector("#ov-pops .pop", state="detached", timeout=3000)
            assert quick.evaluate(OV_BOX) == box
            assert quick.evaluate("() => document.getElementById('ov-ctl').dataset.bar") == "1"
            for page in pages:
                assert page.evaluate("() => window.notReloaded") is True

            # the pages that follow are loaded one after another into one more page (each a new
            # document; a context each cost a window's start and end and checked nothing more)
            page = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
            page.goto(f"{base}/matches/{mid}/tv/")
            ready(page, "img.tv-photo")
            assert page.evaluate(TV_FITS) == []
            assert page.evaluate("() => document.querySelector('img.tv-photo').naturalWidth") == 256
            page.screenshot(path=str(SHOTS / "tv-1920x1080-people.png"))

            # a table between matches: the TV and overlay of the table fit too
            from scoreboard.core.models import Table

            idle = Table.objects.create(name="Mesa 9")
            for size in TV_SIZES[:2]:
                page.set_viewport_size({"width": size[0], "height": size[1]})
                page.goto(f"{base}/tables/{idle.pk}/tv/")
                de = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
                assert de[0] <= size[0] and de[1] <= size[1], (size, de)
                page.screenshot(path=str(SHOTS / f"tv-{size[0]}x{size[1]}-idle-table.png"))
            page.set_viewport_size({"width": 1920, "height": 1080})
            page.goto(f"{base}/tables/{idle.pk}/overlay/")
            page.screenshot(path=str(SHOTS / "overlay-idle-table.png"))

            # every layout over a dark and a light video frame (the page stays transparent; the
            # picture is painted behind it as OBS composites it)
            for name, bg in (("dark", "radial-gradient(#1b5e20, #000)"),
                             ("light", "linear-gradient(135deg, #fff, #cfd8dc 60%, #ffe082)")):
                for layout in LAYOUTS:
                    page.goto(f"{base}/matches/{mid}/overlay/?layout={layout}" + ("&theme=light" if name == "light" else ""))
                    page.add_style_tag(content=f"html {{ background: {bg} !important; }}")
                    ready(page, "img.ov-photo" if layout == "full" else None)
                    assert page.evaluate(OV_CLIPPED) == [], (layout, name)
                    page.screenshot(path=str(SHOTS / f"overlay-{layout}-on-{name}.png"))
                    if layout == "full":  # the photo is served and drawn in its circle
                        assert page.evaluate("() => document.querySelector('img.ov-photo').naturalWidth") == 256
            browser.close()
