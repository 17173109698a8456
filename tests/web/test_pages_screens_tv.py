"""What the TV and overlay fragments say, from the engine: why a score changed, the break's balls,
difference and snookers, whose frames are whose, the clocks, and what may pop up."""
from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation

from scoreboard.core import log
from scoreboard.core.models import Event
from scoreboard.live import render

pytestmark = pytest.mark.django_db


def player_block(html: str, i: int) -> str:
    start = html.index(f'data-player="{i}"')
    end = html.index('data-player="1"') if i == 0 else html.index('class="tv-facts"')
    return html[start:end]


def test_the_tv_says_why_the_score_changed_and_whose_frames_are_whose(created):
    mid = created.match.pk
    for ev in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "pot", "balls": [1, 1]},
               {"type": "no_pot"}, {"type": "foul", "ball": 1}):
        log.append_event(mid, ev)
    html = Client().get(f"/matches/{mid}/tv/").content.decode()
    last = re.search(r'id="tv-last">(.*?)</section>', html, re.S).group(1)
    assert "Último lance" in last and ('Falta de Bia Lima: 4 pontos para Ana Souza (Art. <a href="/rules/#art-40">40</a>'
                                        '<small class="rule-title"> · Penalidade variável</small>)') in last
    assert 'id="tv-diff">14<' in html  # 14 - 0
    assert 'data-frames="0"><b>0</b>' in player_block(html, 0)
    assert 'data-frames="1"><b>0</b>' in player_block(html, 1)
    assert "Maior tacada <b>10</b>" in player_block(html, 0)
    en = Client().get(f"/matches/{mid}/tv/?lang=en").content.decode()
    assert ('Foul by Bia Lima: 4 points to Ana Souza (Art. <a href="/rules/?lang=en#art-40">40</a>'
            '<small class="rule-title"> · Variable penalty</small>)') in en
    assert "Last action" in en


def test_the_break_shows_its_balls_and_the_snookers_required(created):
    mid = created.match.pk
    for ev in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "pot", "balls": [1]},
               {"type": "pot", "balls": [6]}):
        log.append_event(mid, ev)
    html = Client().get(f"/matches/{mid}/tv/").content.decode()
    balls = re.search(r'id="tv-breakballs">(.*?)</span></span>', html, re.S).group(1)
    assert re.findall(r"ball-(\d)", balls) == ["1", "7", "1", "6"]
    assert 'id="tv-break">15<' in html and 'id="tv-snookers">0<' in html


def test_clocks_start_at_the_first_event_of_the_match_and_of_the_frame(created):
    mid = created.match.pk
    log.append_event(mid, {"type": "pot", "balls": [1]})
    first = Event.objects.get(match_id=mid, seq=1).at.isoformat()
    html = Client().get(f"/matches/{mid}/tv/").content.decode()
    assert html.count(f'data-clock-since="{first}"') == 2  # frame 1 and the match
    assert 'data-clock-stop=""' in html


def test_popups_name_the_moments_that_matter(created):
    mid = created.match.pk

    def kinds(ev):
        ch = log.append_event(mid, ev)
        return render.popups(ch.match, ch.state, render.recent_events(mid, ch.seq), ch.options)

    sticky = ["retorno", "free_ball", "aggravated"]
    assert kinds({"type": "pot", "balls": [1]}) == {"kinds": ["break"], "break_before": 0, "break": 1, "max": False,
                                                    "sticky": sticky}
    assert kinds({"type": "pot", "balls": [7]})["break_before"] == 1
    assert kinds({"type": "no_pot"})["kinds"] == []
    assert kinds({"type": "foul", "ball": 1, "retorno": True})["kinds"] == ["retorno", "foul"]  # the pending choice first
    assert kinds({"type": "undo"})["kinds"] == []  # an undo pops nothing up
    assert kinds({"type": "foul", "ball": 1})["kinds"] == ["foul"]
    assert kinds({"type": "decision", "choice": "play"})["kinds"] == []
    log.append_event(mid, {"type": "no_pot"})
    assert kinds({"type": "foul", "ball": 1, "snooker": True})["kinds"] == ["foul"]
    assert kinds({"type": "decision", "choice": "play"})["kinds"] == ["free_ball"]  # Art. 36


def pop_html(mid: int) -> str:
    """The overlay's pop-up templates for the match's latest change (Portuguese)."""
    snap = log.snapshot(mid)
    from scoreboard.core.models import Match

    match = Match.objects.get(pk=mid)
    ctx = render.page_context(match, snap.seq, snap.state, snap.options, render.recent_events(mid, snap.seq))
    with translation.override("pt-br"):
        html = render.render_view("overlay", ctx)
    return html[html.index('id="ov-popsrc"'):]


@pytest.mark.parametrize("frames_to_win, end", [(2, "frame"), (1, "match")])
def test_the_frame_or_match_won_and_the_maximum_pop_up(frames_to_win, end):
    from scoreboard.core.matches import create_match

    mid = create_match("Ana Souza", "Bia Lima", reds=6, frames_to_win=frames_to_win, first_breaker=0).match.pk

    def pot(ball):
        ch = log.append_event(mid, {"type": "pot", "balls": [ball]})
        return render.popups(ch.match, ch.state, render.recent_events(mid, ch.seq), ch.options)

    for _ in range(6):
        pot(1)
        pot(7)
    for ball in (2, 3, 4, 5):
        pot(ball)
    last = pot(6)  # Art. 50.1: the 6 with a lead over 7 ends the frame
    # the frame's pop-up waits for its last ball: the 7 may still be potted for the break (Art. 6.1)
    assert last["kinds"] == ["break"] and last["break"] == 68 and last["max"] is False
    bonus = pot(7)  # the 7 after it, for the break: the maximum of a 6-red frame (Art. 6.1.1)
    assert bonus["kinds"] == ["break", end] and bonus["break_before"] == 68 and bonus["break"] == 75
    assert bonus["max"] is True
    html = pop_html(mid)
    assert end == "match" or "75–0" in html and "68–0" not in html  # the frame pop-up after the last ball


def test_the_overlay_pop_ups_speak_the_pages_language(created):
    mid = created.match.pk
    log.append_event(mid, {"type": "foul", "ball": 5, "retorno": True})
    en = Client().get(f"/matches/{mid}/overlay/?lang=en").content.decode()
    pops = en[en.index('id="ov-popsrc"'):en.index('id="ov-live"')]
    assert 'data-kinds="retorno,foul"' in pops
    # each article with its short title, in the page's language
    assert ("FOUL — 5 POINTS</b> Foul by Ana Souza: 5 points to Bia Lima (Art. 40"
            '<small class="rule-title"> · Variable penalty</small>)') in pops
    assert 'Bia Lima decides: play, pass or have it replayed (Art. 25<small class="rule-title"> · Foul and replay</small>)' in pops
    assert 'data-pop="break"' not in pops  # only what this change raises is rendered


def test_the_english_catalogue_reads_as_english():
    """Issue 18: "Frame 2 — shots" and "Break by Ana Souza 104" were odd English."""
    with translation.override("en"):
        assert translation.gettext("Tacada de %(name)s") % {"name": "Ana Souza"} == "Ana Souza's break:"
        assert translation.gettext("Partida %(n)s — tacadas") % {"n": 2} == "Frame 2 stroke by stroke"


def test_the_overlay_pop_ups_put_the_winners_score_first():
    """Bia (the second player) wins frame 1 12–0 and the match 2–0: the pop-ups read "vence a
    partida 1 12–0" and "vence o jogo 2–0", as every result line, never the players' order."""
    from scoreboard.core.matches import create_match

    mid = create_match("Ana Souza", "Bia Lima", reds=6, frames_to_win=2, first_breaker=1).match.pk
    for ball in (1, 7, 1, 3):
        log.append_event(mid, {"type": "pot", "balls": [ball]})
    log.append_event(mid, {"type": "concede", "player": 0})
    frame = pop_html(mid).split('data-pop="frame">')[1].split("</div>")[0]
    assert frame == "<b>Bia Lima</b> vence a partida 1 12–0"
    log.append_event(mid, {"type": "next_frame"})
    log.append_event(mid, {"type": "concede", "player": 0})
    match = pop_html(mid).split('data-pop="match">')[1].split("</div>")[0]
    assert match == "<b>Bia Lima</b> vence o jogo 2–0"
