"""The statistics folded event by event (``reports.stats.Fold``) are the whole log's fold at
every seq, undos included, and a process keeps them in bounded bytes without the log."""
from __future__ import annotations

import dataclasses
import gc
import random
import sys
import types
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import sinuca
from sinuca.simulate import play

from ops_helpers import fresh_engines, fresh_stats, play as play_events  # noqa: F401
from stats_reference import reference
from scoreboard.core.matches import create_match
from scoreboard.reports import stats

T0 = datetime(2026, 3, 1, 14, 0, tzinfo=timezone.utc)


def _log(config: dict, seed: int, n: int, undo_rate: float, end: str | None) -> list[stats.LogEntry]:
    """A simulated match's first ``n`` events (undos at ``undo_rate``), maybe ended by a
    withdrawal or a disqualification, as stored entries: seq from 1, most with a time."""
    rng = random.Random(seed)
    m = sinuca.Match(config)
    events = [s.event for s in play(m, rng, n, undo_rate)]
    if end == "concede_match":
        events.append({"type": "concede_match", "player": rng.randrange(2)})
    elif end == "disqualify":
        events.append({"type": "disqualify", "players": rng.choice([[0], [1], [0, 1]])})
    try:
        sinuca.Match.replay(config, events)
    except sinuca.SinucaError:
        events.pop()  # the match was over already
    return [stats.LogEntry(i, e, None if rng.random() < 0.1 else T0 + timedelta(seconds=7 * i))
            for i, e in enumerate(events, start=1)]


CONFIGS = hs.sampled_from([
    {"players": ["Ana", "Bia"], "reds": 6, "frames_to_win": 2},
    {"players": ["Ana", "Bia"], "reds": 15, "frames_to_win": 1, "first_breaker": 1},
    {"players": ["Ana", "Bia"], "reds": 10, "frames_to_win": 2, "retorno": False},
    {"players": [["Ana", "Carla"], ["Bia", "Duda"]], "reds": 6, "frames_to_win": 2},
])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=CONFIGS, seed=hs.integers(0, 10**6), n=hs.integers(0, 90),
       undo_rate=hs.sampled_from([0.0, 0.05, 0.3]), end=hs.sampled_from([None, "concede_match", "disqualify"]))
def test_the_fold_step_by_step_is_the_whole_logs_fold_at_every_seq(config, seed, n, undo_rate, end):
    log = _log(config, seed, n, undo_rate, end)
    fold = stats.Fold(config)
    assert fold.stats() == reference(config, [])
    for k, entry in enumerate(log, start=1):
        fold.add(entry)
        assert fold.stats() == reference(config, log[:k]), f"seq {k}: {entry.event}"
    assert stats.compute(config, log) == dataclasses.replace(reference(config, log), log=log)


def test_statistics_given_are_not_changed_by_later_events():
    config = {"players": ["Ana", "Bia"], "reds": 6, "frames_to_win": 2}
    log = _log(config, 7, 80, 0.1, None)
    fold = stats.Fold(config)
    for entry in log[:40]:
        fold.add(entry)
    earlier = fold.stats()
    kept = reference(config, log[:40])
    for entry in log[40:]:
        fold.add(entry)
    assert earlier == kept


def _reachable(root):
    """Every object reachable from ``root`` but types, modules and functions (shared by all)."""
    seen, todo = {}, [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen[id(obj)] = obj
        todo.extend(gc.get_referents(obj))
    return seen.values()


@pytest.mark.django_db
def test_a_phone_at_every_seq_keeps_bounded_bytes_and_no_copy_of_the_log():
    """A match followed by a phone at each of 120 seqs as the referee taps: what the process
    keeps of its statistics holds no stored event, is within the fold's estimate and under 1 KB
    an event and 40 KB (a whole-log fold kept per seq was MBs), and the statistics are the whole
    log's at each seq."""
    m = create_match("Ana Souza", "Bia Lima", reds=6, frames_to_win=5, first_breaker=0).match
    config = dict(m.config)
    events = [e.event for e in _log(config, 3, 120, 0.05, None)]
    assert len(events) == 120
    for seq, ev in enumerate(events, start=1):
        play_events(m, [ev])
        st = stats.for_match(m)
        assert st.seq == seq and st.log == []
        if seq % 40 == 0:
            assert st == reference(config, stats.log_of(m))
    kept = list(_reachable(stats._cache))
    assert not any(isinstance(o, stats.LogEntry) for o in kept)
    measured = sum(sys.getsizeof(o) for o in kept)
    assert measured <= stats._cache.nbytes, (measured, stats._cache.nbytes)
    assert measured < 40_000 + 1024 * len(events), measured


@pytest.mark.django_db
def test_the_folds_kept_are_bounded_in_bytes_across_matches(settings):
    """However many matches a process shows, its folds stay under ``STATS_CACHE_BYTES``: the
    least recently shown go first, and a match shown again is folded anew with the same
    statistics."""
    settings.STATS_CACHE_BYTES = 200_000
    events = [e.event for e in _log({"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 2, "first_breaker": 0}, 11, 30, 0.05, None)]
    matches = []
    for _ in range(4):
        m = create_match("Ana Souza", "Bia Lima", reds=6, frames_to_win=2, first_breaker=0).match
        play_events(m, events)
        matches.append(m)
        stats.for_match(m)
        assert stats._cache.nbytes <= 200_000
    assert len(stats._cache) < 4 and matches[0].pk not in stats._cache
    first = stats.for_match(matches[0])
    assert first == reference(matches[0].config, stats.log_of(matches[0]))
    assert stats._cache.nbytes <= 200_000


def test_the_local_cache_keeps_its_bytes_under_its_bound():
    """Without Redis the shared cache is this process's memory: reports of a long match (100 KB
    each here) are dropped oldest first past ``MAX_BYTES``, not kept up to an entry count."""
    from scoreboard.core.sharedcache import BoundedLocMemCache

    c = BoundedLocMemCache("bounded-test", {"OPTIONS": {"MAX_BYTES": 350_000, "MAX_ENTRIES": 300}})
    c.clear()
    for seq in range(1, 11):
        c.set(f"report:pdf:1:{seq}", b"x" * 100_000)
        assert c.nbytes <= 350_000
    assert c.get("report:pdf:1:10") == b"x" * 100_000 and c.get("report:pdf:1:1") is None
    assert c.add("rl:a", 1) and c.incr("rl:a") == 2 and c.nbytes <= 350_000
    c.delete("report:pdf:1:10")
    assert c.nbytes < 350_000 - 100_000
