"""One renderer, seen in the browser: random legal matches (``sinuca.simulate``) tapped through
the referee tablet, online and offline, and after every tap the tablet's ``#ref-live`` (what the
page swapped in: the engine's drawing, in Pyodide) is the server's page for the same events
(fetched over HTTP, serialised by the same browser). Online the engine's optimistic drawing is
compared with the server's answer that replaces it (and with the page fetched, every tenth tap); offline the events go to a second match on
the server, whose page must equal what the tablet drew without the network.
"""
from __future__ import annotations

import json
import random
import re

from concurrent.futures import ThreadPoolExecutor

import httpx

from scoreboard.core import log
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import RefereeCredential
from sinuca import Match, simulate

from browser import ARGS, CHROMIUM
from test_browser_tablet_engine import SEQ, EngineCase

OPEN = re.compile(r'<div id="ref-live"[^>]*>')
# The region as the browser serialises it, without what the page's gestures change on it
# ("Mais ações" left open, a confirmation arming).
NORMALISED = """(html) => {
  const t = document.createElement('template');
  t.innerHTML = html;
  t.content.querySelectorAll('details').forEach(d => d.removeAttribute('open'));
  t.content.querySelectorAll('.arming').forEach(d => d.classList.remove('arming'));
  return t.innerHTML;
}"""
# 24 and 10 events with seed 2913: each half has fouls, decisions, undos and a frame's end (asserted
# below; offline a free ball, a retorno and the frame's last balls too), 40 taps (a foul, an undo:
# two taps). Every tap is compared whole, so a short walk that meets every kind proves what a
# long one did, at a third of its time.
SEED, TAPS_ONLINE, TAPS_OFFLINE = 2913, 24, 10
KINDS = {"pot", "no_pot", "foul", "decision", "undo", "next_frame"}


def _compact(ev: dict) -> dict:
    """An event as the tablet's buttons carry it (no false flags)."""
    return {k: v for k, v in ev.items() if v is not False}


class RandomMatchesTest(EngineCase):
    def setUp(self):
        super().setUp()
        self.created = create_match("Ana <b>Souza</b>", "Bia & Lima", first_breaker=0, reds=6, frames_to_win=5)
        self.mid = self.created.match.pk
        self.taps = 0

    def server_client(self, mid: int) -> httpx.Client:
        c = httpx.Client(base_url=self.live_server_url, timeout=20, headers={"Accept-Language": "pt-BR"},
                         follow_redirects=True)
        assert c.get(login_path(RefereeCredential.objects.get(match_id=mid))).status_code == 200
        return c

    def server_region(self, client: httpx.Client, mid: int, page) -> str:
        return self.both_regions(client, mid, page)[1]

    def both_regions(self, client: httpx.Client, mid: int, page) -> tuple[str, str]:
        """The tablet's region and the server's page's (its URLs those of the tablet's match),
        both serialised by the browser in one call."""
        text = client.get(f"/matches/{mid}/live/referee/").text
        inner = OPEN.split(text, 1)[1].rsplit("</div>", 1)[0].replace(f"/matches/{mid}/", f"/matches/{self.mid}/")
        return tuple(page.evaluate(f"""(html) => [({NORMALISED})(document.getElementById('ref-live').innerHTML),
                                                   ({NORMALISED})(html)]""", inner))

    @staticmethod
    def tablet_region(page) -> str:
        return page.evaluate(f"() => ({NORMALISED})(document.getElementById('ref-live').innerHTML)")

    @staticmethod
    def wait(page, condition: str, arg, ev, timeout: int = 15000):
        """Wait for ``condition``; on a time-out, say where the tablet stood."""
        try:
            page.wait_for_function(condition, arg=arg, timeout=timeout)
        except Exception:
            where = page.evaluate(f"() => [({SEQ})(), refereeQueue.length(), refereeQueue.state(),"
                                  " document.getElementById('ref-msg').textContent, window.__drawn !== null]")
            raise AssertionError(f"after {ev} (tap {arg}): seq, queue, state, message, drawn = {where}") from None

    def tap(self, page, locator):
        """Tap ``locator`` a second after the previous tap on the page's clock: past the guard's
        half second (a second tap at the same spot within it is a finger's double tap, dropped:
        referee-ui.js); only a tap at the previous tap's spot waits for it in real time."""
        self.now += 1000
        page.clock.set_fixed_time(self.now / 1000)
        # the touches' own times are not the page's clock: at the spot of the previous tap the
        # guard also waits for half a second between the two touches
        box = locator.bounding_box()
        page.wait_for_function("([x, y]) => refereeGuard.ready(x, y)",
                               arg=[box["x"] + box["width"] / 2, box["y"] + box["height"] / 2], timeout=5000)
        locator.tap()
        self.taps += 1

    def play(self, page, ev: dict) -> None:
        """Tap ``ev`` on the tablet: its button, or the foul dialog filled in and confirmed."""
        ev = _compact(ev)
        if ev["type"] == "foul":
            self.tap(page, page.locator("#ref-live button[data-action=foul]").first)
            page.wait_for_selector("#foul-dialog[open] #foul-form", timeout=10000)
            fields = [["kind", "" if ev.get("kind") == "other" else ev.get("kind", "")]]
            for name in ("nominated", "free_ball"):
                if name in ev:
                    fields.append([name, str(ev[name])])
            fields += [[flag, "1"] for flag in ("snooker", "retorno", "aggravated") if ev.get(flag)]
            missing = page.evaluate("""(fields) => {
              const f = document.getElementById('foul-form');
              for (const [n, v] of fields) {
                const i = f.querySelector(`input[name="${n}"][value="${v}"]`);
                if (!i) return n + '=' + v;
                i.checked = true;
              }
              f.dispatchEvent(new Event('change', {bubbles: true}));
              return null;
            }""", fields)
            assert missing is None, (missing, ev)
            confirm = page.locator("#foul-dialog button[data-close-dialog]:not([disabled])")
            self.tap(page, confirm)
            page.wait_for_function("() => !document.getElementById('foul-dialog').open", timeout=10000)
            return
        target = json.dumps(ev, sort_keys=True)
        buttons = page.evaluate("""() => [...document.querySelectorAll('#ref-live button[name=event]')]
            .map((b, i) => [i, b.value, b.disabled, !!b.closest('details.more'), !!b.closest('.confirmable')])""")
        found = [b for b in buttons if json.dumps(json.loads(b[1]), sort_keys=True) == target]
        assert found, (ev, [b[1] for b in buttons])
        i, _, disabled, in_more, confirmable = found[0]
        assert not disabled, ev
        button = page.locator("#ref-live button[name=event]").nth(i)
        if in_more:
            page.evaluate("() => { document.querySelector('#ref-live details.more').open = true; }")
        if confirmable:
            self.tap(page, button.locator("xpath=ancestor::div[contains(@class,'confirmable')][1]/button[contains(@class,'ask')]"))
            page.wait_for_function("(i) => { const b = document.querySelectorAll('#ref-live button[name=event]')[i];"
                                   " return b.checkVisibility() && !b.disabled; }", arg=i, timeout=5000)
        self.tap(page, button)

    def next_events(self, m: Match, rng: random.Random, n: int):
        """``n`` legal events of a random match (refused draws drawn again, as simulate plays)."""
        played = 0
        while played < n:
            ev = simulate.next_event(m, rng, undo_rate=0.06)
            if ev is None:
                return
            try:
                m.apply(ev)
            except Exception:  # noqa: BLE001 - the engine refused the draw: draw again
                continue
            played += 1
            yield ev

    def test_random_matches_online_and_offline_the_tablet_draws_the_servers_page_after_every_tap(self):
        from playwright.sync_api import sync_playwright

        rng, m = random.Random(SEED), Match(self.created.match.config)
        events: list[dict] = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser)
            self.now = 1_900_000_000_000  # the page's Date.now(), moved by the test only
            page.clock.set_fixed_time(self.now / 1000)
            self.engine_ready(page)
            page.evaluate("""() => { document.addEventListener('tablet:drawn', () => {
                window.__drawn = document.getElementById('ref-live').innerHTML; }); }""")
            server_a = self.server_client(self.mid)

            # online: the engine's drawing of each tap, then the server's answer, equal the server's page
            for ev in self.next_events(m, rng, TAPS_ONLINE):
                page.evaluate("() => { window.__drawn = null; }")
                self.play(page, ev)
                events.append(ev)
                self.wait(page, f"(n) => ({SEQ})() === n && refereeQueue.length() === 0"
                          " && !document.getElementById('ref-live').hasAttribute('data-local')"
                          " && window.__drawn !== null", len(events), ev)
                # the board now is the server's answer to the tap (the page's live partial for this
                # seq); every tenth tap it is also fetched as a page would
                served = self.tablet_region(page)
                if len(events) % 10 == 0:
                    assert self.both_regions(server_a, self.mid, page) == (served, served), (len(events), ev)
                drawn = page.evaluate(f"() => ({NORMALISED})(window.__drawn)")
                assert drawn == served, (len(events), ev)
            online = len(events)
            assert {e["type"] for e in events} >= KINDS, events

            # offline: a second match on the server gets the same events; its page is the tablet's
            twin = create_match("Ana <b>Souza</b>", "Bia & Lima", first_breaker=0, reds=6, frames_to_win=5).match.pk
            # off Playwright's thread (its event loop): the commit's publisher runs as on the server
            pool = ThreadPoolExecutor(1)
            for i, ev in enumerate(events):
                pool.submit(log.append_event, twin, ev, expected_seq=i).result()
            server_b = self.server_client(twin)
            ctx.set_offline(True)
            page.wait_for_function("() => navigator.onLine === false", timeout=5000)
            for ev in self.next_events(m, rng, TAPS_OFFLINE):
                queued = page.evaluate("() => refereeQueue.length()")
                self.play(page, ev)
                events.append(ev)
                self.wait(page, "(n) => refereeQueue.length() === n", queued + 1, ev)
                pool.submit(log.append_event, twin, ev, expected_seq=len(events) - 1).result()
                tablet, served = self.both_regions(server_b, twin, page)
                assert tablet == served, (len(events), ev)
            assert len(events) - online == TAPS_OFFLINE
            assert {e["type"] for e in events[online:]} >= KINDS, events[online:]

            # back online: the queue goes in, in order, and the server's page is still the tablet's
            ctx.set_offline(False)
            page.wait_for_function(f"(n) => ({SEQ})() === n && refereeQueue.length() === 0", arg=len(events),
                                   timeout=60000)
            assert len(self.log()) == len(events)
            assert self.served()["state"]["scores"] == list(m.state()["scores"])
            tablet, served = self.both_regions(server_a, self.mid, page)
            assert tablet == served
            assert self.taps >= 40, self.taps
            browser.close()
