"""The desk of a competition (its organisers and the superuser, ``core.access``): every table, the queue, late calls, and the actions
(call, start, W.O., move, postpone, correct), pushed over the board socket (``live.boards``,
kind ``desk-<id>``): no polling. Also the competition's exports: results and standings as CSV,
and the wallchart (PDF: the groups' tables and the knockout's tree) on A4 for the paper fallback
and on A3 for the wall. And the federation's staff's one action, a protest's overruling of a
venue's result (:func:`overrule`).
"""
from __future__ import annotations

import json

from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import get_language
from django.views.decorators.http import require_POST, require_safe

from tournament import TournamentError

import sinuca

from ..core import competitions, limits, overrulings, webhooks
from ..core.i18n import engine_lang
from ..core.models import Competition
from ..http import errors
from ..http.guard import required
from ..live import boards
from ..reports import brackets, pdfproc, wallchart
from .screens import bad_option


@required("competition.desk", "comp_id")
@require_safe  # GET, and HEAD answered like it
def desk(request: HttpRequest, comp_id: int) -> HttpResponse:
    """``/desk/<id>/``: the desk, pushed live (board socket ``view=desk-<id>``)."""
    get_object_or_404(Competition, pk=comp_id)
    ctx = {**boards.desk_context(comp_id),
           "board_ws": f"/ws/boards/?view=desk-{comp_id}&lang={get_language() or 'pt-br'}"}
    return render(request, "scoreboard/desk.html", ctx)


def _json_object(request: HttpRequest) -> dict | None:
    """The request's body as a JSON object, or None when it is not one (no JSON, not an object)."""
    try:
        body = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return body if isinstance(body, dict) else None


@required("competition.desk", "comp_id")
@require_POST
def desk_action(request: HttpRequest, comp_id: int) -> JsonResponse:
    """``POST /desk/<id>/action/`` (JSON, an organiser's session and its CSRF token): one desk action,
    as the API's (``core.competitions.perform``). 200 ``{"ok": true}``; 422 ``{"error":
    {"code", "message"}}`` in the page's language, nothing changed."""
    comp = get_object_or_404(Competition, pk=comp_id)
    body = _json_object(request)
    if body is None:
        return errors.request_error("bad_request", "JSON inválido").json()
    try:
        competitions.perform(comp, body, f"user:{request.user.get_username()}")
    except (TournamentError, sinuca.SinucaError) as e:
        return errors.refusal(e, one_language=True).json()
    return JsonResponse({"ok": True})


@required("match.overrule", "match_id")
@require_POST
def overrule(request: HttpRequest, match_id: int) -> JsonResponse:
    """``POST /federation/matches/<id>/overrule/`` (JSON ``{"winner": 0 | 1, "frames": [a, b],
    "reason"}``, the federation staff's session and its CSRF token): a protest's overruling of a
    venue's result (``core.overrulings``), the venue's record untouched. 201 ``{"ok": true,
    "overruling": {"match", "winner", "frames", "reason"}}``; 400 for a body that is no JSON
    object, 422 ``{"error": {"code", "message"}}`` in Portuguese and English, nothing stored."""
    body = _json_object(request)
    if body is None:
        return errors.request_error("bad_request", "JSON inválido").json()
    try:
        with transaction.atomic():
            rec = overrulings.overrule(match_id, body, f"user:{request.user.get_username()}")
            webhooks.overruled(rec)
    except TournamentError as e:
        return errors.refusal(e).json()
    return JsonResponse({"ok": True, "overruling": {"match": match_id, **rec.data, "reason": rec.reason}},
                        status=201)


@required("competition.desk", "comp_id")
@require_safe  # GET, and HEAD answered like it
def results_csv(request: HttpRequest, comp_id: int) -> HttpResponse:
    """``/desk/<id>/results.csv``: every match of the competition with its result."""
    comp = get_object_or_404(Competition, pk=comp_id)
    return _csv(brackets.results_csv(comp, engine_lang()), f"competition-{comp.pk}-results.csv")


@required("competition.desk", "comp_id")
@require_safe  # GET, and HEAD answered like it
def standings_csv(request: HttpRequest, comp_id: int) -> HttpResponse:
    """``/desk/<id>/standings.csv``: each group's standings with the tie-break reason."""
    comp = get_object_or_404(Competition, pk=comp_id)
    return _csv(brackets.standings_csv(comp, engine_lang()), f"competition-{comp.pk}-standings.csv")


@required("competition.desk", "comp_id")
@require_safe  # GET, and HEAD answered like it
def bracket_pdf(request: HttpRequest, comp_id: int) -> HttpResponse:
    """``/desk/<id>/bracket.pdf``: the wallchart, landscape: each group stage's standings and
    matches as tables, the knockout as a tree (``reports.wallchart``). On A4 for the day's paper
    fallback, ``?size=a3`` for the wall; another size is a 400 in Portuguese and English."""
    comp = get_object_or_404(Competition, pk=comp_id)
    paper = request.GET.get("size", "a4").strip().lower()
    if paper not in wallchart.PAPERS:
        return bad_option(request, "size", paper, ", ".join(wallchart.PAPERS))
    limits.PDFS.acquire()  # each render holds a whole document in memory: PDF_SLOTS at a time
    try:
        pdf = pdfproc.bracket(comp.pk, engine_lang(), paper)
    finally:
        limits.PDFS.release()
    resp = HttpResponse(pdf, content_type="application/pdf")
    name = "bracket" if paper == "a4" else f"wallchart-{paper}"
    resp["Content-Disposition"] = f'inline; filename="competition-{comp.pk}-{name}.pdf"'
    return resp


def _csv(text: str, filename: str) -> HttpResponse:
    resp = HttpResponse(text.encode("utf-8-sig"), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="{filename}"'
    return resp
