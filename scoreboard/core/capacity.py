"""How much one worker takes on at once: bounded slots for anonymous reads and for PDF renders,
and what counts as "busy" (a full slot queue, an exhausted database pool, a database that refuses
more clients).

A worker's database pool (settings ``DB_POOL_MAX``) is shared by every request thread. Anonymous
reads are let through :data:`READS` (``READ_SLOTS`` at a time), so however many spectators ask
for the log, a report or a screen's page, the referees' writes still find free connections;
súmula renders go through :data:`PDFS` as well (``PDF_SLOTS``), since each holds a whole
document in memory.
"""
from __future__ import annotations

import random
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

    def acquire(self, wait: float | None = None) -> None:
        """Take one slot (to be given back with :meth:`release`, from any thread); raise
        :class:`Busy` when none frees up within ``wait`` seconds (default: the wait setting)."""
        if not self._semaphore().acquire(timeout=getattr(settings, self.wait_setting) if wait is None else wait):
            raise Busy()

    def release(self) -> None:
        """Give back a slot taken with :meth:`acquire`."""
        self._semaphore().release()

    @contextmanager
    def slot(self, wait: float | None = None):
        """Hold one slot; raise :class:`Busy` when none frees up within ``wait`` seconds."""
        self.acquire(wait)
        try:
            yield
        finally:
            self.release()


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


# A screen that met a busy worker tries again by itself (a venue TV or an OBS source has nobody to
# press reload), a little later than Retry-After and spread so that a room of screens refused
# together does not come back together. An overlay's busy page is blank and transparent: it sits
# on top of a broadcast, where a notice would be seen by every viewer.
BUSY_PAGE = """<!doctype html><html lang="pt-br"><meta charset="utf-8">
<meta http-equiv="refresh" content="{refresh}"><meta name="viewport" content="width=device-width">
<title>Ocupado / Busy</title>
<style>body{{margin:0;font:clamp(1.1rem,2.2vw,2.6rem)/1.4 system-ui,sans-serif;{style}}}
main{{max-width:34em;margin:12vh auto;padding:0 1.2em}}h1{{font-size:1.3em;margin:0 0 .6em}}
p{{margin:.4em 0}}</style>
<main><h1>Servidor ocupado / Server busy</h1>
<p>Muitos pedidos ao mesmo tempo; esta página tenta de novo sozinha em alguns segundos.</p>
<p lang="en">Too many requests at once; this page tries again by itself in a few seconds.</p>
</main></html>"""
LIMITED_PAGE = """<!doctype html><html lang="pt-br"><meta charset="utf-8"><title>Limite / Limit</title>
<h1>Pedidos demais / Too many requests</h1>
<p>Muitos pedidos deste endereço; tente de novo em um minuto.
/ Too many requests from this address; try again in a minute.</p></html>"""


def is_api(request) -> bool:
    """Whether the request is for the JSON API (its errors are JSON)."""
    return request.path.startswith("/api/")


def busy_page(request, retry_after: int) -> str:
    """The busy page's HTML: it reloads itself after ``retry_after`` plus 1-3 s of jitter; blank
    and transparent on an overlay (see :data:`BUSY_PAGE`)."""
    overlay = request.path.rstrip("/").endswith("/overlay")
    style = "background:transparent;color:transparent" if overlay else "background:#fff;color:#111"
    return BUSY_PAGE.format(refresh=retry_after + random.randint(1, 3), style=style)


def busy_response(request, retry_after: int = 2, as_json: bool = False) -> HttpResponse:
    """503 with Retry-After: ``{"error": {"code": "busy", "message"}}`` on the API (or with
    ``as_json``, for a JSON endpoint outside it), a page elsewhere."""
    if as_json or is_api(request):
        resp = JsonResponse({"error": {"code": "busy", "message":
                                       "Servidor ocupado; tente de novo em instantes / "
                                       "Server busy; try again shortly"}}, status=503)
    else:
        resp = HttpResponse(busy_page(request, retry_after), status=503)
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


def rate_limited(view):
    """Limit an anonymous GET per client address to ``REPORT_RATE`` (django-ratelimit, in the
    shared cache; 429). Other methods (the referee's POST) pass straight through."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method in ("GET", "HEAD") and \
                is_ratelimited(request, group="reports", key="ip", rate=_report_rate, increment=True):
            return limited_response(request)
        return view(request, *args, **kwargs)

    return wrapped


@contextmanager
def read_slot():
    """Hold a :data:`READS` slot for a view's database reads only, giving the connection back at
    the end (:class:`Busy` when no slot frees up): for a view that then waits on something other
    than the database (a súmula being rendered) without keeping a slot others could use."""
    with READS.slot():
        try:
            yield
        finally:
            give_back_connection()


def report_view(view):
    """An anonymous report endpoint (súmula, log, statistics, export): limited per client address
    to ``REPORT_RATE`` (django-ratelimit, in the shared cache; 429), then run in a :data:`READS`
    slot (503 busy when none frees up). Other methods (the referee's POST) pass straight through."""
    reads = anonymous_read(view)

    @rate_limited
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        try:
            return reads(request, *args, **kwargs)
        except Busy as b:
            return busy_response(request, b.retry_after)

    return wrapped


def spectator_page(view=None, *, as_json: bool = False):
    """A spectator's page or its live parts (the venue, the jumbotron, a table's or a match's TV
    and overlay, their fragments): run in a :data:`READS` slot like the other anonymous reads, so
    a crowd of screens loading at once never takes the connections the referees' taps need;
    503 busy (a page that reloads itself, ``Retry-After``) when no slot frees up in ``READ_WAIT``.

    Not limited per address, unlike :func:`report_view`: a venue's screens and phones share one
    address behind its NAT and poll every few seconds. ``as_json``: the view answers JSON (the
    table's "what is on now"), so its busy answer is the API's JSON error."""

    def decorate(view):
        reads = anonymous_read(view)

        @wraps(view)
        def wrapped(request, *args, **kwargs):
            try:
                return reads(request, *args, **kwargs)
            except Busy as b:
                return busy_response(request, b.retry_after, as_json)

        return wrapped

    return decorate(view) if view is not None else decorate
