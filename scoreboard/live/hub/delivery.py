"""Delivery: one change written to every local socket of its match, the frame built once per
message kind; a socket's first state and whatever arrived while it was being read; resyncs.

Sockets register before they read the current state, and a message that arrives while a socket
is still being given its first state is held for it, so nothing falls between connect and push.
Every message carries ``seq``; a socket never gets a seq lower than one it already has. Page
sockets may jump to the newest state; a JSON feed socket gets every event exactly once, in seq
order (``gaps``).
"""
from __future__ import annotations

import asyncio
import logging
import time

from channels.db import database_sync_to_async

from .. import render
from .board_sockets import BoardSockets
from .gaps import FeedGaps
from .registry import FEED, PENDING, Registry, Sink
from .wire import frame_text, write_now

log = logging.getLogger(__name__)

CHUNK = 250  # socket writes between two turns of the event loop during a fan-out


class Delivery:
    """Writes changes to the sockets of :class:`~.registry.Registry`."""

    def __init__(self, sockets: Registry, gaps: FeedGaps, boards: BoardSockets, stats: dict) -> None:
        self.sockets, self.gaps, self.boards, self.stats = sockets, gaps, boards, stats

    async def opened(self, sink: Sink, seq: int, text: str) -> None:
        """Give a registered socket its first state, then anything newer held meanwhile (a
        feed socket: every event after its first state, in order)."""
        held = sink.held
        sink.held = None
        sink.last_seq = -1
        await sink.push(seq, text)
        newest = render.latest.get(sink.match_id)
        if newest and newest[0] > seq and (held is None or held[0] < newest[0]) and sink.key in newest[1]:
            # a change that arrived after a shared read began, before this socket registered
            held = (newest[0], newest[1][sink.key], None)
        if held and held[0] > seq:
            if sink.key == FEED:
                await self.gaps.catch_up(sink.match_id, [sink], held[0])
            else:
                await sink.push(*held)

    async def deliver(self, match_id: int, seq: int, payloads: dict[str, str],
                      again: tuple | list = (), skip: str = "") -> None:
        """Write one change to every local socket of the match, the frame built once per kind.

        ``again`` names key prefixes (``"overlay"``) whose sockets take this seq even if they
        have it already: a switch from the overlay control endpoint changes what the overlay
        shows without a new event (the page orders switches by their own version). ``skip``
        is the socket id of the tablet whose tap this is: it drew the POST's answer, which is
        this seq's fragment, so its socket counts the seq as sent and is not sent it twice."""
        render.remember(match_id, seq, payloads)
        self.boards.changed(match_id)
        by_key = self.sockets.of(match_id)
        self.stats["messages"] += 1
        if not by_key:
            return
        t0 = time.perf_counter()
        slow = []
        written = 0
        feed_text = payloads.get(FEED)
        if feed_text is not None:
            self.gaps.remember(match_id, seq, feed_text)
        behind: list[Sink] = []
        unrendered: list[str] = []
        for key, sinks in list(by_key.items()):
            text = payloads.get(key)
            if text is None:
                if sinks:
                    unrendered.append(key)
                continue
            feed = key == FEED
            resend = bool(again) and key.startswith(tuple(again))
            frame = None
            for sink in list(sinks):
                if sink.last_seq == PENDING:
                    if sink.held is None or sink.held[0] < seq:
                        sink.held = (seq, text, None)
                    continue
                if seq < sink.last_seq or (seq == sink.last_seq and not resend):
                    continue
                if skip and sink.sid == skip:
                    sink.last_seq = seq
                    continue
                if feed and sink.last_seq < seq - 1:
                    behind.append(sink)  # missed an event (another worker's, or lost): fill in
                    continue
                p = sink.proto
                if p is None:
                    slow.append(sink.push(seq, text, again=resend))
                    continue
                if frame is None:
                    frame = frame_text(text)
                    self.stats["frames_built"] += 1
                sink.last_seq = seq
                if p.state == p.STATE_OPEN:
                    write_now(p.transport, frame)
                    written += 1
                    if written % CHUNK == 0:
                        # Let the loop breathe: the POST that made this change answers now,
                        # not after the last of thousands of writes.
                        await asyncio.sleep(0)
        self.stats["sends"] += written
        if slow:
            self.stats["sends"] += len(slow)
            await asyncio.gather(*slow, return_exceptions=True)
        self.stats["last_fanout_ms"] = (time.perf_counter() - t0) * 1000
        if behind:
            await self.gaps.catch_up(match_id, behind, seq)
        if unrendered and payloads:
            # The publisher did not see these kinds watched (their first socket opened as it
            # rendered, or the shared cache was out): render them here, in the background.
            self.stats["rendered_at_delivery"] = self.stats.get("rendered_at_delivery", 0) + 1
            asyncio.ensure_future(self.render_missing(match_id, unrendered))

    async def notice(self, match_id: int, prefix: str, text: str) -> None:
        """Send ``text`` to every local socket of the match whose kind starts with ``prefix``
        (``Publisher.notice``); a socket still waiting for its first state gets it from the
        page it loads."""
        sends = [sink.send_texts([text]) for key, sinks in self.sockets.of(match_id).items()
                 if key.startswith(prefix) for sink in list(sinks) if sink.last_seq != PENDING]
        if sends:
            await asyncio.gather(*sends, return_exceptions=True)

    async def render_missing(self, match_id: int, keys: list[str]) -> None:
        """Send the sockets of ``keys`` the match's current state, rendered for them now."""
        try:
            cur, payloads = await database_sync_to_async(render.current_payloads)(match_id, keys)
            await self.deliver(match_id, cur, {k: v for k, v in payloads.items() if k in keys})
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the reconciler resyncs a socket left behind
            log.exception("hub render at delivery failed")

    async def resync(self, match_id: int, seq: int) -> None:
        """Bring every socket of a match up to its committed ``seq``: page sockets to the current
        state, feed sockets through every event they missed, in order."""
        self.stats["resyncs"] = self.stats.get("resyncs", 0) + 1
        feed = list(self.sockets.of(match_id).get(FEED, ()))
        if feed:
            await self.gaps.catch_up(match_id, feed, seq)
        pages = [key for key in self.sockets.of(match_id) if key != FEED]
        if pages:
            cur, payloads = await database_sync_to_async(render.current_payloads)(match_id, pages)
            await self.deliver(match_id, cur, {k: v for k, v in payloads.items() if k != FEED})

    async def catch_up_all(self) -> None:
        """Resync every match whose sockets are behind the database (once the subscription is
        in place: changes made before it could not arrive through it)."""
        try:
            committed = await database_sync_to_async(render.committed_seqs)(self.sockets.matches())
            for m, seq in committed.items():
                if any(0 <= sink.last_seq < seq for sinks in self.sockets.of(m).values()
                       for sink in sinks):
                    await self.resync(m, seq)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the reconciler tries again in a second
            log.exception("hub catch-up failed")
