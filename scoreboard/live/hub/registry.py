"""The socket registry: this process's live sockets, by match and message kind, and their first
state (sockets connecting together share one database read)."""
from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

from channels.db import database_sync_to_async

from .. import render
from .wire import daphne_protocol, write_now

PENDING = -2  # a socket's seq while it is registered but not yet given its first state
FEED = "feed"  # the message kind of the JSON feed sockets

Send = Callable[[dict], Awaitable[None]]


class Sink:
    """One live socket of this process: which match and message kind it wants, how to reach it,
    and the latest seq it was sent."""

    __slots__ = ("match_id", "key", "send", "proto", "last_seq", "held", "lock", "sid")

    def __init__(self, match_id: int, key: str, send: Send, sid: str = "") -> None:
        self.match_id = match_id
        self.key = key
        self.sid = sid  # a tablet's socket id (``?sid=``): its own taps' changes are not pushed to it
        self.send = send
        self.proto = daphne_protocol(send)
        self.last_seq = PENDING
        self.held: tuple[int, str, bytes | None] | None = None  # newest message while PENDING
        self.lock: asyncio.Lock | None = None  # orders the ASGI sends of concurrent deliveries

    async def push(self, seq: int, text: str, frame: bytes | None = None, again: bool = False) -> None:
        """Send one message if it is newer than what the socket has (or as new, ``again``)."""
        if seq < self.last_seq or (seq == self.last_seq and not again):
            return
        self.last_seq = seq
        p = self.proto
        if p is not None and frame is not None:
            if p.state == p.STATE_OPEN:
                write_now(p.transport, frame)
            return
        await self.send_texts([text])

    async def send_texts(self, texts: list[str]) -> None:
        """Send messages through the ASGI ``send``, in order, after any sent before them (a
        gap being filled awaits each send, and another delivery may start meanwhile)."""
        if self.lock is None:
            self.lock = asyncio.Lock()
        async with self.lock:
            for text in texts:
                await self.send({"type": "websocket.send", "text": text})


class Registry:
    """The match sockets of this process: match -> message kind -> sockets."""

    def __init__(self) -> None:
        self._sinks: dict[int, dict[str, set[Sink]]] = {}
        self._lookups: dict[tuple[int, str], asyncio.Future] = {}  # first states being read

    def add(self, sink: Sink) -> bool:
        """Register a socket (PENDING until it is given its first state); True when it is the
        first of its match and kind here."""
        sinks = self._sinks.setdefault(sink.match_id, {}).setdefault(sink.key, set())
        sinks.add(sink)
        return len(sinks) == 1

    def pairs(self) -> list[tuple[int, str]]:
        """Every ``(match id, kind)`` this process has a socket of."""
        return [(m, k) for m, by_key in list(self._sinks.items()) for k in list(by_key)]

    def remove(self, sink: Sink) -> None:
        """Forget a socket that closed."""
        by_key = self._sinks.get(sink.match_id)
        if by_key and sink.key in by_key:
            by_key[sink.key].discard(sink)
            if not by_key[sink.key]:
                del by_key[sink.key]
            if not by_key:
                del self._sinks[sink.match_id]

    def of(self, match_id: int) -> dict[str, set[Sink]]:
        """The sockets of one match, by message kind (empty if none)."""
        return self._sinks.get(match_id, {})

    def matches(self) -> list[int]:
        """The matches that have sockets in this process."""
        return list(self._sinks)

    def count(self, match_id: int | None = None) -> int:
        """Sockets held by this process (for one match, or all)."""
        maps = [self._sinks.get(match_id, {})] if match_id is not None else list(self._sinks.values())
        return sum(len(s) for m in maps for s in m.values())

    async def first_state(self, match_id: int, key: str) -> tuple[int, str]:
        """``(seq, text)`` of a socket's first state: sockets connecting together share one
        database read (a burst of 2,000 spectators queued 2,000 reads on the one database
        thread). Raises ``Match.DoesNotExist``."""
        k = (match_id, key)
        fut = self._lookups.get(k)
        if fut is None:
            fut = self._lookups[k] = asyncio.ensure_future(
                database_sync_to_async(render.connect_payload)(match_id, key))
            fut.add_done_callback(lambda f: self._lookups.pop(k, None) if self._lookups.get(k) is f else None)
        return await asyncio.shield(fut)
