"""Issue 20, item 1: a referee tap costs the queries of its auth and its write, nothing more.

The after-commit render of every screen (``live/render.py``) takes what it shows from the
:class:`~scoreboard.core.log.Change` (recent rows, undo targets, clock starts, state before),
so it reads nothing back from the database."""
from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoreboard.core import log
from scoreboard.core.models import Event
from scoreboard.live import render

pytestmark = [pytest.mark.django_db, pytest.mark.pg]


def post(client, mid, event, **auth):
    return client.post(f"/api/matches/{mid}/events/", data=json.dumps({"event": event}),
                       content_type="application/json", **auth)


def tap(client, mid, event, auth, django_capture_on_commit_callbacks):
    """POST one event with the after-commit render run; the SQL it sent, in order."""
    before = render.RENDERS["changes"]
    with CaptureQueriesContext(connection) as ctx, django_capture_on_commit_callbacks(execute=True):
        r = post(client, mid, event, **auth)
    assert r.status_code == 201, r.content
    assert render.RENDERS["changes"] == before + 1  # the screens were rendered in the capture
    return [q["sql"] for q in ctx.captured_queries]


def events_after_insert(sql: list[str]) -> list[str]:
    """The statements after the event's INSERT that touch the events table."""
    at = next(i for i, s in enumerate(sql) if s.startswith("INSERT") and "scoreboard_event" in s)
    return [s for s in sql[at + 1:] if "scoreboard_event" in s]


def test_a_pot_a_foul_and_an_undo_read_nothing_back(client, created, auth, django_capture_on_commit_callbacks):
    mid = created.match.pk
    # a first tap warms the caches a tap never needs twice (engine replay, the token's row)
    tap(client, mid, {"type": "pot", "balls": [1]}, auth, django_capture_on_commit_callbacks)
    counts = {}
    for name, event in (("pot", {"type": "pot", "balls": [7]}),
                        ("foul", {"type": "foul", "ball": 1}),
                        ("undo", {"type": "undo"})):
        sql = tap(client, mid, event, auth, django_capture_on_commit_callbacks)
        counts[name] = len(sql)
        assert events_after_insert(sql) == [], name
    # measured before issue 20: pot 9, foul 9, undo 10 (the render re-read the recent rows and
    # the clock's first events)
    assert counts == {"pot": 7, "foul": 7, "undo": 7}


def test_an_api_tap_costs_its_auth_and_its_write_only(client, created, auth, django_capture_on_commit_callbacks):
    """The statements of a pot, a foul and an undo: the match row (the view's), the token's
    credential, the locked match row, the INSERT and the seq's UPDATE. SAVEPOINT and RELEASE are
    the test's transaction; in service they are BEGIN and COMMIT. An undo that does not reopen
    a finished match asks the competitions nothing."""
    mid = created.match.pk
    tap(client, mid, {"type": "pot", "balls": [1]}, auth, django_capture_on_commit_callbacks)
    kinds = lambda sql: [s.split()[0] for s in sql]  # noqa: E731
    write = ["SELECT", "SELECT", "SAVEPOINT", "SELECT", "INSERT", "UPDATE", "RELEASE"]
    assert kinds(tap(client, mid, {"type": "pot", "balls": [7]}, auth, django_capture_on_commit_callbacks)) == write
    assert kinds(tap(client, mid, {"type": "foul", "ball": 1}, auth, django_capture_on_commit_callbacks)) == write
    assert kinds(tap(client, mid, {"type": "undo"}, auth, django_capture_on_commit_callbacks)) == write


def _pots(*balls):
    return [{"type": "pot", "balls": [b]} for b in balls]


# Four events, then four undos: the last takes back seq 1, older than the window of six; a
# frame conceded, the next frame, a pot in it, and an undo of that frame's start (back to frame
# 1, whose clock must again count from its first event), then the next frame again.
SEQUENCE = (_pots(1, 7, 1, 7) + [{"type": "undo"}] * 4 + _pots(1, 7, 1, 5)
            + [{"type": "foul", "ball": 1}, {"type": "concede", "player": 1}, {"type": "next_frame"}]
            + _pots(1) + [{"type": "undo"}, {"type": "undo"}, {"type": "next_frame"}] + _pots(1, 7))


def _same_pages(change):
    """The pages of ``change`` rendered from its Screen (no query) equal those of the fallback
    (the snapshot and the log read back) for the same seq; returns the clock."""
    mid = change.match.pk
    with CaptureQueriesContext(connection) as ctx:
        from_change = render.render_payloads(change.match, change.seq, change.state, change.options,
                                             change.event, change.description, change.screen)
    # Between frames and after the match the TV shows the statistics, a fold of the whole log
    # (reports.stats.for_match, cached per seq): its one read is the only one left, not a
    # read-back of the rows the screens list.
    between = change.state["phase"] in ("frame_over", "match_over")
    assert len(ctx.captured_queries) == (1 if between else 0), (change.seq, ctx.captured_queries)
    snap = log.snapshot(mid)
    assert snap.seq == change.seq
    from_log = render.render_payloads(snap.match, snap.seq, snap.state, snap.options,
                                      change.event, change.description)
    # each render carries the time it was drawn (data-rev, live.js): the rest must be the same
    drawn = re.compile(r' data-rev="\d+"')
    assert {k: drawn.sub("", v) for k, v in from_change.items()} == {
        k: drawn.sub("", v) for k, v in from_log.items()}, change.seq
    read = render.screen_from_log(mid, snap.seq, snap.state, snap.options)
    screen = change.screen
    assert (screen.recent, screen.before, screen.started, screen.frame_started) == (
        read.recent, read.before, read.started, read.frame_started), change.seq
    for n, description in read.descriptions.items():
        assert screen.descriptions[n] == description
    ctx_change = render.page_context(change.match, change.seq, change.state, change.options, screen=screen)
    ctx_log = render.page_context(snap.match, snap.seq, snap.state, snap.options)
    assert ctx_change["clock"] == ctx_log["clock"]
    assert ctx_change["popups"] == ctx_log["popups"]
    assert ctx_change["log_lines"] == ctx_log["log_lines"]
    assert ctx_change["undo_what"] == ctx_log["undo_what"]
    return ctx_change["clock"]


def test_the_pages_from_the_change_are_the_pages_from_the_log(db):
    from scoreboard.core.matches import new_match

    m = new_match({"players": ["Ana", "Bia"], "first_breaker": 0, "frames_to_win": 2})
    clocks = {}
    for seq, ev in enumerate(SEQUENCE, start=1):
        if seq == 11:  # the story is rebuilt from the log, as in another process's first tap
            log._engines.clear()
        change = log.append_event(m.pk, ev, expected_seq=seq - 1)
        assert change.seq == seq
        clocks[seq] = _same_pages(change)
    assert SEQUENCE[7] == {"type": "undo"} and log.snapshot(m.pk).options["undone"][1] == 8
    lines = render.page_context(m, 8, *_at(m.pk, 8))["log_lines"]
    assert lines[0]["undid"] == 1 and lines[0]["description"]["pt"].startswith("Desfaz o lance 1:")
    stored = {e.seq: e.at.isoformat() for e in Event.objects.filter(match=m)}
    frame_two = SEQUENCE.index({"type": "next_frame"}) + 1
    assert clocks[frame_two]["frame"] == stored[frame_two] != clocks[frame_two - 1]["frame"]
    assert clocks[frame_two - 1]["stopped"] == stored[frame_two - 1]  # the frame was over
    back = frame_two + 3  # the undo of the next frame: frame 1 again, counted from seq 1
    assert clocks[back]["frame"] == stored[1] and clocks[back]["match"] == stored[1]
    # the next frame again: its clock counts from the first event that had its number (the
    # undone start), as the log's query has always answered
    assert clocks[back + 1]["frame"] == stored[frame_two]


def _at(mid, seq):
    snap = log.snapshot(mid)
    assert snap.seq >= seq
    engine = __import__("sinuca").Match.replay(snap.match.config, [
        e.event for e in Event.objects.filter(match_id=mid, seq__lte=seq).order_by("seq")])
    return engine.state(), log.screen_options(engine)


@pytest.mark.parametrize("seed", [3, 11])
def test_a_simulated_match_with_undos_renders_the_same_from_the_change(db, seed):
    """Random play with undos across frames (``sinuca.simulate``): every tap's pages from its
    Change equal the pages read back from the log."""
    from scoreboard.core.matches import new_match
    from sinuca.simulate import play_match

    config = {"players": ["Ana", "Bia"], "first_breaker": 0, "frames_to_win": 2}
    events = play_match(config, seed=seed, max_events=80, undo_rate=0.25)
    m = new_match(config)
    for seq, ev in enumerate(events, start=1):
        _same_pages(log.append_event(m.pk, ev, expected_seq=seq - 1))


def test_an_import_keeps_the_story_so_the_next_tap_reads_nothing_back(db):
    from scoreboard.core.matches import new_match

    m = new_match({"players": ["Ana", "Bia"], "first_breaker": 0, "frames_to_win": 2})
    log.append_many(m.pk, SEQUENCE[:12])
    change = log.append_event(m.pk, {"type": "undo"}, expected_seq=12)
    _same_pages(change)
