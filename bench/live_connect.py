"""Benchmark: spectators connecting, in a burst and beside one greedy client.

Starts the production server (``scripts/serve.py``: two Daphne workers, PostgreSQL and Redis),
creates a match, then:

- **burst**: ``--burst`` spectators (from 40 loopback addresses, 127.0.0.2-41, as different
  phones would be) start connecting within one second to the JSON feed; prints each one's
  time-to-first-state (connect started -> the state on connect arrived) p50 / p99 / max, how many
  got none within ``--wait`` seconds, and the kernel's ``TcpExtListenOverflows`` delta (accept
  queue full: connections dropped until the client retries, a second or more later; the counter
  is machine-wide, so other work on the machine adds to it);
- **flood**: one client (127.0.0.1) opens ``--flood`` sockets as fast as it can while a spectator
  from another address (127.0.0.250) connects once every 0.2 s; prints the spectator's
  time-to-first-state and how the flood's sockets ended (state / closed 4429 by the per-client
  cap / failed).

Run: .venv/bin/python bench/live_connect.py [--burst 2000] [--flood 4000] [--workers 2]
Needs PostgreSQL (127.0.0.1:5432, user postgres) and Redis (``BENCH_REDIS_URL``, default
redis://127.0.0.1:6379/3; channel prefix ``CHANNEL_PREFIX`` or a fresh one).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
import uuid

import httpx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from live_fanout import fresh_pg_database, free_port, pct  # noqa: E402
from wsclient import Feed  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
PY = sys.executable


def overflows() -> int:
    out = subprocess.run(["nstat", "-az", "TcpExtListenOverflows"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("TcpExtListenOverflows"):
            return int(line.split()[1])
    return -1


class Server:
    """scripts/serve.py with ``workers`` workers on a fresh PostgreSQL database and Redis."""

    def __init__(self, workers: int) -> None:
        self.tmp = tempfile.mkdtemp(prefix="bench-connect-")
        self.db = fresh_pg_database("sinuca_bench")
        self.env = dict(os.environ, DJANGO_DEBUG="0", DATABASE_URL=self.db,
                        REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3"),
                        CHANNEL_PREFIX=os.environ.get("CHANNEL_PREFIX", "bench" + uuid.uuid4().hex[:6]),
                        DJANGO_SECRET_KEY="bench-" + uuid.uuid4().hex,
                        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost")
        for args in (("migrate", "--noinput"), ("collectstatic", "--noinput")):
            subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=self.env, check=True, capture_output=True)
        out = subprocess.run([PY, "manage.py", "creatematch", "--player-a", "Ana", "--player-b", "Bia",
                              "--first-breaker", "0"], cwd=ROOT, env=self.env, check=True,
                             capture_output=True, text=True).stdout
        self.match = json.loads(out.strip().splitlines()[-1])["match"]
        self.port = free_port()
        self.log = open(f"{self.tmp}/serve.log", "w")
        self.proc = subprocess.Popen([PY, "scripts/serve.py", "--workers", str(workers), "--bind",
                                      f"127.0.0.1:{self.port}"], cwd=ROOT, env=self.env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/api/matches/{self.match}/", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        time.sleep(1.0)  # every worker up

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
        import psycopg
        with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f'drop database if exists "{self.db.rsplit("/", 1)[1]}" with (force)')


async def one(port: int, path: str, source: str, wait: float) -> tuple[float | None, Feed]:
    """Connect from ``source``; seconds until the first message, or None."""
    loop = asyncio.get_running_loop()
    feed = Feed(f"127.0.0.1:{port}", path)
    t0 = time.perf_counter()
    try:
        await asyncio.wait_for(loop.create_connection(lambda: feed, "127.0.0.1", port,
                                                      local_addr=(source, 0)), wait)
        t = await asyncio.wait_for(feed.first, max(0.01, wait - (time.perf_counter() - t0)))
        return t - t0, feed
    except (OSError, ConnectionError, asyncio.TimeoutError):
        return None, feed


def close_all(feeds: list[Feed]) -> None:
    for f in feeds:
        if f.tr is not None:
            f.tr.abort()


async def burst(srv: Server, n: int, wait: float) -> None:
    path = f"/ws/matches/{srv.match}/feed/"
    before = overflows()

    async def later(i: int):
        await asyncio.sleep(i / n)  # n connects spread over one second
        return await one(srv.port, path, f"127.0.0.{2 + i % 40}", wait)

    got = await asyncio.gather(*(later(i) for i in range(n)))
    delta = overflows() - before
    times = [t * 1000 for t, _ in got if t is not None]
    print(f"burst: {n} spectators within 1 s on 2 workers: first state p50 {pct(times, 50):.0f} ms, "
          f"p99 {pct(times, 99):.0f} ms, max {max(times) if times else float('nan'):.0f} ms; "
          f"{n - len(times)} without a state within {wait:.0f} s; TcpExtListenOverflows +{delta}")
    close_all([f for _, f in got])


async def flood(srv: Server, n: int, wait: float) -> None:
    path = f"/ws/matches/{srv.match}/feed/"
    greedy = [asyncio.ensure_future(one(srv.port, path, "127.0.0.1", wait)) for _ in range(n)]
    spectator: list[float] = []
    for _ in range(int(wait / 0.2)):
        t, feed = await one(srv.port, path, "127.0.0.250", wait)
        if t is not None:
            spectator.append(t * 1000)
        close_all([feed])
        if all(g.done() for g in greedy):
            break
        await asyncio.sleep(0.2)
    got = await asyncio.gather(*greedy)
    state = sum(1 for t, _ in got if t is not None)
    refused = sum(1 for t, f in got if t is None and f.closed.done() and f.status and " 101 " in f.status + " ")
    sp = spectator or [float("nan")]
    print(f"flood: one client opening {n} sockets: it got {state} states, {refused} closed (4429), "
          f"{n - state - refused} failed; meanwhile a spectator from another address connected "
          f"{len(spectator)} times: first state p50 {pct(sp, 50):.0f} ms, max {max(sp):.0f} ms")
    close_all([f for _, f in got])


async def main_async(a) -> None:
    srv = Server(a.workers)
    try:
        if a.burst:
            await burst(srv, a.burst, a.wait)
            await asyncio.sleep(2)
        if a.flood:
            await flood(srv, a.flood, a.wait)
    finally:
        srv.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--burst", type=int, default=2000)
    ap.add_argument("--flood", type=int, default=4000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--wait", type=float, default=15.0, help="seconds a socket waits for its state")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
