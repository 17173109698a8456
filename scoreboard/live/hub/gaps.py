"""Feed gaps: a JSON feed socket gets every event exactly once, in seq order.

Changes from several workers can arrive out of order, or not at all while Redis restarts, so a
feed socket at seq n offered n+2 is first sent n+1: from this process's recent copies, or read
from the log once per match and range, never per socket.
"""
from __future__ import annotations

import asyncio

from channels.db import database_sync_to_async

from .. import render
from .registry import Sink
from .wire import frame_text, write_now

FEED_KEEP = 512  # feed messages kept per match to fill gaps without a query


class FeedGaps:
    """This process's recent feed messages and the filling of feed sockets' gaps."""

    def __init__(self, stats: dict) -> None:
        self.stats = stats
        self._feed: dict[int, dict[int, str]] = {}  # match -> seq -> feed message (recent ones)

    def remember(self, match_id: int, seq: int, text: str) -> None:
        """Keep a feed message, dropping the oldest half when ``FEED_KEEP`` are kept."""
        texts = self._feed.setdefault(match_id, {})
        texts[seq] = text
        if len(texts) > FEED_KEEP:
            for old in sorted(texts)[:len(texts) - FEED_KEEP // 2]:
                del texts[old]

    async def texts(self, match_id: int, first: int, last: int) -> dict[int, str]:
        """seq -> feed message for ``first``..``last``: this process's copies, and the rest from
        the log in one query."""
        have = self._feed.get(match_id, {})
        out = {s: have[s] for s in range(first, last + 1) if s in have}
        missing = [s for s in range(first, last + 1) if s not in out]
        if missing:
            self.stats["gap_fills"] += 1
            got = await database_sync_to_async(render.feed_messages)(match_id, missing[0], missing[-1])
            for s in missing:
                if s in got:
                    out[s] = got[s]
                    self.remember(match_id, s, got[s])
        return out

    async def catch_up(self, match_id: int, sinks: list[Sink], upto: int) -> None:
        """Send each feed socket every event after its seq up to ``upto``, in order, once.

        The messages are read once for the whole range (:meth:`texts`) and each frame is built
        once, whatever the number of sockets. A socket's seq is read again after the query, so a
        delivery that ran meanwhile is not repeated.
        """
        for _ in range(3):  # a socket opened meanwhile at an older seq needs a wider range
            live = [s for s in sinks if 0 <= s.last_seq < upto]
            if not live:
                return
            first = min(s.last_seq for s in live) + 1
            texts = await self.texts(match_id, first, upto)
            frames: dict[int, bytes] = {}
            slow, sinks = [], []
            for sink in live:
                have = sink.last_seq
                if have < 0 or have >= upto:
                    continue
                if have + 1 < first:
                    sinks.append(sink)
                    continue
                seqs = [s for s in range(have + 1, upto + 1) if s in texts]
                sink.last_seq = upto
                p = sink.proto
                if p is None:
                    slow.append(sink.send_texts([texts[s] for s in seqs]))
                    continue
                if p.state != p.STATE_OPEN:
                    continue
                for s in seqs:
                    frame = frames.get(s)
                    if frame is None:
                        frame = frames[s] = frame_text(texts[s])
                        self.stats["frames_built"] += 1
                    write_now(p.transport, frame)
                self.stats["sends"] += len(seqs)
            if slow:
                await asyncio.gather(*slow, return_exceptions=True)
