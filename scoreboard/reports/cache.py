"""Rendered reports kept in the shared cache, one per (kind, match, seq, language).

A report of a given seq never changes (the log is append-only), so a PDF, CSV or export is built
once per change and then served from the cache (Redis with ``REDIS_URL``, so every worker shares
it). The key carries the match's creation time too: a test database or a restored one may reuse
match ids, and must never be served another match's report.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
import zlib
from typing import Callable

from django.conf import settings
from django.core.cache import cache

from ..core.limits import Busy, give_back_connection
from ..core.models import Match

logger = logging.getLogger(__name__)

TTL = 24 * 3600  # a finished match's sheet is asked for again the next day at most


def key(kind: str, match: Match, seq: int, lang: str = "") -> str:
    """The cache key of one report of ``match`` at ``seq`` in ``lang``."""
    born = int(match.created_at.timestamp() * 1_000_000) if match.created_at else 0
    # a W.O. changes a match's result without a new seq: its reports are other reports
    wo = "wo" if getattr(match, "walkover", None) else ""
    # what a sheet prints that no event changes: the names (an admin rename restates the match
    # at the same seq), the venue (settings.VENUE), the desk's correction of the result and the
    # federation's overruling of it (its latest record's pk, read with the match by the súmula's
    # views: ``pages.sheets``)
    said = zlib.crc32(repr(((getattr(match, "config", None) or {}).get("players"), settings.VENUE,
                            getattr(match, "correction", None), getattr(match, "last_overruling", None))).encode())
    return f"report:{kind}:{match.pk}:{born}{wo}:{said:x}:{seq}:{lang}"


def get(kind: str, match: Match, seq: int, lang: str = ""):
    """The cached report, or None."""
    return cache.get(key(kind, match, seq, lang))


def put(kind: str, match: Match, seq: int, lang: str, value) -> None:
    """Keep a report built at ``seq``."""
    cache.set(key(kind, match, seq, lang), value, TTL)


def cached(kind: str, match: Match, lang: str, build: Callable[[], tuple[int, object]],
           wait: float = 30.0):
    """The report at the match's current seq (``match.seq`` as read by the caller) or a later
    one, built by ``build() -> (seq it was built at, value)`` on a miss, here, and kept under that
    seq. One build at a time for the deployment (:func:`single_flight`): eight clients asking for
    a long match's CSV at a new seq built it eight times at once, each holding the GIL for half a
    second against the referee's taps; now the others wait for the first."""

    def start(left: float, done: Callable) -> None:
        done(build())  # raises: nothing kept, the lock released, the error goes to this caller

    return single_flight(kind, match, match.seq, lang, start, wait)[1]


def _newest_key(kind: str, match: Match, lang: str) -> str:
    return key(kind, match, -1, lang).replace("report:", "report-newest:", 1)


def _lock_key(kind: str, match: Match, lang: str) -> str:
    return key(kind, match, -1, lang).replace("report:", "report-lock:", 1)


def newest(kind: str, match: Match, seq: int, lang: str):
    """``(seq', report)`` with ``seq' >= seq`` if one is kept, else None: the report at ``seq``,
    or one built later (built from the log as it was when that build began, so no older than
    what the caller asked for)."""
    value = get(kind, match, seq, lang)
    if value is not None:
        return seq, value
    latest = cache.get(_newest_key(kind, match, lang))
    if latest is not None and latest > seq:
        value = get(kind, match, latest, lang)
        if value is not None:
            return latest, value
    return None


_HOST = socket.gethostname()


def _owner_token() -> str:
    """A lock's value: this process (host and pid), and a nonce."""
    return f"{_HOST}:{os.getpid()}:{uuid.uuid4().hex}"


def _held_by_the_dead(value) -> bool:
    """Whether a lock's value names a process of this host that is gone (a worker killed in the
    middle of a build, even by ``kill -9``): its lock is free at once, not when it lapses."""
    host, _, rest = str(value or "").partition(":")
    pid = rest.partition(":")[0]
    if host != _HOST or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def single_flight(kind: str, match: Match, seq: int, lang: str,
                  start: Callable[[float, Callable], None], wait: float,
                  lock_ttl: float = 20.0) -> tuple[int, object]:
    """``(seq', report)`` of ``match`` at ``seq`` or later, built at most once at a time for the
    whole deployment per (kind, match, language).

    Eight clients asking for a long match's sheet used to start a render in each worker, and
    whoever had waited for a worker's render slot rendered again when a tap had moved the seq
    meanwhile: renders ran back to back in every worker, taking the CPU from the referees' taps.
    Now the request that takes a lock in the shared cache (``cache.add``: Redis SET NX, across
    workers) starts the build; every request, that one included, then polls the cache (holding
    no database connection) and takes the first report as new as what it asked for.

    ``start(seconds left, done)`` begins the build and has ``done((seq built at, report))`` or
    ``done(exception)`` called once, from any thread, when it ends: the report is kept and the
    lock released even when every request waiting for it has given up; an exception is raised
    to the request that started that build (the others waiting try a build of their own).
    ``start`` may raise (nothing started). Raises :class:`~scoreboard.core.limits.Busy` when nothing comes within
    ``wait`` seconds. While a build runs its lock is renewed every ``lock_ttl``/3 seconds, so a
    worker killed in the middle of one holds it no longer than ``lock_ttl``.
    """
    deadline = time.monotonic() + wait
    lock = _lock_key(kind, match, lang)
    pause = 0.02
    # the build this request started, when it failed: its error, and an event set once its lock
    # is released (the error is noted before: no second build starts in between)
    failed: list[tuple[BaseException, threading.Event]] = []

    def fail():
        error, released = failed[0]
        released.wait(5)  # whoever asks next finds the lock free
        raise error

    while True:
        found = newest(kind, match, seq, lang)
        if found is not None:
            return found
        if failed:
            # its own build failed: the error goes to this request, rather than a new build and
            # a new failure in a loop until ``wait`` (a sheet that cannot be built held its
            # request for the whole PDF_WAIT)
            fail()
        token = _owner_token()
        if not cache.add(lock, token, lock_ttl):
            holder = cache.get(lock)
            if _held_by_the_dead(holder) and cache.get(lock) == holder:
                logger.warning("report %s of match %s: lock of a dead worker released (%s)", kind, match.pk, holder)
                cache.delete(lock)
                continue
        else:
            found = newest(kind, match, seq, lang)  # finished while this request took the lock
            if found is not None or failed:  # (a failure is noted before its lock is released)
                cache.delete(lock)
                if found is None:
                    fail()
                return found
            began = time.monotonic()
            finished, released = threading.Event(), threading.Event()

            def done(result, token=token, began=began, finished=finished, released=released) -> None:
                try:
                    if isinstance(result, BaseException):
                        logger.warning("report %s of match %s failed: %r", kind, match.pk, result)
                        failed.append((result, released))
                        return
                    built_seq, value = result
                    put(kind, match, built_seq, lang, value)
                    if (cache.get(_newest_key(kind, match, lang)) or -1) < built_seq:
                        cache.set(_newest_key(kind, match, lang), built_seq, TTL)
                    logger.info("report %s of match %s built at seq %s (%s) in %.0f ms", kind,
                                match.pk, built_seq, lang or "-", (time.monotonic() - began) * 1000)
                finally:
                    finished.set()
                    if cache.get(lock) == token:
                        cache.delete(lock)
                    released.set()

            def renew(token=token, finished=finished) -> None:
                while not finished.wait(lock_ttl / 3) and cache.get(lock) == token:
                    cache.touch(lock, lock_ttl)

            try:
                start(max(0.05, deadline - began), done)
            except BaseException:
                finished.set()
                cache.delete(lock)
                raise
            if not finished.is_set():
                threading.Thread(target=renew, name="report-lock-renewal", daemon=True).start()
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            raise Busy()
        give_back_connection()  # waiting needs no database connection (no-op without a pool)
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.2)
