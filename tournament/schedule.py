"""The day's projected timetable ("one-button schedule"): every match of a plan given a table
and an estimated start, before any result is known.

Greedy list scheduling in match order: a match starts when a table it may use is free, its
feeding matches (and, for a group position, the whole group) are over, and its known players
have had their rest. Durations are estimates from ``frames_to_win`` (a best of 2k−1 lasts about
k + (k−1)/2 frames). Times are minutes from the start of the session.
"""
from __future__ import annotations

from typing import Iterable

from .plan import Plan


def match_minutes(frames_to_win: int, minutes_per_frame: float) -> float:
    """Expected length of a best of ``2k-1``: about ``k + (k-1)/2`` frames."""
    return (frames_to_win + (frames_to_win - 1) / 2) * minutes_per_frame


def projected_schedule(plan: Plan, tables: Iterable = (), minutes_per_frame: float = 15,
                       rest_minutes: float | None = None, start: float = 0) -> dict:
    """``{match id: {"table": name, "start": minutes, "end": minutes}}`` for every match.

    tables: :class:`~tournament.spec.Table` s (default: the competition's; one unnamed table if
    none). A table fixed to a group takes only that group's matches and the ungrouped (knockout)
    ones, a group with a fixed table plays only there; as the queue does
    (:mod:`tournament.tables`), a stream table takes only the matches flagged for stream
    (``Fixture.stream``) and a flagged match plays on a stream table (any table when the venue
    has none), so a stream table with nothing flagged stays empty in the timetable too.
    rest_minutes: default the competition's.
    """
    comp = plan.competition
    tables = list(tables) or list(comp.tables) or [None]
    rest = comp.rest_minutes if rest_minutes is None else rest_minutes
    free = {i: start for i in range(len(tables))}
    fixed = {getattr(t, "group", None) for t in tables if t is not None and t.group}
    has_stream = any(t is not None and t.stream for t in tables)
    end: dict[int, float] = {}
    player_free: dict = {}
    group_end: dict = {}
    out = {}
    for f in plan.fixtures:
        ready_at = start
        players = []
        for s in (f.a, f.b):
            if s.kind in ("winner", "loser"):
                ready_at = max(ready_at, end[s.match] + rest)
            elif s.kind == "position":
                ready_at = max(ready_at, group_end.get((s.stage, s.group), start) + rest)
            elif s.kind == "entry":
                players.append(s.entry)
        for p in players:
            ready_at = max(ready_at, player_free.get(p, start))
        allowed = [i for i, t in enumerate(tables)
                   if t is None or ((t.group == f.group if f.group in fixed else
                                     t.group is None or f.group is None)
                                    and (t.stream == f.stream if has_stream else True))]
        if not allowed:
            allowed = list(range(len(tables)))
        i = min(allowed, key=lambda j: (max(free[j], ready_at), j))
        begin = max(free[i], ready_at)
        finish = begin + match_minutes(f.frames_to_win, minutes_per_frame)
        free[i] = finish
        end[f.id] = finish
        for p in players:
            player_free[p] = finish + rest
        if f.group is not None:
            key = (f.stage, f.group)
            group_end[key] = max(group_end.get(key, start), finish)
        out[f.id] = {"table": tables[i].name if tables[i] is not None else None,
                     "start": round(begin, 1), "end": round(finish, 1)}
    return out
