"""``createcompetition`` with a 10,000-character name refuses it in Portuguese and English and
stores nothing (it printed PostgreSQL's DataError traceback; SQLite stored the name)."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from scoreboard.core.models import Competition, Player, Table

pytestmark = [pytest.mark.django_db, pytest.mark.pg]


def _file(tmp_path, **over) -> str:
    data = {"name": "Copa", "reds": 6, "draw_seed": 1, "players": [f"Jogador {i}" for i in range(4)],
            "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]}
    data.update(over)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("over, said", [
    ({"name": "C" * 10_000}, "Nome longo demais: o nome da competição tem 10000 caracteres, o máximo é 120 / "
                             "Name too long: the competition's name has 10000 characters, at most 120"),
    ({"players": ["P" * 10_000, "B", "C", "D"]}, "Nome longo demais: o nome do jogador 1 tem 10000 caracteres, "
                                                 "o máximo é 80 / Name too long: player 1's name has 10000 "
                                                 "characters, at most 80"),
    ({"tables": ["M" * 10_000]}, "the name of table MMMMMMMMMMMMMMMMMMMM… has 10000 characters, at most 40"),
    ({"name": "C" * 10_000, "teams": [{"name": "A", "players": ["a", "b"]}, {"name": "B", "players": ["c", "d"]}]},
     "Name too long: the competition's name has 10000 characters, at most 120"),
])
def test_a_10000_character_name_is_refused_in_both_languages_and_nothing_is_stored(tmp_path, over, said):
    with pytest.raises(CommandError) as e:
        call_command("createcompetition", _file(tmp_path, **over))
    assert said in str(e.value)
    assert not Competition.objects.exists() and not Player.objects.exists() and not Table.objects.exists()
