"""``live/hub/publisher.py``: during a channel-layer (Redis) outage: one warning when it starts,
one when it ends, not a traceback per tap."""
from __future__ import annotations

import asyncio
import logging

from scoreboard.live.hub import publisher as hub_module


class FlakyLayer:
    """A channel layer whose ``group_send`` fails while ``down`` and records what it sent."""

    def __init__(self) -> None:
        self.down, self.sent, self.tried = False, [], 0

    async def group_send(self, group: str, msg: dict) -> None:
        self.tried += 1
        if self.down:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        self.sent.append(msg["seq"])


async def test_an_outage_of_the_channel_layer_logs_one_warning_and_one_back(monkeypatch, caplog):
    layer = FlakyLayer()
    monkeypatch.setattr(hub_module, "get_channel_layer", lambda: layer)
    outbox: asyncio.Queue = asyncio.Queue()
    task = asyncio.ensure_future(hub_module.Publisher().drain(outbox))
    caplog.set_level(logging.WARNING, logger=hub_module.__name__)

    put = 0

    async def send(seqs, down: bool) -> None:
        nonlocal put
        layer.down = down
        for seq in seqs:
            outbox.put_nowait({"type": "hub.message", "match": 3, "seq": seq, "payloads": {}})
            put += 1
        while layer.tried < put:  # every one sent, or failed
            await asyncio.sleep(0.01)

    try:
        await send([1, 2], False)
        await send(range(3, 63), True)  # 60 taps while Redis is down
        await send([63, 64], False)
        await send([65], True)  # a second outage is reported again
        await send([66], False)
    finally:
        task.cancel()
    lines = [r.getMessage() for r in caplog.records if r.name == hub_module.__name__]
    assert layer.sent == [1, 2, 63, 64, 66]
    assert len(lines) == 4, lines
    assert lines[0].startswith("hub publish of match 3 seq 3 failed (ConnectionError: Error 111")
    assert lines[1] == "hub publish is back (match 3 seq 63 sent)"
    assert lines[2].startswith("hub publish of match 3 seq 65 failed")
    assert lines[3] == "hub publish is back (match 3 seq 66 sent)"
    assert not any(r.exc_info for r in caplog.records)  # no traceback per tap
