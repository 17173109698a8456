"""The engine's own texts in the active language.

The engine words every description, label and error in Portuguese and English (``{"pt", "en"}``,
``SinucaError.message_pt`` / ``message_en``); Django picks the language of the request. These
three functions are the only place that maps one to the other.
"""
from __future__ import annotations

from django.utils import translation
from django.utils.translation import get_language

from sinuca import SinucaError


def engine_lang() -> str:
    """``"en"`` when the active language is English, else ``"pt"`` (the CBBS's own language)."""
    return "en" if (get_language() or "").lower().startswith("en") else "pt"


def pick(texts) -> str:
    """A ``{"pt", "en"}`` text of the engine in the active language ("" for anything else)."""
    if not isinstance(texts, dict):
        return ""
    return texts.get(engine_lang()) or texts.get("pt", "")


def error_text(e: SinucaError) -> str:
    """Why the engine refused an event or configuration, in the active language, with its article."""
    return e.message_en if engine_lang() == "en" else e.message_pt


def pair(msgid: str, **params) -> tuple[str, str]:
    """A message of the server's catalogue (``locale/*/django.po``, msgids in Portuguese) as
    ``(pt, en)``; ``params`` fill ``%(name)s`` placeholders after translation. The msgids are
    extracted with ``makemessages --keyword=both --keyword=pair``."""
    with translation.override("pt-br"):
        pt = translation.gettext(msgid)
    with translation.override("en"):
        en = translation.gettext(msgid)
    if params:
        pt, en = pt % params, en % params
    return pt, en


def both(msgid: str, **params) -> str:
    """:func:`pair` as ``"<pt> / <en>"``: bad input is answered in both languages, whatever the
    request's."""
    return "%s / %s" % pair(msgid, **params)


def both_texts(texts: dict) -> str:
    """An engine text ``{"pt", "en"}`` (its own catalogue) as ``"<pt> / <en>"``, for bad input."""
    return f"{texts['pt']} / {texts['en']}"
