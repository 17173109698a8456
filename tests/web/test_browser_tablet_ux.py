"""The referee tablet cannot mislead (issue 10, findings 1, 2, 4, 5, 6, 7, 8, 9), in Chromium with
touch at 1280×800, 800×1280 and 1024×768.

Each test scores through the tablet as a hurried referee would and checks what the server stored
and what the screen says. Screenshots of each step go to shots/ (gitignored) for a person to look at.
"""
from __future__ import annotations

import pathlib

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import Event, RefereeCredential

from browser import ARGS, CHROMIUM, require_chromium, settled, ENGINE_READY
from rules_tablet import CHIPS

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
VIEWPORTS = [(1280, 800), (800, 1280), (1024, 768)]

# Every visible control of the action area and the top bar, in page coordinates, keyed by what it is.
BOXES = """() => {
  const out = {};
  document.querySelectorAll('.ref-controls button, .ref-controls summary, #status-slot, #ref-msg').forEach(e => {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) return;  // not shown (a confirmation's buttons before it is asked)
    const key = e.id || (e.tagName + ':' + (e.getAttribute('value') || e.textContent.replace(/\\s+/g, ' ').trim()));
    out[key] = [r.left + scrollX, r.top + scrollY, r.width, r.height].map(v => Math.round(v * 2) / 2);
  });
  return out;
}"""
SMALLEST = """() => Math.min(...[...document.querySelectorAll(
  '.ref-controls button, .ref-controls summary, #foul-dialog[open] .chip, #foul-dialog[open] button, #foul-dialog[open] summary')]
  .filter(e => e.getBoundingClientRect().height > 0)
  .map(e => Math.min(e.getBoundingClientRect().height, e.getBoundingClientRect().width)))"""


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class TabletUxTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        SHOTS.mkdir(exist_ok=True)
        self.pw = self.browser = None
        self.contexts = {}

    def tearDown(self):
        if self.pw:
            self.browser.close()
            self.pw.stop()

    # -- helpers -----------------------------------------------------------------------------

    def new_match(self, **kw):
        self.created = create_match("Ana Souza", "Bia Lima", first_breaker=0, **kw)
        self.mid = self.created.match.pk
        return self.mid

    def append(self, *events):
        for ev in events:
            log.append_event(self.mid, ev, expected_seq=self.seq())

    def seq(self) -> int:
        return Event.objects.filter(match_id=self.mid).count()

    def tablet(self, w=1280, h=800, lang="pt-BR"):
        if self.pw is None:  # started after the set-up's events: its loop would stop their broadcast
            from playwright.sync_api import sync_playwright

            self.pw = sync_playwright().start()
            self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # one context a language: the next size's page is a new page of it, its service worker
        # and the engine's files already kept (a context a size installed them again each time)
        if lang not in self.contexts:
            self.contexts[lang] = self.browser.new_context(viewport={"width": w, "height": h}, has_touch=True,
                                                           locale=lang)
        self.context = self.contexts[lang]
        page = self.context.new_page()
        page.set_viewport_size({"width": w, "height": h})
        page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
        page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
        return page

    def close_pages(self):
        """Close the size's pages (their sockets and engines), keeping the context for the next."""
        for page in self.context.pages:
            page.close()

    def shot(self, page, name):
        vp = page.viewport_size
        page.screenshot(path=str(SHOTS / f"tablet-{name}-{vp['width']}x{vp['height']}.png"))

    def wait_seq(self, page, seq):
        page.wait_for_function(f"() => +document.getElementById('live-seq').dataset.seq >= {seq}", timeout=30000)

    def open_foul(self, page):
        page.locator("#ref-live button.foul").first.tap()
        page.wait_for_selector("#foul-dialog[open] #foul-form")
        page.wait_for_selector("#foul-preview p")

    def confirm_foul(self, page):
        seq = self.seq()
        page.locator("#foul-dialog button[data-close-dialog]").tap()
        self.wait_seq(page, seq + 1)

    # -- finding 1 and 9: the colour aimed at, the common fouls, the counts --------------------

    def test_a_foul_while_a_colour_is_owed_asks_the_colour_aimed_at_first(self):
        for w, h in VIEWPORTS:
            self.new_match()
            self.append({"type": "pot", "balls": [1]})  # a red down: any colour is on (Art. 11.1)
            page = self.tablet(w, h)
            self.open_foul(page)
            self.shot(page, "colour-foul-1-ask")
            form = page.locator("#foul-form")
            # nothing preselected that charges: no colour chosen, "confirm" disabled, the preview asks
            assert form.locator('input[name="nominated"]:checked').count() == 0
            assert page.locator("#foul-dialog button[data-close-dialog]").is_disabled()
            assert "Escolha primeiro a cor visada" in page.inner_text("#foul-preview")
            chips = form.locator(".nominated-q .chip").all_inner_texts()
            assert [c.strip() for c in chips] == [
                "amarela (4 pontos)", "verde (4 pontos)", "marrom (4 pontos)", "azul (5 pontos)",
                "rosa (6 pontos)", "preta (7 pontos)", "não cantou (Art. 48.3, 7 pontos)"]
            # the common fouls one tap each, the rest one tap further, no native dropdown
            assert form.locator("select").count() == 0
            kinds = form.locator("fieldset.kinds > .chips .chip").all_inner_texts()
            assert 4 <= len(kinds) - 1 <= 6 and any("Tacadeira encaçapada" in k for k in kinds)
            assert not form.get_by_text("Falta intencional (Art. 49.1)").is_visible()
            # the reds potted are counted in words ("0 vermelha(s)" was the old chip)
            reds = form.locator(".chip-n").all_inner_texts()
            assert [r.strip() for r in reds[:3]] == ["nenhuma vermelha", "1 vermelha", "2 vermelhas"]
            assert "vermelha(s)" not in form.inner_text()
            form.locator(".nominated-q .chip").filter(has_text="azul").tap()
            page.wait_for_function("() => document.querySelector('#foul-preview .pv-penalty')")
            page.wait_for_function("() => document.querySelector('#foul-preview').innerText.includes('5 pontos')")
            assert page.locator("#foul-preview .pv-penalty").inner_text() == "5 pontos para Bia Lima (Art. 40)"
            assert page.locator("#foul-dialog button[data-close-dialog]").is_enabled()
            assert page.evaluate(SMALLEST) >= 48
            self.shot(page, "colour-foul-2-blue")
            self.confirm_foul(page)
            ev = Event.objects.get(match_id=self.mid, seq=2).event
            assert ev["nominated"] == 5 and "kind" not in ev
            assert log.snapshot(self.mid).state["scores"] == [1, 5]
            self.shot(page, "colour-foul-3-decision")
            self.close_pages()

    def test_not_nominated_is_an_explicit_choice_worth_7(self):
        self.new_match()
        self.append({"type": "pot", "balls": [1]})
        page = self.tablet()
        self.open_foul(page)
        confirm = page.locator("#foul-dialog button[data-close-dialog]")
        # the seated player's foul (disciplinary) has no stroke, so no colour to ask (Art. 49)
        page.locator("#foul-form .chip").filter(has_text="Bia Lima").tap()
        assert confirm.is_enabled()
        page.locator("#foul-form .chip").filter(has_text="Ana Souza").tap()
        assert confirm.is_disabled()
        page.locator("#foul-form .nominated-q .chip").filter(has_text="não cantou").tap()
        page.wait_for_function("() => document.querySelector('#foul-preview').innerText.includes('7 pontos')")
        assert page.locator("#foul-preview .pv-penalty").inner_text() == \
            "7 pontos para Bia Lima (Art. 48.3: cor não cantada)"
        # a rarer kind, one tap further: intentional foul (Art. 49.1), with its warning and consequence
        page.locator("#foul-form details.more-kinds summary").tap()
        page.locator("#foul-form .chip").filter(has_text="Falta intencional").tap()
        page.wait_for_function("() => document.querySelector('#foul-preview').innerText.includes('Advertência')")
        text = page.inner_text("#foul-preview")
        assert "7 pontos para Bia Lima (Art. 49.1)" in text
        assert "Advertência a Ana Souza (Art. 42.1); nova falta disciplinar de Ana Souza: desclassificação " \
               "e derrota no jogo (Art. 42.2, 54.3)" in text
        self.shot(page, "intentional-foul-preview")
        self.confirm_foul(page)
        assert log.snapshot(self.mid).state["warnings"] == [1, 0]

    # -- finding 2: endings by the referee's hand are confirmed ---------------------------------

    def test_conceding_a_frame_or_the_match_asks_for_confirmation(self):
        for w, h in VIEWPORTS:
            self.conceding(w, h)
            self.close_pages()

    def conceding(self, w, h):
        self.new_match(frames_to_win=2)
        page = self.tablet(w, h)
        page.locator("details.more summary").tap()
        page.get_by_text("Ana Souza desiste da partida…").tap()
        page.wait_for_selector(".confirmable.confirming .confirm-what", timeout=30000)
        settled(page)
        assert self.seq() == 0  # one tap records nothing
        what = page.locator(".confirmable.confirming .confirm-what")
        assert what.inner_text() == "Ana Souza reconhece a derrota na partida 1: Bia Lima vence a partida (Art. 50.2)?"
        self.shot(page, "concede-frame-confirm")
        page.locator(".confirmable.confirming button", has_text="Cancelar").tap()
        page.wait_for_selector(".confirmable.confirming", state="detached", timeout=30000)
        settled(page)
        assert self.seq() == 0
        page.get_by_text("Bia Lima abandona o jogo…").tap()
        page.wait_for_selector(".confirmable.confirming .confirm-what", timeout=30000)
        settled(page)
        assert self.seq() == 0
        assert page.locator(".confirmable.confirming .confirm-what").inner_text() == \
            "Bia Lima abandona o jogo: Ana Souza vence o jogo (Art. 54.2)?"
        page.locator(".confirmable.confirming button", has_text="Sim, encerrar o jogo").tap()
        self.wait_seq(page, 1)
        st = log.snapshot(self.mid).state
        assert (st["phase"], st["match_winner"], st["match_result"]) == ("match_over", 0, "concession")
        assert "Jogo encerrado: Ana Souza vence o jogo pela desistência de Bia Lima" in page.inner_text(".ref-controls")
        self.shot(page, "concede-match-done")

    # -- finding 4 and 9: nothing moves under the finger; a double tap is one tap ---------------

    def test_nothing_in_the_action_area_moves_between_taps(self):
        for w, h in VIEWPORTS:
            self.new_match()
            page = self.tablet(w, h)
            boxes = {"start (red on)": page.evaluate(BOXES)}
            # the in-browser engine loads meanwhile: its status line must not move anything, and
            # with it loaded each tap is first drawn by the engine, then by the server's answer
            page.wait_for_function(ENGINE_READY,
                                   timeout=90000)
            assert page.evaluate("() => sinucaEngine.loaded && !sinucaEngine.failed")
            boxes["engine loaded"] = page.evaluate(BOXES)
            self.shot(page, "steady-1-start")
            page.locator("#ref-live button.ball-1:not(.multi)").tap()
            self.wait_seq(page, 1)
            boxes["after a red (colour on, message)"] = page.evaluate(BOXES)
            self.shot(page, "steady-2-colour-on")
            page.get_by_text("Sem ponto", exact=True).tap()
            self.wait_seq(page, 2)
            boxes["after a miss (red on again)"] = page.evaluate(BOXES)
            page.evaluate("""() => { const m = document.getElementById('ref-msg'); m.className = 'msg msg-error';
              m.textContent = 'Falta de Ana Souza: 7 pontos para Bia Lima (Art. 48.3); falta antes de cantar a colorida; '.repeat(4); }""")
            boxes["a long message"] = page.evaluate(BOXES)
            self.shot(page, "steady-3-long-message")
            self.context.set_offline(True)
            page.wait_for_function("() => !document.getElementById('tap-queue').hidden", timeout=30000)
            boxes["offline banner"] = page.evaluate(BOXES)
            self.shot(page, "steady-4-offline")
            self.context.set_offline(False)
            first = boxes.pop("start (red on)")
            for step, got in boxes.items():
                moved = {k: (first[k], got.get(k)) for k in first if got.get(k) != first[k]}
                assert not moved, (w, h, step, moved)
            smallest = page.evaluate(SMALLEST)
            print(f"{w}x{h}: {len(first)} controls, none moved over {len(boxes)} changes; smallest target {smallest} px")
            assert smallest >= 48, (w, h)
            self.close_pages()

    def test_a_repeated_tap_within_half_a_second_is_one_tap(self):
        self.new_match()
        page = self.tablet()
        # with the in-browser engine loaded (its start-up takes the CPU for a few seconds, and two
        # taps 250 ms apart then arrive more than half a second apart); the first tap is then drawn
        # by the engine and the second lands on the redrawn button
        page.wait_for_function(ENGINE_READY,
                               timeout=90000)
        # The page's clock says when each tap came (the guard reads Date.now()): a busy machine
        # can put a whole second between two taps the test meant 250 ms apart.
        t0 = page.evaluate("() => Date.now()")
        page.clock.set_fixed_time(t0 / 1000)
        page.get_by_text("Sem ponto", exact=True).tap()
        page.clock.set_fixed_time((t0 + 250) / 1000)  # the gesture: the same button 250 ms later (a bounce)
        page.get_by_text("Sem ponto", exact=True).tap()
        page.wait_for_function("() => document.getElementById('tap-flash').innerText.includes('Toque duplo ignorado')",
                               timeout=30000)
        self.wait_seq(page, 1)
        settled(page)
        assert self.seq() == 1
        assert log.snapshot(self.mid).state["striker"] == 1
        page.clock.set_fixed_time((t0 + 850) / 1000)  # the same button past the half second of a bounce
        # (and past it between the touches themselves, which the page's clock does not move)
        box = page.get_by_text("Sem ponto", exact=True).bounding_box()
        page.wait_for_function("([x, y]) => refereeGuard.ready(x, y)",
                               arg=[box["x"] + box["width"] / 2, box["y"] + box["height"] / 2], timeout=5000)
        page.get_by_text("Sem ponto", exact=True).tap()  # later, the same button is a new tap
        self.wait_seq(page, 2)
        assert self.seq() == 2

    # -- findings 5, 6, 8: the aggravated chain, told at each step, to the frame's loss ---------

    def test_the_aggravated_chain_to_the_frames_loss(self):
        for w, h in VIEWPORTS:
            self.aggravated_chain(w, h)
            self.close_pages()

    def aggravated_chain(self, w, h):
        self.new_match()
        page = self.tablet(w, h)
        # Art. 28 asked before the stroke, in view (not hidden in "Mais ações")
        art28 = page.locator(".ref-controls .art28")
        assert art28.is_visible() and "Art. 28" in art28.inner_text()
        art28.get_by_text("Sim", exact=True).tap()
        page.wait_for_function("() => document.getElementById('ref-msg').innerText.includes('Art. 28')")
        self.shot(page, "aggravated-0-art28")
        expected = ["1ª falta agravada seguida (Art. 27, 44): a 3ª encerra a partida",
                    "2ª falta agravada seguida: a próxima encerra a partida (Art. 27, 46)"]
        for n, line in enumerate(expected, start=1):
            self.open_foul(page)
            # the declaration holds for the stroke it was given for
            assert page.locator('#foul-form input[name="aggravated"]').is_checked(), n
            page.locator('#foul-form input[name="retorno"]').check()
            page.wait_for_function(f"() => document.querySelector('#foul-preview').innerText.includes({line!r})")
            text = page.inner_text("#foul-preview")
            assert "Retorno possível" in text and "ENCERRA" not in text
            self.shot(page, f"aggravated-{n}-preview")
            self.confirm_foul(page)
            retorno = page.locator('#ref-live button[data-choice="retorno"]')
            explain = retorno.locator(".choice-explain").inner_text()
            assert explain.startswith("as bolas voltam à posição anterior e Ana Souza repete a jogada")
            # only the replay that can lose the frame is styled as dangerous, and says why
            assert ("danger" in retorno.get_attribute("class")) == (n == 2)
            assert ("mais uma falta agravada de Ana Souza encerra a partida" in explain) == (n == 2)
            assert page.locator('#ref-live button[data-choice="play"] .choice-explain').inner_text() == \
                "Bia Lima joga com as bolas como pararam"
            assert page.locator('#ref-live button[data-choice="pass"] .choice-explain').inner_text() == \
                "Ana Souza joga de novo, com as bolas como pararam, sem bola livre"
            # the articles beside each choice; the replay that can lose the frame says why (Art. 27, 46)
            chips = page.evaluate("() => Object.fromEntries([...document.querySelectorAll('#ref-live .choice-item')]"
                                  ".map(i => [i.querySelector('button').dataset.choice,"
                                  " [...i.querySelectorAll('.art')].map(a => a.dataset.art)]))")
            assert chips == {"retorno": ["25.5", "30"] + (["27", "46"] if n == 2 else []),
                             "play": ["35.3"], "pass": ["35.4"]}, chips
            self.shot(page, f"aggravated-{n}-decision")
            seq = self.seq()
            retorno.tap()
            self.wait_seq(page, seq + 1)
            # the replay of the same position is another stroke: asked again, nothing kept
            assert page.locator('.art28 button[data-answer="yes"]').get_attribute("aria-pressed") == "false"
            self.open_foul(page)
            assert not page.locator('#foul-form input[name="aggravated"]').is_checked(), n
            page.locator("#foul-dialog button[data-action=close-dialog]").tap()
            page.wait_for_function("() => !document.getElementById('foul-dialog').open")
            art28.get_by_text("Sim", exact=True).tap()
            page.wait_for_function("() => document.querySelector('.art28 button[data-answer=\"yes\"]')"
                                   ".getAttribute('aria-pressed') === 'true'")
        self.open_foul(page)
        assert page.locator('#foul-form input[name="aggravated"]').is_checked()
        page.wait_for_function("() => document.querySelector('#foul-preview').innerText.includes('3ª falta')")
        text = page.inner_text("#foul-preview")
        assert "3ª falta agravada seguida: encerra a partida, derrota de Ana Souza (Art. 27, 44.2, 50.3)" in text
        assert "Esta falta ENCERRA O JOGO: Bia Lima vence a partida 1 por 12–0 (Art. 27)" in text
        assert "Retorno possível" not in text and "Sem retorno: a falta encerra o jogo" in text
        self.shot(page, "aggravated-3-preview")
        self.confirm_foul(page)
        st = log.snapshot(self.mid).state
        assert (st["phase"], st["frame_winner"], st["history"][-1]["ended_by"]) == ("match_over", 1, "aggravated")
        controls = page.inner_text(".ref-controls")
        assert "Bia Lima vence a partida 1 por 12–0" in controls
        assert "3ª falta agravada seguida de Ana Souza (Art. 27, 44.2, 50.3)" in controls
        assert "Partida de" not in controls
        assert "▶" not in page.inner_text(".ref-players")  # no "at the table" marker on the loser
        # the tap's own answer writes the message (the board may come first, over the socket)
        page.wait_for_function("() => document.getElementById('ref-msg').innerText.startsWith('Bia Lima vence a partida 1 por 12–0')",
                               timeout=30000)
        assert page.inner_text("#ref-msg").startswith("Bia Lima vence a partida 1 por 12–0")
        self.shot(page, "aggravated-4-frame-lost")

    # -- findings 6, 7: the free ball is its own choice; "deixou sinuca" says it ----------------

    def test_snooker_left_offers_the_free_ball_as_its_own_choice(self):
        self.new_match()
        self.append({"type": "no_pot"})  # Bia at the table, a red on
        page = self.tablet(1024, 768)
        self.open_foul(page)
        page.locator('#foul-form input[name="snooker"]').check()
        page.wait_for_function("() => document.querySelector('#foul-preview').innerText.includes('Deixou sinuca')")
        assert "Deixou sinuca: se Ana Souza jogar, tem bola livre (Art. 36)" in page.inner_text("#foul-preview")
        self.shot(page, "free-ball-preview")
        self.confirm_foul(page)
        play = page.locator('#ref-live button[data-choice="play"]')
        assert play.locator(".choice-label").inner_text() == "Jogar com bola livre"
        assert "pode eleger qualquer colorida como bola livre" in play.locator(".choice-explain").inner_text()
        self.shot(page, "free-ball-decision")
        en = self.tablet(1280, 800, lang="en")  # the same words from the engine, in English
        en_play = en.locator('#ref-live button[data-choice="play"]')
        assert en_play.locator(".choice-label").inner_text() == "Play with a free ball"
        assert en.locator('#ref-live button[data-choice="pass"] .choice-explain').inner_text() == \
            "Bia Lima plays again from where the balls lie, no free ball"
        # each choice's articles are chips beside its button, the free ball's Art. 36 among them
        assert en.evaluate(CHIPS)["chips"] == [["35.3", "36"], ["35.4"]]
        self.shot(en, "free-ball-decision-en")
        play.tap()
        self.wait_seq(page, 3)
        assert page.locator(".freeball").is_visible()
        self.shot(page, "free-ball-play")

    # -- finding 8: the frame ended on the pink (Art. 50.1) --------------------------------------

    def test_a_frame_ended_on_the_pink_says_why_and_that_the_7_may_still_be_potted(self):
        self.new_match(reds=6, frames_to_win=2)
        for _ in range(6):
            self.append({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]})
        self.append(*({"type": "pot", "balls": [c]} for c in (2, 3, 4, 5)))
        for w, h in VIEWPORTS:
            page = self.tablet(w, h)
            if w == 1280:
                page.locator("#ref-live button.ball-6:not([disabled])").tap()
                self.wait_seq(page, 17)
            controls = page.inner_text(".ref-controls")
            assert "Ana Souza vence a partida 1 por 68–0" in controls
            assert "A bola 6 encaçapada deixou diferença maior que 7 pontos (Art. 50.1)" in controls
            assert "a bola 7 ainda pode ser encaçapada para somar à tacada (Art. 6.1)" in controls
            assert "▶" not in page.inner_text(".ref-players")
            assert page.inner_text(".ref-remaining") == "—"
            self.shot(page, "pink-ends-frame")
            self.close_pages()
