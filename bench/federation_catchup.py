"""Benchmark: a venue's day reaching its federation after the link comes back, and a result's
time to the federation's player page while the link is up.

Two databases on SQLite in a temporary directory: the federation's, served by
``scripts/serve.py`` (one Daphne worker, a real HTTP server on a free port), and the venue's, in
this process (a venue of that federation: its outbox and its sender, ``core.sync``).

1. The backlog: while the link is down (nothing sent), the venue plays a day of ``--matches``
   (default 40) best-of-3 matches of 15 reds on ``--tables`` (default 4) tables, each a seeded
   match (``sinuca.simulate.play_match``: fouls, free balls, retornos, undos). Then the link is
   back: ``sync.sync()`` delivers the outbox in batches of 200 records and the federation
   ingests each event through its engine. Printed: records, events, batches, the catch-up's
   seconds and records per second.
2. Online: the venue's sender runs in the background (``sync.start_background``, as in the
   served app); the venue plays ``--online`` (default 5) more matches, each up to its last tap,
   and the time from that tap's commit to the federation's JSON career of the winner
   (``/api/players/<id>/career/``, what the player's page draws) counting the match is taken,
   polled every 20 ms, then the player's HTML page is read once.

Run: .venv/bin/python bench/federation_catchup.py [--matches 40] [--tables 4] [--online 5]
Not a test: it prints figures.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PY = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:  # noqa: S310 - the bench's own server
        return json.loads(r.read())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=40)
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--online", type=int, default=5)
    args = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-fed-"))
    venue_db, fed_db = tmp / "venue.sqlite3", tmp / "fed.sqlite3"
    base_env = dict(os.environ, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="bench-" + uuid.uuid4().hex,
                    DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost,testserver")
    base_env.pop("REDIS_URL", None)
    base_env.pop("PYTHONDONTWRITEBYTECODE", None)

    def manage(db: pathlib.Path, *a: str) -> str:
        env = dict(base_env, DATABASE_URL=f"sqlite:///{db}")
        return subprocess.run([PY, "manage.py", *a], cwd=ROOT, env=env, check=True, capture_output=True,
                              text=True, timeout=600).stdout

    t = time.perf_counter()
    manage(venue_db, "migrate", "--noinput")
    shutil.copy(venue_db, fed_db)  # the same schema: migrated once
    if not (ROOT / "staticfiles" / "staticfiles.json").exists():
        manage(venue_db, "collectstatic", "--noinput")
    token = json.loads(manage(fed_db, "venuetoken", "Clube Centro").strip().splitlines()[-1])["token"]
    print(f"set-up (migrate, token): {time.perf_counter() - t:.1f} s", flush=True)

    port = free_port()
    fed_url = f"http://127.0.0.1:{port}"
    log = open(tmp / "federation.log", "w+")
    fed = subprocess.Popen([PY, "scripts/serve.py", "--workers", "1", "--bind", f"127.0.0.1:{port}"], cwd=ROOT,
                           env=dict(base_env, DATABASE_URL=f"sqlite:///{fed_db}"), stdout=log,
                           stderr=subprocess.STDOUT, start_new_session=True)
    try:
        run(args, venue_db, fed_url, token, base_env)
    finally:
        os.killpg(fed.pid, signal.SIGTERM)
        fed.wait(15)
        shutil.rmtree(tmp, ignore_errors=True)


def run(args, venue_db: pathlib.Path, fed_url: str, token: str, base_env: dict) -> None:
    os.environ.update({k: v for k, v in base_env.items() if k.startswith("DJANGO_")})
    os.environ.update(DJANGO_SETTINGS_MODULE="scoreboard.settings", DATABASE_URL=f"sqlite:///{venue_db}",
                      FEDERATION_URL=fed_url, FEDERATION_TOKEN=token, FEDERATION_BACKOFF_MAX="1",
                      FEDERATION_TIMEOUT="30")
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from sinuca.simulate import play_match
    from scoreboard.core import log, sync
    from scoreboard.core.matches import create_match
    from scoreboard.core.models import Event, OutboxRecord

    def match_at(table: str, a: str, b: str, seed: int):
        m = create_match(a, b, reds=15, frames_to_win=2, first_breaker=0, table=table).match
        return m, play_match(m.config, seed=seed)

    end = time.monotonic() + 60
    while True:
        try:
            get_json(fed_url + "/api/rules/1/")
            break
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)

    # 1. the day's backlog, the link down (no sender running, nothing sent)
    t = time.perf_counter()
    for i in range(args.matches):
        table = f"Mesa {i % args.tables + 1}"
        m, events = match_at(table, f"Jogador {2 * i:02d}", f"Jogador {2 * i + 1:02d}", seed=i)
        for seq, e in enumerate(events):
            log.append_event(m.pk, e, expected_seq=seq)
    events = Event.objects.count()
    records = OutboxRecord.objects.filter(delivered_at__isnull=True).count()
    print(f"backlog: {args.matches} matches on {args.tables} tables, {events} events, {records} outbox records "
          f"(played in {time.perf_counter() - t:.1f} s)", flush=True)

    # the link is back
    t = time.perf_counter()
    delivered = sync.sync(max_seconds=3600)
    took = time.perf_counter() - t
    left = OutboxRecord.objects.filter(delivered_at__isnull=True).count()
    batches = -(-records // 200)
    print(f"catch-up: {delivered} records in {took:.1f} s ({delivered / took:.0f} records/s, "
          f"{batches} batches of <= 200, {took / batches * 1000:.0f} ms a batch), {left} left", flush=True)
    found = get_json(fed_url + "/api/players/?q=" + urllib.parse.quote("Jogador 00"))
    assert found, "the federation has no copy of the day's players"

    # 2. online: the sender in the background, as in the served app
    sync.start_background(poll=1.0)
    lags = []
    for k in range(args.online):
        a, b = f"Online {k} A", f"Online {k} B"
        m, events = match_at("Mesa 1", a, b, seed=1000 + k)
        for seq, e in enumerate(events[:-1]):
            log.append_event(m.pk, e, expected_seq=seq)
        wait_until = time.monotonic() + 60  # all but the last tap at the federation already
        while OutboxRecord.objects.filter(delivered_at__isnull=True).exists():
            if time.monotonic() > wait_until:
                raise TimeoutError("the background sender did not empty the outbox in 60 s")
            time.sleep(0.02)
        change = log.append_event(m.pk, events[-1], expected_seq=len(events) - 1)
        winner = a if change.state["match_winner"] == 0 else b
        t = time.perf_counter()
        pid = None
        while True:
            if pid is None:
                got = get_json(fed_url + "/api/players/?q=" + urllib.parse.quote(winner))
                pid = got[0]["id"] if got else None
            if pid is not None and get_json(f"{fed_url}/api/players/{pid}/career/")["total"]["won"] == 1:
                break
            if time.perf_counter() - t > 60:
                raise TimeoutError("the result did not reach the federation's career in 60 s")
            time.sleep(0.02)
        lags.append((time.perf_counter() - t) * 1000)
        with urllib.request.urlopen(f"{fed_url}/players/{pid}/", timeout=10) as r:  # noqa: S310
            page = r.read().decode()
        assert winner in page
    print(f"online: last tap -> the winner's career at the federation: p50 {statistics.median(lags):.0f} ms, "
          f"max {max(lags):.0f} ms over {len(lags)} matches ({', '.join(f'{x:.0f}' for x in lags)})", flush=True)


if __name__ == "__main__":
    main()
