"""Issue 18 items 1 and 2: the event hub's fragments (``live/event.py``) and the jumbotron's event
views carry the real names, scores, calls and positions; each fragment is rendered by one
function, so the pushed board is the page's own text.

Transactional: results flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import re

import pytest
from django.test import Client

from scoreboard.core import competitions, operations
from scoreboard.core.models import Competition, Match, Player
from scoreboard.live import boards, event

pytestmark = [pytest.mark.django_db(transaction=True)]

PLAYERS = ["Ana Souza", {"name": "Bia Lima", "club": "Clube Santista"}, "Caio Rocha", "Davi Nunes",
           "Eva Prado", "Fábio Reis", "Gil Matos", "Hugo Dias"]
EVENT = {"name": "Etapa de Santos", "reds": 6, "draw_seed": 2026, "players": PLAYERS,
         "tables": ["Mesa 1", "Mesa 2"],
         "stages": [{"format": "double_elimination_groups", "groups": 2, "frames_to_win": 1, "qualify": 2},
                    {"format": "knockout", "frames_to_win": 1}]}


def post(client, match_id, token, ev):
    import json

    r = client.post(f"/api/matches/{match_id}/events/", json.dumps({"event": ev}),
                    content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert r.status_code == 201, r.content
    return r


def play(match_id: int, winner: int, brk: bool = False) -> None:
    """The lot, then (``brk``) the winner's break of red + black (8), then the loser concedes."""
    c = Client()
    token = operations.issue_token(Match.objects.get(pk=match_id), "test")
    post(c, match_id, token, {"type": "lot", "player": winner})
    if brk:
        post(c, match_id, token, {"type": "pot", "balls": [1]})
        post(c, match_id, token, {"type": "pot", "balls": [7]})
    post(c, match_id, token, {"type": "concede", "player": 1 - winner})


def fixture_match(comp, number) -> Match:
    return Match.objects.get(fixture__competition=comp, fixture__number=number)


@pytest.fixture
def comp():
    return competitions.create_competition(EVENT).competition


def names_of(m: Match) -> list[str]:
    return [m.player_a.name, m.player_b.name]


def test_hub_shows_tables_schedule_groups_with_real_names(comp):
    body = Client().get(f"/competitions/{comp.pk}/").content.decode()
    m1 = fixture_match(comp, 1)
    # tables now: J1 and J2 are called to the two tables, with the players' names
    tables = re.search(r'<section id="ev-tables".*?</section>\s*</div>\s*</section>|<section id="ev-tables".*?</section>', body, re.S).group(0)
    for n in names_of(m1):
        assert n in tables
    assert "chamado" in tables and "tolerância W.O. até" in tables
    assert "J1 · Grupo A · Jogo de abertura" in tables
    # the schedule: a called match says so; a later one has a "not before" time or "a qualquer momento"
    sched = body[body.index('id="ev-schedule"'):body.index('id="ev-results"')]
    assert 'id="s-J1"' in sched and "chamado · Mesa 1" in sched
    assert re.search(r"não antes de ~\d\d:[0-5][05]|a qualquer momento", sched)
    # the groups: every entrant in its group's standings, linked to the player's page
    groups = body[body.index('id="ev-groups"'):body.index('id="ev-bracket"')]
    for p in ("Ana Souza", "Bia Lima", "Hugo Dias"):
        assert p in groups
    assert f'href="/competitions/{comp.pk}/players/2/?lang=pt-br">Bia Lima</a>' in groups
    # the bracket: the knockout's rounds with their placeholders until the groups end
    bracket = body[body.index('id="ev-bracket"'):]
    assert "Semifinal" in bracket and "Final" in bracket and "1º Grupo A" in bracket
    assert 'data-view="tables"' in body  # the default tab


def test_results_scores_and_positions_after_matches(comp):
    m1, m2 = fixture_match(comp, 1), fixture_match(comp, 2)
    play(m1.pk, 0, brk=True)
    play(m2.pk, 1)
    ctx = event.event_context(Competition.objects.get(pk=comp.pk))
    res = {i["number"]: i for i in ctx["results"]}
    assert set(res) == {1, 2}
    assert [s["name"] for s in res[1]["sides"]] == names_of(m1)
    assert [s["frames"] for s in res[1]["sides"]] == [1, 0] and res[1]["sides"][0]["winner"]
    html = event.fragment("results", ctx)
    assert f"{m1.player_a.name}</a></span> <b class=\"ev-fr\">1 × 0</b>" in html
    assert f"{m2.player_a.name}</a></span> <b class=\"ev-fr\">0 × 1</b>" in html
    # the newest result first
    assert html.index('id="r-J2"') < html.index('id="r-J1"')
    # J1's and J2's winners are named in the group's winners' match; its losers' match too
    nxt = {i["round_name"]: i for i in ctx["matches"] if i["number"] > 2 and i["group"] == "A"}
    assert [s["name"] for s in nxt["winners"]["sides"]] == [m1.player_a.name, m2.player_b.name]
    assert [s["name"] for s in nxt["losers"]["sides"]] == [m1.player_b.name, m2.player_a.name]
    row = event.fragment("schedule", ctx).split(f'id="s-{nxt["winners"]["code"]}"')[1].split("</li>")[0]
    assert m1.player_a.name in row and m2.player_b.name in row and "Vencedor" not in row
    # a match whose players are not known shows its placeholders
    decider = event.fragment("schedule", ctx).split(f'id="s-{nxt["decider"]["code"]}"')[1].split("</li>")[0]
    assert "<i>Vencedor J" in decider and "<i>Perdedor J" in decider


def test_pushed_hub_board_is_the_page_s_own_text(comp):
    page = Client().get(f"/competitions/{comp.pk}/?view=bracket").content.decode()
    pushed = boards.render_board(f"hub-{comp.pk}", "pt-br")
    assert pushed.startswith('<main id="hub-board"') and pushed in page
    assert 'data-view="bracket"' in page
    en = boards.render_board(f"hub-{comp.pk}", "en")
    assert "Semi-final" in en and "called · Table 1" in en and "1st Group A" in en


def test_player_page_photo_club_breaks_and_record(comp):
    m1 = fixture_match(comp, 1)
    bia = Player.objects.get(name="Bia Lima")
    # an earlier match between the two of J1 (another day) counts in the record
    a, b = m1.player_a, m1.player_b
    from scoreboard.core.matches import new_match

    old = new_match({"players": [a.name, b.name], "reds": 6, "frames_to_win": 1}, players=(a, b))
    play(old.pk, 1)
    play(m1.pk, 0, brk=True)
    entry = comp.entries.get(player=a).number
    body = Client().get(f"/competitions/{comp.pk}/players/{entry}/").content.decode()
    board = body[body.index('<main id="player-board"'):]
    assert f"<h2>{a.name}</h2>" in board or f"> {a.name}</h2>" in board or a.name in board.split("</h2>")[0]
    assert '<b class="ev-break">8</b>' in board
    assert "Vitórias: 1 · Derrotas: 0" in board
    rec = board[board.index("Confronto direto"):]
    assert re.search(rf">{re.escape(b.name)}</a></td><td>1</td><td>1</td>", rec), rec
    # a player with a club shows it
    bia_entry = comp.entries.get(player=bia).number
    assert "Clube Santista" in Client().get(f"/competitions/{comp.pk}/players/{bia_entry}/").content.decode()
    assert Client().get(f"/competitions/{comp.pk}/players/99/").status_code == 404
    assert boards.render_board(f"player-{comp.pk}-{entry}", "pt-br") in body


def test_venue_cards_and_jumbotron_carry_the_group_or_round(comp):
    m1 = fixture_match(comp, 1)
    c = Client()
    token = operations.issue_token(m1, "t")
    post(c, m1.pk, token, {"type": "lot", "player": 0})
    venue = c.get("/").content.decode()
    assert f'<a href="/competitions/{comp.pk}/">Etapa de Santos</a>' in venue  # the hub from the venue
    assert '<span class="mc-stage">J1 · Grupo A · Jogo de abertura</span>' in venue
    tv = c.get("/tv/").content.decode()
    assert '<small class="jt-stage">J1 · Grupo A · Jogo de abertura</small>' in tv
    # the event views ride the same board: bracket, standings and the called matches
    tv = c.get("/tv/?rotate=tables,bracket,standings,called&every=12").content.decode()
    assert 'data-jv="tables" data-rotate="tables,bracket,standings,called" data-every="12"' in tv
    for v in ("bracket", "standings", "called"):
        assert f'class="jv jv-event" data-jv="{v}"' in tv
    called = tv[tv.index('data-jv="called"'):]
    m2 = fixture_match(comp, 2)
    assert "Mesa 2" in called and m2.player_a.name in called and m2.player_b.name in called
    assert 'data-jv="bracket"' in c.get("/tv/?view=bracket").content.decode().split("<body")[1][:300]
    assert c.get("/tv/?every=1").content.decode().count('data-every="5"') == 1


@pytest.mark.parametrize("query, name", [
    ("view=xyz", "view"), ("rotate=foo,bar&every=5", "rotate"), ("rotate=tables,nonsense", "rotate"),
    ("every=abc", "every"), ("comp=abc", "comp")])
def test_a_jumbotron_option_it_does_not_know_is_a_clear_400(comp, query, name):
    """Found by a tryout: ``/tv/?view=xyz``, ``?rotate=foo,bar`` and ``?comp=abc`` showed the
    default screen with no hint, so whoever set the screen up believed the option was in force."""
    r = Client().get(f"/tv/?{query}")
    page = r.content.decode()
    assert r.status_code == 400 and "Opção inválida no endereço / <span lang=\"en\">Invalid option in the address" in page
    assert f"<code>?{name}=" in page and "Valores aceitos:" in page and "Accepted values:" in page
    if name in ("view", "rotate"):
        assert "tables, bracket, standings, called" in page


def test_a_jumbotron_of_a_competition_that_does_not_exist_is_a_404_not_the_newest(comp):
    r = Client().get(f"/tv/?comp={comp.pk + 1000}")
    assert r.status_code == 404 and "Etapa de Santos" not in r.content.decode()
    assert "Page not found" in r.content.decode()


@pytest.mark.parametrize("query", ["position=middle", "position=top-bottom", "position=left-left",
                                   "position=top-left-right", "rotate=x", "per=3"])
def test_a_graphics_option_it_does_not_know_is_a_clear_400(comp, query):
    from scoreboard.core.models import Table

    t = Table.objects.first()
    r = Client().get(f"/tables/{t.pk}/graphics/?{query}")
    assert r.status_code == 400 and "Invalid option in the address" in r.content.decode()
    for fine in ("position=top", "position=bottom-left", "position=right", "position=top-center", "rotate=8&per=2"):
        assert Client().get(f"/tables/{t.pk}/graphics/?{fine}").status_code == 200, fine


def test_board_socket_kinds_of_a_competition():
    from scoreboard.live.sockets import valid_public

    assert valid_public("hub-3") and valid_public("player-3-7") and valid_public("jumbotron-3")
    assert not valid_public("hub-3-7") and not valid_public("player-3") and not valid_public("hub-x")


def test_not_before_times_are_the_feeders_state_plus_the_rest():
    """"Não antes de" is a lower bound on the call, from what can happen (a match may end at any
    moment, by a W.O. or a concession), not a projection of durations: with nothing in play
    every match may come at any moment; with J1 and J2 in play, their winners' match J5 and
    losers' match J6 wait for the rest after them (20 min), as do the matches that wait for
    those (J9, both semi-finals: each takes a place of group A, and the final); group B's own
    matches stay open."""
    from datetime import timedelta

    from django.utils import timezone

    comp = competitions.create_competition({**EVENT, "rest_minutes": 20}).competition
    floor = lambda t: timezone.localtime(t).replace(minute=timezone.localtime(t).minute // 5 * 5,  # noqa: E731
                                                    second=0, microsecond=0)
    now = timezone.now()
    assert event.not_before(comp, competitions.now(comp), now) == {}
    html = event.fragment("schedule", event.event_context(comp))
    assert "não antes de" not in html and "a qualquer momento" in html
    for n in (1, 2):
        Match.objects.filter(pk=fixture_match(comp, n).pk).update(started_at=now - timedelta(minutes=10))
    times = event.not_before(comp, competitions.now(comp), now)
    want = floor(now + timedelta(minutes=20))
    assert times == {5: want, 6: want, 9: want, 11: want, 12: want, 13: want}
    html = event.fragment("schedule", event.event_context(comp))
    assert f'não antes de ~{want.strftime("%H:%M")}' in html.split('id="s-J5"')[1].split("</li>")[0]


def test_the_tables_tab_links_each_name_to_the_players_page_called_and_in_play(comp):
    """Found trying the hub: on the tables tab (the default one) the names were plain text."""
    m1 = fixture_match(comp, 1)
    ctx = event.event_context(Competition.objects.get(pk=comp.pk))
    called = event.fragment("tables", ctx)
    row = next(r for r in ctx["tables"] if r["item"] and r["item"]["match_id"] == m1.pk)
    for s in row["item"]["sides"]:
        assert f'<a href="/competitions/{comp.pk}/players/{s["n"]}/?lang=pt-br">{s["name"]}</a>' in called
    c = Client()
    token = operations.issue_token(Match.objects.get(pk=m1.pk), "test")
    post(c, m1.pk, token, {"type": "lot", "player": 0})
    ctx = event.event_context(Competition.objects.get(pk=comp.pk))
    row = next(r for r in ctx["tables"] if r["card"] and r["item"]["match_id"] == m1.pk)
    assert row["state"] == "in_play"
    html = event.fragment("tables", ctx)
    article = re.search(r'<article class="ev-table st-in_play".*?</article>', html, re.S).group(0)
    for s in row["item"]["sides"]:
        assert f'<a href="/competitions/{comp.pk}/players/{s["n"]}/?lang=pt-br">{s["name"]}</a>' in article


def test_an_english_hub_links_in_english(comp):
    """Audit: the hub in ``?lang=en`` linked its players (and matches, and tabs) without the
    language, and ``?lang=`` sets no cookie: the player's page opened in Portuguese."""
    m1 = fixture_match(comp, 1)
    play(m1.pk, 0)
    page = Client().get(f"/competitions/{comp.pk}/?view=results&lang=en").content.decode()
    players = re.findall(r'href="(/competitions/\d+/players/\d+/[^"]*)"', page)
    matches = re.findall(r'href="(/matches/\d+/[^"]*)"', page)
    tabs = re.findall(r'href="(/competitions/\d+/\?view=[^"]*)"', page)
    assert players and matches and tabs
    assert all(h.endswith("?lang=en") for h in players + matches), players + matches
    assert all(h.endswith("&amp;lang=en") for h in tabs), tabs
    entry = players[0].split("/")[4]
    player = Client().get(players[0]).content.decode()
    assert "Today's matches" in player and f"/competitions/{comp.pk}/players/" in player
    assert all(h.endswith("?lang=en") for h in re.findall(r'href="(/competitions/\d+/players/\d+/[^"]*)"', player))
    assert boards.render_board(f"player-{comp.pk}-{entry}", "en") in player
    # the pushed board is still the page's own text, in each language
    assert boards.render_board(f"hub-{comp.pk}", "en") in page
    pt = Client().get(f"/competitions/{comp.pk}/").content.decode()
    assert f'/players/{entry}/?lang=pt-br"' in pt and boards.render_board(f"hub-{comp.pk}", "pt-br") in pt


def test_the_jumbotron_labels_a_table_s_next_match(comp):
    """Audit: a table between matches showed "Próximo jogo: Ana × Bia" without its round or
    group, which every card in play has."""
    m1 = fixture_match(comp, 1)
    tv = Client().get("/tv/").content.decode()
    card = tv[tv.index("Próximo jogo"):]
    card = card[:card.index("</p>")]
    assert f"{m1.player_a.name} × {m1.player_b.name}" in card
    assert '<span class="jt-next-stage">J1 · Grupo A · Jogo de abertura</span>' in card, card
    en = Client().get("/tv/?lang=en").content.decode()
    assert '<span class="jt-next-stage">M1 · Group A · Opening match</span>' in en


def test_an_idle_table_s_called_match_is_named_in_the_page_s_language(comp):
    """Screenshots (audit item 5): a table's TV between matches named its called match by the
    match's stored text, in Portuguese on the English TV ("Jogo de abertura")."""
    m1 = fixture_match(comp, 1)
    en = Client().get(f"/tables/{m1.table_id}/tv/?lang=en").content.decode()
    assert "Etapa de Santos · M1 · Group A · Opening match · " in en and "abertura" not in en
    pt = Client().get(f"/tables/{m1.table_id}/tv/").content.decode()
    assert "Etapa de Santos · J1 · Grupo A · Jogo de abertura · tolerância W.O." in pt
