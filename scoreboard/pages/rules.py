"""``/rules/``: the CBBS 2008 rules text, every article and item anchored (``#art-25``,
``#art-25.5.2``) for the "Art. N" links of the public screens; in English (``?lang=en``) the
Portuguese text stays the authority and each article carries the project's English gloss."""
from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from presentation import referee_html
from presentation.rulebook import GLOSS_EN, TITLES_EN
from presentation.why import why_view
from sinuca import engine, rulebook

from ..core.i18n import engine_lang
from ..core.models import Event, Match
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


def _lang_refused(request: HttpRequest) -> HttpResponse | None:
    lang = request.GET.get("lang")
    if lang is not None and lang.lower() not in LANGS:
        return bad_option(request, "lang", lang, ", ".join(LANGS))
    return None


@require_safe
def rule_panel(request: HttpRequest, ref: str) -> HttpResponse:
    """``/rules/<ref>/panel/``: the tablet's rule dialog for article or item ``ref``
    (``referee_html.article_panel``, what the tablet's engine draws offline), for a tablet whose
    engine has not loaded. One the text lacks: 404 with the refusal in Portuguese and English."""
    if (bad := _lang_refused(request)) is not None:
        return bad
    found = rulebook.load().find(ref)
    return HttpResponse(referee_html.article_panel(ref, engine_lang()), status=200 if found else 404,
                        content_type="text/html; charset=utf-8")


@require_safe
def why(request: HttpRequest, match_id: int, seq: int) -> HttpResponse:
    """``/matches/<id>/why/<seq>/``: the "why?" of one logged event (``presentation.why``): its
    line, the state before it (the stored state of the event before, or the opening state), the
    rules it cites and their words. ``?partial=1`` answers the panel alone (the tablet without
    its engine); a match or an event that does not exist is a 404 saying so in both languages."""
    if (bad := _lang_refused(request)) is not None:
        return bad
    try:
        match = Match.objects.get(pk=match_id)
    except (Match.DoesNotExist, OverflowError):
        raise Http404
    # a seq past any integer the database holds is simply not in the log
    rows = ({e.seq: e for e in Event.objects.filter(match_id=match_id, seq__in=(seq - 1, seq))}
            if 1 <= seq < 2 ** 31 else {})
    lang = engine_lang()
    if seq not in rows:
        return HttpResponse(referee_html.why_missing(seq), status=404, content_type="text/html; charset=utf-8")
    before = rows[seq - 1].state if seq - 1 in rows else engine.Match(match.config).state()
    w = why_view(match.player_names, seq, rows[seq].description[lang], before, lang)
    panel = referee_html.why_panel(w, lang)
    if request.GET.get("partial"):
        return HttpResponse(panel, content_type="text/html; charset=utf-8")
    return render(request, "scoreboard/why.html", {"match": match, "names": match.player_names, "panel": panel,
                                                   "seq": seq, "en": lang == "en", "rules": w["rules"]})
