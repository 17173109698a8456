"""A real browser scores a whole 15-red frame through the referee tablet.

Chromium (Debian's, driven by Playwright) opens the referee, TV and overlay pages of one match on a
live Daphne server. Every tap must reach the TV and the overlay (score, break, ball on) without a
reload (within 1 s on an idle machine; the slowest is printed, and a loaded machine may be slower); the frame has a foul with free ball, a falta e retorno with replay, an undo, and
ends on the 6 and the 7. The final served state must equal ``python -m sinuca replay`` of the log.
Screenshots of the three pages go to shots/ (gitignored) for a person to look at.
"""
from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import time

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, SHOTS_ON, frames, require_chromium
SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"
KEYS = ["phase", "scores", "frames", "striker", "ball_on", "reds_remaining", "colours_remaining",
        "points_remaining", "break", "free_ball", "decision_options", "frame_winner", "match_winner"]

READ_TV = """() => ({seq: +document.getElementById('live-seq').dataset.seq,
  scores: [...document.querySelectorAll('[data-score]')].map(e => +e.textContent),
  brk: +document.getElementById('tv-break').textContent,
  on: [...document.querySelectorAll('#tv-ballon .dot')].map(e => +e.className.match(/ball-(\\d)/)[1])})"""
READ_OV = """() => ({seq: +document.getElementById('live-seq').dataset.seq,
  scores: [...document.querySelectorAll('.ov-score')].map(e => +e.textContent),
  brk: +document.querySelector('.ov-break').textContent,
  on: [...document.querySelectorAll('.ov-ballon .dot')].map(e => +e.className.match(/ball-(\\d)/)[1])})"""


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class RefereeFrameTest(ChannelsLiveServerTestCase):
    """The whole frame, tap by tap, in Chromium."""

    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        self.created = create_match("Ana Souza", "Bia Lima", first_breaker=0)
        self.mid = self.created.match.pk
        SHOTS.mkdir(exist_ok=True)

    def api_state(self) -> dict:
        return httpx.get(f"{self.live_server_url}/api/matches/{self.mid}/", timeout=10).json()

    def test_a_whole_frame_through_the_referee_tablet(self):
        from playwright.sync_api import sync_playwright

        base = self.live_server_url
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ref = browser.new_page(viewport={"width": 1280, "height": 800}, has_touch=True, locale="pt-BR")
            tv = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
            ov = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
            ref.goto(base + self.created.referee_url)
            tv.goto(base + self.created.tv_url)
            ov.goto(base + self.created.overlay_url)
            for page in (ref, tv, ov):  # the sockets are up: the connection indicator is not "down"
                page.wait_for_function("() => document.getElementById('conn').classList.contains('up')",
                                       timeout=30000)
            ref.screenshot(path=str(SHOTS / "referee-1280x800-start.png"))
            self.seq = 0
            self.slowest = 0.0

            def settle(expect_delta=1):
                """After a tap: the tablet moved on; TV and overlay show the served state in 1 s."""
                self.seq += expect_delta
                t0 = time.monotonic()
                for page in (tv, ov):
                    page.wait_for_function(f"() => +document.getElementById('live-seq').dataset.seq >= {self.seq}",
                                           timeout=30000)
                self.slowest = max(self.slowest, time.monotonic() - t0)
                ref.wait_for_function(f"() => +document.getElementById('live-seq').dataset.seq >= {self.seq}",
                                      timeout=30000)
                served = self.api_state()
                assert served["seq"] == self.seq, (served["seq"], self.seq)
                st = served["state"]
                for page, read in ((tv, READ_TV), (ov, READ_OV)):
                    got = page.evaluate(read)
                    assert got == {"seq": self.seq, "scores": st["scores"], "brk": st["break"],
                                   "on": st["ball_on"]}, (got, st)
                return st

            def tap(name, exact=False):
                text = re.compile(f"^\\s*{re.escape(name)}\\s*$") if exact else name
                ref.locator("#ref-live button:not([disabled])").filter(has_text=text).first.tap()

            def ball(n):
                ref.locator(f'#ref-live button.ball-{n}:not([disabled]):not(.multi)').filter(
                    has_not_text="Livre").first.tap()
                return settle()

            def foul(**fields):
                ref.get_by_text("Falta…", exact=True).tap()
                ref.wait_for_selector("#foul-dialog[open] #foul-form")
                for name, value in fields.items():
                    ref.locator(f'#foul-form input[name="{name}"][value="{value}"]').check()
                ref.wait_for_selector("#foul-preview .pv-penalty")
                preview = ref.inner_text("#foul-preview")
                ref.get_by_text("Confirmar falta").tap()
                ref.wait_for_selector("#foul-dialog[open]", state="detached")
                return preview, settle()

            st = ball(1)
            assert st["scores"] == [1, 0] and st["ball_on"] == [2, 3, 4, 5, 6, 7]
            ball(7)
            tap("Sem ponto")
            st = settle()
            assert st["striker"] == 1
            preview, st = foul(ball=1, snooker=1)
            assert "4 pontos para Ana Souza" in preview
            assert st["phase"] == "decision"
            tv.screenshot(path=str(SHOTS / "tv-foul-decision.png"))
            ref.locator('#ref-live button[data-choice="play"]').tap()
            st = settle()
            assert st["free_ball"] is True
            ref.screenshot(path=str(SHOTS / "referee-1280x800-free-ball.png"))
            tv.screenshot(path=str(SHOTS / "tv-free-ball.png"))
            tap("Livre: azul")  # free ball nominated with red on: scores 1 (Art. 37.1)
            st = settle()
            assert st["scores"] == [13, 0] and st["free_ball"] is False
            ball(6)
            ref.get_by_text("2 vermelhas").first.tap()
            st = settle()
            assert st["break"] == 9
            ball(7)
            ball(1)
            # undo, with confirmation
            tap("Desfazer…")
            ref.get_by_text("Confirmar", exact=True).tap()
            st = settle()
            assert st["ball_on"] == [1] and st["scores"] == [28, 0]
            tap("Sem ponto")
            settle()
            preview, st = foul(ball=1, potted_reds=1, retorno=1)
            assert "Retorno possível" in preview
            assert "retorno" in st["decision_options"]
            tv.screenshot(path=str(SHOTS / "tv-falta-e-retorno.png"))
            assert "FALTA E RETORNO" in tv.inner_text("body")
            ref.screenshot(path=str(SHOTS / "referee-1280x800-decision.png"))
            ref.locator('#ref-live button[data-choice="retorno"]').tap()
            st = settle()
            assert st["reds_remaining"] == 12 and st["striker"] == 1  # the offender replays
            for _ in range(12):
                ball(1)
                ball(7)
            for c in (2, 3, 4, 5, 6):
                st = ball(c)
            assert st["phase"] == "match_over"  # Art. 50.1: the 6 with a lead above 7 ends it
            st = ball(7)  # the 7 may still be potted for the break (contract section 4)
            assert st["ball_on"] == []
            tv.screenshot(path=str(SHOTS / "tv-1920x1080-end.png"))
            assert "FIM DE JOGO" in tv.inner_text("body")
            ref.screenshot(path=str(SHOTS / "referee-1280x800-end.png"))
            # the portrait tablet and the overlay over a dark and a light picture: pictures for a
            # person to look at, nothing asserted, so only when screenshots are asked for
            if SHOTS_ON:
                ref2 = browser.new_page(viewport={"width": 800, "height": 1280}, has_touch=True, locale="pt-BR")
                # a second tablet gets a link of its own (the codes are single-use), as from the admin
                ref2.goto(base + login_path(RefereeCredential.objects.get(match_id=self.mid)))
                ref2.screenshot(path=str(SHOTS / "referee-800x1280.png"), full_page=True)
                for name, bg in (("dark", "radial-gradient(#1b5e20, #000)"),
                                 ("light", "linear-gradient(135deg, #fff, #cfd8dc 60%, #ffe082)")):
                    # an OBS source composites the transparent page over the video: paint a picture
                    # behind it here (the page itself stays transparent, as ui_check verifies)
                    frame = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="pt-BR")
                    frame.goto(base + self.created.overlay_url)
                    frame.add_style_tag(content=f"html {{ background: {bg} !important; }}")
                    frame.wait_for_function("() => document.getElementById('conn').classList.contains('up')"
                                            " && document.fonts.status === 'loaded'", timeout=30000)
                    frames(frame)
                    frame.screenshot(path=str(SHOTS / f"overlay-on-{name}.png"))
            browser.close()

        served = self.api_state()
        log = httpx.get(f"{base}/api/matches/{self.mid}/events/", timeout=10).json()["events"]
        assert [e["seq"] for e in log] == list(range(1, served["seq"] + 1))
        rep = subprocess.run([sys.executable, "-m", "sinuca", "replay", "-"], capture_output=True, text=True,
                             input=json.dumps({"config": served["config"], "events": [e["event"] for e in log]}))
        assert rep.returncode == 0, rep.stdout + rep.stderr
        replayed = json.loads(rep.stdout)
        assert {k: replayed[k] for k in KEYS} == {k: served["state"][k] for k in KEYS}
        assert replayed == served["state"]
        # Each tap reached both screens (checked tap by tap above). How fast is the machine's
        # business: 1 s is the figure on an idle machine (bench/README.md, live_fanout.py); here
        # it is printed, and bounded only where no load explains it.
        print(f"slowest tap to TV and overlay: {self.slowest * 1000:.0f} ms")
        assert self.slowest < 10.0
