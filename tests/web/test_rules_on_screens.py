"""The rules' words served beside the screens: the tablet's rule panel without its engine
(``/rules/<ref>/panel/``), an event's "why?" (``/matches/<id>/why/<seq>/``, linked from the match
page's lines), the TV's last action with the article's short title, and the overlay's switch for
the rule's first words in the foul and retorno pop-ups (off by default)."""
from __future__ import annotations

import json

import pytest
from django.test import Client

from presentation import referee_html
from scoreboard.core import log
from scoreboard.core.models import Match

pytestmark = pytest.mark.django_db


def test_the_tablets_rule_panel_from_the_server_is_the_engines(client):
    r = client.get("/rules/25.5.2/panel/")
    assert r.status_code == 200 and r.content.decode() == referee_html.article_panel("25.5.2")
    assert client.get("/rules/40/panel/?lang=en").content.decode() == referee_html.article_panel("40", "en")
    for bad in ("0", "99", "25.9"):
        r = client.get(f"/rules/{bad}/panel/")
        assert r.status_code == 404
        assert f"As regras não têm o artigo {bad} (artigos 1 a 55)" in r.content.decode()
        assert f"The rules have no article {bad} (articles 1 to 55)" in r.content.decode()
    # an article asked in a language the rules are not served in: 400, both languages, the values taken
    for url in ("/rules/25/panel/?lang=fr", "/rules/?lang=fr", "/matches/1/why/1/?lang=fr"):
        r = client.get(url)
        assert r.status_code == 400, url
        text = r.content.decode()
        assert "?lang=fr" in text and "pt, pt-br, en" in text, url
    r = client.get("/api/rules/25/?lang=fr")
    assert r.status_code == 400 and r.json()["error"]["message"] == (
        "Idioma desconhecido 'fr': pt, pt-br ou en / Unknown language 'fr': pt, pt-br or en")


def test_an_events_why_holds_the_state_before_the_rule_and_its_words(client, created):
    mid = created.match.pk
    for ev in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"},
               {"type": "foul", "kind": "cue_ball_potted", "ball": 1}, {"type": "decision", "choice": "play"}):
        log.append_event(mid, ev)
    page = client.get(f"/matches/{mid}/why/4/").content.decode()
    assert "Por quê? Evento nº 4" in page
    assert "<dd>Ana Souza 8 × Bia Lima 0</dd>" in page and "<dt>Na mesa</dt><dd>Bia Lima</dd>" in page
    assert "<dt>Vermelhas</dt><dd>14</dd>" in page and "<dd>1 (vermelha)</dd>" in page
    assert "encaçapar a bola tacadeira (“suicidar”);" in page
    assert f'href="/rules/#art-47.1">Art. 47.1</a>' in page
    # the decision: its state before is the foul's, Ana deciding, and its rule's words
    part = client.get(f"/matches/{mid}/why/5/?partial=1").content.decode()
    assert part.startswith('<div class="rule-panel why-panel" data-seq="5">')
    assert "<dt>Decide</dt><dd>Ana Souza</dd>" in part and "<dd>Ana Souza 12 × Bia Lima 0</dd>" in part
    assert "o beneficiado pode jogar normalmente, ou em bola livre se a situação permite a opção;" in part
    en = client.get(f"/matches/{mid}/why/5/?partial=1&lang=en").content.decode()
    assert "Why? Event no. 5" in en and "Options after a foul" in en
    # the first event: the opening state
    assert "<dd>Ana Souza 0 × Bia Lima 0</dd>" in client.get(f"/matches/{mid}/why/1/").content.decode()
    for url in (f"/matches/{mid}/why/6/", f"/matches/{mid}/why/0/", f"/matches/{mid}/why/{10 ** 30}/"):
        r = client.get(url)
        assert r.status_code == 404 and "não tem o evento nº" in r.content.decode()
        assert "This match's log has no event no." in r.content.decode()
    assert client.get("/matches/999999/why/1/").status_code == 404
    # the match page: every foul and every recent line leads to its why
    match_page = client.get(f"/matches/{mid}/").content.decode()
    assert f'<a class="why" href="/matches/{mid}/why/4/">Por quê?</a>' in match_page
    assert f'<a class="why" href="/matches/{mid}/why/1/">Por quê?</a>' in match_page
    assert f'href="/matches/{mid}/why/5/?lang=en">Why?</a>' in client.get(f"/matches/{mid}/?lang=en").content.decode()


def test_the_tv_names_the_articles_short_title_and_the_overlay_may_quote_the_rule(client, created):
    mid = created.match.pk
    log.append_event(mid, {"type": "foul", "kind": "cue_ball_potted", "ball": 1})
    tv = client.get(created.tv_url).content.decode()
    assert ('(Art. <a href="/rules/#art-40">40</a><small class="rule-title"> · Penalidade variável</small>); '
            'tacadeira encaçapada (suicídio) (Art. <a href="/rules/#art-47.1">47.1</a>'
            '<small class="rule-title"> · Faltas de pena variável</small>)') in tv
    assert '<small class="rule-title"> · Variable penalty</small>' in client.get(created.tv_url + "?lang=en").content.decode()
    overlay = client.get(f"/matches/{mid}/overlay/").content.decode()
    assert 'data-words="0"' in overlay
    assert ('(Art. 40<small class="rule-title"> · Penalidade variável</small>)' in overlay)
    assert '<span class="pop-words" lang="pt-br">Art. 47.1: “encaçapar a bola tacadeira (“suicidar”);”</span>' in overlay
    # a retorno offered: the pop-up's Art. 25 titled, and the words of the item asked for, 25.5
    log.append_event(mid, {"type": "decision", "choice": "play"})
    log.append_event(mid, {"type": "foul", "kind": "ball_on_not_hit_first", "ball": 1, "retorno": True})
    overlay = client.get(f"/matches/{mid}/overlay/").content.decode()
    assert "(Art. 25<small class=\"rule-title\"> · Falta e retorno</small>)" in overlay
    assert '<span class="pop-words" lang="pt-br">Art. 25.5: “requerer a repetição da jogada.”</span>' in overlay
    # the stream's switch, stored as the overlay's others (on the match and its table)
    url = f"/api/matches/{mid}/overlay/"
    c = Client()
    r = c.post(url, json.dumps({"words": "show"}), content_type="application/json",
               HTTP_AUTHORIZATION=f"Bearer {created.token}")
    assert r.json() == {"match": mid, "bar": True, "stats": False, "words": True, "ver": 1}
    assert Match.objects.get(pk=mid).overlay_words is True
    assert 'data-words="1"' in client.get(f"/matches/{mid}/overlay/").content.decode()
