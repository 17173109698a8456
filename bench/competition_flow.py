"""Benchmark: a 128-entrant, 16-table competition in the app (issue 17), on a scratch database.

Prints:

* ``createcompetition``: parse, draw, schedule, store the entrants and the fixtures, make the
  first matches and call the 16 tables (server time; target ≤ 200 ms);
* a result's effect (wall clock, and this process's CPU time, which the other load of a shared
  machine and SQLite's fsync do not inflate): after the event that ends a match commits,
  ``competitions.advance`` (the core's standings and bracket, the dependent matches made, the
  freed table called), measured at every match of the whole event (target ≤ 20 ms): median,
  p95 and worst over all of them, then for the group stage, the late group results (the last
  round, whose results fill the knockout's first round) and the knockout; and the queries of
  one result.

Run: .venv/bin/python bench/competition_flow.py [--matches N] [--repeat R]
(SQLite in a temporary directory unless DATABASE_URL is set: use a database of your own; each
run names its tables afresh, so earlier runs in that database hold none of them.)
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time
import uuid

sys.path[0] = str(pathlib.Path(__file__).resolve().parents[1])


def fig(xs: list[float]) -> str:
    xs = sorted(xs)
    return (f"median {statistics.median(xs):.1f} ms, p95 {xs[min(len(xs) - 1, int(len(xs) * 0.95))]:.1f} ms, "
            f"worst {xs[-1]:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=0, help="matches to play out (default: the whole event)")
    ap.add_argument("--repeat", type=int, default=3, help="createcompetition runs (the best and the median)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoreboard.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, reset_queries

    call_command("migrate", verbosity=0)
    from scoreboard.core import competitions, log
    from scoreboard.core.models import Match

    run = uuid.uuid4().hex[:6]

    def data(r: int) -> dict:
        return {"name": f"Bench {run}-{r}", "reds": 6, "draw_seed": 2026,
                "players": [{"name": f"Jogador {i}", "club": f"Clube {i % 9}"} for i in range(1, 129)],
                "tables": [f"Mesa {run}-{r}-{i}" for i in range(1, 17)], "rest_minutes": 0,
                "stages": [{"format": "double_elimination_groups", "groups": 32, "frames_to_win": 1, "qualify": 2},
                           {"format": "knockout", "frames_to_win": 1, "third_place": True}]}

    creates = []
    for r in range(args.repeat):
        t0 = time.perf_counter()
        created = competitions.create_competition(data(r))
        creates.append((time.perf_counter() - t0) * 1000)
    comp = created.competition
    fixtures = created.as_json()["fixtures"]
    plan = competitions.plan_of(comp)
    stage_of = {f.id: f.stage for f in plan.fixtures}
    last_group_round = max(f.round for f in plan.fixtures if f.stage == 0)
    late = {f.id for f in plan.fixtures if f.stage == 0 and f.round == last_group_round}

    real = competitions.advance
    timings: list = []  # (fixture number, wall ms, cpu ms, queries)
    ending: list = []

    def timed(c):
        settings.DEBUG = True  # count the queries of each result's effect
        reset_queries()
        s, p = time.perf_counter(), time.process_time()
        try:
            return real(c)
        finally:
            timings.append((ending[-1] if ending else None, (time.perf_counter() - s) * 1000,
                            (time.process_time() - p) * 1000, len(connection.queries)))
            settings.DEBUG = False

    competitions.advance = timed
    played = 0
    while not args.matches or played < args.matches:
        called = (Match.objects.filter(fixture__competition=comp, table__isnull=False, seq=0,
                                       started_at__isnull=True, walkover__isnull=True)
                  .order_by("pk").values_list("pk", "fixture__number").first())
        if called is None:
            break
        log.append_event(called[0], {"type": "lot", "player": 0})
        ending.append(called[1])
        log.append_event(called[0], {"type": "concede", "player": 1})  # ends the match: the flow runs
        played += 1
    db = "PostgreSQL" if connection.vendor == "postgresql" else "SQLite"
    print(f"{db}, 128 entrants, 16 tables, {fixtures} fixtures")
    print(f"createcompetition: best {min(creates):.0f} ms, median {statistics.median(creates):.0f} ms "
          f"over {len(creates)} runs (target ≤ 200 ms)")
    flows = [t for t in timings if t[0] is not None]
    if not flows:
        return
    done = competitions.summary(comp)["complete"]
    print(f"a result's effect over {len(flows)} matches{' (the whole event)' if done else ''} (target ≤ 20 ms):")
    for what, rows in (("all", flows), ("group stage", [t for t in flows if stage_of[t[0]] == 0]),
                       ("  of which the last group round", [t for t in flows if t[0] in late]),
                       ("knockout", [t for t in flows if stage_of[t[0]] == 1])):
        if rows:
            print(f"  {what} ({len(rows)}): CPU {fig([t[2] for t in rows])}; wall {fig([t[1] for t in rows])}")
    print(f"  queries per result: median {statistics.median(t[3] for t in flows):.0f}, most {max(t[3] for t in flows)}")
    by_q: dict = {}
    for t in flows:
        by_q.setdefault(t[3], []).append(t[2])
    print("  CPU by queries: " + "; ".join(f"{q} queries ({len(v)}): median {statistics.median(v):.1f} ms"
                                          for q, v in sorted(by_q.items())))
    worst = sorted(range(len(flows)), key=lambda i: -flows[i][2])[:3]
    print("  the slowest (CPU): " + ", ".join(f"J{flows[i][0]} ({i + 1}th result) {flows[i][2]:.1f} ms" for i in worst))


if __name__ == "__main__":
    main()
