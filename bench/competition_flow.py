"""Benchmark: a 128-entrant, 16-table competition in the app (issue 17), on a scratch database.

Prints:

* ``createcompetition``: parse, draw, schedule, store the entrants and 240 fixtures, make the
  first matches and call the 16 tables (server time);
* a result's effect (wall clock, and this process's CPU time, which the other load of a shared
  machine and SQLite's fsync do not inflate): after the event that ends a match commits, ``competitions.advance`` (the
  core's standings and bracket, the dependent matches made, the freed table called), measured at
  every match of the first stage (median and worst; target ≤ 20 ms).

Run: .venv/bin/python bench/competition_flow.py [--matches N]
(SQLite in a temporary directory unless DATABASE_URL is set: use a database of your own.)
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time

sys.path[0] = str(pathlib.Path(__file__).resolve().parents[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=40, help="matches to play out (first stage)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoreboard.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from scoreboard.core import competitions, log
    from scoreboard.core.models import Match

    data = {"name": "Bench", "reds": 6, "draw_seed": 2026,
            "players": [{"name": f"Jogador {i}", "club": f"Clube {i % 9}"} for i in range(1, 129)],
            "tables": [f"Mesa {i}" for i in range(1, 17)], "rest_minutes": 0,
            "stages": [{"format": "double_elimination_groups", "groups": 32, "frames_to_win": 1, "qualify": 2},
                       {"format": "knockout", "frames_to_win": 1}]}
    t0 = time.perf_counter()
    created = competitions.create_competition(data)
    t_create = (time.perf_counter() - t0) * 1000
    comp = created.competition
    timings = []
    real = competitions.advance

    cpu = []

    def timed(c):
        s, p = time.perf_counter(), time.process_time()
        try:
            return real(c)
        finally:
            timings.append((time.perf_counter() - s) * 1000)
            cpu.append((time.process_time() - p) * 1000)

    competitions.advance = timed
    played = 0
    while played < args.matches:
        called = Match.objects.filter(fixture__competition=comp, table__isnull=False, seq=0,
                                      started_at__isnull=True, walkover__isnull=True).order_by("pk").first()
        if called is None:
            break
        log.append_event(called.pk, {"type": "lot", "player": 0})
        log.append_event(called.pk, {"type": "concede", "player": 1})  # ends the match: the flow runs
        played += 1
    print(f"createcompetition (128 entrants, 16 tables, {created.as_json()['fixtures']} fixtures): {t_create:.0f} ms")
    flows = timings[:]
    if flows:
        print(f"a result's effect over {len(flows)} matches: wall median {statistics.median(flows):.1f} ms, "
              f"worst {max(flows):.1f} ms; CPU median {statistics.median(cpu):.1f} ms, worst {max(cpu):.1f} ms "
              f"(target ≤ 20 ms)")


if __name__ == "__main__":
    main()
