"""The desk's wallchart ("Chave (PDF)", ``/desk/<id>/bracket.pdf``): the knockout drawn as a
tree (2-128 entrants, byes, third place, results, the champion's line), the groups as tables,
on A4 (paper fallback) or A3 (the wall) landscape. Read back from the PDF itself
(``pdf_boxes``): no two texts overlap and none leaves the page, at every size.

Most cases build the competition with the pure tournament core and render directly (cheap);
one goes through the desk's route with a competition in the database."""
from __future__ import annotations

import io
import json
import random
import tempfile

import pytest

import tournament
from scoreboard.reports import brackets, wallchart

from pdf_boxes import overlapping, page_sizes, text_boxes

A4, A3 = (841.9, 595.3), (1190.6, 841.9)
EDGE = 14  # points (5 mm): what most printers cannot print
LONG = "Maria Aparecida dos Santos Figueiredo de Albuquerque Neto"  # 57 characters (names take 80)


def names(n: int) -> list[str]:
    """``n`` distinct names, every fifth long, one with markup characters."""
    odd = [LONG, "Bar & Sinuca <Santos> Júnior", "Bartholomeu Constantino Wenceslau"]
    return [f"{odd[(i // 5) % 3]} {i}" if i % 5 == 0 else f"Jogador {i + 1:03d} Silva" for i in range(n)]


def event(n: int, groups: int = 0) -> dict:
    """``n`` players: a knockout (``groups`` 0, third place from 4), or ``groups`` groups
    (double elimination for groups of 3-4, else round robin), two of each on to a knockout."""
    stages: list = []
    if groups:
        fmt = "double_elimination_groups" if n // groups in (3, 4) else "round_robin_groups"
        stages.append({"format": fmt, "groups": groups, "frames_to_win": 2, "qualify": 2})
        if groups > 1 or n > 8:
            stages.append({"format": "knockout", "frames_to_win": 3, "third_place": groups * 2 >= 4})
    else:
        stages.append({"format": "knockout", "frames_to_win": 2, "third_place": n >= 4})
    return {"name": f"Etapa de Santos ({n} jogadores)", "reds": 6, "draw_seed": 7, "players": names(n),
            "stages": stages}


def played(data: dict, share: float, seed: int = 1, lang: str = "pt") -> tuple[dict, tournament.Plan]:
    """The competition's summary (the shape of ``core.competitions.summary``) and plan, with
    ``share`` of its matches played by the core's rules: some W.O., one double W.O."""
    comp = tournament.parse_competition(data)
    plan = tournament.build(comp)
    rng, results, total, doubled = random.Random(seed), {}, len(plan.fixtures), False
    while len(results) < share * total:
        ready = tournament.evaluate(plan, results, ()).ready()
        if not ready:
            break
        for ms in ready[: max(1, int(share * total) - len(results))]:
            k, w = ms.fixture.frames_to_win, rng.randrange(2)
            if not doubled and ms.fixture.round_name.startswith("round_of"):
                results[ms.fixture.id] = {"winner": None, "frames": [0, 0], "kind": "double_walkover"}
                doubled = True
                continue
            kind = "walkover" if rng.random() < 0.08 else "frames"
            fr = [k, 0 if kind == "walkover" else rng.randrange(k)]
            results[ms.fixture.id] = {"winner": ms.players[w], "frames": fr if w == 0 else fr[::-1], "kind": kind}
    state = tournament.evaluate(plan, results, ())
    name = {e.id: e.name for e in comp.entries}
    stages = [{"index": i, "format": st.format, "frames_to_win": st.frames_to_win, "matches": []}
              for i, st in enumerate(comp.stages)]
    for n, ms in state.matches.items():
        f = ms.fixture
        stages[f.stage]["matches"].append({
            "number": n, "stage": f.stage, "round": f.round, "round_name": f.round_name, "group": f.group,
            "label": f.label()[lang], "players": [name[e] if e is not None else None for e in ms.players],
            "placeholders": [p[lang] if isinstance(p, dict) else p for p in ms.placeholders],
            "table": "Mesa 3" if ms.status == "ready" else None,
            "status": {"finished": "finished", "walkover": "walkover", "bye": "bye", "void": "bye",
                       "ready": "in_play"}.get(ms.status, "scheduled"),
            "winner": name[ms.winner] if ms.winner is not None else None,
            "frames": list(ms.result.frames) if ms.result else None, "kind": ms.result.kind if ms.result else None})
    standings = {f"{s}:{g}": [{**r, "name": name.get(r["entry"])} for r in rows]
                 for (s, g), rows in state.standings.items()}
    return ({"name": data["name"], "draw": {"method": plan.draw.method, "seed": plan.draw.seed}, "stages": stages,
             "standings": standings, "champion": name.get(state.champion)}, plan)


def check_layout(pdf: bytes, paper: tuple[float, float]) -> list:
    """Every page is ``paper`` landscape, no text leaves the printable page, no two texts
    overlap; returns the text boxes."""
    sizes = page_sizes(pdf)
    assert all(abs(w - paper[0]) < 1 and abs(h - paper[1]) < 1 for w, h in sizes), sizes
    boxes = text_boxes(pdf)
    outside = [b for b in boxes if b.x0 < EDGE or b.y0 < EDGE or b.x1 > paper[0] - EDGE or b.y1 > paper[1] - EDGE]
    assert not outside, outside[:5]
    clashes = overlapping(boxes)
    assert not clashes, clashes[:5]
    return boxes


def ko_stage(plan) -> int:
    return next(i for i, st in enumerate(plan.competition.stages) if st.format == "knockout")


CASES = [  # (players, groups, share played, paper): 2-128 players, 1, 2, 4 and 8 groups
    (2, 0, 1.0, "a4"), (3, 0, 0.0, "a4"), (5, 0, 0.5, "a4"), (8, 0, 1.0, "a4"), (8, 0, 0.6, "a3"),
    (16, 0, 0.5, "a4"), (32, 0, 0.7, "a4"), (32, 0, 1.0, "a3"), (64, 0, 0.5, "a4"), (100, 0, 0.3, "a4"),
    (128, 0, 0.8, "a4"), (128, 0, 1.0, "a3"),
    (8, 1, 0.5, "a4"), (16, 1, 1.0, "a4"), (8, 2, 0.7, "a4"), (16, 2, 0.4, "a4"),
    (16, 4, 1.0, "a4"), (32, 4, 0.5, "a3"), (32, 8, 0.8, "a4"),
    (128, 8, 0.6, "a4"),  # 8 groups of 16: 960 group matches, 33 pages
]


@pytest.mark.parametrize("n,groups,share,paper", CASES)
def test_the_wallchart_fits_its_pages_with_nothing_overprinted(n, groups, share, paper):
    s, plan = played(event(n, groups), share)
    pdf = wallchart.render(brackets.chart(s, plan, "pt", "Situação em 07/12/2026 18:05"), paper)
    boxes = check_layout(pdf, A4 if paper == "a4" else A3)
    texts = [b.text for b in boxes]
    if groups:  # every group's standings, under its caption
        for g in {k.split(":")[1] for k in s["standings"] if k.startswith("0:")}:
            caption = f"Grupo {g} · Classificação" if groups > 1 else "Todos contra todos · Classificação"
            assert caption in texts, caption
    if not any(st.format == "knockout" for st in plan.competition.stages):
        return
    ko = ko_stage(plan)
    matches = s["stages"][ko]["matches"]
    # each match of the knockout is drawn once (its label "J12" or "J12 · …" over its box)
    for m in matches:
        tag = f"J{m['number']}"
        assert sum(1 for t in texts if t == tag or t.startswith(tag + " · ")) == 1, tag
    entrants = len(plan.entrants[ko])
    size = 1 << (entrants - 1).bit_length()
    assert texts.count("Isento") == size - entrants  # the byes, one per empty line
    if any(m["round_name"] == "third_place" for m in matches):
        assert any("Disputa de 3º lugar" in t for t in texts)
    pages = len(page_sizes(pdf))
    tree_pages = {b.page for b in boxes if b.text.startswith("Mata-mata")}
    assert len(tree_pages) == (1 if size <= 32 else size // 32 + 1)  # 16 first-round matches a page
    assert max(tree_pages) == pages - 1
    last = [b.text for b in boxes if b.page == pages - 1]
    assert "Campeão" in last
    if s["champion"]:  # on the winner's line, whole or shortened (never cut to nothing)
        champ = [t for t in last if t == s["champion"] or t == wallchart._initials(s["champion"])
                 or t.startswith(s["champion"].split()[0])]
        assert champ, s["champion"]
    # a result is in its box: the final's frames when it was played on frames
    final = next(m for m in matches if m["round_name"] == "final")
    if final["kind"] == "frames":
        assert {str(x) for x in final["frames"]} <= set(last)


def test_a_name_too_long_for_its_slot_is_shrunk_then_abbreviated_never_cut_to_nothing():
    from scoreboard.reports import sumula

    font, bold = sumula._font()
    assert wallchart.fit("Ana Souza", font, 10, 200) == ("Ana Souza", 10)
    text, size = wallchart.fit(LONG, bold, 10, 150)
    assert wallchart._width(text, bold, size) <= 150 and size >= 7.2
    assert text == "Maria A. dos S. F. de A. Neto"
    text, size = wallchart.fit(LONG, bold, 10, 60)
    assert wallchart._width(text, bold, size) <= 60 and text.endswith("…") and len(text) > 3


def test_english_labels_and_a_knockout_of_128_in_parts():
    s, plan = played(event(128), 0.9, lang="en")
    chart = brackets.chart(s, plan, "en", "As of 2026-12-07 18:05")
    pdf = wallchart.render(chart, "a4")
    boxes = check_layout(pdf, A4)
    texts = [b.text for b in boxes]
    assert "Knockout · part 1/5 (M1–M121)" in texts and "Knockout · part 5/5 (M125–M128)" in texts
    assert "winner goes on to M125" in texts and "Champion" in texts and "Third-place match" in " ".join(texts)
    assert "Round of 128" in texts and "best of 3" in texts
    assert not any(t.startswith("J") and t[1:2].isdigit() for t in texts)  # no Portuguese match names


@pytest.fixture
def desk_competition(db):
    from django.core.management import call_command

    data = event(8, 2)
    data["players"][1] = "Bartholomeu Constantino Wenceslau Figueiredo de Albuquerque"
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
        json.dump({**data, "tables": ["Mesa 1", "Mesa 2"]}, f)
        f.flush()
        out = io.StringIO()
        call_command("createcompetition", f.name, stdout=out)
    return json.loads(out.getvalue())["competition"]


def test_the_desk_serves_the_wallchart_on_a4_and_a3_and_refuses_another_size(admin_client, desk_competition):
    cid = desk_competition
    desk = admin_client.get(f"/desk/{cid}/").content.decode()
    assert f'href="/desk/{cid}/bracket.pdf"' in desk and f'href="/desk/{cid}/bracket.pdf?size=a3"' in desk
    a4 = admin_client.get(f"/desk/{cid}/bracket.pdf")
    assert a4.status_code == 200 and a4["Content-Type"] == "application/pdf"
    assert a4["Content-Disposition"] == f'inline; filename="competition-{cid}-bracket.pdf"'
    texts = [b.text for b in check_layout(a4.content, A4)]
    assert "Grupo A · Classificação" in texts and "Mata-mata" in texts and "1º Grupo A" in texts
    a3 = admin_client.get(f"/desk/{cid}/bracket.pdf?size=A3")
    assert a3.status_code == 200 and a3["Content-Disposition"].endswith(f'competition-{cid}-wallchart-a3.pdf"')
    check_layout(a3.content, A3)
    bad = admin_client.get(f"/desk/{cid}/bracket.pdf?size=a5")
    assert bad.status_code == 400
    page = bad.content.decode()
    assert "?size=a5" in page and "Opção inválida no endereço" in page and "Invalid option in the address" in page
    assert "Valores aceitos: a4, a3." in page and "Accepted values: a4, a3." in page
