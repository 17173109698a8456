"""Which ``undo`` took back which event: the one pairing the súmula, the statistics and the live
screens share.

The engine's ``undo`` takes back its latest event still in effect (an undo is never itself taken
back), so the log pairs like brackets. Read newest first, each undo waits for the next event in
effect below it; that needs only the events back to where no undo is waiting, which keeps the
live screens' question ("what did the last few undos take back?") to a few rows.
"""
from __future__ import annotations

from typing import Iterable


def pair_undos(newest_first: Iterable[tuple[int, str]]) -> tuple[dict[int, int], dict[int, int], bool]:
    """Pair ``(seq, event type)`` pairs given newest first (any contiguous run from the newest).

    Returns ``(undone, undid, complete)``: ``undone`` maps the seq of an event taken back to the
    seq of the undo that took it back, ``undid`` the reverse; ``complete`` is False when an undo
    of the run is still waiting for an older event than the run holds."""
    waiting: list[int] = []  # undos not yet paired, the oldest last
    undone: dict[int, int] = {}
    undid: dict[int, int] = {}
    for seq, kind in newest_first:
        if kind == "undo":
            waiting.append(seq)
        elif waiting:
            by = waiting.pop()
            undone[seq], undid[by] = by, seq
    return undone, undid, not waiting
