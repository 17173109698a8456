"""What each referee tablet last told the server about itself, for the desk: online or not,
when last seen, taps queued, whether its in-browser engine loaded, its battery where the browser
tells. The tablet reports over its own referee socket (``live.sockets``); kept in the shared
cache (Redis with several workers), never in the database: it is a live reading, not a record.
"""
from __future__ import annotations

import time

from django.core.cache import cache

TTL = 6 * 3600
VERSION_KEY = "tablets:version"


def _key(match_id: int) -> str:
    return f"tablet:{match_id}"


def clean(data) -> dict | None:
    """A status message's fields, checked: ``{"queued": int 0–9999, "engine": bool,
    "battery": 0–1 or None, "charging": bool or None, "state": short text}``; None if not a
    status message."""
    if not isinstance(data, dict) or data.get("type") != "status":
        return None
    q = data.get("queued")
    bat = data.get("battery")
    state = data.get("state")
    return {"queued": q if type(q) is int and 0 <= q < 10000 else 0,
            "engine": data.get("engine") is True,
            "battery": float(bat) if isinstance(bat, (int, float)) and not isinstance(bat, bool) and 0 <= bat <= 1 else None,
            "charging": data.get("charging") if isinstance(data.get("charging"), bool) else None,
            "state": state[:20] if isinstance(state, str) else ""}


def _table_key(table_id: int) -> str:
    return f"tablet-table:{table_id}"


def _table_of(match_id: int) -> int | None:
    from .models import Match

    return Match.objects.filter(pk=match_id).values_list("table_id", flat=True).first()


def report(match_id: int, status: dict) -> None:
    """Keep a tablet's status (online now), under its match and under the match's table: a
    table's tablet moving on to the next match stays the same tablet on the desk."""
    value = {**status, "online": True, "seen": time.time(), "match": match_id}
    cache.set(_key(match_id), value, TTL)
    table_id = _table_of(match_id)
    if table_id:
        cache.set(_table_key(table_id), value, TTL)
    _bump()


def gone(match_id: int) -> None:
    """The tablet's socket closed: offline, last seen now (the table's entry too, unless a
    socket of another match reported there since)."""
    now = time.time()
    cur = cache.get(_key(match_id)) or {}
    cache.set(_key(match_id), {**cur, "online": False, "seen": now}, TTL)
    table_id = _table_of(match_id)
    if table_id:
        tcur = cache.get(_table_key(table_id)) or {}
        if tcur.get("match") in (None, match_id):
            cache.set(_table_key(table_id), {**tcur, "online": False, "seen": now, "match": match_id}, TTL)
    _bump()


def of_table(table_id: int) -> dict | None:
    """The last status of the tablet of a table (whichever match it was on), or None."""
    return cache.get(_table_key(table_id))


def status(match_id: int) -> dict | None:
    """The tablet's last status (``online``, ``seen`` in epoch seconds, …), or None if no tablet
    ever reported for the match."""
    return cache.get(_key(match_id))


def version() -> int:
    """Moves whenever any tablet reports: the boards' fingerprint includes it."""
    return cache.get(VERSION_KEY, 0)


def _bump() -> None:
    try:
        cache.incr(VERSION_KEY)
    except ValueError:
        cache.set(VERSION_KEY, 1, None)
