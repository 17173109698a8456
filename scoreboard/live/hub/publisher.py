"""The publisher: one message per change to the channel-layer group ``sinuca.hub``, whose
members are one channel per *process* (each process's subscription), not one per socket."""
from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

HUB_GROUP = "sinuca.hub"


class Publisher:
    """Sends changes to every process's hub, in the order they were published."""

    def __init__(self) -> None:
        self._pub: tuple[asyncio.AbstractEventLoop | None, asyncio.Queue | None] = (None, None)

    def publish(self, match_id: int, seq: int, payloads: dict[str, str], again: tuple = (),
                skip: str = "") -> None:
        """Send one change to every process's hub. Called from the request's thread after
        commit; it does not wait for the send (the POST answers sooner), yet changes leave in
        the order they were published, through one queue per event loop. ``again``: see
        ``Delivery.deliver``; ``skip``: the socket id of the tablet that made the change (it has
        the POST's answer), in whichever process it is."""
        msg = {"type": "hub.message", "match": match_id, "seq": seq, "payloads": payloads}
        if again:
            msg["again"] = list(again)
        if skip:
            msg["skip"] = skip
        self._send(msg)

    def boards(self, match_ids) -> None:
        """Tell every process's hub that the boards showing these matches changed without an
        event (a call, a move, a W.O.; ``None``: anything, every board), in order with the
        changes published before it: each hub refreshes its boards once for the burst."""
        self._send({"type": "hub.message", "match": 0, "seq": 0, "payloads": {},
                    "boards": None if match_ids is None else sorted(match_ids)})

    def _send(self, msg: dict) -> None:
        loop, outbox = self._pub
        if loop is not None and loop.is_running() and not loop.is_closed():
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # not on the loop: hand it over without waiting
                loop.call_soon_threadsafe(outbox.put_nowait, msg)
                return
        async_to_sync(self._publish_first)(msg)

    async def notice(self, match_id: int, prefix: str, text: str) -> None:
        """Send ``text`` to every socket of the match whose kind starts with ``prefix``, in
        every process, outside the seq order: a notice no event carries (a tablet holding
        taps unsent), whose element the page swaps in whatever seq it shows."""
        await get_channel_layer().group_send(HUB_GROUP, {"type": "hub.message", "match": match_id, "seq": -1,
                                                         "payloads": {}, "notice": [prefix, text]})

    async def _publish_first(self, msg: dict) -> None:
        """Send ``msg`` now and set up this loop's outbox for the next ones."""
        await get_channel_layer().group_send(HUB_GROUP, msg)
        loop = asyncio.get_running_loop()
        if self._pub[0] is not loop:
            outbox: asyncio.Queue = asyncio.Queue()
            self._pub = (loop, outbox)
            asyncio.ensure_future(self.drain(outbox))

    async def drain(self, outbox: asyncio.Queue) -> None:
        """Send what is put in ``outbox``, for ever; a channel-layer outage is logged once when
        it starts and once when it ends."""
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
