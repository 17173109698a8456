"""How much one worker takes on at once: bounded slots for anonymous reads and for PDF renders,
a bound on one match's concurrent writers, and what counts as "busy" (a full slot queue, an
exhausted database pool, a database that refuses more clients or is down).

A worker's database pool (settings ``DB_POOL_MAX``) is shared by every request thread. Anonymous
reads are let through :data:`READS` (``READ_SLOTS`` at a time), so however many spectators ask
for the log, a report or a screen's page, the referees' writes still find free connections;
súmula renders go through :data:`PDFS` as well (``PDF_SLOTS``), since each holds a whole
document in memory.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from collections import defaultdict
from contextlib import contextmanager
from functools import wraps

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
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


class MatchBusy(Busy):
    """Already ``MATCH_WRITERS`` writers of this match in this worker: answered 429 at once."""

    status = 429

    def __init__(self, match_id: int, retry_after: int = 1) -> None:
        super().__init__(retry_after)
        self.match_id = match_id


class MatchWriters:
    """A per-process bound on the concurrent writers of *each* match (settings ``MATCH_WRITERS``).

    One match's appends are serialised by its lock anyway, so more of them waiting buys nothing
    and would hold request threads and pooled connections that other matches' referees need.
    :meth:`slot` refuses at once (:class:`MatchBusy`) rather than queue; it is re-entrant per
    thread, so a view that took the slot before its first query (the API) and the append
    inside it count once.

    Two pools of ``MATCH_WRITERS`` slots per match: one for the credentials this process has
    already seen accepted for the match (:meth:`trust`), one for everyone else. A flood of taps
    with no token or a wrong one (an attacker, a stale client) fills only the second, so the
    match's referee, once one of his taps was accepted, is never answered 429 because of it.
    The first pool is a hint, not an authorisation: the view still checks every credential."""

    TRUSTED_PER_MATCH = 16  # credentials remembered per match (tablets, API clients); oldest go first

    def __init__(self, size_setting: str) -> None:
        self.size_setting = size_setting
        self._counts: defaultdict[tuple[int, bool], int] = defaultdict(int)
        self._trusted: dict[int, dict[str, None]] = {}
        self._guard = threading.Lock()
        self._held = threading.local()

    def count(self, match_id: int, trusted: bool | None = None) -> int:
        """How many writers of the match hold a slot now (of one pool, or of both)."""
        with self._guard:
            return sum(n for (m, t), n in self._counts.items()
                       if m == match_id and (trusted is None or t == trusted))

    def trusted(self, match_id: int, cred: str | None) -> bool:
        """Whether ``cred`` (:func:`credential_key`) was seen accepted for the match here."""
        if cred is None:
            return False
        with self._guard:
            return cred in self._trusted.get(match_id, ())

    def trust(self, match_id: int, cred: str | None) -> None:
        """Remember that ``cred`` was accepted for the match (its later taps use the first pool)."""
        if cred is None:
            return
        with self._guard:
            known = self._trusted.setdefault(match_id, {})
            known.pop(cred, None)
            known[cred] = None
            while len(known) > self.TRUSTED_PER_MATCH:
                del known[next(iter(known))]

    def enter(self, match_id: int, trusted: bool = False) -> bool:
        """Take one of the match's slots of that pool if one is free (give it back with
        :meth:`leave`)."""
        size = max(1, getattr(settings, self.size_setting))
        with self._guard:
            if self._counts[(match_id, trusted)] >= size:
                return False
            self._counts[(match_id, trusted)] += 1
            return True

    def leave(self, match_id: int, trusted: bool = False) -> None:
        """Give back a slot taken with :meth:`enter`."""
        with self._guard:
            self._counts[(match_id, trusted)] -= 1
            if not self._counts[(match_id, trusted)]:
                del self._counts[(match_id, trusted)]

    @contextmanager
    def slot(self, match_id: int, taken: bool = False, trusted: bool = False):
        """Hold one of the match's writer slots in this thread; :class:`MatchBusy` when all of
        its pool are taken. ``taken``: the request already holds one (:class:`WriterGate` took
        it before Django ran), so this thread only records it."""
        held = getattr(self._held, "ids", None)
        if held is None:
            held = self._held.ids = set()
        if match_id in held:
            yield
            return
        if not taken and not self.enter(match_id, trusted):
            raise MatchBusy(match_id)
        held.add(match_id)
        try:
            yield
        finally:
            held.discard(match_id)
            if not taken:
                self.leave(match_id, trusted)


def credential_key(authorization: str | None, session: str | None) -> str | None:
    """What identifies a tap's sender for :class:`MatchWriters`' pools: a digest of the API's
    ``Authorization`` header, else of the session cookie (the tablet); None with neither."""
    raw = authorization or (f"session:{session}" if session else None)
    return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:32] if raw else None


WRITERS = MatchWriters("MATCH_WRITERS")

# The requests that append to a match's log, by path (POST only): the API and the tablet's taps.
WRITER_PATHS = re.compile(r"^/(?:api/matches/(\d+)/events|matches/(\d+)/referee/(?:event|foul/submit))/$")
WRITER_SCOPE_KEY = "scoreboard.writer"
WRITER_TRUSTED_KEY = "scoreboard.writer_trusted"  # which pool WriterGate's slot came from
MATCH_BUSY_PT = "Muitos toques neste jogo ao mesmo tempo; tente de novo em instantes"
MATCH_BUSY_EN = "Too many taps on this match at once; try again shortly"


class WriterGate:
    """ASGI middleware: a tap (``WRITER_PATHS``) takes one of its match's :data:`WRITERS` slots
    before Django sees it, and one refused is answered 429 ``match_busy`` from here, with no
    request thread, no middleware and no query. A flood of one match's taps retrying every
    second cost each worker a full Django request per tap: the other matches' referees waited
    over a second behind each wave. The slot is held until the response is sent; the view
    finds it in the scope (``scoreboard.writer``)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        m = WRITER_PATHS.match(scope.get("path", "")) if scope["type"] == "http" \
            and scope.get("method") == "POST" else None
        if m is None:
            return await self.app(scope, receive, send)
        match_id = int(m[1] or m[2])
        trusted = WRITERS.trusted(match_id, _scope_credential(scope))
        if not WRITERS.enter(match_id, trusted):
            api = scope["path"].startswith("/api/")
            body = (json.dumps({"error": {"code": "match_busy", "message":
                                          f"{MATCH_BUSY_PT} / {MATCH_BUSY_EN}"}}) if api
                    else f"{MATCH_BUSY_PT} / {MATCH_BUSY_EN}").encode()
            ctype = b"application/json" if api else b"text/plain; charset=utf-8"
            await send({"type": "http.response.start", "status": 429,
                        "headers": [(b"content-type", ctype), (b"retry-after", b"1"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return None
        try:
            return await self.app(dict(scope, **{WRITER_SCOPE_KEY: match_id, WRITER_TRUSTED_KEY: trusted}),
                                  receive, send)
        finally:
            WRITERS.leave(match_id, trusted)


def _scope_credential(scope) -> str | None:
    """:func:`credential_key` of an ASGI scope's headers (``Authorization``, the session cookie)."""
    auth = cookie = None
    for name, value in scope.get("headers") or ():
        if name == b"authorization":
            auth = value.decode("latin-1")
        elif name == b"cookie":
            cookie = value.decode("latin-1")
    session = None
    if cookie:
        for part in cookie.split(";"):
            k, _, v = part.strip().partition("=")
            if k == settings.SESSION_COOKIE_NAME:
                session = v
    return credential_key(auth, session)


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
    """Whether ``exc`` means "try again shortly" rather than a bug: :class:`Busy`, a pool that
    gave no connection in time, PostgreSQL refusing more clients, or a database that is
    unreachable or went away mid-request (a restart, a crash, a network cut: Django's
    ``OperationalError`` and ``InterfaceError``, e.g. "server closed the connection
    unexpectedly", "terminating connection due to administrator command", "connection is
    closed"). None of these stored a half of anything: a write's transaction either committed
    or not, and the client's retry with the same key answers which."""
    if isinstance(exc, Busy):
        return True
    if isinstance(exc, (OperationalError, InterfaceError)):
        cause = exc.__cause__
        if cause is None or type(cause).__module__.startswith(("psycopg", "psycopg_pool")):
            return True  # Django's own "connection already closed", or the driver's or pool's
        return "database is locked" in str(exc).lower()  # SQLite; its "no such table" is a bug
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


def match_busy_response(request, retry_after: int = 1) -> HttpResponse:
    """429 with Retry-After for a writer refused by :data:`WRITERS`: ``{"error": {"code":
    "match_busy", "message"}}`` on the API, a short text elsewhere (the tablet's queue keeps the
    tap and sends it again, same key, either way)."""
    pt, en = MATCH_BUSY_PT, MATCH_BUSY_EN
    if is_api(request):
        resp = JsonResponse({"error": {"code": "match_busy", "message": f"{pt} / {en}"}}, status=429)
    else:
        resp = HttpResponse(f"{pt} / {en}", status=429, content_type="text/plain; charset=utf-8")
    resp["Retry-After"] = str(retry_after)
    return resp


def answer_busy(request, exc: BaseException) -> HttpResponse:
    """The answer to an exception :func:`is_busy` accepted: 429 for :class:`MatchBusy`, else 503."""
    if isinstance(exc, MatchBusy):
        return match_busy_response(request, exc.retry_after)
    return busy_response(request, getattr(exc, "retry_after", 2))


def match_writer(view):
    """A view that appends to the match ``match_id``: take one of its :data:`WRITERS` slots
    before anything else (the session or token lookup takes a pooled connection), 429 at once
    when they are all taken. Other methods than POST pass straight through."""

    @wraps(view)
    def wrapped(request, match_id, *args, **kwargs):
        if request.method != "POST":
            return view(request, match_id, *args, **kwargs)
        scope = getattr(request, "scope", {})
        taken = scope.get(WRITER_SCOPE_KEY) == match_id  # by WriterGate
        cred = credential_key(request.META.get("HTTP_AUTHORIZATION"),
                              request.COOKIES.get(settings.SESSION_COOKIE_NAME))
        trusted = scope.get(WRITER_TRUSTED_KEY, False) if taken else WRITERS.trusted(match_id, cred)
        try:
            with WRITERS.slot(match_id, taken=taken, trusted=trusted):
                resp = view(request, match_id, *args, **kwargs)
        except MatchBusy as b:
            return match_busy_response(request, b.retry_after)
        # the view let this sender write (stored, a repeat, or the rules' or the seq's refusal,
        # all after the credential check): its next taps use the pool a flood cannot fill
        if 200 <= resp.status_code < 300 or resp.status_code in (409, 422):
            WRITERS.trust(match_id, cred)
        return resp

    return wrapped


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
