"""Súmula and wallchart PDFs rendered in a separate process at idle CPU priority.

Rendering a long match's sheet is seconds of pure-Python work (reportlab) and hundreds of MB:
in the worker's own threads it held the GIL against the referee's taps (a tap's p50 went from
18 ms to 1.4 s with 8 PDF clients) and left every worker at 0.75–1.4 GB. Here each worker hands
renders to its own small pool of processes (``PDF_SLOTS``; spawned, at idle priority, replaced after
``PDF_TASKS_PER_CHILD`` renders so their memory is given back), each of which reads the match
itself with a plain (unpooled) database connection.

A render process ends when its worker does, however the worker dies (even ``kill -9``, which
runs no clean-up): it watches its parent (:func:`_die_with`). Without that it waited on its job
queue forever, and kept the pool's ``resource_tracker`` alive with it (183-233 MB a pair).

``PDF_PROCESS=0`` renders in the calling thread instead (the unit tests, whose database exists
only inside their own process).
"""
from __future__ import annotations

import multiprocessing
import os
import select
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor

from django.conf import settings

_executor: ProcessPoolExecutor | None = None
_guard = threading.Lock()


def _die_with(parent: int) -> None:
    """End this process as soon as process ``parent`` is gone: a pidfd of it becomes readable
    when it exits (Linux 5.3+); elsewhere, once a second, whether this process was re-parented."""
    try:
        fd = os.pidfd_open(parent)
    except ProcessLookupError:
        os._exit(0)
    except (AttributeError, OSError):
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)
    select.select([fd], [], [])
    os._exit(0)


def _child_init(parent: int) -> None:
    """In the render process: ends with its worker ``parent``, idle priority, Django set up, no pool.

    ``nice 10`` was not enough: with 8 clients downloading a long match's sheet a tap's p50 was
    still 1.3-2.5× its idle time (bench/reports_load.py). Under SCHED_IDLE the kernel runs the
    render only on CPU time that nothing else wants, so a worker or PostgreSQL woken by a tap
    preempts it at once; a render waits instead of the referee."""
    threading.Thread(target=_die_with, args=(parent,), name="die-with-worker", daemon=True).start()
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux: the lowest nice value there is
        try:
            os.nice(19)
        except OSError:
            pass
    os.environ["DB_POOL"] = "0"  # one plain connection, closed after each render
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoreboard.settings")
    import django

    django.setup()


def _render(match_id: int, lang: str) -> tuple[int, bytes]:
    """(seq, PDF) of a match in ``lang``, read and rendered in this (child) process."""
    from django.db import connections
    from django.utils import translation

    from ..core.models import Match
    from . import sumula

    try:
        with translation.override(lang):
            match = Match.objects.select_related("table", "player_a", "player_b").get(pk=match_id)
            s = sumula.sheet(match)
            return s.match.seq, sumula.as_pdf(s)
    finally:
        connections.close_all()


def _render_bracket(comp_id: int, lang: str, paper: str) -> bytes:
    """A competition's wallchart (``reports.brackets.bracket_pdf``), read and rendered here."""
    from django.db import connections

    from ..core.models import Competition
    from . import brackets

    try:
        return brackets.bracket_pdf(Competition.objects.get(pk=comp_id), lang, paper)
    finally:
        if settings.PDF_PROCESS:  # the calling thread's connection is the request's: left open
            connections.close_all()


def _pool() -> ProcessPoolExecutor:
    global _executor
    with _guard:
        # A render process that died (killed, out of memory) breaks the pool for good: start anew.
        if _executor is None or getattr(_executor, "_broken", False):
            _executor = ProcessPoolExecutor(
                max_workers=max(1, settings.PDF_SLOTS), mp_context=multiprocessing.get_context("spawn"),
                initializer=_child_init, initargs=(os.getpid(),), max_tasks_per_child=settings.PDF_TASKS_PER_CHILD)
        return _executor


def render(match_id: int, lang: str) -> tuple[int, bytes]:
    """(seq, PDF) of a match in ``lang``: in a render process, or here with ``PDF_PROCESS`` off.
    Call it holding a ``limits.PDFS`` slot (that bounds the queue)."""
    return submit(match_id, lang).result(timeout=120)


def submit(match_id: int, lang: str) -> Future:
    """Start rendering (seq, PDF) of a match in ``lang`` in a render process; the future's result
    is that pair. With ``PDF_PROCESS`` off the render runs here, and the future comes back done.
    Call it holding a ``limits.PDFS`` slot, released when the future is done."""
    if settings.PDF_PROCESS:
        return _pool().submit(_render, match_id, lang)
    fut: Future = Future()
    try:
        fut.set_result(_render_here(match_id, lang))
    except Exception as e:  # noqa: BLE001 - handed to whoever waits on the future
        fut.set_exception(e)
    return fut


def _render_here(match_id: int, lang: str) -> tuple[int, bytes]:
    from django.utils import translation

    from ..core.models import Match
    from . import sumula

    with translation.override(lang):
        match = Match.objects.select_related("table", "player_a", "player_b").get(pk=match_id)
        s = sumula.sheet(match)
        return s.match.seq, sumula.as_pdf(s)


def bracket(comp_id: int, lang: str, paper: str) -> bytes:
    """A competition's wallchart PDF on ``paper`` (``"a4"``/``"a3"``) in ``lang``, rendered in a
    render process (a group stage of 128 players is seconds of reportlab, which in the worker's
    own thread would hold the interpreter against the referees' taps), or here with
    ``PDF_PROCESS`` off. Call it holding a ``limits.PDFS`` slot."""
    if settings.PDF_PROCESS:
        return _pool().submit(_render_bracket, comp_id, lang, paper).result(timeout=120)
    return _render_bracket(comp_id, lang, paper)
