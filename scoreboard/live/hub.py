"""The live path: one message per change per process, the same bytes to every socket.

The usual Channels design (a consumer per socket, each in the channel-layer group) makes the
layer do work per socket for every change: a queue per consumer, a task woken per consumer, a
send per consumer through Channels and Daphne. The measured baseline of that design is a p99 of
100-120 ms at only 200 sockets (README, "The live path"). Here instead:

- a change is rendered once (``render.render_change``) and published once to the layer group
  ``sinuca.hub``, whose members are one channel per *process*, not per socket;
- each process's :class:`Hub` receives it once and writes it to its local sockets of that match
  and kind. Under Daphne the websocket frame is built once (autobahn's ``PreparedMessage``) and
  the same bytes go straight to each connection's transport, so a socket costs one
  ``transport.write``; elsewhere (tests, other servers) it falls back to the ASGI ``send``.

Sockets register before they read the current state, and a message that arrives while a socket
is still being given its first state is held for it, so nothing falls between connect and push.
Every message carries ``seq``; a socket never gets a seq lower than one it already has. Page
sockets may jump to the newest state; a JSON feed socket gets every event exactly once, in seq
order: changes from several workers can arrive out of order, or not at all while Redis restarts,
so a feed socket at seq n offered n+2 is first sent n+1, built from the log (once per match and
range, never per socket; see :meth:`Hub.catch_up_feed`).
"""
from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import Any, Awaitable, Callable

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from ..core.log import Change
from . import boards, render

log = logging.getLogger(__name__)

HUB_GROUP = "sinuca.hub"
CHUNK = 250  # socket writes between two turns of the event loop during a fan-out
RECONCILE_SECONDS = 1.0  # how often a hub compares its sockets' seq with the database
REJOIN_SECONDS = 3600  # group membership expires in the layer (a day by default); rejoin hourly
PENDING = -2
FEED = "feed"
FEED_KEEP = 512  # feed messages kept per match to fill gaps without a query
BOARD_SETTLE = 0.05  # seconds a board refresh waits, so a burst of taps costs one render

Send = Callable[[dict], Awaitable[None]]


def daphne_protocol(send: Any) -> Any:
    """The Daphne websocket protocol behind an ASGI ``send``, or ``None``.

    Daphne hands each application ``functools.partial(server.handle_reply, protocol)``; the
    protocol is autobahn's, whose transport takes pre-framed bytes.
    """
    # Channels' session middleware wraps send to save the session; the data path needs no saving.
    while getattr(getattr(send, "__self__", None), "real_send", None) is not None:
        send = send.__self__.real_send
    if isinstance(send, functools.partial) and send.args:
        proto = send.args[0]
        if hasattr(proto, "transport") and hasattr(proto, "STATE_OPEN") and hasattr(proto, "state"):
            return proto
    return None


def frame_text(text: str) -> bytes:
    """One unmasked, uncompressed websocket text frame (RFC 6455 5.2), server to client."""
    from autobahn.websocket.protocol import PreparedMessage

    return PreparedMessage(text.encode(), False, False, True).payloadHybi


def write_now(tr: Any, data: bytes) -> None:
    """Write ``data`` to a Twisted TCP transport, straight to the socket when nothing is queued.

    ``transport.write`` always queues and registers the socket for writability (two epoll_ctl
    calls and a loop turn per socket, most of a fan-out's cost when profiled at 1,000 sockets).
    With an empty queue the bytes can go out at once, as asyncio's transports do; whatever the
    kernel does not take is queued behind them, so the order on the wire is kept.
    """
    sock = getattr(tr, "socket", None)
    if sock is None or tr.dataBuffer or tr._tempDataBuffer or tr.disconnecting:
        tr.write(data)
        return
    try:
        n = sock.send(data)
    except BlockingIOError:
        n = 0
    except OSError:
        return  # the connection is gone; Twisted notices on its next read
    if n < len(data):
        tr.write(data[n:])


class Sink:
    """One live socket of this process: which match and message kind it wants, how to reach it,
    and the latest seq it was sent."""

    __slots__ = ("match_id", "key", "send", "proto", "last_seq", "held", "lock")

    def __init__(self, match_id: int, key: str, send: Send) -> None:
        self.match_id = match_id
        self.key = key
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


class Hub:
    """This process's registry of live sockets and its single subscription to the layer."""

    def __init__(self) -> None:
        self._sinks: dict[int, dict[str, set[Sink]]] = {}
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pub: tuple[asyncio.AbstractEventLoop | None, asyncio.Queue | None] = (None, None)
        self._reconciler: asyncio.Task | None = None
        self._ready = asyncio.Event()
        self._feed: dict[int, dict[int, str]] = {}  # match -> seq -> feed message (recent ones)
        self._lookups: dict[tuple[int, str], asyncio.Future] = {}  # first states being read
        self._boards: dict[str, set[Sink]] = {}  # "venue:pt-br" -> its sockets in this process
        self._board_version = 0  # the seq of board messages: one counter per process
        self._board_task: asyncio.Task | None = None
        self._board_print: tuple | None = None  # boards.fingerprint() of the last refresh
        self.stats = {"messages": 0, "frames_built": 0, "sends": 0, "last_fanout_ms": 0.0,
                      "gap_fills": 0}

    # -- sockets ----------------------------------------------------------------------------

    async def add(self, sink: Sink) -> None:
        """Register a socket (PENDING until :meth:`opened`). Starts the subscription if needed."""
        await self.ensure_listening()
        self._sinks.setdefault(sink.match_id, {}).setdefault(sink.key, set()).add(sink)

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
                await self.catch_up_feed(sink.match_id, [sink], held[0])
            else:
                await sink.push(*held)

    def remove(self, sink: Sink) -> None:
        """Forget a socket that closed."""
        by_key = self._sinks.get(sink.match_id)
        if by_key and sink.key in by_key:
            by_key[sink.key].discard(sink)
            if not by_key[sink.key]:
                del by_key[sink.key]
            if not by_key:
                del self._sinks[sink.match_id]

    def count(self, match_id: int | None = None) -> int:
        """Sockets held by this process (for one match, or all)."""
        maps = [self._sinks.get(match_id, {})] if match_id is not None else list(self._sinks.values())
        return sum(len(s) for m in maps for s in m.values())

    # -- boards (the venue and the jumbotron) ------------------------------------------------

    async def open_board(self, sink: Sink) -> None:
        """Register a board socket (``sink.key`` is ``"<kind>:<lang>"``) and send it the board
        as it is now. A refresh that runs meanwhile sends a newer version, which this first one
        never overwrites (versions only grow)."""
        await self.ensure_listening()
        self._boards.setdefault(sink.key, set()).add(sink)
        version = self._board_version
        if self._board_print is None:
            self._board_print = await database_sync_to_async(boards.fingerprint)()
        kind, lang = sink.key.split(":", 1)
        text = await database_sync_to_async(boards.render_board)(kind, lang)
        await sink.push(version, text)

    def close_board(self, sink: Sink) -> None:
        """Forget a board socket that closed."""
        sinks = self._boards.get(sink.key)
        if sinks is not None:
            sinks.discard(sink)
            if not sinks:
                del self._boards[sink.key]

    def boards_changed(self) -> None:
        """A change arrived: refresh this process's boards soon (once for a burst of changes)."""
        if self._boards and (self._board_task is None or self._board_task.done()):
            self._board_task = asyncio.ensure_future(self.refresh_boards(BOARD_SETTLE))

    async def refresh_boards(self, settle: float = 0.0) -> None:
        """Render each open board kind and language once, and send it to its sockets."""
        if settle:
            await asyncio.sleep(settle)
        try:
            self._board_print = await database_sync_to_async(boards.fingerprint)()
            self._board_version += 1
            version = self._board_version
            for key in list(self._boards):
                kind, lang = key.split(":", 1)
                text = await database_sync_to_async(boards.render_board)(kind, lang)
                frame = None  # built once for every Daphne socket of this board
                for sink in list(self._boards.get(key, ())):
                    if sink.proto is not None and frame is None:
                        frame = frame_text(text)
                    await sink.push(version, text, frame)
            self.stats["board_renders"] = self.stats.get("board_renders", 0) + 1
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the reconciler tries again in a second
            log.exception("board refresh failed")

    async def _reconcile_boards(self) -> None:
        """Refresh the boards when the database says something changed that no message brought
        (a match scheduled or a table assigned in the admin, a lost change)."""
        if not self._boards or (self._board_task is not None and not self._board_task.done()):
            return
        now = await database_sync_to_async(boards.fingerprint)()
        if now != self._board_print:
            self._board_task = asyncio.ensure_future(self.refresh_boards())

    # -- messages ---------------------------------------------------------------------------

    async def ensure_listening(self) -> None:
        """Join the hub group with one channel for this process, once per event loop, without
        waiting for it: a socket's first state comes from the database, so a socket opened
        while Redis is down gets it at once (it used to wait 5 s for the subscription). A change
        made before the subscription is in place reaches the socket when the subscription is
        ready (:meth:`catch_up_all`) or through the reconciler.

        The listener is created without any ``await`` before it, so a thousand sockets
        connecting at once start exactly one (with Redis, each check-then-subscribe used to yield
        and let the next socket start another: 93 listeners, each change delivered 93 times).
        """
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._task is None or self._task.done():
            for task in (self._task, self._reconciler, self._board_task):
                if task is not None and not task.done():
                    task.cancel()  # a listener of another (finished) loop, as between tests
            # Board sockets and a pending refresh of another loop are gone with it; a refresh
            # "still running" there would hold back every later one.
            self._boards, self._board_task, self._board_print = {}, None, None
            self._loop = loop
            self._ready = asyncio.Event()
            self._task = asyncio.ensure_future(self._listen(self._ready))
            self._reconciler = asyncio.ensure_future(self._reconcile())

    async def _reconcile(self) -> None:
        """Safety net for a lost message (Redis pub/sub delivers at most once; a Redis restart
        or a full channel drops changes): every second, look up each local match's committed
        seq; a socket that still lacks the seq committed at the *previous* look-up (a change at
        least a second old, not one in flight) is sent the current state. So no screen stays
        stale for more than about two seconds."""
        previous: dict[int, int] = {}
        while True:
            await asyncio.sleep(RECONCILE_SECONDS)
            try:
                await self._reconcile_boards()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the database may be restarting: try again
                log.exception("hub board reconcile failed")
            if not self._sinks:
                previous = {}
                continue
            try:
                committed = await database_sync_to_async(render.committed_seqs)(list(self._sinks))
                for m, old in previous.items():
                    if any(sink.last_seq < old for sinks in self._sinks.get(m, {}).values()
                           for sink in sinks if sink.last_seq != PENDING):
                        await self.resync(m, committed.get(m, old))
                previous = committed
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the database may be restarting too; try again
                log.exception("hub reconcile failed")

    async def resync(self, match_id: int, seq: int) -> None:
        """Bring every socket of a match up to its committed ``seq``: page sockets to the current
        state, feed sockets through every event they missed, in order."""
        self.stats["resyncs"] = self.stats.get("resyncs", 0) + 1
        feed = list(self._sinks.get(match_id, {}).get(FEED, ()))
        if feed:
            await self.catch_up_feed(match_id, feed, seq)
        if any(key != FEED for key in self._sinks.get(match_id, {})):
            cur, payloads = await database_sync_to_async(render.current_payloads)(match_id)
            await self.deliver(match_id, cur, {k: v for k, v in payloads.items() if k != FEED})

    async def catch_up_all(self) -> None:
        """Resync every match whose sockets are behind the database (once the subscription is
        in place: changes made before it could not arrive through it)."""
        try:
            committed = await database_sync_to_async(render.committed_seqs)(list(self._sinks))
            for m, seq in committed.items():
                if any(0 <= sink.last_seq < seq for sinks in self._sinks.get(m, {}).values()
                       for sink in sinks):
                    await self.resync(m, seq)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the reconciler tries again in a second
            log.exception("hub catch-up failed")

    async def _listen(self, ready: asyncio.Event) -> None:
        layer = get_channel_layer()
        while True:
            try:
                channel = await layer.new_channel("hub.")
                await layer.group_add(HUB_GROUP, channel)
                break
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis not there yet: keep trying
                log.exception("hub could not join %s; retrying", HUB_GROUP)
                await asyncio.sleep(0.5)
        ready.set()
        if self._sinks:
            asyncio.ensure_future(self.catch_up_all())
        rejoin = time.monotonic() + REJOIN_SECONDS
        while True:
            try:
                msg = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a layer hiccup (Redis restart): retry, never die
                log.exception("hub receive failed; retrying")
                await asyncio.sleep(0.5)
                try:
                    await layer.group_add(HUB_GROUP, channel)
                except Exception:  # noqa: BLE001
                    pass
                continue
            if time.monotonic() > rejoin:
                rejoin = time.monotonic() + REJOIN_SECONDS
                await layer.group_add(HUB_GROUP, channel)
            try:
                await self.deliver(msg["match"], msg["seq"], msg["payloads"], msg.get("again", ()))
            except Exception:  # noqa: BLE001
                log.exception("hub delivery failed")

    async def deliver(self, match_id: int, seq: int, payloads: dict[str, str],
                      again: tuple | list = ()) -> None:
        """Write one change to every local socket of the match, the frame built once per kind.

        ``again`` names key prefixes (``"overlay"``) whose sockets take this seq even if they
        have it already: a switch from the overlay control endpoint changes what the overlay
        shows without a new event (the page orders switches by their own version)."""
        render.remember(match_id, seq, payloads)
        self.boards_changed()
        by_key = self._sinks.get(match_id)
        self.stats["messages"] += 1
        if not by_key:
            return
        t0 = time.perf_counter()
        slow = []
        written = 0
        feed_text = payloads.get(FEED)
        if feed_text is not None:
            self._remember_feed(match_id, seq, feed_text)
        behind: list[Sink] = []
        for key, sinks in list(by_key.items()):
            text = payloads.get(key)
            if text is None:
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
            await self.catch_up_feed(match_id, behind, seq)

    def _remember_feed(self, match_id: int, seq: int, text: str) -> None:
        texts = self._feed.setdefault(match_id, {})
        texts[seq] = text
        if len(texts) > FEED_KEEP:
            for old in sorted(texts)[:len(texts) - FEED_KEEP // 2]:
                del texts[old]

    async def feed_texts(self, match_id: int, first: int, last: int) -> dict[int, str]:
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
                    self._remember_feed(match_id, s, got[s])
        return out

    async def catch_up_feed(self, match_id: int, sinks: list[Sink], upto: int) -> None:
        """Send each feed socket every event after its seq up to ``upto``, in order, once.

        The messages are read once for the whole range (``feed_texts``) and each frame is built
        once, whatever the number of sockets. A socket's seq is read again after the query, so a
        delivery that ran meanwhile is not repeated.
        """
        for _ in range(3):  # a socket opened meanwhile at an older seq needs a wider range
            live = [s for s in sinks if 0 <= s.last_seq < upto]
            if not live:
                return
            first = min(s.last_seq for s in live) + 1
            texts = await self.feed_texts(match_id, first, upto)
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

    def publish(self, match_id: int, seq: int, payloads: dict[str, str], again: tuple = ()) -> None:
        """Send one change to every process's hub. Called from the request's thread after
        commit; it does not wait for the send (the POST answers sooner), yet changes leave in
        the order they were published, through one queue per event loop. ``again``: see
        :meth:`deliver`."""
        msg = {"type": "hub.message", "match": match_id, "seq": seq, "payloads": payloads}
        if again:
            msg["again"] = list(again)
        loop, outbox = self._pub
        if loop is not None and loop.is_running() and not loop.is_closed():
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # not on the loop: hand it over without waiting
                loop.call_soon_threadsafe(outbox.put_nowait, msg)
                return
        async_to_sync(self._publish_first)(msg)

    async def _publish_first(self, msg: dict) -> None:
        """Send ``msg`` now and set up this loop's outbox for the next ones."""
        await get_channel_layer().group_send(HUB_GROUP, msg)
        loop = asyncio.get_running_loop()
        if self._pub[0] is not loop:
            outbox: asyncio.Queue = asyncio.Queue()
            self._pub = (loop, outbox)
            asyncio.ensure_future(self._publisher(outbox))

    async def _publisher(self, outbox: asyncio.Queue) -> None:
        layer = get_channel_layer()
        down = False  # an outage was logged and no send has succeeded since
        while True:
            msg = await outbox.get()
            try:
                await layer.group_send(HUB_GROUP, msg)
            except Exception as exc:  # noqa: BLE001 - Redis down: the change is stored; clients catch up
                # One warning per outage, not a traceback per tap (59 in 20 s of a Redis outage)
                if not down:
                    down = True
                    log.warning("hub publish of match %s seq %s failed (%s: %s): changes are "
                                "stored but not sent to the screens until the channel layer is "
                                "back; later failures are not logged", msg["match"], msg["seq"],
                                type(exc).__name__, exc)
                continue
            if down:
                down = False
                log.warning("hub publish is back (match %s seq %s sent)", msg["match"], msg["seq"])

hub = Hub()
"""The process's hub."""


def broadcast(change: Change) -> None:
    """Render an appended event once and send it to every socket of its match, in every process.

    Subscribed to the log's commits at start-up (``LiveConfig.ready``), so it runs only for a
    stored event. A repeated idempotency key changed nothing and is not sent.
    """
    if change.repeated:
        return
    hub.publish(change.match.pk, change.seq, render.render_change(change))


def boards_changed_everywhere() -> None:
    """Something no event announces changed what a board shows (a stream graphics switch): every
    process's hub refreshes its boards now, through the same group message a change rides (match
    0 has no sockets, so only the boards are touched). The reconciler's fingerprint would find it
    within about a second anyway; this makes it as prompt as a tap."""
    hub.publish(0, 0, {})


def restate(match_id: int) -> None:
    """A desk action (a W.O.) changed what a match shows without a new event: render it again
    and send it to every socket of the match as new (same seq, ``again`` for every kind)."""
    seq, payloads = render.overlay_switched(match_id)
    hub.publish(match_id, seq, payloads, again=(*render.VIEWS, FEED))
