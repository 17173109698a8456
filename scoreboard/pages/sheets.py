"""The súmula (official score sheet) downloads: PDF and CSV.

Both are anonymous reports: limited per address and run in a read slot (``core.capacity``),
served from the shared cache per (match, seq, language) (``reports.cache``); a PDF is rendered in
a separate process (``reports.pdfproc``) at most ``PDF_SLOTS`` at a time per worker, the others
waiting for it (then 503 busy).
"""
from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from ..core import capacity
from ..core.models import Match
from ..reports import cache as report_cache
from ..reports import pdfproc, sumula


def _match(match_id: int) -> Match:
    try:
        return Match.objects.select_related("table", "player_a", "player_b").get(pk=match_id)
    except (Match.DoesNotExist, OverflowError):
        raise Http404


def _csv(match: Match) -> tuple[int, str]:
    s = sumula.sheet(match)
    return s.match.seq, sumula.as_csv(s)


@require_GET
@capacity.report_view
def sumula_csv(request: HttpRequest, match_id: int) -> HttpResponse:
    """``GET /matches/<id>/sumula.csv``."""
    match = _match(match_id)
    text = report_cache.cached("csv", match, get_language(), lambda: _csv(match))
    resp = HttpResponse("\ufeff" + text, content_type="text/csv; charset=utf-8")  # BOM: spreadsheets read UTF-8
    resp["Content-Disposition"] = f'inline; filename="sumula-{match_id}.csv"'
    return resp


@require_GET
@capacity.report_view
def sumula_pdf(request: HttpRequest, match_id: int) -> HttpResponse:
    """``GET /matches/<id>/sumula.pdf``."""
    match = _match(match_id)
    lang = get_language()
    pdf = report_cache.get("pdf", match, match.seq, lang)
    if pdf is None:
        capacity.give_back_connection()  # the render process reads the match itself; don't hold one while waiting
        with capacity.PDFS.slot():
            # Whoever waited for the slot may find the sheet rendered by the one before.
            pdf = report_cache.get("pdf", match, match.seq, lang)
            if pdf is None:
                seq, pdf = pdfproc.render(match.pk, lang)
                report_cache.put("pdf", match, seq, lang, pdf)
    resp = HttpResponse(pdf, content_type="application/pdf")
    resp["Content-Disposition"] = f'inline; filename="sumula-{match_id}.pdf"'
    return resp
