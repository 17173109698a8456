"""Benchmark: replay a long match through the rules engine.

Plays (by seeded chance, with fouls, free balls, retornos and undos) a match of at least 35
frames, then replays its log with and without undo history and prints events per second, the
time per ``apply``, the memory the undo history holds, and the time of one ``undo``.
Target (issue 2): >= 100,000 events/s with full undo support.

Run: .venv/bin/python bench/engine_replay.py [--repeat N]
"""
from __future__ import annotations

import argparse
import collections
import time
import tracemalloc

from sinuca import Match
from sinuca.simulate import play_match

CONFIG = {"players": ["Ana", "Bia"], "frames_to_win": 30, "first_breaker": 0}


def long_match(undo_rate: float) -> list[dict]:
    """A match whose log covers at least 35 frames (the first seed that gives one)."""
    for seed in range(100):
        events = play_match(CONFIG, seed=seed, undo_rate=undo_rate)
        if len(Match.replay(CONFIG, events).state()["history"]) >= 35:
            return events
    raise RuntimeError("no seed gave 35 frames")


def best_of(repeat: int, fn) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    with_undo = long_match(undo_rate=0.02)
    plain = long_match(undo_rate=0.0)
    st = Match.replay(CONFIG, with_undo).state()
    kinds = collections.Counter(e["type"] for e in with_undo)
    print(f"match: {len(with_undo)} events, {len(st['history'])} frames, {kinds['foul']} fouls, "
          f"{sum(1 for e in with_undo if e.get('free_ball'))} free-ball strokes, "
          f"{sum(1 for e in with_undo if e.get('choice') == 'retorno')} retornos, {kinds['undo']} undos")
    for label, events, keep in (("with undo history", with_undo, True),
                                ("with undo history (log without undo)", plain, True),
                                ("without undo history", plain, False)):
        t = best_of(a.repeat, lambda: Match.replay(CONFIG, events, keep_history=keep))
        print(f"{label:40s} {len(events) / t:12,.0f} events/s  {t / len(events) * 1e6:6.2f} µs/apply")
    tracemalloc.start()
    m = Match.replay(CONFIG, plain)
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"memory of a match with {len(plain)} events and full undo history: {size / 1024:,.0f} KiB "
          f"({size / len(plain):,.0f} B/event)")
    n = len(m)
    t = time.perf_counter()
    for _ in range(n):
        m.undo()
    dt = time.perf_counter() - t
    print(f"undo: {dt / n * 1e6:.2f} µs each over {n} undos (O(1): a pop of the snapshot stack)")
    t = best_of(a.repeat, lambda: [Match.replay(CONFIG, plain).state() for _ in range(1)])
    print(f"replay + state() of the whole log: {t * 1000:.1f} ms")


if __name__ == "__main__":
    main()
