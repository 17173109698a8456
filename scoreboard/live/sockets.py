"""Websocket endpoints: read-only live streams of one match, served through the process's hub.

``/ws/matches/<id>/?view=tv|overlay|referee&lang=pt-br|en`` sends htmx out-of-band fragments;
``/ws/matches/<id>/feed/`` sends JSON; ``/ws/boards/?view=venue|jumbotron&lang=`` sends the
venue's boards whole (``boards.py``). Both send the current state on connect, then every change
as the same pre-rendered bytes every other socket of that kind gets (see ``hub/``). They are
plain ASGI applications rather than Channels consumers: a socket here needs no channel of its
own in the layer, which is what keeps a change's cost per socket to one write.
"""
from __future__ import annotations

import asyncio
import re
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.conf import settings

from ..core import access, tablets
from ..core.credentials import session_may_referee
from ..core.models import Match
from . import boards, graphics, render
from .hub import Sink, hub

CLOSE_NOT_FOUND = 4404
CLOSE_FORBIDDEN = 4403
CLOSE_READ_ONLY = 4400
AUTH_RECHECK_SECONDS = 1.0  # a revoked referee's socket closes within about this (+ one query)
CLOSE_TOO_MANY = 4429
SID = re.compile(r"[A-Za-z0-9_-]{16,40}")  # a tablet's socket id (``?sid=``)


class LiveSocket:
    """ASGI app for one match's live socket. Clients cannot change anything through it: any
    message they send closes the socket (4400)."""

    def __init__(self, feed: bool = False) -> None:
        self.feed = feed

    def _key(self, scope: dict) -> tuple[str, str]:
        qs = parse_qs(scope.get("query_string", b"").decode(errors="replace"))
        view = "feed" if self.feed else qs.get("view", ["tv"])[0]
        lang = qs.get("lang", ["pt-br"])[0].lower()
        if view not in (*render.VIEWS, "feed"):
            view = "tv"
        if lang not in render.languages():
            lang = "pt-br"
        return view, render.payload_key(view, lang)

    @staticmethod
    def _sid(scope: dict) -> str:
        """The tablet's socket id (``?sid=``, 16–40 letters, digits, ``-`` or ``_``; else none):
        the tablet sends it with its taps (``X-Sinuca-Socket``), and the hub does not push the
        changes of those taps back to this socket, which drew the POST's answer already."""
        qs = parse_qs(scope.get("query_string", b"").decode(errors="replace"))
        sid = qs.get("sid", [""])[0]
        return sid if SID.fullmatch(sid) else ""

    async def __call__(self, scope: dict, receive, send) -> None:
        """Accept, register with the hub, send the current state, then wait for the close."""
        if (await receive())["type"] != "websocket.connect":
            return
        match_id = int(scope["url_route"]["kwargs"]["match_id"])
        view, key = self._key(scope)
        if view == "referee" and not await database_sync_to_async(session_may_referee)(
                scope.get("session"), scope.get("user"), match_id):
            await send({"type": "websocket.close", "code": CLOSE_FORBIDDEN})
            return
        await send({"type": "websocket.accept"})
        sink = Sink(match_id, key, send, sid=self._sid(scope) if view == "referee" else "")
        await hub.add(sink)  # before reading the state: a change from now on is held for us
        guard = (asyncio.ensure_future(self._guard(scope, match_id, sink, send))
                 if view == "referee" else None)
        try:
            try:
                seq, text = await hub.sockets.first_state(match_id, key)
            except Match.DoesNotExist:
                await send({"type": "websocket.close", "code": CLOSE_NOT_FOUND})
                return
            await hub.delivery.opened(sink, seq, text)
            if view == "referee":
                await listen_tablet(receive, send, match_id)
            else:
                await listen_read_only(receive, send)
        finally:
            if guard is not None:
                guard.cancel()
            hub.sockets.remove(sink)
            if view == "referee":
                await database_sync_to_async(tablets.gone)(match_id)
                hub.boards.changed()

    async def _guard(self, scope: dict, match_id: int, sink: Sink, send) -> None:
        """While a referee socket is open, check every second that its session may still score
        the match (a revoked credential, a changed table PIN); if not, stop sending to it and
        close it (4403). Spectator sockets carry nothing secret and are not checked."""
        while True:
            await asyncio.sleep(AUTH_RECHECK_SECONDS)
            try:
                allowed = await database_sync_to_async(session_may_referee)(
                    scope.get("session"), scope.get("user"), match_id)
            except Exception:  # noqa: BLE001 - the database may be restarting: check again
                continue
            if not allowed:
                hub.sockets.remove(sink)
                await send({"type": "websocket.close", "code": CLOSE_FORBIDDEN})
                return

class BoardSocket:
    """ASGI app for a venue board's live socket (``/ws/boards/?view=venue|jumbotron&lang=``):
    the board now, then the board again whenever it changes. Read-only like the match sockets.
    ``&have=<digest>``: the board the page printed (``boards.digest``); when it is still the
    board now, the first send is skipped (the page has it: on a phone that was the whole page's
    weight again)."""

    async def __call__(self, scope: dict, receive, send) -> None:
        """Accept, send the board, register for its changes, then wait for the close."""
        if (await receive())["type"] != "websocket.connect":
            return
        qs = parse_qs(scope.get("query_string", b"").decode(errors="replace"))
        kind = qs.get("view", ["venue"])[0]
        lang = qs.get("lang", ["pt-br"])[0].lower()
        desk = boards.DESK.match(kind)
        if desk:
            # a competition's desk: its organisers and the superuser
            if not await database_sync_to_async(access.may)(
                    "competition.desk", access.Actor.of_scope(scope), int(desk.group(1))):
                await send({"type": "websocket.close", "code": CLOSE_FORBIDDEN})
                return
        elif (kind not in boards.KINDS and not valid_public(kind) and not graphics.KIND.match(kind)
              and not boards.TABLE.match(kind) and not boards.registered(kind)):
            kind = "venue"
        if lang not in render.languages():
            lang = "pt-br"
        have = qs.get("have", [""])[0]
        await send({"type": "websocket.accept"})
        sink = Sink(0, f"{kind}:{lang}", send)
        try:
            await hub.open_board(sink, have if boards.DIGEST.fullmatch(have) else "")
            await listen_read_only(receive, send)
        finally:
            hub.boards.close(sink)


def valid_public(kind: str) -> bool:
    """A public board kind of one competition (``boards.PUBLIC``) whose parts are well formed: a
    player kind has its entry, the others none."""
    m = boards.PUBLIC.match(kind)
    return bool(m) and (m.group(3) is not None) == (m.group(1) == "player")


class PerClientLimit:
    """ASGI wrapper: at most ``settings.LIVE_SOCKETS_PER_CLIENT`` live sockets per client address
    in this process (0: no limit); one more is accepted and closed at once with 4429, before it
    costs a database query. One client opening thousands of sockets made every other spectator
    wait seconds for its first state. The address is ``scope["client"]``: whatever the server
    decided it is (behind a trusted proxy, the proxy's header)."""

    counts: dict[str, int] = {}
    """client address -> its open sockets in this process (shared by every wrapped route)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive, send) -> None:
        """Count the socket against its address for as long as it is open, or refuse it."""
        client = scope.get("client")
        addr = client[0] if client else None
        cap = getattr(settings, "LIVE_SOCKETS_PER_CLIENT", 0)
        if addr is None or not cap:
            return await self.app(scope, receive, send)
        counts = self.counts
        if counts.get(addr, 0) >= cap:
            if (await receive())["type"] == "websocket.connect":
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": CLOSE_TOO_MANY})
            return
        counts[addr] = counts.get(addr, 0) + 1  # no await since the check: no race
        try:
            await self.app(scope, receive, send)
        finally:
            left = counts[addr] - 1
            if left:
                counts[addr] = left
            else:
                del counts[addr]


STATUS_MAX = 512  # bytes of a tablet's status message
STATUS_EVERY = 1.0  # seconds between two status messages a tablet may send


async def listen_tablet(receive, send, match_id: int) -> None:
    """A referee socket scores nothing (taps go through HTTP), but the tablet reports its state
    over it for the desk: ``{"type": "status", "queued", "engine", "battery", "charging"}``
    (``core.tablets``), at most one a second, each at most ``STATUS_MAX`` bytes; anything else
    closes the socket like a spectator's message (``CLOSE_READ_ONLY``)."""
    import json
    import time

    last = 0.0
    holding = None  # what this socket last said about its held taps
    while True:
        msg = await receive()
        if msg["type"] == "websocket.disconnect":
            return
        if msg["type"] != "websocket.receive":
            continue
        text = msg.get("text") or ""
        data = None
        if len(text) <= STATUS_MAX:
            try:
                data = tablets.clean(json.loads(text))
            except ValueError:
                data = None
        if data is None:
            await send({"type": "websocket.close", "code": CLOSE_READ_ONLY})
            return
        if (data["tablet"], data["queued"], data["state"]) != holding:
            # taps held or let go are told to the match's other tablets at once (not held back
            # by the desk's once a second), through every process's hub
            holding = (data["tablet"], data["queued"], data["state"])
            marker = await database_sync_to_async(tablets.hold)(match_id, data)
            if marker is not None:
                await hub.publisher.notice(match_id, "referee", tablets.held_fragment(marker))
        if time.monotonic() - last < STATUS_EVERY:
            continue
        last = time.monotonic()
        await database_sync_to_async(tablets.report)(match_id, data)
        hub.boards.changed()


async def listen_read_only(receive, send) -> None:
    """Wait until the client leaves; a spectator's socket only listens, so a message from it
    closes the socket with ``CLOSE_READ_ONLY``."""
    while True:
        msg = await receive()
        if msg["type"] == "websocket.disconnect":
            return
        if msg["type"] == "websocket.receive":
            await send({"type": "websocket.close", "code": CLOSE_READ_ONLY})
            return
