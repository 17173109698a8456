"""``reports/cache.py``: reports kept per (match, seq, language), and built once at a time for the
whole deployment (``single_flight``)."""
from __future__ import annotations

import threading
import time

import pytest
from django.core.cache import cache

from scoreboard.core.limits import Busy
from scoreboard.reports import cache as report_cache

pytestmark = [pytest.mark.django_db, pytest.mark.pg]


# No cache.clear(): each test's match is new, and the keys carry its creation time, so no test
# sees another's reports (and a shared Redis is not flushed under anyone else).


def starter(calls: list, result=None, delay: float = 0.0):
    """A ``start`` that records its call and finishes (in a thread, after ``delay``) with ``result``."""
    def start(left, done):
        calls.append(left)
        threading.Timer(delay, done, args=(result,)).start()
    return start


def test_the_first_request_builds_and_the_report_is_kept_under_the_seq_it_was_built_at(created):
    calls = []
    got = report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"sheet-0")), wait=2)
    assert got == (0, b"sheet-0") and len(calls) == 1
    assert report_cache.get("pdf", created.match, 0, "pt-br") == b"sheet-0"
    again = report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"other")), wait=2)
    assert again == (0, b"sheet-0") and len(calls) == 1


def test_a_newer_report_serves_an_older_request_but_never_the_reverse(created):
    report_cache.single_flight("pdf", created.match, 4, "pt-br", starter([], (4, b"sheet-4")), wait=2)
    calls = []
    assert report_cache.single_flight("pdf", created.match, 3, "pt-br", starter(calls, (5, b"x")), wait=2) \
        == (4, b"sheet-4")
    assert calls == []
    assert report_cache.single_flight("pdf", created.match, 5, "pt-br", starter(calls, (5, b"sheet-5")), wait=2) \
        == (5, b"sheet-5")
    assert len(calls) == 1
    assert report_cache.single_flight("pdf", created.match, 4, "en", starter(calls, (4, b"en-4")), wait=2) \
        == (4, b"en-4")  # another language is another report


def test_while_another_worker_builds_a_request_waits_for_its_result(created):
    """The lock is in the shared cache: a build begun elsewhere is waited for, not repeated."""
    lock = report_cache._lock_key("pdf", created.match, "pt-br")
    assert cache.add(lock, "elsewhere", 30)

    def elsewhere_finishes():
        time.sleep(0.3)
        report_cache.put("pdf", created.match, 2, "pt-br", b"sheet-2")
        cache.set(report_cache._newest_key("pdf", created.match, "pt-br"), 2)
        cache.delete(lock)

    threading.Thread(target=elsewhere_finishes).start()
    calls = []
    t = time.monotonic()
    got = report_cache.single_flight("pdf", created.match, 2, "pt-br", starter(calls, (2, b"mine")), wait=3)
    assert got == (2, b"sheet-2") and calls == []
    assert 0.25 < time.monotonic() - t < 1.5


def test_nothing_in_time_is_busy_and_a_late_build_is_still_kept(created):
    calls = []
    with pytest.raises(Busy):
        report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"late"), delay=0.5),
                                   wait=0.2)
    time.sleep(0.6)
    assert report_cache.get("pdf", created.match, 0, "pt-br") == b"late"
    assert cache.get(report_cache._lock_key("pdf", created.match, "pt-br")) is None  # lock released
    assert report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"x")), wait=1) \
        == (0, b"late") and len(calls) == 1


def test_a_failed_build_releases_the_lock_for_the_next_request(created):
    calls = []
    with pytest.raises(Busy):
        report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, RuntimeError("boom")),
                                   wait=0.3)
    assert len(calls) >= 1  # tried again once the failed build let the lock go
    assert report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"ok")), wait=1) \
        == (0, b"ok")


def test_a_start_that_raises_releases_the_lock(created):
    def refuse(left, done):
        raise Busy()

    with pytest.raises(Busy):
        report_cache.single_flight("pdf", created.match, 0, "pt-br", refuse, wait=1)
    assert cache.get(report_cache._lock_key("pdf", created.match, "pt-br")) is None


def test_a_long_build_keeps_its_lock_and_a_dead_workers_lock_expires(created):
    """A build longer than the lock's lifetime renews it (no second build meanwhile); a lock left
    by a worker killed mid-build (never renewed) expires, and the next request builds."""
    calls, other = [], []
    results = []
    # Whole seconds: Redis keeps expiry times in seconds.
    t = threading.Thread(target=lambda: results.append(report_cache.single_flight(
        "pdf", created.match, 0, "pt-br", starter(calls, (0, b"slow"), delay=2.5), wait=5, lock_ttl=1)))
    t.start()
    time.sleep(1.4)  # past the lock's first lifetime
    got = report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(other, (0, b"second")),
                                     wait=5, lock_ttl=1)
    t.join()
    assert got == (0, b"slow") and results == [(0, b"slow")] and len(calls) == 1 and other == []

    lock = report_cache._lock_key("pdf", created.match, "en")
    assert cache.add(lock, "killed-worker", 1)
    t0 = time.monotonic()
    got = report_cache.single_flight("pdf", created.match, 0, "en", starter(other, (0, b"en")), wait=4)
    assert got == (0, b"en") and len(other) == 1 and 0.5 < time.monotonic() - t0 < 2.5
