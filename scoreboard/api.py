"""JSON API: read a match, its log and its match file; append an event with a referee's bearer
token; this worker's live-path counters."""
from __future__ import annotations

import json
import os
import resource
from functools import wraps

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from sinuca import rulebook

from .core import access, log, overlay
from .core.i18n import both_texts
from .http import capacity, errors
from .core.credentials import token_known
from .core.models import Match, Table
from .core.tables import table_now
from .live import graphics as live_graphics
from .live import render
from .live.hub import hub
from .reports import cache as report_cache
from .reports import exports

MAX_BODY = 64 * 1024  # an event is a few hundred bytes; anything near this is not a tap


def error(code: str, msgid: str, **params) -> JsonResponse:
    """``{"error": {"code", "message"}}``: the status of ``code`` and the message ``msgid`` of
    the catalogue in Portuguese and English (``http.errors``, the one mapping)."""
    return errors.request_error(code, msgid, **params).json()


def method_not_allowed(methods) -> JsonResponse:
    """The API's 405, with ``Allow``."""
    resp = error("method_not_allowed", "Método não permitido")
    resp["Allow"] = ", ".join(methods)
    return resp


def json_api(*methods: str):
    """Answer only ``methods`` (405 otherwise) and an unknown match with a JSON 404, so that every
    error of the API has the same ``{"error": {"code", "message"}}`` shape.

    CSRF-exempt: the API trusts no cookie (writes need the bearer token), and a POST to a
    read-only path must get this JSON 405, not the CSRF middleware's HTML 403 page."""

    # HEAD is answered like GET, without the body (the server drops it): a link checker or a
    # cache probe gets the real status and headers, not a 405.
    allowed = (*methods, "HEAD") if "GET" in methods and "HEAD" not in methods else methods

    def decorate(view):
        @csrf_exempt
        @wraps(view)
        def wrapped(request: HttpRequest, match_id: int) -> JsonResponse:
            if request.method not in allowed:
                return method_not_allowed(allowed)
            try:
                match = Match.objects.get(pk=match_id)
            except (Match.DoesNotExist, OverflowError):  # OverflowError: an id beyond SQLite's integers
                return error("not_found", "Jogo não encontrado")
            return view(request, match)

        return wrapped

    return decorate


def body_length(request: HttpRequest) -> int:
    """The declared body length (0 when absent or unreadable)."""
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def too_large() -> JsonResponse:
    return error("too_large", "Corpo grande demais (máximo %(max)s bytes)", max=MAX_BODY)


@capacity.anonymous_read
@json_api("GET")
def match_detail(request: HttpRequest, match: Match) -> JsonResponse:
    """``{"id", "seq", "config", "state"}``."""
    match_id = match.pk
    snap = log.snapshot(match_id)
    return JsonResponse({"id": match_id, "seq": snap.seq, "config": snap.match.config,
                         "state": snap.state})


PAGE_MAX = 1000  # events per page of GET /events/ (a 3,000-event log was 750 KB in one answer)


def _int_param(request: HttpRequest, name: str, default: int) -> int | None:
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value >= 0 else None


def bearer_token(request: HttpRequest) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, None without one."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def unauthorized() -> JsonResponse:
    resp = error("unauthorized", "Informe o token do árbitro (Authorization: Bearer …)")
    resp["WWW-Authenticate"] = 'Bearer realm="scoreboard"'
    return resp


def writer(view):
    """A POST that appends: 413 for a declared body over ``MAX_BODY``, 401 without a bearer
    token, then one of the match's writer slots
    (``capacity.match_writer``: 429 ``match_busy`` at once when they are all taken), both
    before the first query, so a flood of one match's taps waits on no pooled connection."""
    gated = capacity.match_writer(view)

    @wraps(view)
    def wrapped(request: HttpRequest, match_id: int):
        if request.method == "POST" and body_length(request) > MAX_BODY:
            return too_large()  # whoever sends it, as post_event does
        if request.method == "POST" and bearer_token(request) is None:
            return unauthorized()
        return gated(request, match_id)

    return wrapped


@csrf_exempt  # bearer-token API: no cookies are trusted, so there is no CSRF to guard against
@capacity.report_view  # the anonymous GET only; the referee's POST passes straight through
@writer
@json_api("GET", "POST")
def match_events(request: HttpRequest, match: Match) -> JsonResponse:
    """GET: one page of the log, ``{"events": [...], "after", "limit", "next"}``: the events with
    seq > ``?after=`` (default 0), at most ``?limit=`` (default and maximum ``PAGE_MAX``);
    ``next`` is the URL of the following page, null on the last one.
    POST: append one event (see :func:`post_event`)."""
    if request.method == "POST":
        return post_event(request, match)
    after, limit = _int_param(request, "after", 0), _int_param(request, "limit", PAGE_MAX)
    if after is None or limit is None or limit == 0:
        return error("bad_request", "after e limit devem ser inteiros (limit ≥ 1)")
    limit = min(limit, PAGE_MAX)
    page = log.events_page(match.pk, after, limit + 1)
    more = len(page) > limit
    page = page[:limit]
    nxt = None
    if more:
        nxt = f"{request.path}?{urlencode({'after': page[-1].seq, 'limit': limit})}"
    return JsonResponse({"events": [
        {"seq": e.seq, "event": e.event, "at": e.at.isoformat(), "description": e.description}
        for e in page], "after": after, "limit": limit, "next": nxt})


def post_event(request: HttpRequest, match: Match) -> JsonResponse:
    """Append ``{"event", "expected_seq"?, "key"?}`` as the match's referee.

    201 ``{"seq", "state", "description"}``; a repeated key answers the first answer again;
    401 without a token, 403 with a token that is not this match's; 429 ``match_busy`` (with
    ``Retry-After``) when ``MATCH_WRITERS`` taps of this match are already being stored by this
    worker, 503 ``busy`` when the database is out of connections or down: nothing was stored
    by either, send the same key again; 413 for a body over
    ``MAX_BODY`` (refused before it is read, whoever sends it); 400 for a body that is not the
    expected JSON object; 409 ``{"error", "seq"}`` for a stale ``expected_seq``; 422 for an
    event the rules reject.
    """
    if body_length(request) > MAX_BODY:
        return too_large()
    token = bearer_token(request)
    if token is None:
        return unauthorized()
    actor = access.Actor.of_token(token)  # the API trusts no cookie: the token alone
    cred = actor.credential()
    if cred is None or not access.may("match.score", actor, match.pk):
        return error("forbidden", "Este token não pode registrar eventos neste jogo")
    try:
        raw = request.body
    except RequestDataTooBig:  # over DATA_UPLOAD_MAX_MEMORY_SIZE without a truthful Content-Length
        return too_large()
    if len(raw) > MAX_BODY:
        return too_large()
    try:
        body = json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: "[[[[…" nested deep
        return error("bad_request", "JSON inválido")
    if not isinstance(body, dict) or "event" not in body:
        return error("bad_request", 'Esperado um objeto {"event": {...}}')
    expected = body.get("expected_seq")
    if expected is not None and (type(expected) is not int or expected < 0):
        return error("bad_request", "expected_seq deve ser um inteiro ≥ 0")
    key = body.get("key")
    if key is not None and not log.valid_key(key):
        return error("bad_request", "key deve ser um texto de 1 a 100 caracteres visíveis")
    try:
        answer = log.append_event(match.pk, body["event"], expected_seq=expected, key=key,
                                       entered_by=f"api:{cred.pk}")
    except (log.Conflict, log.KeyReused, log.SinucaError) as e:
        return errors.refusal(e).json()
    resp = JsonResponse(answer.as_json(), status=201)
    if answer.repeated:
        resp["Idempotent-Replayed"] = "true"
    return resp


def _export_bytes(match: Match) -> tuple[int, bytes]:
    doc = exports.export_document(match)
    doc["events"] = doc["events"][:match.seq]  # exactly the seq it is cached under
    return match.seq, json.dumps(doc, ensure_ascii=False).encode()


@capacity.report_view
@json_api("GET")
def export_json(request: HttpRequest, match: Match) -> HttpResponse:
    """``GET /api/matches/<id>/export/``: the match file; ``?download=1`` saves it as a file.
    Served from the shared cache per (match, seq)."""
    body = report_cache.cached("export", match, "", lambda: _export_bytes(match))
    resp = HttpResponse(body, content_type="application/json")
    if request.GET.get("download"):
        resp["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json"'
    return resp


def _rss_kb() -> int:
    """Resident memory of this process now, in KiB (Linux /proc; else the peak)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


@csrf_exempt
def live_stats(request: HttpRequest) -> JsonResponse:
    """``GET /api/live/``: ``{"pid", "rss_kb", "sockets", "renders", "messages", "frames_built",
    "sends", "last_fanout_ms"}`` of this worker, for benchmarks and operators. Renders count
    changes rendered by this worker (once per change, the page kinds and languages someone
    watches at once), views_rendered the page kinds rendered by them, frames_built the websocket
    frames built from them.

    Off unless ``SINUCA_LIVE_STATS=1`` (404 otherwise): it tells nothing secret, but there is no
    reason to publish a server's insides by default.
    """
    if not getattr(settings, "LIVE_STATS", False):
        raise Http404
    if request.method not in ("GET", "HEAD"):
        return method_not_allowed(["GET"])
    return JsonResponse({"pid": os.getpid(), "rss_kb": _rss_kb(), "sockets": hub.sockets.count(),
                         "renders": render.RENDERS["changes"], "views_rendered": render.RENDERS["views"], **hub.stats})


SWITCHES = {"show": True, "hide": False, "on": True, "off": False, True: True, False: False,
            "1": True, "0": False, "true": True, "false": False}


def _switch(value, current: bool) -> bool | None:
    """A switch's new value from ``show``/``hide``/``toggle`` (or true/false), None if invalid."""
    if value == "toggle":
        return not current
    if isinstance(value, str):
        value = value.strip().lower()
    return SWITCHES.get(value) if isinstance(value, (str, bool)) else None


OVERLAY_CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, Content-Type",
    "Access-Control-Max-Age": "86400",
}
"""CORS of the overlay control endpoint. It is meant to be called from a browser too (a control
page on a streaming PC, Companion's web buttons): it trusts no cookie, only the bearer token, so
answering any origin's preflight exposes nothing a token holder could not already do."""


def _with_cors(resp: HttpResponse) -> HttpResponse:
    for k, v in OVERLAY_CORS.items():
        resp[k] = v
    return resp


def _control_body(request: HttpRequest) -> dict | JsonResponse:
    """The switches asked for in the body: JSON, or a form body (``curl -d bar=hide``)."""
    if not request.body:
        return {}
    ctype = request.content_type or ""
    if ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return dict(request.POST.items())
    try:
        body = json.loads(request.body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return error("bad_request", "JSON inválido (ou envie bar=hide como formulário)")
    if not isinstance(body, dict):
        return error("bad_request", 'Esperado um objeto {"bar": …, "stats": …}')
    return body


@csrf_exempt  # bearer token only, like the event API
def overlay_control(request: HttpRequest, match_id: int | None = None, table_id: int | None = None) -> HttpResponse:
    """``POST /api/matches/<id>/overlay/`` or ``/api/tables/<id>/overlay/`` (the match now on the
    table): show or hide the overlays' score bar and statistics panel, and the rule's first words
    in the foul and retorno pop-ups (``words``, off by default), from a Stream Deck or Bitfocus
    Companion. ``{"bar": "show"|"hide"|"toggle", "stats": …, "words": …}`` as JSON, as a form body
    (``curl -d bar=hide``) or as query parameters; the overlays change at once (pushed). ``GET``
    reads the switches; ``OPTIONS`` answers a browser's CORS preflight (see :data:`OVERLAY_CORS`).

    Auth: ``Authorization: Bearer <token>``, the table's overlay token (admin, Mesas → "Gerar
    token do overlay") or the match's referee token. 401 without a token or with one that is no
    token at all, 403 with a token that may not control this match or table, 404 unknown match or
    table, 400 a value that is not show/hide/toggle or a switch given twice with different values
    (query and body, or twice in either). The switches belong to the table (``core.overlay``): a table that has never
    had a match takes them too, for its first match. Answers ``{"match", "bar", "stats", "words", "ver"}``
    (a table with no match: ``"match"`` and ``"ver"`` null, its own switches), and for a table
    ``"graphics"`` too, as ``GET`` does; ``ver`` moves only when a switch of the match actually
    changes.
    """
    if request.method == "OPTIONS":
        return _with_cors(HttpResponse(status=204))
    if request.method not in ("GET", "HEAD", "POST"):
        return _with_cors(method_not_allowed(["GET", "HEAD", "POST", "OPTIONS"]))
    return _with_cors(_overlay_control(request, match_id, table_id))


def _overlay_control(request: HttpRequest, match_id: int | None, table_id: int | None) -> JsonResponse:
    from .core import graphics

    table = None
    try:
        if table_id is not None:
            table = Table.objects.get(pk=table_id)
            now = table_now(table)
            # The switches belong to the table: the match now on it (else its next, else its last)
            # takes them, and a table with no match at all keeps them for its first one.
            match = now.current or now.next or now.last
        else:
            match = Match.objects.get(pk=match_id)
    except (Match.DoesNotExist, Table.DoesNotExist, OverflowError):
        return error("not_found", "Jogo ou mesa não encontrado")
    if request.method in ("GET", "HEAD"):
        return JsonResponse(_switches_json(match, table))
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or not token_known(token):
        missing = scheme.lower() != "bearer" or not token
        resp = error("unauthorized", "Informe o token do overlay da mesa ou do árbitro (Authorization: Bearer …)"
                     if missing else "Token inválido")
        resp["WWW-Authenticate"] = 'Bearer realm="scoreboard"'
        return resp
    target = access.Overlay(table.pk if table is not None else None, match.pk if match is not None else None)
    if not access.may("overlay.control", access.Actor.of_token(token), target):
        if match is None:
            return error("forbidden", "Este token não controla esta mesa")
        return error("forbidden", "Este token não controla o overlay deste jogo")
    if body_length(request) > MAX_BODY:
        return too_large()
    body = _control_body(request)
    if isinstance(body, JsonResponse):
        return body
    # a switch given twice in the URL or the form (``bar=show&bar=hide``) says two things: refused,
    # as the URL against the body is, rather than the last one winning unseen
    given = [request.GET] + ([request.POST] if request.content_type in (
        "application/x-www-form-urlencoded", "multipart/form-data") else [])
    twice = sorted({k for q in given for k, vs in q.lists() if len({str(v).strip().lower() for v in vs}) > 1})
    if twice:
        return error("bad_request", "%(names)s dado duas vezes com valores diferentes", names=", ".join(twice))
    wanted = dict(request.GET.items())
    clash = sorted(k for k in set(wanted) & set(body) if str(wanted[k]).strip().lower() != str(body[k]).strip().lower())
    if clash:
        return error("bad_request", "%(names)s dado na URL e no corpo com valores diferentes",
                     names=", ".join(clash))
    wanted.update(body)
    gfx_names = set(graphics.SWITCHES + graphics.OPTIONS) if table is not None else set()
    unknown = sorted(set(wanted) - set(overlay.NAMES) - gfx_names)
    if unknown or not wanted:
        if table is not None:
            return error("bad_request", 'Use "bar", "stats", "words" ou um gráfico (%(graphics)s) com show, hide ou toggle',
                         graphics=", ".join(graphics.SWITCHES))
        return error("bad_request", 'Use "bar", "stats" e/ou "words" com show, hide ou toggle')
    now_on = overlay.current(table) if match is None else {n: getattr(match, f"overlay_{n}") for n in overlay.NAMES}
    values = {}
    for name in overlay.NAMES:
        if name in wanted:
            value = _switch(wanted[name], now_on[name])
            if value is None:
                return error("bad_request", '"%(name)s" deve ser show, hide ou toggle', name=name)
            values[name] = value
    gfx_new = {}
    if gfx_names & set(wanted):
        try:
            gfx_new = graphics.parse({k: v for k, v in wanted.items() if k in gfx_names},
                                     graphics.current(table), _switch)
            live_graphics.check_choice(table, gfx_new)
        except graphics.GraphicsError as e:
            return errors.refusal(e).json()
    # stored by the core services, each pushed once its transaction has committed
    if gfx_new:
        graphics.apply(table, gfx_new)
    if values:
        overlay.switch(match, values, table)
        for row in (match, table):
            if row is not None:
                row.refresh_from_db()
    return JsonResponse(_switches_json(match, table))


def _switches_json(match: Match | None, table: Table | None) -> dict:
    """``{"match", "bar", "stats", "words", "ver"}`` of the match (with no match on the table, the table's
    switches, ``"match"`` and ``"ver"`` null), and for a table its ``"graphics"``."""
    out = _overlay_json(match) if match is not None else {"match": None, **overlay.current(table), "ver": None}
    if table is not None:
        from .core import graphics

        out["graphics"] = graphics.current(table)
    return out


def _overlay_json(match: Match) -> dict:
    return {"match": match.pk, "bar": match.overlay_bar, "stats": match.overlay_stats, "words": match.overlay_words,
            "ver": match.overlay_ver}


# -- competitions (issue 17) ------------------------------------------------------------------

def _competition_or_404(comp_id: int):
    from .core.models import Competition

    try:
        return Competition.objects.get(pk=comp_id)
    except (Competition.DoesNotExist, OverflowError):
        return None


@csrf_exempt
def competition_detail(request: HttpRequest, comp_id: int) -> JsonResponse:
    """``GET /api/competitions/<id>/``: the stages with every match (``match`` id once it
    exists, stage, round, group, players or placeholders, table, status
    scheduled/called/in_play/finished/walkover/bye, winner, frames), the standings, the placings
    and the champion (``core.competitions.summary``); ``?lang=en`` for English labels."""
    from .core import competitions

    if request.method not in ("GET", "HEAD"):  # HEAD: GET's answer without the body
        return method_not_allowed(["GET", "HEAD"])
    comp = _competition_or_404(comp_id)
    if comp is None:
        return error("not_found", "Competição não encontrada")
    lang = "en" if request.GET.get("lang", "").lower().startswith("en") else "pt"
    return JsonResponse(competitions.summary(comp, lang))


@csrf_exempt
def season_detail(request: HttpRequest, season_id: int) -> JsonResponse:
    """``GET /api/seasons/<id>/``: the season's etapas (competition, name, weight, finished)
    and its ranking rows (player, name, club, points, etapas, best, position), computed by
    ``tournament.ranking.season_ranking`` from each finished competition (``core.seasons``)."""
    from tournament import TournamentError

    from .core import seasons

    if request.method not in ("GET", "HEAD"):  # HEAD: GET's answer without the body
        return method_not_allowed(["GET", "HEAD"])
    try:
        return JsonResponse(seasons.summary(season_id))
    except TournamentError:
        return error("not_found", "Temporada não encontrada")


@csrf_exempt
def competition_action(request: HttpRequest, comp_id: int) -> JsonResponse:
    """``POST /api/competitions/<id>/actions/`` with the desk's token (``Authorization: Bearer``,
    printed by ``createcompetition``): one desk action (``core.competitions.perform``),
    ``{"action": …, "match": <fixture number>, …}``:

    - ``walkover`` ``{"absent": [0] | [1] | [0, 1], "reason"?}``;
    - ``call`` ``{"table": name}`` (a free table), ``move`` ``{"table": name, "confirm": true}``
      (a match in progress needs ``confirm``), ``start`` ``{"lot"?: 0|1}``, ``postpone``;
    - ``correct`` ``{"result": {"winner": 0|1, "frames": [a, b]}, "reason"}``;
    - ``redraw`` ``{"method"?, "seed"?: int, "manual"?}`` (no ``match``; until the first start),
      ``advance`` (no ``match``: call free tables);
    - ``withdraw`` ``{"entry": n}`` or ``{"player": name | "Name (Club)"}``; ``stream``
      ``{"stream": true | false}`` (flag a match for a stream table).

    200 ``{"ok": true, "competition": summary}``; 401/403 without a valid token; 400 bad body;
    404 unknown competition; 422 ``{"error": {"code", "message"}}`` for a refusal (players
    unknown, table busy, correction refused, draw locked …) — nothing changed then.
    """
    from tournament import TournamentError

    from .core import competitions

    if request.method != "POST":
        return method_not_allowed(["POST"])
    comp = _competition_or_404(comp_id)
    if comp is None:
        return error("not_found", "Competição não encontrada")
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        resp = error("unauthorized", "Informe o token da mesa de controle (Authorization: Bearer …)")
        resp["WWW-Authenticate"] = 'Bearer realm="scoreboard"'
        return resp
    if not access.may("competition.api", access.Actor.of_token(token.strip()), comp):
        return error("forbidden", "Este token não controla esta competição")
    by = f"desk:{comp.pk}"
    if body_length(request) > MAX_BODY:
        return too_large()
    try:
        body = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError):
        return error("bad_request", "JSON inválido")
    if not isinstance(body, dict) or body.get("action") not in competitions.ACTIONS:
        acts = ", ".join(competitions.ACTIONS)
        return error("bad_request", 'Esperado {"action": um de %(actions)s}', actions=acts)
    try:
        competitions.perform(comp, body, by)
    except (TournamentError, log.SinucaError) as e:  # OperationRefused (table busy …), the engine's
        return errors.refusal(e).json()
    comp.refresh_from_db()
    return JsonResponse({"ok": True, "competition": competitions.summary(comp)})


def _rules_lang_error(request: HttpRequest) -> JsonResponse | None:
    """400 for a ``?lang=`` of no language the rules are served in (the text is Portuguese; the
    API answers it whatever the language, so only the name is checked)."""
    lang = request.GET.get("lang")
    if lang is None or lang.lower() in ("pt", "pt-br", "en"):
        return None
    return errors.Answer(400, "bad_request", both_texts({
        "pt": f"Idioma desconhecido {lang[:20]!r}: pt, pt-br ou en",
        "en": f"Unknown language {lang[:20]!r}: pt, pt-br or en"})).json()


@csrf_exempt
def rules_index(request: HttpRequest) -> JsonResponse:
    """``GET /api/rules/``: the CBBS 2008 rules text, ``{"source", "titles": [{"number", "name",
    "articles": [{"number", "title", "text", "items": [{"id", "text"}]}]}]}``, verbatim, ids as
    ``docs/rules.md`` numbers them (``sinuca.rulebook``)."""
    if request.method not in ("GET", "HEAD"):
        return method_not_allowed(["GET", "HEAD"])
    return _rules_lang_error(request) or JsonResponse(rulebook.load().as_dict())


@csrf_exempt
def rules_article(request: HttpRequest, ref: str) -> JsonResponse:
    """``GET /api/rules/<article>/``: one article as in :func:`rules_index`; an item id
    (``25.5.2``) answers its article with ``"item": {"id", "text"}``. An article or item the text
    does not have is a 404 saying so in Portuguese and English."""
    if request.method not in ("GET", "HEAD"):
        return method_not_allowed(["GET", "HEAD"])
    if (bad := _rules_lang_error(request)) is not None:
        return bad
    book = rulebook.load()
    found = book.find(ref)
    if found is None:
        return errors.Answer(404, "not_found", both_texts({
            "pt": f"As regras não têm o artigo {ref[:20]} (artigos 1 a {len(book.articles)})",
            "en": f"The rules have no article {ref[:20]} (articles 1 to {len(book.articles)})"})).json()
    art, item = found
    body = book.article_dict(art)
    if item is not None:
        body["item"] = {"id": item.id, "text": item.text}
    return JsonResponse(body)


FEDERATION_MAX_BODY = 256 * 1024  # DATA_UPLOAD_MAX_MEMORY_SIZE; the sender keeps a batch under 200 KB


def _venue_or_401(request: HttpRequest):
    """The venue of the request's bearer token (``access``: ``federation.venue``), else the 401
    answer: a wrong or revoked token stores nothing."""
    from .core import federation

    token = bearer_token(request)
    if not access.may("federation.venue", access.Actor.of_token(token)):
        resp = error("unauthorized", "Token do clube inválido ou revogado (Authorization: Bearer …)")
        resp["WWW-Authenticate"] = 'Bearer realm="federation"'
        return None, resp
    return federation.venue_of_token(token), None


@csrf_exempt
def federation_records(request: HttpRequest) -> JsonResponse:
    """``POST /api/federation/records/`` with a venue's token: ``{"records": [{"key", "kind",
    "match", "seq", "payload"}]}`` (at most 200, in the venue's outbox order), stored as ordinary
    rows (``core.federation.ingest``). 200 ``{"acked": [keys]}``; 409 ``{"error": {"code": "gap"
    | "owned_elsewhere"}, "acked", "expected"?: {"match", "seq"}, "key"}`` when a record stopped
    the batch (the acked ones before it are stored); 422 for a record refused as malformed
    (``bad_record``) or by the engine (``rejected``); 401 for a wrong or revoked token (nothing
    stored); 400 for a body that is not JSON."""
    from .core import federation

    if request.method != "POST":
        return method_not_allowed(["POST"])
    venue, refused = _venue_or_401(request)
    if refused is not None:
        return refused
    if body_length(request) > FEDERATION_MAX_BODY:
        return error("too_large", "Corpo grande demais (máximo %(max)s bytes)", max=FEDERATION_MAX_BODY)
    try:
        body = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError, RequestDataTooBig):
        return error("bad_request", "JSON inválido")
    records = body.get("records") if isinstance(body, dict) else None
    acked, stop = federation.ingest(venue, records)
    if stop is None:
        return JsonResponse({"acked": acked})
    status = {"gap": 409, "owned_elsewhere": 409, "busy": 503}.get(stop.code, 422)
    return JsonResponse({"error": {"code": stop.code, "message": both_texts({"pt": stop.pt, "en": stop.en})}, "acked": acked,
                         **stop.extra}, status=status)


@csrf_exempt
def federation_registry(request: HttpRequest) -> JsonResponse:
    """``GET /api/federation/registry/`` with a venue's token: the registry a venue pulls,
    ``{"clubs": [{"federation_id", "name"}], "players": [{"federation_id", "name", "club",
    "club_id"}], "seasons": [{"id", "name", "ranking": [...]}]}`` (``core.federation.registry``);
    401 for a wrong or revoked token."""
    from .core import federation

    if request.method not in ("GET", "HEAD"):
        return method_not_allowed(["GET", "HEAD"])
    _venue, refused = _venue_or_401(request)
    if refused is not None:
        return refused
    return JsonResponse(federation.registry())


# -- the federation's public JSON: players, careers, head-to-heads, a season's ranking ---------

def _public_json(view):
    """A public read of the JSON API: GET and HEAD only (405 otherwise), gzipped, in a
    spectator's read slot, cacheable (``ETag``, ``Cache-Control: public, max-age=10, stale-while-revalidate=60``,
    304 on ``If-None-Match``)."""
    from django.views.decorators.gzip import gzip_page

    from .http import public_cache

    inner = gzip_page(capacity.spectator_page(public_cache.cacheable(view), as_json=True))

    @csrf_exempt
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return method_not_allowed(["GET", "HEAD"])
        return inner(request, *args, **kwargs)

    return wrapped


def _player_or_404(key):
    from .reports import careers

    player = careers.player_by_id(key)
    if player is None:
        return None, error("not_found", "Jogador não encontrado")
    return player, None


@_public_json
def players_search(request: HttpRequest) -> JsonResponse:
    """``GET /api/players/?q=<name>``: ``[{"id", "name", "club", "club_id"}]``, the players whose
    name holds every word of ``q`` (accents and case ignored), by name, at most 50; ``id`` is the
    federation id where the federation registered the player, else the local id; ``club_id`` the
    federation id of his club, None when it is not registered."""
    from .reports import careers

    return JsonResponse(careers.search(request.GET.get("q", "")[:100]), safe=False)


@_public_json
def clubs_list(request: HttpRequest) -> JsonResponse:
    """``GET /api/clubs/``: ``[{"id", "name", "players": [{"id", "name"}]}]``, every club by name
    (``reports.careers.clubs``): ``id`` the club's federation id (None for a club name no
    registered club has), each player's ``id`` his public id (as ``/api/players/`` gives it)."""
    from .reports import careers

    return JsonResponse(careers.clubs(), safe=False)


@_public_json
def player_career(request: HttpRequest, key: str) -> JsonResponse:
    """``GET /api/players/<id>/career/``: the player's career (``reports.careers.career``:
    matches, frames won and lost, win %, highest break, breaks 30+/50+/100+, by season, last
    results); 404 ``not_found`` for an unknown id."""
    from .reports import careers

    player, missing = _player_or_404(key)
    return missing or JsonResponse(careers.career(player))


@_public_json
def player_h2h(request: HttpRequest, a: str, b: str) -> JsonResponse:
    """``GET /api/players/<a>/h2h/<b>/``: every match between the two, oldest first, with frame
    scores, and the tally (``reports.careers.head_to_head``); 404 for an unknown id, 400
    ``bad_request`` when both are the same player."""
    from .reports import careers

    pa, missing = _player_or_404(a)
    if missing:
        return missing
    pb, missing = _player_or_404(b)
    if missing:
        return missing
    if pa.pk == pb.pk:
        return error("bad_request", "Um confronto direto precisa de dois jogadores diferentes")
    return JsonResponse(careers.head_to_head(pa, pb))


@_public_json
def season_ranking(request: HttpRequest, season_id: int) -> JsonResponse:
    """``GET /api/seasons/<id>/ranking/``: ``{"id", "name", "ranking": [{"position", "player"
    (public id), "name", "club", "points", "etapas", "best", "parts": [{"competition", "name",
    "placing", "points"}]}]}``, each point with the etapa and placing that earned it; 404 for
    an unknown season."""
    from .core import seasons
    from .core.models import Player, Season
    from .reports import careers

    season = Season.objects.filter(pk=season_id).first()
    if season is None:
        return error("not_found", "Temporada não encontrada")
    rows = seasons.ranking_detail(season)
    ids = {p.pk: careers.public_id(p) for p in Player.objects.filter(pk__in=[r["player"] for r in rows])}
    return JsonResponse({"id": season.pk, "name": season.name,
                         "ranking": [{**r, "player": ids.get(r["player"], str(r["player"]))} for r in rows]})
