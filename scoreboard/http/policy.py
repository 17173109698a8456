"""The Content-Security-Policy of every response, and who may frame which page.

django-csp's middleware writes ``settings.CONTENT_SECURITY_POLICY`` on every response, static
files included (it sits outside WhiteNoise), so the tablet's engine worker carries it too. This
subclass decides framing in one place, by the route's name:

- the stream and TV screens (``EMBEDDABLE``) may be framed by anyone: OBS, a club's own page;
- the referee tablet, a table's stream controls, the desk and the admin (``NEVER_FRAMED``, the
  ``admin`` namespace) by no one: ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY`` (a tap or a result clicked
  through an invisible frame is clickjacking);
- every other page by its own origin only (the display guide previews screens in iframes).
"""
from __future__ import annotations

from csp.middleware import CSPMiddleware, PolicyParts
from django.http import HttpRequest, HttpResponseBase

EMBEDDABLE = frozenset({"tv", "overlay", "jumbotron", "table_tv", "table_overlay", "table_graphics"})
NEVER_FRAMED = frozenset({
    "referee", "referee_event", "foul_dialog", "foul_preview", "foul_submit", "art28", "table_referee",
    "table_controls",
    "desk", "desk_action", "desk_results_csv", "desk_standings_csv", "desk_bracket_pdf",
})


def framing(request: HttpRequest) -> str:
    """``"any"``, ``"none"`` or ``"self"``: who may frame the page answering ``request``."""
    match = getattr(request, "resolver_match", None)
    if match is None:  # a static or media file, or no route
        return "self"
    if "admin" in match.namespaces or match.url_name in NEVER_FRAMED:
        return "none"
    return "any" if match.url_name in EMBEDDABLE else "self"


FRAME_ANCESTORS = {"any": ["*"], "none": ["'none'"], "self": ["'self'"]}


class PagePolicyMiddleware(CSPMiddleware):
    """django-csp's middleware with ``frame-ancestors`` and ``X-Frame-Options`` set by ``framing``."""

    def get_policy_parts(self, request: HttpRequest, response: HttpResponseBase,
                         report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        parts.replace = {**(parts.replace or {}), "frame-ancestors": FRAME_ANCESTORS[framing(request)]}
        return parts

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        # Django's XFrameOptionsMiddleware (further in) wrote SAMEORIGIN; the header is the
        # fallback of browsers without frame-ancestors, so it must say the same thing.
        who = framing(request)
        if who == "any":
            response.headers.pop("X-Frame-Options", None)
        elif who == "none":
            response["X-Frame-Options"] = "DENY"
        return super().process_response(request, response)
