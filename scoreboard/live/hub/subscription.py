"""This process's one subscription to the channel layer's hub group, and its safety net: every
second the sockets' seq is compared with the database (Redis pub/sub delivers at most once)."""
from __future__ import annotations

import asyncio
import logging
import time

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from .. import render
from .board_sockets import BoardSockets
from .delivery import Delivery
from .publisher import HUB_GROUP
from .registry import PENDING, Registry
from . import outage, watchers

log = logging.getLogger(__name__)
outage.install()

RECONCILE_SECONDS = 1.0  # how often a hub compares its sockets' seq with the database
REJOIN_SECONDS = 3600  # group membership expires in the layer (a day by default); rejoin hourly


class Subscription:
    """The listener of the hub group (one channel for this process) and the reconciler."""

    def __init__(self, sockets: Registry, delivery: Delivery, boards: BoardSockets) -> None:
        self.sockets, self.delivery, self.boards = sockets, delivery, boards
        self._task: asyncio.Task | None = None
        self._reconciler: asyncio.Task | None = None
        self._worker: asyncio.Task | None = None
        self._jobs: asyncio.Queue | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def ensure(self) -> None:
        """Join the hub group with one channel for this process, once, without waiting for it:
        a socket's first state comes from the database, so a socket opened while Redis is down
        gets it at once (it used to wait 5 s for the subscription). A change made before the
        subscription is in place reaches the socket when the subscription is ready
        (``Delivery.catch_up_all``) or through the reconciler.

        The listener is created with no ``await`` between the check and it, so a thousand
        sockets connecting at once start exactly one (with Redis, each check-then-subscribe
        used to yield and let the next socket start another: 93 listeners, each change
        delivered 93 times)."""
        if self._task is None or self._task.done():
            self._loop = asyncio.get_running_loop()
            self._jobs = asyncio.Queue()
            self._task = asyncio.ensure_future(self._listen())
            self._reconciler = asyncio.ensure_future(self._reconcile())
            self._worker = asyncio.ensure_future(self._work())

    def working(self) -> bool:
        """Whether :meth:`later` would queue a job now: this process's loop runs the hub and its
        job worker."""
        loop, worker, jobs = self._loop, self._worker, self._jobs
        return not (loop is None or jobs is None or worker is None or worker.done() or loop.is_closed()
                    or not loop.is_running())

    def later(self, job) -> bool:
        """Run ``job`` (a callable taking nothing, that may use the database) soon, off the
        calling request's thread, after the jobs handed in before it, one at a time; from any
        thread. False (nothing queued) when this process's loop is not running the hub."""
        if not self.working():
            return False
        loop, jobs = self._loop, self._jobs
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            jobs.put_nowait(job)
        else:
            loop.call_soon_threadsafe(jobs.put_nowait, job)
        return True

    async def _work(self) -> None:
        """Run the jobs handed in (:meth:`later`) in order. On SQLite (one writer at a time, a
        test's database) in the requests' own thread; otherwise in a thread of their own, so a
        competition's reaction to a result does not hold up the next referee's tap."""
        from django.db import connection

        own_thread = connection.vendor != "sqlite"
        while True:
            job = await self._jobs.get()
            try:
                await database_sync_to_async(job, thread_sensitive=not own_thread)()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a job logs its own failures; keep the worker alive
                log.exception("hub job failed")

    async def _reconcile(self) -> None:
        """Safety net for a lost message (Redis pub/sub delivers at most once; a Redis restart
        or a full channel drops changes): every second, look up each local match's committed
        seq; a socket that still lacks the seq committed at the *previous* look-up (a change at
        least a second old, not one in flight) is sent the current state. So no screen stays
        stale for more than about two seconds."""
        previous: dict[int, int] = {}
        renew = time.monotonic() + watchers.RENEW
        while True:
            await asyncio.sleep(RECONCILE_SECONDS)
            outage.OUTAGE.check()
            if time.monotonic() > renew and watchers.shared():
                renew = time.monotonic() + watchers.RENEW
                try:
                    await database_sync_to_async(watchers.mark)(self.sockets.pairs())
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001 - delivery renders what a change came without
                    log.exception("hub could not renew its watched kinds")
            if self._jobs is not None and self._jobs.empty():
                # the competitions' stored due times (a rest that ends, a result's flow lost with
                # the process that took it): checked here every second, whoever stored them
                from ...core.competitions import run_due

                self._jobs.put_nowait(run_due)
            try:
                await self.boards.reconcile()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the database may be restarting: try again
                log.exception("hub board reconcile failed")
            if not self.sockets.matches():
                previous = {}
                continue
            try:
                committed = await database_sync_to_async(render.committed_seqs)(self.sockets.matches())
                for m, old in previous.items():
                    if any(sink.last_seq < old for sinks in self.sockets.of(m).values()
                           for sink in sinks if sink.last_seq != PENDING):
                        await self.delivery.resync(m, committed.get(m, old))
                previous = committed
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the database may be restarting too; try again
                log.exception("hub reconcile failed")

    async def _listen(self) -> None:
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
        if self.sockets.matches():
            asyncio.ensure_future(self.delivery.catch_up_all())
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
                if msg.get("notice"):
                    await self.delivery.notice(msg["match"], *msg["notice"])
                    continue
                if "boards" in msg:  # a competition's change, no event (``Publisher.boards``)
                    if msg["boards"] is None:
                        self.boards.changed()
                    for match_id in msg["boards"] or ():
                        self.boards.changed(match_id)
                    continue
                await self.delivery.deliver(msg["match"], msg["seq"], msg["payloads"], msg.get("again", ()),
                                            skip=msg.get("skip", ""))
            except Exception:  # noqa: BLE001
                log.exception("hub delivery failed")
