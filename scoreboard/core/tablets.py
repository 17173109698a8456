"""What each referee tablet last told the server about itself, for the desk: online or not,
when last seen, taps queued, whether its in-browser engine loaded, its battery where the browser
tells. The tablet reports over its own referee socket (``live.sockets``); kept in the shared
cache (Redis with several workers), never in the database: it is a live reading, not a record.
"""
from __future__ import annotations

import re
import time

from django.core.cache import cache

TTL = 6 * 3600
VERSION_KEY = "tablets:version"
TABLET_ID = re.compile(r"[A-Za-z0-9_-]{16,40}")  # a device's own id, kept in its localStorage
HOLDING = ("blocked", "offline")  # queue states whose taps are held unsent on the device


def _key(match_id: int) -> str:
    return f"tablet:{match_id}"


def clean(data) -> dict | None:
    """A status message's fields, checked: ``{"queued": int 0–9999, "tablet": the device's id
    (16–40 letters, digits, ``-``, ``_``; else ""), "engine": bool, "battery": 0–1 or None,
    "charging": bool or None, "state": short text}``; None if not a status message."""
    if not isinstance(data, dict) or data.get("type") != "status":
        return None
    q = data.get("queued")
    bat = data.get("battery")
    state = data.get("state")
    tablet = data.get("tablet")
    return {"queued": q if type(q) is int and 0 <= q < 10000 else 0,
            "tablet": tablet if isinstance(tablet, str) and TABLET_ID.fullmatch(tablet) else "",
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


def _held_key(match_id: int) -> str:
    return f"tablet-held:{match_id}"


def hold(match_id: int, status: dict) -> dict | None:
    """Record whether the tablet of ``status`` (:func:`clean`'s fields) holds taps of the match
    it has not sent: a queue stopped by a refusal or waiting for the network. Returns the
    match's marker ``{tablet id: {"queued": n, "state": "blocked"|"offline"}}`` when it changed
    (to be pushed to the match's tablets), else None. A status without a tablet id changes
    nothing. The marker outlives the tablet's socket: the taps stay held while it is away."""
    tablet = status.get("tablet")
    if not tablet:
        return None
    cur = cache.get(_held_key(match_id)) or {}
    new = {k: v for k, v in cur.items() if k != tablet}
    if status.get("queued") and status.get("state") in HOLDING:
        new[tablet] = {"queued": status["queued"], "state": status["state"]}
    if new == cur:
        return None
    cache.set(_held_key(match_id), new, TTL)
    return new


def held(match_id: int) -> dict:
    """The match's marker of taps held unsent on its tablets (:func:`hold`), ``{}`` for none."""
    return cache.get(_held_key(match_id)) or {}


def held_fragment(marker: dict) -> str:
    """The marker as the tablet page's out-of-band element ``#held-elsewhere`` (its data only:
    each tablet leaves out its own entry and words the rest in its language, referee.js)."""
    import json
    from html import escape

    return (f'<div id="held-elsewhere" class="held-elsewhere" data-held="{escape(json.dumps(marker, sort_keys=True))}"'
            ' role="status" hidden></div>')
