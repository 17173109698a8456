"""In Chromium, the issue's "done when": a whole event — 8 players, 2 CBBS double-elimination
groups of 4 (best of 3), then semi-finals and final (best of 5) on 2 tables — every match scored
through the API of the running server, while the desk, the venue and Mesa 1's tablet (logged in
with the table PIN) are open: players advance, tables are called and the tablet follows its
table, one W.O., a refused second match on a busy table and a refused late correction; the desk
and the venue are pushed; the champion and standings equal what the formats say."""
from __future__ import annotations

import pathlib
import random

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

import tournament
from scoreboard.core import competitions, log, tables
from scoreboard.core.models import Competition, Match, RefereeCredential, Table

from browser import ARGS, CHROMIUM, require_chromium
from test_competition_event import EVENT, PLAYERS

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"


@pytest.mark.browser
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class EventBrowserTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        log._engines.clear()
        SHOTS.mkdir(exist_ok=True)

    def post(self, match_id: int, token: str, event: dict) -> httpx.Response:
        return httpx.post(f"{self.live_server_url}/api/matches/{match_id}/events/", json={"event": event},
                          headers={"Authorization": f"Bearer {token}"}, timeout=20)

    def act(self, **body) -> httpx.Response:
        return httpx.post(f"{self.live_server_url}/api/competitions/{self.cid}/actions/", json=body,
                          headers={"Authorization": f"Bearer {self.desk}"}, timeout=20)

    def summary(self) -> dict:
        s = httpx.get(f"{self.live_server_url}/api/competitions/{self.cid}/", timeout=20).json()
        return {m["number"]: m for st in s["stages"] for m in st["matches"]} | {"_": s}

    def live_or_done(self) -> tuple[dict, list]:
        """The summary and its matches called or in play, once there is one or the event is over:
        a result's flow (the next calls) runs in the server's background after the result's
        push, so the desk may show the result before the next match is called."""
        import time

        deadline = time.monotonic() + 20
        while True:
            ms = self.summary()
            live = [m for k, m in ms.items() if k != "_" and m["status"] in ("called", "in_play")]
            if live or ms["_"]["complete"] or time.monotonic() > deadline:
                return ms, live
            time.sleep(0.1)

    def score(self, match_id: int, winner: int, loser_frames: int) -> None:
        m = Match.objects.get(pk=match_id)
        token = RefereeCredential.issue(m, label="test")[1]
        order = [1 - winner] * loser_frames + [winner] * m.frames_to_win
        if m.seq == 0:
            assert self.post(match_id, token, {"type": "lot", "player": 0}).status_code == 201
        for i, w in enumerate(order):
            assert self.post(match_id, token, {"type": "concede", "player": 1 - w}).status_code == 201
            if i < len(order) - 1:
                assert self.post(match_id, token, {"type": "next_frame"}).status_code == 201

    def test_a_whole_event(self):
        from django.conf import settings
        from django.contrib.auth.models import User
        from django.test import Client
        from playwright.sync_api import sync_playwright

        created = competitions.create_competition(EVENT)
        self.cid, self.desk = created.competition.pk, created.desk_token
        t1 = Table.objects.get(name="Mesa 1")
        tables.set_pin(t1, "135790")
        c = Client()
        c.force_login(User.objects.create_superuser("desk", "d@example.com", "pw-desk-123"))
        cookie = {"name": settings.SESSION_COOKIE_NAME, "value": c.cookies[settings.SESSION_COOKIE_NAME].value,
                  "domain": "127.0.0.1", "path": "/"}
        base = self.live_server_url
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                staff = browser.new_context(viewport={"width": 1280, "height": 800}, locale="pt-BR")
                staff.add_cookies([cookie])
                desk = staff.new_page()
                desk.goto(base + f"/desk/{self.cid}/")
                desk.wait_for_selector('.desk-table.st-called[data-table="Mesa 1"]')
                venue = browser.new_context(viewport={"width": 1280, "height": 800}, locale="pt-BR").new_page()
                venue.goto(base + "/")
                venue.wait_for_selector(".next-list .called")
                tablet = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                tablet.goto(base + f"/tables/{t1.pk}/referee/")
                tablet.fill("input[name=pin]", "135790")
                tablet.press("input[name=pin]", "Enter")
                tablet.wait_for_url("**/referee/")

                rng = random.Random(11)
                wo_done = busy_refused = False
                for _ in range(40):
                    ms, live = self.live_or_done()
                    if not live:
                        break
                    m = live[0]
                    if m["table"] == "Mesa 1":
                        # Mesa 1's tablet is on the match its table has now
                        tablet.wait_for_url(f"**/matches/{m['match']}/referee/", timeout=45000)
                    if not wo_done and m["round_name"] == "opening" and m["status"] == "called":
                        assert self.act(action="walkover", match=m["number"], absent=[1], reason="ausente").status_code == 200
                        wo_done = True
                        desk.wait_for_function("() => document.querySelector('#desk-board').textContent.includes('W.O.')",
                                               timeout=10000)
                        continue
                    if not busy_refused:
                        token = RefereeCredential.issue(Match.objects.get(pk=m["match"]), label="t")[1]
                        assert self.post(m["match"], token, {"type": "lot", "player": 0}).status_code == 201
                        others = [o for k, o in self.summary().items()
                                  if k != "_" and o["match"] and o["status"] == "scheduled"]
                        if others:
                            r = self.act(action="call", match=others[0]["number"], table=m["table"])
                            assert r.status_code == 422 and r.json()["error"]["code"] == "table_busy"
                            busy_refused = True
                    before = desk.locator("#desk-board").text_content()
                    self.score(m["match"], rng.randrange(2), rng.randrange(Match.objects.get(pk=m["match"]).frames_to_win))
                    # the desk and the venue are pushed (no reload): the result shows up
                    desk.wait_for_function("(b) => document.querySelector('#desk-board').textContent !== b",
                                           arg=before, timeout=10000)
                assert wo_done and busy_refused
                s = self.summary()["_"]
                assert s["complete"] and s["champion"] in PLAYERS
                desk.wait_for_selector(".desk-champion", timeout=10000)
                assert s["champion"] in desk.locator(".desk-champion").text_content()
                venue.wait_for_function("() => document.querySelector('#venue-board').textContent.includes('W.O.')",
                                        timeout=10000)
                desk.screenshot(path=str(SHOTS / "h17-event-desk-1280x800.png"), full_page=True)
                venue.screenshot(path=str(SHOTS / "h17-event-venue-1280x800.png"), full_page=True)
                # a late correction: a group's opening match, whose dependents have been played
                opening = [m for k, m in self.summary().items()
                           if k != "_" and m["round_name"] == "opening" and m["status"] == "finished"][0]
                r = self.act(action="correct", match=opening["number"], result={"winner": 1, "frames": [0, 2]},
                             reason="súmula")
                assert r.status_code == 422 and r.json()["error"]["code"] == "correction_refused"
            finally:
                browser.close()
        # the standings and the champion equal what the formats say for the same results
        cur = competitions.now(Competition.objects.get(pk=self.cid))
        pure = tournament.evaluate(tournament.build(tournament.parse_competition(EVENT)), cur.results)
        names = {i + 1: n for i, n in enumerate(PLAYERS)}
        assert s["champion"] == names[pure.champion]
        for (st, g), rows in pure.standings.items():
            assert [r["name"] for r in s["standings"][f"{st}:{g}"]] == [names[r["entry"]] for r in rows]
