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

    monkeypatch.setattr(hub, "publish", lambda mid, seq, payloads: published.append(seq))
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("replaymatch", str(DEMO), "--speed", "4", "--table", "Final", stdout=out)
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
    p = tmp_path / "x.json"
    p.write_text('{"config": {"players": ["A"]}, "events": []}')
    with pytest.raises(CommandError):
        call_command("replaymatch", str(p))
