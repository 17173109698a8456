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


def starter(calls: list, result=None, release: threading.Event | None = None,
            finished: threading.Event | None = None):
    """A ``start`` that records its call and finishes in a thread with ``result``: at once, or
    once ``release`` is set; ``finished`` is set when ``done`` has returned (the report kept)."""
    def start(left, done):
        calls.append(left)

        def build():
            if release is not None:
                release.wait(60)
            done(result)
            if finished is not None:
                finished.set()
        threading.Thread(target=build, daemon=True).start()
    return start


def polls(monkeypatch) -> list[int]:
    """The threads of each wait of ``single_flight`` for a report (one entry per look at the
    cache that found nothing and was not the build's)."""
    seen: list[int] = []
    real = report_cache.give_back_connection

    def waiting():
        seen.append(threading.get_ident())
        real()
    monkeypatch.setattr(report_cache, "give_back_connection", waiting)
    return seen


def test_the_first_request_builds_and_the_report_is_kept_under_the_seq_it_was_built_at(created):
    calls = []
    got = report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"sheet-0")), wait=30)
    assert got == (0, b"sheet-0") and len(calls) == 1
    assert report_cache.get("pdf", created.match, 0, "pt-br") == b"sheet-0"
    again = report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"other")), wait=30)
    assert again == (0, b"sheet-0") and len(calls) == 1


def test_a_newer_report_serves_an_older_request_but_never_the_reverse(created):
    report_cache.single_flight("pdf", created.match, 4, "pt-br", starter([], (4, b"sheet-4")), wait=30)
    calls = []
    assert report_cache.single_flight("pdf", created.match, 3, "pt-br", starter(calls, (5, b"x")), wait=30) \
        == (4, b"sheet-4")
    assert calls == []
    assert report_cache.single_flight("pdf", created.match, 5, "pt-br", starter(calls, (5, b"sheet-5")), wait=30) \
        == (5, b"sheet-5")
    assert len(calls) == 1
    assert report_cache.single_flight("pdf", created.match, 4, "en", starter(calls, (4, b"en-4")), wait=30) \
        == (4, b"en-4")  # another language is another report


def test_while_another_worker_builds_a_request_waits_for_its_result(created, monkeypatch):
    """The lock is in the shared cache: a build begun elsewhere is waited for, not repeated, and
    its report is taken at the next look once it is there."""
    lock = report_cache._lock_key("pdf", created.match, "pt-br")
    assert cache.add(lock, "elsewhere", 30)
    seen = polls(monkeypatch)
    at_finish = []

    def elsewhere_finishes():
        while not seen:  # the request is waiting
            time.sleep(0.01)
        report_cache.put("pdf", created.match, 2, "pt-br", b"sheet-2")
        cache.set(report_cache._newest_key("pdf", created.match, "pt-br"), 2)
        # counted once the report can be found (on a busy Redis the puts took two polls' time)
        at_finish.append(len(seen))
        cache.delete(lock)

    other = threading.Thread(target=elsewhere_finishes, daemon=True)
    other.start()
    calls = []
    got = report_cache.single_flight("pdf", created.match, 2, "pt-br", starter(calls, (2, b"mine")), wait=30)
    assert got == (2, b"sheet-2") and calls == []
    other.join(10)
    assert len(seen) - at_finish[0] <= 1  # found at the next look (one may have been under way)


def test_nothing_in_time_is_busy_and_a_late_build_is_still_kept(created):
    calls = []
    release, finished = threading.Event(), threading.Event()
    with pytest.raises(Busy):
        report_cache.single_flight("pdf", created.match, 0, "pt-br",
                                   starter(calls, (0, b"late"), release, finished), wait=0.2)
    release.set()  # the build ends after every request gave up on it
    assert finished.wait(30)
    assert report_cache.get("pdf", created.match, 0, "pt-br") == b"late"
    assert cache.get(report_cache._lock_key("pdf", created.match, "pt-br")) is None  # lock released
    assert report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"x")), wait=30) \
        == (0, b"late") and len(calls) == 1


def test_a_failed_build_is_the_error_of_the_request_that_started_it_and_releases_the_lock(created):
    """A sheet that could not be built was built again and again by the request that asked for
    it, until its wait ran out (PDF_WAIT): the request now gets the build's error at once."""
    calls = []
    with pytest.raises(RuntimeError, match="boom"):
        report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, RuntimeError("boom")),
                                   wait=30)
    assert len(calls) == 1  # not built again in a loop
    assert cache.get(report_cache._lock_key("pdf", created.match, "pt-br")) is None
    assert report_cache.single_flight("pdf", created.match, 0, "pt-br", starter(calls, (0, b"ok")), wait=30) \
        == (0, b"ok")


def test_a_start_that_raises_releases_the_lock(created):
    def refuse(left, done):
        raise Busy()

    with pytest.raises(Busy):
        report_cache.single_flight("pdf", created.match, 0, "pt-br", refuse, wait=1)
    assert cache.get(report_cache._lock_key("pdf", created.match, "pt-br")) is None


def test_a_long_build_keeps_its_lock_and_a_dead_workers_lock_expires(created, monkeypatch):
    """A build longer than the lock's lifetime renews it (no second build meanwhile); a lock left
    by a worker killed mid-build (never renewed) expires, and the next request builds."""
    calls, other = [], []
    results = []
    release = threading.Event()
    lock = report_cache._lock_key("pdf", created.match, "pt-br")
    # Whole seconds: Redis keeps expiry times in seconds.
    t = threading.Thread(target=lambda: results.append(report_cache.single_flight(
        "pdf", created.match, 0, "pt-br", starter(calls, (0, b"slow"), release), wait=60, lock_ttl=2)))
    t.start()
    while not calls:  # the build has begun, under its lock
        time.sleep(0.01)
    held = cache.get(lock)
    taken = time.monotonic()
    while time.monotonic() < taken + 2.5:  # past the lock's first lifetime: the time is what is tested
        time.sleep(0.05)
    assert cache.get(lock) == held  # renewed
    seen = polls(monkeypatch)
    second = threading.Thread(target=lambda: results.append(report_cache.single_flight(
        "pdf", created.match, 0, "pt-br", starter(other, (0, b"second")), wait=60, lock_ttl=2)))
    second.start()
    while second.ident not in seen:  # the second request waits for the first's build
        time.sleep(0.01)
    release.set()
    t.join()
    second.join()
    assert results == [(0, b"slow")] * 2 and len(calls) == 1 and other == []

    lock = report_cache._lock_key("pdf", created.match, "en")
    assert cache.add(lock, "killed-worker", 1)
    t0 = time.monotonic()
    got = report_cache.single_flight("pdf", created.match, 0, "en", starter(other, (0, b"en")), wait=30)
    assert got == (0, b"en") and len(other) == 1 and time.monotonic() - t0 > 0.5  # after the lock expired
