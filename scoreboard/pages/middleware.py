"""``?lang=en`` (or ``pt-br``) chooses the language of that one page."""
from __future__ import annotations

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
