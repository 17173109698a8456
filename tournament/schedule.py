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


def earliest_calls(state, now: float, rest_minutes: float = 0, *, in_play: Iterable = (),
                   last_finish: dict | None = None) -> dict[int, float]:
    """``{match id: seconds}``: for every match not decided and not in play, the earliest time
    the queue can call it, a true lower bound ("não antes de"): what can actually happen, from
    the feeders' state and the rest, never a projection of durations (a match can end at any
    moment: a W.O., a concession). ``now`` and the result in seconds; a value ``<= now`` means
    "a qualquer momento".

    state: :class:`~tournament.progress.State` as of now. in_play: ids of the matches started
    and not decided (each will end with events, so its players then rest ``rest_minutes``).
    last_finish: ``{entry id: seconds}`` when each player's last played match ended (as the
    queue's rest reads it; a W.O. without play gives no rest).

    A side whose player is known waits for his rest (``last_finish`` + rest) and, when he is in
    a match in play, for that match's end (≥ ``now``) and his rest after it. A side that is the
    winner or loser of a match not decided waits for that match: ``now`` + rest when it is in
    play, else that match's own earliest call (it may end there by a W.O.). A group position
    waits for the matches that decide it (a double-elimination group's position its one slot,
    a round-robin group's every match of the group)."""
    plan = state.plan
    rest = rest_minutes * 60
    last_finish = last_finish or {}
    in_play = set(in_play)
    playing = {p for mid in in_play if mid in state.matches for p in state.matches[mid].players if p is not None}
    by_group: dict = {}
    for f in plan.fixtures:
        if f.group is not None:
            by_group.setdefault((f.stage, f.group), []).append(f.id)
    decided = ("finished", "walkover", "bye", "void")
    floor = float("-inf")
    start: dict[int, float] = {}

    def end(mid: int) -> float:
        """Earliest time match ``mid`` can be decided (-inf: decided)."""
        if state.matches[mid].status in decided:
            return floor
        if mid in in_play:
            return now
        return start_of(mid)

    def side(slot) -> float:
        if slot.kind in ("winner", "loser"):
            ms = state.matches[slot.match]
            if ms.status in decided:
                return floor
            return now + rest if slot.match in in_play else start_of(slot.match)
        if slot.kind == "position":
            key = (slot.stage, slot.group)
            if key in plan.de_positions:
                return side(plan.de_positions[key][slot.position - 1])
            return max((end(mid) for mid in by_group.get(key, ())), default=floor)
        return floor

    def start_of(mid: int) -> float:
        if mid in start:
            return start[mid]
        ms = state.matches[mid]
        t = now
        for slot, p in zip((ms.fixture.a, ms.fixture.b), ms.players):
            if p is not None:
                t = max(t, last_finish.get(p, floor) + rest)
                if p in playing:
                    t = max(t, now + rest)
            else:
                t = max(t, side(slot))
        start[mid] = t
        return t

    # feeders come before the matches they feed: one pass in schedule order
    return {mid: start_of(mid) for mid, ms in state.matches.items()
            if ms.status not in decided and mid not in in_play}
