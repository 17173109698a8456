"""An undo that takes back the end of a competition's match whose result a started match
depends on is refused, as the desk's correction is (issue 17: "only while no dependent match
has started"). Found by a fresh tester: undoing a finished team rubber after the tie's next
rubber had started was accepted; the API then showed the earlier rubber in play and the one
being scored at its table "pending". Before the dependent match starts the undo goes through."""
from __future__ import annotations

import json

import pytest
from django.test import Client

from scoreboard.core import operations
from scoreboard.core.competitions import create_competition
from scoreboard.core.models import Fixture, Match

from test_teams_event import EVENT, create, score

pytestmark = [pytest.mark.django_db(transaction=True)]


def tap(m: Match, token: str, event: dict):
    return Client().post(f"/api/matches/{m.pk}/events/", json.dumps({"event": event}),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def fixture_match(cid: int, number: int) -> Match:
    return Fixture.objects.get(competition_id=cid, number=number).match


def test_a_rubber_is_not_reopened_once_the_ties_next_rubber_started():
    cid = create({**EVENT, "tables": ["Mesa 1"]})["competition"]
    first = fixture_match(cid, 1)
    score(first.pk, winner=0)
    token = operations.issue_token(first, "test")
    second = fixture_match(cid, 2)
    assert tap(second, operations.issue_token(second, "test"), {"type": "lot", "player": 0}).status_code == 201
    seq = Match.objects.get(pk=first.pk).seq
    r = tap(first, token, {"type": "undo"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "correction_refused"
    assert r.json()["error"]["message"] == (
        "O fim de C1 · Jogo 1 (simples) não pode ser desfeito: o jogo seguinte do confronto já começou (J2); "
        "uma correção é da organização / The end of T1 · Rubber 1 (singles) cannot be undone: the tie's next "
        "rubber has started (M2); a correction is the desk's")
    assert Match.objects.get(pk=first.pk).seq == seq


def test_a_knockout_result_is_reopened_only_until_the_match_it_feeds_starts():
    comp = create_competition({"name": "Etapa", "reds": 6, "draw_seed": 1, "players": ["Ana", "Bia", "Caio", "Davi"],
                               "tables": ["Mesa 1", "Mesa 2"],
                               "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    semis = [fixture_match(comp.pk, n) for n in (1, 2)]
    tokens = [operations.issue_token(m, "test") for m in semis]
    for m, t in zip(semis, tokens):
        assert tap(m, t, {"type": "lot", "player": 0}).status_code == 201
        assert tap(m, t, {"type": "concede", "player": 1}).status_code == 201
    # the final is made, not started: the referee may still take a semi-final's end back
    assert tap(semis[0], tokens[0], {"type": "undo"}).status_code == 201
    assert tap(semis[0], tokens[0], {"type": "concede", "player": 1}).status_code == 201
    final = fixture_match(comp.pk, 3)
    assert final is not None
    assert tap(final, operations.issue_token(final, "test"), {"type": "lot", "player": 0}).status_code == 201
    r = tap(semis[1], tokens[1], {"type": "undo"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "correction_refused"
    assert "O fim de J2 não pode ser desfeito: o jogo que depende dele já começou (J3)" in r.json()["error"]["message"]
    assert Match.objects.get(pk=semis[1].pk).seq == 2
