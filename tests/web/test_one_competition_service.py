"""One competition service, dispatched by format: individual and team competitions were two
parallel services whose callers each asked "is it a team?" (``is_team(`` at 18 places in 8
files), so a change made to one flow hid from the other. Now a file's format is decided once, by
the tournament core (``tournament.format_for``), every caller asks the competition's
:class:`~scoreboard.core.competitions.Format`, and only ``competitions.format_of`` (and the
create path) asks the core."""
from __future__ import annotations

import pathlib
import re

import pytest

import tournament
from scoreboard.core import competitions
from scoreboard.core.models import Competition

ROOT = pathlib.Path(__file__).resolve().parents[2]
SERVICE = ROOT / "scoreboard" / "core" / "competitions.py"
FORMATS = ROOT / "tournament" / "formats.py"
# what tells a team competition apart: the old predicate, the team file's test (called, not
# defined), or a look into the stored spec
ASKS = re.compile(r"is_team\(|(?<!def )is_team_file\(|[\"']teams[\"'] in \(?\w*\.?(competition\.)?spec")


def test_only_the_core_tells_the_formats_apart_and_only_the_service_asks_it():
    found = [f"{p.relative_to(ROOT)}:{n}" for pkg in ("scoreboard", "tournament") for p in (ROOT / pkg).rglob("*.py")
             if p != FORMATS and "migrations" not in p.parts
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if ASKS.search(line)]
    assert found == []
    assert ASKS.search(FORMATS.read_text(encoding="utf-8"))  # the one place, which the pattern sees
    askers = [f"{p.relative_to(ROOT)}" for p in (ROOT / "scoreboard").rglob("*.py")
              if re.search(r"format_for\(", p.read_text(encoding="utf-8"))]
    assert askers == ["scoreboard/core/competitions.py"]


def test_the_log_state_reader_and_the_file_head_are_written_once():
    """``last_states`` was written twice (the individual and the team service), and the head of
    a competition file (name, reds, draw seed, tables) was parsed twice."""
    defs = [p for p in (ROOT / "scoreboard").rglob("*.py")
            if re.search(r"^def _?last_states\(", p.read_text(encoding="utf-8"), re.M)]
    assert [p.name for p in defs] == ["log.py"]
    team_parser = (ROOT / "tournament" / "teams.py").read_text(encoding="utf-8")
    assert "parse_head(data)" in team_parser and "'reds' deve ser 6, 10 ou 15" not in team_parser


@pytest.mark.django_db
def test_each_format_answers_the_same_questions():
    made_solo = competitions.create_competition({
        "name": "Copa", "reds": 6, "players": ["Ana", "Bia", "Caio", "Davi"], "tables": ["Mesa 1"],
        "stages": [{"format": "knockout", "frames_to_win": 1}]})
    made_team = competitions.create_competition({
        "name": "Liga", "reds": 6, "tables": ["Mesa 2"],
        "teams": [{"name": "A", "players": ["A1", "A2"]}, {"name": "B", "players": ["B1", "B2"]}],
        "tie": [{"kind": "singles"}]})
    solo, team = (Competition.objects.get(pk=made.competition.pk) for made in (made_solo, made_team))
    s, t = competitions.format_of(solo), competitions.format_of(team)
    assert (s.kind, t.kind) == ("individual", "team")
    assert (s.core, t.core) == (tournament.formats.INDIVIDUAL, tournament.formats.TEAM)
    # one answer to the create command, each format's part in it
    a, b = made_solo.as_json(), made_team.as_json()
    assert (a["entries"], a["fixtures"], a["tables"], "format" in a) == (4, 3, ["Mesa 1"], False)
    assert (b["format"], b["teams"], b["ties"], b["entries"], b["fixtures"], b["tables"]) == (
        "team_round_robin", 2, 1, 2, 1, ["Mesa 2"])
    assert len(a["matches"]) == 2 and len(b["matches"]) == 1 and a["desk_url"] == f"/desk/{solo.pk}/"
    assert s.entrants_are_players and not t.entrants_are_players
    assert sorted(p.name for p in s.entrants(solo).values()) == ["Ana", "Bia", "Caio", "Davi"] and t.entrants(team) == {}
    assert [(i, f, len(n)) for i, f, n in s.stages(solo)] == [(0, "knockout", 3)] and t.stages(team) == []
    assert s.bracket(solo) is competitions.plan_of(solo) and t.bracket(team) is None
    # the same calls, each format's answer
    assert competitions.summary(solo)["stages"][0]["format"] == "knockout"
    assert "ties" in competitions.summary(team)
    assert s.now(solo).state.complete is False and t.now(team).state.complete is False
    assert [w["label"] for w in s.waiting(solo, "pt")] == ["J3 · Final"] and t.waiting(team, "pt") == []
    rubber = team.fixtures.exclude(match=None).first()
    tie = competitions.tie_of_match(rubber.match_id, "pt")
    assert tie["home_name"] == "A" and tie["away_name"] == "B" and tie["rubber"] == 1
    assert competitions.tie_of_match(solo.fixtures.exclude(match=None).first().match_id) is None
