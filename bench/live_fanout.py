"""Benchmark: tap-to-screen latency of the live path, beside a bare-broadcaster floor.

For each server set-up and each number of spectator sockets it starts the app (Daphne workers),
creates a match, connects the sockets to the JSON feed (split evenly over the workers), posts a
15-red frame's events through the API one every ``--pace`` seconds, and prints:

- tap-to-screen latency (POST sent -> message received, every socket): p50 / p99 / max;
- POST latency p50 / p99 with the sockets connected; messages lost;
- memory per idle socket (workers' resident memory before and after the sockets connected);
- renders: how many times a change was rendered (once per change, not per socket) and how
  many websocket frames were built from them;
- the floor: the same client and taps against a bare aiohttp broadcaster that sends one
  pre-encoded string to every socket (no database, auth or render), and the ratio to it.

Set-ups: ``memory:1`` (in-memory layer, SQLite, one worker), ``redis:1`` and ``redis:2``
(Redis channel layer, PostgreSQL, one or two workers). The client and the servers share the
machine's cores, as in production tests on one box.

Run: .venv/bin/python bench/live_fanout.py [--sockets 100,1000,5000] [--setups memory:1,redis:1,redis:2]
Needs Redis (127.0.0.1:6379) and PostgreSQL (127.0.0.1:5432, user postgres) for the redis set-ups.
"""
from __future__ import annotations

import argparse
import asyncio
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
import uuid

import httpx

from sinuca.simulate import DEMO_FRAME

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from wsclient import open_feed  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
PY = sys.executable
FLOOR_SERVER = ROOT / "bench" / "floor_server.py"
"""The bare aiohttp broadcaster the app is compared with (``floor_server.py``, beside this file)."""
PG = "postgres://postgres@127.0.0.1:5432/"
FRAME = DEMO_FRAME  # a 15-red frame: free ball, retorno, undo; ends on the 6 and the 7


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fresh_pg_database(name: str) -> str:
    import psycopg
    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres", autocommit=True) as c:
        c.execute(f'drop database if exists "{name}" with (force)')
        c.execute(f'create database "{name}"')
    return PG + name


class Servers:
    """Daphne workers of the app for one set-up, each on its own port."""

    def __init__(self, layer: str, workers: int, tmp: str) -> None:
        env = dict(os.environ, DJANGO_DEBUG="0", SINUCA_LIVE_STATS="1",
                   DJANGO_SECRET_KEY="bench-" + uuid.uuid4().hex, DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
                   LIVE_SOCKETS_PER_CLIENT="0")  # every spectator here comes from 127.0.0.1
        env.pop("REDIS_URL", None)
        if layer == "memory":
            env["DATABASE_URL"] = f"sqlite:///{tmp}/db.sqlite3"
        else:
            env["DATABASE_URL"] = fresh_pg_database("sinuca_bench")
            env["REDIS_URL"] = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3")
        self.env = env
        run = lambda *a: subprocess.run([PY, "manage.py", *a], cwd=ROOT, env=env, check=True,  # noqa: E731
                                        capture_output=True, text=True)
        run("migrate", "--noinput")
        run("collectstatic", "--noinput")
        out = run("creatematch", "--player-a", "Ana", "--player-b", "Bia", "--first-breaker", "0").stdout
        created = json.loads(out.strip().splitlines()[-1])
        self.match, self.token = created["match"], created["referee_token"]
        self.ports = [free_port() for _ in range(workers)]
        self.log = open(f"{tmp}/daphne.log", "w")
        self.procs = [subprocess.Popen([PY, "-m", "daphne", "-b", "127.0.0.1", "-p", str(p),
                                        "scoreboard.asgi:application"], cwd=ROOT, env=env,
                                       stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
                      for p in self.ports]
        for p in self.ports:
            for _ in range(150):
                try:
                    httpx.get(f"http://127.0.0.1:{p}/api/live/", timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)

    def stats(self) -> list[dict]:
        return [httpx.get(f"http://127.0.0.1:{p}/api/live/", timeout=10).json() for p in self.ports]

    def stop(self) -> None:
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(p.pid, signal.SIGKILL)


async def connect_all(n: int, ports: list[int], path: str) -> list:
    sem = asyncio.Semaphore(200)  # a bounded connect burst, as a room of screens would be

    async def one(i: int):
        async with sem:
            return await open_feed("127.0.0.1", ports[i % len(ports)], path)
    return await asyncio.gather(*(one(i) for i in range(n)))


async def post_frame(base: str, mid, token: str | None, pace: float) -> tuple[dict, list[float]]:
    post_at, post_lat = {}, []
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for ev in FRAME:
            t0 = time.perf_counter()
            r = await http.post(f"/api/matches/{mid}/events/", json={"event": ev}, headers=headers)
            post_lat.append(time.perf_counter() - t0)
            if r.status_code != 201:
                raise RuntimeError(f"POST {ev}: {r.status_code} {r.text[:200]}")
            post_at[r.json()["seq"]] = t0
            await asyncio.sleep(pace)
    return post_at, post_lat


def latencies(feeds: list, post_at: dict) -> tuple[list[float], int]:
    lat, lost = [], 0
    for f in feeds:
        got = {}
        for t, raw in f.msgs:
            got.setdefault(json.loads(raw).get("seq"), t)
        for seq, t0 in post_at.items():
            if seq in got:
                lat.append(got[seq] - t0)
            else:
                lost += 1
    return lat, lost


async def wait_delivered(feeds: list, count: int, timeout: float = 15) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and not all(len(f.msgs) > count for f in feeds):
        await asyncio.sleep(0.1)


async def run_app(setup: str, n: int, pace: float) -> dict:
    layer, workers = setup.split(":")
    tmp = tempfile.mkdtemp(prefix="bench-live-")
    srv = Servers(layer, int(workers), tmp)
    try:
        before = sum(rss_kb(p.pid) for p in srv.procs)
        feeds = await connect_all(n, srv.ports, f"/ws/matches/{srv.match}/feed/")
        await asyncio.sleep(1.0)
        after = sum(rss_kb(p.pid) for p in srv.procs)
        post_at, post_lat = await post_frame(f"http://127.0.0.1:{srv.ports[0]}", srv.match, srv.token, pace)
        await wait_delivered(feeds, len(post_at))
        lat, lost = latencies(feeds, post_at)
        stats = srv.stats()
        for f in feeds:
            f.tr.close()
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return {"lat": lat, "lost": lost, "post": post_lat, "kb_per_socket": (after - before) / n,
            "renders": sum(s["renders"] for s in stats), "frames": sum(s["frames_built"] for s in stats),
            "sends": sum(s["sends"] for s in stats), "events": len(post_at)}


async def run_floor(n: int, pace: float, floor_server: str) -> dict:
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="bench-floor-")
    proc = subprocess.Popen([PY, floor_server, str(port)], stdout=open(f"{tmp}/floor.log", "w"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(100):
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/matches/1/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        feeds = await connect_all(n, [port], "/ws/matches/1/feed/")
        await asyncio.sleep(1.0)
        post_at, post_lat = await post_frame(f"http://127.0.0.1:{port}", 1, None, pace)
        await wait_delivered(feeds, len(post_at))
        lat, lost = latencies(feeds, post_at)
        for f in feeds:
            f.tr.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
    return {"lat": lat, "lost": lost, "post": post_lat}


def line(label: str, r: dict) -> str:
    ms = lambda x: x * 1000  # noqa: E731
    s = (f"{label:22s} p50 {ms(statistics.median(r['lat'])):6.1f} ms  p99 {ms(pct(r['lat'], 99)):6.1f} ms  "
         f"max {ms(max(r['lat'])):6.1f} ms | POST p50 {ms(statistics.median(r['post'])):5.1f} "
         f"p99 {ms(pct(r['post'], 99)):5.1f} ms | lost {r['lost']}")
    if "renders" in r:
        s += (f" | {r['kb_per_socket']:.0f} KB/idle socket | renders {r['renders']} for {r['events']} "
              f"changes, {r['frames']} frames built, {r['sends']} socket writes")
    return s


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sockets", default="100,1000,5000")
    ap.add_argument("--setups", default="memory:1,redis:1,redis:2")
    ap.add_argument("--pace", type=float, default=0.1)
    ap.add_argument("--floor-server", default=str(FLOOR_SERVER), help="'' to skip the floor")
    a = ap.parse_args()
    for n in [int(x) for x in a.sockets.split(",")]:
        print(f"--- {n} spectator sockets, {len(FRAME)} taps, one every {a.pace * 1000:.0f} ms", flush=True)
        floor = None
        if os.path.exists(a.floor_server):
            floor = await run_floor(n, a.pace, a.floor_server)
            print(line("floor (bare aiohttp)", floor), flush=True)
        for setup in a.setups.split(","):
            r = await run_app(setup, n, a.pace)
            ratio = f"  p99 {pct(r['lat'], 99) / pct(floor['lat'], 99):.2f}x floor" if floor else ""
            print(line(setup, r) + ratio, flush=True)


if __name__ == "__main__":
    asyncio.run(main())
