"""Answers for a worker that is busy or failed: JSON on the API, a small page elsewhere.

``BusyMiddleware`` turns load (``http.capacity.is_busy``: no slot, no pooled connection, a
database refusing clients or down) raised by a view into 503 busy (429 for a match's writers); ``server_error`` is the project's
handler500, for what fails outside a view: busy again when it was load, and on the API the
``{"error": {"code", "message"}}`` shape even for an unexpected failure (never an HTML 500).
"""
from __future__ import annotations

import re
import sys

from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin
from django.views import defaults

from ..core.i18n import both
from ..http import capacity, errors


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: busy (503) when the failure was load, a JSON 500 on the API, else Django's page."""
    exc = sys.exc_info()[1]
    if capacity.is_busy(exc):
        return capacity.answer_busy(request, exc)
    if capacity.is_api(request):
        return errors.request_error("server_error", "Erro interno do servidor").json()
    return defaults.server_error(request)


# Paths whose callers are programs (the API, broadcast feeds, the tablet's engine archive): their
# 404 is JSON in Portuguese and English like their other errors, never Django's English HTML page.
JSON_PATHS = re.compile(r"^/(api/|tablet/engine/|(matches|tables)/[^/]+/feed(\.|/|$))")


def not_found(request: HttpRequest, exception=None) -> HttpResponse:
    """handler404: JSON ``{"error": {"code", "message"}}`` on the API, feed and engine paths;
    elsewhere a small page in Portuguese and English (a screen's or a player's link is opened by
    anyone, and Django's own page says "Not Found" in English only), with a way to the tables."""
    if JSON_PATHS.match(request.path):
        resp = errors.request_error("not_found", "Endereço não encontrado").json()
        resp["Access-Control-Allow-Origin"] = "*"
        return resp
    return defaults.page_not_found(request, exception, template_name="scoreboard/not_found.html")


class BusyMiddleware(MiddlewareMixin):
    """A view that raised for load answers 503 busy (and is not logged as a server error).

    A ``MiddlewareMixin`` so it runs sync or async alike (see ``LangQueryMiddleware``)."""

    def process_exception(self, request, exc):
        if capacity.is_busy(exc):
            return capacity.answer_busy(request, exc)
        return None


class NotAllowedMiddleware(MiddlewareMixin):
    """A 405 that Django left empty (``require_POST`` and the like, e.g. a GET of
    ``/matches/<id>/referee/event/``) says what went wrong in Portuguese and English, as every
    other error does; the methods allowed are the ``Allow`` header's. A body already there (the
    API's JSON) is kept, and HEAD gets none."""

    def process_response(self, request, response):
        if response.status_code == 405 and not response.content and request.method != "HEAD" \
                and not getattr(response, "streaming", False):
            allowed = response.get("Allow", "")
            response.content = (both("Método não permitido aqui (use %(allowed)s)", allowed=allowed)
                                + "\n").encode()
            response["Content-Type"] = "text/plain; charset=utf-8"
            response["Content-Length"] = str(len(response.content))
        return response
