"""Benchmark: a worker's memory while phones follow a long match's statistics at every seq.

Starts the app as in production (``scripts/serve.py`` with ``--workers`` Daphne workers, a fresh
PostgreSQL database, a private Redis; ``tests/web/live_harness.py``), imports the first
``--start`` events of a long match (``bench/long_match.py``: 54 frames, ~3,260 events with fouls,
retornos and undos) and gives it a referee token. Then the referee taps the rest of the match
through the API, one event at a time, and after each tap a phone asks for the match page's
statistics (``/matches/<id>/?partial=stats``, as ``static/scoreboard/match.js`` does on every new
seq). Every ``--every`` taps it prints each worker's resident
memory (/proc VmRSS), and at the end the first and last figures and the change.

Run: .venv/bin/python bench/stats_memory.py [--root DIR] [--start 0] [--events 3000]
[--every 250] [--workers 1]
(``--root`` runs another checkout of the project, e.g. the code before these changes; with
``--start 2950`` the code before them is measured over its last taps only, which are slow.)
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests" / "web"))
sys.path.insert(0, str(HERE / "bench"))

import httpx  # noqa: E402

import live_harness  # noqa: E402
from long_match import long_match_document  # noqa: E402


def rss_mb(pid: int) -> float:
    """A process's resident memory (VmRSS) in MB."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=str(HERE), help="the checkout to serve (default: this one)")
    p.add_argument("--start", type=int, default=0, help="events imported before the phones watch")
    p.add_argument("--events", type=int, default=3000, help="the match's length in events")
    p.add_argument("--every", type=int, default=250, help="print the workers' memory every N taps")
    p.add_argument("--workers", type=int, default=1)
    a = p.parse_args()
    live_harness.ROOT = pathlib.Path(a.root).resolve()
    os.environ["REPORT_RATE"] = "1000000/m"
    doc = long_match_document()
    doc["events"] = doc["events"][:a.events]
    redis = live_harness.PrivateRedis()
    app = None
    try:
        app = live_harness.App(redis.url, workers=a.workers)
        path = pathlib.Path(tempfile.mktemp(suffix=".json"))
        path.write_text(json.dumps({"config": doc["config"], "events": doc["events"][:a.start]}))
        mid = json.loads(app.manage("importmatch", str(path)).strip().splitlines()[-1])["match"]
        path.unlink()
        token = app.manage("shell", "-c", "from scoreboard.core.models import Match, RefereeCredential; "
                           f"print(RefereeCredential.issue(Match.objects.get(pk={mid}))[1])").strip().splitlines()[-1]
        pids = app.worker_pids()
        http = httpx.Client(base_url=app.base, timeout=120)
        stats_url = f"/matches/{mid}/?partial=stats"
        for lang in ("pt-br", "en"):  # the templates compiled, the first fold made
            assert http.get(stats_url, params={"lang": lang}).status_code == 200

        def line(seq: int, taken: float) -> list[float]:
            mem = [rss_mb(pid) for pid in pids.values()]
            print(f"seq {seq:5d}: " + ", ".join(f"worker {i} {m:6.0f} MB" for i, m in zip(pids, mem))
                  + f"  ({taken:.0f} s)", flush=True)
            return mem

        began = time.monotonic()
        first = line(a.start, 0)
        last = first
        auth = {"Authorization": f"Bearer {token}"}
        for seq, event in enumerate(doc["events"][a.start:], start=a.start + 1):
            r = http.post(f"/api/matches/{mid}/events/", headers=auth,
                          json={"event": event, "expected_seq": seq - 1, "key": f"t{seq}"})
            assert r.status_code == 201, (seq, r.status_code, r.text[:200])
            r = http.get(stats_url)
            assert r.status_code == 200 and f'data-seq="{seq}"' in r.text, (seq, r.status_code)
            if seq % a.every == 0:
                last = line(seq, time.monotonic() - began)
        last = line(seq, time.monotonic() - began)
        for i, (f, l) in enumerate(zip(first, last)):
            print(f"worker {i}: {f:.0f} MB at seq {a.start} -> {l:.0f} MB at seq {seq} "
                  f"({(l - f) / f * 100:+.1f} %), {seq - a.start} taps with phones at every seq")
    finally:
        if app is not None:
            app.stop()
        redis.stop()


if __name__ == "__main__":
    main()
