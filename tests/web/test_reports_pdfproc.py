"""``reports/pdfproc.py``: súmula renders in a separate process that runs only on idle CPU."""
from __future__ import annotations

import os

import pytest


@pytest.fixture
def render_pool(settings):
    from scoreboard.reports import pdfproc

    settings.PDF_PROCESS, settings.PDF_SLOTS, settings.PDF_TASKS_PER_CHILD = True, 1, 10
    pdfproc._executor = None
    yield pdfproc._pool()
    pdfproc._executor.shutdown(wait=True, cancel_futures=True)
    pdfproc._executor = None


def test_the_render_process_runs_at_idle_cpu_priority(render_pool):
    """Issue 9: at nice 10 the renders still took CPU from the referee's taps (a tap's p50 1.3-2.5×
    idle with 8 PDF clients); under SCHED_IDLE the kernel gives them only what nothing else wants."""
    assert render_pool.submit(os.sched_getscheduler, 0).result(timeout=60) == os.SCHED_IDLE
    assert render_pool.submit(os.getpid).result(timeout=60) != os.getpid()


def test_a_broken_render_pool_is_replaced(render_pool):
    """A render process killed (out of memory, kill -9) breaks a ProcessPoolExecutor for good;
    the next render starts a new pool instead of failing for the rest of the worker's life."""
    import signal

    from scoreboard.reports import pdfproc

    pid = render_pool.submit(os.getpid).result(timeout=60)
    fut = render_pool.submit(__import__("time").sleep, 30)
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(Exception):
        fut.result(timeout=30)
    fresh = pdfproc._pool()
    assert fresh is not render_pool
    assert fresh.submit(os.sched_getscheduler, 0).result(timeout=60) == os.SCHED_IDLE
