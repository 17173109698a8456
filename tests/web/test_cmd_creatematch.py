"""``manage.py creatematch``: a match from the command line, answered as the contract's JSON."""
from __future__ import annotations

import json

import pytest
from django.test import Client

from scoreboard.core.models import RefereeCredential


def test_creatematch_prints_the_contract_json(db, capsys):
    from django.core.management import call_command

    call_command("creatematch", "--player-a", "Ana", "--player-b", "Bia", "--reds", "10",
                 "--frames-to-win", "2", "--first-breaker", "1")
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"match", "referee_token", "referee_pin", "referee_url", "tv_url", "overlay_url"}
    assert out["tv_url"] == f"/matches/{out['match']}/tv/"
    assert RefereeCredential.objects.get(match_id=out["match"]).token_hash != out["referee_token"]
    c = Client()
    assert c.get(out["referee_url"]).status_code == 302


def test_creatematch_refuses_a_bad_config_and_stores_nothing(db):
    from django.core.management import CommandError, call_command

    from scoreboard.core.models import Match

    with pytest.raises(CommandError, match="/"):
        call_command("creatematch", "--player-a", "Ana", "--player-b", "Bia", "--reds", "7")
    assert Match.objects.count() == 0
