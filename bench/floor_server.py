"""The reference floor for fan-out: the least a Python server must do for the same protocol.

aiohttp serves one match: GET /api/matches/1/ -> {"id", "seq", "config", "state"};
POST /api/matches/1/events/ answers 201 {"seq", "state"} with a stand-in state (no rules) and sends
one pre-encoded {"seq", "state", "event"} string to every socket;
WS /ws/matches/1/feed/ sends {"seq", "state"} on connect. No database, no auth, no render.
``bench/live_fanout.py`` runs it as a process, ``bench/tap_stages.py`` serves its ``app`` in a
thread of its own process; both print the app's latency beside it.

Usage: .venv/bin/python bench/floor_server.py PORT
"""
from __future__ import annotations

import json
import sys

from aiohttp import web

CONFIG = {"reds": 15, "frames_to_win": 1, "players": ["Ana Souza", "Bia Lima"], "first_breaker": 0}


class StandIn:
    """A state of the contract's size and shape; only the scores and break move."""

    def __init__(self):
        self.s = {"phase": "play", "frame_number": 1, "breaker": 0, "striker": 0, "scores": [0, 0],
                  "frames": [0, 0], "reds_remaining": 15, "colours_remaining": [2, 3, 4, 5, 6, 7],
                  "ball_on": [1], "points_remaining": 147, "snookers_required": 0, "break": 0,
                  "free_ball": False, "decision_options": [], "decider": False,
                  "aggravated_fouls": 0, "warning": None, "warnings": [0, 0], "last_penalty": None,
                  "frame_winner": None, "match_winner": None, "match_result": None,
                  "highest_break": [0, 0], "history": []}

    def apply(self, event):
        self.s = dict(self.s, scores=[self.s["scores"][0] + 1, self.s["scores"][1]],
                      **{"break": self.s["break"] + 1})


engine, seq, sockets = StandIn(), 0, set()


async def get_match(request):
    return web.json_response({"id": 1, "seq": seq, "config": CONFIG, "state": engine.s})


async def post_event(request):
    global seq
    body = await request.json()
    engine.apply(body["event"])
    seq += 1
    msg = json.dumps({"seq": seq, "state": engine.s, "event": body["event"]})
    for ws in list(sockets):
        try:
            await ws.send_str(msg)
        except ConnectionError:
            sockets.discard(ws)
    return web.json_response({"seq": seq, "state": engine.s}, status=201)


async def feed(request):
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    await ws.send_str(json.dumps({"seq": seq, "state": engine.s}))
    sockets.add(ws)
    try:
        async for _ in ws:
            pass
    finally:
        sockets.discard(ws)
    return ws


app = web.Application()
app.add_routes([web.get("/api/matches/1/", get_match), web.post("/api/matches/1/events/", post_event),
                web.get("/ws/matches/1/feed/", feed)])

if __name__ == "__main__":
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
