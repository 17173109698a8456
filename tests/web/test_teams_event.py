"""A team round-robin through the API (issue 19 item 4, "done when"): ``createcompetition`` reads
a team file; a tie of three rubbers (singles, doubles, singles) is played rubber after rubber
through each match's referee API (``POST /api/matches/<id>/events/`` with a token); the tie's
team score and the standings in ``GET /api/competitions/<id>/`` are right at every step; the
desk sets a lineup (a name not in the team is refused in pt/en, nothing changed) and shows the
tie; bad team files are refused in pt/en and store nothing.

Transactional: results flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import io
import json
import tempfile

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from scoreboard.core import operations
from scoreboard.core.models import Competition, Fixture, Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]

EVENT = {"name": "Interclubes Paulista · Série A", "reds": 6, "draw_seed": 3, "frames_to_win": 1,
         "teams": [{"name": "Clube Paulistano", "players": ["Ana", "Bia", "Carla"]},
                   {"name": "EC Santos", "players": ["Duda", "Eva"]},
                   {"name": "Tênis Clube", "players": ["Fábio", "Gil"]}],
         "tie": [{"kind": "singles"}, {"kind": "doubles", "frames_to_win": 2}, {"kind": "singles"}],
         "series": {"name": "Série A", "up": [1], "down": [3], "below": "Série B"}}


def create(data=EVENT) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        out = io.StringIO()
        call_command("createcompetition", f.name, stdout=out)
    return json.loads(out.getvalue())


def post(match_id: int, token: str, event: dict):
    return Client().post(f"/api/matches/{match_id}/events/", json.dumps({"event": event}),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def api(comp_id: int, token: str, **body):
    return Client().post(f"/api/competitions/{comp_id}/actions/", json.dumps(body),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def score(match_id: int, winner: int, loser_frames: int = 0) -> None:
    """Play a rubber through the referee API: the lot, then frames conceded until ``winner``
    (side 0 home / 1 away) has the frames needed, the loser taking ``loser_frames`` first."""
    m = Match.objects.get(pk=match_id)
    token = operations.issue_token(m, "test")
    order = [1 - winner] * loser_frames + [winner] * m.frames_to_win
    assert post(match_id, token, {"type": "lot", "player": 0}).status_code == 201
    for i, w in enumerate(order):
        assert post(match_id, token, {"type": "concede", "player": 1 - w}).status_code == 201
        if i < len(order) - 1:
            assert post(match_id, token, {"type": "next_frame"}).status_code == 201


def summary(cid: int) -> dict:
    r = Client().get(f"/api/competitions/{cid}/")
    assert r.status_code == 200
    return r.json()


def test_a_team_tie_of_three_rubbers_through_the_referee_api(admin_client):
    out = create()
    cid, desk = out["competition"], out["desk_token"]
    assert out["format"] == "team_round_robin" and out["ties"] == 3 and out["fixtures"] == 9
    s = summary(cid)
    assert s["decided_by"] == "all_rubbers"
    assert [t["status"] for t in s["ties"]] == ["waiting"] * 3
    tie = s["ties"][0]
    # the circle method: with 3 teams, team 1 sits out round 1
    assert (tie["home_name"], tie["away_name"]) == ("EC Santos", "Tênis Clube")
    assert [r["kind"] for r in tie["rubbers"]] == ["singles", "doubles", "singles"]
    # only the tie's first rubber has a match; its sides are the default lineup
    assert [r["match"] is not None for r in tie["rubbers"]] == [True, False, False]
    assert tie["rubbers"][0]["players"] == [["Duda"], ["Fábio"]]
    assert tie["rubber_in_play"] == tie["rubbers"][0]["number"]

    # the desk changes EC Santos' lineup before the tie starts; a stranger is refused, nothing changed
    r = api(cid, desk, action="lineup", tie=1, side="home", lineup=[["Eva"], ["Duda", "Eva"], ["Ana"]])
    assert r.status_code == 422 and r.json()["error"]["code"] == "player_not_in_team"
    assert "Ana não é jogador da equipe EC Santos / Ana is not a player of team EC Santos" == r.json()["error"]["message"]
    assert summary(cid)["ties"][0]["rubbers"][0]["players"] == [["Duda"], ["Fábio"]]
    assert Competition.objects.get(pk=cid).lineups == {}
    r = api(cid, desk, action="lineup", tie=1, side="home", lineup=[["Eva"], ["Duda", "Eva"], ["Duda"]])
    assert r.status_code == 200, r.content
    tie = r.json()["competition"]["ties"][0]
    assert tie["rubbers"][0]["players"] == [["Eva"], ["Fábio"]]
    first = tie["rubbers"][0]["match"]
    assert Match.objects.get(pk=first).config["players"] == ["Eva", "Fábio"]

    # rubber 1: Eva (home) wins
    score(first, 0)
    tie = summary(cid)["ties"][0]
    assert tie["score"] == [1, 0] and tie["status"] == "in_play"
    assert tie["rubbers"][0]["status"] == "finished" and tie["rubbers"][0]["winner"] == "EC Santos"
    second = tie["rubbers"][1]["match"]
    assert second is not None and tie["rubber_in_play"] == tie["rubbers"][1]["number"]
    assert Match.objects.get(pk=second).config["players"] == ["Duda / Eva", "Fábio / Gil"]
    assert Match.objects.get(pk=second).frames_to_win == 2
    # the lineup is locked once a rubber is played
    r = api(cid, desk, action="lineup", tie=1, side="away", lineup=[["Gil"], ["Fábio", "Gil"], ["Fábio"]])
    assert r.status_code == 422 and r.json()["error"]["code"] == "tie_started"
    # the desk shows the tie: team names, team score, the rubber in play
    page = admin_client.get(f"/desk/{cid}/").content.decode()
    assert "EC Santos" in page and "Tênis Clube" in page and 'data-tie="1"' in page
    assert 'class="tie-score">1 × 0<' in page
    # the TV of the rubber in play names the tie and its score
    tv = Client().get(f"/matches/{second}/tv/").content.decode()
    assert 'C1 · EC Santos <b>1 × 0</b> Tênis Clube · jogo 2 de 3' in tv
    phone = Client().get(f"/matches/{second}/").content.decode()  # the match page of the phones
    assert 'C1 · EC Santos <b>1 × 0</b> Tênis Clube · jogo 2 de 3' in phone
    tv = Client().get(f"/matches/{second}/tv/?lang=en").content.decode()
    assert 'T1 · EC Santos <b>1 × 0</b> Tênis Clube · rubber 2 of 3' in tv

    # rubber 2 (doubles, best of 3): the away pair wins 2-1
    score(second, 1, loser_frames=1)
    tie = summary(cid)["ties"][0]
    assert tie["score"] == [1, 1] and tie["frames"] == [2, 2] and not tie["decided"]
    third = tie["rubbers"][2]["match"]
    assert Match.objects.get(pk=third).config["players"] == ["Duda", "Gil"]

    # rubber 3: Gil (away) wins: Tênis Clube wins the tie 2-1 (all rubbers played)
    score(third, 1)
    s = summary(cid)
    tie = s["ties"][0]
    assert (tie["score"], tie["frames"], tie["decided"], tie["status"]) == ([1, 2], [2, 3], True, "finished")
    assert tie["winner_name"] == "Tênis Clube" and tie["rubber_in_play"] is None
    st = {r["name"]: r for r in s["standings"]}
    assert [r["name"] for r in s["standings"]][:1] == ["Tênis Clube"]
    assert (st["Tênis Clube"]["won"], st["Tênis Clube"]["rubbers_won"], st["Tênis Clube"]["rubber_difference"],
            st["Tênis Clube"]["frame_difference"]) == (1, 2, 1, 1)
    assert (st["EC Santos"]["lost"], st["EC Santos"]["rubber_difference"], st["EC Santos"]["position"]) == (1, -1, 3)
    assert st["Clube Paulistano"]["played"] == 0 and st["Clube Paulistano"]["position"] == 2
    assert not s["complete"] and s["promoted"] == [] and s["relegated"] == []
    # the next tie's first rubber is there to play (its own match)
    assert s["ties"][1]["rubbers"][0]["match"] is not None
    assert Fixture.objects.filter(competition_id=cid).exclude(match=None).count() == 3 + 2
    # the desk's exports know a team competition: rubbers with their sides, team standings
    csv_ = admin_client.get(f"/desk/{cid}/standings.csv").content.decode()
    assert csv_.lstrip("\ufeff").startswith("Série,Pos.,Equipe") and "Série A,1,Tênis Clube,1,1,0,0,2,1,1,3,2,1" in csv_
    res = admin_client.get(f"/desk/{cid}/results.csv").content.decode()
    assert "C1 · Jogo 2 (duplas),1,1,EC Santos × Tênis Clube,Duda / Eva,Fábio / Gil,,encerrado,1,2,Tênis Clube" in res
    pdf = admin_client.get(f"/desk/{cid}/bracket.pdf").content
    from pdf_boxes import overlapping, text_boxes  # the wallchart: the series' tables, nothing overprinted

    boxes = text_boxes(pdf)
    assert not overlapping(boxes) and {"Série A · Classificação", "Série A · Jogos"} <= {b.text for b in boxes}


def test_majority_ends_a_tie_without_its_last_rubber():
    out = create({**EVENT, "decided_by": "majority", "tie": [{"kind": "singles"}] * 3})
    cid = out["competition"]
    tie = summary(cid)["ties"][0]
    score(tie["rubbers"][0]["match"], 0)
    score(summary(cid)["ties"][0]["rubbers"][1]["match"], 0)
    tie = summary(cid)["ties"][0]
    assert (tie["score"], tie["decided"], tie["winner_name"]) == ([2, 0], True, "EC Santos")
    assert tie["rubbers"][2]["status"] == "not_played" and tie["rubbers"][2]["match"] is None


@pytest.mark.parametrize("change, words", [
    ({"teams": [{"name": "A", "players": []}, {"name": "B", "players": ["X", "Y"]}]},
     "A equipe A não tem jogadores / Team A has no players"),
    ({"teams": [{"name": "A", "players": ["Ana", "Bia"]}, {"name": "B", "players": ["Duda", "Ana"]}]},
     "Ana está em duas equipes desta competição: A e B / Ana is in two teams of this competition: A and B"),
    ({"lineups": {"1": {"away": [["Fábio"], ["Fábio", "Ana"], ["Gil"]]}}},
     "Ana não é jogador da equipe Tênis Clube / Ana is not a player of team Tênis Clube"),
])
def test_bad_team_files_are_refused_and_store_nothing(change, words):
    before = (Competition.objects.count(), Match.objects.count())
    with pytest.raises(CommandError) as e:
        create({**EVENT, "series": None, **change})
    assert str(e.value) == words
    assert (Competition.objects.count(), Match.objects.count()) == before


def test_a_team_competition_is_no_etapa_of_an_individual_ranking():
    from tournament import TournamentError

    from scoreboard.core import seasons
    from scoreboard.core.models import Season, SeasonEtapa

    comp = Competition.objects.get(pk=create()["competition"])
    season = Season.objects.create(name="2026")
    with pytest.raises(TournamentError) as e:
        seasons.add_etapa(season, comp)
    assert e.value.code == "team_etapa" and " / " in e.value.message
    assert not SeasonEtapa.objects.exists()
    SeasonEtapa.objects.create(season=season, competition=comp, weight=1)  # as the admin could
    s = seasons.summary(season.pk)
    assert s["ranking"] == [] and s["etapas"][0]["finished"] is False


FOUR = {"name": "Interclubes · Série B", "reds": 6, "draw_seed": 5, "frames_to_win": 1,
        "teams": [{"name": "A", "players": ["Ana", "Bia"]}, {"name": "B", "players": ["Carla", "Duda"]},
                  {"name": "C", "players": ["Eva", "Fabi"]}, {"name": "D", "players": ["Gil", "Hugo"]}],
        "tie": [{"kind": "singles"}, {"kind": "singles"}], "tables": ["Mesa 1", "Mesa 2"]}


def test_ties_are_called_to_the_free_tables_and_stay_on_their_table():
    """A team file with tables: each tie's next rubber is called to a free table (the desk no
    longer calls every rubber by hand); the tie's next rubber follows on the table its previous
    one used; a tie whose players are at a table in another tie waits, and so does a tie of a team
    whose other tie is under way; a freed table takes the next tie in schedule order."""
    out = create(FOUR)
    cid = out["competition"]
    ties = summary(cid)["ties"]
    first = [t for t in ties if t["round"] == 1]
    later = [t for t in ties if t["round"] > 1]
    assert len(first) == 2 and len(later) == 4
    # round 1 takes both tables; round 2's first players (each team's first) are at those tables
    assert sorted(t["rubbers"][0]["table"] for t in first) == ["Mesa 1", "Mesa 2"]
    assert all(t["rubbers"][0]["status"] == "called" for t in first)
    assert [t["rubbers"][0]["table"] for t in later] == [None] * 4
    for t in first:
        m = Match.objects.select_related("table").get(pk=t["rubbers"][0]["match"])
        assert m.table.name == t["rubbers"][0]["table"]

    # the first tie's rubber 1 ends: its rubber 2 is called to the same table
    tie = first[0]
    table = tie["rubbers"][0]["table"]
    score(tie["rubbers"][0]["match"], 0)
    now_ = next(t for t in summary(cid)["ties"] if t["tie"] == tie["tie"])
    assert now_["rubbers"][1]["table"] == table and now_["rubbers"][1]["status"] == "called"

    # its rubber 2 ends: the tie is over; every later tie's first rubber has a player at the
    # other table (each team's first player plays rubber 1), so the freed table waits
    score(now_["rubbers"][1]["match"], 0)
    ties = summary(cid)["ties"]
    other = next(t for t in ties if t["tie"] == first[1]["tie"])
    at_other = set(other["rubbers"][0]["players"][0] + other["rubbers"][0]["players"][1])
    waiting = [t for t in ties if t["round"] > 1]
    assert all(t["rubbers"][0]["table"] is None for t in waiting)
    assert all(at_other & set(t["rubbers"][0]["players"][0] + t["rubbers"][0]["players"][1]) for t in waiting)

    # the other tie's rubber 1 ends: its rubber 2 stays on its table; the freed table still waits,
    # though some players are free: every round-2 tie has a team of that tie, and a team plays
    # one tie at a time (a tester's finding: round 2 was called while its round-1 tie was played)
    score(other["rubbers"][0]["match"], 1)
    ties = summary(cid)["ties"]
    other = next(t for t in ties if t["tie"] == first[1]["tie"])
    assert other["rubbers"][1]["table"] == other["rubbers"][0]["table"] != table
    assert all({t["home"], t["away"]} & {other["home"], other["away"]} for t in ties if t["round"] == 2)
    assert all(t["rubbers"][0]["table"] is None for t in ties if t["round"] > 1)
    # ...and once that tie is over, round 2 takes both tables in schedule order
    score(other["rubbers"][1]["match"], 1)
    ties = summary(cid)["ties"]
    second = sorted((t for t in ties if t["round"] == 2), key=lambda t: t["tie"])
    assert sorted(t["rubbers"][0]["table"] for t in second) == ["Mesa 1", "Mesa 2"]
    assert all(t["rubbers"][0]["status"] == "called" for t in second)
    assert all(t["rubbers"][0]["table"] is None for t in ties if t["round"] == 3)
    # no table holds two matches, and no player is called to two
    held = [r for t in ties for r in t["rubbers"] if r["table"] and r["status"] in ("called", "in_play")]
    assert sorted(r["table"] for r in held) == ["Mesa 1", "Mesa 2"]
    names = [n for r in held for side in r["players"] for n in side]
    assert len(names) == len(set(names))


def test_a_double_walkover_on_a_rubber_lets_the_tie_go_on():
    """Both players of a rubber absent: the desk's W.O. with ``absent [0, 1]`` is a rubber won by
    nobody; the tie's next rubber is made (it stayed "next" for ever) and the score counts it
    for neither side."""
    out = create()
    cid, desk = out["competition"], out["desk_token"]
    tie = summary(cid)["ties"][0]
    first = tie["rubbers"][0]
    r = api(cid, desk, action="walkover", match=first["number"], absent=[0, 1], reason="ninguém compareceu")
    assert r.status_code == 200, r.content
    tie = summary(cid)["ties"][0]
    assert tie["rubbers"][0]["status"] == "walkover" and tie["rubbers"][0]["winner"] is None
    assert tie["rubbers"][0]["kind_of_result"] == "double_walkover"
    assert (tie["score"], tie["frames"], tie["decided"]) == ([0, 0], [0, 0], False)
    assert tie["rubber_in_play"] == tie["rubbers"][1]["number"] and tie["rubbers"][1]["match"] is not None
    score(tie["rubbers"][1]["match"], 1)
    score(summary(cid)["ties"][0]["rubbers"][2]["match"], 1)
    tie = summary(cid)["ties"][0]
    assert (tie["score"], tie["decided"], tie["winner_name"]) == ([0, 2], True, "Tênis Clube")
