"""Issue 18 items 1 and 2 in Chromium: an event followed on the phone hub, the jumbotron and the
stream graphics' ticker while its matches are scored through the API. Every update arrives by
push (no reload, no HTTP request after load); the hub's and a player's page's (with a photo)
first load is at most 150 KB on the wire (bytes Chromium received: headers and bodies of every
response, the board socket's handshake and every frame it received before the first change)
with body text of at least 16 px on every tab; no spectator page is wider than its viewport at
390×844, 1280×720, 1920×1080 and 3840×2160. Screenshots of every page at each size go to shots/
(gitignored) for a person to look at."""
from __future__ import annotations

import pathlib
import tempfile
import time

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import graphics, log
from scoreboard.core.competitions import create_competition
from scoreboard.core.models import Competition, Match, Player, RefereeCredential, Table

from browser import ARGS, CHROMIUM, require_chromium
from browser import frames as browser_frames

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
VIEWPORTS = [(390, 844), (1280, 720), (1920, 1080), (3840, 2160)]
PLAYERS = ["Igor Martins de Albuquerque", {"name": "Bia Lima", "club": "Clube Santista"}, "Caio Rocha",
           "Davi Nunes", "Maria Eduarda Fonseca", "Fábio Reis", "Gil Matos", "Hugo Dias"]
EVENT = {"name": "Etapa de Santos · Circuito Paulista", "reds": 6, "draw_seed": 2026, "players": PLAYERS,
         "tables": ["Mesa 1", "Mesa 2"],
         "stages": [{"format": "double_elimination_groups", "groups": 2, "frames_to_win": 2, "qualify": 2},
                    {"format": "knockout", "frames_to_win": 1}]}
WEIGHT_LIMIT = 150 * 1024
# every class of this file runs on one live server: the same settings (a test media folder for
# the player's photo)
SETTINGS = dict(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                          "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}},
                MEDIA_ROOT=tempfile.mkdtemp(prefix="sinuca-media-"))
# the smallest font size of any visible element that has text of its own
MIN_FONT = """() => {
  let min = 1e9, what = '';
  for (const el of document.body.querySelectorAll('*')) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    const f = parseFloat(getComputedStyle(el).fontSize);
    if (f < min) { min = f; what = el.tagName + '.' + el.className + ': ' + el.textContent.trim().slice(0, 30); }
  }
  return [min, what];
}"""
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"
# the words of the match page's names and tables that a line break cut in two ("Albuquer / que")
CUT_WORDS = """() => {
  const cut = [];
  for (const el of document.querySelectorAll('.st-table th, .st-table td, .ms-name')) {
    if (!el.offsetParent) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const re = /[^\\s-]+/g;  // a break after a hyphen is a break between words
      let m;
      while ((m = re.exec(n.textContent))) {
        const r = document.createRange();
        r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].filter(x => x.width).map(x => Math.round(x.top)));
        if (tops.size > 1) cut.push(m[0]);
      }
    }
  }
  return cut;
}"""
# each player's name on a board: [its text, font size, whether it is cut (wider than its box)]
NAMES = """() => [...document.querySelectorAll('.tv-name, .jt-name, .mc-name')].filter(e => e.offsetParent)
  .map(e => [e.textContent.trim(), parseFloat(getComputedStyle(e).fontSize), e.scrollWidth > e.clientWidth + 1])"""


def camera_photo(w: int = 1200, h: int = 1500):
    """A JPEG of about 1 MB, as a camera gives it (noise: it compresses as badly as a real one)."""
    import io
    import os

    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    out = io.BytesIO()
    Image.frombytes("RGB", (w, h), os.urandom(w * h * 3)).save(out, "JPEG", quality=75)
    return SimpleUploadedFile("igor.jpg", out.getvalue(), content_type="image/jpeg")


class Wire:
    """What a page's context receives on the wire, from Chromium's own counts (CDP): every HTTP
    response's bytes (headers and body as sent, ``encodedDataLength``), the board socket's
    handshake answer and each websocket frame (payload and frame header)."""

    def __init__(self, ctx, page) -> None:
        self.http: list[tuple[str, int]] = []
        self.handshake = 0
        self.frames: list[str] = []
        self._urls: dict[str, str] = {}
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.on("Network.responseReceived", lambda e: self._urls.__setitem__(e["requestId"], e["response"]["url"]))
        cdp.on("Network.loadingFinished",
               lambda e: self.http.append((self._urls.get(e["requestId"], "?"), int(e["encodedDataLength"]))))
        cdp.on("Network.webSocketHandshakeResponseReceived", self._handshake)
        cdp.on("Network.webSocketFrameReceived", lambda e: self.frames.append(e["response"]["payloadData"]))

    def _handshake(self, e) -> None:
        r = e["response"]
        text = r.get("headersText") or "".join(f"{k}: {v}\r\n" for k, v in r.get("headers", {}).items())
        self.handshake = len(text.encode()) + 20

    @staticmethod
    def frame_bytes(text: str) -> int:
        n = len(text.encode())
        return n + (2 if n < 126 else 4 if n < 65536 else 10)

    def total(self) -> int:
        """Bytes received so far."""
        return sum(b for _, b in self.http) + self.handshake + sum(self.frame_bytes(f) for f in self.frames)

    def opened(self, page, timeout: float = 15.0) -> None:
        """Wait until the board socket has opened (its handshake answered)."""
        import time

        end = time.monotonic() + timeout
        while not self.handshake:
            assert time.monotonic() < end, "the board socket did not open"
            page.wait_for_timeout(20)  # lets Playwright dispatch the CDP events; a condition, not a sleep


@pytest.mark.browser
@override_settings(**SETTINGS)
class EventHubBrowserTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        self.tokens = {}
        SHOTS.mkdir(exist_ok=True)

    def tap(self, match_id: int, event: dict) -> None:
        if match_id not in self.tokens:
            self.tokens[match_id] = RefereeCredential.issue(Match.objects.get(pk=match_id), label="t")[1]
        r = httpx.post(f"{self.live_server_url}/api/matches/{match_id}/events/", json={"event": event},
                       headers={"Authorization": f"Bearer {self.tokens[match_id]}"}, timeout=15)
        assert r.status_code == 201, r.text

    def win_frame(self, match_id: int, loser: int) -> None:
        self.tap(match_id, {"type": "concede", "player": loser})

    def settled(self, comp) -> None:
        """Wait until the effect of the results tapped so far has run (the competition is no
        longer due: the server runs it after the tap's answer), so that a page loaded now holds
        the boards it changes and its socket's first frame is the next change."""
        from django.utils import timezone

        end = time.monotonic() + 30
        while Competition.objects.filter(pk=comp.pk, due_at__lte=timezone.now()).exists():
            assert time.monotonic() < end, "the competition's results stayed due for 30 s"
            time.sleep(0.05)

    def test_event_followed_on_the_phone_hub_and_the_jumbotron(self):
        from playwright.sync_api import sync_playwright

        comp = create_competition(EVENT).competition
        j = {n: Match.objects.get(fixture__competition=comp, fixture__number=n) for n in (1, 2)}
        # J1 played: the lot, a break of 8 (red, black), a frame each, the decider conceded
        self.tap(j[1].pk, {"type": "lot", "player": 0})
        self.tap(j[1].pk, {"type": "pot", "balls": [1]})
        self.tap(j[1].pk, {"type": "pot", "balls": [7]})
        self.win_frame(j[1].pk, 1)
        self.tap(j[1].pk, {"type": "next_frame"})
        self.win_frame(j[1].pk, 0)
        self.tap(j[1].pk, {"type": "next_frame"})
        self.win_frame(j[1].pk, 1)
        # J2 in play on Mesa 2
        self.tap(j[2].pk, {"type": "lot", "player": 1})
        self.tap(j[2].pk, {"type": "pot", "balls": [1]})
        # a player with a photo as a camera gives it (about 1 MB): his page shows the thumbnail
        igor = Player.objects.get(name="Igor Martins de Albuquerque")
        igor.photo = camera_photo()
        igor.save()
        # the stream graphics of Mesa 1 with the ticker of the other tables shown
        t1 = Table.objects.get(name="Mesa 1")
        graphics.apply(t1, {"ticker": True})
        self.settled(comp)
        base = self.live_server_url
        hub_url = f"{base}/competitions/{comp.pk}/"
        failures = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                phone_ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR",
                                                device_scale_factor=1, has_touch=True, is_mobile=True)
                phone = phone_ctx.new_page()
                wire = Wire(phone_ctx, phone)
                phone.goto(hub_url + "?view=tables", wait_until="load")
                phone.wait_for_function("() => document.querySelectorAll('.ev-table').length === 2")
                wire.opened(phone)
                weight = wire.total()
                print(f"hub first load: {weight} B in {len(wire.http)} responses, socket handshake"
                      f" {wire.handshake} B, {len(wire.frames)} frames: {wire.http}")
                assert weight <= WEIGHT_LIMIT, (weight, wire.http)
                loaded_frames = len(wire.frames)
                mesa2 = phone.locator('.ev-table[data-table="Mesa 2"]')
                assert "st-in_play" in mesa2.get_attribute("class")
                assert j[2].player_a.name in mesa2.text_content() and j[2].player_b.name in mesa2.text_content()
                phone.evaluate("() => { window.__kept = 1; }")
                requests = []
                phone.on("request", lambda r: "favicon" in r.url or requests.append(r.url))

                jumbo = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="pt-BR").new_page()
                jumbo.goto(f"{base}/tv/?rotate=tables,called&every=5")
                jumbo.wait_for_selector('.jv[data-jv="tables"] .jt')
                jumbo.evaluate("() => { window.__kept = 1; }")
                jumbo_requests = []
                jumbo.on("request", lambda r: "favicon" in r.url or jumbo_requests.append(r.url))
                # the ticker beside them: Mesa 1's stream graphics show the other table, Mesa 2
                ticker = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="pt-BR").new_page()
                ticker.goto(f"{base}/tables/{t1.pk}/graphics/")
                ticker.wait_for_selector(".gfx-ticker .tk-item.tk-live")
                item = ticker.inner_text(".gfx-ticker .tk-item.tk-live")
                assert "Mesa 2" in item and j[2].player_a.name in item and "(0–1)" in item, item
                ticker.evaluate("() => { window.__kept = 1; }")
                ticker_requests = []
                ticker.on("request", lambda r: "favicon" in r.url or ticker_requests.append(r.url))

                # a score on Mesa 2 reaches the three screens by push
                self.tap(j[2].pk, {"type": "pot", "balls": [7]})
                phone.wait_for_function(
                    "() => [...document.querySelectorAll('.ev-table[data-table=\"Mesa 2\"] .ev-score')]"
                    ".map(e => e.textContent).join(',') === '0,8'", timeout=30000)
                jumbo.wait_for_function("() => document.body.textContent.includes('Tacada 8')", timeout=30000)
                ticker.wait_for_function(
                    "() => document.querySelector('.gfx-ticker .tk-live').textContent.includes('(0–8)')", timeout=30000)
                # the socket sent nothing on connect (the page had that board): its first frame
                # is this change
                assert loaded_frames == 0 and 'class="ev-score">8<' in wire.frames[0], (loaded_frames, wire.frames[:1])
                # the jumbotron turns to the called screen by itself
                jumbo.wait_for_function("() => document.body.dataset.jv === 'called'", timeout=30000)

                # J2 ends: its result is pushed to the hub's results view (a tab, no reload)
                self.win_frame(j[2].pk, 0)
                self.tap(j[2].pk, {"type": "next_frame"})
                self.win_frame(j[2].pk, 0)
                phone.click('.hub-tabs a[data-view="results"]')
                assert phone.url.endswith("?view=results")
                phone.wait_for_selector("#r-J2", timeout=30000)
                row = phone.locator("#r-J2").text_content()
                assert j[2].player_a.name in row and j[2].player_b.name in row and "0 × 2" in row, row
                assert phone.evaluate("window.__kept") == 1 and requests == [], requests
                assert jumbo.evaluate("window.__kept") == 1 and jumbo_requests == [], jumbo_requests
                assert ticker.evaluate("window.__kept") == 1 and ticker_requests == [], ticker_requests

                # a player's page with his photo, on a fresh phone: at most 150 KB too, the photo
                # as its thumbnail (the upload is about 1 MB)
                entry = comp.entries.get(player=igor).number
                pctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR",
                                           device_scale_factor=1, has_touch=True, is_mobile=True)
                ppage = pctx.new_page()
                pwire = Wire(pctx, ppage)
                ppage.goto(f"{hub_url}players/{entry}/", wait_until="load")
                ppage.wait_for_function("() => { const i = document.querySelector('img.ev-photo');"
                                        " return i && i.complete && i.naturalWidth > 0; }")
                pwire.opened(ppage)
                src = ppage.get_attribute("img.ev-photo", "src")
                pweight = pwire.total()
                print(f"player's page first load: {pweight} B in {len(pwire.http)} responses: {pwire.http}")
                assert src == igor.photo_thumb.url and pweight <= WEIGHT_LIMIT, (src, pweight, pwire.http)
                assert not any(u.endswith(igor.photo.url) for u, _ in pwire.http)
                # a round face beside his long name (screenshots: squeezed into an oval, 76×96)
                box = ppage.evaluate("() => { const r = document.querySelector('img.ev-photo')"
                                     ".getBoundingClientRect(); return [r.width, r.height]; }")
                assert box == [96, 96], box
                pctx.close()
                # the reloaded link keeps its view
                phone.reload()
                assert phone.evaluate("document.body.dataset.view") == "results"
                assert phone.locator("#ev-results").is_visible() and not phone.locator("#ev-tables").is_visible()

                # J3 starts on Mesa 1: the screens show a match in play
                j[3] = Match.objects.get(fixture__competition=comp, fixture__number=3)
                self.tap(j[3].pk, {"type": "lot", "player": 0})
                self.tap(j[3].pk, {"type": "pot", "balls": [1]})
                # no page wider than its viewport, at every size; screenshots of each
                entry = comp.entries.get(player__name="Igor Martins de Albuquerque").number
                pages = {f"hub-{v}": f"/competitions/{comp.pk}/?view={v}"
                         for v in ("tables", "schedule", "results", "groups", "bracket")}
                pages.update({"player": f"/competitions/{comp.pk}/players/{entry}/",
                              "clock": f"/matches/{j[3].pk}/clock/",
                              "venue": "/", "match": f"/matches/{j[1].pk}/",
                              "match-tv": f"/matches/{j[3].pk}/tv/", "table-tv": f"/tables/{t1.pk}/tv/",
                              "display": "/display/"})
                pages.update({f"tv-{v}": f"/tv/?view={v}" for v in ("tables", "bracket", "standings", "called")})
                view = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR").new_page()
                for w, h in VIEWPORTS:
                    view.set_viewport_size({"width": w, "height": h})
                    for name, path in pages.items():
                        view.goto(base + path)  # returns once the page's load event has fired
                        sw, iw = view.evaluate(WIDTH)
                        if sw > iw:
                            failures.append(f"{name} at {w}x{h}: {sw} > {iw}")
                        if w == 390 and (name.startswith("hub-") or name == "player"):
                            # body text of at least 16 px on every tab and the player's page
                            size, what = view.evaluate(MIN_FONT)
                            if size < 16:
                                failures.append(f"{name} at 390x844: {what!r} at {size} px")
                        if w == 3840 and name.startswith("hub-"):
                            # a 4K screen at 100 %: the board was a 1,200 px column of 18 px text
                            bw, th = view.evaluate("() => [document.querySelector('.hub-board').getBoundingClientRect().width,"
                                                   " document.querySelector('.hub-head h1').getBoundingClientRect().height]")
                            if bw < 0.5 * w or th < 40:
                                failures.append(f"{name} at 3840x2160: board {bw:.0f} px wide, title {th:.0f} px high")
                        if name == "tv-bracket" and w >= 1280:
                            # the venue's bracket fills the screen (at 4K it was a strip at the top)
                            top, bottom, line = view.evaluate(
                                "() => { const b = [...document.querySelectorAll('.jv-event .ev-tie-box')]"
                                ".map(e => e.getBoundingClientRect());"
                                " return [Math.min(...b.map(r => r.top)), Math.max(...b.map(r => r.bottom)),"
                                " parseFloat(getComputedStyle(document.querySelector('.jv-event .ev-line')).fontSize)] }")
                            if bottom - top < 0.5 * h or bottom > h or line < 0.045 * h:
                                failures.append(f"tv-bracket at {w}x{h}: boxes {top:.0f}-{bottom:.0f} px, text {line:.0f} px")
                        if w == 390 and name in ("tv-tables", "table-tv", "match-tv"):
                            view.wait_for_function("() => document.querySelector('.tv-name, .jt-name')")
                            browser_frames(view)
                            for text, size, cut in view.evaluate(NAMES):
                                if size < 16 or cut:
                                    failures.append(f"{name} at 390x844: {text!r} {size:.0f} px{' cut' if cut else ''}")
                        view.screenshot(path=str(SHOTS / f"h18-{name}-{w}x{h}.png"), full_page=w < 1000)
                # in English, as the rest of the site: the schedule's calls and the bracket's rounds
                view.set_viewport_size({"width": 390, "height": 844})
                view.goto(f"{hub_url}?view=schedule&lang=en")
                text = view.locator("#ev-schedule").inner_text()
                assert "Schedule" in text and "called · Table 2" in text and "Winner M" in text, text
                view.screenshot(path=str(SHOTS / "h18-hub-schedule-en-390x844.png"), full_page=True)
                view.goto(f"{hub_url}?view=bracket&lang=en")
                assert "Semi-final" in view.locator("#ev-bracket").inner_text()
            finally:
                browser.close()
        assert failures == [], failures


@pytest.mark.browser
@override_settings(**SETTINGS)
class PhonePagesTest(EventHubBrowserTest):
    """The pages that were there before the hub, on a phone (390×844), with a match in play and
    one finished: none wider than the screen (``/matches/<id>/`` was 528–619 px from its
    frame-by-frame table and worms), and every player's name on the venue's cards, the jumbotron
    and the table TV whole and at least 16 px (the cards cut "Igor Marti…", the jumbotron showed
    "A." and "B.", the TV fitted names to 4 px).
    A class of its own: a live-server class sees the database of its first test only."""

    test_event_followed_on_the_phone_hub_and_the_jumbotron = None

    def test_existing_spectator_pages_fit_a_phone(self):
        from playwright.sync_api import sync_playwright

        comp = create_competition(EVENT).competition
        j1 = Match.objects.get(fixture__competition=comp, fixture__number=1)
        j2 = Match.objects.get(fixture__competition=comp, fixture__number=2)
        self.tap(j1.pk, {"type": "lot", "player": 0})
        self.tap(j1.pk, {"type": "pot", "balls": [1]})
        self.win_frame(j1.pk, 1)
        self.tap(j1.pk, {"type": "next_frame"})
        self.win_frame(j1.pk, 1)
        self.tap(j2.pk, {"type": "lot", "player": 0})
        self.tap(j2.pk, {"type": "pot", "balls": [1]})
        t2 = Table.objects.get(name="Mesa 2")
        pages = {"venue": "/", "match": f"/matches/{j1.pk}/", "match-tv": f"/matches/{j2.pk}/tv/",
                 "table-tv": f"/tables/{t2.pk}/tv/", "tv": "/tv/", "display": "/display/"}
        failures = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                view = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR").new_page()
                for name, path in pages.items():
                    view.goto(self.live_server_url + path)  # returns once the page's load event has fired
                    browser_frames(view)
                    sw, iw = view.evaluate(WIDTH)
                    if sw > iw:
                        failures.append(f"{name}: {sw} > {iw}")
                    for text, size, cut in view.evaluate(NAMES):
                        if size < 16 or cut:
                            failures.append(f"{name}: {text!r} {size:.0f} px{' cut' if cut else ''}")
                    if name in ("match", "display"):  # screenshots: "Albuquer / que", "hexadeci / mal"
                        failures += [f"{name}: {w!r} broken across lines" for w in view.evaluate(CUT_WORDS)]
                    view.screenshot(path=str(SHOTS / f"h18-phone-{name}-390x844.png"), full_page=True)
            finally:
                browser.close()
        assert failures == [], failures


@pytest.mark.browser
@override_settings(**SETTINGS)
class BigBracketTest(EventHubBrowserTest):
    """The venue's bracket of a 16-player knockout (8 first-round matches) on the TV sizes:
    every match whole on the screen, its names at least 1.9 % of the screen's height."""

    test_event_followed_on_the_phone_hub_and_the_jumbotron = None

    def test_a_sixteen_player_bracket_fits_the_tv(self):
        from playwright.sync_api import sync_playwright

        create_competition({"name": "Aberto de Santos", "reds": 6, "draw_seed": 7,
                            "players": [f"Jogador Número {n:02d}" for n in range(1, 17)],
                            "tables": ["Mesa 1", "Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}]})
        failures = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                view = browser.new_page()
                for w, h in VIEWPORTS[1:]:
                    view.set_viewport_size({"width": w, "height": h})
                    view.goto(f"{self.live_server_url}/tv/?view=bracket")
                    view.wait_for_selector(".jv-event .ev-tie-box")
                    boxes, line = view.evaluate(
                        "() => [[...document.querySelectorAll('.jv-event .ev-tie-box')].map(e => e.getBoundingClientRect().bottom),"
                        " parseFloat(getComputedStyle(document.querySelector('.jv-event .ev-line')).fontSize)]")
                    if len(boxes) != 15 or max(boxes) > h or line < 0.019 * h:
                        failures.append(f"{w}x{h}: {len(boxes)} matches, lowest ends at {max(boxes):.0f} px, text {line:.0f} px")
                    view.screenshot(path=str(SHOTS / f"h18-tv-bracket16-{w}x{h}.png"))
            finally:
                browser.close()
        assert failures == [], failures


@pytest.mark.browser
@override_settings(**SETTINGS)
class JumbotronNamesTest(EventHubBrowserTest):
    """Five tables in play on the venue's 1080p jumbotron (three cards a row): every name whole
    (a tester read "Ana S…", "Eduar…", "Caio P…" in cards with room to spare), the two names of a
    card at one size, and a name shrunk no further than it must."""

    test_event_followed_on_the_phone_hub_and_the_jumbotron = None

    def test_names_fit_their_cards(self):
        from playwright.sync_api import sync_playwright

        from scoreboard.core.matches import new_match

        names = [("Ana Souza", "Eduardo Martins de Albuquerque Figueiredo"), ("Caio Prado", "Igor Martins Figueiredo"),
                 ("Otávio Nunes", "Bia Lima"), ("Kátia Ramos", "Fábio Nunes"), ("Gil Tavares", "Luís Otávio")]
        for i, (a, b) in enumerate(names, start=1):
            m = new_match({"players": [a, b], "reds": 6, "frames_to_win": 2, "first_breaker": 0}, table=f"Mesa {i}")
            log.append_event(m.pk, {"type": "pot", "balls": [1]})
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                view = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
                view.goto(f"{self.live_server_url}/tv/")
                view.wait_for_function("() => document.querySelectorAll('.jt-name').length === 10"
                                       " && document.fonts.status === 'loaded'")
                # whole: on one line, or (a name too long at 60 %) on two, nothing hidden
                view.wait_for_function("() => [...document.querySelectorAll('.jt-name')].every(e =>"
                                       " e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1"
                                       " && (!e.classList.contains('wrapped') || e.getClientRects().length))",
                                       timeout=10000)
                browser_frames(view)
                cards = view.evaluate("() => [...document.querySelectorAll('.jt')].map(c => [...c.querySelectorAll('.jt-name')]"
                                      ".map(e => [e.textContent, parseFloat(getComputedStyle(e).fontSize)]))")
                view.screenshot(path=str(SHOTS / "h18-jumbotron-5-tables-1920x1080.png"))
            finally:
                browser.close()
        cards = [c for c in cards if c]
        assert len(cards) == 5
        for card in cards:
            assert len({size for _, size in card}) == 1, card  # one size per card
        sizes = {name: size for card in cards for name, size in card}
        assert sizes["Ana Souza"] == sizes["Eduardo Martins de Albuquerque Figueiredo"] < sizes["Kátia Ramos"], sizes
        assert min(sizes.values()) >= 0.6 * 0.95 * max(sizes.values()) and sizes["Kátia Ramos"] >= 40, sizes


@pytest.mark.browser
@override_settings(**SETTINGS)
class IdleTablePhoneTest(EventHubBrowserTest):
    """A table between matches on a phone (390×844): a tester saw both names of the last result
    in a 14 px box and the called match cut off at the bottom of ``/tables/<id>/tv/``."""

    test_event_followed_on_the_phone_hub_and_the_jumbotron = None

    def test_the_idle_table_tv_reads_on_a_phone(self):
        from playwright.sync_api import sync_playwright

        from scoreboard.core.matches import new_match

        done = new_match({"players": ["Igor Martins Figueiredo", "Caio Prado"], "reds": 6, "frames_to_win": 1,
                          "first_breaker": 0}, table="Mesa 7")
        log.append_event(done.pk, {"type": "concede", "player": 1})
        new_match({"players": ["Ana Souza", "Eduardo Martins"], "reds": 6, "frames_to_win": 1}, table="Mesa 7",
                  started=False)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                view = browser.new_page(viewport={"width": 390, "height": 844}, locale="pt-BR")
                view.goto(f"{self.live_server_url}/tables/{done.table_id}/tv/")
                view.wait_for_selector(".idle-name")
                browser_frames(view)
                names = view.evaluate("() => [...document.querySelectorAll('.idle-name')].map(e => [e.textContent.trim(),"
                                      " e.getBoundingClientRect().width, e.scrollWidth <= e.clientWidth + 1,"
                                      " parseFloat(getComputedStyle(e).fontSize)])")
                sw, iw = view.evaluate(WIDTH)
                nxt = view.locator(".idle-next")
                nxt.scroll_into_view_if_needed()
                visible = nxt.is_visible() and "Ana Souza × Eduardo Martins" in nxt.inner_text()
                view.screenshot(path=str(SHOTS / "h18-idle-table-tv-390x844.png"), full_page=True)
            finally:
                browser.close()
        assert sw <= iw, (sw, iw)
        assert [n for n, _, _, _ in names] == ["Igor Martins Figueiredo", "Caio Prado"]
        assert all(w >= 200 and whole and size >= 20 for _, w, whole, size in names), names
        assert visible
