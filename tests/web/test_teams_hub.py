"""A team competition on the spectators' screens (issue 19 item 4: "the phone hub and the TV show
the tie"). Found by a fresh tester: with a team competition in the database the phone hub
(``/competitions/<id>/``) and the venue's TV (``/tv/``, the newest competition) answered 500
(``'stages' deve ser uma lista não vazia``). Now the hub shows the ties in play with their
rubbers, the programme, the finished ties and the team standings, in pt and en; the TV's
standings and called views show the team table and the called rubber; the pushed board is the
page's own text; a team competition has no player pages (404)."""
from __future__ import annotations

import re

import pytest

from scoreboard.core import competitions, log, teams
from scoreboard.core.models import Fixture, Match
from scoreboard.live import boards

from test_teams_event import EVENT, create, score

pytestmark = [pytest.mark.django_db(transaction=True)]


def rubber_match(comp_id: int, number: int) -> Match:
    return Fixture.objects.get(competition_id=comp_id, number=number).match


def test_the_hub_and_the_tv_show_a_team_competition(client):
    comp_id = create({**EVENT, "tables": ["Mesa 1"]})["competition"]
    first = rubber_match(comp_id, 1)
    assert first is not None and first.table is not None  # rubber 1 of tie 1 called to Mesa 1
    page = client.get(f"/competitions/{comp_id}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert re.search(r'<a [^>]*data-view="groups" role="tab"[^>]*>Classificação</a>', html)
    assert 'data-view="bracket"' not in html  # a team league has groups' standings, no bracket tab
    assert "Nenhum confronto em jogo agora." in html and "chamado · Mesa 1" in html
    assert "desempate: sorteio" not in html  # no tie-break shown before anyone played
    called = client.get("/tv/?view=called").content.decode()
    assert "Mesa 1" in called and "C1 · Jogo 1 (simples)" in called
    score(first.pk, winner=0)
    log._engines.clear()
    html = client.get(f"/competitions/{comp_id}/").content.decode()
    tie = html.split('id="t-1"')[1].split("</article>")[0]
    assert '<span class="ev-side">EC Santos</span> <b class="ev-fr">1 × 0</b> <span class="ev-side">Tênis Clube</span>' in tie
    assert 'Duda <b class="ev-fr">1 × 0</b> Fábio' in tie and "estatísticas" in tie
    assert 'Duda / Eva <b class="ev-fr">×</b> Fábio / Gil' in tie and "chamado · Mesa 1<" in tie
    board = boards.render_board(f"hub-{comp_id}", "pt-br")
    assert board.startswith('<main id="hub-board"') and board in html
    en = client.get(f"/competitions/{comp_id}/?view=groups&lang=en").content.decode()
    assert "Ties in play" in en and ">Standings</a>" in en and "rubbers won–lost" in en
    rows = en.split('<tbody>')[1].split('</tbody>')[0]
    assert rows.index("Clube Paulistano") < rows.index("EC Santos")
    tv = client.get("/tv/?view=standings").content.decode()
    assert "Clube Paulistano" in tv and "Tênis Clube" in tv and "Classificação" in tv
    assert client.get("/").status_code == 200
    assert client.get(f"/competitions/{comp_id}/players/1/").status_code == 404
    assert competitions.format_of(Fixture.objects.get(competition_id=comp_id, number=1).competition).kind == "team"


def test_the_tables_tv_shows_the_tie_of_the_rubber_on_it(client):
    """A tester's finding: ``/matches/<id>/tv/`` showed the tie above a rubber, the table's
    own TV (``/tables/<id>/tv/``, the one a venue leaves on) did not."""
    import json

    from scoreboard.core import operations

    comp_id = create({**EVENT, "tables": ["Mesa 1"]})["competition"]
    first = rubber_match(comp_id, 1)
    token = operations.issue_token(first, "test")
    assert client.post(f"/api/matches/{first.pk}/events/", json.dumps({"event": {"type": "lot", "player": 0}}),
                       content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 201
    tv = client.get(f"/tables/{first.table_id}/tv/").content.decode()
    assert '<p class="tv-tie" data-tie="1">C1 · EC Santos <b>0 × 0</b> Tênis Clube · jogo 1 de 3</p>' in tv
    en = client.get(f"/tables/{first.table_id}/tv/?lang=en").content.decode()
    assert 'data-tie="1">T1 · EC Santos <b>0 × 0</b> Tênis Clube' in en


def test_a_rubber_won_by_disqualification_says_so_on_the_desk_and_the_hub(client):
    """A tester's finding: the desk showed a rubber won by disqualification as "0 × 0", with
    neither the winner nor why."""
    import json

    from scoreboard.core import operations

    comp_id = create({**EVENT, "tables": ["Mesa 1"]})["competition"]
    first = rubber_match(comp_id, 1)
    token = operations.issue_token(first, "test")
    for ev in ({"type": "lot", "player": 0}, {"type": "foul", "kind": "misconduct", "player": 1},
               {"type": "foul", "kind": "misconduct", "player": 1}):
        assert client.post(f"/api/matches/{first.pk}/events/", json.dumps({"event": ev}),
                           content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 201
    desk = boards.render_desk(comp_id, "pt-br")
    row = desk.split('data-rubber="1"')[1].split("</li>")[0]
    assert "vence EC Santos · desclassificação" in row
    hub = client.get(f"/competitions/{comp_id}/?view=results").content.decode()
    assert "vence EC Santos · desclassificação" in hub.split('data-rubber="1"')[1].split("</li>")[0]
    assert "EC Santos wins · disqualification" in boards.render_desk(comp_id, "en")


def test_a_called_match_waiting_for_its_lot_shows_no_points_in_play(client):
    """A tester's finding: before the lot the TV said "Pontos em jogo 0" (the engine's 0 in
    phase ``lot``, contract section 3): nothing is in play yet, so it shows "—"."""
    comp_id = create({**EVENT, "tables": ["Mesa 1"]})["competition"]
    tv = client.get(f"/matches/{rubber_match(comp_id, 1).pk}/tv/").content.decode()
    assert '<span class="v" id="tv-remaining">—</span>' in tv


def test_a_walkover_is_no_score_on_the_jumbotron_nor_the_idle_table_tv(client):
    """A tester read "Último resultado: Fábio Nunes 1 × 0 Kátia Ramos" for a W.O."""
    from scoreboard.core import operations
    from scoreboard.core.matches import new_match

    m = new_match({"players": ["Fábio Nunes", "Kátia Ramos"], "reds": 6, "frames_to_win": 1}, table="Mesa 5",
                  started=False)
    operations.walkover(m, [1], "desk", "não compareceu")
    board = boards.render_board("jumbotron", "pt-br")
    assert "<strong>Fábio Nunes × Kátia Ramos</strong> · W.O. — Vence Fábio Nunes" in board
    assert "Fábio Nunes 1 × 0" not in board
    idle = client.get(f"/tables/{m.table_id}/tv/").content.decode()
    assert '<span class="idle-frames">W.O.</span>' in idle
