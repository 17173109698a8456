"""The súmula (official score sheet) downloads: PDF and CSV."""
from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from ..core.models import Match
from ..reports import sumula


def _match(match_id: int) -> Match:
    try:
        return Match.objects.select_related("table", "player_a", "player_b").get(pk=match_id)
    except Match.DoesNotExist:
        raise Http404


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
