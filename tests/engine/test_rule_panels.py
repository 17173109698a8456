"""The rules' words as the tablet draws them (pure: the engine zip's renderer): every "Art. N" a
tap (``span.art``), every article and item's panel verbatim with the cited item marked, the short
title of every article, and the "why?" of an event (the state before it, the rules it cites and
their words), online and offline alike since one function draws each."""
from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from presentation import referee_html
from presentation.tablet import TabletEngine
from presentation.why import rule_refs, why_view
from sinuca import rulebook
from sinuca.article_titles import SHORT, short_title

BOOK = rulebook.load()
IDS = [str(a.number) for a in BOOK.articles] + [i.id for a in BOOK.articles for i in a.items]
TEXT_ESC = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def test_every_article_has_a_short_title_in_both_languages():
    assert sorted(SHORT) == list(range(1, 56))
    for n, (pt, en) in SHORT.items():
        assert pt and en and len(pt) <= 32 and len(en) <= 36, n
    assert short_title("25.5.2") == "Falta e retorno" and short_title("40.1.a", "en") == "Variable penalty"
    assert short_title("99") == "" and short_title("x") == ""


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(IDS), st.sampled_from(["pt", "en"]))
def test_an_article_or_items_panel_holds_the_article_verbatim_with_the_cited_item_marked(ref, lang):
    html = referee_html.article_panel(ref, lang)
    art, item = BOOK.find(ref)
    assert f'data-ref="{ref}"' in html
    assert f'<p class="rule-text{"" if item else " cited"}">{art.text.translate(TEXT_ESC)}</p>' in html
    for i in art.items:
        assert f'data-id="{i.id}"><b>{i.id}</b> {i.text.translate(TEXT_ESC)}</li>' in html
    marked = re.findall(r'class="lv\d cited" data-id="([^"]+)"', html)
    assert marked == ([ref] if item else [])
    # the items it sits under are marked as its context
    parents = re.findall(r'class="lv\d cited-in" data-id="([^"]+)"', html)
    assert parents == ([".".join(ref.split(".")[:k]) for k in range(2, ref.count(".") + 1)] if item else [])
    assert f"Art. {art.number}</b> — {short_title(art.number, lang)}" in html
    # English: the gloss under the Portuguese text, which stays the authority
    assert ('class="rule-gloss" lang="en"' in html) == (lang == "en")


def test_an_article_the_text_lacks_is_refused_in_both_languages():
    for ref in ("0", "99", "25.9", "abc", "<b>"):
        html = referee_html.article_panel(ref)
        assert "rule-missing" in html and "(artigos 1 a 55)" in html and "(articles 1 to 55)" in html
    assert "&lt;b&gt;" in referee_html.article_panel("<b>")


def test_every_citation_on_the_tablet_is_a_tap_on_its_article():
    html = referee_html.foul_preview({"lines": [{"cls": "pv", "text": "joga (Art. 35.3, 36) & <x>"}]})
    assert html == ('<p class="pv">joga (Art. <span class="art" data-art="35.3" role="button" tabindex="0">35.3</span>, '
                    '<span class="art" data-art="36" role="button" tabindex="0">36</span>) &amp; &lt;x&gt;</p>')


def test_the_tablet_engine_answers_articles_and_the_why_of_every_line():
    cfg = {"players": ["Ana", "Bia"], "reds": 6, "frames_to_win": 1, "first_breaker": 0}
    events = [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"},
              {"type": "foul", "kind": "cue_ball_potted", "ball": 1}]
    eng = TabletEngine(cfg, events)
    region = json.loads(eng.answer('{"op": "view"}'))["html"]
    # every log line opens its why; the foul's line has its two articles as taps
    assert re.findall(r'<li(?: class="undone")? data-why="(\d+)"', region) == ["4", "3", "2", "1"]
    assert 'data-art="40"' in region and 'data-art="47.1"' in region and 'data-art="35"' in region
    # a decision's choice is one tap whole: its articles are chips beside the button, none inside
    choices = re.findall(r'<div class="choice-item">(<button.*?</button>)<span class="choice-arts">(.*?)</span></div>',
                         region)
    assert [re.findall(r'data-art="([^"]+)"', chips) for _, chips in choices] == [["35.3"], ["35.4"]], choices
    assert all("Art." not in button for button, _ in choices)
    assert 'data-art="35.3" role="button" tabindex="0"><small>Art.</small> 35.3</span>' in choices[0][1]
    art = json.loads(eng.answer('{"op": "article", "ref": "25.5"}'))
    assert art["ok"] and art["html"] == referee_html.article_panel("25.5")
    why = json.loads(eng.answer('{"op": "why", "seq": 4}'))["html"]
    # the state before the foul: Ana 8, Bia at the table after Ana's miss, a red on, 5 reds
    assert "<dd>Ana 8 × Bia 0</dd>" in why and "<dt>Na mesa</dt><dd>Bia</dd>" in why
    assert "<dd>1 (vermelha)</dd>" in why and "<dt>Vermelhas</dt><dd>5</dd>" in why
    assert "Faltas de pena variável</p><blockquote" in why and "encaçapar a bola tacadeira" in why
    # Art. 40 leads into its list: the list is the rule's words
    assert "É pena para falta técnica com penalidade variável: 1) com mínimo de quatro (4) pontos" in why
    for bad in (0, 5, "1", True):
        answer = json.loads(eng.answer(json.dumps({"op": "why", "seq": bad})))
        assert not answer["ok"] and answer["error"]["code"] == "bad_seq"
        assert answer["error"]["message"]["en"].startswith("the log has no event no.")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(IDS), min_size=1, max_size=3))
def test_a_lines_rules_are_its_citations_in_order_once_with_their_words(refs):
    text = "x (Art. " + ", ".join(refs) + ")"
    got = rule_refs(text)
    assert [r["ref"] for r in got] == list(dict.fromkeys(refs))
    for r in got:
        assert r["words"].startswith(BOOK.words(r["ref"])) and r["title"] == short_title(r["ref"])


def test_the_why_of_the_first_event_reads_the_opening_state():
    before = {"frame_number": 1, "scores": [0, 0], "frames": [0, 0], "ball_on": [], "reds_remaining": 15,
              "break": 0, "striker": None, "phase": "lot"}
    w = why_view(["Ana", "Bia"], 1, "Sorteio: Ana abre o jogo (Art. 17)", before, "en")
    assert w["before"]["at_table"] == "—" and w["before"]["ball_on"] == "—"
    assert w["rules"] == [{"ref": "17", "article": 17, "title": "Lot for the break-off", "words": BOOK.words("17")}]
    html = referee_html.why_panel(w, "en")
    assert "Why? Event no. 1" in html and "Before the event" in html and "Rule applied" in html
