"""Websocket consumers: state on connect, one message per change, read-only, Origin checked."""
from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from scoreboard.core import log
from scoreboard.asgi import application
from scoreboard.core.matches import create_match

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = [(b"origin", b"http://127.0.0.1")]


async def connect(path, headers=ORIGIN):
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await comm.connect(timeout=5)
    return comm, connected, code


@pytest.fixture
def match_id(db):
    return create_match("Ana Souza", "Bia Lima", first_breaker=0).match.pk


async def test_feed_sends_seq_and_state_on_connect_then_every_change(match_id):
    comm, ok, _ = await connect(f"/ws/matches/{match_id}/feed/")
    assert ok
    first = json.loads(await comm.receive_from(timeout=5))
    assert set(first) == {"seq", "state"} and first["seq"] == 0
    assert first["state"]["ball_on"] == [1]
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    msg = json.loads(await comm.receive_from(timeout=5))
    assert set(msg) == {"seq", "state", "event", "description"}
    assert msg["seq"] == 1 and msg["state"]["scores"] == [1, 0] and msg["event"] == {"type": "pot", "balls": [1]}
    await sync_to_async(log.append_event)(match_id, {"type": "undo"})
    msg = json.loads(await comm.receive_from(timeout=5))
    assert msg["seq"] == 2 and msg["state"]["scores"] == [0, 0]
    await comm.disconnect()


async def test_html_stream_sends_fragments_with_seq_for_its_view_and_language(match_id):
    tv, ok, _ = await connect(f"/ws/matches/{match_id}/?view=tv&lang=en")
    ov, ok2, _ = await connect(f"/ws/matches/{match_id}/?view=overlay")
    assert ok and ok2
    html = await tv.receive_from(timeout=5)
    assert 'id="live-seq"' in html and 'data-seq="0"' in html and "Ball on" in html and "Ana Souza" in html
    assert 'id="ov-live"' in await ov.receive_from(timeout=5)
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    html = await tv.receive_from(timeout=5)
    assert 'data-seq="1"' in html and 'id="tv-live"' in html
    html = await ov.receive_from(timeout=5)
    assert 'data-seq="1"' in html and 'class="ov-break">1<' in html
    await tv.disconnect()
    await ov.disconnect()


async def test_every_socket_of_a_kind_gets_the_same_bytes(match_id):
    socks = [(await connect(f"/ws/matches/{match_id}/?view=tv"))[0] for _ in range(3)]
    for s in socks:
        await s.receive_from(timeout=5)
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    got = {await s.receive_from(timeout=5) for s in socks}
    assert len(got) == 1
    for s in socks:
        await s.disconnect()


async def test_a_message_from_a_spectator_closes_the_socket_and_changes_nothing(match_id):
    comm, ok, _ = await connect(f"/ws/matches/{match_id}/feed/")
    await comm.receive_from(timeout=5)
    await comm.send_to(text_data=json.dumps({"event": {"type": "pot", "balls": [1]}}))
    out = await comm.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 4400
    snap = await sync_to_async(log.snapshot)(match_id)
    assert snap.seq == 0


async def test_a_foreign_origin_is_refused(match_id):
    comm, ok, _ = await connect(f"/ws/matches/{match_id}/feed/", headers=[(b"origin", b"http://evil.example")])
    assert not ok


async def test_an_unknown_match_closes_the_socket(db):
    comm, ok, _ = await connect("/ws/matches/9999/feed/")
    if ok:  # accepted, then closed once the match is not found
        out = await comm.receive_output(timeout=5)
        assert out["type"] == "websocket.close" and out["code"] == 4404


async def test_the_referee_stream_needs_the_referee_session(match_id):
    comm, ok, code = await connect(f"/ws/matches/{match_id}/?view=referee")
    assert not ok and code == 4403


async def test_sockets_connecting_at_once_share_one_hub_subscription(match_id):
    """Each change reaches this process once, however many sockets connect together (with Redis,
    a subscription per racing connect once delivered every change dozens of times)."""
    from scoreboard.live.hub import hub

    socks = await asyncio.gather(*(connect(f"/ws/matches/{match_id}/feed/") for _ in range(30)))
    for comm, ok, _ in socks:
        assert ok
        await comm.receive_from(timeout=5)
    before = hub.stats["messages"]
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    for comm, _, _ in socks:
        assert json.loads(await comm.receive_from(timeout=5))["seq"] == 1
    await asyncio.sleep(0.3)
    assert hub.stats["messages"] - before == 1
    for comm, _, _ in socks:
        await comm.disconnect()


async def test_the_retorno_banner_follows_the_engine_not_the_last_event(match_id):
    """FALTA E RETORNO shows during the replay (Art. 25.3) and again after a pot is undone back to
    that very position; it is gone once the replayed stroke is played."""
    tv, ok, _ = await connect(f"/ws/matches/{match_id}/?view=tv")
    assert ok
    await tv.receive_from(timeout=5)
    for ev in ({"type": "foul", "ball": 1, "retorno": True}, {"type": "decision", "choice": "retorno"}):
        await sync_to_async(log.append_event)(match_id, ev)
        await tv.receive_from(timeout=5)
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    assert "FALTA E RETORNO" not in await tv.receive_from(timeout=5)
    await sync_to_async(log.append_event)(match_id, {"type": "undo"})
    assert "FALTA E RETORNO" in await tv.receive_from(timeout=5)
    await tv.disconnect()
