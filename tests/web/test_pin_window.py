"""PIN tries are limited over a sliding window: at most the rate in ANY minute (or hour), not in
the clock's fixed windows, whose edge let 10 tries pass on each side of it."""
from __future__ import annotations

import time

import pytest
from django.test import Client

from scoreboard.pages import referee

pytestmark = pytest.mark.django_db


def test_no_more_than_ten_wrong_pins_in_any_minute_across_a_window_edge(created, monkeypatch):
    monkeypatch.setattr(referee, "PIN_RATE_PER_ADDRESS", "10/m")
    monkeypatch.setattr(referee, "PIN_RATE_PER_TARGET", "1000/h")
    now = [1_700_000_000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    url = f"/matches/{created.match.pk}/referee/"
    wrong = "0" * len(created.pin) if created.pin != "0" * len(created.pin) else "1" * len(created.pin)
    guesser = Client(REMOTE_ADDR="10.7.7.7")
    codes = [guesser.post(url, {"pin": wrong}).status_code for _ in range(10)]
    # then one try a second for 59 s: a fixed window ends somewhere in them, and let 10 more in
    for _ in range(59):
        now[0] += 1
        codes.append(guesser.post(url, {"pin": wrong}).status_code)
    assert codes == [401] * 10 + [429] * 59
    # a quiet minute and more later the address may try again
    now[0] += 75
    assert guesser.post(url, {"pin": created.pin}).status_code == 302
