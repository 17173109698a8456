"""Issue 15 in-process: one lock order (reads of a match take no lock), a per-match bound on
concurrent writers (429 ``match_busy`` at once), a database outage answered 503 ``busy`` (never a
500), and a pool that checks its connections and gives a failed reconnection's slot back soon."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading

import psycopg
import pytest
from django.db import OperationalError, connection

from scoreboard.core import limits, log
from scoreboard.http import capacity
from scoreboard.core.models import Event

pytestmark = [pytest.mark.django_db, pytest.mark.pg]


def post(client, mid, body, **headers):
    return client.post(f"/api/matches/{mid}/events/", data=json.dumps(body),
                       content_type="application/json", **headers)


def in_thread(fn, timeout: float = 10):
    """``fn()`` run in another thread: ``(finished, result)`` after at most ``timeout`` s."""
    out = {}

    def run():
        try:
            out["r"] = fn()
        finally:
            connection.close()  # give this thread's pooled connection back

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    return not t.is_alive(), out.get("r")


@pytest.mark.django_db(transaction=True)  # the reader is another thread, with its own connection
def test_a_snapshot_does_not_wait_for_a_writer_holding_the_match_lock(created, auth, client):
    """A TV page's read used to take the match lock (then a connection): behind a writer it
    waited, and with a pool a writer waited for its connection: the deadlock."""
    mid = created.match.pk
    assert post(client, mid, {"event": {"type": "pot", "balls": [1]}}, **auth).status_code == 201
    held, release = threading.Event(), threading.Event()

    def writer():
        with log.locked(mid):
            held.set()
            release.wait(20)

    w = threading.Thread(target=writer, daemon=True)
    w.start()
    assert held.wait(5)
    try:
        finished, snap = in_thread(lambda: log.snapshot(mid), timeout=5)
        assert finished, "snapshot waited for the writers' lock"
        assert snap.seq == 1 and snap.state["scores"] == [1, 0]
        log._engines.clear()  # another worker wrote: the read folds the log itself, still lock-free
        finished, snap = in_thread(lambda: log.snapshot(mid), timeout=5)
        assert finished and snap.seq == 1 and snap.state["scores"] == [1, 0]
    finally:
        release.set()
        w.join(5)


def test_a_snapshot_is_a_private_copy(created, auth, client):
    """Readers share the cached view: one that edits its state must not change the next one's."""
    mid = created.match.pk
    assert post(client, mid, {"event": {"type": "pot", "balls": [1]}}, **auth).status_code == 201
    a = log.snapshot(mid)
    a.state["scores"][0] = 99
    assert log.snapshot(mid).state["scores"] == [1, 0]


def test_a_tap_beyond_the_matchs_writer_slots_is_refused_429_at_once_and_stores_nothing(
        created, auth, client, settings):
    settings.MATCH_WRITERS = 2
    mid = created.match.pk
    assert limits.WRITERS.enter(mid) and limits.WRITERS.enter(mid)
    try:
        r = post(client, mid, {"event": {"type": "no_pot"}, "key": "k1"}, **auth)
        assert r.status_code == 429
        assert r["Retry-After"] == "1"
        err = r.json()["error"]
        assert err["code"] == "match_busy" and " / " in err["message"]  # Portuguese / English
        assert not Event.objects.filter(match_id=mid).exists()
    finally:
        limits.WRITERS.leave(mid)
        limits.WRITERS.leave(mid)
    # the same key once a slot is free: stored, once
    r = post(client, mid, {"event": {"type": "no_pot"}, "key": "k1"}, **auth)
    assert r.status_code == 201 and r.json()["seq"] == 1
    assert limits.WRITERS.count(mid) == 0


def test_the_writer_bound_is_per_match(created, auth, client, settings):
    """A full match does not refuse another match's referee."""
    settings.MATCH_WRITERS = 1
    mid = created.match.pk
    assert limits.WRITERS.enter(mid + 1000)
    try:
        assert post(client, mid, {"event": {"type": "no_pot"}}, **auth).status_code == 201
    finally:
        limits.WRITERS.leave(mid + 1000)


def test_the_tablets_tap_beyond_the_writer_slots_is_429_for_its_queue(created, referee_client, settings):
    settings.MATCH_WRITERS = 1
    mid = created.match.pk
    assert limits.WRITERS.enter(mid)
    try:
        r = referee_client.post(f"/matches/{mid}/referee/event/",
                                {"event": json.dumps({"type": "no_pot"}), "key": "t1", "expected_seq": "0"})
        assert r.status_code == 429 and r["Retry-After"] == "1"  # referee.js: same key again later
        assert not Event.objects.filter(match_id=mid).exists()
    finally:
        limits.WRITERS.leave(mid)


async def _asgi(path: str, method: str = "POST", headers=()) -> tuple[int, dict, bytes]:
    sent = []

    async def app(scope, receive, send):
        sent.append(("django", scope))

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    await capacity.WriterGate(app)({"type": "http", "method": method, "path": path, "headers": list(headers)},
                                   receive, send)
    return sent


def test_the_writer_gate_answers_a_full_match_before_django(settings):
    settings.MATCH_WRITERS = 1
    assert limits.WRITERS.enter(7)
    try:
        sent = asyncio.run(_asgi("/api/matches/7/events/"))
        assert sent[0]["status"] == 429 and (b"retry-after", b"1") in sent[0]["headers"]
        assert json.loads(sent[1]["body"])["error"]["code"] == "match_busy"
        assert asyncio.run(_asgi("/matches/7/referee/event/"))[0]["status"] == 429
        assert asyncio.run(_asgi("/api/matches/7/events/", "GET"))[0][0] == "django"  # reads pass
        assert asyncio.run(_asgi("/api/matches/8/events/"))[0][0] == "django"  # another match
    finally:
        limits.WRITERS.leave(7)
    sent = asyncio.run(_asgi("/api/matches/7/events/"))
    assert sent[0][0] == "django" and sent[0][1][capacity.WRITER_SCOPE_KEY] == 7
    assert limits.WRITERS.count(7) == 0  # given back when the response is done


@pytest.mark.django_db(transaction=True)
def test_a_flood_without_a_valid_token_never_refuses_the_referee_whose_tap_was_accepted(
        created, auth, client, settings):
    """Issue 15: the writer slots were counted before the token check, so a flood of taps with
    no token or a wrong one filled them and the match's own referee was answered 429. Now a
    sender whose tap was accepted once has a pool of its own that such a flood cannot fill."""
    settings.MATCH_WRITERS = 2
    mid = created.match.pk
    assert post(client, mid, {"event": {"type": "no_pot"}, "key": "a1"}, **auth).status_code == 201
    # the flood: every untrusted slot held (by taps without a token, or with a wrong one)
    assert limits.WRITERS.enter(mid) and limits.WRITERS.enter(mid)
    try:
        r = post(client, mid, {"event": {"type": "no_pot"}, "key": "x"}, HTTP_AUTHORIZATION="Bearer wrong")
        assert r.status_code == 429 and r.json()["error"]["code"] == "match_busy"
        assert post(client, mid, {"event": {"type": "no_pot"}, "key": "y"}).status_code == 401  # no token: no slot
        r = post(client, mid, {"event": {"type": "no_pot"}, "key": "a2"}, **auth)
        assert r.status_code == 201 and r.json()["seq"] == 2
    finally:
        limits.WRITERS.leave(mid)
        limits.WRITERS.leave(mid)
    assert [e.seq for e in Event.objects.filter(match_id=mid).order_by("seq")] == [1, 2]
    assert limits.WRITERS.count(mid) == 0
    # a refused token is never trusted: still the flood's pool
    assert post(client, mid, {"event": {"type": "no_pot"}}, HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert not limits.WRITERS.trusted(mid, capacity.credential_key("Bearer wrong", None))


def test_the_writer_gate_puts_a_known_sender_in_its_own_pool(settings):
    settings.MATCH_WRITERS = 1
    good = [(b"authorization", b"Bearer good")]
    limits.WRITERS.trust(9, capacity.credential_key("Bearer good", None))
    assert limits.WRITERS.enter(9)  # the flood's only slot
    try:
        sent = asyncio.run(_asgi("/api/matches/9/events/", headers=good))
        assert sent[0][0] == "django" and sent[0][1][capacity.WRITER_TRUSTED_KEY] is True
        assert asyncio.run(_asgi("/api/matches/9/events/", headers=[(b"authorization", b"Bearer bad")]))[0][
            "status"] == 429
        assert asyncio.run(_asgi("/matches/9/referee/event/", headers=[(b"cookie", b"sessionid=zzz")]))[0][
            "status"] == 429
    finally:
        limits.WRITERS.leave(9)
    assert limits.WRITERS.count(9) == 0


def outage(*args, **kwargs):
    err = OperationalError("server closed the connection unexpectedly")
    err.__cause__ = psycopg.OperationalError("server closed the connection unexpectedly")
    raise err


def test_a_database_outage_answers_the_api_503_busy_never_500(created, client, monkeypatch):
    monkeypatch.setattr(log, "snapshot", outage)
    r = client.get(f"/api/matches/{created.match.pk}/")
    assert r.status_code == 503 and r["Retry-After"]
    assert r.json()["error"]["code"] == "busy"


def test_a_database_outage_answers_a_page_the_busy_page(created, client, monkeypatch):
    monkeypatch.setattr(log, "snapshot_of", outage)
    r = client.get(f"/matches/{created.match.pk}/tv/")
    assert r.status_code == 503 and r["Retry-After"]
    assert "Servidor ocupado / Server busy" in r.content.decode()


def test_a_write_that_met_a_dead_connection_answers_503_and_its_key_stores_it_later(
        created, auth, client, monkeypatch):
    mid = created.match.pk
    with monkeypatch.context() as m:
        m.setattr(log, "_entry_at", outage)
        r = post(client, mid, {"event": {"type": "no_pot"}, "key": "again"}, **auth)
        assert r.status_code == 503 and r.json()["error"]["code"] == "busy"
    assert not Event.objects.filter(match_id=mid).exists()
    assert post(client, mid, {"event": {"type": "no_pot"}, "key": "again"}, **auth).status_code == 201


def sqlite_error(text: str) -> OperationalError:
    import sqlite3
    err = OperationalError(text)
    err.__cause__ = sqlite3.OperationalError(text)  # as Django's error wrapper raises it
    return err


def test_a_sqlite_schema_error_is_still_a_bug_not_busy():
    assert not capacity.is_busy(sqlite_error("no such table: scoreboard_match"))
    assert capacity.is_busy(sqlite_error("database is locked"))
    assert capacity.is_busy(OperationalError("connection already closed"))  # Django's own


def test_the_postgresql_pool_checks_connections_and_gives_a_failed_slot_back_soon():
    """The pool options for PostgreSQL: every checkout checked (psycopg's check_connection, via
    CONN_HEALTH_CHECKS), a failed reconnection's slot back after 2 s instead of psycopg's 5
    minutes of backoff (the "lost slots": a burst met "too many clients" and the pool stayed
    short until restarted), and connecting bounded by a time-out."""
    code = ("import json; from django.conf import settings; import django; django.setup(); "
            "d = settings.DATABASES['default']; "
            "print(json.dumps({'checks': d['CONN_HEALTH_CHECKS'], 'pool': d['OPTIONS']['pool'], "
            "'connect_timeout': d['OPTIONS']['connect_timeout'], 'reads': settings.READ_SLOTS}, "
            "default=lambda f: f.__module__ + '.' + f.__qualname__))")
    env = dict(os.environ, DATABASE_URL="postgres://postgres@127.0.0.1:5432/unused",
               DJANGO_SETTINGS_MODULE="scoreboard.settings")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=60).stdout
    got = json.loads(out.strip().splitlines()[-1])
    assert got["checks"] is True
    assert got["pool"]["reconnect_timeout"] == 2.0 and got["pool"]["max_size"] == 20
    # ... and tries again at once while requests are queued for a connection (issue 15)
    assert got["pool"]["reconnect_failed"] == "scoreboard.core.dbpool.regrow_if_waited_for"
    assert got["connect_timeout"] == 3
    # three anonymous reads at once per worker, not half the pool: more only starve the event loop
    # and the referees' taps of the interpreter (bench/flood.py: another referee's p99 4-9 s -> 1.2 s)
    assert got["reads"] == 3
