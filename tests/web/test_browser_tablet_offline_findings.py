"""Issue 16's tablet findings, tried as a referee would (the engine loaded, then the network
cut): what the tablet draws offline says what the server's page says. Each assertion failed
on the code before the one renderer (a second drawing in referee.js), as noted beside it.
"""
from __future__ import annotations

from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM
from test_browser_tablet_engine import SEQ, SHOTS, EngineCase

MSG = "() => document.getElementById('ref-msg').textContent"
FACT_FRAME = "() => document.querySelector('#ref-live .ref-facts dd').textContent"


class OfflineFindingsTest(EngineCase):
    def setUp(self):
        super().setUp()
        self.created = create_match("Ana Souza", "Bia Lima", first_breaker=0, reds=6, frames_to_win=2)
        self.mid = self.created.match.pk

    def offline(self, ctx, page):
        ctx.set_offline(True)
        page.wait_for_function("() => navigator.onLine === false", timeout=5000)

    @staticmethod
    def confirm(page, ask_text, yes_text):
        page.evaluate("() => { const d = document.querySelector('#ref-live details.more'); if (d) d.open = true; }")
        page.locator("#ref-live button.ask").filter(has_text=ask_text).first.tap()
        yes = page.locator("#ref-live .confirming button.danger").filter(has_text=yes_text).first
        page.wait_for_function("() => { const b = document.querySelector('#ref-live .confirming button.danger');"
                               " return b && !b.disabled; }", timeout=5000)
        yes.tap()

    def foul(self, page, fields):
        self.tap_text(page, "Falta…")
        page.wait_for_selector("#foul-dialog[open] #foul-form", timeout=10000)
        assert page.evaluate("""(fields) => {
          const f = document.getElementById('foul-form');
          for (const [n, v] of fields) {
            const i = f.querySelector(`input[name="${n}"][value="${v}"]`);
            if (!i) return false;
            i.checked = true;
          }
          f.dispatchEvent(new Event('change', {bubbles: true}));
          return true;
        }""", fields)
        page.locator("#foul-dialog button[data-close-dialog]:not([disabled])").tap()
        page.wait_for_function("() => !document.getElementById('foul-dialog').open", timeout=5000)

    def test_offline_the_tablet_says_what_the_server_says(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser)
            self.engine_ready(page)
            self.offline(ctx, page)

            # a frame conceded and the next one started: the new frame's number ("Partida 1" before)
            self.tap_ball(page, 1)
            # a colour is owed, but "Tempo excessivo" is 7 points whatever the colour (Art. 49.4):
            # its "Confirmar falta" does not wait for the colour aimed at (it stayed disabled)
            self.tap_text(page, "Falta…")
            page.wait_for_selector("#foul-dialog[open] #foul-form[data-needs-nomination]", timeout=10000)
            confirm = page.locator("#foul-dialog button[data-close-dialog]")
            assert confirm.is_disabled()
            page.evaluate("""() => { const i = document.querySelector('#foul-form input[name=kind][value=slow_play]');
                i.checked = true; i.dispatchEvent(new Event('change', {bubbles: true})); }""")
            page.wait_for_function("() => !document.querySelector('#foul-dialog button[data-close-dialog]').disabled",
                                   timeout=5000)
            page.locator("#foul-dialog button[data-action=close-dialog]").tap()
            page.wait_for_function("() => !document.getElementById('foul-dialog').open", timeout=5000)
            self.confirm(page, "Bia Lima desiste da partida", "Sim, encerrar a partida")
            page.wait_for_selector("#ref-live button.huge", timeout=5000)
            self.tap_text(page, "Próxima partida")
            page.wait_for_function(f"() => ({FACT_FRAME})() === '2 · melhor de 3'", timeout=5000)

            # a disciplinary foul by the seated player: the warning shows at once (only after
            # reconnecting before)
            self.foul(page, [["kind", "slow_play"], ["player", "0"]])
            page.wait_for_function("() => document.querySelectorAll('#ref-live .ref-frames')[0].textContent"
                                   " === 'partidas: 1 · advertências: 1'", timeout=5000)

            # an undo reads as online, the undone line struck through and marked ("Último lance
            # desfeito pelo árbitro", no strike, "•" numbers before)
            self.tap_text(page, "Sem ponto")
            page.wait_for_function(f"(n) => document.querySelectorAll('#ref-live .ref-log li').length >= n", arg=5,
                                   timeout=5000)
            self.confirm(page, "Desfazer…", "Confirmar")
            page.wait_for_function("() => document.querySelector('#ref-live .ref-log li .seq').textContent === '6'",
                                   timeout=5000)
            lines = page.locator("#ref-live .ref-log li").all_inner_texts()
            assert lines[0].startswith("6 Desfaz o lance 5: "), lines
            assert lines[1].startswith("5 ANULADA "), lines  # "anulada", upper case by the page's style
            assert page.locator("#ref-live .ref-log li.undone s").count() == 1
            assert "•" not in "".join(lines)

            # the Art. 28 answer is confirmed at once (no word offline before) ...
            page.locator("#ref-live .art28 button[data-answer=yes]").tap()
            page.wait_for_function(f"() => ({MSG})().startsWith('Art. 28: SIM')", timeout=5000)
            # ... and a reload offline keeps it, so the next foul's "agravada" is ticked
            page.wait_for_function("() => refereeQueue.length() === 7", timeout=5000)
            page.reload()
            self.engine_ready(page)
            page.wait_for_function("() => document.querySelector('#ref-live .art28 button[data-answer=yes]')"
                                   ".getAttribute('aria-pressed') === 'true'", timeout=10000)
            self.tap_text(page, "Falta…")
            page.wait_for_selector("#foul-dialog[open] #foul-form", timeout=10000)
            assert page.locator("#foul-form input[name=aggravated]").is_checked()
            page.locator("#foul-dialog button[data-action=close-dialog]").tap()
            page.wait_for_function("() => !document.getElementById('foul-dialog').open", timeout=5000)

            # a malformed answer never shows "[object Object]": a tap the engine refuses says why
            page.evaluate("""() => {
              const b = document.createElement('button');
              b.name = 'event'; b.value = '{"type":"pot","balls":[9]}'; b.id = 'bad'; b.className = 'big';
              b.textContent = 'x';
              document.querySelector('#ref-live form.ref-controls').appendChild(b);
              if (window.htmx) htmx.process(b);
            }""")
            # past the tap guard's half second if it sits where the last tap landed
            box = page.locator("#bad").bounding_box()
            page.wait_for_function("([x, y]) => refereeGuard.ready(x, y)",
                                   arg=[box["x"] + box["width"] / 2, box["y"] + box["height"] / 2], timeout=5000)
            page.locator("#bad").tap()
            page.wait_for_function(f"() => ({MSG})().length > 0 && !({MSG})().startsWith('Art. 28')", timeout=5000)
            assert "[object Object]" not in page.evaluate(MSG)
            page.screenshot(path=str(SHOTS / "tablet-offline-findings-1280x800.png"))

            # back online: the server agrees with what the tablet showed
            ctx.set_offline(False)
            page.wait_for_function(f"() => ({SEQ})() === 6 && refereeQueue.length() === 0", timeout=30000)
            assert page.evaluate(FACT_FRAME) == "2 · melhor de 3"
            assert page.locator("#ref-live .ref-frames").nth(0).inner_text() == "partidas: 1 · advertências: 1"
            browser.close()


class TapBeforeScriptsTest(EngineCase):
    def test_a_tap_before_the_scripts_are_ready_does_not_submit_the_form_as_a_page_load(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True, locale="pt-BR")
            # the page's scripts have not arrived (a slow link): the page is there, its buttons too
            ctx.route("**/static/**/*.js", lambda route: route.abort())
            page = ctx.new_page()
            page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
            url = page.url
            # a submission would be seen here (and kept from leaving, so the test can tell)
            page.evaluate("""() => document.addEventListener('submit', e => {
                window.__submitted = true; e.preventDefault(); }, true)""")
            page.locator("#ref-live button[name=event]").filter(has_text="Sem ponto").first.tap()
            # before, the tap submitted the form as a GET page load: "?expected_seq=0&event=…", nothing stored
            assert page.evaluate("() => window.__submitted === undefined")
            assert page.url == url and "event=" not in page.url
            assert self.log() == []
            # and it is not lost without a word: the page says it was not taken
            assert page.inner_text("#ref-msg") == "Aguarde — carregando: o toque não foi registrado"
            browser.close()
