"""``/rules/``: the CBBS 2008 rules text, every article and item anchored (``#art-25``,
``#art-25.5.2``) for the "Art. N" links of the public screens; in English (``?lang=en``) the
Portuguese text stays the authority and each article carries the project's English gloss."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from presentation.rulebook import GLOSS_EN, TITLES_EN
from sinuca import rulebook

from ..core.i18n import engine_lang
from .screens import bad_option

LANGS = ("pt", "pt-br", "en")


@require_safe
def rules_page(request: HttpRequest) -> HttpResponse:
    """The whole text, titles and articles in order, items indented by level; a ``?lang=`` of
    no language the page has is a 400 in both languages."""
    lang = request.GET.get("lang")
    if lang is not None and lang.lower() not in LANGS:
        return bad_option(request, "lang", lang, ", ".join(LANGS))
    book = rulebook.load()
    en = engine_lang() == "en"
    titles = [{"number": t.number, "name": t.name, "gloss": TITLES_EN[t.number] if en else "",
               "articles": [{"number": a.number, "text": a.text, "gloss": GLOSS_EN[a.number] if en else "",
                             "items": a.items} for a in t.articles]} for t in book.titles]
    return render(request, "scoreboard/rules.html", {
        "titles": titles, "closing": book.closing, "source": book.source, "en": en})
