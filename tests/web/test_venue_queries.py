"""The venue's board costs the same queries whatever the number of its cards: each card used to
read its match row again, its players and table one by one, and its competition's fixture (about
176 queries for a tournament day's board, 180 ms of a worker's CPU on every change)."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from scoreboard.core import log
from scoreboard.core.matches import new_match
from scoreboard.live import boards

pytestmark = [pytest.mark.django_db, pytest.mark.pg]

CONFIG = {"reds": 6, "frames_to_win": 1, "first_breaker": 0}


def matches(n: int, start: int) -> None:
    """``n`` matches in progress (a pot each, on tables of their own) and ``n`` finished ones."""
    for i in range(start, start + n):
        live = new_match({**CONFIG, "players": [f"Ana {i}", f"Bia {i}"]}, table=f"Mesa {i}")
        log.append_event(live.pk, {"type": "pot", "balls": [1]}, expected_seq=0)
        done = new_match({**CONFIG, "players": [f"Caio {i}", f"Davi {i}"]})
        log.append_event(done.pk, {"type": "concede_match", "player": 1}, expected_seq=0)


def venue_queries(engines_here: bool) -> tuple[int, str]:
    if not engines_here:
        log._engines.clear()  # a worker that did not serve these taps folds each log once
    with translation.override("pt-br"), CaptureQueriesContext(connection) as q:
        html = boards.render_board("venue", "pt-br")
    return len(q.captured_queries), html


def test_the_venue_board_costs_the_same_queries_for_2_or_8_matches_a_kind():
    matches(2, 1)
    few, html = venue_queries(engines_here=True)
    assert "Ana 1" in html and "Caio 2" in html
    few_cold, _ = venue_queries(engines_here=False)
    matches(6, 3)
    many, html = venue_queries(engines_here=True)
    assert "Ana 8" in html and "Caio 8" in html and "Mesa 8" in html
    # 12 more cards (6 live, 6 results): not one query more (it was 7-8 a card)
    assert many == few, (few, many)
    # on another worker, each card's log is folded once: that one read a card, nothing else
    many_cold, _ = venue_queries(engines_here=False)
    assert many_cold - few_cold == 12, (few_cold, many_cold)


def test_the_boards_screens_read_together_are_each_cards_own(db):
    """The two queries of ``screens_from_log`` give each card the screen it read alone (its
    clock's starts, the descriptions of what an undo took back and of what the next undo would):
    simulated matches stopped at every kind of point, undos and later frames included."""
    from sinuca.simulate import play_match

    from scoreboard.live import render

    items = []
    for seed, stop in ((1, 0), (2, 7), (3, 60), (4, 140), (5, 400), (6, 33)):
        config = {**CONFIG, "players": [f"Eva {seed}", f"Gil {seed}"], "frames_to_win": 2}
        m = new_match(config)
        for ev in play_match(config, seed=seed, undo_rate=0.1)[:stop]:
            log.append_event(m.pk, ev)
        snap = log.snapshot(m.pk)
        items.append((m.pk, snap.seq, snap.state, snap.options))
    together = render.screens_from_log(items)
    alone = {mid: render.screen_from_log(mid, seq, state, options, []) for mid, seq, state, options in items}
    assert together == alone
    assert sum(1 for s in alone.values() if s.descriptions) >= 3  # undos named, not only empties
    assert any(s.frame_started and s.frame_started != s.started for s in alone.values())  # a later frame
