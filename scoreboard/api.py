"""JSON API: read a match and its log; append an event with a referee's bearer token."""
from __future__ import annotations

import json

from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from . import services
from .auth import credential_for_token
from .models import Match

MAX_BODY = 64 * 1024  # an event is a few hundred bytes; anything near this is not a tap


def error(status: int, code: str, pt: str, en: str, **extra) -> JsonResponse:
    """``{"error": {"code", "message"}}`` with the message in Portuguese and English."""
    return JsonResponse({"error": {"code": code, "message": f"{pt} / {en}"}, **extra}, status=status)


@require_GET
def match_detail(request: HttpRequest, match_id: int) -> JsonResponse:
    """``{"id", "seq", "config", "state"}``."""
    get_object_or_404(Match, pk=match_id)
    snap = services.snapshot(match_id)
    return JsonResponse({"id": match_id, "seq": snap.seq, "config": snap.match.config,
                         "state": snap.state})


@csrf_exempt  # bearer-token API: no cookies are trusted, so there is no CSRF to guard against
@require_http_methods(["GET", "POST"])
def match_events(request: HttpRequest, match_id: int) -> JsonResponse:
    """GET: the log. POST: append one event (see :func:`post_event`)."""
    match = get_object_or_404(Match, pk=match_id)
    if request.method == "POST":
        return post_event(request, match)
    return JsonResponse({"events": [
        {"seq": e.seq, "event": e.event, "at": e.at.isoformat(), "description": e.description}
        for e in services.events_of(match_id)]})


def post_event(request: HttpRequest, match: Match) -> JsonResponse:
    """Append ``{"event", "expected_seq"?, "key"?}`` as the match's referee.

    201 ``{"seq", "state", "description"}``; a repeated key answers the first answer again;
    401 without a token, 403 with a token that is not this match's; 400 for a body that is not
    the expected JSON object; 409 ``{"error", "seq"}`` for a stale ``expected_seq``; 422 for an
    event the rules reject.
    """
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        resp = error(401, "unauthorized", "Informe o token do árbitro (Authorization: Bearer …)",
                     "Send the referee token (Authorization: Bearer …)")
        resp["WWW-Authenticate"] = 'Bearer realm="scoreboard"'
        return resp
    cred = credential_for_token(token.strip())
    if cred is None or cred.match_id != match.pk:
        return error(403, "forbidden", "Este token não pode registrar eventos neste jogo",
                     "This token may not enter events for this match")
    if len(request.body) > MAX_BODY:
        return error(400, "bad_request", "Corpo grande demais", "Body too large")
    try:
        body = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError):
        return error(400, "bad_request", "JSON inválido", "Malformed JSON")
    if not isinstance(body, dict) or "event" not in body:
        return error(400, "bad_request", 'Esperado um objeto {"event": {...}}',
                     'Expected an object {"event": {...}}')
    expected = body.get("expected_seq")
    if expected is not None and (type(expected) is not int or expected < 0):
        return error(400, "bad_request", "expected_seq deve ser um inteiro ≥ 0",
                     "expected_seq must be an integer ≥ 0")
    key = body.get("key")
    if key is not None and (not isinstance(key, str) or not 1 <= len(key) <= 100):
        return error(400, "bad_request", "key deve ser um texto de 1 a 100 caracteres",
                     "key must be a string of 1 to 100 characters")
    try:
        answer = services.append_event(match.pk, body["event"], expected_seq=expected, key=key,
                                       entered_by=f"api:{cred.pk}")
    except services.Conflict as c:
        return error(409, "conflict", f"O jogo já está no evento {c.seq}; atualize e tente de novo",
                     f"The match is already at event {c.seq}; refresh and try again", seq=c.seq)
    except services.SinucaError as e:
        return JsonResponse({"error": e.as_dict()}, status=422)
    resp = JsonResponse(answer.as_json(), status=201)
    if answer.repeated:
        resp["Idempotent-Replayed"] = "true"
    return resp
