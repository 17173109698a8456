"""What a fresh tester found on the merged tablet (issue 10/11 follow-up), in Chromium with touch.

A double tap on a button that asks for confirmation must not confirm: the confirmation's buttons
appear where the finger is, so they ignore taps for a moment after they appear.
"""
from __future__ import annotations

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import log
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import Event, RefereeCredential

from browser import ARGS, CHROMIUM, ENGINE_READY, require_chromium, settled

# A double tap as the page receives it: the guard (referee-ui.js ARM_MS, 600 ms, from the first
# tap's click) must still be on at the second tap's click, a few ms after its touchstart.
DOUBLE_MS = 500


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class DoubleTapConfirmTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        self.pw = self.browser = None

    def tearDown(self):
        if self.pw:
            self.browser.close()
            self.pw.stop()

    def tablet(self, w=1280, h=800):
        from playwright.sync_api import sync_playwright

        if not self.pw:
            self.pw = sync_playwright().start()
            self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        self.context = self.browser.new_context(viewport={"width": w, "height": h}, has_touch=True, locale="pt-BR")
        page = self.context.new_page()
        page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
        page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
        # the engine's catch-up and the socket's first message may each draw the controls again:
        # a tap aimed at a button they replace finds it detached (CI: 'not attached to the DOM')
        page.wait_for_function(ENGINE_READY, timeout=60000)
        settled(page)
        # when each touch reached the page (the guard's clock): a loaded machine can deliver the
        # second tap of a "300 ms" double tap after the guard's ARM_MS, which is a slow tap, not a double
        page.evaluate("""() => { window.__touches = [];
          document.addEventListener('touchstart', e => window.__touches.push(e.timeStamp), true); }""")
        return page

    def seq(self) -> int:
        return Event.objects.filter(match_id=self.mid).count()

    def double_tap(self, page, locator, at=0.5) -> float:
        """Two touch taps 300 ms apart on ``locator`` (where it was at the first), ``at`` of its
        width from the left; the ms between them as the page received them."""
        # scrolled in one step of the page's own (Playwright's scroll waits two frames for the
        # element to be stable, long enough for a redraw to replace it)
        locator.evaluate("e => e.scrollIntoView({block: 'nearest'})")
        box = locator.bounding_box()
        x, y = box["x"] + box["width"] * at, box["y"] + box["height"] / 2
        page.evaluate("() => { window.__touches.length = 0; }")
        page.touchscreen.tap(x, y)
        page.wait_for_timeout(300)  # the gesture itself: the second tap of a double tap, 300 ms on
        page.touchscreen.tap(x, y)
        settled(page)  # whatever the two taps sent has had its answer
        touches = page.evaluate("() => window.__touches")
        assert len(touches) == 2, touches
        return touches[1] - touches[0]

    def double_tapped(self, setup, target, at=0.5):
        """A new match made by ``setup``, its tablet opened and ``target(page)`` double-tapped,
        until the page received the two taps within DOUBLE_MS (3 tries); the page."""
        for _ in range(3):
            page = setup()
            gap = self.double_tap(page, target(page), at=at)
            if gap < DOUBLE_MS:
                return page
            self.context.close()
        pytest.fail(f"this machine never delivered two taps within {DOUBLE_MS} ms (last: {gap:.0f} ms)")

    def test_a_double_tap_on_concede_does_not_concede(self):
        def setup():
            self.mid = create_match("Ana Souza", "Bia Lima", first_breaker=0, frames_to_win=2).match.pk
            log.append_event(self.mid, {"type": "no_pot"}, expected_seq=0)
            page = self.tablet()
            page.locator("details.more summary").tap()
            return page
        page = self.double_tapped(setup, lambda page: page.get_by_text("Bia Lima desiste da partida…"))
        assert self.seq() == 1, "the second tap of a double tap conceded the frame"
        assert log.snapshot(self.mid).state["phase"] == "play"
        # the confirmation is asked, and after a moment it is tappable
        box = page.locator(".confirmable.confirming")
        assert "Bia Lima" in box.locator(".confirm-what").inner_text()
        yes = box.locator("button", has_text="Sim, encerrar a partida")
        page.wait_for_function("""() => [...document.querySelectorAll('.confirmable.confirming button')]
          .some(b => b.textContent.includes('Sim, encerrar a partida') && !b.disabled)""", timeout=30000)
        assert yes.is_enabled()
        page.locator(".confirmable.confirming button", has_text="Cancelar").tap()

    def test_a_double_tap_on_undo_does_not_undo(self):
        def setup():
            self.mid = create_match("Ana Souza", "Bia Lima", first_breaker=0, frames_to_win=2).match.pk
            log.append_event(self.mid, {"type": "no_pot"}, expected_seq=0)
            return self.tablet()
        # "Confirmar" replaces the right part of "Desfazer…"
        # the tester's spot, (1070, 465) at 1280×800: the right part of the button
        page = self.double_tapped(setup, lambda page: page.locator("button.undo-btn"), at=0.8)
        assert self.seq() == 1, "the second tap of a double tap confirmed the undo"
        confirm = page.locator(".undo.confirming button", has_text="Confirmar")
        # the confirmation is asked, and after a moment it is tappable
        page.wait_for_function("""() => [...document.querySelectorAll('.undo.confirming button')]
          .some(b => b.textContent.includes('Confirmar') && !b.disabled)""", timeout=30000)
        assert confirm.is_visible() and confirm.is_enabled()
        confirm.tap()
        page.wait_for_function("() => +document.getElementById('live-seq').dataset.seq >= 2", timeout=30000)
        assert log.snapshot(self.mid).state["striker"] == 0  # the miss was taken back: Ana plays again

    def test_the_confirm_button_is_disabled_right_after_it_appears(self):
        self.mid = create_match("Ana Souza", "Bia Lima", first_breaker=0).match.pk
        page = self.tablet(1024, 768)
        page.locator("details.more summary").tap()
        page.get_by_text("Recolocar as bolas (Art. 53)…").tap()
        states = page.evaluate("""() => new Promise(done => {
          const b = [...document.querySelectorAll('.confirmable.confirming button')].find(x => x.textContent.includes('Sim, recolocar'));
          const first = b.disabled;
          setTimeout(() => done([first, b.disabled]), 900);
        })""")
        assert states == [True, False]


BOX = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
  return [r.left, r.top, r.width, r.height]; }"""
CARDS = """() => [...document.querySelectorAll('.ref-player')].map(e => { const r = e.getBoundingClientRect();
  return [r.left, r.top, r.width, r.height]; })"""


def intersects(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class QueuePanelTest(ChannelsLiveServerTestCase):
    """The offline/refused-tap panel never covers the scores, says the server's words once, and
    a refused tap is not retried by a reload."""

    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()

    def test_the_queue_panel_never_covers_the_scores_and_a_refused_tap_stays_refused(self):
        import httpx
        from playwright.sync_api import sync_playwright

        from browser import ARGS as _ARGS  # noqa: F401
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for w, h in [(1280, 800), (1024, 768), (800, 1280)]:
                created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
                self.mid = created.match.pk
                ctx = browser.new_context(viewport={"width": w, "height": h}, has_touch=True, locale="pt-BR")
                ctx.route("**/*.wasm", lambda route: route.abort())  # the queue as it is without the engine
                page = ctx.new_page()
                page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=self.mid)))
                page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
                cards = page.evaluate(CARDS)
                assert len(cards) == 2
                ctx.set_offline(True)
                page.wait_for_function("() => navigator.onLine === false", timeout=30000)
                for i in range(5):  # five queued taps: the banner does not grow
                    # a deliberate next tap, not a bounce: the guard drops a tap within 0.5 s and
                    # 32 px of the last one, so the taps take turns at the button's two ends
                    box = page.locator("#ref-live button:not([disabled])").filter(has_text="Sem ponto").first.bounding_box()
                    assert box["width"] * 0.6 > 32, box
                    x, y = box["x"] + box["width"] * (0.2 if i % 2 else 0.8), box["y"] + box["height"] / 2
                    page.wait_for_function("([x, y]) => refereeGuard.ready(x, y)", arg=[x, y], timeout=5000)
                    page.touchscreen.tap(x, y)
                    page.wait_for_function(f"() => window.refereeQueue.length() === {i + 1}", timeout=30000)
                page.wait_for_function("() => window.refereeQueue.length() === 5", timeout=30000)
                banner = page.evaluate(BOX, "#tap-queue")
                assert banner[3] <= 50, (w, h, banner)
                assert "sem conexão — 5 toques na fila" in page.inner_text("#tap-queue")
                assert not any(intersects(banner, c) for c in cards), (w, h, banner, cards)
                page.screenshot(path=f"/tmp/polish-queue-folded-{w}x{h}.png")
                page.get_by_text("ver fila").tap()  # unfolded, the list is a sheet over the actions
                sheet = page.evaluate(BOX, "#tap-queue")
                assert not any(intersects(sheet, c) for c in cards), (w, h, sheet, cards)
                assert sheet[3] <= 0.36 * h + 1 and page.evaluate(CARDS) == cards
                page.screenshot(path=f"/tmp/polish-queue-open-{w}x{h}.png")
                page.get_by_text("fechar").tap()
                # another tablet scores: the queued taps were made on seq 0 and will be refused
                r = httpx.post(f"{self.live_server_url}/api/matches/{self.mid}/events/",
                               json={"event": {"type": "pot", "balls": [1]}},
                               headers={"Authorization": f"Bearer {created.token}"}, timeout=10)
                assert r.status_code == 201
                refusals = []
                page.on("response", lambda res: refusals.append(res.status) if res.status == 409 else None)
                ctx.set_offline(False)
                page.wait_for_selector("#tap-queue.blocked", timeout=30000)
                settled(page)  # the refusal drawn: the panel at its final size
                panel = page.evaluate(BOX, "#tap-queue")
                cards = page.evaluate(CARDS)
                assert not any(intersects(panel, c) for c in cards), (w, h, panel, cards)
                assert panel[3] <= 0.36 * h + 1
                page.screenshot(path=f"/tmp/polish-queue-refused-{w}x{h}.png")
                why = page.inner_text("#tap-queue .tq-why")
                assert why.startswith("O servidor respondeu: ")
                said = why[len("O servidor respondeu: "):]
                body = page.inner_text("body")
                assert body.count(said) == 1, (said, body)  # once: not in the top bar nor twice in the panel
                assert refusals == [409]
                # a reload does not send the refused tap again: it stays refused until resent or discarded
                page.reload()
                page.wait_for_selector("#tap-queue.blocked", timeout=30000)
                page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
                settled(page)  # connected again, and nothing in flight: a resend would have gone by now
                assert refusals == [409]
                assert page.evaluate("() => window.refereeQueue.length()") == 5
                assert len(httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/events/", timeout=10)
                           .json()["events"]) == 1
                page.get_by_text("Descartar 5 toques…").tap()
                page.get_by_text("Sim, descartar").tap()
                page.wait_for_function("() => window.refereeQueue.length() === 0", timeout=30000)
                ctx.close()
            browser.close()


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class FactLabelsTest(ChannelsLiveServerTestCase):
    """Every label of the tablet's facts is shown whole ("Sinucas necessárias" was cut off)."""

    host = "127.0.0.1"

    def test_no_fact_label_is_cut_off(self):
        from playwright.sync_api import sync_playwright

        require_chromium()
        created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for w, h in [(1280, 800), (1024, 768), (800, 1280)]:
                ctx = browser.new_context(viewport={"width": w, "height": h}, has_touch=True, locale="pt-BR")
                page = ctx.new_page()
                page.goto(self.live_server_url + login_path(RefereeCredential.objects.get(match_id=created.match.pk)))
                page.wait_for_selector(".ref-facts dt")
                cut = page.evaluate("""() => [...document.querySelectorAll('.ref-facts dt, .ref-facts dd')]
                  .filter(e => e.scrollWidth > e.clientWidth + 1)
                  .map(e => e.textContent.trim())""")
                assert cut == [], (w, h, cut)
                page.screenshot(path=f"/tmp/polish-facts-{w}x{h}.png")
                ctx.close()
            browser.close()
