"""Labels in the page's language only and results that say what happened: the desk's standings
head and the error pages (each language once, whatever the browser's).

Transactional: results flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from scoreboard.core import competitions
from scoreboard.live import boards

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]

PLAYERS = ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"]
GROUPS = {"name": "Etapa de Marcas", "reds": 6, "draw_seed": 7, "players": PLAYERS, "tables": ["Mesa 1"],
          "stages": [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 1}]}


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
