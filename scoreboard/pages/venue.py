"""Pages of an event day: the venue, the jumbotron, table-following TV/overlay/tablet URLs, the
match page with statistics, the display-options guide and the shot clock (Art. 49.4).

The venue and the jumbotron are pushed over the hub like the match screens (``live.boards``): no
page here polls.
"""
from __future__ import annotations

from datetime import timedelta

from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext as _
from django.views.decorators.http import require_safe, require_http_methods

from ..core import access, tables
from ..http import capacity
from ..core.credentials import login_session, session_may_referee
from ..core.models import Competition, Match, Table
from ..live import boards
from ..live import graphics as live_graphics
from ..live.boards import card
from .compress import public_html
from .display import COLOUR_PARAMS, LAYOUTS, POPUPS, THEMES
from .display import problem as display_problem
from .referee import pin_limited, remember_device
from .screens import bad_option, page

from ..core.access import TABLE_SESSION  # noqa: E402 - session: {table id: fingerprint of its PIN}
from .referee import TABLET_OF  # noqa: E402 - session: {match id: the table whose tablet opened it}


def _partial(request: HttpRequest, template: str, name: str, ctx: dict) -> HttpResponse:
    if request.GET.get("partial") == name or getattr(request, "htmx", False):
        return render(request, f"{template}#{name}", ctx)
    return render(request, template, ctx)


def _board_socket(kind: str, board: str = "") -> str:
    """The board socket's address; with ``board``, the digest of the board the page prints, so
    the socket does not send it again (``boards.digest``)."""
    have = f"&have={boards.digest(board)}" if board else ""
    return f"/ws/boards/?view={kind}&lang={get_language() or 'pt-br'}{have}"


def _board(template: str, name: str, ctx: dict) -> str:
    """A page's board, rendered once as the push renders it (``boards.render_board``): the page
    prints this text, and its digest goes in the socket's address."""
    return render_to_string(f"{template}#{name}", ctx)


@require_safe
@public_html
@capacity.spectator_page
def venue(request: HttpRequest) -> HttpResponse:
    """``/``: every match in progress (with or without a table), what is next, the day's
    results (``?page=`` for older ones); page 1 is pushed live over the hub (``live.boards``),
    an older page of results stays as it was loaded."""
    page_no = request.GET.get("page", "1")
    page_no = int(page_no) if page_no.isascii() and page_no.isdigit() and len(page_no) < 6 else 1
    from ..core.models import Competition

    ctx = boards.venue_context(page_no)
    if request.GET.get("partial") == "board" or getattr(request, "htmx", False):
        return render(request, "scoreboard/venue.html#board", ctx)
    board = _board("scoreboard/venue.html", "board", ctx)
    ctx.update(board=board, board_ws=_board_socket("venue", board) if page_no <= 1 else "",
               competitions=list(Competition.objects.order_by("-pk")[:3]))
    return render(request, "scoreboard/venue.html", ctx)


def _whole(value: str, digits: int) -> bool:
    """``value`` is a whole number of fewer than ``digits`` ASCII digits."""
    return value.isascii() and value.isdigit() and len(value) < digits


@require_safe
@public_html
@capacity.spectator_page
def jumbotron(request: HttpRequest) -> HttpResponse:
    """``/tv/``: every table at once, for the big screen of the venue; pushed live.
    ``?comp=<id>`` follows one competition (default the newest) for its views: ``?view=tables |
    bracket | standings | called`` shows one, ``?rotate=tables,bracket,standings&every=20`` turns
    through several (seconds, at least 5)."""
    comp = request.GET.get("comp", "")
    comp_id = int(comp) if _whole(comp, 10) else None
    if comp and comp_id is None:
        return bad_option(request, "comp", comp, "1, 2, 3…")
    if comp_id is not None and not Competition.objects.filter(pk=comp_id).exists():
        raise Http404  # not the newest competition in its place: that screen would mislead
    views = ", ".join(boards.JUMBO_VIEWS)
    rotate = [v for v in request.GET.get("rotate", "").split(",") if v]
    if any(v not in boards.JUMBO_VIEWS for v in rotate):
        return bad_option(request, "rotate", request.GET["rotate"], views)
    view = request.GET.get("view", "")
    if view and view not in boards.JUMBO_VIEWS:
        return bad_option(request, "view", view, views)
    first = view or (rotate[0] if rotate else "tables")
    every = request.GET.get("every", "")
    if every and not _whole(every, 6):
        return bad_option(request, "every", every, "5 – 3600")
    every = max(5, min(int(every), 3600)) if every else 20
    ctx = boards.jumbotron_context(comp_id)
    if request.GET.get("partial") == "grid" or getattr(request, "htmx", False):
        return render(request, "scoreboard/jumbotron.html#grid", ctx)
    board = _board("scoreboard/jumbotron.html", "grid", ctx)
    ctx.update(board=board, jv=first, rotate=",".join(rotate), every=every,
               board_ws=_board_socket(f"jumbotron-{comp_id}" if comp_id is not None else "jumbotron", board))
    return render(request, "scoreboard/jumbotron.html", ctx)


def _table_page(request: HttpRequest, table_id: int, view: str) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    bad = display_problem(request.GET)
    if bad is not None:
        return bad_option(request, *bad)
    now = tables.table_now(table)
    follow = {"follow_url": _board_socket(f"table-{table.pk}"), "follow_key": now.key, "table": table}
    if now.current is not None:
        if view == "tv":  # a team rubber: the tie above it, as on the match's own TV
            from ..core import competitions

            follow["tie"] = competitions.tie_of_match(now.current.pk, "en" if (get_language() or "").startswith("en") else "pt")
        return page(request, now.current.pk, view, f"scoreboard/{view}.html", **follow)
    ctx = {**follow, "view": view, "last": card(now.last) if now.last else None, "next": now.next}
    if now.next is not None:
        # "Etapa de Santos · J1 · Grupo A · Jogo de abertura" in the page's language (the match's
        # stored text is in Portuguese)
        from ..core import stages
        from ..live.event import stage_label

        ctx["next_place"] = " · ".join(x for x in (stages.of_match(now.next).competition,
                                                    stage_label(now.next)) if x)
    return render(request, "scoreboard/table_idle.html", ctx)


@require_safe
@public_html
@capacity.spectator_page
def table_tv(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/tv/``: the TV of whatever match is on the table."""
    return _table_page(request, table_id, "tv")


@require_safe
@public_html
@capacity.spectator_page
def table_overlay(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/overlay/``: the overlay of whatever match is on the table (an OBS source
    that needs no change between matches)."""
    return _table_page(request, table_id, "overlay")


@require_safe
@public_html
@capacity.spectator_page
def table_graphics(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/graphics/``: the table's stream graphics on one transparent 1920×1080 page
    (an OBS/vMix browser source): the ticker of the other tables, the sponsor slot and the cards
    (next match, holding, player intro, head-to-head, bracket, group), each switched from the
    table's control endpoint (``core.graphics``) and pushed as a board (``live.graphics``).
    ``?position=top|bottom-left|right`` places the bars; ``?rotate=`` the seconds between the
    ticker's pages and the sponsors (default 8), ``?per=`` the tables per ticker page (1 or 2, default 1)."""
    table = get_object_or_404(Table, pk=table_id)
    q = request.GET
    bad = display_problem({"position": q.get("position", "")})  # read as the overlay's (the guide's row)
    if bad is not None:
        return bad_option(request, *bad)
    if q.get("rotate") and not _whole(q["rotate"], 4):
        return bad_option(request, "rotate", q["rotate"], "1 – 999 (8)")
    if q.get("per") and q["per"] not in ("1", "2"):
        return bad_option(request, "per", q["per"], "1, 2")
    ctx = live_graphics.context(table.pk)
    board = _board("scoreboard/graphics.html", "stage", ctx)
    ctx.update(board=board, board_ws=_board_socket(f"graphics-{table.pk}", board))
    return render(request, "scoreboard/graphics.html", ctx)


@require_safe
@capacity.spectator_page(as_json=True)
def table_now(request: HttpRequest, table_id: int) -> JsonResponse:
    """``{"key", "match", "tablet", "last"}``: what the table shows now (pages following it reload
    when ``key`` changes); ``tablet`` the match its tablet scores now (the current one, else the
    next), ``last`` its last result (``live.boards.table_follow``; the table's pages get the same
    pushed over their board socket, ``follow.js``)."""
    get_object_or_404(Table, pk=table_id)
    return JsonResponse(boards.table_follow(table_id))


# Table PIN guessing is limited like the match PIN's (pages/referee.py: pin_limited): a 6-digit
# table PIN (the admin asks for 6 to 12 digits) takes 1.9 years on average to find; the table's
# tablet keeps following it whatever the counters say, and a referee of the table (a role) or the
# superuser can always open it (``access``: ``table.score``).
@require_http_methods(["GET", "HEAD", "POST"])
def table_referee(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/referee/``: the table's tablet. After the table's PIN, it opens the scoring
    page of the match on the table (or the next one), and does so again for every later match."""
    table = get_object_or_404(Table, pk=table_id)
    fingerprint = table.pin_hash[-16:]
    opened = request.session.get(TABLE_SESSION, {})
    error, limited, remember = "", False, False
    if request.method == "POST":
        if pin_limited(request, f"table:{table.pk}"):
            error, limited = _("Muitas tentativas. Aguarde um minuto."), True
        elif tables.check_pin(table, request.POST.get("pin", "").strip()):
            request.session[TABLE_SESSION] = {**opened, str(table.pk): fingerprint}
            opened = request.session[TABLE_SESSION]
            remember = True
        else:
            error = _("PIN incorreto.")
    actor = access.Actor.of_request(request)
    allowed = access.may("table.score", actor, table)
    follow = {}
    if allowed:
        now = tables.table_now(table)
        match = now.current or now.next
        if match is not None:
            if not access.by_user(actor, "match.score", match.pk):
                login_session(request.session, tables.table_credential(match))
                request.session[TABLE_SESSION] = {**opened, str(table.pk): fingerprint}
            # the scoring page follows this table from now on (follow.js): a moved match leaves it
            request.session[TABLET_OF] = {**request.session.get(TABLET_OF, {}), str(match.pk): table.pk}
            resp = redirect("referee", match_id=match.pk)
            return remember_device(request, resp, f"table:{table.pk}") if remember else resp
        # Nothing to score yet: the page follows the table's board socket (follow.js) and comes
        # back here, to be sent on to the scoring page, as soon as a match is put on it.
        follow = {"follow_url": _board_socket(f"table-{table.pk}"), "follow_key": now.key,
                  "follow_go": reverse("table_referee", args=[table.pk])}
    resp = render(request, "scoreboard/table_referee.html",
                  {"table": table, "error": error, "allowed": allowed, "has_pin": bool(table.pin_hash), **follow},
                  status=429 if limited else 401 if error else 200)
    if limited:
        resp["Retry-After"] = "60"
    return remember_device(request, resp, f"table:{table.pk}") if remember else resp


def _match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    from ..core import competitions

    match = get_object_or_404(Match.objects.select_related("table", "player_a", "player_b"), pk=match_id)
    ctx = card(match)
    if request.GET.get("partial") != "stats":  # the tie (a team rubber) is in the page's header only
        ctx["tie"] = competitions.tie_of_match(match_id, "en" if (get_language() or "").startswith("en") else "pt")
    return _partial(request, "scoreboard/match.html", "stats", ctx)


_match_report = capacity.report_view(_match_page)
_match_stats = capacity.spectator_page(_match_page)


@require_safe
@public_html
def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """``/matches/<id>/``: score, statistics, each frame's worm and the match's breaks.

    The page is a report (limited per address, ``REPORT_RATE``); its ``?partial=stats``, which
    every open page fetches once per new seq (match.js) from statistics folded once per seq, is
    a screen's live part (``spectator_page``: not counted per address), as a room of phones
    behind one NAT would otherwise use up one address's allowance within minutes of play."""
    if request.GET.get("partial") == "stats":
        return _match_stats(request, match_id)
    return _match_report(request, match_id)


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: browsers and OBS ask for it whatever the page says (it was a 404 in
    every log); the page's own ``<link rel="icon">`` points at the SVG."""
    path = finders.find("scoreboard/favicon.ico")
    with open(path, "rb") as f:
        resp = HttpResponse(f.read(), content_type="image/vnd.microsoft.icon")
    resp["Cache-Control"] = "public, max-age=86400"
    return resp


@require_safe
@public_html
@capacity.spectator_page
def display_guide(request: HttpRequest) -> HttpResponse:
    """``/display/``: the TV and overlay URL options, each with a live preview."""
    live_match = tables.in_progress().first() or Match.objects.order_by("-pk").first()
    table = live_match.table if live_match is not None else None
    examples = [
        ("layout=lower-third", _("Terço inferior (padrão): nomes, placar, partidas, tacada, bola da vez")),
        ("layout=corner", _("Canto: placar compacto no canto superior esquerdo")),
        ("layout=full", _("Placar completo, centralizado")),
        ("theme=light", _("Tema claro")),
        ("layout=corner&primary=%23002776&accent=%23ffdf00&text=%23ffffff", _("Cores do clube")),
        ("scale=1.5", _("Escala 1,5×")),
        ("lang=en", _("Em inglês")),
        ("delay=5", _("Atraso de 5 s (acompanha a latência da transmissão)")),
    ]
    return render(request, "scoreboard/display_guide.html", {
        "match": live_match, "table": table, "examples": examples, "layouts": LAYOUTS, "themes": THEMES,
        "colour_params": list(COLOUR_PARAMS), "popup_kinds": POPUPS})


# -- shot clock (Art. 49.4) -------------------------------------------------------------------

def clock_state(match: Match) -> dict:
    """``{"seconds", "running", "remaining", "deadline"}``; a clock started before the latest
    event stopped with that stroke."""
    if not match.shot_clock:
        return {"seconds": 0, "running": False, "remaining": 0, "deadline": None, "now": None}
    deadline = match.clock_deadline
    running = deadline is not None
    if running:
        started = deadline - timedelta(seconds=match.shot_clock)
        last = match.events.order_by("-seq").values_list("at", flat=True).first()
        if last is not None and last > started:
            running = False
    remaining = max(0.0, (deadline - timezone.now()).total_seconds()) if running else match.shot_clock
    return {"seconds": match.shot_clock, "running": running, "remaining": round(remaining, 1),
            "deadline": deadline.isoformat() if running else None, "now": timezone.now().isoformat()}


@require_http_methods(["GET", "HEAD", "POST"])
def shot_clock(request: HttpRequest, match_id: int) -> JsonResponse:
    """GET: the clock. POST ``action=start|stop`` (the match's referee): start the countdown
    for the stroke, or stop it."""
    match = get_object_or_404(Match, pk=match_id)
    if request.method == "POST":
        if not session_may_referee(request.session, request.user, match_id):
            return HttpResponseForbidden()
        if not match.shot_clock:
            raise Http404
        start = request.POST.get("action") == "start"
        match.clock_deadline = timezone.now() + timedelta(seconds=match.shot_clock) if start else None
        Match.objects.filter(pk=match.pk).update(clock_deadline=match.clock_deadline)
    return JsonResponse(clock_state(match))
