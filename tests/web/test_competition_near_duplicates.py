"""``createcompetition`` compares names as people read them: a table or a player that differs
from another only by case, spacing or Unicode form (NFC/NFD) is the same one, and refused in
Portuguese and English with nothing stored; "/" in a player's name is refused as in the admin."""
from __future__ import annotations

import io
import json
import unicodedata

import pytest
from django.core.management import CommandError, call_command

from scoreboard.core.models import Competition, Player, Table

pytestmark = pytest.mark.django_db

JOSE = "José Araújo"


SINGLES = {"name": "Copa", "reds": 6, "draw_seed": 1, "players": ["Ana", "Bia", "Caio", "Duda"],
           "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]}
TEAMS = {"name": "Interclubes", "draw_seed": 1, "tie": [{"kind": "singles"}],
         "teams": [{"name": "A", "players": ["Ana", "Bia"]}, {"name": "B", "players": ["Caio", "Duda"]}]}


@pytest.mark.parametrize("data, said", [
    ({**SINGLES, "tables": ["Mesa 1", "mesa 1 "]}, "mesa repetida: mesa 1 / table listed twice: mesa 1"),
    ({**TEAMS, "tables": ["Mesa 1", "MESA  1"]}, "mesa repetida: MESA 1 / table listed twice: MESA 1"),
    ({**SINGLES, "players": [unicodedata.normalize("NFC", JOSE), unicodedata.normalize("NFD", JOSE), "Caio"]},
     f"Jogador inscrito duas vezes: {JOSE} / Player entered twice: {JOSE}"),
    ({**SINGLES, "players": ["Ana Souza", " Ana  Souza ", "Caio"]},
     "Jogador inscrito duas vezes: Ana Souza / Player entered twice: Ana Souza"),
    ({**SINGLES, "players": ["Ana Souza", "ana souza", "Caio"]},
     "Jogador inscrito duas vezes: ana souza / Player entered twice: ana souza"),
    ({**SINGLES, "players": ["Ana/Bia", "Caio", "Duda"]},
     "jogador 1: o nome não pode ter “/” (Ana/Bia): é o que separa os jogadores de uma dupla / "
     "player 1: a name cannot hold “/” (Ana/Bia): it separates the players of a doubles side"),
], ids=["tables-case-space", "team-tables", "nfc-nfd", "spaces", "case", "slash"])
def test_near_duplicates_and_a_slash_are_refused_and_nothing_is_stored(tmp_path, data, said):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CommandError) as e:
        call_command("createcompetition", str(path))
    assert said in str(e.value)
    assert not Competition.objects.exists() and not Player.objects.exists() and not Table.objects.exists()


@pytest.mark.parametrize("data", [SINGLES, TEAMS], ids=["singles", "teams"])
def test_a_table_named_as_the_venues_but_for_case_and_spacing_is_the_venues_table(tmp_path, data):
    Table.objects.create(name="Mesa 1")
    path = tmp_path / "c.json"
    path.write_text(json.dumps({**data, "tables": [" mesa  1", "Mesa 2"]}), encoding="utf-8")
    call_command("createcompetition", str(path), stdout=io.StringIO())
    assert sorted(Table.objects.values_list("name", flat=True)) == ["Mesa 1", "Mesa 2"]
    spec_tables = Competition.objects.get().spec["tables"]
    assert [t if isinstance(t, str) else t["name"] for t in spec_tables] == ["Mesa 1", "Mesa 2"]
