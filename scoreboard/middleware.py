"""``?lang=en`` (or ``pt-br``) switches the language and remembers it in a cookie."""
from __future__ import annotations

from django.conf import settings
from django.utils import translation


class LangQueryMiddleware:
    """After LocaleMiddleware: a ``lang`` query parameter wins over the cookie and the browser."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.codes = {code.lower(): code for code, _ in settings.LANGUAGES}

    def __call__(self, request):
        lang = self.codes.get(request.GET.get("lang", "").lower())
        if lang:
            translation.activate(lang)
            request.LANGUAGE_CODE = lang
        response = self.get_response(request)
        if lang:
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, lang, max_age=365 * 24 * 3600,
                                samesite="Lax")
        return response
