"""The live path: one message per change per process, the same bytes to every socket.

The usual Channels design (a consumer per socket, each in the channel-layer group) makes the
layer do work per socket for every change: a queue per consumer, a task woken per consumer, a
send per consumer through Channels and Daphne. The measured baseline of that design is a p99 of
100-120 ms at only 200 sockets (docs/architecture.md). Here instead a change is rendered once
(``render.render_change``) and published once to the layer group ``sinuca.hub``, whose members
are one channel per *process*; each process's hub receives it once and writes it to its local
sockets of that match and kind. One job per module:

- ``wire`` — the websocket frame built once, written straight to a Daphne socket;
- ``registry`` — this process's sockets by match and kind, and their shared first reads;
- ``delivery`` — a change to every socket of its match; first states; resyncs;
- ``gaps`` — a JSON feed socket gets every event once, in order (filled from the log);
- ``board_sockets`` — the venue's boards, rendered once per burst and sent whole;
- ``subscription`` — this process's one channel in the group, and the once-a-second
  reconciliation with the database;
- ``publisher`` — a committed change to every process's hub, in order, from any thread;
- ``watchers`` — which page kinds of a match any process's sockets listen to: only those are
  rendered.
"""
from __future__ import annotations

from channels.db import database_sync_to_async

from ...core import afterwards, log, memory
from ...core.log import Change
from .. import render
from .board_sockets import BoardSockets
from .delivery import Delivery
from .gaps import FeedGaps
from .publisher import HUB_GROUP, Publisher
from .registry import FEED, PENDING, Registry, Sink
from .subscription import Subscription
from . import watchers

__all__ = ["FEED", "HUB_GROUP", "PENDING", "Hub", "Sink", "boards_changed", "boards_changed_everywhere", "broadcast", "hub", "overlay_switched", "restate"]


class Hub:
    """This process's live path, its parts wired together once. A socket endpoint registers
    with :meth:`add` (or :meth:`open_board`), which also starts the subscription."""

    def __init__(self) -> None:
        self.stats = {"messages": 0, "frames_built": 0, "sends": 0, "last_fanout_ms": 0.0,
                      "gap_fills": 0}
        self.sockets = Registry()
        self.gaps = FeedGaps(self.stats)
        self.boards = BoardSockets(self.stats)
        self.delivery = Delivery(self.sockets, self.gaps, self.boards, self.stats)
        self.subscription = Subscription(self.sockets, self.delivery, self.boards)
        self.publisher = Publisher()

    async def add(self, sink: Sink) -> None:
        """Register a match socket (PENDING until ``delivery.opened``); subscribe if needed. The
        first socket of its kind in this process marks the kind watched for every publisher
        (``watchers``) before the socket reads its first state."""
        self.subscription.ensure()
        if self.sockets.add(sink) and watchers.shared():
            await database_sync_to_async(watchers.mark)([(sink.match_id, sink.key)])

    def watched(self, match_id: int) -> list[str] | None:
        """The page kinds of ``match_id`` some socket listens to, here or in another process
        (``None``: unknown, render every kind). Called from a request's thread after its commit."""
        everything = render.all_keys()
        local = {k for k in tuple(self.sockets.of(match_id)) if k != FEED}
        if local.issuperset(everything):
            return everything
        others = watchers.remote(match_id, [k for k in everything if k not in local])
        return None if others is None else sorted(local | others)

    def later(self, job) -> bool:
        """Run ``job`` soon in this process, off the caller's thread (``Subscription.later``);
        False when the hub's loop is not running here."""
        return self.subscription.later(job)

    def after_answer(self, job) -> bool:
        """:meth:`later`, but inside a tap's request only once its answer is sent
        (``core.afterwards``: the work would share the interpreter with the answer's last
        steps); False, nothing held or queued, when the hub's loop is not running here (the
        caller runs ``job`` itself)."""
        if not self.subscription.working():
            return False
        return afterwards.hold(lambda: self.later(job)) or self.later(job)

    async def open_board(self, sink: Sink, have: str = "") -> None:
        """Register a board socket and send it the board now (unless ``have`` is its digest: the
        page holds it already); subscribe if needed."""
        self.subscription.ensure()
        await self.boards.open(sink, have)


hub = Hub()
"""The process's hub."""


def _forget_a_dead_loop() -> None:
    """The hub lives with the event loop it started on (one per process in production): when
    that loop is gone (a test's own loop, closed), a fresh hub starts on the next loop."""
    loop = hub.subscription._loop
    if loop is None or loop.is_closed():
        hub.__init__()


memory.remembered(_forget_a_dead_loop)


def broadcast(change: Change) -> None:
    """Render an appended event once and send it to every socket of its match, in every process.

    Subscribed to the log's commits at start-up (``LiveConfig.ready``), so it runs only for a
    stored event. A repeated idempotency key changed nothing and is not sent.
    """
    if change.repeated:
        return
    # the tablet that sent the tap draws the POST's answer: its socket is not sent it again
    payloads = render.render_change(change, keys=hub.watched(change.match.pk))
    hub.publisher.publish(change.match.pk, change.seq, payloads, skip=change.origin)


def boards_changed_everywhere() -> None:
    """Something no event announces changed what a board shows (a stream graphics switch): every
    process's hub refreshes its boards now, through the group a change rides. The reconciler's
    fingerprint would find it within about a second anyway; this makes it as prompt as a tap."""
    hub.publisher.boards(None)


def boards_changed(match_ids: frozenset | None) -> None:
    """A competition's change committed (``core.changes``: a call, a move, a W.O., a match made
    or dropped, a table changed): every process's hub refreshes the boards that show those
    matches (``None``: every board) now, as a tap's change does: the venue, the jumbotron, the
    desk, the event hub, the players' pages and the table's tablet (its ``table-<id>`` board)."""
    hub.publisher.boards(match_ids)


def restate(match_id: int) -> None:
    """A desk action (a W.O.) changed what a match shows without a new event: render it again
    and send it to every socket of the match as new (same seq, ``again`` for every kind)."""
    seq, payloads = render.overlay_switched(match_id)
    hub.publisher.publish(match_id, seq, payloads, again=(*render.VIEWS, FEED))


def overlay_switched(match_id: int) -> None:
    """A switch of the match's overlays committed (``core.overlay.switch``): render the match
    again and send it to its overlay sockets as new (same seq, ``again=("overlay",)``), under
    the match's lock so that it is ordered with the match's appends. ``log.locked`` hands this
    thread's connection back before it waits (it runs after commit, outside any transaction)."""
    with log.locked(match_id):
        seq, payloads = render.overlay_switched(match_id)
        hub.publisher.publish(match_id, seq, payloads, again=("overlay",))
