"""While the channel layer's Redis is away its loggers say so once, not a traceback a second."""
from __future__ import annotations

import logging

import redis

from scoreboard.live.hub import outage, subscription  # noqa: F401  (installs the filter)


def test_an_outage_is_one_line_and_its_end_one_more(caplog, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(outage.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(outage, "OUTAGE", outage.OUTAGE)
    outage.OUTAGE.since = None
    layer = logging.getLogger("channels_redis.pubsub")
    caplog.set_level(logging.INFO)
    for _ in range(20):  # the receive task's retries, a second apart
        try:
            raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        except redis.exceptions.ConnectionError:
            layer.exception("Unexpected exception in receive task")
        outage.OUTAGE.check()
        now[0] += 1
    now[0] += outage.Outage.QUIET
    outage.OUTAGE.check()
    outage.OUTAGE.check()
    lines = [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records]
    assert lines == [
        ("WARNING", "channel layer: Redis unreachable (ConnectionError: Error 111 connecting to 127.0.0.1:6379. "
                    "Connection refused.): live screens catch up from the database until it answers", None),
        ("WARNING", "channel layer: Redis is back (errors for 19 s)", None)]
    # any other error keeps its traceback
    try:
        raise KeyError("x")
    except KeyError:
        layer.exception("Unexpected exception in receive task")
    assert caplog.records[-1].exc_info is not None
