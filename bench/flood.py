"""Benchmark: one match flooded with taps and TV page loads while the referee of *another* match
taps at his pace (issue 15: a flood on one match must never refuse or slow another's referee).

Starts the app as in production (two Daphne workers under ``scripts/serve.py``, a fresh
PostgreSQL database, a private Redis; ``tests/web/live_harness.py``). For each load
``POSTS x GETS`` (default the issue's two: 60 x 20 and 200 x 150) on two new matches:

- the flood: ``POSTS`` concurrent valid taps (``no_pot``, each with its key and the match's
  token) on the flooded match, each sent again with its key after ``Retry-After`` on 429/503 as
  the tablet's queue does, and ``GETS`` concurrent loads of its TV page, all sent at once;
- the other referee: taps on another match through the API at about 5 a second (one keep-alive
  connection, as a tablet), ten alone first, then from the flood's start until it is over; in
  a process of his own, so his times are not those of the flood generator's busy event loop.

Both workers are warmed first (TV pages in both languages, a few taps on a third match).

It prints, per load: the flooded match's taps acknowledged vs stored in its log, their answers
by status code, the time to acknowledge each (p50/p99/max) and its TV loads' answers and times;
the other referee's taps acknowledged vs stored, his refusals, and the time of each of his
POSTs (p50/p99/max) alone and during the flood; the load average before and after.

By default the server side (supervisor, workers, Redis) runs on CPU 0 and the load generator
and the other referee on CPU 1 (``--no-pin``: anywhere), so the generator's own CPU time does not
land on the workers' core. PostgreSQL is the machine's, unpinned.

Run: .venv/bin/python bench/flood.py [--loads 60x20,200x150] [--runs 3] [--no-pin]
     [--profile DIR] (py-spy records both workers during each load into DIR, collapsed stacks;
     with FLOOD_DUMP_AT=2,4 also their threads' stacks 2 and 4 s into the flood)
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import pathlib
import subprocess
import sys
import time
import uuid

HERE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests" / "web"))

import httpx  # noqa: E402

import live_harness  # noqa: E402


def pct(values: list[float], p: float) -> float:
    """The nearest-rank percentile ``p`` (0-100) of ``values`` (nan when empty)."""
    s = sorted(values)
    return s[max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))] if s else float("nan")


def ms(values: list[float]) -> str:
    return (f"p50 {pct(values, 50) * 1000:.0f} ms, p99 {pct(values, 99) * 1000:.0f} ms, "
            f"max {max(values, default=float('nan')) * 1000:.0f} ms")


def count(d: dict, k) -> None:
    d[k] = d.get(k, 0) + 1


def loadavg() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def pin_all(pid: int, cpus: set[int]) -> None:
    """Every thread of ``pid`` (and its children's) on ``cpus``."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:
            pass
    try:
        children = open(f"/proc/{pid}/task/{pid}/children").read().split()
    except OSError:
        children = []
    for c in children:
        pin_all(int(c), cpus)


def other_referee(base: str, match: int, token: str, pipe, cpus: set[int] | None) -> None:
    """The referee of another match (a process of its own): ten taps alone, reported; then, from
    "go" until "stop" (and at least ten), taps at about 5 a second through one keep-alive
    connection as a tablet, each ``no_pot`` with a new key and its ``expected_seq``, a refused
    one sent again with the same key. Reports each POST's time and answer."""
    if cpus:
        os.sched_setaffinity(0, cpus)

    async def run() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        acked: dict[int, dict] = {}
        seq = 0
        async with httpx.AsyncClient(base_url=base, timeout=60) as tablet:
            async def tap(spans, timeline, refused, t_start):
                nonlocal seq
                body = {"event": {"type": "no_pot"}, "key": uuid.uuid4().hex, "expected_seq": seq}
                while True:  # a refused tap is sent again, same key
                    t0 = time.monotonic()
                    try:
                        r = await tablet.post(f"/api/matches/{match}/events/", headers=headers, json=body)
                    except httpx.TransportError as e:
                        count(refused, type(e).__name__)
                        continue
                    spans.append(time.monotonic() - t0)
                    timeline.append((round(t0 - t_start, 2), round(spans[-1], 3)))
                    if r.status_code == 201:
                        break
                    count(refused, r.status_code)
                    await asyncio.sleep(0.2)
                seq = r.json()["seq"]
                acked[seq] = body["event"]
                await asyncio.sleep(max(0.0, 0.2 - spans[-1]))  # a referee's pace: ~5 taps a second

            alone, refused_alone = [], {}
            for _ in range(10):
                await tap(alone, [], refused_alone, time.monotonic())
            pipe.send({"alone": ms(alone), "refused": refused_alone})
            assert pipe.recv() == "go"
            spans, timeline, refused = [], [], {}
            t_start = time.monotonic()
            while not (pipe.poll() and len(spans) >= 10):
                await tap(spans, timeline, refused, t_start)
            pipe.recv()
            pipe.send({"taps": len(acked) - 10, "posts": len(spans),
                       "acknowledged": len(acked), "acked": acked,
                       "refusals": sum(refused.values()), "refused": refused, "during": ms(spans),
                       "p50_ms": round(pct(spans, 50) * 1000), "p99_ms": round(pct(spans, 99) * 1000),
                       "max_ms": round(max(spans) * 1000),
                       "slowest": sorted(timeline, key=lambda x: -x[1])[:5]})

    asyncio.run(run())


async def dump_at(app: live_harness.App, when: float, folder: pathlib.Path, tag: str) -> None:
    """``py-spy dump`` of each worker's threads at ``when`` (time.monotonic), into ``folder``."""
    await asyncio.sleep(max(0.0, when - time.monotonic()))
    for i, pid in app.worker_pids().items():
        p = await asyncio.create_subprocess_exec("py-spy", "dump", "--nonblocking", "--pid", str(pid),
                                                 stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await p.communicate()
        (folder / f"dump-{tag}-{when:.1f}-worker{i}.txt").write_bytes(out)


def stored(base: str, match: int) -> list[dict]:
    events, url = [], f"/api/matches/{match}/events/"
    while url:
        page = httpx.get(base + url, timeout=60).json()
        events += page["events"]
        url = page.get("next")
    return events


async def one_load(app: live_harness.App, posts: int, gets: int, profile: str | None,
                   pinned_cpus: set[int] | None) -> dict:
    flooded, other = app.create_match("Ana", "Bia"), app.create_match("Caio", "Duda")
    fm, om = flooded["match"], other["match"]
    flood_headers = {"Authorization": f"Bearer {flooded['referee_token']}"}
    deadline = time.monotonic() + 300
    codes: dict = {}
    acked: dict[str, int] = {}
    ack_time: list[float] = []
    tv_codes: dict = {}
    tv_time: list[float] = []
    limits = httpx.Limits(max_connections=posts + gets + 10, max_keepalive_connections=0)

    async with httpx.AsyncClient(base_url=app.base, timeout=30, limits=limits) as http:
        # warm both workers (each new connection may land on either): their first page render,
        # first tap, first import of a module are not what is measured
        warm = {"Authorization": f"Bearer {app.token}"}
        for lang in ("pt-br", "en"):
            await asyncio.gather(*[http.get(f"/matches/{app.match}/tv/?lang={lang}") for _ in range(8)])
        for _ in range(8):
            await http.post(f"/api/matches/{app.match}/events/", json={"event": {"type": "no_pot"}}, headers=warm)

        async def flood_tap(i: int) -> None:
            body = {"event": {"type": "no_pot"}, "key": f"flood-{i}"}
            t0 = time.monotonic()
            while time.monotonic() < deadline:
                try:
                    r = await http.post(f"/api/matches/{fm}/events/", json=body, headers=flood_headers)
                except httpx.TransportError as e:
                    count(codes, type(e).__name__)
                    await asyncio.sleep(0.2)
                    continue
                count(codes, r.status_code)
                if r.status_code == 201:
                    acked[body["key"]] = r.json()["seq"]
                    ack_time.append(time.monotonic() - t0)
                    return
                if r.status_code not in (429, 503):
                    return
                await asyncio.sleep(float(r.headers.get("Retry-After", "1")))  # as the tablet's queue

        async def tv_load() -> None:
            t0 = time.monotonic()
            try:
                r = await http.get(f"/matches/{fm}/tv/")
                count(tv_codes, r.status_code)
            except httpx.TransportError as e:
                count(tv_codes, type(e).__name__)
            tv_time.append(time.monotonic() - t0)

        async def flood() -> None:
            await asyncio.gather(*[flood_tap(i) for i in range(posts)], *[tv_load() for _ in range(gets)])

        # the other referee in a process of his own: his POSTs are timed by an event loop that
        # has nothing else to do, not behind the flood's 350 connections in this one
        ctx = multiprocessing.get_context("spawn")
        here, there = ctx.Pipe()
        ref = ctx.Process(target=other_referee, args=(app.base, om, other["referee_token"], there, pinned_cpus))
        ref.start()
        alone_report = here.recv()  # his ten taps alone
        spy = []
        if profile:
            for i, pid in app.worker_pids().items():
                out = pathlib.Path(profile) / f"flood-{posts}x{gets}-worker{i}-{int(time.time())}.txt"
                # collapsed stacks (one line per stack and its samples) of the threads on the CPU
                spy.append(subprocess.Popen(["py-spy", "record", "-p", str(pid), "-o", str(out), "-r", "100",
                                             "--nonblocking", "--threads", "-f", "raw"],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        before = loadavg()
        here.send("go")
        t0 = time.monotonic()
        dumps = [asyncio.ensure_future(dump_at(app, t0 + float(at), pathlib.Path(profile), f"{posts}x{gets}"))
                 for at in os.environ.get("FLOOD_DUMP_AT", "").split(",") if at and profile]
        await flood()
        await asyncio.gather(*dumps)
        wall = time.monotonic() - t0
        here.send("stop")
        report = here.recv()
        ref.join(30)
        for p in spy:
            p.send_signal(2)  # SIGINT: py-spy writes its stacks
        for p in spy:
            p.wait(60)
    flood_log = stored(app.base, fm)
    other_log = stored(app.base, om)
    return {
        "load": f"{posts} POSTs + {gets} GETs", "wall_s": round(wall, 1), "loadavg": [before, loadavg()],
        "flooded": {"acknowledged": len(acked), "stored": len(flood_log),
                    # each acknowledged key at a seq of its own, and nothing else in the log
                    "stored_once": sorted(acked.values()) == [e["seq"] for e in flood_log],
                    "answers": codes, "ack_time": ms(ack_time), "tv_answers": tv_codes, "tv_time": ms(tv_time)},
        "other": {**report, "alone": alone_report["alone"], "refused_alone": alone_report["refused"],
                  "stored": len(other_log),
                  "same_log": {e["seq"]: e["event"] for e in other_log} == {int(k): v for k, v in report["acked"].items()}},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", default="60x20,200x150", help="POSTSxGETS, comma-separated")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--no-pin", dest="pin", action="store_false")
    ap.add_argument("--profile", help="a folder for py-spy's flame graphs of the workers")
    ap.add_argument("--env", action="append", default=[], help="NAME=value for the workers (repeatable)")
    a = ap.parse_args()
    loads = [tuple(int(x) for x in spec.split("x")) for spec in a.loads.split(",")]
    ncpu = os.cpu_count() or 1
    pinned = a.pin and ncpu >= 2
    mine = os.sched_getaffinity(0)
    for run in range(1, a.runs + 1):
        if pinned:
            os.sched_setaffinity(0, {0})  # what starts now (Redis, the supervisor, workers) inherits CPU 0
        redis = live_harness.PrivateRedis()
        app = live_harness.App(redis.url, workers=2, env=dict(e.split("=", 1) for e in a.env))
        try:
            if pinned:
                pin_all(app.proc.pid, {0})
                pin_all(redis.proc.pid, {0})
                os.sched_setaffinity(0, set(range(1, ncpu)))  # the load generator: the other CPU(s)
            for posts, gets in loads:
                out = asyncio.run(one_load(app, posts, gets, a.profile,
                                           set(range(1, ncpu)) if pinned else None))
                out["run"], out["pinned"] = run, pinned
                f, o = out["flooded"], out["other"]
                print(f"\nrun {run}, {out['load']} on match 1 ({out['wall_s']} s; load average "
                      f"{out['loadavg'][0]} -> {out['loadavg'][1]}{'; workers on CPU 0, client on CPU 1' if pinned else ''})")
                print(f"  flooded match: {f['acknowledged']} acknowledged, {f['stored']} stored "
                      f"(each once: {f['stored_once']}); answers {f['answers']}; time to acknowledge {f['ack_time']}")
                print(f"  its TV loads: {f['tv_answers']}; {f['tv_time']}")
                print(f"  other referee: {o['taps']} taps during the flood ({o['posts']} POSTs), {o['acknowledged']} "
                      f"acknowledged in all with 10 alone, {o['stored']} stored (same log: {o['same_log']}); refusals "
                      f"{o['refusals']} {o['refused']}; {o['during']} (alone: {o['alone']}); slowest "
                      f"(sent at s, took s): {o['slowest']}")
                print("  json " + json.dumps(out, ensure_ascii=False))
                sys.stdout.flush()
        finally:
            os.sched_setaffinity(0, mine)
            app.stop()
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
