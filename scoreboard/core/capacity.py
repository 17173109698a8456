"""How much one worker takes on at once: bounded slots for anonymous reads and for PDF renders,
and what counts as "busy" (a full slot queue, an exhausted database pool, a database that refuses
more clients).

A worker's database pool (settings ``DB_POOL_MAX``) is shared by every request thread. Anonymous
reads are let through :data:`READS` (``READ_SLOTS`` at a time), so however many spectators ask
for the log or a report, the referees' writes still find free connections; súmula renders go
through :data:`PDFS` as well (``PDF_SLOTS``), since each holds a whole document in memory.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from functools import wraps

from django.conf import settings
from django.db import OperationalError, connections
from django.http import HttpResponse, JsonResponse
from django_ratelimit.core import is_ratelimited


class Busy(Exception):
    """This worker cannot take the request now; the client should retry after ``retry_after`` s."""

    def __init__(self, retry_after: int = 2) -> None:
        super().__init__("busy")
        self.retry_after = retry_after


class Slots:
    """A per-process counting semaphore whose size is read from settings on first use."""

    def __init__(self, size_setting: str, wait_setting: str) -> None:
        self.size_setting, self.wait_setting = size_setting, wait_setting
        self._sem: threading.BoundedSemaphore | None = None
        self._guard = threading.Lock()

    def _semaphore(self) -> threading.BoundedSemaphore:
        with self._guard:
            if self._sem is None:
                self._sem = threading.BoundedSemaphore(max(1, getattr(settings, self.size_setting)))
            return self._sem

    def reset(self) -> None:
        """Forget the semaphore (tests that change the size setting)."""
        with self._guard:
            self._sem = None

    @contextmanager
    def slot(self, wait: float | None = None):
        """Hold one slot; raise :class:`Busy` when none frees up within ``wait`` seconds."""
        sem = self._semaphore()
        if not sem.acquire(timeout=getattr(settings, self.wait_setting) if wait is None else wait):
            raise Busy()
        try:
            yield
        finally:
            sem.release()


READS = Slots("READ_SLOTS", "READ_WAIT")
PDFS = Slots("PDF_SLOTS", "PDF_WAIT")


def give_back_connection() -> None:
    """Return this thread's pooled connection now rather than at the end of the response, so a
    read holds a connection no longer than its slot (no-op without a pool or in a transaction)."""
    conn = connections["default"]
    if "pool" in conn.settings_dict.get("OPTIONS", {}) and not conn.in_atomic_block:
        conn.close()


def anonymous_read(view):
    """Run a read-only view inside a :data:`READS` slot (:class:`Busy` when none frees up)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        with READS.slot():
            try:
                return view(request, *args, **kwargs)
            finally:
                give_back_connection()

    return wrapped


def is_busy(exc: BaseException | None) -> bool:
    """Whether ``exc`` means "too much at once" rather than a bug: :class:`Busy`, a pool that
    gave no connection in time, or PostgreSQL refusing more clients."""
    if isinstance(exc, Busy):
        return True
    if isinstance(exc, OperationalError):
        cause = exc.__cause__ or exc
        name = type(cause).__name__
        text = str(exc).lower()
        return name in ("PoolTimeout", "TooManyConnections") or "too many clients" in text \
            or "couldn't get a connection" in text or "remaining connection slots" in text
    return False


BUSY_PAGE = """<!doctype html><html lang="pt-br"><meta charset="utf-8"><title>Ocupado / Busy</title>
<h1>Servidor ocupado / Server busy</h1>
<p>Muitos pedidos ao mesmo tempo; tente de novo em alguns segundos.
/ Too many requests at once; try again in a few seconds.</p></html>"""
LIMITED_PAGE = """<!doctype html><html lang="pt-br"><meta charset="utf-8"><title>Limite / Limit</title>
<h1>Pedidos demais / Too many requests</h1>
<p>Muitos pedidos deste endereço; tente de novo em um minuto.
/ Too many requests from this address; try again in a minute.</p></html>"""


def is_api(request) -> bool:
    """Whether the request is for the JSON API (its errors are JSON)."""
    return request.path.startswith("/api/")


def busy_response(request, retry_after: int = 2) -> HttpResponse:
    """503 with Retry-After: ``{"error": {"code": "busy", "message"}}`` on the API, a page elsewhere."""
    if is_api(request):
        resp = JsonResponse({"error": {"code": "busy", "message":
                                       "Servidor ocupado; tente de novo em instantes / "
                                       "Server busy; try again shortly"}}, status=503)
    else:
        resp = HttpResponse(BUSY_PAGE, status=503)
    resp["Retry-After"] = str(retry_after)
    return resp


def limited_response(request) -> HttpResponse:
    """429 with Retry-After: ``{"error": {"code": "rate_limited", ...}}`` on the API, a page elsewhere."""
    if is_api(request):
        resp = JsonResponse({"error": {"code": "rate_limited", "message":
                                       "Pedidos demais deste endereço; tente de novo em um minuto / "
                                       "Too many requests from this address; try again in a minute"}},
                            status=429)
    else:
        resp = HttpResponse(LIMITED_PAGE, status=429)
    resp["Retry-After"] = "60"
    return resp


def _report_rate(group, request):
    return settings.REPORT_RATE or None  # read per request: deployments and tests can change it


def report_view(view):
    """An anonymous report endpoint (súmula, log, statistics, export): limited per client address
    to ``REPORT_RATE`` (django-ratelimit, in the shared cache; 429), then run in a :data:`READS`
    slot (503 busy when none frees up). Other methods (the referee's POST) pass straight through."""
    reads = anonymous_read(view)

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        if is_ratelimited(request, group="reports", key="ip", rate=_report_rate, increment=True):
            return limited_response(request)
        try:
            return reads(request, *args, **kwargs)
        except Busy as b:
            return busy_response(request, b.retry_after)

    return wrapped
