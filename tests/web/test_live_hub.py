"""``live/hub/``: one message per change per process, the same bytes to every socket of a kind."""
from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from scoreboard.core import log

from ws_helpers import connect, match_id  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]


async def test_every_socket_of_a_kind_gets_the_same_bytes(match_id):
    socks = [(await connect(f"/ws/matches/{match_id}/?view=tv"))[0] for _ in range(3)]
    for s in socks:
        await s.receive_from(timeout=5)
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    got = {await s.receive_from(timeout=5) for s in socks}
    assert len(got) == 1
    for s in socks:
        await s.disconnect()


async def test_sockets_connecting_at_once_share_one_hub_subscription(match_id, monkeypatch):
    """Each change reaches this process once, however many sockets connect together (with Redis,
    a subscription per racing connect once delivered every change dozens of times)."""
    from channels.layers import get_channel_layer

    from scoreboard.live.hub import hub

    layer = get_channel_layer()
    channels = []  # the channels this process's hub joins the group with: one subscription each
    real = layer.new_channel

    joined = asyncio.Event()
    real_add = layer.group_add

    async def new_channel(prefix="specific."):
        channels.append(await real(prefix))
        return channels[-1]

    async def group_add(group, channel):
        await real_add(group, channel)
        joined.set()
    monkeypatch.setattr(layer, "new_channel", new_channel)
    monkeypatch.setattr(layer, "group_add", group_add)
    socks = await asyncio.gather(*(connect(f"/ws/matches/{match_id}/feed/") for _ in range(30)))
    for comm, ok, _ in socks:
        assert ok
        await comm.receive_from(timeout=5)
    # Redis pub/sub drops what is published before the subscription is in place (the reconciler
    # then sends the state, uncounted); on a busy machine the join can finish after 30 connects.
    await asyncio.wait_for(joined.wait(), timeout=10)
    before = hub.stats["messages"]
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    for comm, _, _ in socks:
        assert json.loads(await comm.receive_from(timeout=5))["seq"] == 1
    # one channel in the group: the layer has nowhere to deliver the change a second time
    assert len(channels) == 1 and "hub." in channels[0], channels
    assert hub.stats["messages"] - before == 1
    for comm, _, _ in socks:
        await comm.disconnect()


async def test_a_feed_socket_offered_a_later_seq_first_gets_the_missing_events_from_the_log_once(
        match_id, monkeypatch):
    """Changes published by two workers can arrive out of order: a feed socket at seq 0 offered
    seq 2 is sent 1 (from the log, one query for all sockets) then 2, and the late 1 is not sent
    again."""
    from scoreboard.live.hub import hub

    socks = [(await connect(f"/ws/matches/{match_id}/feed/"))[0] for _ in range(3)]
    for s in socks:
        assert json.loads(await s.receive_from(timeout=5))["seq"] == 0
    sent = []
    monkeypatch.setattr(hub.publisher, "publish", lambda m, seq, payloads, **kw: sent.append((m, seq, payloads)))
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [7]})
    assert [seq for _, seq, _ in sent] == [1, 2]
    hub.gaps._feed.clear()  # as in a worker that never saw seq 1
    fills = hub.stats["gap_fills"]
    await hub.delivery.deliver(*sent[1])
    await hub.delivery.deliver(*sent[0])
    for s in socks:
        got = [json.loads(await s.receive_from(timeout=5)) for _ in range(2)]
        assert [(m["seq"], m["event"], m["state"]["scores"]) for m in got] == \
            [(1, {"type": "pot", "balls": [1]}, [1, 0]), (2, {"type": "pot", "balls": [7]}, [8, 0])]
        assert got[0]["description"] == json.loads(sent[0][2]["feed"])["description"]
        assert await s.receive_nothing(timeout=0.2)
    assert hub.stats["gap_fills"] - fills == 1
    for s in socks:
        await s.disconnect()


async def test_sockets_connecting_together_share_the_database_read_of_their_first_state(match_id, monkeypatch):
    """A burst of spectators queued one read each on the one database thread (2,000 at once:
    p50 4.6 s to the first state); sockets connecting together now share one."""
    from scoreboard.live import render

    reads = []
    real = render.connect_payload
    monkeypatch.setattr(render, "connect_payload", lambda m, k: reads.append(k) or real(m, k))
    socks = await asyncio.gather(*(connect(f"/ws/matches/{match_id}/feed/") for _ in range(30)))
    for comm, ok, _ in socks:
        assert ok and json.loads(await comm.receive_from(timeout=5)) == json.loads(
            render.feed_message(0, (await sync_to_async(log.snapshot)(match_id)).state))
    assert len(reads) == 1, len(reads)
    for comm, _, _ in socks:
        await comm.disconnect()
