"""``?lang=en`` (or ``pt-br``) chooses the language of that one page; the referee's pages and the
API, the desk and the admin are never stored by a browser or a proxy."""
from __future__ import annotations

import re

from django.conf import settings
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin


class LangQueryMiddleware(MiddlewareMixin):
    """After LocaleMiddleware: a ``lang`` query parameter wins over the cookie and the browser,
    for that request only.

    It sets no cookie: display pages choose their language by URL, and one browser often shows
    several of them (OBS's browser sources share one cookie jar; a venue PC runs the Portuguese
    TV beside the English stream), so ``?lang=en`` on one must not turn the others English.
    A visitor who wants a lasting choice has Django's ``/i18n/setlang/``.

    A ``MiddlewareMixin`` so it runs sync or async alike: under Daphne a sync-only middleware in
    the chain costs every request two extra hops between the event loop and a worker thread.
    """

    def __init__(self, get_response):
        super().__init__(get_response)
        self.codes = {code.lower(): code for code, _ in settings.LANGUAGES}

    def process_request(self, request) -> None:
        lang = self.codes.get(request.GET.get("lang", "").lower())
        if lang:
            translation.activate(lang)
            request.LANGUAGE_CODE = lang


class PrivateNoStoreMiddleware(MiddlewareMixin):
    """``Cache-Control: private, no-store`` on every answer of the referee's pages (the tablet,
    its fragments, the PIN forms of a match and of a table), of the JSON API and of the staff's
    pages and files (a table's stream controls, a competition's desk, its CSV and PDF exports, the admin), whatever their
    status: no browser or proxy keeps a copy, so a tablet whose referee session ended shows no
    cached referee page (its back button and offline reload included; the tablet's service worker
    keeps only a page the server marked as a logged-in tablet, ``pages/tablet.py``).

    It replaces any ``Cache-Control`` a view set: outermost but for the security middleware, so
    that the busy page and the rate limits' answers carry it too."""

    # the federation's public JSON (players, clubs, careers, head-to-heads, a season's ranking) is
    # for caches to keep (``http.public_cache``), like the public pages
    PRIVATE = re.compile(r"^/(api/(?!players/|clubs/|seasons/\d+/ranking/)|matches/\d+/referee/|matches/\d+/live/referee/|tables/\d+/(?:referee|controls)/|desk/|admin/)")

    def process_response(self, request, response):
        if self.PRIVATE.match(request.path_info):
            response["Cache-Control"] = "private, no-store"
        return response
