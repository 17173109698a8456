"""Benchmark: a room of screens loading a match's TV page at each new seq, on two workers.

Starts the app as in production (two Daphne workers under ``scripts/serve.py`` on one address,
a fresh PostgreSQL database, a private Redis; ``tests/web/live_harness.py``), with
``SINUCA_LIVE_STATS=1`` so each worker tells how many page kinds it has drawn (``/api/live/``).
Each round: one tap on a match (a new seq), then ``--loads`` TV loads at once, each on a new
connection (the kernel spreads them over the workers). Both workers are warmed first.

It prints, over ``--rounds`` rounds: the live parts drawn per round summed over the workers
(the target: 1, the first load of a seq draws it for the deployment; one per worker that got a
load before the shared cache held the text), how the loads fell on the workers, and the loads'
times (p50/p99/max); the load average before and after.

Run: .venv/bin/python bench/first_render.py [--rounds 20] [--loads 16]
"""
from __future__ import annotations

import argparse
import asyncio
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests" / "web"))

import httpx  # noqa: E402

import live_harness  # noqa: E402
from flood import loadavg, ms  # noqa: E402


async def each_worker(base: str) -> dict[int, dict]:
    """pid -> ``/api/live/`` of both workers, asked on new connections until both answered."""
    seen: dict[int, dict] = {}
    for _ in range(400):
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            stats = (await http.get("/api/live/")).json()
        seen[stats["pid"]] = stats
        if len(seen) == 2:
            return seen
    raise RuntimeError("one worker answered every connection")


async def run(app: live_harness.App, rounds: int, loads: int) -> dict:
    base, match = app.base, app.create_match("Ana", "Bia")
    headers = {"Authorization": f"Bearer {match['referee_token']}"}
    for _ in range(8):  # warm both workers: their first render and template compile are not measured
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            await http.get(f"/matches/{app.match}/tv/")
    drawn, spread, times, seq = [], [], [], 0
    async with httpx.AsyncClient(base_url=base, timeout=30) as tablet:
        for _ in range(rounds):
            r = await tablet.post(f"/api/matches/{match['match']}/events/", headers=headers,
                                  json={"event": {"type": "no_pot"}, "expected_seq": seq})
            assert r.status_code == 201, r.text
            seq = r.json()["seq"]
            before = await each_worker(base)

            async def load() -> str:
                t0 = time.monotonic()
                async with httpx.AsyncClient(base_url=base, timeout=30) as http:
                    r = await http.get(f"/matches/{match['match']}/tv/")
                times.append(time.monotonic() - t0)
                assert r.status_code == 200 and f'data-seq="{seq}"' in r.text, r.status_code
                return r.text

            await asyncio.gather(*[load() for _ in range(loads)])
            after = await each_worker(base)
            per = sorted(after[p]["views_rendered"] - before[p]["views_rendered"] for p in after)
            drawn.append(sum(per))
            spread.append(per)
    return {"drawn": drawn, "spread": spread, "times": times}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--loads", type=int, default=16)
    a = ap.parse_args()
    redis = live_harness.PrivateRedis()
    try:
        app = live_harness.App(redis.url, workers=2, env={"SINUCA_LIVE_STATS": "1"})
        try:
            before = loadavg()
            out = asyncio.run(run(app, a.rounds, a.loads))
        finally:
            app.stop()
    finally:
        redis.stop()
    d = out["drawn"]
    print(f"{a.rounds} rounds of 1 tap + {a.loads} TV loads at once on 2 workers "
          f"(load average {before} -> {loadavg()})")
    print(f"  live parts drawn per round, both workers: mean {sum(d) / len(d):.2f}, "
          f"min {min(d)}, max {max(d)} (rounds drawn once: {d.count(1)}/{len(d)})")
    print(f"  per worker, each round: {out['spread']}")
    print(f"  TV loads: {ms(out['times'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
