"""The one place that appends to a match's event log, and reads its current state.

The log is the truth; the engine object of each match is cached in this process keyed by the seq
it has folded, and rebuilt with ``Match.replay`` from the database whenever another process (or a
failed write) left it behind. Appends run inside a transaction holding the match row's lock, and
the broadcast is scheduled with ``transaction.on_commit`` so nothing unstored is ever shown.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction

import sinuca
from sinuca import SinucaError

from .models import Event, Match


class Conflict(Exception):
    """``expected_seq`` is not the match's current seq: the client acted on a stale screen."""

    def __init__(self, seq: int) -> None:
        super().__init__(f"current seq is {seq}")
        self.seq = seq


@dataclass(frozen=True)
class Appended:
    """The answer to an append: the event's seq, the state after it and its description."""

    seq: int
    state: dict
    description: dict
    event: dict
    repeated: bool = False  # True when a repeated idempotency key returned the first answer

    def as_json(self) -> dict:
        """``{"seq", "state", "description"}``: the body of the API's 201 answer."""
        return {"seq": self.seq, "state": self.state, "description": self.description}


# match id -> (seq folded, engine). Guarded by the match's lock below: the engine is mutated by
# apply(), so nobody may read it while an append is between apply() and commit.
_engines: dict[int, tuple[int, sinuca.Match]] = {}
_locks: defaultdict[int, threading.RLock] = defaultdict(threading.RLock)
_locks_guard = threading.Lock()


def match_lock(match_id: int) -> threading.RLock:
    """This process's lock for one match (the database row lock covers other processes)."""
    with _locks_guard:
        return _locks[match_id]


def _engine_at(match: Match, seq: int) -> sinuca.Match:
    """The engine folded up to ``seq``: the cached one if it is there, else a replay of the log.

    Call with the match's lock held.
    """
    cached = _engines.get(match.pk)
    if cached and cached[0] == seq:
        return cached[1]
    events = list(Event.objects.filter(match_id=match.pk, seq__lte=seq).order_by("seq")
                  .values_list("event", flat=True))
    engine = sinuca.Match.replay(match.config, events)
    _engines[match.pk] = (seq, engine)
    return engine


def forget(match_id: int) -> None:
    """Drop the cached engine of a match (the next read replays the log)."""
    with match_lock(match_id):
        _engines.pop(match_id, None)


@dataclass(frozen=True)
class Snapshot:
    """A consistent view of a match: its row, the seq and the engine's state and options then."""

    match: Match
    seq: int
    state: dict
    options: dict


def snapshot(match_id: int) -> Snapshot:
    """The current state of a match as committed. Raises ``Match.DoesNotExist``."""
    with match_lock(match_id):
        match = Match.objects.get(pk=match_id)
        engine = _engine_at(match, match.seq)
        return Snapshot(match, match.seq, engine.state(), engine.options())


def with_engine(match_id: int, fn):
    """Call ``fn(match, seq, engine)`` on the current engine under the match's lock.

    For read-only questions to the engine (``preview``, ``foul_preview``); ``fn`` must not apply.
    """
    with match_lock(match_id):
        match = Match.objects.get(pk=match_id)
        return fn(match, match.seq, _engine_at(match, match.seq))


def append_event(match_id: int, event, *, expected_seq: int | None = None, key: str | None = None,
                 entered_by: str = "") -> Appended:
    """Append one referee action to the match's log and broadcast the change once committed.

    The idempotency ``key`` is looked up first: a repeated key returns the first answer again and
    stores nothing (so a retried tap is safe even with a now-stale ``expected_seq``). Then a stale
    ``expected_seq`` raises :class:`Conflict`; an event the rules reject raises ``SinucaError`` and
    changes nothing.
    """
    from . import live  # the broadcaster renders templates; imported late to keep this module light

    with match_lock(match_id):
        applied = False
        try:
            with transaction.atomic():
                match = Match.objects.select_for_update().get(pk=match_id)
                if key:
                    first = Event.objects.filter(match=match, key=key).first()
                    if first is not None:
                        return Appended(first.seq, first.state, first.description, first.event,
                                        repeated=True)
                if expected_seq is not None and expected_seq != match.seq:
                    raise Conflict(match.seq)
                engine = _engine_at(match, match.seq)
                step = engine.apply(event)  # SinucaError: nothing changed, nothing to clean up
                applied = True
                seq = match.seq + 1
                state = step.state
                Event.objects.create(match=match, seq=seq, event=step.event, key=key or None,
                                     entered_by=entered_by[:80], state=state,
                                     description_pt=step.description["pt"][:300],
                                     description_en=step.description["en"][:300])
                Match.objects.filter(pk=match.pk).update(seq=seq)
                match.seq = seq
                _engines[match.pk] = (seq, engine)
                answer = Appended(seq, state, dict(step.description), step.event)
                # Still under the lock: broadcasts leave in seq order from this process.
                transaction.on_commit(lambda: live.broadcast(match, answer, engine))
        except BaseException:
            if applied:  # the engine moved but the row did not: the log decides next time
                _engines.pop(match_id, None)
            raise
        return answer


def events_of(match_id: int) -> list[Event]:
    """The match's log, in order."""
    return list(Event.objects.filter(match_id=match_id).order_by("seq"))


__all__ = ["Appended", "Conflict", "SinucaError", "Snapshot", "append_event", "events_of", "forget",
           "match_lock", "snapshot", "with_engine"]
