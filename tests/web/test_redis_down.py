"""Issue 15, item 4: Redis is a cache, not a dependency of the answer.

With the settings a deployment gets for a ``REDIS_URL`` whose Redis is down, the PIN login
answered HTML 500 (django-ratelimit's counters raised ConnectionError), and so did the log, the
export and the súmula CSV (rate-limited, kept in the cache). Now each process counts and caches
in its own memory while Redis is unreachable, says so once in the log, and a Redis that comes
back empty has its counters put back by the processes that counted them."""
from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import uuid

import pytest
from django.core.cache import cache
from django.test import Client

pytestmark = pytest.mark.django_db


def dead_redis_url() -> str:
    """A Redis URL where nothing listens (connection refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


def caches_for(redis_url: str, prefix: str) -> dict:
    """``settings.CACHES`` as the project's settings module builds it for ``REDIS_URL``."""
    env = dict(os.environ, REDIS_URL=redis_url, CHANNEL_PREFIX=prefix)
    env.pop("DATABASE_URL", None)
    out = subprocess.run([sys.executable, "-c", "import json, scoreboard.settings as s; "
                          "print(json.dumps(s.CACHES))"], env=env, capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return json.loads(out.strip().splitlines()[-1])


def wrong_pin(created) -> str:
    return "000000" if created.pin != "000000" else "111111"


@pytest.fixture(autouse=True)
def a_days_window(monkeypatch):
    """A day's window for the PIN tries instead of a minute's: no window ends while a test runs."""
    from scoreboard.pages import referee

    monkeypatch.setattr(referee, "PIN_RATE_PER_ADDRESS", "10/d")


@pytest.fixture
def redis_down(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CACHES = caches_for(dead_redis_url(), f"down-{uuid.uuid4().hex[:8]}")
    yield
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


def test_pin_login_answers_401_then_429_and_the_log_says_so_once(redis_down, created, caplog):
    c = Client(raise_request_exception=False)
    url = f"/matches/{created.match.pk}/referee/"
    with caplog.at_level(logging.WARNING):
        codes = [c.post(url, {"pin": wrong_pin(created)}).status_code for _ in range(10)]
        last = c.post(url, {"pin": created.pin})
    assert codes == [401] * 10
    assert last.status_code == 429 and last["Retry-After"] == "60"
    assert "Muitas tentativas" in last.content.decode()
    warnings = [r.getMessage() for r in caplog.records if "Redis unreachable" in r.getMessage()]
    assert len(warnings) == 1, warnings  # one line per outage, not one per request
    assert "per-process limits" in warnings[0]
    # another address has its own (local) count: not locked out by this one
    assert Client(REMOTE_ADDR="10.0.0.9").post(url, {"pin": created.pin}).status_code == 302


def test_the_log_the_export_and_the_csv_answer_200_and_are_still_limited(redis_down, created, settings,
                                                                          referee_client):
    settings.REPORT_RATE = "4/d"  # a day's window: none ends between the requests
    mid = created.match.pk
    assert referee_client.post(f"/matches/{mid}/referee/event/",
                               {"event": json.dumps({"type": "pot", "balls": [1]})}).status_code == 200
    c = Client(raise_request_exception=False)
    log = c.get(f"/api/matches/{mid}/events/")
    assert log.status_code == 200 and [e["seq"] for e in log.json()["events"]] == [1]
    export = c.get(f"/api/matches/{mid}/export/")
    assert export.status_code == 200 and len(export.json()["events"]) == 1
    csv = c.get(f"/matches/{mid}/sumula.csv")
    assert csv.status_code == 200 and "Ana Souza" in csv.content.decode()
    again = c.get(f"/matches/{mid}/sumula.csv")  # the 4th report in the window: still allowed
    assert again.status_code == 200 and again.content == csv.content  # from the local cache
    limited = c.get(f"/api/matches/{mid}/events/")  # the 5th: the local limit holds
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"


def test_the_api_and_the_tablet_answer_with_redis_down(redis_down, created, auth):
    c = Client(raise_request_exception=False)
    mid = created.match.pk
    r = c.post(f"/api/matches/{mid}/events/", data=json.dumps({"event": {"type": "no_pot"}, "key": "k1"}),
               content_type="application/json", **auth)
    assert r.status_code == 201 and r.json()["seq"] == 1
    assert c.get(f"/api/matches/{mid}/").json()["seq"] == 1
    assert c.get(f"/matches/{mid}/referee/").status_code == 200  # the PIN form


# -- a Redis that comes back empty does not reset the limits ------------------------------------

def shared_redis_url() -> str:
    return os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


def redis_or_skip(url: str):
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.exceptions.ConnectionError:
        pytest.fail(f"Redis is not answering at {url}: the test command starts it (scripts/lib.sh ensure_redis)")
    return client


@pytest.fixture
def fast_hashes(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_a_redis_restarted_empty_gets_the_pin_counts_back(fast_hashes, created, settings):
    url = shared_redis_url()
    client = redis_or_skip(url)
    prefix = f"wipe-{uuid.uuid4().hex[:8]}"
    settings.CACHES = caches_for(url, prefix)
    try:
        c = Client()
        page = f"/matches/{created.match.pk}/referee/"
        assert [c.post(page, {"pin": wrong_pin(created)}).status_code for _ in range(6)] == [401] * 6
        keys = list(client.scan_iter(f"{prefix}:*"))
        assert keys, "the counters are in Redis"
        client.delete(*keys)  # what a restart without persistence leaves: nothing
        assert [c.post(page, {"pin": wrong_pin(created)}).status_code for _ in range(4)] == [401] * 4
        assert c.post(page, {"pin": created.pin}).status_code == 429  # the 11th try in the minute
        assert list(client.scan_iter(f"{prefix}:*")), "the count was put back into Redis"
    finally:
        keys = list(client.scan_iter(f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
        cache.clear()
