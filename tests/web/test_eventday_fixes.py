"""Fixes from a tester's pass over the event-day pages (issue 5): English text, the súmula PDF's
columns and event types, table names, the idle TV after a concession, the table tablet."""
from __future__ import annotations

import io
import re

import pytest
from django.test import Client
from django.utils import translation
from pypdf import PdfReader

from scoreboard.reports import exports
from scoreboard.core.matches import new_match
from scoreboard.core import log
from scoreboard.reports import sumula
from scoreboard.core import tables
from scoreboard.core.models import Event, Table

from ops_helpers import CONFIG, LOG, fresh_engines  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_stats():
    """Forget cached statistics: a rolled-back test database hands out the same match ids and
    seqs again, with other events (and times) behind them."""
    from scoreboard.reports import stats

    stats._cache.clear()
    yield
    stats._cache.clear()


def play(m, events):
    for i, ev in enumerate(events, start=m.seq):
        log.append_event(m.pk, ev, expected_seq=i, entered_by="referee:1")
    m.refresh_from_db()
    return m


def pdf_text(client, url: str) -> str:
    return "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(client.get(url).content)).pages)


# -- 1. English text -------------------------------------------------------------------------

def test_match_page_in_english_translates_the_chart_label_and_counts_reds_in_the_plural(client):
    m = play(new_match(CONFIG, table="1"), LOG)
    st = sumula.sheet(m).st
    reds = [p.reds_potted for p in st.players]
    assert reds == [3, 1]  # Ana: three reds; Bia: one (her blue was undone)
    pt = client.get(f"/matches/{m.pk}/?lang=pt-br").content.decode()
    assert "Partida 1 — tacadas" in pt and "(3 vermelhas)" in pt and "(1 vermelha)" in pt
    en = client.get(f"/matches/{m.pk}/?lang=en").content.decode()
    assert "Frame 1 — shots" in en and "tacadas" not in en
    assert "(3 reds)" in en and "(1 red)" in en and "(1 reds)" not in en and "vermelha" not in en


def test_sumula_pdf_footer_and_event_types_follow_the_language(client):
    m = play(new_match(CONFIG, table="1"), LOG)
    pt = pdf_text(client, f"/matches/{m.pk}/sumula.pdf?lang=pt-br")
    assert "página 1" in pt and "sem ponto" in pt and "desfazer" in pt
    en = pdf_text(client, f"/matches/{m.pk}/sumula.pdf?lang=en")
    assert "page 1" in en and "página" not in en
    assert "no pot" in en and "undo" in en and "decision" in en
    assert "no_pot" not in en and "no_pot" not in pt  # the codes stay in the CSV only
    assert "no_pot" in client.get(f"/matches/{m.pk}/sumula.csv").content.decode()


def test_admin_event_inline_headers_are_translated(admin_client):
    m = play(new_match(CONFIG), LOG[:2])
    field = Event._meta.get_field
    with translation.override("pt-br"):
        assert [str(field(f).verbose_name) for f in ("seq", "entered_by", "at", "description_pt")] == [
            "nº", "registrado por", "hora", "descrição (pt)"]
    with translation.override("en"):
        assert [str(field(f).verbose_name) for f in ("seq", "event", "entered_by", "at", "description_pt")] == [
            "no.", "event", "entered by", "time", "description (pt)"]
    page = admin_client.get(f"/admin/scoreboard/match/{m.pk}/change/").content.decode()
    assert "Registrado por" in page and "Descrição (pt)" in page


# -- 2. Súmula PDF columns ---------------------------------------------------------------------

def test_pdf_columns_never_break_a_word_or_a_time(client):
    m = play(new_match(CONFIG, table="1", referee_name="Rui Barbosa"), LOG)
    text = pdf_text(client, f"/matches/{m.pk}/sumula.pdf")
    times = {sumula.clock(e.at) for e in m.events.all()}
    for t in times:
        assert t in text, t  # "13:44:39", never "13:44:" / "39"
    assert not re.search(r"\d\d:\d\d:\s*\n", text)
    assert "Partid\n" not in text and "Advertênci\n" not in text and "Beneficiad\n" not in text


def test_col_widths_fit_the_page_and_the_longest_word():
    from reportlab.pdfbase.pdfmetrics import stringWidth

    head = ["Seq", "Hora", "Partida", "Infrator", "Tipo"]
    rows = [[1, "13:44:39", 1, "Ana Souza", "Bola visada não atingida primeiro " * 3]]
    w = sumula.col_widths(head, rows, 500, "Helvetica", "Helvetica-Bold", 8)
    assert abs(sum(w) - 500) < 0.01
    assert w[1] >= stringWidth("13:44:39", "Helvetica", 8) + 2 * sumula.PAD
    assert w[2] >= stringWidth("Partida", "Helvetica-Bold", 8) + 2 * sumula.PAD
    assert w[4] == max(w)  # the long text gets the room


# -- 3. Table names ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, short", [("Mesa 1", "1"), ("mesa  2", "2"), ("TABLE 3", "3"), ("7", "7"),
                                         ("Mesa", "Mesa"), ("Mesão 1", "Mesão 1"), ("Central", "Central")])
def test_table_short_name_drops_a_leading_mesa(name, short):
    assert Table(name=name).short_name == short


def test_a_table_named_mesa_1_is_not_shown_as_mesa_mesa_1(client):
    t = Table.objects.create(name="Mesa 1")
    m = play(new_match(CONFIG, table="Mesa 1"), LOG[:2])
    for url in ("/", "/tv/", f"/matches/{m.pk}/", f"/matches/{m.pk}/tv/", f"/tables/{t.pk}/tv/"):
        html = client.get(url).content.decode()
        assert "Mesa Mesa" not in html, url
    assert "Mesa 1" in client.get(f"/matches/{m.pk}/").content.decode()
    play(m, [{"type": "concede_match", "player": 1}])
    idle = client.get(f"/tables/{t.pk}/tv/").content.decode()
    assert "Mesa 1" in idle and "Mesa Mesa" not in idle


# -- 4. The idle TV after a concession ---------------------------------------------------------

def test_idle_tv_after_a_concession_says_why_and_has_no_stray_separator(client):
    m = play(new_match(CONFIG, table="5"), LOG[:4] + [{"type": "concede_match", "player": 1}])
    t = m.table
    html = client.get(f"/tables/{t.pk}/tv/").content.decode()
    reason = re.search(r'<p class="idle-reason">(.*?)</p>', html, re.S).group(1)
    assert "Vence Ana Souza" in reason and "por desistência (Art. 54.2)" in reason
    sub = re.search(r'<p class="idle-sub">(.*?)</p>', html, re.S).group(1)
    assert sub.startswith("Maior tacada") and "·" not in sub
    en = client.get(f"/tables/{t.pk}/tv/?lang=en").content.decode()
    assert "Ana Souza wins" in en and "by concession (Art. 54.2)" in en


# -- 5. The table's tablet ---------------------------------------------------------------------

def test_table_tablet_without_a_match_polls_the_table_and_finished_match_links_back():
    t = Table.objects.create(name="6")
    tables.set_pin(t, "2468")
    tablet = Client()
    page = tablet.post(f"/tables/{t.pk}/referee/", {"pin": "2468"}).content.decode()
    assert 'id="follow"' in page and f'data-follow-url="/tables/{t.pk}/now/"' in page
    assert f'data-follow-go="/tables/{t.pk}/referee/"' in page and "scoreboard/ops.js" in page
    key = re.search(r'data-follow-key="([^"]*)"', page).group(1)
    assert tablet.get(f"/tables/{t.pk}/now/").json()["key"] == key
    m = new_match(CONFIG, table="6")  # the organiser puts a match on the table
    assert tablet.get(f"/tables/{t.pk}/now/").json()["key"] != key  # ops.js goes back to the table page
    r = tablet.get(f"/tables/{t.pk}/referee/")
    assert r.status_code == 302 and r["Location"] == f"/matches/{m.pk}/referee/"
    assert f'/tables/{t.pk}/referee/"' not in tablet.get(r["Location"]).content.decode()
    play(m, [{"type": "concede_match", "player": 0}])
    over = tablet.get(f"/matches/{m.pk}/referee/").content.decode()
    assert f'href="/tables/{t.pk}/referee/"' in over and "Próximo jogo desta mesa" in over


def test_a_login_page_without_permission_does_not_poll():
    t = Table.objects.create(name="8")
    tables.set_pin(t, "2468")
    page = Client().get(f"/tables/{t.pk}/referee/").content.decode()
    assert 'id="follow"' not in page and "ops.js" not in page
