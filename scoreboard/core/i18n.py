"""The engine's own texts in the active language.

The engine words every description, label and error in Portuguese and English (``{"pt", "en"}``,
``SinucaError.message_pt`` / ``message_en``); Django picks the language of the request. These
three functions are the only place that maps one to the other.
"""
from __future__ import annotations

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
