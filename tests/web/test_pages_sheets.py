"""``pages/sheets.py``: the súmula downloads of a match (their content: test_reports_sumula.py)."""
from __future__ import annotations

import pytest
from django.db import connection

import live_server

pytestmark = [pytest.mark.django_db, pytest.mark.pg]


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
    from scoreboard.core import limits

    settings.PDF_SLOTS, settings.PDF_WAIT = 1, 0.05
    live_server.forget_slots(limits.PDFS)
    with limits.PDFS.slot():
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
    settings.REPORT_RATE = "2/d"  # a day's window: none ends between the three requests
    mid = created.match.pk
    got = [client.get(u, REMOTE_ADDR="10.1.1.1").status_code
           for u in (f"/matches/{mid}/", f"/matches/{mid}/sumula.csv", f"/matches/{mid}/sumula.pdf")]
    assert got == [200, 200, 429]


def test_the_match_pages_live_statistics_are_not_counted_per_address(client, created, settings):
    """Every open match page fetches ``?partial=stats`` once per new seq: fifty phones behind a
    venue's NAT are one address, and counted as reports they used up its allowance within
    minutes of play (429 for the whole room). The page itself stays a report."""
    settings.REPORT_RATE = "2/d"
    mid = created.match.pk
    live = [client.get(f"/matches/{mid}/?partial=stats", REMOTE_ADDR="10.1.1.2") for _ in range(5)]
    assert [r.status_code for r in live] == [200] * 5
    assert live[-1].content.decode().lstrip().startswith('<main id="match-stats"')
    pages = [client.get(f"/matches/{mid}/", REMOTE_ADDR="10.1.1.2").status_code for _ in range(3)]
    assert pages == [200, 200, 429]


# -- one render for many clients, and a 304 for a client that has the sheet (issue 9) ----------

def all_waiting(monkeypatch, n: int):
    """An event set once ``n`` threads wait for a report another request builds (they look at
    the cache, find nothing and pause: ``reports.cache.single_flight``)."""
    import threading

    from scoreboard.reports import cache as report_cache

    waiting, lock, done = set(), threading.Lock(), threading.Event()
    real = report_cache.give_back_connection

    def pause():
        with lock:
            waiting.add(threading.get_ident())
            if len(waiting) >= n:
                done.set()
        real()
    monkeypatch.setattr(report_cache, "give_back_connection", pause)
    return done


@pytest.mark.django_db(transaction=True)  # the requests run in threads of their own
def test_concurrent_requests_for_the_same_sheet_render_it_once(created, monkeypatch):
    """Eight clients asking at once: one render, eight identical answers."""
    import threading

    from django.test import Client

    from scoreboard.reports import pdfproc

    calls = []
    real = pdfproc._render_here
    others = all_waiting(monkeypatch, 7)

    def slow(match_id, lang):
        calls.append((match_id, lang))
        assert others.wait(60)  # rendered once every other request waits for it
        return real(match_id, lang)

    monkeypatch.setattr(pdfproc, "_render_here", slow)
    answers = [None] * 8

    def fetch(i):
        try:
            answers[i] = Client().get(f"/matches/{created.match.pk}/sumula.pdf")
        finally:
            connection.close()  # the test client leaves a thread's connection open (a server closes it)

    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status_code for r in answers] == [200] * 8
    assert len({r.content for r in answers}) == 1 and answers[0].content.startswith(b"%PDF")
    assert calls == [(created.match.pk, "pt-br")]


def test_a_client_holding_the_current_sheet_gets_a_304(client, created):
    url = f"/matches/{created.match.pk}/sumula.pdf"
    first = client.get(url)
    tag = first["ETag"]
    assert first.status_code == 200 and first["Cache-Control"] == "no-cache"
    again = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert (again.status_code, again.content, again["ETag"]) == (304, b"", tag)
    english = client.get(url + "?lang=en", HTTP_IF_NONE_MATCH=tag)
    assert english.status_code == 200 and english["ETag"] != tag
    _pot(created, 0, 1)
    after = client.get(url + "?lang=pt-br", HTTP_IF_NONE_MATCH=tag)
    assert after.status_code == 200 and after["ETag"] not in (tag, english["ETag"])
    assert after.content.startswith(b"%PDF") and after.content != first.content


def test_a_pdf_request_holds_no_read_slot_while_it_waits_for_the_render(created, settings, monkeypatch):
    """The read slot is for database reads: a request waiting for a render holds none, so
    downloads in progress never make the log or the statistics answer busy."""
    from scoreboard.core import limits
    from scoreboard.reports import pdfproc

    settings.READ_SLOTS = 1
    live_server.forget_slots(limits.READS)
    free = []
    real = pdfproc._render_here
    monkeypatch.setattr(pdfproc, "_render_here", lambda *a: free.append(limits.READS._semaphore()._value)
                        or real(*a))
    from django.test import Client

    assert Client().get(f"/matches/{created.match.pk}/sumula.pdf").status_code == 200
    assert free == [1]


@pytest.mark.django_db(transaction=True)  # the requests run in threads of their own
def test_concurrent_requests_for_the_same_csv_build_it_once(created, monkeypatch):
    """Eight clients asking at once for the CSV at a new seq built it eight times at once (each
    half a second of the GIL on a long match); the others now wait for the first build."""
    import threading

    from django.test import Client

    from scoreboard.reports import sumula

    calls = []
    real = sumula.as_csv
    others = all_waiting(monkeypatch, 7)

    def slow(s):
        calls.append(s.match.seq)
        assert others.wait(60)  # built once every other request waits for it
        return real(s)

    monkeypatch.setattr(sumula, "as_csv", slow)
    answers = [None] * 8

    def fetch(i):
        answers[i] = Client().get(f"/matches/{created.match.pk}/sumula.csv")

    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status_code for r in answers] == [200] * 8
    assert len({r.content for r in answers}) == 1 and "Ana Souza" in answers[0].content.decode("utf-8-sig")
    assert calls == [0]
