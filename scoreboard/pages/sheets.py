"""The súmula (official score sheet) downloads: PDF and CSV.

Both are anonymous reports: limited per address and read in a read slot (``http.capacity``),
served from the shared cache per (match, seq, language) (``reports.cache``), with an ETag per
(match, seq, language) so that a browser asking again gets a 304. A PDF is rendered in a
separate, idle-priority process (``reports.pdfproc``), once at a time per (match, language) for
the whole deployment (``reports.cache.single_flight``): the other requests wait for that render
(holding neither a read slot nor a database connection), then 503 busy after ``PDF_WAIT``.
"""
from __future__ import annotations

from django.conf import settings
from django.db.models import Max, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.http import parse_etags
from django.utils.translation import get_language
from django.views.decorators.http import require_safe

from ..core import limits, overrulings
from ..http import capacity
from ..core.models import Match
from ..reports import cache as report_cache
from ..reports import pdfproc, sumula


def _match(match_id: int) -> Match:
    """The match row, with ``last_overruling`` (the pk of the federation's latest overruling
    of it, or None) for the report's cache key and ETag: an overruling changes the sheet at the
    same seq."""
    try:
        return (Match.objects.select_related("table", "player_a", "player_b")
                .annotate(last_overruling=Max("records__pk", filter=Q(records__kind=overrulings.KIND)))
                .get(pk=match_id))
    except (Match.DoesNotExist, OverflowError):
        raise Http404


def _csv(match: Match) -> tuple[int, str]:
    s = sumula.sheet(match)
    return s.match.seq, sumula.as_csv(s)


def _csv_in_a_slot(match: Match) -> tuple[int, str]:
    with capacity.read_slot():  # the build reads the log: a read slot for it alone
        return _csv(match)


@require_safe
@capacity.rate_limited
def sumula_csv(request: HttpRequest, match_id: int) -> HttpResponse:
    """``GET /matches/<id>/sumula.csv``. Like the PDF, a request waiting for another's build of
    the same sheet holds no read slot: with ``READ_SLOTS`` 3, eight clients at once kept three
    slots (one building, two waiting) and the other five got 503 busy."""
    with capacity.read_slot():
        match = _match(match_id)
    text = report_cache.cached("csv", match, get_language(), lambda: _csv_in_a_slot(match))
    resp = HttpResponse("\ufeff" + text, content_type="text/csv; charset=utf-8")  # BOM: spreadsheets read UTF-8
    resp["Content-Disposition"] = f'inline; filename="sumula-{match_id}.csv"'
    return resp


def etag(match: Match, seq: int, lang: str) -> str:
    """The súmula's entity tag: one per (match, seq, language), as the cache keys."""
    return '"%s"' % report_cache.key("sumula", match, seq, lang).replace(":", "-")


def not_modified(request: HttpRequest, tag: str) -> bool:
    """Whether the client already holds the document tagged ``tag`` (If-None-Match)."""
    header = request.headers.get("If-None-Match", "")
    return bool(header) and (header.strip() == "*" or tag in parse_etags(header))


def _start_pdf(match: Match, lang: str, seconds: float, done) -> None:
    """Start a render in this worker's render process; ``done`` gets its result. PDF_SLOTS bounds
    this worker's renders of any match (each holds a whole sheet in memory): the slot is held
    until the render ends, whether or not anyone still waits for it."""
    limits.PDFS.acquire(min(seconds, settings.PDF_WAIT))
    try:
        fut = pdfproc.submit(match.pk, lang)
    except BaseException:
        limits.PDFS.release()
        raise

    def finished(f) -> None:
        try:
            done(f.exception() or f.result())
        finally:
            limits.PDFS.release()

    fut.add_done_callback(finished)


@require_safe
@capacity.rate_limited
def sumula_pdf(request: HttpRequest, match_id: int) -> HttpResponse:
    """``GET /matches/<id>/sumula.pdf``: the sheet at the match's current seq (or a later one, if
    a render that began after this request has finished first)."""
    with capacity.read_slot():  # one read of the match row, then the slot and connection go back
        match = _match(match_id)
    lang = get_language()
    tag = etag(match, match.seq, lang)
    if not_modified(request, tag):
        resp = HttpResponseNotModified()
    else:
        seq, pdf = report_cache.single_flight("pdf", match, match.seq, lang,
                                              lambda left, done: _start_pdf(match, lang, left, done),
                                              wait=settings.PDF_WAIT)
        resp = HttpResponse(pdf, content_type="application/pdf")
        resp["Content-Disposition"] = f'inline; filename="sumula-{match_id}.pdf"'
        tag = etag(match, seq, lang)
    resp["ETag"] = tag
    resp["Cache-Control"] = "no-cache"  # the URL's content changes with every tap: ask again, cheaply
    return resp
