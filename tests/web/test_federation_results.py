"""Results as a federation records them: a W.O. carries its reason (required), the time the match
was called and the tolerance, on the súmula; the no-shows of a double W.O. and a player who
withdrew get the file's ``points_absent`` (default 0), not the points of the place the bracket
left them in; a corrected result is what every derived figure counts (standings, their
tie-breaks, the CSV); a competition's hub shows only its own matches.

Transactional: results and calls flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

import tournament
from scoreboard.core import access, competitions, log, operations
from scoreboard.core.models import Competition, Fixture, Match, MatchRecord

pytestmark = [pytest.mark.django_db(transaction=True)]

PLAYERS = ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"]


def api(comp_id: int, token: str, **body):
    return Client().post(f"/api/competitions/{comp_id}/actions/", json.dumps(body),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def fixture_of(comp, number: int) -> Fixture:
    return Fixture.objects.select_related("match").get(competition=comp, number=number)


def sheet(match_id: int, lang: str = "pt-br") -> list[list[str]]:
    text = Client().get(f"/matches/{match_id}/sumula.csv?lang={lang}").content.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text)))


def test_a_walkover_needs_its_reason_and_the_sumula_prints_it_with_the_call_and_the_tolerance():
    created = competitions.create_competition(
        {"name": "Copa", "reds": 6, "draw_seed": 3, "players": PLAYERS, "tables": ["Mesa 1", "Mesa 2"],
         "wo_tolerance_minutes": 15, "stages": [{"format": "knockout", "frames_to_win": 1}]})
    comp, token = created.competition, created.desk_token
    fx = fixture_of(comp, 1)
    assert fx.called_at is not None  # called to a free table at once
    organiser = Client()
    user = get_user_model().objects.create_user("mesario", password="x-long-password", is_staff=True)
    access.grant(user, "organiser", "cmd:test", competition=comp)
    organiser.force_login(user)
    # no reason, a blank one: refused in Portuguese and English, nothing stored
    for refused in (api(comp.pk, token, action="walkover", match=1, absent=[1]),
                    api(comp.pk, token, action="walkover", match=1, absent=[1], reason="   "),
                    organiser.post(f"/desk/{comp.pk}/action/", json.dumps({"action": "walkover", "match": 1, "absent": [0, 1]}),
                                   content_type="application/json")):
        assert refused.status_code == 422, refused.content
        error = refused.json()["error"]
        assert error["code"] == "reason_required"
    assert "Informe o motivo do W.O." in error["message"] or "Give the reason" in error["message"]
    r = api(comp.pk, token, action="walkover", match=1, absent=[1])
    assert "Informe o motivo do W.O." in r.json()["error"]["message"] and "Give the reason for the walkover" in r.json()["error"]["message"]
    assert Match.objects.get(pk=fx.match_id).walkover is None
    assert not MatchRecord.objects.filter(match_id=fx.match_id, kind="walkover").exists()
    with pytest.raises(operations.OperationRefused):
        operations.walkover(fx.match, [1], "user:desk")
    # with its reason: stored with the call and the tolerance as they were
    r = api(comp.pk, token, action="walkover", match=1, absent=[1], reason="não compareceu no prazo de 15 minutos")
    assert r.status_code == 200, r.content
    rec = MatchRecord.objects.get(match_id=fx.match_id, kind="walkover")
    assert rec.reason == "não compareceu no prazo de 15 minutos"
    assert rec.data == {"absent": [1], "winner": 0, "called_at": fx.called_at.isoformat(), "tolerance_minutes": 15}
    called = timezone.localtime(fx.called_at).strftime("%H:%M")
    rows = {r[0]: r[1] for r in sheet(fx.match_id) if len(r) >= 2}
    assert rows["Chamado em"].startswith(called + " (UTC")
    assert rows["Tolerância do W.O."] == "15 min"
    assert rows["Motivo do W.O."] == "não compareceu no prazo de 15 minutos"
    en = {r[0]: r[1] for r in sheet(fx.match_id, "en") if len(r) >= 2}
    assert en["Called at"].startswith(called) and en["W.O. tolerance"] == "15 min"
    assert "não informado" not in json.dumps(sheet(fx.match_id))


def test_the_no_shows_of_a_double_walkover_and_a_withdrawn_player_get_the_files_points_absent():
    """A 4-player knockout, 3rd place shared: J1 a double W.O. (both absent), J2 played out by a
    W.O.; each no-show was given 3rd place's 55 points as if he had played."""
    points = {"1": 100, "2": 75, "3": 55}
    for extra, absent_points in (({}, 0), ({"points_absent": 5}, 5)):
        created = competitions.create_competition(
            {"name": f"Etapa {absent_points}", "reds": 6, "draw_seed": 3, "players": PLAYERS, "points": points,
             "tables": ["Mesa 1", "Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}], **extra})
        comp, token = created.competition, created.desk_token
        s = competitions.summary(comp)
        j1, j2 = ({p for p in m["players"]} for m in s["stages"][0]["matches"][:2])
        assert api(comp.pk, token, action="walkover", match=1, absent=[0, 1], reason="nenhum compareceu").status_code == 200
        assert api(comp.pk, token, action="walkover", match=2, absent=[1], reason="não compareceu").status_code == 200
        s = competitions.summary(Competition.objects.get(pk=comp.pk))
        got = {p["name"]: (p["placing"], p["points"]) for p in s["placings"]}
        winner = s["stages"][0]["matches"][1]["winner"]
        loser = (j2 - {winner}).pop()
        assert got[winner] == (1, 100)  # the final: nobody came out of J1
        assert got[loser] == (3, 55)     # lost a W.O. he did not turn up to: a plain W.O., as before
        assert {got[n] for n in j1} == {(3, absent_points)}, got
    # a withdrawal: the player who withdrew gets the file's points_absent
    created = competitions.create_competition(
        {"name": "Etapa W", "reds": 6, "draw_seed": 3, "players": PLAYERS, "points": points, "points_absent": 2,
         "tables": ["Mesa 1", "Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}]})
    comp, token = created.competition, created.desk_token
    first = competitions.summary(comp)["stages"][0]["matches"][0]["players"]
    assert api(comp.pk, token, action="withdraw", player=first[0], reason="lesão").status_code == 200
    assert api(comp.pk, token, action="walkover", match=2, absent=[1], reason="não compareceu").status_code == 200
    assert api(comp.pk, token, action="walkover", match=3, absent=[1], reason="não compareceu").status_code == 200
    s = competitions.summary(Competition.objects.get(pk=comp.pk))
    got = {p["name"]: (p["placing"], p["points"]) for p in s["placings"]}
    assert s["complete"] and sorted(got.values()) == [(1, 100), (2, 75), (3, 2), (3, 55)], got
    assert got[first[0]] == (3, 2)
    # a file without the key reads 0, a bad value is refused in both languages
    with pytest.raises(tournament.TournamentError) as e:
        tournament.parse_competition({"name": "X", "players": PLAYERS, "points_absent": -1,
                                      "stages": [{"format": "knockout", "frames_to_win": 1}]})
    assert "points_absent" in e.value.pt and "points_absent" in e.value.en


def _play(match_id: int, scorer: int, reds_and_blacks: int, conceder: int) -> None:
    """Side ``scorer`` wins the lot and pots ``reds_and_blacks`` red-black pairs (8 points each;
    0: a single red, 1 point), then side ``conceder`` concedes (frames_to_win 1: the match)."""
    balls = [[1], [7]] * reds_and_blacks or [[1]]
    events = [{"type": "lot", "player": scorer}, *({"type": "pot", "balls": b} for b in balls),
              {"type": "concede", "player": conceder}]
    for seq, ev in enumerate(events):
        log.append_event(match_id, ev, expected_seq=seq)


def _standings(comp, lang: str = "pt") -> list[list[str]]:
    from scoreboard.reports import brackets

    return list(csv.reader(io.StringIO(brackets.standings_csv(Competition.objects.get(pk=comp.pk), lang))))


def test_a_corrected_result_is_what_the_standings_their_tie_breaks_and_the_csv_count():
    """A three-player group that ends in a cycle (each wins once; frames level), so the points
    difference decides. C v A was entered as C conceding after scoring 1: corrected to C's win.
    The points each scored stay as played; before, the corrected match's points and breaks fell
    to 0 and the order was A, B, C instead of A, C, B."""
    created = competitions.create_competition(
        {"name": "Grupo", "reds": 6, "draw_seed": 1, "players": ["Ana", "Bia", "Caio"], "tables": ["Mesa 1"],
         "stages": [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 1}]})
    comp = created.competition
    by_pair = {}
    for fx in comp.fixtures.select_related("match"):
        by_pair[frozenset((fx.match.player_a.name, fx.match.player_b.name))] = fx
    for (winner, loser), pairs, wrong in ((("Ana", "Bia"), 2, False), (("Bia", "Caio"), 1, False),
                                          (("Caio", "Ana"), 0, True)):
        fx = fixture_of(comp, by_pair[frozenset((winner, loser))].number)
        side = 0 if fx.match.player_a.name == winner else 1
        _play(fx.match_id, side, pairs, side if wrong else 1 - side)
    before = _standings(comp)
    assert [r[3] for r in before[1:]] == ["Ana", "Bia", "Caio"]  # Ana 2 wins as entered
    fx = fixture_of(comp, by_pair[frozenset(("Caio", "Ana"))].number)
    caio = 0 if fx.match.player_a.name == "Caio" else 1
    frames = [0, 0]
    frames[caio] = 1
    competitions.correct(comp, fx.number, {"winner": caio, "frames": frames}, "desistência anotada para o jogador errado",
                         "user:org")
    rows = _standings(comp)
    head = rows[0]
    table = {r[3]: dict(zip(head, r)) for r in rows[1:]}
    assert [r[3] for r in rows[1:]] == ["Ana", "Caio", "Bia"], rows
    assert {n: (t["V"], t["D"], t["Pontos +"], t["Pontos −"], t["Maior tacada"]) for n, t in table.items()} == {
        "Ana": ("1", "1", "16", "1", "16"), "Caio": ("1", "1", "1", "8", "1"), "Bia": ("1", "1", "8", "16", "8")}
    assert "saldo de pontos" in table["Caio"]["Desempate"], table
    # the core's own evaluation of the final results gives the same table
    cur = competitions.now(Competition.objects.get(pk=comp.pk))
    again = tournament.evaluate(cur.plan, {n: tournament.Result.from_dict(r.to_dict()) for n, r in cur.results.items()})
    assert again.standings == cur.state.standings
    # the desk may give the points too (a match scored on the wrong sides)
    pts = [0, 0]
    pts[caio] = 30
    competitions.correct(comp, fx.number, {"winner": caio, "frames": frames, "points": pts}, "placar invertido", "user:org")
    table = {r[3]: dict(zip(rows[0], r)) for r in _standings(comp)[1:]}
    assert (table["Caio"]["Pontos +"], table["Ana"]["Pontos −"]) == ("30", "30")


def test_a_competitions_hub_shows_only_its_own_matches():
    """A finished competition shares Mesa 1 with another whose match is in play there: its hub
    listed that match's players and score under "Mesas agora", unlabelled, as its own."""
    done = competitions.create_competition(
        {"name": "Feminino", "reds": 6, "draw_seed": 1, "players": ["Ana Souza", "Bia Lima"], "tables": ["Mesa 1"],
         "stages": [{"format": "knockout", "frames_to_win": 1}]})
    assert api(done.competition.pk, done.desk_token, action="walkover", match=1, absent=[1],
               reason="não compareceu").status_code == 200
    assert competitions.summary(Competition.objects.get(pk=done.competition.pk))["complete"]
    other = competitions.create_competition(
        {"name": "Aberto", "reds": 6, "draw_seed": 1, "players": ["Zé Prado", "Léo Lima"], "tables": ["Mesa 1"],
         "stages": [{"format": "knockout", "frames_to_win": 1}]})
    m = fixture_of(other.competition, 1).match
    log.append_event(m.pk, {"type": "lot", "player": 0}, expected_seq=0)
    log.append_event(m.pk, {"type": "pot", "balls": [1]}, expected_seq=1)
    assert Match.objects.get(pk=m.pk).table.name == "Mesa 1"
    for lang in ("pt-br", "en"):
        page = Client().get(f"/competitions/{done.competition.pk}/?lang={lang}").content.decode()
        tables = page[page.index('id="ev-tables"'):page.index('id="ev-schedule"')]
        assert "Zé Prado" not in tables and "Léo Lima" not in tables, lang
        assert 'st-other' in tables and 'st-in_play' not in tables
    assert "Mesa ocupada por outro jogo" in Client().get(f"/competitions/{done.competition.pk}/").content.decode()
    # its own hub shows it, in play
    page = Client().get(f"/competitions/{other.competition.pk}/").content.decode()
    tables = page[page.index('id="ev-tables"'):page.index('id="ev-schedule"')]
    assert "Zé Prado" in tables and "st-in_play" in tables
