"""Public pages and JSON that a cache in front may keep: a final's audience is served by nginx
or a CDN, not by the workers.

:func:`cacheable` gives a 200 answer an ``ETag`` (its body's SHA-256, so two workers give the
same tag for the same text) and :data:`CACHE_CONTROL`: kept 10 s, served stale up to a minute
while the cache asks again. A request whose ``If-None-Match`` names that tag gets 304 with no
body. What changes in the meantime reaches the open pages by push (the board socket), so the
10 s never hold a phone back; a freshly opened page is at most that old before its socket's
first message (the page prints the digest of its board; the socket sends the newer one).
"""
from __future__ import annotations

import hashlib
from functools import wraps

from django.http import HttpResponseNotModified

CACHE_CONTROL = "public, max-age=10, stale-while-revalidate=60"


def _tags(header: str) -> set[str]:
    """The entity tags of an ``If-None-Match`` header, weak or strong alike (a gzip layer in
    between weakens ours: ``W/"…"``)."""
    return {t.strip().removeprefix("W/") for t in header.split(",") if t.strip()}


def cacheable(view):
    """Decorate a public read view: a 200 answer gets ``ETag`` and ``Cache-Control``
    (:data:`CACHE_CONTROL`); 304 Not Modified when the client already has that body. Other
    statuses go out as the view made them."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        resp = view(request, *args, **kwargs)
        if resp.status_code != 200 or getattr(resp, "streaming", False):
            return resp
        tag = '"%s"' % hashlib.sha256(resp.content).hexdigest()[:32]
        resp["ETag"] = tag
        resp["Cache-Control"] = CACHE_CONTROL
        have = _tags(request.META.get("HTTP_IF_NONE_MATCH", ""))
        if tag in have or "*" in have:
            nm = HttpResponseNotModified()
            nm["ETag"] = tag
            nm["Cache-Control"] = CACHE_CONTROL
            return nm
        return resp

    return wrapped
