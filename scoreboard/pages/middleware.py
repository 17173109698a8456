"""``?lang=en`` (or ``pt-br``) switches the language and remembers it in a cookie."""
from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin


class LangQueryMiddleware(MiddlewareMixin):
    """After LocaleMiddleware: a ``lang`` query parameter wins over the cookie and the browser.

    A ``MiddlewareMixin`` so it runs sync or async alike: under Daphne a sync-only middleware in
    the chain costs every request two extra hops between the event loop and a worker thread.
    """

    def __init__(self, get_response):
        super().__init__(get_response)
        self.codes = {code.lower(): code for code, _ in settings.LANGUAGES}

    def process_request(self, request) -> None:
        lang = self.codes.get(request.GET.get("lang", "").lower())
        request._lang_query = lang
        if lang:
            translation.activate(lang)
            request.LANGUAGE_CODE = lang

    def process_response(self, request, response):
        lang = getattr(request, "_lang_query", None)
        if lang:
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, lang, max_age=365 * 24 * 3600,
                                samesite="Lax")
        return response
