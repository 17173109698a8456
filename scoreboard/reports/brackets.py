"""A competition on paper and in spreadsheets: results and standings as CSV, and the draw, the
groups and the bracket as an A4 landscape PDF (reportlab, as the súmula) for the paper fallback.
Everything is read from ``core.competitions`` (the core's recomputed state), in ``lang``
(``"pt"``/``"en"``); a match not played yet shows its placeholders ("Vencedor J3").
"""
from __future__ import annotations

import csv
import io

from ..core import competitions
from ..core.models import Competition

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
STAND_HEADS = {"individual": STAND_HEAD, "team": TEAM_STAND_HEAD}
"""The standings CSV's header of each competition format (``competitions.Format.kind``)."""


DRAW_METHOD = {
    "pt": {"pots": "potes de cabeças de chave", "snake": "serpentina", "random": "aleatório", "manual": "manual",
           "teams": "equipes"},
    "en": {"pots": "seeded pots", "snake": "snake", "random": "random", "manual": "manual", "teams": "teams"},
}


def _side(m: dict, i: int) -> str:
    return m["players"][i] or (m["placeholders"][i] or "—")


def result_rows(comp: Competition, lang: str) -> list[list]:
    """One row per match of the plan (schedule order), as :data:`HEAD`."""
    return _result_rows(competitions.summary(comp, lang), lang)


def _result_rows(s: dict, lang: str) -> list[list]:
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
    return _standings_rows(competitions.summary(comp, lang), lang)


def _standings_rows(s: dict, lang: str) -> list[list]:
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
    w.writerow(STAND_HEADS[competitions.format_of(comp).kind][lang])
    w.writerows(standings_rows(comp, lang))
    return out.getvalue()




# -- the wallchart (reports.wallchart draws it) -------------------------------------------------

WORDS = {
    "pt": {"title": "Chave e sorteio", "seed": "Semente do sorteio", "champion": "Campeão", "part": "parte",
           "goes_to": "vencedor segue para", "bye": "Isento", "best_of": "melhor de {n}", "as_of": "Situação em {at}",
           "standings": "Classificação", "matches": "Jogos", "tie": "Confronto"},
    "en": {"title": "Draw and bracket", "seed": "Draw seed", "champion": "Champion", "part": "part",
           "goes_to": "winner goes on to", "bye": "Bye", "best_of": "best of {n}", "as_of": "As of {at}",
           "standings": "Standings", "matches": "Matches", "tie": "Tie"},
}
GROUP_HEAD = {
    "pt": ("Pos.", "Jogador", "J", "V", "D", "W.O.", "Partidas ganhas", "Partidas perdidas", "Saldo", "Maior tacada",
           "Desempate"),
    "en": ("Pos.", "Player", "P", "W", "L", "W.O.", "Frames won", "Frames lost", "Diff.", "Highest break", "Tie-break"),
}  # the points scored are in the standings CSV: without them two groups stand side by side
GROUP_MATCH_HEAD = {
    "pt": ("Jogo", "Rodada", "Jogador A", "Placar", "Jogador B", "Situação"),
    "en": ("Match", "Round", "Player A", "Score", "Player B", "Status"),
}


def _winner_side(m: dict) -> int | None:
    """0 or 1: the side that won ``m`` (a summary match), or None."""
    w, p = m.get("winner"), m.get("players") or [None, None]
    if w is None:
        return None
    if p[0] == w and p[1] != w:
        return 0
    if p[1] == w and p[0] != w:
        return 1
    fr = m.get("frames") or [0, 0]
    return 0 if fr[0] >= fr[1] else 1


def _scores(m: dict) -> tuple[str, str]:
    """What each side's score cell shows: frames won, "W.O." for an absent player, "" before a result."""
    fr, kind, won = m.get("frames"), m.get("kind"), _winner_side(m)
    if kind == "double_walkover":
        return "W.O.", "W.O."
    if kind == "walkover" and won is not None:
        return ("", "W.O.") if won == 0 else ("W.O.", "")
    if fr and (kind in (None, "frames", "concession") or any(fr)):
        return str(fr[0]), str(fr[1])
    if kind and won is not None:  # a withdrawal or a disqualification before a frame was played
        return ("", "—") if won == 0 else ("—", "")
    return "", ""


def _note(m: dict, lang: str) -> str:
    """The table and the status of a match not over, or how a match ended when not on frames."""
    st, kind = m.get("status"), m.get("kind")
    if kind and kind != "frames":
        return KIND[lang].get(kind, kind)
    if st in ("called", "in_play"):
        return " · ".join(x for x in (m.get("table") or "", STATUS[lang][st]) if x)
    if st == "bye":
        return STATUS[lang]["bye"]
    return ""


def _tag(number: int, lang: str) -> str:
    return f"{'J' if lang == 'pt' else 'M'}{number}"


def _match_box(m: dict, lang: str, feeder: bool, note: str = ""):
    from . import wallchart as wc

    won, scores = _winner_side(m), _scores(m)
    sides = tuple(wc.Side(name=m["players"][i] or (m["placeholders"][i] or ""), player=m["players"][i] is not None,
                          score=scores[i], won=won == i, feeder=feeder) for i in (0, 1))
    return wc.Box(m["number"], sides, " · ".join(x for x in (note, _note(m, lang)) if x), _tag(m["number"], lang))


def knockout_tree(plan, stage: int, matches: dict, lang: str, title: str, champion: str | None):
    """The knockout of stage ``stage`` of ``plan`` (a ``tournament.Plan``) as a ``wallchart.Tree``:
    the bracket lines as the plan drew them (``tournament.bracket_order``; a bye where a line is
    empty), each box filled from ``matches`` (summary matches by number: names, placeholders,
    frames, how it ended, the table and status)."""
    from tournament import EMPTY, Slot, bracket_order
    from tournament.labels import round_label

    from . import wallchart as wc

    words = WORDS[lang]
    order = plan.entrants[stage]
    size = 1
    while size < len(order):
        size *= 2
    line = [order[k - 1] if k <= len(order) else EMPTY for k in bracket_order(size)]
    fixtures = [f for f in plan.fixtures if f.stage == stage]
    by_slots = {(f.a, f.b): f for f in fixtures if f.round_name != "third_place"}
    where = {}  # a slot -> (match number, side) of the match it plays in
    for f in fixtures:
        where.setdefault(f.a, (f.id, 0))
        where.setdefault(f.b, (f.id, 1))
    rounds, titles = [], []
    while len(line) > 1:
        boxes, nxt, fx = [], [], None
        for i in range(0, len(line), 2):
            a, b = line[i], line[i + 1]
            if a.kind == "empty" or b.kind == "empty":  # a bye: the player goes straight on
                who = b if a.kind == "empty" else a
                n, side = where.get(who, (None, 0))
                m = matches.get(n)
                name = (m["players"][side] or m["placeholders"][side] or "") if m else who.placeholder()[lang]
                pl = wc.Side(name=name, player=bool(m and m["players"][side] is not None), feeder=bool(rounds))
                bye = wc.Side(name=words["bye"])
                boxes.append(wc.Box(None, (pl, bye) if a.kind != "empty" else (bye, pl)))
                nxt.append(who)
                continue
            f = by_slots[(a, b)]
            fx = fx or f
            boxes.append(_match_box(matches[f.id], lang, bool(rounds)))
            nxt.append(Slot("winner", match=f.id))
        rounds.append(tuple(boxes))
        titles.append((round_label(fx.round_name)[lang], words["best_of"].format(n=2 * fx.frames_to_win - 1)))
        line = nxt
    third = next((f for f in fixtures if f.round_name == "third_place"), None)
    third_box = _match_box(matches[third.id], lang, False, round_label("third_place")[lang]) if third else None
    return wc.Tree(title, tuple(rounds), tuple(titles), third_box, champion or "",
                   {"part": words["part"], "champion": words["champion"], "goes_to": words["goes_to"]})


def _group_blocks(s: dict, stage: int, lang: str, one_group_title: str | None) -> tuple:
    from tournament.labels import group_label, round_label

    from . import wallchart as wc

    matches = [m for m in s["stages"][stage]["matches"]]
    groups = sorted({k.split(":", 1)[1] for k in s["standings"] if k.split(":", 1)[0] == str(stage)}
                    | {m["group"] for m in matches if m["group"]}, key=lambda g: (len(g), g))
    blocks = []
    for g in groups:
        rows, bold = [], set()
        for r in s["standings"].get(f"{stage}:{g}", []):
            rows.append(tuple(str(x) for x in (
                r.get("position") or "", r.get("name") or "", r.get("played", ""), r.get("wins", ""),
                r.get("losses", ""), r.get("walkovers", ""), r.get("frames_won", ""), r.get("frames_lost", ""),
                r.get("frame_difference", ""), r.get("highest_break", ""), _tie(r, lang))))
        title = one_group_title if one_group_title and len(groups) == 1 else group_label(g)[lang]
        head = GROUP_HEAD[lang]
        if not any(r[-1] for r in rows):  # no tie-break said yet: its column would stand empty
            head, rows = head[:-1], [r[:-1] for r in rows]
        standings = wc.Grid(head, tuple(rows), caption=f"{title} · {WORDS[lang]['standings']}")
        mrows = []
        for m in (m for m in matches if m["group"] == g):
            won = _winner_side(m)
            sc = _scores(m)
            score = f"{sc[0]} – {sc[1]}" if all(sc) and "W.O." not in sc else ""
            status = _note(m, lang) or STATUS[lang].get(m["status"], m["status"])
            mrows.append((_tag(m["number"], lang), round_label(m["round_name"])[lang], _side(m, 0), score,
                          _side(m, 1), status))
            if won is not None:
                bold.add((len(mrows) - 1, 2 if won == 0 else 4))
        grids = (standings, wc.Grid(GROUP_MATCH_HEAD[lang], tuple(mrows), frozenset(bold),
                                    f"{title} · {WORDS[lang]['matches']}")) if mrows else (standings,)
        blocks.append(wc.Block(grids))
    return tuple(blocks)


def chart(s: dict, plan, lang: str, as_of: str = ""):
    """The wallchart of a competition (``reports.wallchart.Chart``) from its summary ``s``
    (``core.competitions.summary`` in ``lang``) and its ``plan`` (``tournament.Plan``; None for a
    team competition, whose standings and ties are tables). ``as_of``: when it was read, as
    printed."""
    from tournament.labels import stage_label

    from . import wallchart as wc

    words = WORDS[lang]
    method = (s.get("draw") or {}).get("method")
    subtitle = f"{words['seed']}: {(s.get('draw') or {}).get('seed')} · {DRAW_METHOD[lang].get(method, method)}"
    if s.get("champion"):
        subtitle += f" · {words['champion']}: {s['champion']}"
    parts = []
    if isinstance(s["standings"], list):  # a team competition
        series = (s.get("series") or {}).get("name") or ""
        stand = wc.Grid(tuple(TEAM_STAND_HEAD[lang][1:]), tuple(tuple(str(c) for c in r[1:])
                                                               for r in _standings_rows(s, lang)),
                        caption=" · ".join(x for x in (series, words["standings"]) if x))
        head = HEAD[lang]
        ties = wc.Grid((head[0], head[2], words["tie"]) + tuple(head[4:]),
                       tuple(tuple(str(c) for c in [r[0], r[2], r[3]] + r[4:]) for r in _result_rows(s, lang)),
                       caption=" · ".join(x for x in (series, words["matches"]) if x))
        parts.append(wc.Part(series or words["standings"], (wc.Block((stand,)), wc.Block((ties,)))))
    else:
        stages = plan.competition.stages
        for i, st in enumerate(s["stages"]):
            title = stage_label(stages, i)[lang]
            if st["format"] == "knockout":
                matches = {m["number"]: m for m in st["matches"]}
                parts.append(wc.Part(title, tree=knockout_tree(plan, i, matches, lang, title, s.get("champion"))))
            else:
                parts.append(wc.Part(title, _group_blocks(s, i, lang, title)))
    return wc.Chart(f"{s['name']} — {words['title']}", subtitle, as_of, tuple(parts))


def bracket_pdf(comp: Competition, lang: str, paper: str = "a4") -> bytes:
    """The competition's wallchart as a PDF on ``paper`` (``"a4"``: the day's paper fallback;
    ``"a3"``: the wall), landscape: each group stage's standings and matches as tables, the
    knockout as a tree with its byes, third place, results and champion (``reports.wallchart``)."""
    from django.utils import timezone

    from . import wallchart

    s = competitions.summary(comp, lang)
    plan = competitions.format_of(comp).bracket(comp)  # a team event's ties: no bracket
    at = timezone.localtime().strftime("%d/%m/%Y %H:%M" if lang == "pt" else "%Y-%m-%d %H:%M")
    return wallchart.render(chart(s, plan, lang, WORDS[lang]["as_of"].format(at=at)), paper)
