"""``reports/exports.py``: a match as the contract's JSON (replayed by ``python -m sinuca replay``),
out through the API and back in through ``importmatch``; a log the engine refuses is not imported."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

import sinuca
from scoreboard.core import log
from scoreboard.core.matches import new_match
from scoreboard.core.models import Match

from ops_helpers import CONFIG, LOG, demo, fresh_engines  # noqa: F401

pytestmark = pytest.mark.django_db


def replay_cli(doc: dict) -> dict:
    r = subprocess.run([sys.executable, "-m", "sinuca", "replay", "-"], input=json.dumps(doc),
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def test_export_replays_to_the_served_state(client):
    m = new_match(CONFIG)
    for i, ev in enumerate(LOG):
        log.append_event(m.pk, ev, expected_seq=i)
    doc = client.get(f"/api/matches/{m.pk}/export/").json()
    assert set(doc) == {"config", "events"} and doc["events"] == LOG
    assert replay_cli(doc) == client.get(f"/api/matches/{m.pk}/").json()["state"]



def test_import_then_export_is_the_same_document(client, tmp_path, capsys):
    path = tmp_path / "final.json"
    path.write_text(json.dumps(demo()))
    call_command("importmatch", str(path), "--table", "5")
    out = json.loads(capsys.readouterr().out)
    m = Match.objects.get(pk=out["match"])
    assert out["events"] == len(demo()["events"]) and m.table.name == "5"
    doc = client.get(f"/api/matches/{m.pk}/export/").json()
    assert doc["events"] == demo()["events"]
    assert replay_cli(doc) == sinuca.Match.replay(demo()["config"], demo()["events"]).state()


def test_import_refuses_a_log_the_engine_refuses_and_stores_nothing(tmp_path):
    bad = {"config": CONFIG, "events": [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [1]}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(CommandError, match="evento 1: illegal_pot"):
        call_command("importmatch", str(path))
    path.write_text("{not json")
    with pytest.raises(CommandError):
        call_command("importmatch", str(path))
    assert Match.objects.count() == 0
