"""``manage.py replaymatch``: a recorded match played into a live match through the service (broadcast)."""
from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import CommandError, call_command

import sinuca
from scoreboard.core import log
from scoreboard.management.commands import replaymatch
from scoreboard.core.models import Event, Match

from ops_helpers import DEMO, demo, fresh_engines  # noqa: F401

pytestmark = pytest.mark.django_db


def test_replays_the_demo_into_a_live_match_on_a_table(monkeypatch, django_capture_on_commit_callbacks):
    sleeps, published = [], []
    monkeypatch.setattr(replaymatch.time, "sleep", sleeps.append)
    from scoreboard.live.hub import hub

    monkeypatch.setattr(hub.publisher, "publish", lambda mid, seq, payloads, **kw: published.append(seq))
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("replaymatch", str(DEMO), "--speed", "4", "--table", "Final", "--keep", stdout=out)
    lines = out.getvalue().splitlines()
    info = json.loads(lines[0])
    m = Match.objects.get(pk=info["match"])
    doc = demo()
    assert m.table.name == "Final" and m.started_at is not None
    assert info["table_tv_url"].endswith(f"/tables/{m.table_id}/tv/")
    assert list(Event.objects.filter(match=m).order_by("seq").values_list("event", flat=True)) == doc["events"]
    assert log.snapshot(m.pk).state == sinuca.Match.replay(doc["config"], doc["events"]).state()
    assert published == list(range(1, len(doc["events"]) + 1))  # every event was broadcast, in order
    assert len(sleeps) == len(doc["events"])
    # human pace at --speed 4: a pot waits 7 s ± 30 % / 4
    pots = [s for s, ev in zip(sleeps, doc["events"]) if ev["type"] == "pot"]
    assert all(7 * 0.7 / 4 <= s <= 7 * 1.3 / 4 for s in pots)
    assert "Ana Souza vence o jogo por 2–1" in out.getvalue()


def test_pace_scales_with_speed():
    rng = random.Random(1)
    assert replaymatch.pause({"type": "next_frame"}, 1, rng) >= 45 * 0.7
    assert replaymatch.pause({"type": "next_frame"}, 10, rng) <= 45 * 1.3 / 10


def test_a_bad_speed_or_a_bad_file_is_refused(tmp_path):
    with pytest.raises(CommandError):
        call_command("replaymatch", str(DEMO), "--speed", "0")
    with pytest.raises(CommandError, match="file"):
        call_command("replaymatch")
    p = tmp_path / "x.json"
    p.write_text('{"config": {"players": ["A"]}, "events": []}')
    with pytest.raises(CommandError):
        call_command("replaymatch", str(p))


# -- a rehearsal is marked and cleaned up (issue 11, finding 8) ---------------------------------

class Stop(KeyboardInterrupt):
    """Ctrl-C in the middle of a rehearsal."""


def _stop_after(monkeypatch, n: int, seen: list):
    def sleep(_s):
        m = Match.objects.order_by("-pk").first()
        seen.append((m.pk, m.rehearsal, m.seq) if m else None)
        if len(seen) > n:
            raise Stop

    monkeypatch.setattr(replaymatch.time, "sleep", sleep)


def test_a_rehearsal_is_marked_and_deleted_when_it_ends(monkeypatch):
    from scoreboard.core import tables

    seen = []
    _stop_after(monkeypatch, 10_000, seen)
    out = io.StringIO()
    call_command("replaymatch", str(DEMO), "--table", "Mesa 1", stdout=out, stderr=io.StringIO())
    pk = json.loads(out.getvalue().splitlines()[0])["match"]
    assert seen[0] == (pk, True, 0) and seen[-1] == (pk, True, len(demo()["events"]))  # then the hold
    assert not Match.objects.filter(pk=pk).exists() and not Event.objects.filter(match_id=pk).exists()
    assert list(tables.in_progress()) == [] and list(tables.finished()) == []


def test_a_rehearsal_stopped_early_leaves_nothing_in_progress(monkeypatch):
    from scoreboard.core import tables

    seen = []
    _stop_after(monkeypatch, 5, seen)
    with pytest.raises(SystemExit):
        call_command("replaymatch", str(DEMO), "--table", "Mesa 1", stdout=io.StringIO(), stderr=io.StringIO())
    assert seen[-1][1:] == (True, 5)  # it was in progress, as a rehearsal, at seq 5
    assert Match.objects.count() == 0 and list(tables.in_progress()) == []


def test_a_second_run_replaces_the_first_and_keep_and_clean(monkeypatch):
    from scoreboard.core.matches import new_match

    real = new_match({"players": ["Caio", "Davi"], "first_breaker": 0}, table="Mesa 1")
    seen = []
    _stop_after(monkeypatch, 3, seen)
    with pytest.raises(SystemExit):
        call_command("replaymatch", str(DEMO), "--table", "Mesa 1", "--keep", stdout=io.StringIO())
    kept = Match.objects.get(rehearsal=True)
    assert kept.seq == 3 and kept.competition == "Ensaio / Rehearsal"
    seen.clear()
    _stop_after(monkeypatch, 2, seen)
    with pytest.raises(SystemExit):
        call_command("replaymatch", str(DEMO), "--table", "Mesa 1", stdout=io.StringIO(), stderr=io.StringIO())
    assert list(Match.objects.all()) == [real]  # the earlier rehearsal went first, this one at the stop
    _stop_after(monkeypatch, 2, [])
    for _ in range(2):
        with pytest.raises(SystemExit):
            call_command("replaymatch", str(DEMO), "--table", f"Mesa {_ + 2}", "--keep", stdout=io.StringIO())
    assert Match.objects.filter(rehearsal=True).count() == 2
    out = io.StringIO()
    call_command("replaymatch", "--clean", stdout=out)
    assert "2 ensaio(s) apagado(s)" in out.getvalue() and list(Match.objects.all()) == [real]


def test_a_rehearsal_ended_by_sigterm_cleans_up_too(monkeypatch):
    """``kill`` or a closed terminal stops it like Ctrl-C (Python's default for SIGTERM and
    SIGHUP exits without running any clean-up)."""
    import os
    import signal

    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    calls = []

    def sleep(_s):
        calls.append(1)
        if len(calls) == 4:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(replaymatch.time, "sleep", sleep)
    err = io.StringIO()
    try:
        with pytest.raises(SystemExit) as exit_:
            call_command("replaymatch", str(DEMO), "--table", "Mesa 1", stdout=io.StringIO(), stderr=err)
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
    assert exit_.value.code == 130 and "SIGTERM" in err.getvalue()
    assert Match.objects.count() == 0
