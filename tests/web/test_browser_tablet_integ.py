"""The two halves of the tablet joined: what the in-browser engine draws offline (and before the
server answers) is what the server's page shows. In Debian's chromium with touch.

On merge-trial's code the offline foul dialog started "cor cantada" at "nenhuma" (Confirmar
charged Art. 48.3's 7 points), its preview said "Retorno possível" alone, the decision read
"Jogar / Passar" without saying what they do, and the engine drew its own markup.
"""
from __future__ import annotations

from test_browser_tablet_engine import SEQ, SHOTS, EngineCase
from test_browser_tablet_ux import BOXES

from browser import ARGS, CHROMIUM
from netcut import offline
from rules_tablet import close_rule, nothing_taken, open_rule

# Every control the referee sees in the action area: what it is, its words, its event, enabled.
CONTROLS = """() => [...document.querySelectorAll('#ref-live form.ref-controls :is(button, h2, p, summary, .q, .confirm-what)')]
  .map(e => [e.tagName, e.className, e.getAttribute('value') || '', !e.disabled, e.textContent.replace(/\\s+/g, ' ').trim()])"""


class OfflineColourFoulTest(EngineCase):
    def test_offline_the_colour_aimed_at_is_asked_first_and_the_server_records_its_value(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for n, (w, h) in enumerate([(1280, 800), (800, 1280)]):
                if n:
                    from scoreboard.core.matches import create_match
                    self.created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
                    self.mid = self.created.match.pk
                ctx, page = self.tablet(browser, viewport=(w, h))
                self.engine_ready(page)
                served_start = page.evaluate(BOXES)
                ctx.set_offline(True)
                page.wait_for_function("() => navigator.onLine === false", timeout=30000)

                # a red offline: a colour is owed; the engine draws the controls where the server's were
                self.tap_ball(page, 1)
                page.wait_for_function("() => document.querySelectorAll('#ref-live .ref-score')[0].textContent === '1'",
                                       timeout=30000)
                assert page.evaluate("() => document.getElementById('ref-live').hasAttribute('data-local')")
                local_boxes = page.evaluate(BOXES)
                moved = {k: (served_start[k], local_boxes.get(k)) for k in served_start
                         if local_boxes.get(k) != served_start[k]}
                assert not moved, (w, h, moved)
                local_controls = page.evaluate(CONTROLS)

                # the foul dialog the engine draws: the colour aimed at first, nothing chosen
                self.tap_text(page, "Falta…")
                page.wait_for_selector("#foul-dialog[open] #foul-form fieldset.nominated-q", timeout=30000)
                assert page.inner_text("#foul-form .nominated-q legend") == \
                    "Qual cor foi visada? (cantada, ou evidente — Art. 19)"
                chips = page.locator("#foul-form .nominated-q label.chip").all_inner_texts()
                assert chips == ["amarela (4 pontos)", "verde (4 pontos)", "marrom (4 pontos)", "azul (5 pontos)",
                                 "rosa (6 pontos)", "preta (7 pontos)", "não cantou (Art. 48.3, 7 pontos)"], chips
                assert page.evaluate("() => document.querySelectorAll('#foul-form input[name=nominated]:checked').length") == 0
                assert page.locator("#foul-dialog button[data-close-dialog]").is_disabled()
                page.wait_for_selector("#foul-preview p.pv-ask", timeout=30000)
                assert page.inner_text("#foul-preview") == "Escolha primeiro a cor visada: ela decide a penalidade."
                # the same quick foul-kind chips as the server's dialog, the rest one tap further
                kinds = page.locator("#foul-form fieldset.kinds > .chips label.chip").all_inner_texts()
                assert kinds[0] == "Outra / não especificada (Art. 47.18)" and len(kinds) == 6, kinds
                page.screenshot(path=str(SHOTS / f"tablet-integ-offline-colour-aimed-{w}x{h}.png"))
                footer = page.locator("#foul-dialog .foul-actions").bounding_box()

                # blue aimed at: 5 points (Art. 40), said with the server's lines
                page.locator("#foul-form .nominated-q label.chip").filter(has_text="azul").tap()
                page.locator("#foul-form label.chip").filter(has_text="Deixou sinuca").tap()
                page.wait_for_function("() => { const p = document.querySelector('#foul-preview .pv-penalty');"
                                       " return p && p.textContent === '5 pontos para Bia Lima (Art. 40)'; }",
                                       timeout=30000)
                lines = page.locator("#foul-preview p").all_inner_texts()
                assert lines == ["5 pontos para Bia Lima (Art. 40)",
                                 "Deixou sinuca: se Bia Lima jogar, tem bola livre (Art. 36)",
                                 "Retorno possível (Art. 25): marque “Falta e retorno” para oferecê-lo a Bia Lima"], lines
                assert not page.locator("#foul-dialog button[data-close-dialog]").is_disabled()
                # the verdict's lines arrived without growing the pinned footer over the chips
                assert page.locator("#foul-dialog .foul-actions").bounding_box() == footer, (w, h)
                page.locator("#foul-dialog button[data-close-dialog]").tap()
                page.wait_for_function("() => !document.getElementById('foul-dialog').open", timeout=30000)
                assert self.scores(page) == ["1", "5"]

                # the decision screen the engine draws: the free ball its own choice, each one explained
                labels = page.locator("#ref-live .decision-list .choice-label").all_inner_texts()
                assert labels == ["Jogar com bola livre", "Passar"], labels
                explains = page.locator("#ref-live .decision-list .choice-explain").all_inner_texts()
                assert explains[1] == "Ana Souza joga de novo, com as bolas como pararam, sem bola livre"
                assert page.locator("#ref-live .choice-item:has([data-choice=pass]) .art").get_attribute("data-art") == "35.4"
                assert page.locator("#ref-live .art28").count() == 0  # Art. 28 is asked before a stroke only
                assert page.inner_text("#ref-live .ref-banners") == "BOLA LIVRE"  # the board too, not stale
                assert page.inner_text("#ref-live .ref-head") == "Decisão de Bia Lima (Art. 25, 35)"
                local_decision = page.evaluate(CONTROLS)
                page.screenshot(path=str(SHOTS / f"tablet-integ-offline-decision-{w}x{h}.png"))

                # back online: the server's log has the 5-point foul, and its page shows what the engine drew
                ctx.set_offline(False)
                page.wait_for_function(f"() => ({SEQ})() === 2 && refereeQueue.length() === 0", timeout=30000)
                log = self.log()
                assert log[1]["event"] == {"type": "foul", "nominated": 5, "player": 0, "snooker": True}, log[1]
                served = self.served()["state"]
                assert served["scores"] == [1, 5] and served["last_penalty"] == {"player": 1, "points": 5}
                page.wait_for_function("() => !document.getElementById('ref-live').hasAttribute('data-local')",
                                       timeout=30000)
                assert page.evaluate(CONTROLS) == local_decision
                # and the red's position, as the server renders it, is what the engine drew offline
                page.locator("#ref-live form.ref-controls button.undo-btn").tap()
                page.locator("#ref-live .undo .confirm button.danger").tap()
                page.wait_for_function(f"() => ({SEQ})() === 3 && refereeQueue.length() === 0", timeout=30000)
                page.wait_for_function("() => !document.getElementById('ref-live').hasAttribute('data-local')",
                                       timeout=30000)
                served_controls = page.evaluate(CONTROLS)
                assert served_controls == local_controls
                ctx.close()
            browser.close()


class Art28WithEngineTest(EngineCase):
    def test_the_art28_answer_is_not_a_tap_of_the_queue_with_the_engine_loaded(self):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser)
            self.engine_ready(page)
            page.locator("#ref-live .art28 button[data-answer=yes]").tap()
            # confirmed at once on the tablet, then by the server's answer (the same words)
            page.wait_for_function("() => document.getElementById('ref-msg').textContent.includes('Art. 28')"
                                   " && refereeQueue.length() === 0", timeout=30000)
            assert page.inner_text("#ref-msg") == \
                "Art. 28: SIM, há sinuca agravada. Uma falta agora é falta técnica agravada."
            assert self.scores(page) == ["0", "0"] and self.log() == []
            assert page.get_attribute("#ref-live .art28 button[data-answer=yes]", "aria-pressed") == "true"
            # the message's "Art. 28" (the server's answer) opens the article: one tap, one to close
            open_rule(page, page.locator("#ref-msg .art[data-art='28']"), "28")
            close_rule(page)
            # offline: the answer waits in the queue before a red; neither counts it as an event
            offline(ctx, self.net, True)
            page.wait_for_function("() => navigator.onLine === false", timeout=30000)
            page.locator("#ref-live .art28 button[data-answer=no]").tap()
            # the tablet's own message, its article a tap the engine answers without the network
            page.wait_for_function("() => document.getElementById('ref-msg').textContent"
                                   " === 'Art. 28: NÃO há sinuca agravada.'", timeout=30000)
            assert page.locator("#ref-msg .art").all_inner_texts() == ["28"]
            open_rule(page, page.locator("#ref-msg .art[data-art='28']"), "28")
            close_rule(page)
            nothing_taken(page, 0, queued=1)
            page.wait_for_timeout(600)  # not a bounce of the previous tap
            self.tap_ball(page, 1)
            page.wait_for_function("() => refereeQueue.length() === 2", timeout=30000)
            assert self.scores(page) == ["1", "0"]
            offline(ctx, self.net, False)
            page.wait_for_function(f"() => ({SEQ})() === 1 && refereeQueue.length() === 0", timeout=30000)
            assert page.evaluate("() => refereeQueue.state()") == "idle"
            assert [e["event"] for e in self.log()] == [{"type": "pot", "balls": [1]}]
            browser.close()
