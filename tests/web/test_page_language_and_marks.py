"""Labels in the page's language only and results that say what happened: the desk's standings
head, the error pages (each language once, whatever the browser's), and a double W.O. named as
such on every screen where a result shows: the hub (results, bracket, player page), the desk,
the match's TV, the table's TV, the jumbotron, the feeds and the stream graphics (ticker, holding
card, bracket); the group tables' marks (classificado, abandonou, W.O.) on the hub, the desk and
the group graphic.

Transactional: results flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import json
import re

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from scoreboard.core import competitions
from scoreboard.core.models import Fixture, Table
from scoreboard.live import boards, event, graphics

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]

PLAYERS = ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"]
GROUPS = {"name": "Etapa de Marcas", "reds": 6, "draw_seed": 7, "players": PLAYERS, "tables": ["Mesa 1"],
          "stages": [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 1}]}
KNOCKOUT = {"name": "Copa de Marcas", "reds": 6, "draw_seed": 3, "players": PLAYERS, "tables": ["Mesa 1"],
            "stages": [{"format": "knockout", "frames_to_win": 1}]}


def api(comp_id: int, token: str, **body):
    return Client().post(f"/api/competitions/{comp_id}/actions/", json.dumps(body),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def text(html: str) -> str:
    """``html``'s visible words, tags dropped, runs of white space made one space."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_the_desks_standings_head_is_in_the_pages_language_only():
    """The desk's group table printed "V" and "D" untranslated beside "Player" and "Diff."."""
    comp = competitions.create_competition(GROUPS).competition
    heads = {}
    for lang in ("pt-br", "en"):
        desk = boards.render_desk(comp.pk, lang)
        part = desk[desk.index('class="desk-standings"'):]
        heads[lang] = text(part[part.index("<tr>"):part.index("</tr>")])
    assert heads == {"pt-br": "# Jogador V D Saldo", "en": "# Player W L Diff."}


def test_an_error_page_says_each_language_once_whatever_the_browsers():
    """An English browser got the English line twice ("Invalid option in the address / Invalid
    option in the address"): the Portuguese half took the request's language."""
    c = Client()
    for headers in ({}, {"HTTP_ACCEPT_LANGUAGE": "en"}, {"HTTP_ACCEPT_LANGUAGE": "pt-BR"}):
        bad = c.get("/tv/?view=xyz", **headers)
        h1 = text(re.search(r"<h1>(.*?)</h1>", bad.content.decode()).group(1))
        assert bad.status_code == 400 and h1 == "Opção inválida no endereço / Invalid option in the address"
        page = text(bad.content.decode().split("<main>")[1])
        assert page.count("Valores aceitos:") == 1 and page.count("Accepted values:") == 1
        missing = c.get("/nada-aqui/", **headers)
        h1 = text(re.search(r"<h1>(.*?)</h1>", missing.content.decode()).group(1))
        assert missing.status_code == 404 and h1 == "Página não encontrada / Page not found"
    with translation.override("en"):
        for name, ctx in (("busy", {"refresh": 5, "style": ""}), ("limited", {})):
            h1 = text(re.search(r"<h1>(.*?)</h1>", render_to_string(f"scoreboard/{name}.html", ctx)).group(1))
            pt, en = h1.split(" / ")
            assert pt != en and pt in ("Servidor ocupado", "Pedidos demais"), h1


def test_a_double_walkover_is_named_on_the_hub_and_the_desk():
    """The hub's results showed a double W.O. as "J1 … W.O. …", nobody marked, as a plain one."""
    created = competitions.create_competition(KNOCKOUT)
    comp, token = created.competition, created.desk_token
    assert api(comp.pk, token, action="walkover", match=1, absent=[0, 1], reason="não compareceram").status_code == 200
    assert api(comp.pk, token, action="walkover", match=2, absent=[1], reason="não compareceu").status_code == 200
    for lang, double in (("pt-br", "W.O. duplo"), ("en", "double W.O.")):
        code = ("M" if lang == "en" else "J") + "1"
        hub = event.render_hub(comp.pk, lang)
        results = hub[hub.index('id="ev-results"'):hub.index('id="ev-groups"')]
        marks = {n: text(m) for n, m in re.findall(r'id="r-[JM](\d)".*?<b class="ev-fr">(.*?)</b>', results, re.S)}
        assert marks == {"1": double, "2": "W.O."}
        box = hub[hub.index(f'id="b-{code}"'):]
        assert text(box[:box.index("</div>\n")]).count(double) == 1
        with translation.override(lang):
            c = competitions.Competition.objects.get(pk=comp.pk)
            first = next(i for i in event.event_context(c)["matches"] if i["number"] == 1)
            player = event.fragment("player", event.player_context(c, first["sides"][0]["n"]))
        line = player[player.index(f'id="p-{code}"'):]
        assert text(line[:line.index("</li>")]).count(double) == 1
        desk = boards.render_desk(comp.pk, lang)
        done = text(desk[desk.index('class="desk-done"'):])
        assert done.count(double) == 1 and done.count("W.O.") == 2


def test_the_hubs_group_table_marks_qualifiers_withdrawals_and_walkovers():
    """The group table showed nobody "classificado" once the group ended, nor who withdrew or
    lost by W.O. Davi withdraws (his three matches go by W.O.), Ana and Bia are both absent
    (a double W.O.), Ana is absent against Caio and Caio against Bia: Bia and Caio (two wins
    each, Bia first by head-to-head) go through."""
    created = competitions.create_competition(
        {**GROUPS, "stages": [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 1, "qualify": 2},
                              {"format": "knockout", "frames_to_win": 1}]})
    comp, token = created.competition, created.desk_token
    assert api(comp.pk, token, action="withdraw", player="Davi Nunes").status_code == 200
    absent = {frozenset(["Ana Souza", "Bia Lima"]): ["Ana Souza", "Bia Lima"],
              frozenset(["Ana Souza", "Caio Rocha"]): ["Ana Souza"], frozenset(["Bia Lima", "Caio Rocha"]): ["Caio Rocha"]}
    summary = competitions.summary(competitions.Competition.objects.get(pk=comp.pk))
    for m in summary["stages"][0]["matches"]:
        who = absent.get(frozenset(m["players"]))
        if who:
            r = api(comp.pk, token, action="walkover", match=m["number"], absent=[m["players"].index(p) for p in who],
                    reason="não compareceu")
            assert r.status_code == 200, r.content
    for lang, want in (("pt-br", {"Bia Lima": "classificado W.O.", "Caio Rocha": "classificado W.O.",
                                  "Ana Souza": "2 W.O.", "Davi Nunes": "abandonou 3 W.O."}),
                       ("en", {"Bia Lima": "qualified W.O.", "Caio Rocha": "qualified W.O.",
                               "Ana Souza": "2 W.O.", "Davi Nunes": "withdrew 3 W.O."})):
        hub = event.render_hub(comp.pk, lang)
        table = hub[hub.index('id="ev-groups"'):hub.index('id="ev-bracket"')]
        rows = re.findall(r'<td class="ev-pl"><a [^>]*>([^<]+)</a>(.*?)</td>', table)
        assert [name for name, _ in rows] == ["Bia Lima", "Caio Rocha", "Ana Souza", "Davi Nunes"]
        marks = {name: " ".join(re.findall(r'<small class="ev-mark">([^<]+)</small>', rest)) for name, rest in rows}
        assert marks == want
        # Davi's three matches were W.O.s because he withdrew, and his results say so; the others' do not
        left = "W.O. (abandono)" if lang == "pt-br" else "W.O. (withdrawal)"
        results = hub[hub.index('id="ev-results"'):hub.index('id="ev-groups"')]
        lines = [text(li) for li in re.findall(r'<li id="r-[JM]\d+".*?</li>', results, re.S)]
        assert len(lines) == 6 and [left in t for t in lines] == ["Davi Nunes" in t for t in lines], lines
        done = text(boards.render_desk(comp.pk, lang).split('class="desk-done"')[1])
        assert done.count(left) == 3, done
        # the desk's group table and the stream's group graphic mark the same rows, in the same words
        desk = boards.render_desk(comp.pk, lang)
        desk = desk[desk.index('class="desk-standings"'):]
        rows = re.findall(r"<tr><td>\d*</td><td>([^<]+)(.*?)</td>", desk)
        assert {name.strip(): " ".join(re.findall(r'<small class="desk-mark">([^<]+)</small>', rest))
                for name, rest in rows} == want
        Table.objects.filter(name="Mesa 1").update(graphics={"group": True})
        gfx = graphics.render(Table.objects.get(name="Mesa 1").pk, lang).split('data-gfx="group"')[1]
        rows = re.findall(r'<span class="grp-n" data-fit>([^<]+)</span>(.*?)</td>', gfx)
        assert {name: text(rest).replace(" · ", " ") for name, rest in rows} == want
        # every place is known once the group has ended: no row without one
        assert re.findall(r"<tr><td>([^<]*)</td>", gfx.split("<tbody>")[1]) == ["1", "2", "3", "4"]
    # the competition's feed says who went through and who withdrew, in no language
    rows = Client().get(f"/api/competitions/{comp.pk}/").json()["standings"]["0:A"]
    assert {r["name"]: (r["qualified"], r["withdrawn"]) for r in rows} == {
        "Bia Lima": (True, False), "Caio Rocha": (True, False), "Ana Souza": (False, False),
        "Davi Nunes": (False, True)}


def test_a_double_walkover_is_named_on_the_tvs_the_jumbotron_the_feed_and_the_graphics():
    """Called to Mesa 1, then both absent: the match's TV, the table's TV, the jumbotron, the
    venue's result card, the ticker and holding card of the other table's stream and the bracket graphic printed a plain
    "W.O." (nobody marked); the match's feed names it too."""
    created = competitions.create_competition({**KNOCKOUT, "tables": ["Mesa 1", "Mesa 2"]})
    comp, token = created.competition, created.desk_token
    fx = Fixture.objects.select_related("match").get(competition=comp, number=1)
    if fx.match.table_id is None or fx.called_at is None:
        assert api(comp.pk, token, action="call", match=1, table="Mesa 1").status_code == 200
    assert api(comp.pk, token, action="walkover", match=1, absent=[0, 1], reason="não compareceram").status_code == 200
    fx.refresh_from_db()
    m = fx.match
    t1, t2 = m.table, Table.objects.get(name="Mesa 2" if m.table.name == "Mesa 1" else "Mesa 1")
    Table.objects.filter(pk=t1.pk).update(graphics={"bracket": True})
    Table.objects.filter(pk=t2.pk).update(graphics={"ticker": True, "holding": True})
    c = Client()
    for lang, double in (("pt-br", "W.O. duplo"), ("en", "double W.O.")):
        tv = c.get(f"/matches/{m.pk}/tv/?lang={lang}").content.decode()
        assert re.search(r'class="tv-wo">([^<]*)<', tv).group(1) == double
        idle = text(c.get(f"/tables/{t1.pk}/tv/?lang={lang}").content.decode())
        assert double in idle, idle
        jumbo = text(c.get(f"/tv/?lang={lang}").content.decode())
        assert double in jumbo, jumbo
        venue = c.get(f"/?lang={lang}").content.decode()
        assert re.findall(r'class="mc-wo">([^<]*)<', venue) == [double]
        stage = graphics.render(t2.pk, lang)
        ticker = stage.split('data-gfx="ticker"')[1].split("</section>")[0]
        assert double in text(ticker), ticker
        holding = stage.split('data-gfx="holding"')[1].split("</section>")[0]
        assert re.findall(r'<span class="res-s">([^<]*)</span>', holding) == [double]
        # the bracket graphic marks each absent side, so both read W.O. and neither goes on
        box = graphics.render(t1.pk, lang).split('data-gfx="bracket"')[1]
        box = re.search(r'<div class="br-m[^"]*"[^>]*><span class="br-code">[JM]1</span>(.*?)</div></div>', box).group(1)
        assert re.findall(r'<b class="br-f wo">([^<]*)</b>', box) == ["W.O.", "W.O."] and " won" not in box, box
        feed = c.get(f"/matches/{m.pk}/feed.json?lang={lang}").json()
        assert double.lower() in json.dumps(feed, ensure_ascii=False).lower()
