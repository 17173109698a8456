"""Issue 15, what a flood of one match costs the other matches' referees (``bench/flood.py``):
every tap of a match whose taps two workers take in turn folded the whole log again, and every
load of a match's TV drew the whole page again. Now an engine behind by a few events is brought
up to date with those rows only, and a page's live part is drawn once per seq, language and kind
and shown to every load of it, one render for loads that come together, in one worker or
across workers (the shared cache)."""
from __future__ import annotations

import copy
import json
import threading

import pytest
from django.db import connection

from scoreboard.core import log
from scoreboard.core.models import Match, Player
from scoreboard.live import render

pytestmark = [pytest.mark.django_db, pytest.mark.pg]


def tap(client, created, n: int = 1) -> dict:
    for _ in range(n):
        r = client.post(f"/api/matches/{created.match.pk}/events/", data=json.dumps({"event": {"type": "no_pot"}}),
                        content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {created.token}")
        assert r.status_code == 201
    return r.json()


def test_an_engine_another_worker_left_behind_catches_up_without_folding_the_log(created, client, monkeypatch):
    mid = created.match.pk
    tap(client, created, 3)
    this_worker = copy.deepcopy(log._engines[mid])  # its engine at seq 3
    tap(client, created, 2)  # "the other worker" stores seqs 4 and 5
    log._engines[mid] = this_worker

    def no_replay(*a, **k):
        raise AssertionError("the whole log was folded again")

    with monkeypatch.context() as m:
        m.setattr(log, "_replay", no_replay)
        answer = tap(client, created)  # seq 6 on this worker
    assert answer["seq"] == 6
    # its story (what the screens list) has the rows it caught up with, as a replay has them
    caught_up = [(r.seq, r.description["pt"]) for r in log._engines[mid][3].recent]
    log._engines.clear()
    full = log.snapshot(mid)  # the log folded from scratch
    assert answer["state"] == full.state
    assert caught_up == [(r.seq, r.description["pt"]) for r in log._engines[mid][3].recent]
    assert caught_up[-2:] == [(5, "Ana Souza não encaçapa; vez de Bia Lima"),
                              (6, "Bia Lima não encaçapa; vez de Ana Souza")]


def test_the_tv_page_is_drawn_once_per_seq_and_again_when_what_it_shows_changes(created, client, monkeypatch):
    mid = created.match.pk
    tap(client, created)
    drawn, real = [], render.page_context
    monkeypatch.setattr(render, "page_context", lambda *a, **k: (drawn.append(1), real(*a, **k))[1])
    before = 0
    pages = [client.get(f"/matches/{mid}/tv/").content.decode() for _ in range(5)]
    assert len(drawn) == before + 1  # five loads, one render
    assert all('data-seq="1"' in p and "Ana Souza não encaçapa" in p for p in pages)
    client.get(f"/matches/{mid}/tv/?lang=en")
    assert len(drawn) == before + 2  # another language, another render
    # nothing in the log changed, but the player's club did: drawn again, with it
    Player.objects.filter(name="Ana Souza").update(club="Clube Paulistano")
    assert "Clube Paulistano" in client.get(f"/matches/{mid}/tv/").content.decode()
    assert len(drawn) == before + 3
    tap(client, created)
    assert 'data-seq="2"' in client.get(f"/matches/{mid}/tv/").content.decode()


@pytest.mark.django_db(transaction=True)  # the loads are threads, with connections of their own
def test_tv_loads_that_come_together_wait_for_one_render(created, client, monkeypatch):
    mid = created.match.pk
    tap(client, created)
    started, go = threading.Event(), threading.Event()
    real, calls = render.render_payloads, []

    def slow_render(*a, **k):
        calls.append(1)
        started.set()
        go.wait(10)  # the first render is still under way when the others arrive
        return real(*a, **k)

    monkeypatch.setattr(render, "render_payloads", slow_render)
    waiting = []
    give_back = render.give_back_connection
    monkeypatch.setattr(render, "give_back_connection", lambda: (waiting.append(1), give_back()))
    match = lambda: Match.objects.select_related("player_a", "player_b", "table").get(pk=mid)  # noqa: E731
    out = []
    def load():
        try:
            out.append(render.page_live(match(), "tv", "pt-br"))
        finally:
            connection.close()  # this thread's pooled connection goes back, as a request's would

    threads = [threading.Thread(target=load) for _ in range(4)]
    threads[0].start()
    assert started.wait(10)
    for t in threads[1:]:
        t.start()
    for _ in range(1000):  # the three others wait for the first one's render (a condition, not a pause)
        if len(waiting) == 3:
            break
        go.wait(0.01)
    assert len(waiting) == 3
    go.set()
    for t in threads:
        t.join(10)
    assert len(out) == 4 and len(set(out)) == 1 and 'data-seq="1"' in out[0]
    assert len(calls) == 1


def _row(mid: int) -> Match:
    return Match.objects.select_related("player_a", "player_b", "table").get(pk=mid)


def _another_worker() -> None:
    """Forget what this process drew and folded: a worker that never loaded the match."""
    render._pages.clear()
    render.latest.clear()
    log._engines.clear()


def _load_in_a_thread(mid: int) -> tuple[list, threading.Thread]:
    """A TV load of match ``mid`` in a thread of its own (a request's), started: its text goes
    into the list once drawn; the thread's connection goes back to the pool at the end."""
    out: list = []

    def load():
        try:
            out.append(render.page_live(_row(mid), "tv", "pt-br"))
        finally:
            connection.close()

    t = threading.Thread(target=load)
    t.start()
    return out, t


def test_a_worker_that_never_drew_a_seq_shows_what_another_worker_drew(created, client, monkeypatch):
    """A TV's first load of a seq in each of two workers was two renders of the same page; the
    second worker now takes the first one's text from the shared cache."""
    mid = created.match.pk
    tap(client, created)
    drawn, real = [], render.page_context
    monkeypatch.setattr(render, "page_context", lambda *a, **k: (drawn.append(1), real(*a, **k))[1])
    first = client.get(f"/matches/{mid}/tv/").content.decode()
    live = render._pages[(mid, "tv:pt-br")][2]
    assert len(drawn) == 1 and 'data-seq="1"' in live and live in first
    _another_worker()
    again = client.get(f"/matches/{mid}/tv/").content.decode()
    assert len(drawn) == 1  # nothing drawn in "this" worker
    assert live in again
    # what it took is this worker's own copy from now on: a socket connecting gets it, no render
    assert render.connect_payload(mid, "tv:pt-br") == (1, render.page_live(_row(mid), "tv", "pt-br"))
    assert len(drawn) == 1
    # a player's new club is another page (the stamp's digest is in the key): drawn again
    _another_worker()
    Player.objects.filter(name="Bia Lima").update(club="Esporte Clube Pinheiros")
    assert "Esporte Clube Pinheiros" in client.get(f"/matches/{mid}/tv/").content.decode()
    assert len(drawn) == 2
    # and a new seq too
    tap(client, created)
    _another_worker()
    assert 'data-seq="2"' in client.get(f"/matches/{mid}/tv/").content.decode()
    assert len(drawn) == 3


@pytest.mark.django_db(transaction=True)  # the load is a thread, with a connection of its own
def test_a_load_while_another_worker_draws_the_same_seq_waits_for_its_text(created, client, monkeypatch):
    from django.core.cache import cache

    mid = created.match.pk
    tap(client, created)
    drawn, real = [], render.page_context
    monkeypatch.setattr(render, "page_context", lambda *a, **k: (drawn.append(1), real(*a, **k))[1])
    polled = threading.Event()
    give_back = render.give_back_connection
    monkeypatch.setattr(render, "give_back_connection", lambda: (polled.set(), give_back()))
    match = _row(mid)
    name = render.shared_page_key(match, "tv:pt-br", render._stamp(match))
    assert cache.add("lock:" + name, "another worker", 10)  # it is drawing seq 1 now
    out, t = _load_in_a_thread(mid)
    assert polled.wait(10)  # waiting, its connection given back
    assert out == [] and drawn == []
    cache.set(name, "<p>drawn by the other worker</p>", 60)
    t.join(10)
    assert out == ["<p>drawn by the other worker</p>"] and drawn == []


@pytest.mark.django_db(transaction=True)
def test_a_lock_left_by_a_worker_that_died_while_drawing_is_taken_over(created, client, monkeypatch):
    from django.core.cache import cache

    mid = created.match.pk
    tap(client, created)
    polled = threading.Event()
    give_back = render.give_back_connection
    monkeypatch.setattr(render, "give_back_connection", lambda: (polled.set(), give_back()))
    match = _row(mid)
    name = render.shared_page_key(match, "tv:pt-br", render._stamp(match))
    assert cache.add("lock:" + name, "a worker killed mid-render", 10)
    out, t = _load_in_a_thread(mid)
    assert polled.wait(10)
    cache.delete("lock:" + name)  # its lock lapses (PAGE_LOCK_TTL)
    t.join(10)
    assert len(out) == 1 and 'data-seq="1"' in out[0] and "Ana Souza não encaçapa" in out[0]
    assert cache.get(name) == out[0]  # kept for the other workers
    assert cache.get("lock:" + name) is None


def test_a_load_that_waits_in_vain_for_another_workers_render_is_busy_and_changes_nothing(
        created, client, settings):
    from django.core.cache import cache

    from scoreboard.core.limits import Busy

    mid = created.match.pk
    tap(client, created)
    settings.READ_WAIT = 0.2
    match = _row(mid)
    name = render.shared_page_key(match, "tv:pt-br", render._stamp(match))
    cache.add("lock:" + name, "a stuck worker", 10)
    with pytest.raises(Busy):
        render.page_live(match, "tv", "pt-br")
    assert cache.get(name) is None and (mid, "tv:pt-br") not in render._pages
    r = client.get(f"/matches/{mid}/tv/")
    assert r.status_code == 503 and r["Retry-After"]


def test_screen_pages_beyond_the_read_slots_wait_in_the_event_loop_not_in_django(settings):
    """A room of screens loading at once: each load beyond ``READ_SLOTS`` waits in the ASGI
    gate, with no request thread and no middleware run, and one that waits ``READ_WAIT`` in vain
    gets the busy page; taps and other paths pass straight through."""
    import asyncio

    from scoreboard.http import capacity

    settings.READ_SLOTS, settings.READ_WAIT = 1, 0.2
    reached, release = [], None

    async def django(scope, receive, send):
        reached.append(scope["path"])
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def call(gate, path, method="GET"):
        sent = []

        async def send(message):
            sent.append(message)

        await gate({"type": "http", "method": method, "path": path, "headers": []}, None, send)
        return sent

    gate = capacity.ScreenGate(django)

    async def scenario():
        nonlocal release
        release = asyncio.Event()
        reached.clear()
        first = asyncio.ensure_future(call(gate, "/matches/7/tv/"))
        await asyncio.sleep(0)  # the first load takes the only place
        second = await call(gate, "/tables/2/overlay/")  # waits 0.2 s, then the busy page
        assert second[0]["status"] == 503 and (b"retry-after", b"2") in second[0]["headers"]
        assert b"Server busy" in second[1]["body"]
        assert reached == ["/matches/7/tv/"]  # the second never reached Django
        tap = asyncio.ensure_future(call(gate, "/api/matches/7/events/", "POST"))
        api = asyncio.ensure_future(call(gate, "/api/matches/7/"))
        await asyncio.sleep(0.05)
        assert reached == ["/matches/7/tv/", "/api/matches/7/events/", "/api/matches/7/"]
        release.set()
        assert (await first)[0]["status"] == 200
        await asyncio.gather(tap, api)
        third = await call(gate, "/matches/7/overlay/")  # the place is free again
        assert third[0]["status"] == 200

    asyncio.run(scenario())
    asyncio.run(scenario())  # the same gate in another event loop (a test server started again)
