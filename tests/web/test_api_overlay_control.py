"""The overlay control endpoint a Stream Deck or Companion calls: who may switch, what it answers."""
from __future__ import annotations

import json

import pytest
from django.test import Client

from scoreboard.core.credentials import issue_overlay_token
from scoreboard.core.matches import create_match
from scoreboard.core.models import Match, Table

pytestmark = pytest.mark.django_db


def post(client: Client, url: str, body=None, token: str | None = None, **extra):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.post(url, json.dumps(body) if body is not None else "", content_type="application/json",
                       **headers, **extra)


def test_without_a_token_401_with_anothers_403_in_portuguese_and_english_and_nothing_changes(created):
    other = create_match("Caio", "Davi", first_breaker=0)
    url = f"/api/matches/{created.match.pk}/overlay/"
    c = Client()
    r = post(c, url, {"bar": "hide"})
    assert r.status_code == 401 and r["WWW-Authenticate"].startswith("Bearer")
    assert r.json()["error"] == {"code": "unauthorized", "message":
                                 "Informe o token do overlay da mesa ou do árbitro (Authorization: Bearer …) / "
                                 "Send the table's overlay token or the referee token (Authorization: Bearer …)"}
    r = post(c, url, {"bar": "hide"}, token=other.token)
    assert r.status_code == 403
    assert r.json()["error"] == {"code": "forbidden", "message": "Este token não controla o overlay deste jogo / "
                                                                 "This token may not control this match's overlay"}
    m = Match.objects.get(pk=created.match.pk)
    assert (m.overlay_bar, m.overlay_stats, m.overlay_ver) == (True, False, 0)


def test_the_referee_token_switches_bar_and_statistics(created):
    url = f"/api/matches/{created.match.pk}/overlay/"
    c = Client()
    r = post(c, url, {"bar": "hide", "stats": "show"}, token=created.token)
    assert r.status_code == 200
    assert r.json() == {"match": created.match.pk, "bar": False, "stats": True, "words": False, "ver": 1}
    r = post(c, url + "?bar=toggle", token=created.token)  # Companion's simplest form: no body
    assert r.json() == {"match": created.match.pk, "bar": True, "stats": True, "words": False, "ver": 2}
    assert c.get(url).json() == {"match": created.match.pk, "bar": True, "stats": True, "words": False, "ver": 2}
    # the overlay page renders the switches it was given
    page = c.get(f"/matches/{created.match.pk}/overlay/").content.decode()
    assert 'data-ver="2" data-bar="1" data-stats="1"' in page
    assert "Maior tacada" in page.split('id="ov-stats"')[1]


@pytest.mark.parametrize("body, message", [
    ({"bar": "maybe"}, '"bar" deve ser show, hide ou toggle / "bar" must be show, hide or toggle'),
    ({"volume": "up"}, 'Use "bar", "stats" e/ou "words" com show, hide ou toggle / Use "bar", "stats" and/or "words" with show, hide or toggle'),
    ({}, 'Use "bar", "stats" e/ou "words" com show, hide ou toggle / Use "bar", "stats" and/or "words" with show, hide or toggle'),
    (["bar"], 'Esperado um objeto {"bar": …, "stats": …} / Expected an object {"bar": …, "stats": …}'),
])
def test_bad_bodies_are_400_and_change_nothing(created, body, message):
    r = post(Client(), f"/api/matches/{created.match.pk}/overlay/", body, token=created.token)
    assert r.status_code == 400 and r.json()["error"] == {"code": "bad_request", "message": message}
    assert Match.objects.get(pk=created.match.pk).overlay_ver == 0


def test_a_tables_overlay_token_controls_the_match_on_that_table_only(created):
    table = Table.objects.create(name="Mesa 3")
    Match.objects.filter(pk=created.match.pk).update(table=table)
    token = issue_overlay_token(table)
    c = Client()
    r = post(c, f"/api/tables/{table.pk}/overlay/", {"stats": "show"}, token=token)
    assert r.status_code == 200 and r.json()["match"] == created.match.pk and r.json()["stats"] is True
    other = create_match("Caio", "Davi", first_breaker=0)
    assert post(c, f"/api/matches/{other.match.pk}/overlay/", {"stats": "show"}, token=token).status_code == 403
    issue_overlay_token(table)  # a new token: the old one stops working (it is no token any more: 401)
    r = post(c, f"/api/tables/{table.pk}/overlay/", {"stats": "hide"}, token=token)
    assert r.status_code == 401 and r.json()["error"]["message"] == "Token inválido / Invalid token"
    empty = Table.objects.create(name="Mesa 4")
    r = post(c, f"/api/tables/{empty.pk}/overlay/", {"stats": "hide"}, token=issue_overlay_token(table))
    assert r.status_code == 403 and r.json()["error"] == {
        "code": "forbidden", "message": "Este token não controla esta mesa / This token does not control this table"}
    assert c.put(f"/api/tables/{table.pk}/overlay/").status_code == 405


def test_the_switches_belong_to_the_table_and_hold_across_its_matches(created):
    """Issue 18: between matches the table's endpoint answers (a Stream Deck pre-sets the bar) and
    a new match on the table starts with the table's switches, not with the bar shown again."""
    table = Table.objects.create(name="Mesa 5")
    # not started (one match in progress per table): the table's next match
    Match.objects.filter(pk=created.match.pk).update(table=table, started_at=None)
    token = issue_overlay_token(table)
    c = Client()
    r = post(c, f"/api/tables/{table.pk}/overlay/", {"bar": "hide"}, token=token)
    assert r.status_code == 200 and {k: v for k, v in r.json().items() if k != "graphics"} == \
        {"match": created.match.pk, "bar": False, "stats": False, "words": False, "ver": 1}
    later = create_match("Caio", "Davi", first_breaker=0, table="Mesa 5").match
    later.refresh_from_db()
    assert later.table_id == table.pk and (later.overlay_bar, later.overlay_stats) == (False, False)
    assert c.get(f"/api/matches/{later.pk}/overlay/").json()["bar"] is False
    # a switch between matches reaches every match still to start on the table
    r = post(c, f"/api/tables/{table.pk}/overlay/", {"stats": "show"}, token=token)
    assert r.status_code == 200
    rows = list(Match.objects.filter(table=table).values_list("pk", "seq", "started_at", "overlay_bar", "overlay_stats"))
    assert sorted(x[3:] for x in rows) == [(False, True)] * 2, (rows, r.json())


def test_a_table_that_never_had_a_match_takes_the_switches_for_its_first_one():
    """Audit: the bar and statistics switches were stored on match rows only, so a table that had
    never had a match answered 404 ``no_match``: a Stream Deck could not pre-set them before the
    day's first match. Now they are the table's, as the graphics switches are."""
    table = Table.objects.create(name="Mesa 6")
    token = issue_overlay_token(table)
    c = Client()
    r = post(c, f"/api/tables/{table.pk}/overlay/", {"bar": "hide", "stats": "show"}, token=token)
    answer = r.json()
    assert r.status_code == 200 and answer.pop("graphics")["ticker"] is False  # a table's answer, as GET
    assert answer == {"match": None, "bar": False, "stats": True, "words": False, "ver": None}
    got = c.get(f"/api/tables/{table.pk}/overlay/").json()
    assert (got["match"], got["bar"], got["stats"]) == (None, False, True) and got["graphics"]["ticker"] is False
    r = post(c, f"/api/tables/{table.pk}/overlay/?stats=toggle", token=token)
    assert r.status_code == 200 and r.json()["stats"] is False
    first = create_match("Caio", "Davi", first_breaker=0, table="Mesa 6").match
    first.refresh_from_db()
    assert (first.overlay_bar, first.overlay_stats) == (False, False)
    got = c.get(f"/api/tables/{table.pk}/overlay/").json()
    assert (got["match"], got["bar"], got["stats"]) == (first.pk, False, False)
    # the overlay page of the table draws its first match with the bar hidden
    page = c.get(f"/tables/{table.pk}/overlay/").content.decode()
    assert 'id="ov-ctl" hx-swap-oob="true" data-ver="1" data-bar="0" data-stats="0"' in page


def test_a_switch_given_twice_with_different_values_is_refused_and_changes_nothing():
    """Found by a tryout: ``bar=show&bar=hide`` was taken silently (the last one won) while the
    URL against the body was refused; both say two things now, and neither changes anything."""
    table = Table.objects.create(name="Mesa 7")
    token = issue_overlay_token(table)
    c = Client()
    before = c.get(f"/api/tables/{table.pk}/overlay/").json()
    for r in (post(c, f"/api/tables/{table.pk}/overlay/?bar=show&bar=hide", token=token),
              c.post(f"/api/tables/{table.pk}/overlay/", "bar=show&bar=hide&stats=hide",
                     content_type="application/x-www-form-urlencoded", HTTP_AUTHORIZATION=f"Bearer {token}")):
        assert r.status_code == 400
        assert r.json()["error"]["message"] == ("bar dado duas vezes com valores diferentes / "
                                                "bar given twice with different values")
    assert c.get(f"/api/tables/{table.pk}/overlay/").json() == before
    # the same value twice says one thing
    r = post(c, f"/api/tables/{table.pk}/overlay/?bar=hide&bar=HIDE", token=token)
    assert r.status_code == 200 and r.json()["bar"] is False
    assert set(r.json()["graphics"]) >= {"ticker", "sponsors"}
