"""A file saved with a UTF-8 byte-order mark (Windows Notepad, Excel's "UTF-8") is read like one
without: ``createcompetition`` from a file and from standard input, ``importmatch`` and the
admin's match import, the federation's ``register`` and ``register-clubs``."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from scoreboard.core.models import Competition, Match, Player

from ops_helpers import demo, fresh_engines  # noqa: F401

pytestmark = pytest.mark.django_db

BOM = "\ufeff"
COMPETITION = {"name": "Copa BOM", "reds": 6, "draw_seed": 1,
               "players": ["José Araújo", "Ana", "Bia", "Caio"], "tables": ["Mesa 1"],
               "stages": [{"format": "knockout", "frames_to_win": 1}]}


def test_createcompetition_reads_a_file_with_a_bom(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_bytes((BOM + json.dumps(COMPETITION, ensure_ascii=False)).encode("utf-8"))
    call_command("createcompetition", str(path))
    c = Competition.objects.get()
    assert c.name == "Copa BOM" and json.loads(capsys.readouterr().out)["competition"] == c.pk
    assert sorted(e.player.name for e in c.entries.all()) == ["Ana", "Bia", "Caio", "José Araújo"]


def test_createcompetition_reads_standard_input_with_a_bom(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(BOM + json.dumps(COMPETITION)))
    call_command("createcompetition", "-", stdout=io.StringIO())
    assert Competition.objects.get().name == "Copa BOM"


def test_importmatch_and_the_admin_read_a_match_file_with_a_bom(tmp_path, admin_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    raw = (BOM + json.dumps(demo())).encode("utf-8")
    path = tmp_path / "final.json"
    path.write_bytes(raw)
    call_command("importmatch", str(path), stdout=io.StringIO())
    f = SimpleUploadedFile("final.json", raw, content_type="application/json")
    r = admin_client.post("/admin/scoreboard/match/import/", {"file": f, "table": "2"})
    assert r.status_code == 302
    assert [m.seq for m in Match.objects.order_by("pk")] == [len(demo()["events"])] * 2


def test_the_federations_register_commands_read_files_with_a_bom(tmp_path, monkeypatch):
    clubs = tmp_path / "clubs.json"
    clubs.write_bytes((BOM + json.dumps([{"name": "Clube Norte", "federation_id": "N1"}])).encode("utf-8"))
    out = io.StringIO()
    call_command("federation", "register-clubs", str(clubs), stdout=out)
    assert json.loads(out.getvalue()) == [{"federation_id": "N1", "name": "Clube Norte"}]
    monkeypatch.setattr("sys.stdin", io.StringIO(BOM + json.dumps([{"name": "José Araújo", "club": "clube norte"}],
                                                                  ensure_ascii=False)))
    out = io.StringIO()
    call_command("federation", "register", "-", stdout=out)
    jose = Player.objects.get(name="José Araújo")
    assert json.loads(out.getvalue()) == [{"federation_id": jose.federation_id, "name": "José Araújo",
                                           "club": "Clube Norte"}]
