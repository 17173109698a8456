"""Issue 20, item 2: a change is rendered only for the page kinds someone watches.

Before, every tap rendered all six (three views × two languages) whoever listened; now the
kinds with a socket in this process, or marked by another process (``hub/watchers.py``), and
whatever a change came without is rendered where its sockets are."""
from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from scoreboard.core import log
from scoreboard.live import render
from scoreboard.live.hub import hub, watchers

from ws_helpers import connect, match_id, undrawn  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]


def published(monkeypatch) -> list:
    """What the hub publishes from now on, also delivered as before."""
    sent = []
    real = hub.publisher.publish

    def spy(m, seq, payloads, **kw):
        sent.append((m, seq, dict(payloads)))
        real(m, seq, payloads, **kw)

    monkeypatch.setattr(hub.publisher, "publish", spy)
    return sent


@sync_to_async
def rendered_now(match_id: int, key: str) -> tuple[int, str]:
    """``(seq, text)`` of one kind of the match's current state, rendered afresh."""
    snap = log.snapshot(match_id)
    return snap.seq, undrawn(render.render_payloads(snap.match, snap.seq, snap.state, snap.options, keys=[key])[key])


async def test_a_tap_renders_only_the_watched_kind_and_its_socket_gets_it(match_id, monkeypatch):
    sent = published(monkeypatch)
    tv, ok, _ = await connect(f"/ws/matches/{match_id}/?view=tv&lang=en")
    assert ok
    await tv.receive_from(timeout=5)
    views = render.RENDERS["views"]
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    got = await tv.receive_from(timeout=5)
    assert 'data-seq="1"' in got
    assert render.RENDERS["views"] - views == 1  # was 6: referee, tv and overlay in pt-br and en
    (_, seq, payloads), = sent
    assert seq == 1 and sorted(payloads) == ["feed", "tv:en"]
    assert (1, undrawn(got)) == await rendered_now(match_id, "tv:en")
    await tv.disconnect()


async def test_a_tap_nobody_watches_renders_no_page_and_a_page_kind_opened_later_is_current(match_id, monkeypatch):
    sent = published(monkeypatch)
    views = render.RENDERS["views"]
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    assert render.RENDERS["views"] == views
    assert sorted(sent[0][2]) == ["feed"]
    # a spectator arriving now is given the state with the pot, rendered for it
    ov, ok, _ = await connect(f"/ws/matches/{match_id}/?view=overlay&lang=pt-br")
    assert ok
    first = await ov.receive_from(timeout=5)
    assert (1, undrawn(first)) == await rendered_now(match_id, "overlay:pt-br")
    await ov.disconnect()


async def test_a_change_that_came_without_a_watched_kind_is_rendered_where_its_socket_is(match_id, monkeypatch):
    """Another process published without this one's kind (its mark lapsed, the cache was out):
    the hub renders it at delivery, and the socket is current at once, not after a resync."""
    tv, ok, _ = await connect(f"/ws/matches/{match_id}/?view=tv&lang=pt-br")
    assert ok
    await tv.receive_from(timeout=5)
    sent = []
    monkeypatch.setattr(hub.publisher, "publish", lambda m, seq, payloads, **kw: sent.append((m, seq, payloads)))
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    m, seq, payloads = sent[0]
    render.latest.clear()  # as in a process that did not render it
    before = hub.stats.get("rendered_at_delivery", 0)
    await hub.delivery.deliver(m, seq, {"feed": payloads["feed"]})
    got = await tv.receive_from(timeout=5)
    assert hub.stats.get("rendered_at_delivery", 0) - before == 1
    assert undrawn(got) == undrawn(payloads["tv:pt-br"])  # the same bytes the publisher would have sent
    assert await tv.receive_nothing(timeout=0.3)
    await tv.disconnect()


async def test_a_socket_marks_its_kind_for_the_other_processes(match_id, monkeypatch):
    """With several processes (Redis), the first socket of a kind marks it in the shared cache
    before reading its first state; a publisher elsewhere reads the marks after its commit."""
    from django.core.cache import cache

    monkeypatch.setattr(watchers, "shared", lambda: True)
    cache.delete(f"live.watch.{match_id}.overlay:en")
    assert hub.watched(match_id) == []
    ov, ok, _ = await connect(f"/ws/matches/{match_id}/?view=overlay&lang=en")
    assert ok
    await ov.receive_from(timeout=5)
    assert cache.get(f"live.watch.{match_id}.overlay:en") == 1
    hub.sockets.remove(next(iter(hub.sockets.of(match_id)["overlay:en"])))  # as if in another process
    assert hub.watched(match_id) == ["overlay:en"]  # seen through the cache alone
    sent = published(monkeypatch)
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    assert sorted(sent[0][2]) == ["feed", "overlay:en"]
    # the cache cannot answer: every kind is rendered rather than one missed
    monkeypatch.setattr(watchers, "remote", lambda m, keys: None)
    assert hub.watched(match_id) is None
    await ov.disconnect()


def test_the_tablets_answer_is_rendered_for_it_when_no_socket_watches_its_kind(referee_client, created, monkeypatch):
    """A tablet whose socket is not connected still gets its fragment as the POST's answer."""
    mid = created.match.pk
    sent = published(monkeypatch)
    r = referee_client.post(f"/matches/{mid}/referee/event/",
                            {"event": '{"type":"pot","balls":[1]}', "expected_seq": "0", "key": "t1"})
    assert r.status_code == 200, r.content
    assert sorted(sent[0][2]) == ["feed"]
    snap = log.snapshot(mid)
    page = render.render_payloads(snap.match, snap.seq, snap.state, snap.options, keys=["referee:pt-br"])
    assert undrawn(r.content.decode()).startswith(undrawn(page["referee:pt-br"]))
