"""The venue's boards: the list of matches (``/``) and the jumbotron (``/tv/``), rendered whole.

A board shows many matches, so it is not a per-match message: each process whose hub holds board
sockets renders a board once per burst of changes (and once per language and kind), then sends the
same text to every board socket (``hub.Hub.refresh_boards``). The pages render their first view
with the same functions, so a pushed board is byte for byte what a reload would show.
"""
from __future__ import annotations

from django.db.models import Count, Max, Q, Sum
from django.template.loader import render_to_string
from django.utils import translation

from ..core import log, tables
from ..core.models import Event, Match, MatchRecord, Table
from . import render as live

KINDS = {"venue": ("scoreboard/venue.html#board", "venue-board"),
         "jumbotron": ("scoreboard/jumbotron.html#grid", "jumbo-grid")}
"""Board kind -> (its partial, the id of the element the page replaces)."""


def card(match: Match) -> dict:
    """What a list shows of a match: the live partials' context, from the engine's state."""
    snap = log.snapshot(match.pk)
    ctx = live.page_context(snap.match, snap.seq, snap.state, snap.options, [])
    ctx["seq"] = snap.seq
    return ctx


def table_rows() -> list[dict]:
    """Each table with what it shows now: the match on it, else its last result and next match."""
    rows = []
    for t in Table.objects.all():
        now = tables.table_now(t)
        rows.append({"table": t, "now": now, "card": card(now.current) if now.current else None,
                     "last": card(now.last) if now.last else None, "next": now.next})
    return rows


RESULTS_PAGE = 24  # result cards per page of the venue


def day_results(page: int = 1):
    """The day's finished matches (local date of the venue), the most recent first, as a
    Django ``Page`` of :data:`RESULTS_PAGE` (a page number past the end gives the last page)."""
    from django.core.paginator import Paginator
    from django.utils import timezone

    start = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    qs = tables.finished().filter(ended_at__gte=start)
    return Paginator(qs, RESULTS_PAGE).get_page(page)


def venue_context(page: int = 1) -> dict:
    """``/``: every match in progress (with or without a table), what is next, and all of the
    day's results, paged (``page``; the pushed board is page 1, the newest)."""
    results = day_results(page)
    return {
        "live": [card(m) for m in tables.in_progress()[:60]],
        "next": list(tables.scheduled()[:20]),
        "results": [card(m) for m in results.object_list],
        "results_page": results,
        "tables": list(Table.objects.all()),
    }


def jumbotron_context() -> dict:
    """``/tv/``: every table at once, and matches in progress on no table."""
    ctx = {"rows": table_rows(),
           "loose": [card(m) for m in tables.in_progress().filter(table__isnull=True)[:12]]}
    ctx["count"] = min(len(ctx["rows"]) + len(ctx["loose"]), 9)
    return ctx


CONTEXTS = {"venue": venue_context, "jumbotron": jumbotron_context}


def render_board(kind: str, lang: str) -> str:
    """The board's element (``#venue-board`` / ``#jumbo-grid``) as it is now, in ``lang``."""
    with translation.override(lang):
        return render_to_string(KINDS[kind][0], CONTEXTS[kind]())


def fingerprint() -> tuple:
    """Changes whenever a board may show something else: an event stored, a match added,
    removed, started or moved to another table in the admin, a table added. One
    query per call; the hubs' reconciler asks it every second while boards are open."""
    ev = Event.objects.aggregate(last=Max("pk"))["last"]
    m = Match.objects.aggregate(n=Count("pk"), last=Max("pk"), started=Count("pk", filter=Q(started_at__isnull=False)),
                                tables=Sum("table_id"), at=Max("started_at"))
    t = Table.objects.aggregate(n=Count("pk"), last=Max("pk"))
    # every desk action (call, move, W.O., correction, postpone) leaves a record
    rec = MatchRecord.objects.aggregate(last=Max("pk"))["last"]
    return ev, *m.values(), t["n"], t["last"], rec
