"""Issue 18, item 3: a table's stream graphics (``/tables/<id>/graphics/``, ``live/graphics.py``)
and their switches on the table's control endpoint (``core/graphics.py``): each graphic shows the
real names and scores; the switches belong to the table (they work before its first match and hold
across its matches); one card at a time; bad input is a 400 in both languages that changes nothing;
a switch and a tap elsewhere push the graphics board to its sockets."""
from __future__ import annotations

import asyncio
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from scoreboard.core import competitions, log
from scoreboard.core.credentials import issue_overlay_token
from scoreboard.core.matches import new_match
from scoreboard.core.models import Match, Player, Sponsor, Table
from scoreboard.live import graphics

from ops_helpers import fresh_engines, fresh_stats  # noqa: F401

LONG_A = "Igor Martins de Albuquerque Cavalcanti Neto"
LONG_B = "Maria Eduarda Fernandes de Oliveira Santos"
CONFIG = {"players": [LONG_A, LONG_B], "reds": 6, "frames_to_win": 1, "first_breaker": 0}


def post(c: Client, url: str, body: dict, token: str):
    return c.post(url, body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def won(m: Match, by: int = 0) -> Match:
    """Play ``m`` to its end: a red, then the other concedes the frame (frames_to_win 1)."""
    events = [{"type": "pot", "balls": [1]}, {"type": "concede", "player": 1 - by}] if by == 0 else \
        [{"type": "no_pot"}, {"type": "pot", "balls": [1]}, {"type": "concede", "player": 0}]
    for i, ev in enumerate(events, start=m.seq):
        log.append_event(m.pk, ev, expected_seq=i)
    m.refresh_from_db()
    return m


@pytest.fixture
def day(db):
    """Mesa 1 (ours: a long-named pair up next), Mesa 2 (live, 8–0 in frame 1), Mesa 3 (a result)."""
    Player.objects.create(name=LONG_A, club="Clube Atlético Paulistano de Sinuca", country="BR")
    Player.objects.create(name=LONG_B, club="Sociedade Esportiva Palmeiras", country="PT")
    ours = Table.objects.create(name="Mesa 1")
    earlier = won(new_match(CONFIG, table=ours), by=1)  # B beat A once already
    nxt = new_match(CONFIG, table=ours, started=False)
    live = new_match({**CONFIG, "players": ["Caio Rocha", "Davi Nunes"]}, table="Mesa 2")
    for i, ev in enumerate([{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}]):
        log.append_event(live.pk, ev, expected_seq=i)
    done = won(new_match({**CONFIG, "players": ["Eva Prado", "Fábio Reis"]}, table="Mesa 3"))
    return {"table": ours, "token": issue_overlay_token(ours), "next": nxt, "earlier": earlier,
            "live": live, "done": done}


pytestmark = pytest.mark.django_db


def test_nothing_shows_until_switched_and_the_page_is_a_transparent_fixed_stage(client, day):
    t = day["table"]
    html = client.get(f"/tables/{t.pk}/graphics/").content.decode()
    assert 'id="gfx-stage"' in html and "data-gfx=" not in html
    assert f'data-board-ws="/ws/boards/?view=graphics-{t.pk}&amp;lang=pt-br&amp;have=' in html
    assert 'class="gfx ' in html and "graphics.css" in html
    assert client.get("/tables/999/graphics/").status_code == 404


def test_each_graphic_shows_the_real_names_and_scores(client, day):
    t, token = day["table"], day["token"]
    c = Client()
    r = post(c, f"/api/tables/{t.pk}/overlay/", {"ticker": "show", "sponsors": "show", "next": "show",
                                                  "countdown": "23:59"}, token)
    assert r.status_code == 200, r.content
    g = r.json()["graphics"]
    assert (g["ticker"], g["sponsors"], g["next"], g["countdown"]) == (True, True, True, "23:59")
    html = graphics.render(t.pk, "pt-br")
    # the ticker: the other tables, not this one, with the live score and the result
    assert 'data-gfx="ticker"' in html and "Mesa 2" in html and "Mesa 3" in html
    assert "Caio Rocha" in html and "<b>0</b> <small>(8–0)</small> <b>0</b>" in html and "AO VIVO" in html
    assert "Eva Prado" in html and "<b>1–0</b>" in html and "FINAL" in html
    assert "Mesa 1<" not in html.split('data-gfx="ticker"')[1].split("</section>")[0]
    # the next match on this table, with clubs and flags and the countdown
    nxt = html.split('data-gfx="next"')[1]
    assert LONG_A in nxt and LONG_B in nxt and "Clube Atlético Paulistano de Sinuca" in nxt
    assert "/flags/br" in nxt.lower() and "Começa às 23:59" in nxt and "data-countdown=" in nxt
    # the holding card replaces the next-match card (one card at a time): the day's results
    g = post(c, f"/api/tables/{t.pk}/overlay/", {"holding": "show"}, token).json()["graphics"]
    assert (g["holding"], g["next"]) == (True, False)
    html = graphics.render(t.pk, "en")
    assert 'data-gfx="next"' not in html and "We'll be right back" in html
    hold = html.split('data-gfx="holding"')[1]
    assert "Today's results" in hold and "Eva Prado" in hold and "Fábio Reis" in hold and ">1–0<" in hold
    assert LONG_B in hold and ">0–1<" in hold  # the earlier match on this table


def test_the_next_match_card_with_none_scheduled_says_why(client, day):
    """Found by a tryout: with a match in play on the table and nothing after it, the card read
    "Nenhum jogo marcado nesta mesa" as if the table were idle; with a competition's queue the
    next match is not known until a table is free."""
    live = Table.objects.get(name="Mesa 2")
    token = issue_overlay_token(live)
    assert post(Client(), f"/api/tables/{live.pk}/overlay/", {"next": "show"}, token).status_code == 200
    card = graphics.render(live.pk, "pt-br").split('data-gfx="next"')[1]
    assert "Nenhum outro jogo marcado nesta mesa" in card
    assert "No other match scheduled on this table" in graphics.render(live.pk, "en")
    idle = Table.objects.create(name="Mesa 8")
    token = issue_overlay_token(idle)
    assert post(Client(), f"/api/tables/{idle.pk}/overlay/", {"next": "show"}, token).status_code == 200
    assert "Nenhum jogo marcado nesta mesa" in graphics.render(idle.pk, "pt-br")
    # a competition whose queue has matches waiting for a free table, one of them on this table now
    comp = competitions.create_competition({
        "name": "Etapa", "reds": 6, "draw_seed": 1, "tables": ["Mesa 8"],
        "players": ["Ana Souza", "Bia Lima", "Caio Lins", "Duda Reis"],
        "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    on_it = Match.objects.filter(fixture__competition=comp, table=idle).first()
    assert on_it is not None
    log.append_event(on_it.pk, {"type": "lot", "player": 0}, expected_seq=0)  # started: in play
    card = graphics.render(idle.pk, "pt-br").split('data-gfx="next"')[1]
    assert "A definir: o próximo jogo é chamado quando a mesa ficar livre" in card


def test_intro_and_head_to_head_come_from_the_matches_in_the_database(day):
    t, token = day["table"], day["token"]
    c = Client()
    post(c, f"/api/tables/{t.pk}/overlay/", {"intro": "show", "player": "b"}, token)
    html = graphics.render(t.pk, "pt-br")
    intro = html.split('data-gfx="intro"')[1]
    assert LONG_B in intro and "Sociedade Esportiva Palmeiras" in intro and LONG_A not in intro
    # one match played, won: 1 game, 1 win, 0 losses, frames 1–0, highest break 1
    assert ('<dt data-fit>Jogos disputados</dt><dd>1</dd>' in intro and '<dt data-fit>Vitórias</dt><dd>1</dd>' in intro
            and '<dt data-fit>Derrotas</dt><dd>0</dd>' in intro and '<dd>1–0</dd>' in intro)
    g = post(c, f"/api/tables/{t.pk}/overlay/", {"h2h": "show"}, token).json()["graphics"]
    assert (g["h2h"], g["intro"]) == (True, False)
    h2h = graphics.render(t.pk, "pt-br").split('data-gfx="h2h"')[1]
    assert '<b class="w0">0</b>–<b class="w1">1</b>' in h2h and "Partidas 0–1" in h2h
    assert f'<span class="res-n won" data-fit>{LONG_B}</span>' in h2h


def test_the_switches_belong_to_the_table_before_and_across_its_matches(day):
    empty = Table.objects.create(name="Mesa 9")
    token = issue_overlay_token(empty)
    c = Client()
    r = post(c, f"/api/tables/{empty.pk}/overlay/", {"ticker": "show"}, token)
    assert r.status_code == 200 and r.json()["match"] is None and r.json()["graphics"]["ticker"] is True
    # the score bar too is the table's: set before any match, the first one takes it
    r = post(c, f"/api/tables/{empty.pk}/overlay/", {"bar": "hide"}, token)
    assert r.status_code == 200 and (r.json()["match"], r.json()["bar"]) == (None, False)
    m = new_match(CONFIG, table=empty)
    assert c.get(f"/api/tables/{empty.pk}/overlay/").json()["bar"] is False
    assert c.get(f"/api/tables/{empty.pk}/overlay/").json()["graphics"]["ticker"] is True
    won(m)
    assert c.get(f"/api/tables/{empty.pk}/overlay/").json()["graphics"]["ticker"] is True
    # another table's token may not switch this table
    assert post(c, f"/api/tables/{empty.pk}/overlay/", {"ticker": "hide"}, day["token"]).status_code == 403


@pytest.mark.parametrize("body, pt", [
    ({"ticker": "maybe"}, '"ticker" deve ser show, hide ou toggle'),
    ({"countdown": "25:00"}, '"countdown" deve ser uma hora HH:MM (ou vazio para tirar)'),
    ({"player": "c"}, '"player" deve ser a ou b'),
    ({"scoreboard": "show"}, 'Use "bar", "stats", "words" ou um gráfico'),
    ({"group_letter": "A1"}, '"group_letter" deve ser a letra de um grupo (A, B…)'),
    ({"bracket_round": "8"}, '"bracket_round" deve ser uma rodada do mata-mata, 1 a 7'),
    # a group or round asked of a table with no competition match: nothing to choose from
    ({"group_letter": "a"}, "Não há jogo de competição nesta mesa"),
    ({"bracket_round": "2"}, "Não há jogo de competição nesta mesa"),
])
def test_bad_input_is_a_clear_400_and_changes_nothing(day, body, pt):
    t = day["table"]
    before = Table.objects.get(pk=t.pk)
    r = post(Client(), f"/api/tables/{t.pk}/overlay/", {"next": "show", **body}, day["token"])
    assert r.status_code == 400 and r.json()["error"]["message"].startswith(pt)
    assert " / " in r.json()["error"]["message"]  # and in English
    after = Table.objects.get(pk=t.pk)
    assert (after.graphics, after.graphics_ver) == (before.graphics, before.graphics_ver)


def test_the_sponsor_slot_with_no_sponsor_draws_nothing(day):
    """``sponsors=show`` with no active sponsor put an empty white "Patrocínio" box on air: the
    switch stays on (a sponsor uploaded later shows), but an empty slot is not drawn."""
    t = day["table"]
    r = post(Client(), f"/api/tables/{t.pk}/overlay/", {"sponsors": "show"}, day["token"])
    assert r.status_code == 200 and r.json()["graphics"]["sponsors"] is True
    for lang in ("pt-br", "en"):
        stage = graphics.render(t.pk, lang)
        assert "gfx-sponsors" not in stage and "Patrocínio" not in stage and "Sponsor" not in stage


def test_sponsors_of_the_table_its_competition_and_the_venue_rotate_in_order(day, tmp_path, settings):
    import io

    from django.core.files.base import ContentFile
    from PIL import Image

    settings.MEDIA_ROOT = str(tmp_path)
    t = day["table"]

    def png(colour):
        out = io.BytesIO()
        Image.new("RGB", (200, 80), colour).save(out, "PNG")
        return ContentFile(out.getvalue(), name="logo.png")

    other = Table.objects.create(name="Mesa 8")
    for name, table, order in (("Banco Central", t, 2), ("Cervejaria", None, 1), ("Outra mesa", other, 0)):
        s = Sponsor(name=name, table=table, order=order)
        s.image.save("logo.png", png("red"), save=False)
        s.save()
    post(Client(), f"/api/tables/{t.pk}/overlay/", {"sponsors": "show"}, day["token"])
    html = graphics.render(t.pk, "pt-br").split('data-gfx="sponsors"')[1]
    assert html.index('alt="Cervejaria"') < html.index('alt="Banco Central"') and "Outra mesa" not in html
    src = html.split('src="')[1].split('"')[0]
    assert src.startswith("/media/sponsors/") and src.endswith(".png")
    assert Client().get(src).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_bracket_and_group_graphics_come_from_the_competition():
    from test_competition_event import EVENT

    comp = competitions.create_competition(EVENT).competition
    table = Table.objects.get(name="Mesa 1")
    token = issue_overlay_token(table)
    fx = comp.fixtures.filter(match__table=table).select_related("match").first()
    names = [fx.match.player_a.name, fx.match.player_b.name]
    c = Client()
    post(c, f"/api/tables/{table.pk}/overlay/", {"group": "show"}, token)
    html = graphics.render(table.pk, "pt-br").split('data-gfx="group"')[1]
    summary = competitions.summary(comp, "pt")
    group = next(r["group"] for st in summary["stages"] for r in st["matches"] if r["number"] == fx.number)
    assert f"Grupo {group}<" in html and all(n in html for n in names)
    rows = summary["standings"][f"0:{group}"]
    assert html.count('class="grp-n"') == len(rows) == 4
    post(c, f"/api/tables/{table.pk}/overlay/", {"bracket": "show"}, token)
    html = graphics.render(table.pk, "en").split('data-gfx="bracket"')[1]
    assert "Semi-final" in html and "Final" in html and html.count('class="br-m ') == 3
    assert "Winner" in html or "1st" in html  # the semi-finals' players are not known yet: placeholders
    # each match says its code, so the final's "Winner M11" points somewhere (screenshots: the
    # boxes had none)
    codes = re.findall(r'<span class="br-code">(M\d+)</span>', html)
    finals = re.findall(r"Winner (M\d+)", html)
    assert len(codes) == 3 and finals and set(finals) <= set(codes), (codes, finals)
    # a group or a round chosen by the streamer: the other group, the final alone is no page of
    # its own (the rounds before it come along); one the competition lacks is refused, naming
    # those it has, and changes nothing
    other = "B" if group == "A" else "A"
    r = post(c, f"/api/tables/{table.pk}/overlay/", {"group": "show", "group_letter": other.lower()}, token)
    assert r.status_code == 200 and r.json()["graphics"]["group_letter"] == other
    html = graphics.render(table.pk, "pt-br").split('data-gfx="group"')[1]
    assert f"Grupo {other}<" in html and f"Grupo {group}<" not in html
    before = Table.objects.get(pk=table.pk).graphics_ver
    for body, pt, en in (({"group_letter": "K"}, "Não há grupo K em Etapa de Santos (grupos: A, B)",
                          "There is no group K in Etapa de Santos (groups: A, B)"),
                         ({"bracket_round": "3"}, "Não há rodada 3 no mata-mata de Etapa de Santos (rodadas: 1, 2)",
                          "There is no round 3 in the knockout of Etapa de Santos (rounds: 1, 2)")):
        r = post(c, f"/api/tables/{table.pk}/overlay/", {"bracket": "show", **body}, token)
        assert r.status_code == 400 and r.json()["error"]["message"] == f"{pt} / {en}", r.json()
    assert Table.objects.get(pk=table.pk).graphics_ver == before
    r = post(c, f"/api/tables/{table.pk}/overlay/", {"bracket": "show", "bracket_round": "2"}, token)
    assert r.status_code == 200 and r.json()["graphics"]["bracket_round"] == "2"
    html = graphics.render(table.pk, "pt-br").split('data-gfx="bracket"')[1]
    assert "Semifinal" in html and "Final" in html and html.count('class="br-m ') == 3
    # the switches outlive the competition: a letter it no longer has is said on the card
    Table.objects.filter(pk=table.pk).update(graphics={**Table.objects.get(pk=table.pk).graphics,
                                                       "group": True, "bracket": False, "group_letter": "K"})
    for lang, said in (("pt-br", "Esta competição não tem grupo K"), ("en", "This competition has no group K")):
        assert said in graphics.render(table.pk, lang)


def test_group_and_bracket_cards_page_through_a_large_event():
    """Pure: the group card's pages hold every group of the stage once, whole (two of four side by
    side, one of eight alone, over two pages when its marks would not fit one); the bracket's pages of a 64-entrant knockout start at its current
    round and reach the final, each a section of four, two and one boxes, byes left empty; the
    table's match picks its own page."""
    from types import SimpleNamespace

    from gfx_events import build

    ev = build("g8-64", players=64, groups=8, third=True, done=0.3)
    pages = graphics.groups(ev["summary"], None)["pages"]
    # group B has a W.O. under every name (gfx_events): its eight rows and marks go over two pages
    assert [[(b["group"], b["part"]) for b in p] for p in pages] == \
        [[("A", 0)], [("B", 1)], [("B", 2)]] + [[(g, 0)] for g in "CDEFGH"]
    assert [len(p[0]["rows"]) for p in pages] == [8, 6, 2, 8, 8, 8, 8, 8, 8]
    assert pages[0][0]["rows"][0]["marks"] == ["classificado"] and pages[1][0]["rows"][0]["marks"] == ["W.O."]
    ev = build("g4-16", players=16, groups=4)
    pages = graphics.groups(ev["summary"], None)["pages"]
    assert [[b["group"] for b in p] for p in pages] == [["A", "B"], ["C", "D"]]
    ev = build("ko27", players=27, double_wo=True, done=0.2)
    br = graphics.bracket(ev["summary"], None, graphics.bracket_sources(ev["plan"]))
    first = [len(p["cols"][0]["slots"]) for p in br["pages"]]
    assert sum(first[:4]) == 11 and max(first) <= 4  # 27 entrants: 11 first-round matches, 5 byes
    ko = {r["number"] for st in ev["summary"]["stages"] for r in st["matches"]}
    drawn = {s["m"]["number"] for p in br["pages"] for c in p["cols"] for s in c["slots"]}
    assert drawn == ko and [c["name"] for c in br["pages"][-1]["cols"]] == ["Quartas de final", "Semifinal", "Final"]
    mine = next(r for st in ev["summary"]["stages"] for r in st["matches"] if r["round"] == 2)
    br = graphics.bracket(ev["summary"], SimpleNamespace(number=mine["number"]), graphics.bracket_sources(ev["plan"]))
    assert len(br["pages"]) == 1 and br["pages"][0]["cols"][0]["slots"][0]["m"]["round"] == 2
    assert any(s["m"]["here"] for s in br["pages"][0]["cols"][0]["slots"])
    assert graphics.bracket(ev["summary"], None, None, 9)["missing"] == 9


@pytest.mark.pg
@pytest.mark.django_db(transaction=True)
async def test_a_switch_and_a_tap_on_another_table_push_the_graphics_board():
    from ws_helpers import connect

    t = await sync_to_async(Table.objects.create)(name="Mesa 1")
    token = await sync_to_async(issue_overlay_token)(t)
    other = await sync_to_async(new_match)({**CONFIG, "players": ["Caio Rocha", "Davi Nunes"]}, table="Mesa 2")
    comm, ok, _ = await connect(f"/ws/boards/?view=graphics-{t.pk}&lang=pt-br")
    assert ok
    first = await comm.receive_from(timeout=5)
    assert first.lstrip().startswith('<div id="gfx-stage"') and "data-gfx=" not in first
    r = await sync_to_async(post)(Client(), f"/api/tables/{t.pk}/overlay/", {"ticker": "show"}, token)
    assert r.status_code == 200
    html = await next_with(comm, 'data-gfx="ticker"')
    assert "Caio Rocha" in html and "<b>0</b> <small>(0–0)</small> <b>0</b>" in html
    await sync_to_async(log.append_event)(other.pk, {"type": "pot", "balls": [1]})
    html = await next_with(comm, "(1–0)")
    assert 'data-gfx="ticker"' in html
    await sync_to_async(post)(Client(), f"/api/tables/{t.pk}/overlay/", {"ticker": "hide"}, token)
    html = await next_with(comm, 'data-shown=""')
    assert "data-gfx=" not in html
    await comm.disconnect()


async def next_with(comm, want: str, timeout: float = 5.0) -> str:
    """The next board message containing ``want`` (a board may be re-sent meanwhile)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        html = await comm.receive_from(timeout=max(0.1, end - loop.time()))
        if want in html:
            return html


def test_the_admin_re_encodes_a_sponsor_image_and_refuses_what_is_not_one(admin_client, settings, tmp_path):
    """Sponsors are uploaded in the admin with the players' safe photo path (``PhotoField``):
    a PNG named .pdf with bytes after it is stored as a clean PNG; a text file is refused with
    the photo's clear message, nothing stored."""
    import io

    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    settings.MEDIA_ROOT = str(tmp_path)
    t = Table.objects.create(name="Mesa 7")
    buf = io.BytesIO()
    Image.new("RGB", (300, 100), (10, 200, 10)).save(buf, "PNG")
    upload = SimpleUploadedFile("marca.pdf", buf.getvalue() + b"%PDF-1.7 polyglot", content_type="application/pdf")
    r = admin_client.post("/admin/scoreboard/sponsor/add/", {"name": "Banco do Vale", "image": upload,
                                                             "table": t.pk, "order": 0, "active": "on"})
    assert r.status_code == 302, r.content.decode()[:500]
    s = Sponsor.objects.get(name="Banco do Vale")
    with s.image.open("rb") as f:
        data = f.read()
    assert s.image.name.startswith("sponsors/") and s.image.name.endswith(".png") and b"polyglot" not in data
    assert Image.open(io.BytesIO(data)).size == (300, 100)
    bad = SimpleUploadedFile("marca.png", b"not an image at all", content_type="image/png")
    r = admin_client.post("/admin/scoreboard/sponsor/add/", {"name": "Falso", "image": bad, "order": 0})
    assert r.status_code == 200 and not Sponsor.objects.filter(name="Falso").exists()
    assert "JPEG, PNG ou WebP" in r.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_team_competition_on_the_table_has_no_group_or_bracket_card_and_says_so():
    """A team competition's standings are one league table, not groups: the group card and the
    bracket card say there are none (the group card raised on its rows), a letter is refused."""
    from test_teams_event import EVENT, create

    comp_id = create({**EVENT, "tables": ["Mesa 1"]})["competition"]
    table = Table.objects.get(name="Mesa 1")
    assert Match.objects.filter(fixture__competition_id=comp_id, table=table).exists()
    token = issue_overlay_token(table)
    for card, said in (("group", "Sem grupos"), ("bracket", "Sem chave eliminatória")):
        assert post(Client(), f"/api/tables/{table.pk}/overlay/", {card: "show"}, token).status_code == 200
        assert said in graphics.render(table.pk, "pt-br")
    r = post(Client(), f"/api/tables/{table.pk}/overlay/", {"group_letter": "A"}, token)
    assert r.status_code == 400 and r.json()["error"]["message"].startswith("Não há grupo A em ")
