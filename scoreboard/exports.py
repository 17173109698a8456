"""A match as the contract's JSON (``{"config", "events"}``), out and in, and its súmula downloads.

The export is exactly what ``python -m sinuca replay`` reads. An import checks the whole log with
the engine first, then stores each event through ``services.append_event`` like a referee's tap,
so the imported match has the same log, descriptions and broadcasts as one scored live.
"""
from __future__ import annotations

import json

from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

import sinuca

from . import services, sumula
from .models import Match, Player, Table


def export_document(match: Match) -> dict:
    """``{"config", "events"}`` of a match: its frozen configuration and every stored event."""
    return {"config": match.config,
            "events": [e.event for e in services.events_of(match.pk)]}


def read_document(text: str) -> dict:
    """Parse and check a match file; raise ``ValueError`` (a ``SinucaError`` for the engine's
    refusals, with ``index`` the refused event's position) when it cannot be imported."""
    doc = json.loads(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict) \
            or not isinstance(doc.get("events", []), list):
        raise ValueError('esperado {"config": {...}, "events": [...]} / expected {"config": {...}, "events": [...]}')
    sinuca.Match.replay(doc["config"], doc.get("events", []))  # the engine decides, before anything is stored
    return doc


def _player(name: str) -> Player:
    return Player.objects.filter(name=name).order_by("pk").first() or Player.objects.create(name=name)


def new_match(config: dict, *, table: str = "", started: bool = True, **fields) -> Match:
    """A match row for an engine-accepted ``config`` (raises ``SinucaError`` otherwise)."""
    cfg = sinuca.Match(config).config
    with transaction.atomic():
        tbl = Table.objects.get_or_create(name=table)[0] if table else None
        return Match.objects.create(
            player_a=_player(cfg["players"][0]), player_b=_player(cfg["players"][1]), table=tbl,
            reds=cfg["reds"], frames_to_win=cfg["frames_to_win"], first_breaker=cfg.get("first_breaker"),
            retorno=cfg.get("retorno", True), config=cfg, started_at=timezone.now() if started else None,
            **fields)


def import_document(doc: dict, *, table: str = "", entered_by: str = "import") -> Match:
    """Store a checked match file as a new match (see :func:`read_document`)."""
    match = new_match(doc["config"], table=table)
    for i, ev in enumerate(doc.get("events", [])):
        services.append_event(match.pk, ev, expected_seq=i, entered_by=entered_by)
    match.refresh_from_db()
    return match


def _match(match_id: int) -> Match:
    try:
        return Match.objects.select_related("table", "player_a", "player_b").get(pk=match_id)
    except Match.DoesNotExist:
        raise Http404


@require_GET
def export_json(request: HttpRequest, match_id: int) -> JsonResponse:
    """``GET /api/matches/<id>/export/``: the match file; ``?download=1`` saves it as a file."""
    resp = JsonResponse(export_document(_match(match_id)), json_dumps_params={"ensure_ascii": False})
    if request.GET.get("download"):
        resp["Content-Disposition"] = f'attachment; filename="match-{match_id}.json"'
    return resp


@require_GET
def sumula_csv(request: HttpRequest, match_id: int) -> HttpResponse:
    """``GET /matches/<id>/sumula.csv``."""
    text = sumula.as_csv(sumula.sheet(_match(match_id)))
    resp = HttpResponse("\ufeff" + text, content_type="text/csv; charset=utf-8")  # BOM: spreadsheets read UTF-8
    resp["Content-Disposition"] = f'inline; filename="sumula-{match_id}.csv"'
    return resp


@require_GET
def sumula_pdf(request: HttpRequest, match_id: int) -> HttpResponse:
    """``GET /matches/<id>/sumula.pdf``."""
    pdf = sumula.as_pdf(sumula.sheet(_match(match_id)))
    resp = HttpResponse(pdf, content_type="application/pdf")
    resp["Content-Disposition"] = f'inline; filename="sumula-{match_id}.pdf"'
    return resp
