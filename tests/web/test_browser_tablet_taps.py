"""A tap counts once, against the board it was seen on (touch, in Chromium, at the tablet's three
sizes): every button that replaces itself or its neighbour is tapped twice at one spot 60, 150
and 300 ms apart (the page's clock set by the test, so the gap is exact on a busy machine), and
exactly one event is stored each time, the board then the server's own. The same offline, with a
reload before the network comes back; a queue of three offline taps discarded (asked first)
leaves the server's board at once.
"""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from scoreboard.core import log
from scoreboard.core.matches import create_match

from browser import ARGS, CHROMIUM, frames, settled
from netcut import offline
from test_browser_tablet_engine import SEQ, EngineCase
from test_browser_tablet_render import NORMALISED, OPEN

SIZES = [(1280, 800), (1024, 768), (800, 1280)]
GAPS = [60, 150, 300]
BOARD = "() => (document.querySelector('#ref-live form.ref-controls') || {}).dataset?.board"
# what each double tap stored, for the report: (button, gap, size) -> events stored
TABLE: dict[tuple[str, int, str], int] = {}


def to_the_pink() -> list[dict]:
    """Ana 24, Bia 38 with the pink on and Bia at the table: the frame's last two balls are
    left, close enough for a retorno (Art. 26.2), and the walk of each size starts there."""
    three = [e for _ in range(3) for e in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]})]
    return three + [{"type": "no_pot"}] + three + [{"type": "pot", "balls": [n]} for n in (2, 3, 4, 5)]


@pytest.mark.browser
class DoubleTapTest(EngineCase):
    def setUp(self):
        super().setUp()
        self.pool = ThreadPoolExecutor(1)
        self.addCleanup(self.pool.shutdown)
        self.now = 1_900_000_000_000  # the page's Date.now(), moved by the test only
        self.flashed: dict = {}

    # -- the server's side -------------------------------------------------------------------
    def append(self, event: dict) -> None:
        """An event stored from elsewhere (as another tablet would), off Playwright's thread."""
        seq = self.served()["seq"]
        self.pool.submit(log.append_event, self.mid, event, expected_seq=seq).result()

    def region_is_the_servers(self, page) -> None:
        text = self.client.get(f"/matches/{self.mid}/live/referee/").text
        inner = OPEN.split(text, 1)[1].rsplit("</div>", 1)[0]
        mine, served = page.evaluate(f"""(html) => [({NORMALISED})(document.getElementById('ref-live').innerHTML),
                                                     ({NORMALISED})(html)]""", inner)
        assert mine == served

    # -- the page's side ---------------------------------------------------------------------
    def clock(self, page, step: int) -> None:
        self.now += step
        page.clock.set_fixed_time(self.now / 1000)

    def wait_board(self, page, seq: int) -> None:
        page.wait_for_function(f"(n) => ({SEQ})() === n && refereeQueue.length() === 0 && !refereeQueue.applying()"
                               " && (document.querySelector('#ref-live form.ref-controls') || {}).dataset.board"
                               "?.startsWith(n + ':')", arg=seq, timeout=30000)
        settled(page)

    def double_tap(self, page, locator, gap: int) -> None:
        """Two touches at the centre of ``locator``, ``gap`` ms apart on the page's clock. At 60
        ms the second comes straight after the first (the board may not be redrawn yet); at 150
        and 300 ms once the first tap's board is drawn, as a finger meets it."""
        box = locator.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        before = page.evaluate(BOARD)
        dialog = page.evaluate("() => { document.getElementById('tap-flash').textContent = '';"
                               " return document.getElementById('foul-dialog').open; }")
        self.clock(page, 5000)  # past any earlier tap's window
        page.touchscreen.tap(x, y)
        if gap > 60:
            page.wait_for_function(f"([b, d]) => ({BOARD})() !== b || (d && !document.getElementById('foul-dialog').open)",
                                   arg=[before, dialog], timeout=30000)
        self.clock(page, gap)
        page.touchscreen.tap(x, y)

    def check_once(self, page, name: str, gap: int, size: str, want: dict | str, n_before: int) -> None:
        self.wait_board(page, n_before + 1)
        events = self.log()
        TABLE[(name, gap, size)] = max(TABLE.get((name, gap, size), 0), len(events) - n_before)
        assert len(events) == n_before + 1, (name, gap, size, [e["event"] for e in events[n_before:]])
        got = events[-1]["event"]
        assert (got["type"] if isinstance(want, str) else got) == want, (name, gap, size, got)
        # the second tap, when it met a control that sends, was dropped and said so
        self.flashed[(name, gap, size)] = page.evaluate("() => document.getElementById('tap-flash').textContent")
        self.region_is_the_servers(page)

    def test_every_double_tap_stores_one_event_at_every_size(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for k, (w, h) in enumerate(SIZES):
                size = f"{w}x{h}"
                self.created = create_match("Ana Souza", "Bia Lima", first_breaker=0, reds=6, frames_to_win=2)
                self.mid = self.created.match.pk
                for ev in to_the_pink():
                    self.append(ev)
                self.client = self.server_client()
                ctx, page = self.tablet(browser, viewport=(w, h))
                self.clock(page, 0)
                self.engine_ready(page)
                self.walk(page, size, k)
                ctx.close()
            browser.close()
        print("\ndouble taps (button, gap ms, size) -> events stored:")
        for (name, gap, size), n in sorted(TABLE.items()):
            print(f"  {name:18} {gap:3} ms {size:9} -> {n}  {self.flashed.get((name, gap, size), '')}")
        # where the second tap met a control that sends, the page said it was not taken
        assert any("ignorado" in text for text in self.flashed.values()), self.flashed

    def server_client(self):
        from test_browser_tablet_render import RandomMatchesTest

        return RandomMatchesTest.server_client(self, self.mid)

    def settle_from_elsewhere(self, page, event: dict) -> None:
        self.append(event)
        self.wait_board(page, self.served()["seq"])

    def foul_by_dialog(self, page, name: str, gap: int, size: str, retorno: bool = False) -> None:
        """"Falta…", the dialog's confirm tapped twice: one foul; the decision's choices follow."""
        n = len(self.log())
        self.clock(page, 5000)
        page.locator("#ref-live button[data-action=foul]").first.tap()
        page.wait_for_selector("#foul-dialog[open] #foul-form button[data-close-dialog]:not([disabled])")
        if retorno:
            page.locator('#foul-form input[name="retorno"]').check()
        self.double_tap(page, page.locator("#foul-dialog button[data-close-dialog]"), gap)
        self.check_once(page, name, gap, size, "foul", n)

    def choose(self, page, choice: str, gap: int, size: str) -> None:
        name, n = f"decision {choice}", len(self.log())
        self.double_tap(page, page.locator(f'#ref-live button[data-choice="{choice}"]'), gap)
        self.check_once(page, name, gap, size, {"type": "decision", "choice": choice}, n)

    def walk(self, page, size: str, k: int) -> None:
        """The buttons in the order a match brings them, each tapped twice once at this size, the
        gaps turned by ``k`` so that over the three sizes every button meets every gap."""
        gaps = iter(GAPS[(i + k) % 3] for i in range(12))
        self.foul_by_dialog(page, "foul confirm", next(gaps), size)
        self.choose(page, "pass", next(gaps), size)
        self.foul_by_dialog(page, "foul confirm", next(gaps), size, retorno=True)
        self.choose(page, "retorno", next(gaps), size)
        self.foul_by_dialog(page, "foul confirm", next(gaps), size)
        self.choose(page, "play", next(gaps), size)

        # undo's confirm (it appears where "Desfazer…" was; what comes there after is anything)
        n, gap = len(self.log()), next(gaps)
        self.clock(page, 5000)
        page.locator("#ref-live .undo button[data-action=ask]").first.tap()
        page.wait_for_function("() => { const b = document.querySelector('#ref-live .undo .confirm button[name=event]');"
                               " return b && b.checkVisibility() && !b.disabled; }", timeout=10000)
        self.double_tap(page, page.locator("#ref-live .undo .confirm button[name=event]"), gap)
        self.check_once(page, "undo confirm", gap, size, {"type": "undo"}, n)
        self.choose(page, "play", next(gaps), size)

        # the frame's last ball (the pink potted first), then "Próxima partida" in its place
        self.clock(page, 5000)
        n = len(self.log())
        page.locator("#ref-live .row.balls button.ball-6:not([disabled])").first.tap()
        self.wait_board(page, n + 1)
        n, gap = len(self.log()), next(gaps)
        self.double_tap(page, page.locator("#ref-live .row.balls button.ball-7:not([disabled])").first, gap)
        self.check_once(page, "frame's last ball", gap, size, {"type": "pot", "balls": [7]}, n)
        n, gap = len(self.log()), next(gaps)
        self.double_tap(page, page.locator("#ref-live button", has_text="Próxima partida"), gap)
        self.check_once(page, "Próxima partida", gap, size, {"type": "next_frame"}, n)
        assert self.served()["state"]["frame_number"] == 2


@pytest.mark.browser
class OfflineDoubleTapTest(EngineCase):
    def test_offline_double_taps_queue_one_tap_each_kept_through_a_reload_and_a_discard_asks_first(self):
        """Offline, each double tap queues one tap (a foul by the dialog, "Passar", a foul,
        "Jogar"); the tablet is reloaded with its queue; back online exactly those four are
        stored. Then three offline taps are discarded (asked first) and the board is the
        server's at once, before any reconnection."""
        from playwright.sync_api import sync_playwright

        self.now = 1_900_000_000_000
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser, viewport=(1024, 768))
            self.clock(page, 0)
            self.engine_ready(page)
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=10000)
            want = []
            for i, gap in enumerate(GAPS + [60]):
                n = page.evaluate("() => refereeQueue.length()")
                if i % 2 == 0:  # a foul by the dialog (the decision's choices come where it was)
                    self.clock(page, 5000)
                    page.locator("#ref-live button[data-action=foul]").first.tap()
                    page.wait_for_selector("#foul-dialog[open] #foul-form button[data-close-dialog]:not([disabled])")
                    DoubleTapTest.double_tap(self, page, page.locator("#foul-dialog button[data-close-dialog]"), gap)
                    want.append("foul")
                else:
                    choice = "pass" if i == 1 else "play"
                    DoubleTapTest.double_tap(self, page, page.locator(f'#ref-live button[data-choice="{choice}"]'), gap)
                    want.append(choice)
                page.wait_for_function("(n) => refereeQueue.length() === n && !refereeQueue.applying()", arg=n + 1,
                                       timeout=10000)
                settled(page)
                assert page.evaluate("() => refereeQueue.length()") == n + 1, (i, gap)
            assert self.log() == []
            page.reload()  # offline: the service worker's page, the queue kept
            page.wait_for_function("() => window.refereeQueue && refereeQueue.length() === 4", timeout=30000)
            offline(ctx, self.net, False)
            page.wait_for_function(f"() => ({SEQ})() === 4 && refereeQueue.length() === 0", timeout=60000)
            events = [e["event"] for e in self.log()]
            assert [e.get("choice", e["type"]) for e in events] == want, events

            # three taps offline, discarded: asked first, far from "Tentar agora"; then the server's board
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=10000)
            served_board = page.evaluate(BOARD)
            for n in (1, 2, 3):
                self.clock(page, 5000)
                if n == 2:
                    page.locator("#ref-live .row.balls button.ball-7:not([disabled])").first.tap()
                else:
                    page.locator("#ref-live .row.balls button.ball-1:not([disabled])").first.tap()
                page.wait_for_function("(n) => refereeQueue.length() === n", arg=n, timeout=10000)
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
            page.wait_for_function(f"(b) => refereeQueue.length() === 0 && ({BOARD})() === b", arg=served_board,
                                   timeout=10000)
            frames(page)
            # the server's board at once, offline: its seq and phase, its scores, its log lines
            served = self.served()
            assert page.evaluate(BOARD) == f"{served['seq']}:{served['state']['phase']}"
            assert page.locator("#ref-live .ref-score").all_inner_texts() == [str(x) for x in served["state"]["scores"]]
            assert page.locator("#ref-live .ref-log li").count() == 4
            assert len(self.log()) == 4
            browser.close()

    def clock(self, page, step: int) -> None:
        DoubleTapTest.clock(self, page, step)
