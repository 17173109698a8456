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


@pytest.mark.parametrize("text, message", [
    ('{"config": {"players": ["A", "B"]}, "events": [' + "[" * 50_000 + "]" * 50_000 + "]}",
     "JSON aninhado demais / JSON nested too deeply"),
    (json.dumps({"config": {"players": ["A" * 150, "B"]}, "events": []}),
     "jogador 1: mais de 80 caracteres (150) / player 1: more than 80 characters (150)"),
    (json.dumps({"config": {"players": ["Ana", "Bi\x00a"]}, "events": []}),
     "jogador 2: caractere de controle U+0000 na posição 3 não é aceito"
     " / player 2: control character U+0000 at position 3 is not accepted"),
    (json.dumps({"config": {"players": ["Ana", "Bia"], "frames_to_win": 40000}, "events": []}),
     "frames_to_win deve estar entre 1 e 99 / frames_to_win must be between 1 and 99"),
])
def test_importmatch_refuses_a_crafted_file_and_stores_nothing(tmp_path, text, message):
    path = tmp_path / "crafted.json"
    path.write_text(text)
    with pytest.raises(CommandError) as e:
        call_command("importmatch", str(path))
    assert str(e.value) == message
    assert Match.objects.count() == 0


def test_import_stores_the_log_in_one_go_without_a_broadcast_per_event(django_capture_on_commit_callbacks):
    from scoreboard.reports.exports import import_document, read_document

    seen = []
    log.on_commit(seen.append)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            m = import_document(read_document(json.dumps(demo())))
    finally:
        log._subscribers.remove(seen.append)
    assert (m.seq, m.events.count(), seen) == (187, 187, [])
    assert log.snapshot(m.pk).state == sinuca.Match.replay(demo()["config"], demo()["events"]).state()
