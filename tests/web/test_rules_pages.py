"""The rules text served: ``GET /api/rules/`` and ``/api/rules/<article>/`` (the text verbatim,
the rulebook's ids), the public page ``/rules/`` with an anchor per article and item, and the
"Art. N" of the TV's last action and the match page's fouls linked to it."""
from __future__ import annotations

import json

import pytest

from scoreboard.core import log
from sinuca.rulebook import load

pytestmark = pytest.mark.django_db


def test_the_api_serves_the_whole_text_with_the_rulebooks_ids(client):
    r = client.get("/api/rules/")
    assert r.status_code == 200 and r["Content-Type"] == "application/json"
    body = r.json()
    assert body["source"].startswith("Regras da Sinuca Brasileira, Confederação Brasileira de Bilhar e Sinuca")
    assert [t["number"] for t in body["titles"]][:3] == ["I", "II", "III"] and len(body["titles"]) == 13
    assert body["titles"][6]["name"] == "DAS JOGADAS RETORNÁVEIS"
    arts = [a for t in body["titles"] for a in t["articles"]]
    assert [a["number"] for a in arts] == list(range(1, 56))
    art25 = arts[24]
    assert set(art25) == {"number", "title", "text", "items"} and art25["title"] == "VII"
    assert [i["id"] for i in art25["items"]][2:6] == ["25.3", "25.4", "25.5", "25.5.1"]
    assert art25["items"][4] == {"id": "25.5", "text": "requerer a repetição da jogada."}
    assert arts[54]["text"] == ("Ambos são considerados derrotados se aplicada simultaneamente a penalidade de "
                                "desclassificação.")


def test_one_article_or_item_and_the_ones_that_do_not_exist(client):
    body = client.get("/api/rules/40/").json()
    assert body["number"] == 40 and body["text"] == "É pena para falta técnica com penalidade variável:"
    assert [i["id"] for i in body["items"]] == ["40.1", "40.1.a", "40.1.b"]
    item = client.get("/api/rules/25.5.2/").json()
    assert item["number"] == 25 and item["item"]["id"] == "25.5.2"
    assert item["item"]["text"].startswith("Para repetição de jogada, as bolas movimentadas retornam")
    for bad in ("99", "0", "25.9", "abc", "25.5.2.7"):
        r = client.get(f"/api/rules/{bad}/")
        assert r.status_code == 404, bad
        assert r.json()["error"] == {"code": "not_found", "message": (
            f"As regras não têm o artigo {bad} (artigos 1 a 55) / The rules have no article {bad} (articles 1 to 55)")}
    r = client.get("/api/rules/25/?lang=xx")
    assert r.status_code == 400 and r.json()["error"]["message"] == (
        "Idioma desconhecido 'xx': pt, pt-br ou en / Unknown language 'xx': pt, pt-br or en")
    assert client.post("/api/rules/").status_code == 405


def test_the_rules_page_anchors_every_article_and_item_and_glosses_in_english(client):
    html = client.get("/rules/").content.decode()
    book = load()
    for art in book.articles:
        assert f'id="art-{art.number}"' in html
        for item in art.items:
            assert f'<li id="art-{item.id}" class="lv{item.level}">' in html
    assert "requerer a repetição da jogada." in html and 'lang="pt-br"' in html
    assert "gloss" not in html.split("</style>")[1].split("<script>")[0]  # no English in Portuguese
    en = client.get("/rules/?lang=en").content.decode()
    assert "requerer a repetição da jogada." in en  # the Portuguese text stays the authority
    assert "The Portuguese text is the authority" in en
    assert '<p class="gloss" lang="en">Foul and replay: missing the ball aimed at' in en
    assert "(Replayable strokes (foul and replay))" in en
    bad = client.get("/rules/?lang=xx")
    assert bad.status_code == 400 and "?lang=xx" in bad.content.decode()
    assert "Este artigo não existe nas regras" in html and "This article is not in the rules" in html


def test_the_tv_and_the_match_page_link_their_articles_to_the_rules_page(client, created):
    mid = created.match.pk
    log.append_event(mid, {"type": "foul", "kind": "cue_ball_potted", "ball": 1})
    tv = client.get(created.tv_url).content.decode()
    # the TV's last action: each article with its short title (sinuca.article_titles)
    assert ('Falta de Ana Souza: 4 pontos para Bia Lima (Art. <a href="/rules/#art-40">40</a>'
            '<small class="rule-title"> · Penalidade variável</small>)') in tv
    tv_en = client.get(created.tv_url + "?lang=en").content.decode()
    assert '(Art. <a href="/rules/?lang=en#art-40">40</a><small class="rule-title"> · Variable penalty</small>)' in tv_en
    page = client.get(f"/matches/{mid}/").content.decode()
    assert '<span class="seq">#1</span> Falta de Ana Souza: 4 pontos para Bia Lima (Art. <a href="/rules/#art-40">40</a>)' in page
    log.append_event(mid, {"type": "decision", "choice": "play"})
    tv = client.get(created.tv_url).content.decode()
    assert 'Bia Lima joga (Art. <a href="/rules/#art-35.3">35.3</a><small class="rule-title"> · Opções após falta</small>)' in tv
    assert client.get("/rules/").content.decode().count('id="art-35.3"') == 1
