"""Benchmark: the referee's tap while anonymous clients hammer the reports, and the memory a
worker holds after serving PDFs (issue findings 1, 5 and 13).

Starts the app as in production (two Daphne workers under ``scripts/serve.py``, a fresh
PostgreSQL database, a private Redis; ``tests/web/live_harness.py``), imports a long match
(~3,200 events, ``bench/long_match.py``, cut where a frame is in play so taps stay legal) and
gives it a referee token. Then it prints:

- the import's time (``manage.py importmatch``);
- a referee POST's p50/p90 idle and while 8 clients download the match's súmula PDF in a loop
  (each tap changes the seq, so the PDF cache cannot help: this is the worst case), in
  ``--rounds`` alternations of ``--taps`` taps each, with the ratio of the p50s (busy / idle;
  issue 9 asks for at most 1.5) over all taps and per round: on a shared machine the load of
  others drifts during a run, so each busy phase is compared with the idle phase just before it.
  The PDF clients run in a process of their own;
- the PDF clients' answers (200 / 429 rate-limited / 503 busy) and their time;
- each worker's RSS (now and peak, /proc VmRSS / VmHWM) and its render processes' after 100
  more PDF requests;
- the statistics page and a page of ``/events/``.

Run: .venv/bin/python bench/reports_load.py [--root DIR] [--rounds 8] [--taps 12] [--rate 100000/m]
[--profile DIR] (py-spy, when installed, records the workers during the first busy phase)
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


async def hammer_process(base: str, url: str, clients: int) -> None:
    """``--hammer``: ``clients`` PDF downloaders in this (separate) process, started by a line
    "go" on standard input and stopped by "stop" (then one JSON line ``{"codes", "times"}`` of
    that phase on standard output), until standard input closes. Apart from the tapping client,
    as the spectators' phones are apart from the referee's tablet: in one process their parsing
    of the PDFs would delay the timing of the taps, not the server."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue = asyncio.Queue()
    loop.add_reader(sys.stdin.fileno(), lambda: lines.put_nowait(sys.stdin.readline()))
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=httpx.Limits(max_connections=100)) as http:
        while True:
            line = (await lines.get()).strip()
            if line != "go":
                return
            stop, codes, times = asyncio.Event(), {}, []
            clients_ = [asyncio.ensure_future(hammer(http, url, stop, codes, times)) for _ in range(clients)]
            await lines.get()  # "stop"
            stop.set()
            await asyncio.gather(*clients_)
            print(json.dumps({"codes": {str(k): v for k, v in codes.items()}, "times": times}), flush=True)


class Hammer:
    """The PDF clients, in a process of their own (see :func:`hammer_process`)."""

    def __init__(self, base: str, url: str, clients: int) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--hammer", base, url, str(clients)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def go(self) -> None:
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    async def stop(self) -> dict:
        """Stop the clients; what they got in this phase (their requests in flight finish first)."""
        self.proc.stdin.write("stop\n")
        self.proc.stdin.flush()
        line = await asyncio.get_running_loop().run_in_executor(None, self.proc.stdout.readline)
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(30)


def profile(pids: dict[int, int], seconds: float, out_dir: str) -> list[subprocess.Popen]:
    """py-spy (when installed) records each worker, every thread, idle time included."""
    spy = pathlib.Path(sys.executable).with_name("py-spy")
    if not spy.exists():
        print("(py-spy not installed: no profile)")
        return []
    os.makedirs(out_dir, exist_ok=True)
    return [subprocess.Popen([str(spy), "record", "--pid", str(pid), "--duration", str(int(seconds)),
                              "--idle", "--threads", "--nonblocking", "--format", "raw",
                              "--output", f"{out_dir}/worker{i}.txt"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i, pid in pids.items()]


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
            await taps(http, events_url, token, 5, "warm")  # the tapping connection and engine warm
            # Idle, then 8 PDF clients, in alternation: the machine's other load drifts during a
            # run, so each busy phase is compared with the idle phase just before it.
            idle_all, busy_all, codes, pdf_times, ratios = [], [], {}, [], []
            ham = Hammer(app.base, pdf_url, a.clients)
            for rnd in range(a.rounds):
                idle = await taps(http, events_url, token, a.taps, f"idle{rnd}")
                ham.go()
                await asyncio.sleep(0.5)  # every client has asked
                spies = profile(pids, a.taps * 0.13, a.profile) if a.profile and rnd == 0 else []
                busy = await taps(http, events_url, token, a.taps, f"busy{rnd}")
                got = await ham.stop()
                for s in spies:
                    s.wait()
                for k, v in got["codes"].items():
                    codes[k] = codes.get(k, 0) + v
                pdf_times += got["times"]
                idle_all += idle
                busy_all += busy
                ratios.append(statistics.median(busy) / statistics.median(idle))
                print(f"round {rnd + 1}: referee POST p50 idle {statistics.median(idle):5.1f} ms, "
                      f"with {a.clients} PDF clients {statistics.median(busy):5.1f} ms "
                      f"(ratio {ratios[-1]:.2f}); PDFs {got['codes']}")
            ham.close()
            i50, b50 = statistics.median(idle_all), statistics.median(busy_all)
            print(f"referee POST idle:             p50 {i50:6.1f} ms  p90 {pct(idle_all, .9):6.1f} ms")
            print(f"referee POST with {a.clients} PDF clients: p50 {b50:6.1f} ms  p90 {pct(busy_all, .9):6.1f} ms")
            print(f"ratio of the p50s (target <= 1.5): {b50 / i50:.2f} over all taps; median of the rounds' "
                  f"ratios {statistics.median(ratios):.2f} ({a.rounds} rounds of {a.taps} taps)")
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
    ap.add_argument("--taps", type=int, default=12, help="taps per phase")
    ap.add_argument("--rounds", type=int, default=8, help="idle/busy alternations")
    ap.add_argument("--clients", type=int, default=8, help="PDF clients")
    ap.add_argument("--profile", default="", help="py-spy the workers during the first busy phase into DIR")
    ap.add_argument("--hammer", nargs=3, metavar=("BASE", "URL", "CLIENTS"), help=argparse.SUPPRESS)
    ap.add_argument("--rate", default="100000/m", help="REPORT_RATE for the run (the limit is per address; "
                    "every client here is 127.0.0.1)")
    a = ap.parse_args()
    if a.hammer:
        asyncio.run(hammer_process(a.hammer[0], a.hammer[1], int(a.hammer[2])))
    else:
        asyncio.run(main_async(a))


if __name__ == "__main__":
    main()
