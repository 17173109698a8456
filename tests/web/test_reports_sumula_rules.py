"""The súmula carries the rules it applied: the article of each line of its event list, and an
annex with the verbatim text of every article its fouls, decisions, warnings and endings cite,
read back from the PDF (pypdf) for a match with a retorno, a free ball, a warning, an
aggravated chain and a decider."""
from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from scoreboard.core import log
from scoreboard.core.matches import new_match
from scoreboard.reports import sumula
from sinuca.rulebook import load

from ops_helpers import fresh_engines, fresh_stats  # noqa: F401

pytestmark = pytest.mark.django_db

CONFIG = {"players": ["Ana Souza", "Bia Lima"], "frames_to_win": 2,
          "position": {"reds_remaining": 0, "colours_remaining": [7], "scores": [30, 37], "striker": 0}}
EVENTS = [
    {"type": "pot", "balls": [7]},                                  # 37-37: the decider (Art. 52)
    {"type": "lot", "player": 0}, {"type": "pot", "balls": [7]},    # its lot (Art. 18) and its 7
    {"type": "next_frame"},
    {"type": "foul", "ball": 1, "retorno": True}, {"type": "decision", "choice": "retorno"},   # Art. 25.5
    {"type": "foul", "ball": 1, "snooker": True}, {"type": "decision", "choice": "play"},      # Art. 35.3, 36
    {"type": "pot", "balls": [5], "free_ball": 5}, {"type": "pot", "balls": [5]}, {"type": "no_pot"},  # Art. 37
    {"type": "foul", "kind": "slow_play"}, {"type": "decision", "choice": "pass"},             # Art. 42, 35.4
    *[{"type": "foul", "ball": 1, "aggravated": True, "retorno": True}, {"type": "decision", "choice": "retorno"}] * 2,
    {"type": "foul", "ball": 1, "aggravated": True, "retorno": True},  # the third loses the frame (Art. 27)
]


@pytest.fixture
def played(db):
    m = new_match(CONFIG, table="3", referee_name="Rui Barbosa")
    for i, ev in enumerate(EVENTS):
        log.append_event(m.pk, ev, expected_seq=i, entered_by="referee:1")
    return m


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_each_event_line_has_its_article_and_the_sheet_lists_what_it_cites(played):
    s = sumula.sheet(played)
    rows = s.event_rows()
    assert sumula.EVENT_HEAD()[-1] == "Art."
    arts = [r[-1] for r in rows]
    assert arts[0] == "52" and arts[1] == "18, 52" and arts[3] == "17"
    assert arts[5] == "25.5" and arts[7] == "35.3, 36" and arts[8] == "37"
    assert arts[12] == "35.4" and arts[-1] == "40, 27, 44"
    assert s.cited() == ["17", "18", "25", "25.5", "27", "35.3", "35.4", "36", "37", "40", "42", "42.1",
                         "44", "46", "49.4", "52", "54.1"]


def test_the_pdf_annex_holds_every_cited_article_verbatim(client, played):
    pdf = client.get(f"/matches/{played.pk}/sumula.pdf")
    assert pdf.status_code == 200
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages]
    text = _flat("\n".join(pages))
    annex = text[text.index("Anexo: texto dos artigos citados"):]
    book = load()
    heads = []
    for n in (17, 18, 25, 27, 35, 36, 37, 40, 42, 44, 46, 49, 52, 54):
        art = book.article(n)
        assert _flat(f"Art. {n} – {art.text}") in annex, n
        heads.append(annex.index(f"Art. {n} – "))
        for item in art.items:
            assert _flat(f"{item.id} {item.text}") in annex, item.id
    assert heads == sorted(heads)  # in the text's order
    assert "Art. 26 –" not in annex and "Art. 51 –" not in annex  # not cited by this match
    assert _flat("25.5.2 Para repetição de jogada, as bolas movimentadas retornam às posições originais") in annex
    # the event list gives each line's article
    events = text[text.index("Eventos"):text.index("Anexo")]
    assert "25.5" in events and "35.3, 36" in events
    en = _flat("\n".join(p.extract_text() for p in PdfReader(io.BytesIO(
        client.get(f"/matches/{played.pk}/sumula.pdf?lang=en").content)).pages))
    assert "Annex: the articles cited, in the words of the rules (CBBS 2008, Portuguese)" in en
    assert _flat(f"Art. 27 – {book.article(27).text}") in en
