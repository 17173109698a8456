"""A tap counts once, against the board it was seen on (touch, in Chromium, at the tablet's three
sizes): every button that replaces itself or its neighbour — each decision choice (Jogar,
Passar, Retorno), the frame's last ball, "Próxima partida", the foul dialog's confirm, undo's
confirm — is tapped twice at one spot 60, 150 and 300 ms apart at the first size and 150 ms apart
at the other two (the page's clock set by the test, so the gap is exact on a busy machine), and exactly one event is stored each
time, the whole board then the server's own. The same with the network cut: each double tap
queues one tap (the engine draws its board), the tablet is reloaded with its queue, and back
online exactly those events are stored, the whole board the server's. A queue of three offline
taps discarded (asked first) leaves the whole server's board at once.

Cheap by construction: one tablet page for every size (resized), one engine load, and each
position is reached again by an undo rather than by replaying the match: a cycle goes from "the
pink on" through every button back to "the pink on".
"""
from __future__ import annotations

import time

import pytest

from scoreboard.core.matches import create_match

from browser import ARGS, CHROMIUM, frames, settled, until_async
from netcut import offline
from test_browser_tablet_engine import SEQ, EngineCase
from test_browser_tablet_render import NORMALISED, OPEN

SIZES = [(1280, 800), (1024, 768), (800, 1280)]
GAPS = [60, 150, 300]
# every gap at the first size; at the others the finger's usual double tap (150 ms), where the
# buttons sit elsewhere: a gap does not depend on the size, the spot a tap lands on does
GAPS_AT = {SIZES[0]: GAPS, SIZES[1]: [150], SIZES[2]: [150]}
BUTTONS = ["foul confirm", "decision pass", "decision retorno", "decision play", "frame's last ball",
           "Próxima partida", "undo confirm"]
BOARD = "() => (document.querySelector('#ref-live form.ref-controls') || {}).dataset?.board"
# the referee page kept by the tablet's service worker, for a reload without network, and every
# script of the page (a reload before they are kept draws the board without, say, the tap guard)
KEPT = """async () => {
  const urls = [];
  for (const k of await caches.keys())
    urls.push(...(await (await caches.open(k)).keys()).map(r => new URL(r.url).pathname));
  const scripts = [...document.scripts].filter(s => s.src && new URL(s.src).origin === location.origin)
    .map(s => new URL(s.src).pathname);
  return urls.some(u => /\\/matches\\/\\d+\\/referee\\/$/.test(u)) && scripts.every(u => urls.includes(u));
}"""
# what each double tap stored, for the report: (online/offline, button, gap, size) -> most events stored
TABLE: dict[tuple[str, str, int, str], int] = {}


def to_the_pink() -> list[dict]:
    """Ana 24, Bia 38 with the pink on and Bia at the table: the frame's last two balls are
    left, a foul there is 6 points with a retorno possible (Art. 25), and after a cycle's three
    fouls whoever is at the table pots the pink and leads by more than 7 with the black left:
    the frame's last ball (Art. 50.1)."""
    three = [e for _ in range(3) for e in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]})]
    return three + [{"type": "no_pot"}] + three + [{"type": "pot", "balls": [n]} for n in (2, 3, 4, 5)]


@pytest.mark.browser
class DoubleTapTest(EngineCase):
    """One test: the online matrix, the offline matrix through a reload, the discard."""

    def setUp(self):
        super().setUp()
        self.now = 1_900_000_000_000  # the page's Date.now(), moved by the test only
        self.flashed: dict = {}

    # -- the server's side -------------------------------------------------------------------
    def stored_after(self, n: int) -> list[dict]:
        url = f"/api/matches/{self.mid}/events/?after={n}&limit=1000"
        return [e["event"] for e in self.client.get(url).json()["events"]]

    def append(self, event: dict) -> None:
        """An event stored from elsewhere, through the live server's API (as another device
        would: its socket tells the tablet at once); ``self.seq`` counts the match's events."""
        r = self.client.post(f"/api/matches/{self.mid}/events/", json={"event": event, "expected_seq": self.seq},
                             headers={"Authorization": f"Bearer {self.created.token}"})
        assert r.status_code == 201, r.text
        self.seq += 1

    def region_is_the_servers(self, page) -> str:
        """The tablet's whole region (players, facts, banners, log, controls) is the server's
        page's. Returns the tap flash's text."""
        text = self.client.get(f"/matches/{self.mid}/live/referee/").text
        inner = OPEN.split(text, 1)[1].rsplit("</div>", 1)[0]
        mine, served, flash = page.evaluate(f"""(html) => [({NORMALISED})(document.getElementById('ref-live').innerHTML),
            ({NORMALISED})(html), document.getElementById('tap-flash').textContent]""", inner)
        assert mine == served
        return flash

    # -- the page's side ---------------------------------------------------------------------
    def clock(self, page, step: int) -> None:
        self.now += step
        page.clock.set_fixed_time(self.now / 1000)

    def wait_board(self, page, seq: int) -> None:
        """Until the board of ``seq`` is drawn with nothing queued, being drawn or in flight."""
        page.wait_for_function(f"(n) => ({SEQ})() === n && refereeQueue.length() === 0 && !refereeQueue.applying()"
                               f" && !window.__inflight && ({BOARD})()?.startsWith(n + ':')", arg=seq, timeout=30000)

    def ready(self, page, x: float, y: float) -> None:
        """Until a tap at (x, y) would be a new tap: past the guard's half second since the
        previous tap there and since the board was last redrawn, on the page's clock (moved on
        by the test while it waits) and between the touches themselves (real time: only a tap
        at the previous tap's spot waits for that)."""
        end = time.monotonic() + 40  # the engine drawing a queued tap on a loaded machine
        while not page.evaluate("([x, y]) => !!(window.refereeGuard && refereeGuard.ready(x, y))", [x, y]):
            assert time.monotonic() < end, ("the tap guard never let a tap through at", x, y, page.evaluate(
                f"() => ({{guard: typeof window.refereeGuard, queued: refereeQueue.length(), "
                f"applying: refereeQueue.applying(), board: ({BOARD})()}})"))
            self.clock(page, 1000)
            page.wait_for_timeout(25)  # lets the page run; the loop waits for the condition

    def tap_new(self, page, locator) -> None:
        """One tap on ``locator`` as a new tap (past any earlier tap's window)."""
        self.clock(page, 5000)
        box = locator.bounding_box()
        self.ready(page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        locator.tap()

    def double_tap(self, page, locator, gap: int) -> None:
        """Two touches at the centre of ``locator``, ``gap`` ms apart on the page's clock. At 60
        ms the second comes straight after the first (the board may not be redrawn yet); at 150
        and 300 ms once the first tap's board is drawn, as a finger meets it."""
        x, y, *before = locator.evaluate(f"""(el) => {{ const r = el.getBoundingClientRect();
            document.getElementById('tap-flash').textContent = '';
            return [r.x + r.width / 2, r.y + r.height / 2, ({BOARD})(), document.getElementById('foul-dialog').open]; }}""")
        self.clock(page, 5000)  # past any earlier tap's window
        self.ready(page, x, y)
        page.touchscreen.tap(x, y)
        if gap > 60:
            page.wait_for_function(f"([b, d]) => ({BOARD})() !== b || (d && !document.getElementById('foul-dialog').open)",
                                   arg=before, timeout=30000)
        self.clock(page, gap)
        page.touchscreen.tap(x, y)

    def press(self, page, name: str, gap: int) -> None:
        """Bring ``name``'s button on screen if it needs a gesture first, then tap it twice."""
        if name.startswith("foul"):
            self.tap_new(page, page.locator("#ref-live button[data-action=foul]:not([disabled])").first)
            page.wait_for_selector("#foul-dialog[open] #foul-form button[data-close-dialog]:not([disabled])")
            if name == "foul retorno":
                page.locator('#foul-form input[name="retorno"]').check()
            target = page.locator("#foul-dialog button[data-close-dialog]")
        elif name.startswith("decision"):
            target = page.locator(f'#ref-live button[data-choice="{name.split()[1]}"]')
        elif name == "frame's last ball":
            target = page.locator("#ref-live .row.balls button.ball-6:not([disabled])").first
        elif name == "Próxima partida":
            target = page.locator("#ref-live button", has_text="Próxima partida")
        else:  # undo's confirm: it appears over the rows below "Desfazer…", armed after a moment
            self.tap_new(page, page.locator("#ref-live .undo button[data-action=ask]").first)
            page.wait_for_function("() => { const b = document.querySelector('#ref-live .undo .confirm button[name=event]');"
                                   " return b && b.checkVisibility() && !b.disabled; }", timeout=10000)
            target = page.locator("#ref-live .undo .confirm button[name=event]")
        self.double_tap(page, target, gap)

    WANT = {"foul confirm": {"type": "foul"}, "foul retorno": {"type": "foul", "retorno": True},
            "decision pass": {"type": "decision", "choice": "pass"},
            "decision retorno": {"type": "decision", "choice": "retorno"},
            "decision play": {"type": "decision", "choice": "play"},
            "frame's last ball": {"type": "pot", "balls": [6]}, "Próxima partida": {"type": "next_frame"},
            "undo confirm": {"type": "undo"}}

    @classmethod
    def matches(cls, name: str, got: dict) -> bool:
        want = cls.WANT[name]
        return all(got.get(k) == v for k, v in want.items())

    def record(self, mode: str, name: str, gap: int, size: str, stored: int) -> tuple:
        key = (mode, "foul confirm" if name == "foul retorno" else name, gap, size)
        TABLE[key] = max(TABLE.get(key, 0), stored)
        return key

    # -- the cycles: from "the pink on" through every button back to it ----------------------
    # online, the positions between the buttons are stored from elsewhere (the API), cheaper
    # than the dialog; offline every step is a double tap of the tablet's own
    ONLINE = ["foul confirm", "decision pass", "+foul retorno", "decision retorno", "+foul", "decision play",
              "frame's last ball", "Próxima partida", "undo confirm", "+undo"]
    OFFLINE = ["foul confirm", "decision pass", "foul retorno", "decision retorno", "foul confirm", "decision play",
               "frame's last ball", "Próxima partida", "undo confirm", "undo confirm"]

    def cycle_online(self, page, size: str, gap: int) -> None:
        for name in self.ONLINE:
            n = self.seq
            if name.startswith("+"):
                self.append({"type": name.split()[0][1:], **({"retorno": True} if "retorno" in name else {})})
                self.wait_board(page, n + 1)
                continue
            self.press(page, name, gap)
            self.wait_board(page, n + 1)
            stored = self.stored_after(n)
            key = self.record("online", name, gap, size, len(stored))
            assert len(stored) == 1 and self.matches(name, stored[0]), (name, gap, size, stored)
            self.seq += 1
            if name == "frame's last ball":
                assert page.evaluate(BOARD) == f"{n + 1}:frame_over"
            self.flashed[key] = self.region_is_the_servers(page)

    # the board each step leaves (its phase): offline, what the engine drew
    PHASE = {"foul confirm": "decision", "foul retorno": "decision", "decision pass": "play",
             "decision retorno": "play", "decision play": "play", "frame's last ball": "frame_over",
             "Próxima partida": "play"}

    def cycle_offline(self, page, size: str, gap: int) -> list[str]:
        """The cycle with the network cut: each double tap queues one tap (its board drawn by
        the engine); returns the buttons pressed, for the events the server is to store."""
        for i, name in enumerate(self.OFFLINE):
            queued = page.evaluate("() => refereeQueue.length()")
            self.press(page, name, gap)
            phase = self.PHASE.get(name, "frame_over" if i == len(self.OFFLINE) - 2 else "play")
            try:
                page.wait_for_function(f"([n, p]) => refereeQueue.length() >= n && !refereeQueue.applying()"
                                       f" && ({BOARD})()?.endsWith(':' + p)", arg=[queued + 1, phase], timeout=30000)
            except Exception as e:  # say what held it: the queue, the engine still applying, the board
                state = page.evaluate(f"() => [refereeQueue.length(), refereeQueue.applying(), ({BOARD})(),"
                                      " refereeQueue.items().map(q => q.label)]")
                raise AssertionError(f"offline {name!r} at {gap} ms, {size}: queued before {queued}, want phase "
                                     f"{phase}; queue, applying, board, labels now: {state}") from e
            settled(page)
            got, flash = page.evaluate("() => [refereeQueue.length(), document.getElementById('tap-flash').textContent]")
            key = self.record("offline", name, gap, size, got - queued)
            self.flashed[key] = flash
            assert got == queued + 1, (name, gap, size, page.evaluate("() => refereeQueue.items().map(q => q.label)"))
        return list(self.OFFLINE)

    def test_every_double_tap_counts_once_online_offline_through_a_reload_and_a_discard_shows_the_server(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            config = dict(first_breaker=0, reds=6, frames_to_win=2)
            self.created = create_match("Ana Souza", "Bia Lima", **config)
            self.mid = self.created.match.pk
            self.client = self.server_client(self.mid)
            self.seq = 0
            for ev in to_the_pink():
                self.append(ev)
            ctx, page = self.tablet(browser, viewport=SIZES[0])
            self.clock(page, 0)
            self.engine_ready(page)

            # online: every button at every size and its gaps
            for w, h in SIZES:
                page.set_viewport_size({"width": w, "height": h})
                frames(page)
                for gap in GAPS_AT[(w, h)]:
                    self.cycle_online(page, f"{w}x{h}", gap)

            # offline: the same, each size's queue kept through a reload and then stored once, the
            # whole board then the server's (once the service worker keeps the page for the reload)
            until_async(page, KEPT)
            for w, h in SIZES:
                page.set_viewport_size({"width": w, "height": h})
                start = self.seq
                offline(ctx, self.net, True)
                page.wait_for_function("() => navigator.onLine === false", timeout=10000)
                pressed = [name for gap in GAPS_AT[(w, h)] for name in self.cycle_offline(page, f"{w}x{h}", gap)]
                assert self.stored_after(start) == []  # nothing reached the server
                page.reload()  # offline: the service worker's page, the queue kept
                page.wait_for_function(f"() => window.refereeQueue && refereeQueue.length() === {len(pressed)}",
                                       timeout=30000)
                offline(ctx, self.net, False)
                self.wait_board(page, start + len(pressed))
                self.engine_ready(page)  # the next size's taps offline are the engine's
                stored = self.stored_after(start)
                assert len(stored) == len(pressed), (w, h)
                assert all(self.matches(name, ev) for name, ev in zip(pressed, stored)), (w, h, stored)
                self.seq += len(stored)
                self.region_is_the_servers(page)

            # three taps offline, discarded: asked first, far from "Tentar agora"; then the whole
            # board is the server's at once, offline
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=10000)
            n = self.seq
            for k, button in enumerate([".row.balls button.ball-6", "button.huge", ".row.balls button.ball-1"]):
                self.tap_new(page, page.locator(f"#ref-live {button}:not([disabled])").first)
                page.wait_for_function("(n) => refereeQueue.length() === n && !refereeQueue.applying()", arg=k + 1,
                                       timeout=10000)
            assert page.evaluate(BOARD) != f"{n}:play"
            page.locator("#tap-queue .tq-discard").tap()
            assert page.evaluate("() => refereeQueue.length()") == 3  # asked, not done
            retry, yes = page.locator("#tap-queue .tq-retry").bounding_box(), page.locator("#tap-queue .tq-discard-yes")
            far = yes.bounding_box()
            # a finger's width (48 px) clear of "Tentar agora" (10 px before)
            gap = max(far["y"] - (retry["y"] + retry["height"]), retry["y"] - (far["y"] + far["height"]),
                      far["x"] - (retry["x"] + retry["width"]), retry["x"] - (far["x"] + far["width"]))
            assert gap >= 48, (retry, far)
            page.wait_for_function("() => !document.querySelector('#tap-queue .tq-discard-yes').disabled", timeout=5000)
            yes.tap()
            page.wait_for_function(f"(b) => refereeQueue.length() === 0 && ({BOARD})() === b", arg=f"{n}:play",
                                   timeout=10000)
            frames(page)
            self.region_is_the_servers(page)  # the whole board: players, facts, banners, log, controls
            assert self.stored_after(n) == []
            ctx.close()
            browser.close()

        print("\ndouble taps (button, gap ms, size) -> events stored (online / offline):")
        for name in BUTTONS:
            for gap in GAPS:
                cells = [f"{TABLE.get(('online', name, gap, f'{w}x{h}'), '-')}/{TABLE.get(('offline', name, gap, f'{w}x{h}'), '-')}"
                         for w, h in SIZES]
                print(f"  {name:18} {gap:3} ms  " + "  ".join(f"{w}x{h} {c}" for (w, h), c in zip(SIZES, cells)))
        # every button met each size's gaps, online and offline, and stored one each time
        assert {k: v for k, v in TABLE.items() if v != 1} == {}
        assert len(TABLE) == 2 * len(BUTTONS) * sum(len(g) for g in GAPS_AT.values())
        # where the second tap met a control, the page said it was not taken
        assert any("ignorado" in text for text in self.flashed.values()), self.flashed

    def server_client(self, mid: int):
        from test_browser_tablet_render import RandomMatchesTest

        return RandomMatchesTest.server_client(self, mid)
