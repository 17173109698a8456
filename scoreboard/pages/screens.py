"""The match's screens: the TV scoreboard, the OBS overlay and their live fragments.

Each page renders the same partial the live layer pushes, so the first paint and every later
change are the same bytes.
"""
from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.views.decorators.http import require_safe

from ..http import capacity
from ..core.credentials import session_may_referee
from ..core.models import Match
from ..live import render as live
from . import display
from .compress import public_html


def lang_code() -> str:
    """The active language as one of settings.LANGUAGES (the key of the pre-rendered payloads)."""
    lang = (get_language() or "pt-br").lower()
    return lang if lang in live.languages() else "pt-br"


def bad_option(request: HttpRequest, name: str, value: str, allowed: str) -> HttpResponse:
    """400: a screen's address has an option it does not take, said in Portuguese and English
    with the values it takes (``allowed``: words of neither language, as "1, 2" or "tables, …";
    ``templates/scoreboard/bad_option.html``). A screen set up with a typo showed its default
    instead, and whoever typed it believed the option was in force."""
    return render(request, "scoreboard/bad_option.html",
                  {"name": name, "value": value[:60], "allowed": allowed}, status=400)


def page(request: HttpRequest, match_id: int, view: str, template: str, **extra) -> HttpResponse:
    """Render a full page whose live part is the same partial the broadcast sends, drawn once
    per seq for every page load (``live.page_live``); the page around it reads the match row."""
    try:
        match = Match.objects.select_related("player_a", "player_b", "table").get(pk=match_id)
    except (Match.DoesNotExist, OverflowError):  # OverflowError: an id beyond SQLite's integers
        raise Http404
    bad = display.problem(request.GET)
    if bad is not None:
        return bad_option(request, *bad)
    lang = lang_code()
    ctx = {"match": match, "seq": match.seq, "names": match.player_names, "view": view, "lang": lang,
           "live_html": mark_safe(live.page_live(match, view, lang)), **extra}  # noqa: S308 - our render
    return render(request, template, ctx)


@require_safe
@public_html
@capacity.spectator_page
def tv(request: HttpRequest, match_id: int) -> HttpResponse:
    """The 1920×1080 TV scoreboard; a rubber of a team tie shows the tie above it (the team
    names and score, which change only when a rubber ends: another match, another page)."""
    from ..core import competitions

    return page(request, match_id, "tv", "scoreboard/tv.html", tie=competitions.tie_of_match(match_id, "en" if lang_code().startswith("en") else "pt"))


@require_safe
@public_html
@capacity.spectator_page
def overlay(request: HttpRequest, match_id: int) -> HttpResponse:
    """The OBS lower-third on a transparent page."""
    return page(request, match_id, "overlay", "scoreboard/overlay.html")


@require_safe
def live_fragments(request: HttpRequest, match_id: int, view: str) -> HttpResponse:
    """The current live fragments of one page kind: what a page fetches after a seq gap. A
    spectator's read takes a read slot; the referee's tablet does not wait behind spectators."""
    if view not in live.VIEWS:
        raise Http404
    if view == "referee":
        if not session_may_referee(request.session, request.user, match_id):
            return HttpResponseForbidden()
        return _fragments(request, match_id, view)
    return _spectator_fragments(request, match_id, view)


def _fragments(request: HttpRequest, match_id: int, view: str) -> HttpResponse:
    get_object_or_404(Match, pk=match_id)
    text = live.connect_payload(match_id, live.payload_key(view, lang_code()))[1]
    return HttpResponse(text)


_spectator_fragments = capacity.spectator_page(_fragments)
