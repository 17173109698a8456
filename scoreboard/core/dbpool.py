"""Callbacks for the database pool (psycopg_pool, settings ``DATABASES["default"]["OPTIONS"]["pool"]``).

No Django import: the settings module refers to these while it is being built."""
from __future__ import annotations


def regrow_if_waited_for(pool) -> None:
    """psycopg_pool's ``reconnect_failed`` callback: a connection attempt that gave up after
    ``reconnect_timeout`` seconds (the server was down) starts a new one at once if requests are
    queued for a connection (``requests_waiting`` in ``pool.get_stats()``).

    Why: the pool grows only when a request *joins* the queue. During an outage longer than
    ``reconnect_timeout`` every read slot is held by a request queued in ``getconn`` and the
    others wait for a slot, so nobody joins the queue and nothing reconnects: after a
    ``kill -9`` of PostgreSQL down 3 s, every endpoint answered 503 until 5-8 s after the
    server accepted connections again (issue 15). With this the pool keeps trying (about one
    attempt a second, psycopg's back-off) while it is waited for, and feeds the queue within a
    second of the server's return. ``pool.check()`` is psycopg's public way to make it grow
    (and it drops any dead idle connection); nothing is retried when nobody waits, so a long
    maintenance window logs nothing more than before."""
    if pool.get_stats().get("requests_waiting", 0) > 0:
        pool.check()
