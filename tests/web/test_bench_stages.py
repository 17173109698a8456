"""Issue 20, item 3: ``bench/tap_stages.py`` times every stage of a tap on the app's real path.

Its measurement runs here on 20 taps through the in-process ASGI app (the benchmark's own run
also serves them through Daphne on a socket): each tap must have each stage measured the number
of times the path runs it, every stage a positive time, and the stages, which are disjoint parts
of the tap, must fit in its total (POST sent -> the last socket's receipt)."""
from __future__ import annotations

import pathlib
import sys

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from scoreboard.core.matches import create_match

BENCH = str(pathlib.Path(__file__).resolve().parents[2] / "bench")
sys.path.insert(0, BENCH)
import tap_stages  # noqa: E402

# bench/ only for that import: left on the path, its tournament.py shadowed the tournament
# package for every process this one starts later (the súmula's render processes failed to start)
sys.path.remove(BENCH)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]


async def test_every_stage_of_a_tap_is_timed_and_the_stages_fit_in_its_total():
    created = await sync_to_async(create_match)("Ana Souza", "Bia Lima", first_breaker=0, frames_to_win=30)
    events = tap_stages.tap_events(created.match.config, 23)
    taps = await tap_stages.measure(created.match.pk, created.token, events, sockets=2, warmup=3, pace=0)
    assert [t.seq for t in taps] == list(range(4, 24))
    # SQLite's write transaction starts with BEGIN IMMEDIATE, sent through the cursor; on
    # PostgreSQL the transaction starts with the locking SELECT … FOR UPDATE itself
    begin = 1 if connection.vendor == "sqlite" else 0
    for t in taps:
        # each stage as often as a tap runs it: the process's lock and the database's (its
        # BEGIN, the locked match row), the INSERT and the seq's UPDATE, one of everything else
        assert t.counts == {"request": 1, "auth": 1, "lock": 2 + begin, "apply": 1, "insert": 2,
                            "options": 1, "commit": 1, "render": 1, "publish": 1, "deliver": 1}, t.seq
        assert all(t.ns[s] > 0 for s in tap_stages.STAGES), (t.seq, t.ns)
        assert sum(t.ns.values()) <= t.total, (t.seq, t.ns, t.total)
        # the parts printed under two stages are inside them
        assert t.sub["connect"] + t.sub["match row"] <= t.ns["request"], (t.seq, t.sub)
        assert 0 < t.sub["auth sql"] <= t.ns["auth"], (t.seq, t.sub)
        # the view's match row, the token's credential, then the write: no read-back (item 1)
        assert t.queries == 5 + begin, t.seq
    rows = tap_stages.summary(taps)
    printed = tap_stages.table(rows)
    for stage in (*tap_stages.STAGES, "(rest)", "total", "POST answer"):
        assert stage in printed
    # the rest is what the stages leave of the total: never negative, as they fit in it
    assert rows["rest"][0] >= 0 and sum(rows[s][2] for s in (*tap_stages.STAGES, "rest")) == pytest.approx(1.0)
    assert rows["queries"] == (5 + begin, 5 + begin)


async def test_the_probe_leaves_the_app_as_it_found_it():
    from scoreboard.core import access, log
    from scoreboard.live import render

    before = (access.credential_for_token, log.append_event, log.locked, render.render_change)
    probe = tap_stages.Probe(1)
    probe.install()
    assert access.credential_for_token is not before[0]
    probe.uninstall()
    assert (access.credential_for_token, log.append_event, log.locked, render.render_change) == before
