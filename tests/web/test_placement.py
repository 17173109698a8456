"""Issue 18 (audit): a competition match's stage, round and group are data of their own in the
output's language, on the feeds and on the súmula. The feeds' ``competition`` used to be the
match's stored text, frozen in Portuguese ("Etapa de Santos · J1 · Grupo A · Jogo de abertura")
even in ``?lang=en``, and the súmula printed it as its only "Competição" line."""
from __future__ import annotations

import csv
import io
import json

import pytest
from pypdf import PdfReader

from scoreboard.core.competitions import create_competition
from scoreboard.core.matches import new_match
from scoreboard.core.models import Match

pytestmark = pytest.mark.django_db

EVENT = {"name": "Etapa de Santos", "reds": 6, "draw_seed": 2026,
         "players": ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes", "Edu Reis", "Fábio Reis", "Gil Matos", "Hugo Dias"],
         "tables": ["Mesa 1", "Mesa 2"],
         "stages": [{"format": "double_elimination_groups", "groups": 2, "frames_to_win": 2, "qualify": 2},
                    {"format": "knockout", "frames_to_win": 1}]}


@pytest.fixture
def j1(db):
    comp = create_competition(EVENT).competition
    return Match.objects.get(fixture__competition=comp, fixture__number=1)


def test_the_feeds_give_competition_stage_round_and_group_in_their_language(client, j1):
    assert j1.competition == "Etapa de Santos · J1 · Grupo A · Jogo de abertura"  # the stored text
    en = client.get(f"/matches/{j1.pk}/feed.json?lang=en").json()
    assert (en["competition"], en["fixture"], en["stage"], en["round"], en["group"]) == (
        "Etapa de Santos", "M1", "Group stage (double elimination)", "Opening match", "Group A")
    pt = json.loads(client.get(f"/matches/{j1.pk}/feed.json?lang=pt-br").content)
    assert (pt["competition"], pt["fixture"], pt["stage"], pt["round"], pt["group"]) == (
        "Etapa de Santos", "J1", "Fase de grupos (dupla eliminação)", "Jogo de abertura", "Grupo A")
    xml = client.get(f"/matches/{j1.pk}/feed.xml?lang=en").content.decode()
    assert ("<competition>Etapa de Santos</competition><fixture>M1</fixture>"
            "<stage>Group stage (double elimination)</stage><round>Opening match</round>"
            "<group>Group A</group>") in xml
    assert client.get(f"/matches/{j1.pk}/feed/group.txt?lang=en").content.decode() == "Group A"
    assert client.get(f"/matches/{j1.pk}/feed/round.txt").content.decode() == "Jogo de abertura"


def test_a_knockout_match_and_a_match_of_no_competition(client):
    comp = create_competition({**EVENT, "name": "Aberto", "players": EVENT["players"][:4],
                               "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    semi = Match.objects.get(fixture__competition=comp, fixture__number=1)
    f = client.get(f"/matches/{semi.pk}/feed.json?lang=en").json()
    assert (f["stage"], f["round"], f["group"]) == ("Knockout", "Semi-final", "")
    friendly = new_match({"players": ["Ana", "Bia"], "reds": 6, "frames_to_win": 1}, competition="Amistoso")
    f = client.get(f"/matches/{friendly.pk}/feed.json").json()
    assert (f["competition"], f["fixture"], f["stage"], f["round"], f["group"]) == ("Amistoso", "", "", "", "")


def head(text: str) -> dict[str, str]:
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    return {r[0]: r[1] for r in rows[1:] if len(r) == 2}


def test_the_sumula_has_a_stage_line_in_its_language(client, j1):
    en = head(client.get(f"/matches/{j1.pk}/sumula.csv?lang=en").content.decode())
    assert en["Competition"] == "Etapa de Santos" and en["Match"] == f"#{j1.pk} · M1"
    assert (en["Stage"], en["Round"], en["Group"]) == ("Group stage (double elimination)", "Opening match", "Group A")
    pt = head(client.get(f"/matches/{j1.pk}/sumula.csv").content.decode())
    assert pt["Competição"] == "Etapa de Santos" and pt["Jogo"] == f"#{j1.pk} · J1"
    assert (pt["Fase"], pt["Rodada"], pt["Grupo"]) == ("Fase de grupos (dupla eliminação)", "Jogo de abertura", "Grupo A")
    pdf = client.get(f"/matches/{j1.pk}/sumula.pdf?lang=en").content
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages).split())
    assert "Stage Group stage (double elimination)" in text and "Round Opening match" in text
    assert "Group Group A" in text and "Grupo" not in text and "abertura" not in text


def test_a_team_rubber_keeps_its_tie(client):
    """A team rubber's place is its tie: the feed's ``fixture`` and the súmula's "Jogo" line say
    which (they were only in the stored text), ``round`` the tie's round."""
    from scoreboard.core.models import Fixture
    from test_teams_event import EVENT as TEAMS, create

    comp_id = create({**TEAMS, "tables": ["Mesa 1"]})["competition"]
    m = Fixture.objects.get(competition_id=comp_id, number=1).match
    f = client.get(f"/matches/{m.pk}/feed.json?lang=en").json()
    assert f["competition"] == TEAMS["name"] and f["round"] == "Round 1" and f["stage"] == f["group"] == ""
    assert f["fixture"].startswith("T1 · Rubber 1 (singles): ") and " × " in f["fixture"], f["fixture"]
    pt = head(client.get(f"/matches/{m.pk}/sumula.csv").content.decode())
    assert pt["Jogo"].startswith(f"#{m.pk} · C1 · Jogo 1 (simples): ") and pt["Rodada"] == "Rodada 1", pt
