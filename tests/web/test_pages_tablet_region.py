"""One renderer: the referee page's board and controls (the server's, from the log in the
database) and the tablet's own drawing (``presentation.tablet.TabletEngine``, run in the
browser by Pyodide) are the same HTML, byte for byte, after every event of random legal
matches; the renderer escapes every name and text."""
from __future__ import annotations

import json
import random
import re

import pytest

from presentation import referee_html
from presentation.tablet import TabletEngine
from presentation.tablet_board import facts, view_of
from presentation.tablet_foul import foul_form
from scoreboard.core import log
from scoreboard.core.matches import create_match
from scoreboard.live import render as live
from scoreboard.pages.referee import tablet_urls
from sinuca import Match, simulate

pytestmark = pytest.mark.django_db

OPEN = re.compile(r'<div id="ref-live"[^>]*>')


def server_region(mid: int, lang: str = "pt") -> str:
    """The inner HTML of the page's ``#ref-live`` as a socket (or the page) gets it."""
    live.latest.clear()
    text = live.connect_payload(mid, live.payload_key("referee", "pt-br" if lang == "pt" else "en"))[1]
    return OPEN.split(text, 1)[1].rsplit("</div>", 1)[0]


def engine_region(engine: TabletEngine) -> str:
    return json.loads(engine.answer('{"op": "view"}'))["html"]


@pytest.mark.parametrize("seed, sides", [(1, ("Ana Souza", "Bia Lima")), (2, ("Ana Souza", "Bia Lima")),
                                         (3, (["Ana", "Carla"], ["Bia", "Duda", "Eva"]))])  # doubles too
def test_the_server_page_and_the_tablets_engine_draw_the_same_html_after_every_event(seed, sides):
    created = create_match(*sides, frames_to_win=2, reds=6)
    mid, config = created.match.pk, created.match.config
    rng, m = random.Random(seed), Match(config)
    engines = {lang: TabletEngine(config, [], lang, tablet_urls(created.match)) for lang in ("pt", "en")}
    events = []
    for step in simulate.play(m, rng, 120, undo_rate=0.08):
        log.append_event(mid, step.event, expected_seq=len(events))
        events.append(step.event)
        for lang, engine in engines.items():
            engine.reset(events)
            assert engine_region(engine) == server_region(mid, lang), (lang, len(events), step.event)
    assert len(events) >= 60
    assert any(e["type"] == "undo" for e in events)


def test_every_name_is_escaped():
    config = {"players": ["<script>alert(1)</script>", "Bia & \"Lima\" 'x'"], "reds": 6, "frames_to_win": 2,
              "first_breaker": 0}
    m = Match(config)
    m.apply({"type": "pot", "balls": [1]})
    html = referee_html.region(view_of(config, m.state(), facts(m), "pt",
                                       log=[{"seq": 1, "description": {"pt": "<b>x</b>", "en": "<b>x</b>"}}]))
    dialog = referee_html.foul_dialog(foul_form(m, "pt"))
    for text in (html, dialog):
        assert "<script>" not in text and "<b>" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "Bia &amp; \"Lima\" 'x'" in html
    assert "<span class=\"seq\">1</span> &lt;b&gt;x&lt;/b&gt;" in html
    # doubles: the side's players on the board and in the foul dialog are escaped too
    config = {"players": [["<i>Ana</i>", "Carla"], ["Bia", "<b>Duda</b>"]], "first_breaker": 0}
    m = Match(config)
    m.apply({"type": "no_pot"})
    html = referee_html.region(view_of(m.config, m.state(), facts(m), "pt"))
    dialog = referee_html.foul_dialog(foul_form(m, "pt"))
    for text in (html, dialog):
        assert "<i>" not in text and "<b>Duda" not in text and "&lt;b&gt;Duda&lt;/b&gt;" in text


def test_the_servers_page_escapes_a_players_name(referee_client, created):
    from scoreboard.core.models import Match as Row

    row = Row.objects.get(pk=created.match.pk)
    row.config = {**row.config, "players": ["<script>alert(1)</script>", "Bia"]}
    row.save(update_fields=["config"])
    live.latest.clear()
    page = referee_client.get(f"/matches/{row.pk}/referee/").content.decode()
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;</div>" in page  # the board's name


def test_the_log_numbers_its_lines_strikes_what_an_undo_took_back_and_says_what_it_undid():
    e = TabletEngine({"players": ["Ana", "Bia"], "reds": 6, "frames_to_win": 2, "first_breaker": 0},
                     [{"type": "pot", "balls": [1]}, {"type": "no_pot"}, {"type": "undo"}])
    html = engine_region(e)
    # each line opens its "why?" (data-why, its seq)
    assert '<li data-why="3"><span class="seq">3</span> Desfaz o lance 2: ' in html
    assert re.search(r'<li class="undone" data-why="2"><span class="seq">2</span> <em class="void">anulada</em> <s>[^<]+</s></li>', html)
    assert '<li data-why="1"><span class="seq">1</span> ' in html and "•" not in html


def test_a_malformed_request_answers_words_never_an_object():
    e = TabletEngine({"players": ["Ana", "Bia"], "reds": 6, "frames_to_win": 2, "first_breaker": 0})
    for request in ('[1]', '{"op": "apply", "event": {"type": "pot", "balls": [9]}}', "[" * 5000):
        r = json.loads(e.answer(request))
        assert r["ok"] is False and isinstance(r["message"], str) and r["message"], request
