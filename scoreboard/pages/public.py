"""The federation's public site (also served by a venue, over its own matches), phone first,
Portuguese by default (``?lang=en``): a player's page (career), the head-to-head of two
players, a season's ranking with each point's etapa and placing, the calendar of etapas, the
matches in progress and the clubs, and the search that finds a player.

Each screen is drawn by :func:`draw` (one partial of ``scoreboard/_public.html``) from its
context function, and only there: the page prints it, and the board socket pushes the same text
(kinds ``career-<pk>``, ``h2h-<pk>-<pk>`` and ``inplay``, registered with ``live.boards`` at
start-up), so a player's page moves when one of their matches does, never polled. Every page is
cacheable (``http.public_cache``): ETag and a short ``max-age`` for nginx or a CDN in front.
"""
from __future__ import annotations

from django.db.models import Max, Min
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import get_language
from django.views.decorators.http import require_safe

from ..core import tables
from ..core.models import Competition, Fixture, Player, Season
from ..http import capacity
from ..http.public_cache import cacheable
from ..live import boards
from ..reports import careers, stats
from .compress import public_html

TEMPLATE = "scoreboard/_public.html"


def draw(screen: str, ctx: dict) -> str:
    """The one renderer of a public screen (``career``, ``h2h``, ``ranking``, ``calendar``,
    ``inplay``, ``results``, ``clubs``, ``players``): ``<main id="pub-board">``, as the page prints it and
    the board socket pushes it."""
    return render_to_string(f"{TEMPLATE}#{screen}", ctx).strip()


def _lang_q() -> str:
    return f"?lang={get_language() or 'pt-br'}"


def _socket(kind: str, board: str) -> str:
    return f"/ws/boards/?view={kind}&lang={get_language() or 'pt-br'}&have={boards.digest(board)}"


# -- contexts ----------------------------------------------------------------------------------

def career_context(player: Player) -> dict:
    """A player's page: ``reports.careers.career`` with links to each match, its súmula, its
    competition's hub and the head-to-head with each opponent."""
    return {"c": careers.career(player), "lang_q": _lang_q()}


def h2h_context(a: Player, b: Player) -> dict:
    """The head-to-head page of two players (``reports.careers.head_to_head``)."""
    return {"h": careers.head_to_head(a, b), "lang_q": _lang_q()}


def ranking_context(season: Season) -> dict:
    """A season's ranking: each row's points with the etapa and placing that earned them."""
    from ..core import seasons

    rows = seasons.ranking_detail(season)
    ids = {p.pk: careers.public_id(p) for p in Player.objects.filter(pk__in=[r["player"] for r in rows])}
    for r in rows:
        r["id"] = ids.get(r["player"], str(r["player"]))
    return {"season": season, "rows": rows, "lang_q": _lang_q()}


def calendar_context() -> dict:
    """Every season with its etapas (when each is played: its matches' first scheduled or
    started time, else when it was created; whether it is finished), newest season first, and
    the competitions of no season."""
    from ..core import competitions

    spans = {r["competition_id"]: r for r in Fixture.objects.values("competition_id").annotate(
        first=Min("match__scheduled_at"), started=Min("match__started_at"), last=Max("match__started_at"))}

    def etapa(comp: Competition, weight=None) -> dict:
        s = spans.get(comp.pk, {})
        when = s.get("first") or s.get("started") or comp.created_at
        try:
            done = competitions.now(comp).state.complete
        except Exception:  # noqa: BLE001 - a file the core no longer reads still has its date
            done = False
        return {"comp": comp, "when": when, "done": done, "weight": weight,
                "live": not done and s.get("started") is not None}

    seasons, seen = [], set()
    for season in Season.objects.prefetch_related("etapas__competition"):
        rows = sorted((etapa(et.competition, et.weight) for et in season.etapas.all()), key=lambda e: e["when"])
        seen.update(e["comp"].pk for e in rows)
        seasons.append({"season": season, "etapas": rows})
    others = [etapa(c) for c in Competition.objects.exclude(pk__in=seen).order_by("-created_at")[:50]]
    return {"seasons": seasons, "others": others, "lang_q": _lang_q()}


def inplay_context() -> dict:
    """Every match in progress (at every venue this server holds): players, frames and the
    frame's score, its table, links to the match page and its competition's hub."""
    rows = []
    for m in tables.in_progress()[:200]:
        st = stats.for_match(m).state
        fx = Fixture.objects.filter(match_id=m.pk).select_related("competition").first()
        rows.append({"match": m, "names": m.player_names, "frames": st.get("frames") or [0, 0],
                     "scores": st.get("scores") or [0, 0], "table": m.table.short_name if m.table_id else "",
                     "comp": fx.competition if fx else None})
    return {"rows": rows, "lang_q": _lang_q()}


RESULTS_PAGE = 50  # results per page of the archive


def results_context(page: int = 1) -> dict:
    """The results archive, newest first, :data:`RESULTS_PAGE` a page: players, frames, the
    competition, links to the match page and its súmula."""
    page = max(1, page)
    qs = tables.finished().filter(rehearsal=False)
    rows = []
    ms = list(qs[(page - 1) * RESULTS_PAGE:page * RESULTS_PAGE + 1])
    comps = {fx.match_id: fx.competition for fx in Fixture.objects.filter(
        match_id__in=[m.pk for m in ms]).select_related("competition")}
    for m in ms[:RESULTS_PAGE]:
        st = stats.for_match(m).state
        rows.append({"match": m, "names": m.player_names, "frames": st.get("frames") or [0, 0],
                     "winner": st.get("match_winner"), "walkover": bool(m.walkover) and not m.correction,
                     "ended": m.ended_at, "comp": comps.get(m.pk)})
    return {"rows": rows, "page": page, "more": len(ms) > RESULTS_PAGE, "lang_q": _lang_q()}


def clubs_context() -> dict:
    """Every club, by name, with its federation id when registered and its players (linked to
    their pages): ``reports.careers.clubs``, as ``GET /api/clubs/`` gives it."""
    return {"clubs": careers.clubs(), "lang_q": _lang_q()}


def players_context(q: str, vs: Player | None) -> dict:
    """The player search (``?q=``); with ``vs`` (``?vs=<id>``) each hit links to the
    head-to-head with that player."""
    return {"q": q, "hits": careers.search(q), "vs": careers.person(vs) if vs else None, "lang_q": _lang_q()}


# -- the pushed boards ---------------------------------------------------------------------------

def render_career(pk: int, lang: str) -> str:
    """The board of player row ``pk``'s page, as it is now, in ``lang``."""
    with translation.override(lang):
        p = Player.objects.filter(pk=pk).first()
        return draw("career", career_context(p)) if p else '<main id="pub-board"></main>'


def render_h2h(a: int, b: int, lang: str) -> str:
    """The board of the head-to-head of player rows ``a`` and ``b``, as it is now."""
    with translation.override(lang):
        rows = Player.objects.in_bulk([a, b])
        if a == b or len(rows) != 2:
            return '<main id="pub-board"></main>'
        return draw("h2h", h2h_context(rows[a], rows[b]))


def render_inplay(lang: str) -> str:
    """The board of the matches in progress, as it is now."""
    with translation.override(lang):
        return draw("inplay", inplay_context())


def register_boards() -> None:
    """Give the board socket this module's boards (called once at start-up, ``apps``)."""
    boards.register(r"^career-(\d{1,12})$", lambda m, lang: render_career(int(m.group(1)), lang),
                    players=lambda m: {int(m.group(1))})
    boards.register(r"^h2h-(\d{1,12})-(\d{1,12})$",
                    lambda m, lang: render_h2h(int(m.group(1)), int(m.group(2)), lang),
                    players=lambda m: {int(m.group(1)), int(m.group(2))})
    boards.register(r"^inplay$", lambda m, lang: render_inplay(lang))


# -- the pages -----------------------------------------------------------------------------------

def _page(request, title: str, board: str, kind: str | None = None, **extra) -> HttpResponse:
    return render(request, "scoreboard/public_page.html",
                  {"title": title, "board": board, "board_ws": _socket(kind, board) if kind else "", **extra})


def public_view(view):
    """A public page: GET/HEAD, gzip, a read slot, ETag and ``Cache-Control`` (outermost first)."""
    return require_safe(public_html(capacity.spectator_page(cacheable(view))))


def _player(key) -> Player:
    p = careers.player_by_id(key)
    if p is None:
        raise Http404
    return p


@public_view
def player_page(request: HttpRequest, key: str) -> HttpResponse:
    """``/players/<id>/``: a player's career (matches, frames, win %, highest break, breaks
    30+/50+/100+, by season, last results), pushed live when one of their matches moves."""
    p = _player(key)
    board = draw("career", career_context(p))
    return _page(request, p.name, board, f"career-{p.pk}")


@public_view
def h2h_page(request: HttpRequest, a: str, b: str) -> HttpResponse:
    """``/players/<a>/h2h/<b>/``: every match between two players with its frame scores."""
    pa, pb = _player(a), _player(b)
    if pa.pk == pb.pk:
        raise Http404
    board = draw("h2h", h2h_context(pa, pb))
    return _page(request, f"{pa.name} × {pb.name}", board, f"h2h-{pa.pk}-{pb.pk}")


@public_view
def players_page(request: HttpRequest) -> HttpResponse:
    """``/players/?q=<name>[&vs=<id>]``: find a player (or an opponent for a head-to-head)."""
    vs = careers.player_by_id(request.GET.get("vs", "")) if request.GET.get("vs") else None
    ctx = players_context(request.GET.get("q", "")[:100], vs)
    return _page(request, translation.gettext("Jogadores"), draw("players", ctx))


@public_view
def season_page(request: HttpRequest, season_id: int) -> HttpResponse:
    """``/seasons/<id>/``: the season's ranking, every point linked to its etapa and placing."""
    season = Season.objects.filter(pk=season_id).first()
    if season is None:
        raise Http404
    return _page(request, season.name, draw("ranking", ranking_context(season)))


@public_view
def calendar_page(request: HttpRequest) -> HttpResponse:
    """``/calendar/``: the seasons' etapas, when and where they stand."""
    return _page(request, translation.gettext("Calendário"), draw("calendar", calendar_context()))


@public_view
def inplay_page(request: HttpRequest) -> HttpResponse:
    """``/live/``: every match in progress, pushed live."""
    board = draw("inplay", inplay_context())
    return _page(request, translation.gettext("Ao vivo"), board, "inplay")


@public_view
def results_page(request: HttpRequest) -> HttpResponse:
    """``/results/?page=<n>``: the results archive, each match linked to its page and súmula."""
    try:
        page = int(request.GET.get("page", "1"))
    except ValueError:
        page = 1
    return _page(request, translation.gettext("Resultados"), draw("results", results_context(min(page, 10**6))))


@public_view
def clubs_page(request: HttpRequest) -> HttpResponse:
    """``/clubs/``: the clubs and their players."""
    return _page(request, translation.gettext("Clubes"), draw("clubs", clubs_context()))
