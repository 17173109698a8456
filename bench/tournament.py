"""Benchmark: a 128-entrant, 16-table event through the tournament core (issue 17).

Two formats: 32 CBBS double-elimination groups of 4 then a 64-player knockout, and 32
round-robin groups of 4 then the same knockout; Mesa 1 is a stream table, given only the
matches flagged for it (six group matches by number, the knockout from the quarter-finals).
Prints, for each:

* draw + schedule: ``parse_competition`` + ``build`` (draw and every match) + ``evaluate`` with no
  results + the first calls on the 16 tables + the day's projected timetable (target ≤ 200 ms);
* a result's effect (wall clock, and the process's CPU time, which other load on a shared
  machine does not inflate): one more result → ``evaluate`` (standings, bracket, placings) + the next call
  on the freed table, measured at every step of a whole event played out (target ≤ 20 ms;
  median and worst), and evaluate alone in an event where 5 players withdraw.

Run: .venv/bin/python bench/tournament.py [--repeat N]
"""
from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import sys
import time

# this file is named like the package: look it up from the project root, not from bench/
sys.path[0] = str(pathlib.Path(__file__).resolve().parents[1])

from tournament import assign, build, evaluate, next_call, parse_competition, projected_schedule

TABLES = [{"name": f"Mesa {i}", "stream": i == 1} for i in range(1, 17)]


def spec(fmt: str) -> dict:
    return {"name": "Bench", "reds": 15, "draw_seed": 2026,
            "players": [{"name": f"Jogador {i}", "club": f"Clube {i % 9}"} for i in range(1, 129)],
            "tables": TABLES, "rest_minutes": 5,
            # Mesa 1 streams: a few group matches, then the knockout from the quarter-finals
            # (a stream table takes only flagged matches; unflagged, it was idle all day)
            "stream_matches": [1, 17, 33, 49, 65, 81],
            "stages": [{"format": fmt, "groups": 32, "frames_to_win": 3, "qualify": 2},
                       {"format": "knockout", "frames_to_win": 4, "third_place": True,
                        "frames_to_win_by_round": {"final": 5},
                        "stream_rounds": ["quarter_final", "semi_final", "third_place", "final"]}]}


def draw_and_schedule(data: dict):
    comp = parse_competition(data)
    plan = build(comp)
    state = evaluate(plan, {})
    calls = assign(comp.tables, state.ready(), comp.tables)
    timetable = projected_schedule(plan)
    assert len(timetable) == len(plan.fixtures)
    return comp, plan, state, calls


def best_of(repeat: int, fn):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def play(comp, plan, rng) -> tuple[list[float], list]:
    """Play the whole event: each step a table frees with a result; time the result's effect.
    Also returns the matches the stream table was given (each must be flagged)."""
    results: dict = {}
    now = 0.0
    last_finish: dict = {}
    state = evaluate(plan, results)
    on_table = {t.name: m for t, m in assign(comp.tables, state.ready(), comp.tables)}
    times = []
    streamed = []
    while on_table:
        table_name = rng.choice(sorted(on_table))
        m = on_table.pop(table_name)
        if table_name == TABLES[0]["name"]:
            streamed.append(m)
        k = m.fixture.frames_to_win
        side = rng.randrange(2)
        fr = [rng.randrange(k), rng.randrange(k)]
        fr[side] = k
        now += 600
        t0, c0 = time.perf_counter(), time.process_time()
        results[m.id] = {"winner": m.players[side], "frames": fr,
                         "points": [rng.randrange(300), rng.randrange(300)]}
        for p in m.players:
            last_finish[p] = now
        state = evaluate(plan, results)
        busy = {p for x in on_table.values() for p in x.players}
        called = {x.id for x in on_table.values()}
        ready = [x for x in state.ready() if x.id not in called]
        table = next(t for t in comp.tables if t.name == table_name)
        nxt = next_call(table, ready, comp.tables, busy, last_finish, now, comp.rest_minutes)
        times.append((time.perf_counter() - t0, time.process_time() - c0))
        if nxt is not None:
            on_table[table_name] = nxt
        # the other free tables take what the result made ready
        for t in comp.tables:
            if t.name not in on_table:
                busy = {p for x in on_table.values() for p in x.players}
                called = {x.id for x in on_table.values()}
                ready = [x for x in state.ready() if x.id not in called]
                x = next_call(t, ready, comp.tables, busy, last_finish, now + 1800, 0)
                if x is not None:
                    on_table[t.name] = x
    assert state.complete and state.champion is not None, "the event did not finish"
    return times, streamed


def with_withdrawals(plan, rng, count: int = 5) -> list[float]:
    """CPU time of ``evaluate`` after each result of an event in which ``count`` players
    withdraw (each withdrawal costs the evaluation one more pass)."""
    results: dict = {}
    done = 0
    times = []
    while True:
        ready = evaluate(plan, results).ready()
        if not ready:
            return times
        m = ready[0]
        k = m.fixture.frames_to_win
        kind = "withdrawal" if done < count and rng.random() < 0.05 else "frames"
        done += kind == "withdrawal"
        results[m.id] = {"winner": m.players[0], "frames": [k, 0] if kind == "frames" else [1, 0],
                         "kind": kind, "at": len(results)}
        c0 = time.process_time()
        evaluate(plan, results)
        times.append(time.process_time() - c0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for fmt in ("double_elimination_groups", "round_robin_groups"):
        data = spec(fmt)
        t, (comp, plan, state, calls) = best_of(args.repeat, lambda: draw_and_schedule(data))
        print(f"{fmt}: 128 entrants, {len(plan.fixtures)} matches, 16 tables")
        print(f"  draw + schedule (timetable, first {len(calls)} calls): {t * 1000:.1f} ms (target ≤ 200 ms)")
        times, streamed = play(comp, plan, random.Random(17))
        flagged = sum(f.stream for f in plan.fixtures)
        assert all(m.fixture.stream for m in streamed)
        print(f"  the stream table (Mesa 1) played {len(streamed)} of the {flagged} flagged matches, no other")
        for what, i in (("wall", 0), ("cpu", 1)):
            ms = sorted(x[i] * 1000 for x in times)
            print(f"  a result's effect over {len(ms)} results ({what}): median "
                  f"{statistics.median(ms):.1f} ms, p95 {ms[int(len(ms) * 0.95)]:.1f} ms, "
                  f"worst {ms[-1]:.1f} ms (target ≤ 20 ms)")
        ms = sorted(x * 1000 for x in with_withdrawals(plan, random.Random(5)))
        print(f"  evaluate with 5 withdrawals during the event (cpu): median "
              f"{statistics.median(ms):.1f} ms, p95 {ms[int(len(ms) * 0.95)]:.1f} ms, "
              f"worst {ms[-1]:.1f} ms")


if __name__ == "__main__":
    main()
