"""The HTTP side of a worker's capacity (``core.limits``): which requests wait for a read slot,
the tap's writer gate before Django runs, the per-address limit of the reports, and what counts
as "busy" (a full slot queue, an exhausted database pool, a database that refuses more clients
or is down) with its answer (503 or 429, a self-reloading page or the API's JSON error).
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import time
import weakref
from contextlib import contextmanager
from functools import wraps
from types import SimpleNamespace

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from django_ratelimit.core import is_ratelimited

from ..core import afterwards
from ..core.limits import READS, WRITERS, Busy, MatchBusy, give_back_connection
from . import errors


def credential_key(authorization: str | None, session: str | None) -> str | None:
    """What identifies a tap's sender for :class:`MatchWriters`' pools: a digest of the API's
    ``Authorization`` header, else of the session cookie (the tablet); None with neither."""
    raw = authorization or (f"session:{session}" if session else None)
    return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:32] if raw else None


# The requests that append to a match's log, by path (POST only): the API and the tablet's taps.
WRITER_PATHS = re.compile(r"^/(?:api/matches/(\d+)/events|matches/(\d+)/referee/(?:event|foul/submit))/$")
WRITER_SCOPE_KEY = "scoreboard.writer"
WRITER_TRUSTED_KEY = "scoreboard.writer_trusted"  # which pool WriterGate's slot came from


class WriterGate:
    """ASGI middleware: a tap (``WRITER_PATHS``) takes one of its match's :data:`WRITERS` slots
    before Django sees it, and one refused is answered 429 ``match_busy`` from here, with no
    request thread, no middleware and no query. A flood of one match's taps retrying every
    second cost each worker a full Django request per tap: the other matches' referees waited
    over a second behind each wave. The slot is held until the response is sent; the view
    finds it in the scope (``scoreboard.writer``). The work the tap hands to the background
    waits for the answer to be sent (``core.afterwards``)."""

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
            answer = errors.refusal(MatchBusy(match_id))
            body = (json.dumps(answer.body()) if api else answer.message).encode()
            ctype = b"application/json" if api else b"text/plain; charset=utf-8"
            await send({"type": "http.response.start", "status": 429,
                        "headers": [(b"content-type", ctype), (b"retry-after", b"1"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return None
        try:
            # the work the tap hands to the background (a result's effect) starts once its
            # answer is sent, not while the answer is still being written (``core.afterwards``)
            with afterwards.holding():
                return await self.app(dict(scope, **{WRITER_SCOPE_KEY: match_id, WRITER_TRUSTED_KEY: trusted}),
                                      receive, send)
        finally:
            WRITERS.leave(match_id, trusted)


# A spectator's screen page: a match's or a table's TV or overlay (GET or HEAD).
SCREEN_PATHS = re.compile(r"^/(?:matches|tables)/\d+/(?:tv|overlay)/$")


class ScreenGate:
    """ASGI middleware: a screen page (``SCREEN_PATHS``) waits here, in the event loop, for one
    of ``READ_SLOTS`` places before Django sees it; one that finds none within ``READ_WAIT`` is
    answered the busy page (503, it reloads itself). A room of screens loading at once used to
    start a request thread each, run the middleware and only then queue for a read slot: 75
    threads per worker competing for the interpreter with the referees' taps and with the event
    loop that answers them (issue 15: another match's referee waited 1-4 s at the start of such
    a burst). Waiting here costs no thread and no connection."""

    def __init__(self, app) -> None:
        self.app = app
        # event loop -> its semaphore (a worker has one loop; tests start more, forgotten with them)
        self._places: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD") \
                or not SCREEN_PATHS.match(scope.get("path", "")):
            return await self.app(scope, receive, send)
        loop = asyncio.get_running_loop()
        places = self._places.get(loop)
        if places is None:
            places = self._places[loop] = asyncio.Semaphore(max(1, settings.READ_SLOTS))
        try:
            await asyncio.wait_for(places.acquire(), settings.READ_WAIT)
        except asyncio.TimeoutError:
            body = busy_page(SimpleNamespace(path=scope["path"]), 2).encode()
            await send({"type": "http.response.start", "status": errors.status_of("busy"),
                        "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"retry-after", b"2"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
            return None
        try:
            return await self.app(scope, receive, send)
        finally:
            places.release()


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
# The busy and limited pages' words are the catalogue's (templates/scoreboard/busy.html,
# limited.html), in both languages.


def is_api(request) -> bool:
    """Whether the request is for the JSON API (its errors are JSON)."""
    return request.path.startswith("/api/")


def busy_page(request, retry_after: int) -> str:
    """The busy page's HTML (``scoreboard/busy.html``, in Portuguese and English from the
    catalogue, whatever the request's language: this may run before the locale middleware): it
    reloads itself after ``retry_after`` plus 1-3 s of jitter; blank and transparent on an overlay."""
    overlay = request.path.rstrip("/").endswith("/overlay")
    style = "background:transparent;color:transparent" if overlay else "background:#fff;color:#111"
    with translation.override("pt-br"):
        return render_to_string("scoreboard/busy.html",
                                {"refresh": retry_after + random.randint(1, 3), "style": style})


def busy_response(request, retry_after: int = 2, as_json: bool = False) -> HttpResponse:
    """503 with Retry-After: ``{"error": {"code": "busy", "message"}}`` on the API (or with
    ``as_json``, for a JSON endpoint outside it), a page elsewhere."""
    if as_json or is_api(request):
        resp = errors.refusal(Busy(retry_after)).json()
    else:
        resp = HttpResponse(busy_page(request, retry_after), status=errors.status_of("busy"))
    resp["Retry-After"] = str(retry_after)
    return resp


def match_busy_response(request, retry_after: int = 1) -> HttpResponse:
    """429 with Retry-After for a writer refused by :data:`WRITERS`: ``{"error": {"code":
    "match_busy", "message"}}`` on the API, a short text elsewhere (the tablet's queue keeps the
    tap and sends it again, same key, either way)."""
    answer = errors.refusal(MatchBusy(0, retry_after))
    if is_api(request):
        resp = answer.json()
    else:
        resp = HttpResponse(answer.message, status=answer.status, content_type="text/plain; charset=utf-8")
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
        if 200 <= resp.status_code < 300 or resp.status_code in (errors.status_of("conflict"), errors.REFUSED):
            WRITERS.trust(match_id, cred)
        return resp

    return wrapped


def limited_response(request) -> HttpResponse:
    """429 with Retry-After: ``{"error": {"code": "rate_limited", ...}}`` on the API, a page elsewhere."""
    if is_api(request):
        resp = errors.request_error("rate_limited", "Pedidos demais deste endereço; tente de novo em um minuto").json()
    else:
        with translation.override("pt-br"):
            resp = HttpResponse(render_to_string("scoreboard/limited.html"), status=errors.status_of("rate_limited"))
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


SLIDES = 6  # a window counted in sixths: a try is counted in the sixth of the window it falls in


def sliding_limited(request, group: str, key: str, rate: str) -> bool:
    """Count one try of ``key`` in ``group`` and say whether it goes over ``rate`` ("10/m",
    "30/h", "5/10m": django-ratelimit's notation) in ANY window of that length, not just in the
    clock's fixed windows: with fixed windows 10 tries at 59 s and 10 more at 61 s both passed
    (17 wrong PINs in 5.3 s across a window's edge).

    Each window is counted in :data:`SLIDES` buckets in the shared cache (``add`` then ``incr``,
    atomic across workers); a try is refused when the current bucket and the ``SLIDES`` before it
    (which cover every window ending now) hold more than the rate, so at most ``rate`` tries
    pass in any window (a refused try counts too: an attacker who keeps trying stays limited).
    """
    from django.core.cache import cache
    from django_ratelimit.core import _split_rate

    limit, period = _split_rate(rate)
    width = max(1, period // SLIDES)
    now = int(time.time()) // width
    digest = hashlib.sha256(f"{group}\0{key}".encode("utf-8", "surrogateescape")).hexdigest()[:32]
    names = [f"rl:slide:{digest}:{width}:{now - i}" for i in range(SLIDES + 1)]
    cache.add(names[0], 0, period + 2 * width)
    try:
        mine = cache.incr(names[0])
    except ValueError:  # expired between add and incr
        cache.set(names[0], 1, period + 2 * width)
        mine = 1
    before = cache.get_many(names[1:])
    return mine + sum(int(v) for v in before.values()) > limit


def client_ip(request) -> str:
    """The client's address as the rate limits key it (django-ratelimit's ``"ip"``: IPv6 by its
    /64, the address the ASGI layer resolved; http/clients.py)."""
    from django_ratelimit.core import _get_ip

    return _get_ip(request)
