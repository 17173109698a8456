"""The event hub for spectators' phones: ``/competitions/<id>/`` (tables now, the schedule and
calls, the day's results, the groups, the bracket by round; ``?view=`` keeps the tab in a shared
link) and ``/competitions/<id>/players/<n>/`` (a player's page). Both are boards of the board
socket (``live.boards`` kinds ``hub-<id>`` and ``player-<id>-<n>``), pushed live; nothing polls,
and spectators only listen.
"""
from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import get_language
from django.views.decorators.http import require_safe

from ..http import capacity
from ..core.models import Competition
from ..live import boards, event
from .compress import public_html


def _socket(kind: str, board: str) -> str:
    """The board socket's address, with the digest of the board the page prints (the socket
    does not send it again)."""
    return f"/ws/boards/?view={kind}&lang={get_language() or 'pt-br'}&have={boards.digest(board)}"


def _view(request: HttpRequest, views: tuple = event.FRAGMENTS) -> str:
    v = request.GET.get("view", "")
    return v if v in views else views[0]


@require_safe
@public_html
@capacity.spectator_page
def hub(request: HttpRequest, comp_id: int) -> HttpResponse:
    """``/competitions/<id>/``: the event on a phone, pushed live; ``?view=`` one of
    :data:`~scoreboard.live.event.FRAGMENTS` (default ``tables``)."""
    comp = get_object_or_404(Competition, pk=comp_id)
    ctx = event.event_context(comp)
    views = event.views_of(ctx)
    board = event.hub_html(ctx)
    return render(request, "scoreboard/event.html",
                  {**ctx, "board": board, "view": _view(request, views), "views": views,
                   "board_ws": _socket(f"hub-{comp.pk}", board)})


@require_safe
@public_html
@capacity.spectator_page
def player(request: HttpRequest, comp_id: int, entry: int) -> HttpResponse:
    """``/competitions/<id>/players/<n>/``: entrant ``n`` (file order): today's matches, results,
    highest breaks, photo, club, flag and the record against each opponent; pushed live."""
    comp = get_object_or_404(Competition, pk=comp_id)
    ctx = event.player_context(comp, entry)
    if ctx is None:
        raise Http404
    board = event.fragment("player", ctx).strip()  # as the pushed board (event.render_player)
    return render(request, "scoreboard/event.html",
                  {**ctx, "board": board, "view": "player", "views": event.FRAGMENTS,
                   "board_ws": _socket(f"player-{comp.pk}-{entry}", board)})
