"""The tablet carries the rules: the sinuca package runs in the tablet's browser (Pyodide), so the
legal buttons, the foul preview and each tap's result come from the engine itself, offline too,
before the server answers; the server's log stays the truth. In Debian's chromium, with touch, at
1280×800 and 800×1280.
"""
from __future__ import annotations

import json
import pathlib

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

import sinuca
from presentation.tablet import TabletEngine
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium, settled, until, until_async, ENGINE_READY
from netcut import NetCut, offline
from rules_tablet import CHIPS, RECT, chips_beside_buttons, close_rule, nothing_taken, open_rule, open_why, overlap

SEQ = "() => +document.getElementById('live-seq').dataset.seq"
SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
PYODIDE = pathlib.Path(__file__).resolve().parents[2] / "static" / "vendor" / "pyodide" / "pyodide.asm.wasm"
ENABLED_BALLS = ("() => [...document.querySelectorAll('#ref-live .ref-controls .row.balls button.ball:not(.multi)')]"
                 ".filter(b => !b.disabled && !b.textContent.includes('Livre')).map(b => b.value)")
STATIC = override_settings(STORAGES={
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})


def pots(*balls) -> list[str]:
    return [json.dumps({"type": "pot", "balls": [b]}, separators=(",", ":")) for b in balls]


@pytest.mark.browser
@STATIC
class EngineCase(ChannelsLiveServerTestCase):
    """The tablet opens the live server through a relay (``self.net``), so that "offline" is a
    real cut (:func:`netcut.offline`); the test reads the server directly."""

    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        if not PYODIDE.exists():
            pytest.fail(f"{PYODIDE} is missing: bash -c 'source scripts/lib.sh; ensure_pyodide'")
        SHOTS.mkdir(exist_ok=True)
        self.created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
        self.mid = self.created.match.pk
        self.net = NetCut(self.live_server_url)
        self.addCleanup(self.net.close)

    def served(self) -> dict:
        return httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/", timeout=10).json()

    def log(self) -> list[dict]:
        return httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/events/", timeout=10).json()["events"]

    def tablet(self, browser, viewport=(1280, 800), before=None):
        ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, has_touch=True,
                                  locale="pt-BR")
        if before:
            before(ctx)
        page = ctx.new_page()
        page.goto(self.net.url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
        page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
        return ctx, page

    @staticmethod
    def engine_ready(page):
        page.wait_for_function(ENGINE_READY,
                               timeout=90000)
        assert page.evaluate("() => sinucaEngine.failed") is None
        assert page.inner_text("#engine-status") == "Regras no tablet: prontas"

    @staticmethod
    def tap_ball(page, n):
        page.locator(f"#ref-live .row.balls button.ball-{n}:not([disabled]):not(.multi)").filter(
            has_not_text="Livre").first.tap()

    @staticmethod
    def tap_text(page, text):
        page.locator("#ref-live button:not([disabled])").filter(has_text=text).first.tap()

    @staticmethod
    def scores(page) -> list[str]:
        return page.locator("#ref-live .ref-score").all_text_contents()


class OfflineBreakTest(EngineCase):
    def test_a_whole_break_offline_with_a_foul_and_a_free_ball_then_the_logs_agree(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser, viewport=(800, 1280))
            self.engine_ready(page)
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=30000)

            # red: only the colours are legal now (the engine says so; on main every ball was enabled)
            self.tap_ball(page, 1)
            page.wait_for_function("() => document.querySelectorAll('#ref-live .ref-score')[0].textContent === '1'",
                                   timeout=30000)
            assert page.evaluate(ENABLED_BALLS) == pots(2, 3, 4, 5, 6, 7)
            self.tap_ball(page, 5)
            page.wait_for_function("() => document.querySelectorAll('#ref-live .ref-score')[0].textContent === '6'",
                                   timeout=30000)
            assert page.evaluate(ENABLED_BALLS) == pots(1)
            self.tap_ball(page, 1)
            page.wait_for_function(f"v => JSON.stringify(({ENABLED_BALLS})()) === v",
                                   arg=json.dumps(pots(2, 3, 4, 5, 6, 7), separators=(",", ":")), timeout=30000)
            assert self.scores(page) == ["7", "0"]
            page.screenshot(path=str(SHOTS / "tablet-engine-offline-800x1280.png"))

            # a foul offline: the engine's dialog and preview (a miss of the blue, leaving a snooker)
            self.tap_text(page, "Falta…")
            # a colour is owed: the engine's dialog asks which one was aimed at first, nothing chosen
            page.wait_for_selector("#foul-dialog[open] #foul-preview p.pv-ask", timeout=30000)
            assert page.locator("#foul-dialog button[data-close-dialog]").is_disabled()
            page.locator("#foul-form input[name=nominated][value='5']").check(force=True)
            page.locator("#foul-form input[name=ball][value='5']").check(force=True)
            page.locator("#foul-form label.chip").filter(has_text="Deixou sinuca").tap()
            page.wait_for_function("() => { const p = document.querySelector('#foul-preview .pv-penalty');"
                                   " return p && p.textContent === '5 pontos para Bia Lima (Art. 40)'; }", timeout=30000)
            assert page.inner_text("#foul-preview .pv-retorno") == \
                "Retorno possível (Art. 25): marque “Falta e retorno” para oferecê-lo a Bia Lima"
            page.screenshot(path=str(SHOTS / "tablet-engine-offline-foul-800x1280.png"))
            # the preview's "Art. 40": the article's words from the engine, offline, over the
            # dialog's fields (its preview and "Confirmar falta" in sight); closing keeps the dialog
            open_rule(page, page.locator("#foul-preview .pv-penalty .art"), "40")
            assert not overlap(page.evaluate(RECT, "#rule-dialog"), page.evaluate(RECT, "#foul-form .foul-actions"))
            page.screenshot(path=str(SHOTS / "tablet-rule-preview-offline-800x1280.png"))
            close_rule(page)
            assert page.evaluate("() => document.getElementById('foul-dialog').open")
            page.locator("#foul-dialog button.danger").tap()
            page.wait_for_function("() => !document.getElementById('foul-dialog').open", timeout=30000)
            assert self.scores(page) == ["7", "5"]
            decision = page.locator("#ref-live .decision-list .choice-label").all_text_contents()
            # no "falta e retorno" called: no replay; the snooker left makes "play" a free ball (Art. 36)
            assert decision == ["Jogar com bola livre", "Passar"], decision
            # each choice's articles: chips beside its button (none inside: the choice is one tap)
            assert page.evaluate(CHIPS)["chips"] == [["35.3", "36"], ["35.4"]]
            assert not [t for t in page.locator("#ref-live button.choice").all_inner_texts() if "Art." in t]
            # the decision's "Art." (its heading, a choice's chip) opens its article, over the
            # board and never over the controls, at the three sizes; a log line opens its why
            play_art = page.locator("#ref-live .ref-head .art").first
            chip = page.locator("#ref-live .choice-item:has(button[data-choice=play]) .art[data-art='36']")
            for w, h in ((800, 1280), (1280, 800), (1024, 768)):
                page.set_viewport_size({"width": w, "height": h})
                chips_beside_buttons(page)
                page.screenshot(path=str(SHOTS / f"tablet-decision-chips-{w}x{h}.png"))
                open_rule(page, chip, "36")
                assert not overlap(page.evaluate(RECT, "#rule-dialog"), page.evaluate(RECT, "#ref-live .ref-controls"))
                close_rule(page)
                open_rule(page, play_art, play_art.get_attribute("data-art"))
                assert not overlap(page.evaluate(RECT, "#rule-dialog"), page.evaluate(RECT, "#ref-live .ref-controls"))
                page.screenshot(path=str(SHOTS / f"tablet-rule-decision-{w}x{h}.png"))
                close_rule(page)
            page.set_viewport_size({"width": 800, "height": 1280})
            facts = open_why(page, page.locator("#ref-live .ref-log li[data-why='4']"), 4)
            assert facts == ["Partida: 1 (partidas: 0–0)", "Placar: Ana Souza 7 × Bia Lima 0", "Na mesa: Ana Souza",
                             "Bola da vez: colorida", "Vermelhas: 13", "Tacada: 7"], facts
            assert "Art. 40 — Penalidade variável" in page.inner_text("#rule-dialog .why-rules")
            page.screenshot(path=str(SHOTS / "tablet-rule-why-800x1280.png"))
            open_rule(page, page.locator("#rule-dialog .why-rules .art[data-art='40']"), "40")
            close_rule(page)
            nothing_taken(page, 0, queued=4)

            # Bia plays with the free ball (Art. 36): the yellow named as a red, then a colour
            self.tap_text(page, "Jogar")
            page.wait_for_selector("#ref-live .freeball button", timeout=30000)
            free = page.locator("#ref-live .freeball button").all_text_contents()
            assert free == ["Livre: amarela", "Livre: verde", "Livre: marrom", "Livre: azul", "Livre: rosa",
                            "Livre: preta"], free
            page.locator("#ref-live .freeball button").filter(has_text="Livre: amarela").tap()
            page.wait_for_function("() => document.querySelectorAll('#ref-live .ref-score')[1].textContent === '6'",
                                   timeout=30000)
            assert page.evaluate(ENABLED_BALLS) == pots(2, 3, 4, 5, 6, 7)
            self.tap_ball(page, 7)
            self.tap_text(page, "Sem ponto")
            page.wait_for_function("() => document.querySelectorAll('#ref-live .ref-score')[1].textContent === '13'",
                                   timeout=30000)
            page.wait_for_function("() => refereeQueue.length() === 8", timeout=30000)
            assert self.log() == []  # nothing reached the server
            items = page.evaluate("() => refereeQueue.items().map(q => q.label)")
            assert items[0] == "Ana Souza encaçapa uma vermelha: +1, tacada 1", items
            # the queue list: one numbered line per tap, no value run into the next number
            lines = page.inner_text("#tap-queue .tq-list").split("\n")
            assert lines[:2] == ["1. Ana Souza encaçapa uma vermelha: +1, tacada 1",
                                 "2. Ana Souza encaçapa a azul (5): +5, tacada 6"], lines
            local = page.evaluate("() => sinucaEngine.call({op: 'state'})")

            # back online: the server takes the whole queue and its log is the tablet's
            offline(ctx, self.net, False)
            page.wait_for_function(f"() => ({SEQ})() === 8 && refereeQueue.length() === 0", timeout=30000)
            served, log = self.served(), self.log()
            assert [e["event"] for e in log] == local["events"]
            assert served["state"] == local["state"]
            assert served["state"]["scores"] == [7, 13]
            page.wait_for_function("() => sinucaEngine.serverEvents().length === 8", timeout=30000)
            assert page.evaluate("() => sinucaEngine.serverEvents()") == local["events"]
            # and the tablet's view is the one the server computes from its log (same function)
            view = page.evaluate("() => sinucaEngine.call({op: 'view'})")["view"]
            expected = TabletEngine(served["config"], [e["event"] for e in log], "pt", view["urls"]).view()
            assert view == json.loads(json.dumps(expected))
            assert self.scores(page) == ["7", "13"]
            # online, the engine still draws the rules: a log line's "Art.", the foul dialog's
            # preview, and a decision's choice once another device records a foul
            open_rule(page, page.locator("#ref-live .ref-log li[data-why='4'] .art[data-art='40']"), "40")
            close_rule(page)
            self.tap_text(page, "Falta…")
            page.wait_for_selector("#foul-dialog[open] #foul-preview .art", timeout=30000)
            preview = page.locator("#foul-preview .art").first
            open_rule(page, preview, preview.get_attribute("data-art"))
            close_rule(page)
            page.locator("#foul-dialog [data-action=close-dialog]").tap()
            r = httpx.post(f"{self.live_server_url}/api/matches/{self.mid}/events/",
                           headers={"Authorization": f"Bearer {self.created.token}"},
                           json={"event": {"type": "foul", "kind": "cue_ball_potted", "ball": 1}}, timeout=10)
            assert r.status_code == 201, r.text
            page.wait_for_function(f"() => ({SEQ})() === 9", timeout=30000)
            heading = page.locator("#ref-live .ref-head .art").last
            open_rule(page, heading, heading.get_attribute("data-art"))
            close_rule(page)
            chips_beside_buttons(page)
            open_rule(page, page.locator("#ref-live .choice-arts .art[data-art='35.4']"), "35.4")
            close_rule(page)
            nothing_taken(page, 9)
            browser.close()


class RefusedQueuedTapTest(EngineCase):
    def test_a_queued_tap_the_server_refuses_is_named_with_the_servers_words(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser)
            self.engine_ready(page)
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_ball(page, 1)
            self.tap_ball(page, 7)
            page.wait_for_function("() => refereeQueue.length() === 2", timeout=30000)
            # meanwhile the other device of the match scores a miss through the API
            r = httpx.post(f"{self.live_server_url}/api/matches/{self.mid}/events/",
                           headers={"Authorization": f"Bearer {self.created.token}"},
                           json={"event": {"type": "no_pot"}}, timeout=10)
            assert r.status_code == 201, r.text
            offline(ctx, self.net, False)
            page.wait_for_selector("#tap-queue.blocked", timeout=30000)
            head = page.inner_text("#tap-queue .tq-head")
            assert head == "Toque recusado (409): toque 1 de 2 — Ana Souza encaçapa uma vermelha: +1, tacada 1", head
            why = page.inner_text("#tap-queue .tq-why")
            assert why == "O servidor respondeu: O placar mudou em outro aparelho; confira a tela e toque de novo.", why
            page.screenshot(path=str(SHOTS / "tablet-engine-refused-1280x800.png"))
            # the board is the server's again (Bia at the table after the miss), the engine with it
            page.wait_for_function(f"() => ({SEQ})() === 1", timeout=30000)
            page.wait_for_function("() => sinucaEngine.serverEvents().length === 1", timeout=30000)
            assert self.scores(page) == ["0", "0"]
            assert page.inner_text("#ref-live .ref-player.at-table .ref-name") == "▶ Bia Lima"
            assert len(self.log()) == 1
            browser.close()


class EngineLoadFailureTest(EngineCase):
    def test_without_the_wasm_the_tablet_says_so_works_as_before_and_keeps_trying_until_it_loads(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            blocked = []

            def block(ctx):
                def abort(route):
                    blocked.append(route.request.url)
                    route.abort()
                ctx.route("**/*.wasm", abort)

            ctx, page = self.tablet(browser, before=block)
            box = page.locator("#engine-status").bounding_box()
            page.wait_for_function("() => window.sinucaEngine && sinucaEngine.failed", timeout=60000)
            assert blocked, "the wasm was never asked for"
            assert page.inner_text("#engine-status").startswith("Regras só no servidor por enquanto: nova tentativa em ")
            # a fixed-size status: nothing moved when its text changed
            assert page.locator("#engine-status").bounding_box() == box
            assert box["height"] == 18
            # the tablet scores as before: the server answers the tap
            self.tap_ball(page, 1)
            page.wait_for_function(f"() => ({SEQ})() === 1", timeout=30000)
            assert self.scores(page) == ["1", "0"]
            # without the engine a log line's why is the server's (the same function draws it)
            facts = open_why(page, page.locator("#ref-live .ref-log li[data-why='1']"), 1)
            assert facts == ["Partida: 1 (partidas: 0–0)", "Placar: Ana Souza 0 × Bia Lima 0", "Na mesa: Ana Souza",
                             "Bola da vez: 1 (vermelha)", "Vermelhas: 15", "Tacada: 0"], facts
            close_rule(page)
            # and offline as before: the colour buttons enabled, the server checks on reconnect
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_text(page, "Sem ponto")
            page.wait_for_function("() => document.getElementById('tap-queue').textContent.includes('1 toque na fila')",
                                   timeout=30000)
            page.wait_for_function("() => document.querySelectorAll('#ref-live .ref-controls button.offline-enabled').length > 0",
                                   timeout=30000)
            # the queue list names each tap on its own numbered line ("1. Vermelha 12. Sem ponto" before)
            self.tap_ball(page, 1)
            page.wait_for_function("() => document.getElementById('tap-queue').textContent.includes('2 toques na fila')",
                                   timeout=30000)
            assert page.inner_text("#tap-queue .tq-list").split("\n") == ["1. Sem ponto", "2. Vermelha (1)"]
            page.screenshot(path=str(SHOTS / "tablet-engine-failed-1280x800.png"))
            # the load is tried again in the background until it succeeds (it gave up for good before)
            ctx.unroute("**/*.wasm")
            offline(ctx, self.net, False)
            page.wait_for_function("() => sinucaEngine.loaded && !sinucaEngine.failed", timeout=90000)
            assert page.evaluate("() => sinucaEngine.attempts") > 1
            assert page.inner_text("#engine-status") == "Regras no tablet: prontas"
            page.wait_for_function(f"() => ({SEQ})() === 3", timeout=20000)  # the queued taps went in
            # the rules page: an anchor of no article says so in both languages, one that exists does not
            rules = ctx.new_page()
            rules.goto(f"{self.net.url}/rules/#art-0")
            assert rules.locator("#bad-anchor").is_visible()
            assert rules.inner_text("#bad-anchor") == ("Este artigo não existe nas regras (artigos 1 a 55). / "
                                                       "This article is not in the rules (articles 1 to 55).")
            rules.goto(f"{self.net.url}/rules/#art-25.5")
            assert not rules.locator("#bad-anchor").is_visible()
            browser.close()


class TapOnItsWayAtTheCutTest(EngineCase):
    def test_a_tap_taken_while_the_previous_one_is_on_its_way_and_the_network_drops_is_never_dropped(self):
        """A referee's tap was lost, neither sent nor queued (seen under load, the network really
        cut). Tap A is on its way when the network drops, and tap B is taken offline: the queue
        marked itself "offline" under A, so the network's return sent A a second time, and A's
        two answers each took a tap off the queue, the second one B, still on its way; when B's
        send failed, nothing was left to send again. The order that lost it is held in place
        here: A's first send waits until the network is back, B's first send fails."""
        from urllib.parse import parse_qs

        from playwright.sync_api import sync_playwright

        sends: list[str] = []  # the key of each send, in order
        held: dict[str, object] = {}  # a key's first send, held until the test lets it go
        finished: list[str] = []  # the keys of the sends that have had their answer (or failed)

        def key_of(request) -> str:
            return parse_qs(request.post_data or "").get("key", [""])[0]

        def route_taps(route):
            key = key_of(route.request)
            first = key not in sends
            sends.append(key)
            if first and len(set(sends)) <= 2:  # the first send of A and of B waits
                held[key] = route
            else:
                route.continue_()

        def done(request):
            if request.method == "POST" and "/referee/event/" in request.url:
                finished.append(key_of(request))

        def taps(ctx):
            ctx.route("**/*.wasm", lambda route: route.abort())  # the engine off: the queue alone
            ctx.route("**/referee/event/", route_taps)
            ctx.on("requestfinished", done)
            ctx.on("requestfailed", done)
            # no send time-out (8 s): a send waits as long as the test holds it, however slow the machine
            ctx.add_init_script("delete window.AbortController")

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser, before=taps)
            page.wait_for_function("() => window.sinucaEngine && sinucaEngine.failed", timeout=60000)
            self.tap_ball(page, 1)  # A
            until(page, lambda: len(held) == 1)
            a = sends[0]
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_text(page, "Sem ponto")  # B, offline, A still on its way
            page.wait_for_function("() => refereeQueue.length() === 2", timeout=30000)
            offline(ctx, self.net, False)
            page.wait_for_function("() => navigator.onLine === true", timeout=30000)
            held.pop(a).continue_()  # A reaches the server: 200
            # B's first send, once every send of A has had its answer
            until(page, lambda: len(held) == 1 and finished.count(a) == sends.count(a))
            (b,) = held
            held.pop(b).abort("connectionreset")
            # B is sent again and recorded: nothing the referee tapped is lost
            page.wait_for_function(f"() => ({SEQ})() === 2 && refereeQueue.length() === 0", timeout=30000)
            assert [e["event"] for e in self.log()] == [{"type": "pot", "balls": [1]}, {"type": "no_pot"}]
            assert sends.count(a) == 1, sends  # A went once: the network's return did not send it again
            assert sends.count(b) == 2, sends
            assert self.scores(page) == ["1", "0"]
            browser.close()


class TapBeforeAnswerTest(EngineCase):
    def test_the_tap_shows_its_result_from_the_engine_before_a_slow_server_answers(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)

            def slow_server(ctx):
                # the server 300 ms away: every tap's POST waits before it leaves the page
                ctx.add_init_script("""(() => {
                    const f = window.fetch; window.__answers = 0;
                    window.fetch = (u, o) => (o && o.method === 'POST')
                      ? new Promise(r => setTimeout(r, 300)).then(() => f(u, o)).then(x => { window.__answers++; return x; })
                      : f(u, o);
                })()""")

            ctx, page = self.tablet(browser, before=slow_server)
            self.engine_ready(page)
            assert page.evaluate("() => crossOriginIsolated")  # the worker answers through shared memory
            # the start-up is over: the engine replayed the log and its worker answers (a call
            # of its own, before the tap's count is taken)
            page.evaluate("() => sinucaEngine.ready.then(() => sinucaEngine.call({op: 'state'}))")
            settled(page)
            shared_before, slow_before = page.evaluate("() => [sinucaEngine.sharedAnswers, sinucaEngine.slowAnswers]")
            # frames counted by requestAnimationFrame: the one the tap's handler began in, and the
            # one its result reached the DOM in (a count, not milliseconds: a busy machine draws
            # fewer frames, and "≤ 16 ms" failed at 22 ms with load average 12)
            page.evaluate("""() => {
                window.__seen = null; window.__frames = 0; window.__tapFrame = null; window.__seenFrame = null;
                const tick = () => { window.__frames++; requestAnimationFrame(tick); };
                requestAnimationFrame(tick);
                window.addEventListener('htmx:configRequest', () => {
                  if (window.__tapFrame === null) window.__tapFrame = window.__frames;
                }, true);
                new MutationObserver(() => {
                  const s = document.querySelectorAll('#ref-live .ref-score')[0];
                  if (s && s.textContent === '1' && window.__seen === null) {
                    window.__seen = window.__answers; window.__seenFrame = window.__frames;
                  }
                }).observe(document.getElementById('ref-live').parentNode, {subtree: true, childList: true, characterData: true});
            }""")
            self.tap_ball(page, 1)
            page.wait_for_function("() => window.__seen !== null", timeout=30000)
            assert page.evaluate("() => window.__seen") == 0  # on screen before the server's answer
            assert page.inner_text("#ref-msg") == "Ana Souza encaçapa uma vermelha: +1, tacada 1"
            timings = page.evaluate("() => refereeQueue.timings()")
            assert len(timings) == 1, timings
            frames_seen = page.evaluate("() => [window.__tapFrame, window.__seenFrame]")
            shared, slow = page.evaluate("() => [sinucaEngine.sharedAnswers, sinucaEngine.slowAnswers]")
            assert shared + slow == shared_before + slow_before + 1, (shared, slow)
            if slow == slow_before:
                # answered through shared memory, within the tap's handler: drawn in the tap's own
                # frame, no frame between the handler and the result
                assert frames_seen[0] is not None and frames_seen[0] == frames_seen[1], (frames_seen, timings)
                print(f"tap to result: {timings[0]} ms, in the tap's frame")
            else:
                # the worker took longer than SPIN_MS (engine.js) to answer: a loaded machine (59 ms
                # beside the suite's other worker); its message brings the answer, still before the
                # server's. The frame budget is bench/'s to measure, on a quiet machine.
                print(f"tap to result: {timings[0]} ms, through the worker's message (busy machine)")
            # then the server's answer replaces it with its own rendering of seq 1
            page.wait_for_function(f"() => ({SEQ})() === 1 && refereeQueue.length() === 0", timeout=30000)
            assert page.evaluate("() => document.getElementById('ref-live').hasAttribute('data-local')") is False
            assert self.scores(page) == ["1", "0"]
            assert [e["event"] for e in self.log()] == [{"type": "pot", "balls": [1]}]
            browser.close()


class OfflineReloadTest(EngineCase):
    def test_a_tablet_that_loaded_once_keeps_its_engine_offline_after_a_reload(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser, viewport=(800, 1280))
            self.engine_ready(page)
            page.wait_for_function("() => sinucaEngine.serviceWorker === true", timeout=60000)
            # the service worker holds the page and Pyodide (awaited: wait_for_function took the
            # async check's Promise as true at once and waited for nothing)
            until_async(page, """async () => {
                const keys = await caches.keys();
                for (const k of keys) {
                  const urls = (await (await caches.open(k)).keys()).map(r => new URL(r.url).pathname);
                  if (urls.some(u => /\\/matches\\/\\d+\\/referee\\/$/.test(u)) && urls.some(u => u.endsWith('.wasm'))) return true;
                }
                return false;
            }""")
            # every tap the page sends while the network is cut (the queue must hold them: a
            # request bound to fail is no way to find the network back, and it depended on the
            # browser's emulation stopping each one)
            sent_offline = []
            ctx.on("request", lambda r: sent_offline.append(r.url)
                   if self.net.is_cut and r.method == "POST" and "/referee/event/" in r.url else None)
            self.tap_ball(page, 1)
            page.wait_for_function(f"() => ({SEQ})() === 1 && refereeQueue.length() === 0", timeout=30000)
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_ball(page, 7)
            page.wait_for_function("() => refereeQueue.length() === 1", timeout=30000)

            # the Wi-Fi is still down and the tablet reloads: page, Pyodide and the engine from the cache
            page.reload()
            self.engine_ready(page)
            page.wait_for_function("() => document.querySelectorAll('#ref-live .ref-score')[0].textContent === '8'",
                                   timeout=30000)
            assert page.evaluate(ENABLED_BALLS) == pots(1)  # the engine's legality, after the black
            assert page.evaluate("() => navigator.serviceWorker.controller !== null")
            assert page.locator("#ref-live .ref-log li").all_inner_texts() == [
                # numbered as on the server's page ("•" before)
                "2 Ana Souza encaçapa a preta (7): +7, tacada 8", "1 Ana Souza encaçapa uma vermelha: +1, tacada 1"]
            page.screenshot(path=str(SHOTS / "tablet-engine-offline-reload-800x1280.png"))
            assert self.log()[0]["event"] == {"type": "pot", "balls": [1]} and len(self.log()) == 1
            assert sent_offline == [], sent_offline  # the queued tap waited for the network
            assert page.evaluate("() => refereeQueue.state()") == "offline"

            offline(ctx, self.net, False)
            page.wait_for_function(f"() => ({SEQ})() === 2 && refereeQueue.length() === 0", timeout=30000)
            assert [e["event"] for e in self.log()] == [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}]
            assert self.served()["state"]["scores"] == [8, 0]
            browser.close()


class LoggedOutTabletTest(EngineCase):
    def test_a_tablet_whose_session_ended_shows_no_cached_referee_page_offline(self):
        """Issue 15, item 5: the referee page was sent without Cache-Control, and the service
        worker kept whatever the referee URL answered (the PIN form too, or a refusal's page
        never replaced its copy). Now the page is ``private, no-store``, the service worker keeps
        only a logged-in tablet's page, and an answer that is not one drops the copy: a tablet
        whose session ended shows no referee page offline."""
        from playwright.sync_api import sync_playwright

        cached = """async () => {
            for (const k of await caches.keys()) {
              const urls = (await (await caches.open(k)).keys()).map(r => new URL(r.url).pathname);
              if (urls.some(u => /\\/matches\\/\\d+\\/referee\\/$/.test(u))) return true;
            }
            return false;
        }"""

        def until_kept(page, want: bool, timeout: float = 30) -> None:
            until_async(page, cached, want=want, timeout=timeout * 1000)

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser)
            page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60000)
            until_kept(page, True)
            resp = page.reload()
            assert resp.headers["cache-control"] == "private, no-store"
            until_kept(page, True)  # the logged-in page is kept
            ctx.clear_cookies()  # the session ended
            page.reload()
            assert page.locator('input[name="pin"]').count() == 1 and page.locator("#ref-live").count() == 0
            until_kept(page, False, timeout=10)  # the PIN form dropped the copy
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=3000)
            try:
                page.reload()
            except Exception:  # noqa: BLE001 - offline with nothing kept: the browser's error page
                pass
            assert page.locator("#ref-live").count() == 0
            offline(ctx, self.net, False)
            browser.close()


class EngineCatchUpTest(EngineCase):
    def test_a_tap_while_the_engine_catches_up_with_the_log_goes_to_the_server(self):
        """Found in CI: between the engine's load and its first replay of the log it holds the
        opening position; a decision's choice tapped then was refused by it ("no decision
        pending") and never sent. Until it has caught up the server decides the tap."""
        from playwright.sync_api import sync_playwright
        from scoreboard.core import log

        log.append_event(self.mid, {"type": "foul", "retorno": True}, expected_seq=0)
        held = []

        def hold_second_sync(route):
            # the engine's own sync passes; referee.js's catch-up replay (the second) waits
            calls.append(route.request.url)
            if len(calls) >= 2:
                held.append(route)
            else:
                route.continue_()

        calls: list[str] = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser, before=lambda c: c.route("**/api/matches/*/events/*", hold_second_sync))
            page.wait_for_function("() => window.sinucaEngine && sinucaEngine.loaded", timeout=90000)
            assert page.evaluate("() => refereeQueue.engineOn()") is False
            page.locator('#ref-live button[data-choice="retorno"]').tap()
            page.wait_for_function(f"() => ({SEQ})() === 2", timeout=30000)
            assert [e["event"] for e in self.log()][1] == {"type": "decision", "choice": "retorno"}
            for route in held:
                route.continue_()
            page.wait_for_function("() => refereeQueue.engineOn()", timeout=30000)
            browser.close()
