"""A competition on paper and in spreadsheets: results and standings as CSV, and the draw, the
groups and the bracket as an A4 landscape PDF (reportlab, as the súmula) for the paper fallback.
Everything is read from ``core.competitions`` (the core's recomputed state), in ``lang``
(``"pt"``/``"en"``); a match not played yet shows its placeholders ("Vencedor J3").
"""
from __future__ import annotations

import csv
import io
from xml.sax.saxutils import escape

from ..core import competitions
from ..core.models import Competition
from . import sumula

HEAD = {
    "pt": ["Jogo", "Fase", "Rodada", "Grupo", "Jogador A", "Jogador B", "Mesa", "Situação", "Partidas A",
           "Partidas B", "Vencedor", "Resultado"],
    "en": ["Match", "Stage", "Round", "Group", "Player A", "Player B", "Table", "Status", "Frames A",
           "Frames B", "Winner", "Result"],
}
STATUS = {
    "pt": {"scheduled": "agendado", "called": "chamado", "in_play": "em jogo", "finished": "encerrado",
           "walkover": "W.O.", "bye": "isento"},
    "en": {"scheduled": "scheduled", "called": "called", "in_play": "in play", "finished": "finished",
           "walkover": "W.O.", "bye": "bye"},
}
KIND = {
    "pt": {"frames": "por partidas", "concession": "desistência", "disqualification": "desclassificação",
           "walkover": "W.O.", "double_walkover": "W.O. duplo", "withdrawal": "abandono"},
    "en": {"frames": "on frames", "concession": "concession", "disqualification": "disqualification",
           "walkover": "W.O.", "double_walkover": "double W.O.", "withdrawal": "withdrawal"},
}
# a team competition (issue 19): the standings of teams, by ties, rubbers and frames
TEAM_STAND_HEAD = {
    "pt": ["Série", "Pos.", "Equipe", "J", "V", "E", "D", "Jogos +", "Jogos −", "Saldo de jogos",
           "Partidas +", "Partidas −", "Saldo de partidas", "Desempate"],
    "en": ["Series", "Pos.", "Team", "P", "W", "D", "L", "Rubbers won", "Rubbers lost", "Rubber diff.",
           "Frames won", "Frames lost", "Frame diff.", "Tie-break"],
}
STATUS["pt"].update({"pending": "a disputar", "not_played": "não disputado"})
STATUS["en"].update({"pending": "to play", "not_played": "not played"})
STAND_HEAD = {
    "pt": ["Fase", "Grupo", "Pos.", "Jogador", "J", "V", "D", "W.O.", "Partidas +", "Partidas −", "Saldo",
           "Pontos +", "Pontos −", "Maior tacada", "Desempate", "Colocação final", "Pontos de ranking"],
    "en": ["Stage", "Group", "Pos.", "Player", "P", "W", "L", "W.O.", "Frames won", "Frames lost", "Diff.",
           "Points won", "Points lost", "Highest break", "Tie-break", "Final placing", "Ranking points"],
}


DRAW_METHOD = {
    "pt": {"pots": "potes de cabeças de chave", "snake": "serpentina", "random": "aleatório", "manual": "manual",
           "teams": "equipes"},
    "en": {"pots": "seeded pots", "snake": "snake", "random": "random", "manual": "manual", "teams": "teams"},
}


def _side(m: dict, i: int) -> str:
    return m["players"][i] or (m["placeholders"][i] or "—")


def result_rows(comp: Competition, lang: str) -> list[list]:
    """One row per match of the plan (schedule order), as :data:`HEAD`."""
    s = competitions.summary(comp, lang)
    rows = []
    for t in s.get("ties", []):  # a team competition: one row per rubber, the winner a team
        for r in t["rubbers"]:
            fr = r["frames"] or ["", ""]
            rows.append([r["label"], 1, t["round"], f"{t['home_name']} × {t['away_name']}", r["sides"][0],
                         r["sides"][1], r["table"] or "", STATUS[lang].get(r["status"], r["status"]), fr[0], fr[1],
                         r["winner"] or "", KIND[lang].get(r["kind_of_result"], "") if r["kind_of_result"] else ""])
    for st in s["stages"]:
        for m in st["matches"]:
            fr = m["frames"] or ["", ""]
            rows.append([m["label"], st["index"] + 1, m["round"], m["group"] or "", _side(m, 0), _side(m, 1),
                         m["table"] or "", STATUS[lang][m["status"]], fr[0], fr[1], m["winner"] or "",
                         KIND[lang].get(m["kind"], "") if m["kind"] else ""])
    return rows


def results_csv(comp: Competition, lang: str) -> str:
    """Every match with its result, as CSV (header :data:`HEAD`)."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(HEAD[lang])
    w.writerows(result_rows(comp, lang))
    return out.getvalue()


def _tie(r: dict, lang: str) -> str:
    tb = r.get("tie_break")
    if isinstance(tb, dict):
        return tb.get(lang) or tb.get("pt") or ""
    return str(tb or "")


def standings_rows(comp: Competition, lang: str) -> list[list]:
    """Each group's standings, as :data:`STAND_HEAD`."""
    s = competitions.summary(comp, lang)
    rows = []
    if isinstance(s["standings"], list):  # a team competition: as TEAM_STAND_HEAD
        return [[s["series"]["name"], r["position"], r["name"], r["played"], r["won"], r["drawn"], r["lost"],
                 r["rubbers_won"], r["rubbers_lost"], r["rubber_difference"], r["frames_won"], r["frames_lost"],
                 r["frame_difference"], _tie(r, lang)] for r in s["standings"]]
    for key, srows in s["standings"].items():
        stage, group = key.split(":", 1)
        for r in srows:
            rows.append([int(stage) + 1, group, r["position"] or "", r["name"], r["played"], r["wins"],
                         r["losses"], r["walkovers"], r["frames_won"], r["frames_lost"], r["frame_difference"],
                         r["points_won"], r["points_lost"], r["highest_break"], _tie(r, lang),
                         r["placing"] if r["placing"] is not None else "",
                         r["ranking_points"] if r["ranking_points"] is not None else ""])
    return rows


def standings_csv(comp: Competition, lang: str) -> str:
    """The standings with the tie-break reason, as CSV (header :data:`STAND_HEAD`)."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow((TEAM_STAND_HEAD if competitions.teams.is_team(comp) else STAND_HEAD)[lang])
    w.writerows(standings_rows(comp, lang))
    return out.getvalue()


def bracket_pdf(comp: Competition, lang: str) -> bytes:
    """The draw (groups and their members), each group's standings, and every match with its
    players or placeholders and result, on A4 landscape pages."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import mm
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    font, bold = sumula._font()
    s = competitions.summary(comp, lang)
    styles = getSampleStyleSheet()
    for st in styles.byName.values():
        st.fontName = font
    h1, h2, body = styles["Heading1"], styles["Heading2"], styles["BodyText"]
    h1.fontName = h2.fontName = bold
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=landscape(A4), leftMargin=12 * mm, rightMargin=12 * mm,
                            topMargin=10 * mm, bottomMargin=10 * mm, title=comp.name)
    width = landscape(A4)[0] - 24 * mm
    words = {"pt": ("Chave e sorteio", "Semente do sorteio", "Classificação", "Jogos", "Campeão"),
             "en": ("Draw and bracket", "Draw seed", "Standings", "Matches", "Champion")}[lang]

    def table(head, rows, widths=None):
        t = Table([head] + rows, repeatRows=1, colWidths=widths)
        t.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), font, 8), ("FONT", (0, 0), (-1, 0), bold, 8),
                               ("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
                               ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8eef4"))]))
        return t

    method = comp.draw.get("method")
    # names go through Paragraph's markup: "Bar & Sinuca <Santos>" lost its "<Santos>" unescaped
    story = [Paragraph(f"{escape(comp.name)} — {words[0]}", h1),
             Paragraph(f"{words[1]}: {escape(str(comp.draw.get('seed')))} · "
                       f"{escape(str(DRAW_METHOD[lang].get(method, method)))}"
                       + (f" · {words[4]}: <b>{escape(s['champion'])}</b>" if s["champion"] else ""), body),
             Spacer(1, 4 * mm)]
    if s["standings"]:
        story.append(Paragraph(words[2], h2))
        head = (TEAM_STAND_HEAD if competitions.teams.is_team(comp) else STAND_HEAD)[lang]
        story.append(table(head, [[str(c) for c in r] for r in standings_rows(comp, lang)]))
        story.append(Spacer(1, 4 * mm))
    story.append(Paragraph(words[3], h2))
    rows = [[str(c) for c in r] for r in result_rows(comp, lang)]
    story.append(table(HEAD[lang], rows, widths=sumula.col_widths(HEAD[lang], rows, width, font, bold, 8)))
    doc.build(story)
    return buf.getvalue()
