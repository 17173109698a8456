"""Issue 11, findings 2 and 7: the statistics between frames and the súmula as an official
record. Frames (not points) in the "Partidas" row, breaks of 20+ listed apart, undone events
marked "anulada" with what took them back, the referee by name, every cell filled, a
frame-by-frame summary; the same in the PDF (text read back) and the CSV."""
from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from scoreboard.core.matches import new_match

from ops_helpers import (CONFIG, LOG, THREE_FRAMES, THREE_FRAMES_CONFIG, fold, fresh_engines,  # noqa: F401
                         fresh_stats, play)
from test_reports_sumula import pdf_text, sections

pytestmark = pytest.mark.django_db


@pytest.fixture
def three(db):
    return play(new_match(THREE_FRAMES_CONFIG, table="2", referee_name="Rui Barbosa"), THREE_FRAMES)


@pytest.fixture
def undone(db):
    return play(new_match(CONFIG, table="7", referee_name="Rui Barbosa"), LOG)


def test_fold_lists_breaks_of_20_and_frames():
    st = fold(THREE_FRAMES_CONFIG, THREE_FRAMES)
    ana, bia = st.players
    assert (ana.frames, bia.frames) == (2, 1)
    assert ana.big_breaks == [51, 23] and ana.big_breaks_text == "51, 23"
    assert bia.big_breaks_text == "24"
    assert [(f.frame, f.high, f.fouls) for f in st.frames] == [(1, [51, 0], [0, 0]), (2, [0, 24], [0, 0]),
                                                               (3, [8, 0], [0, 0])]


def test_fold_knows_which_undo_took_back_which_event():
    st = fold(CONFIG, LOG)
    assert st.undone == {9: 10} and st.undid == {10: 9}


def _row(html: str, label: str) -> list[str]:
    row = re.search(r"<tr>(?:(?!</tr>).)*?" + re.escape(label) + r"(?:(?!</tr>).)*</tr>", html, re.S).group(0)
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]


def test_tv_between_frames_shows_frames_and_breaks_apart(client, three):
    html = client.get(f"/matches/{three.pk}/tv/").content.decode()
    assert _row(html, "Partidas") == ["2", "Partidas", "1"]  # was "74 · 0 · 8" / "0 · 24 · 0"
    assert _row(html, "Tacadas de 20+") == ["51, 23", "Tacadas de 20+", "24"]  # was "51 23"


def test_csv_frames_breaks_and_frame_by_frame_summary(client, three):
    s = sections(client.get(f"/matches/{three.pk}/sumula.csv").content.decode())
    head = dict(row for row in s["head"][1:])
    assert head["Partidas"] == "2 × 1" and head["Vencedor"] == "Ana Souza" and head["Árbitro"] == "Rui Barbosa"
    stats = {r[0]: r for r in s["Estatísticas"][1:]}
    assert stats["Ana Souza"][1:4] == ["2", "51", "51, 23"] and stats["Bia Lima"][1:4] == ["1", "24", "24"]
    frames = s["Partidas"]
    assert frames[0] == ["Partida", "Ana Souza", "Bia Lima", "Vencedor", "Encerrada por",
                         "Maior tacada — Ana Souza", "Maior tacada — Bia Lima", "Faltas — Ana Souza",
                         "Faltas — Bia Lima", "Início", "Fim"]
    assert [r[:9] for r in frames[1:]] == [
        ["1", "74", "0", "Ana Souza", "bola encaçapada (Art. 50.1)", "51", "0", "0", "0"],
        ["2", "0", "24", "Bia Lima", frames[2][4], "0", "24", "0", "0"],
        ["3", "8", "0", "Ana Souza", frames[3][4], "8", "0", "0", "0"]]
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d", c) for r in frames[1:] for c in r[9:])
    assert "50.2" in frames[2][4]  # a concession, in the engine's words with its article


def test_csv_marks_undone_lines_names_the_referee_and_fills_every_cell(client, undone):
    s = sections(client.get(f"/matches/{undone.pk}/sumula.csv").content.decode())
    events = {r[0]: r for r in s["Eventos"][1:]}
    # the type in words as the PDF prints it (a tester read "pot", "foul" beside "encaçapada"),
    # then the contract's code for programs
    assert s["Eventos"][0] == ["Seq", "Hora", "Registrado por", "Descrição", "Tipo", "Código", "Anulada", "Art."]
    assert events["9"][3] == "Anulada: Bia Lima encaçapa a azul (5): +5, tacada 6 (desfeita no lance 10)"
    assert (events["9"][4], events["9"][5]) == ("encaçapada", "pot")
    assert events["9"][6] == "sim" and events["8"][6] == "não"
    assert events["10"][3] == "Desfaz o lance 9: Bia Lima encaçapa a azul (5): +5, tacada 6"
    assert {r[2] for r in events.values()} == {"Rui Barbosa (tablet)"}  # never "referee:1"
    fouls = s["Faltas"][1:]
    assert [r[8] for r in fouls] == ["não", "não"]  # Retorno never blank
    for section in ("Partidas", "Estatísticas", "Faltas", "Advertências e desclassificações", "Eventos"):
        for row in s[section]:
            assert all(c.strip() for c in row), (section, row)


def test_csv_in_english_marks_undone_lines(client, undone):
    s = sections(client.get(f"/matches/{undone.pk}/sumula.csv?lang=en").content.decode())
    ev = {r[0]: r for r in s["Events"][1:]}
    assert ev["9"][3].startswith("Void: ") and ev["9"][3].endswith("(undone at entry 10)")
    assert s["Events"][0][4:] == ["Kind", "Code", "Void", "Art."]
    assert ev["9"][6] == "yes" and ev["1"][2] == "Rui Barbosa (tablet)"
    assert [r[8] for r in s["Fouls"][1:]] == ["no", "no"]


def test_pdf_marks_undone_lines_struck_through_and_names_the_referee(client, undone):
    r = client.get(f"/matches/{undone.pk}/sumula.pdf")
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(r.content)).pages)
    flat = re.sub(r"\s+", " ", text)
    assert "Anulada: Bia Lima encaçapa a azul (5): +5, tacada 6 (desfeita no lance 10)" in flat
    assert "Desfaz o lance 9: Bia Lima encaçapa a azul (5): +5, tacada 6" in flat
    assert "Rui Barbosa (tablet)" in flat and "referee:1" not in flat
    assert "Árbitro: Rui Barbosa" in flat
    assert re.search(r"Ana Souza não\b", flat)  # the Retorno cell of a foul: "não", not blank
    # Struck through: a horizontal line crosses the text of the undone line (row 9), and no
    # line crosses the text of a valid one (row 8), as read from the page's drawing operators.
    assert struck(r.content, "Anulada: Bia Lima") and not struck(r.content, "Bia Lima encaçapa uma vermelha")


def struck(pdf: bytes, start: str) -> bool:
    """Whether a horizontal line segment is drawn across the middle of the text that begins
    with ``start`` (reportlab's <strike>), on any page."""
    for page in PdfReader(io.BytesIO(pdf)).pages:
        spots, lines, cur = [], [], {}

        def text(t, cm, tm, font, size):
            if t.startswith(start):
                spots.append((tm[4] * cm[0] + cm[4], tm[5] * cm[3] + cm[5], size))

        def op(o, args, cm, tm):
            if o == b"m":
                cur["m"] = (float(args[0]) * cm[0] + cm[4], float(args[1]) * cm[3] + cm[5])
            elif o == b"l" and "m" in cur:
                x2, y2 = float(args[0]) * cm[0] + cm[4], float(args[1]) * cm[3] + cm[5]
                if abs(y2 - cur["m"][1]) < 0.01:
                    lines.append((cur["m"][0], x2, y2))

        page.extract_text(visitor_text=text, visitor_operand_before=op)
        for x, y, size in spots:
            if any(x1 <= x + 1 and x2 > x + 20 and y < ly < y + size for x1, x2, ly in lines):
                return True
    return False


def test_pdf_frames_and_breaks(client, three):
    flat = re.sub(r"\s+", " ", pdf_text(client, f"/matches/{three.pk}/sumula.pdf"))
    assert "Partidas 2 × 1" in flat
    assert "51, 23" in flat and "51 23" not in flat
