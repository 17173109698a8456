"""``pages/sheets.py``: the súmula downloads of a match (their content: test_reports_sumula.py)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_sumula_of_an_unknown_match_is_404(client, db):
    assert client.get("/matches/999/sumula.pdf").status_code == 404
    assert client.get("/matches/999/sumula.csv").status_code == 404


def _pot(created, seq: int, ball: int) -> None:
    from scoreboard.core import log

    log.append_event(created.match.pk, {"type": "pot", "balls": [ball]}, expected_seq=seq)


def test_the_pdf_is_rendered_once_per_seq_and_language(client, created, monkeypatch):
    """Issue finding 5: every download rendered the whole sheet again (4 s on a long match)."""
    from scoreboard.reports import sumula

    calls = []
    real = sumula.as_pdf
    monkeypatch.setattr(sumula, "as_pdf", lambda s: calls.append((s.match.seq, s.lang)) or real(s))
    url = f"/matches/{created.match.pk}/sumula.pdf"
    first, again = client.get(url), client.get(url)
    english = client.get(url + "?lang=en")
    _pot(created, 0, 1)
    after = client.get(url + "?lang=pt-br")
    assert [r.status_code for r in (first, again, english, after)] == [200] * 4
    assert first.content == again.content and first.content != after.content
    assert calls == [(0, "pt"), (0, "en"), (1, "pt")]


def test_the_csv_is_built_once_per_seq(client, created, monkeypatch):
    from scoreboard.reports import sumula

    calls = []
    real = sumula.as_csv
    monkeypatch.setattr(sumula, "as_csv", lambda s: calls.append(s.match.seq) or real(s))
    url = f"/matches/{created.match.pk}/sumula.csv"
    texts = [client.get(url).content for _ in range(3)]
    _pot(created, 0, 1)
    texts.append(client.get(url).content)
    assert calls == [0, 1] and texts[0] == texts[1] == texts[2] != texts[3]


def test_a_pdf_waits_for_the_render_slot_then_answers_a_busy_page(client, created, settings):
    from scoreboard.core import capacity

    settings.PDF_SLOTS, settings.PDF_WAIT = 1, 0.05
    capacity.PDFS.reset()
    with capacity.PDFS.slot():
        r = client.get(f"/matches/{created.match.pk}/sumula.pdf")
    assert (r.status_code, r["Retry-After"], r["Content-Type"]) == (503, "2", "text/html; charset=utf-8")
    assert "Servidor ocupado / Server busy" in r.content.decode()
    assert client.get(f"/matches/{created.match.pk}/sumula.pdf").status_code == 200


def test_the_statistics_page_folds_the_log_once_per_seq(client, created, monkeypatch):
    from scoreboard.reports import stats

    calls = []
    real = stats.for_match
    monkeypatch.setattr(stats, "for_match", lambda m: calls.append(m.seq) or real(m))
    url = f"/matches/{created.match.pk}/"
    pages = [client.get(url) for _ in range(2)] + [client.get(url + "?partial=stats")]
    _pot(created, 0, 1)
    pages.append(client.get(url))
    assert [p.status_code for p in pages] == [200] * 4
    assert calls == [0, 1]
    assert pages[0].content == pages[1].content


def test_report_pages_are_limited_per_address(client, created, settings):
    settings.REPORT_RATE = "2/m"
    mid = created.match.pk
    got = [client.get(u, REMOTE_ADDR="10.1.1.1").status_code
           for u in (f"/matches/{mid}/", f"/matches/{mid}/sumula.csv", f"/matches/{mid}/sumula.pdf")]
    assert got == [200, 200, 429]
