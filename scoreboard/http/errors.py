"""The one mapping from refusals to HTTP answers: a status and ``{"error": {"code", "message"}}``.

Every error the JSON API, the feeds, the desk and the referee's htmx views answer goes through
here: the request's own faults (:data:`REQUEST`), the core's refusals (:data:`CORE`: a stale
``expected_seq``, a reused key), and every refusal of the rules engine (``sinuca.SinucaError``
and its subclasses, one per contract code), of the desk's operations (``OperationRefused``, a
``SinucaError`` too) and of the tournament formats (``TournamentError``), which are all 422. The
status of a code is :func:`status_of`; the answer to an exception is :func:`refusal`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from django.http import HttpRequest, HttpResponse, JsonResponse

from sinuca import SinucaError
from tournament import TournamentError

from ..core import log
from ..core.graphics import GraphicsError
from ..core.i18n import both, engine_lang
from ..core.limits import Busy, MatchBusy

REQUEST = {
    "bad_request": 400, "unauthorized": 401, "forbidden": 403, "csrf": 403, "not_found": 404,
    "no_match": 404, "unknown_field": 404, "method_not_allowed": 405, "too_large": 413,
    "rate_limited": 429, "match_busy": 429, "server_error": 500, "busy": 503,
}
"""What the HTTP layer refuses before (or around) the core: code -> status."""

CORE = {"conflict": 409, "key_reused": 422}
"""The core's own refusals of an append: code -> status."""

REFUSED = 422
"""Any rule's refusal (the engine's contract codes, the desk's operations, the tournament's)."""


def status_of(code: str) -> int:
    """The HTTP status of an error code: the request's, the core's, else a rule's refusal (422)."""
    return REQUEST.get(code) or CORE.get(code) or REFUSED


@dataclass(frozen=True)
class Answer:
    """One error answer: its status, code and message, and any extra keys of the body."""

    status: int
    code: str
    message: str
    extra: dict = field(default_factory=dict)

    def body(self) -> dict:
        """``{"error": {"code", "message"}, **extra}``."""
        return {"error": {"code": self.code, "message": self.message}, **self.extra}

    def json(self) -> JsonResponse:
        """The answer as the API's JSON response."""
        return JsonResponse(self.body(), status=self.status)


def request_error(code: str, msgid: str, **params) -> Answer:
    """The answer to a fault of the request: ``msgid`` of the server's catalogue, in Portuguese
    and English (``core.i18n.both``)."""
    return Answer(status_of(code), code, both(msgid, **params))


def refusal(exc: BaseException, *, one_language: bool = False) -> Answer:
    """The answer to a refusal of the core or the rules (``TypeError`` for anything else).

    The message is ``"<pt> / <en>"``, or with ``one_language`` the active language's only (the
    desk's and the tablet's screens speak one language)."""
    if isinstance(exc, log.Conflict):
        return Answer(status_of("conflict"), "conflict", both(
            "O jogo já está no evento %(seq)s; atualize e tente de novo", seq=exc.seq), {"seq": exc.seq})
    if isinstance(exc, log.KeyReused):
        return Answer(status_of(exc.code), exc.code, both(
            "Esta key já foi usada para outro evento (seq %(seq)s); use uma nova", seq=exc.seq))
    if isinstance(exc, SinucaError):
        pt, en = exc.message_pt, exc.message_en
    elif isinstance(exc, TournamentError):
        pt, en = exc.pt, exc.en
    elif isinstance(exc, GraphicsError):  # a stream graphics switch or option the request got wrong
        return Answer(status_of("bad_request"), "bad_request", f"{exc.pt} / {exc.en}")
    elif isinstance(exc, MatchBusy):
        return Answer(status_of("match_busy"), "match_busy", both(
            "Muitos toques neste jogo ao mesmo tempo; tente de novo em instantes"))
    elif isinstance(exc, Busy):
        return Answer(status_of("busy"), "busy", both("Servidor ocupado; tente de novo em instantes"))
    else:
        raise TypeError(f"not a refusal: {type(exc).__name__}")
    message = (en if engine_lang() == "en" else pt) if one_language else f"{pt} / {en}"
    return Answer(status_of(exc.code), exc.code, message)


CSRF_MESSAGE = ("A página expirou ou não veio deste site (token CSRF ausente ou inválido); "
                "recarregue a página e tente de novo")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Django's ``CSRF_FAILURE_VIEW``: a write whose CSRF token is missing or wrong (a page left
    open past its session, a request from another site) is refused with 403 in Portuguese and
    English, nothing changed: ``{"error": {"code": "csrf", "message"}}`` to a JSON request (its
    body or its ``Accept``), plain text otherwise. Django's own page was in English only."""
    answer = request_error("csrf", CSRF_MESSAGE)
    wants_json = ("json" in (request.content_type or "") or "json" in request.headers.get("Accept", "")
                  or request.path.startswith("/api/"))
    if wants_json:
        return answer.json()
    return HttpResponse(answer.message, status=answer.status, content_type="text/plain; charset=utf-8")
