"""Benchmark: the referee's tap while anonymous clients hammer the reports, and the memory a
worker holds after serving PDFs (issue findings 1, 5 and 13).

Starts the app as in production (two Daphne workers under ``scripts/serve.py``, a fresh
PostgreSQL database, a private Redis; ``tests/web/live_harness.py``), imports a long match
(~3,200 events, ``bench/long_match.py``, cut where a frame is in play so taps stay legal) and
gives it a referee token. Then it prints:

- the import's time (``manage.py importmatch``);
- a referee POST's p50/p90 idle, then while 8 clients download the match's súmula PDF in a loop
  (each tap changes the seq, so the PDF cache cannot help: this is the worst case);
- the PDF clients' answers (200 / 429 rate-limited / 503 busy) and their time;
- each worker's RSS (now and peak, /proc VmRSS / VmHWM) and its render processes' after 100
  more PDF requests;
- the statistics page and a page of ``/events/``.

Run: .venv/bin/python bench/reports_load.py [--root DIR] [--taps 40] [--rate 100000/m]
(``--root`` runs another checkout of the project, e.g. the code before these changes.)
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests" / "web"))
sys.path.insert(0, str(HERE / "bench"))

import httpx  # noqa: E402

import live_harness  # noqa: E402
from long_match import long_match_document  # noqa: E402
from sinuca import Match  # noqa: E402


def in_play_prefix(doc: dict) -> dict:
    """The longest prefix of the log after which a frame is in play (taps of no_pot are legal)."""
    events = doc["events"]
    m = Match(doc["config"])
    last = 0
    for i, ev in enumerate(events):
        m.apply(ev)
        if m.state()["phase"] == "play":
            last = i + 1
    return {"config": doc["config"], "events": events[:last]}


def rss(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in MB."""
    vals = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                k, v = line.split(":")
                vals[k] = int(v.split()[0]) // 1024
    return vals["VmRSS"], vals["VmHWM"]


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (its PDF render processes), minus the multiprocessing
    resource tracker."""
    out = []
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return [c for c in out if b"resource_tracker" not in pathlib.Path(f"/proc/{c}/cmdline").read_bytes()]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


async def taps(http: httpx.AsyncClient, url: str, token: str, n: int, tag: str) -> list[float]:
    times = []
    for i in range(n):
        t = time.perf_counter()
        r = await http.post(url, headers={"Authorization": f"Bearer {token}"},
                            json={"event": {"type": "no_pot"}, "key": f"{tag}-{i}"})
        times.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 201, (r.status_code, r.text[:200])
        await asyncio.sleep(0.1)  # a referee taps every few seconds; this is already fast
    return times


async def hammer(http: httpx.AsyncClient, url: str, stop: asyncio.Event, codes: dict, times: list,
                 limit: int | None = None) -> None:
    n = 0
    while not stop.is_set() and (limit is None or n < limit):
        t = time.perf_counter()
        try:
            r = await http.get(url)
            codes[r.status_code] = codes.get(r.status_code, 0) + 1
            if r.status_code == 200:
                times.append((time.perf_counter() - t) * 1000)
            elif r.status_code in (429, 503):
                await asyncio.sleep(0.2)
        except httpx.TransportError as e:
            codes[type(e).__name__] = codes.get(type(e).__name__, 0) + 1
        n += 1


async def main_async(a) -> None:
    live_harness.ROOT = pathlib.Path(a.root).resolve()
    os.environ["REPORT_RATE"] = a.rate
    redis = live_harness.PrivateRedis()
    app = None
    try:
        app = live_harness.App(redis.url, workers=2)
        doc = in_play_prefix(long_match_document())
        path = pathlib.Path(tempfile.mktemp(suffix=".json"))
        path.write_text(json.dumps(doc))
        t = time.perf_counter()
        out = app.manage("importmatch", str(path))
        took = time.perf_counter() - t
        mid = json.loads(out.strip().splitlines()[-1])["match"]
        path.unlink()
        print(f"import: {len(doc['events'])} events in {took:.1f} s (manage.py importmatch, incl. start-up)")
        token = app.manage("shell", "-c", "from scoreboard.core.models import Match, RefereeCredential; "
                           f"print(RefereeCredential.issue(Match.objects.get(pk={mid}))[1])").strip().splitlines()[-1]
        pids = app.worker_pids()
        print("workers at start: " + ", ".join(f"{rss(p)[0]} MB" for p in pids.values()))
        events_url = f"/api/matches/{mid}/events/"
        pdf_url = f"/matches/{mid}/sumula.pdf"
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=app.base, timeout=120, limits=limits) as http:
            for label, url in (("statistics page", f"/matches/{mid}/"), ("/events/ (first page)", events_url),
                               ("sumula.pdf", pdf_url)):
                t = time.perf_counter()
                r = await http.get(url)
                cold = (time.perf_counter() - t) * 1000
                t = time.perf_counter()
                r2 = await http.get(url)
                warm = (time.perf_counter() - t) * 1000
                print(f"{label:24s} cold {cold:7.0f} ms, again {warm:6.0f} ms, {len(r.content) // 1024} KB "
                      f"({r.status_code}/{r2.status_code})")
            idle = await taps(http, events_url, token, a.taps, "idle")
            print(f"referee POST idle:             p50 {statistics.median(idle):6.0f} ms  p90 {pct(idle, .9):6.0f} ms")
            stop, codes, pdf_times = asyncio.Event(), {}, []
            clients = [asyncio.ensure_future(hammer(http, pdf_url, stop, codes, pdf_times)) for _ in range(8)]
            await asyncio.sleep(1)
            busy = await taps(http, events_url, token, a.taps, "busy")
            stop.set()
            await asyncio.gather(*clients)
            print(f"referee POST with 8 PDF clients: p50 {statistics.median(busy):6.0f} ms  p90 {pct(busy, .9):6.0f} ms")
            print(f"PDF answers meanwhile: {dict(sorted(codes.items(), key=str))}; 200s p50 "
                  f"{statistics.median(pdf_times) if pdf_times else 0:.0f} ms")
            # 100 PDF requests, 8 at a time, with a tap every 10 so some must be rendered again.
            codes2, times2 = {}, []
            stop2 = asyncio.Event()
            tapper = asyncio.ensure_future(taps(http, events_url, token, 10, "mem"))
            await asyncio.gather(*[hammer(http, pdf_url, stop2, codes2, times2, limit=13) for _ in range(8)])
            await tapper
            print(f"after {sum(v for v in codes2.values() if isinstance(v, int))} more PDF requests "
                  f"({dict(sorted(codes2.items(), key=str))}):")
            for i, p in sorted(app.worker_pids().items()):
                now, peak = rss(p)
                kids = ", ".join(f"{rss(c)[0]} MB (peak {rss(c)[1]})" for c in children(p)) or "none"
                print(f"  worker {i}: RSS {now} MB, peak {peak} MB; its render processes: {kids}")
    finally:
        if app is not None:
            app.stop()
        redis.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(HERE), help="the project checkout to serve")
    ap.add_argument("--taps", type=int, default=40)
    ap.add_argument("--rate", default="100000/m", help="REPORT_RATE for the run (the limit is per address; "
                    "every client here is 127.0.0.1)")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
