"""The one place that appends to a match's event log, and reads its current state.

The log is the truth; the engine object of each match is cached in this process keyed by the seq
it has folded, and rebuilt with ``Match.replay`` from the database whenever another process (or a
failed write) left it behind. Appends run inside a transaction holding the match row's lock; the
:class:`Change` they build under that lock is handed, after commit, to whoever subscribed with
:func:`on_commit` (the live layer, at start-up), so nothing unstored is ever shown and this module
imports nothing above it.
"""
from __future__ import annotations

import copy
import json
import logging
import threading
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Mapping

from django.db import transaction

import sinuca
from sinuca import SinucaError

from . import memory, outbox
from .bounded import ByteLRU
from .limits import WRITERS, give_back_connection
from .models import Event, Fixture, Match
from .venue_rules import OperationRefused, check_players_free, check_table_free, shown_state, walkover_state

logger = logging.getLogger(__name__)


class Conflict(Exception):
    """``expected_seq`` is not the match's current seq: the client acted on a stale screen."""

    def __init__(self, seq: int) -> None:
        super().__init__(f"current seq is {seq}")
        self.seq = seq


class KeyReused(Exception):
    """The idempotency key was already used for a *different* event: not a retry of it, so
    answering the first event's result (as for a retry) would tell the client its event was
    stored when it was not. ``key``: the key, when the caller gave several."""

    code = "key_reused"

    def __init__(self, seq: int, key: str | None = None) -> None:
        super().__init__(f"key already used by event {seq}")
        self.seq, self.key = seq, key


def same_event(a, b) -> bool:
    """Whether two events are the same JSON (``True`` and ``1`` differ, key order does not)."""
    try:
        return (json.dumps(a, sort_keys=True, separators=(",", ":"))
                == json.dumps(b, sort_keys=True, separators=(",", ":")))
    except (TypeError, ValueError):
        return False


RECENT = 6
"""Events the screens list, newest first (the referee tablet's log, so the referee can check them)."""


@dataclass(frozen=True)
class Row:
    """One logged event as the screens show it: ``seq``; ``event`` as stored; ``description``
    ``{"pt", "en"}``; ``at``, the row's ``at`` (an aware datetime, as the database has it)."""

    seq: int
    event: dict
    description: dict
    at: datetime


@dataclass(frozen=True)
class Screen:
    """What the screens read of the log at one seq, besides the state and options, so the render
    after a tap reads no row back (issue 20).

    ``recent``: the last :data:`RECENT` rows up to this seq, newest first (the first is this
    seq's event). ``before``: the state after the previous event (``None`` at seq 1), which the
    overlay's pop-ups compare with. ``descriptions``: seq -> ``{"pt", "en"}`` of the events the
    screens name besides ``recent`` — those an undo in ``recent`` took back and the one the next
    undo would take back (:func:`wanted_descriptions`); it may hold rows of ``recent`` too.
    ``started``: the ``at`` of seq 1; ``frame_started``: the ``at`` of the first event whose
    state has the current frame number (the pages' clocks count from these).
    """

    recent: tuple[Row, ...]
    before: dict | None
    descriptions: Mapping[int, dict]
    started: datetime | None
    frame_started: datetime | None


def wanted_descriptions(recent_seqs, options: dict) -> set[int]:
    """The seqs whose descriptions the screens show at a seq whose window is ``recent_seqs``:
    the events an undo in the window took back (``options["undone"]``: an undo's line names what
    it took back) and ``options["undo_target"]`` (what the next undo takes back)."""
    window = set(recent_seqs)
    wanted = {e for e, u in (options.get("undone") or {}).items() if u in window}
    if options.get("undo_target") is not None:
        wanted.add(options["undo_target"])
    return wanted


class _Story:
    """The part of a match's log the screens show, kept beside its cached engine (the same
    ``_engines`` entry, so whatever drops the engine drops it too) and changed only under the
    match's lock: the newest rows, every event's description by seq (an undo may name any older
    event), when seq 1 was stored and when each frame number first appeared."""

    __slots__ = ("recent", "descriptions", "started", "frame_starts")

    def __init__(self) -> None:
        self.recent: list[Row] = []  # oldest first, at most RECENT
        self.descriptions: dict[int, dict] = {}
        self.started: datetime | None = None
        self.frame_starts: dict[int, datetime] = {}  # frame number -> at of its first event

    @classmethod
    def of_rows(cls, rows: list[tuple]) -> "_Story":
        """The story of a whole log read in seq order, as ``(seq, event, description_pt,
        description_en, at, frame number)``: its rows are fresh from the database, so only the
        newest events (whose dicts the engine's replay was also handed) are copied — a replay
        of 1,000 events must not pay for copying each."""
        story = cls()
        story.descriptions = {n: {"pt": pt, "en": en} for n, _, pt, en, _, _ in rows}
        for n, _, _, _, at, frame in rows:
            story.frame_starts.setdefault(frame, at)
        if rows:
            story.started = rows[0][4] if rows[0][0] == 1 else None
        story.recent = [Row(n, copy.deepcopy(event), story.descriptions[n], at)
                        for n, event, _, _, at, _ in rows[-RECENT:]]
        return story

    def add(self, seq: int, event: dict, description: dict, at: datetime, frame_number) -> None:
        """Record the row just stored (the next seq)."""
        row = Row(seq, copy.deepcopy(event), dict(description), at)
        self.recent = [*self.recent[-(RECENT - 1):], row]
        self.descriptions[seq] = row.description
        if seq == 1:
            self.started = at
        self.frame_starts.setdefault(frame_number, at)

    def screen(self, before: dict | None, state: dict, options: dict) -> Screen:
        """The :class:`Screen` of the newest row: a new tuple and dict, so later appends do
        not change it (the rows and descriptions in it are never mutated)."""
        recent = tuple(reversed(self.recent))
        wanted = wanted_descriptions((r.seq for r in recent), options)
        return Screen(recent, before, {s: self.descriptions[s] for s in wanted if s in self.descriptions},
                      self.started, self.frame_starts.get(state.get("frame_number")))


@dataclass(frozen=True)
class Change:
    """One appended event as every screen needs it, built once under the match's lock.

    ``seq`` is the event's number in the log; ``event`` the event as the engine normalised it;
    ``state`` the engine's state after it (contract section 7) and ``options`` its
    ``Match.options()`` then (legal balls, foul and undo previews for the tablet; empty when
    ``repeated``);
    ``description`` ``{"pt", "en"}``. ``repeated`` is True when a repeated idempotency key
    returned the first answer again: nothing was stored and nothing is broadcast. ``match`` is
    the row as locked (its ``seq`` already advanced). ``screen`` is what the screens read of the
    log at this seq (:class:`Screen`), so rendering the change queries nothing; ``None`` when
    ``repeated``. ``origin`` names the live socket of the tablet that sent the tap (empty: none):
    that tablet draws the POST's answer, so the change is not pushed to it again.
    """

    match: Match
    seq: int
    event: dict
    state: dict
    options: dict
    description: dict
    repeated: bool = False
    screen: Screen | None = field(default=None, compare=False)
    origin: str = ""

    def as_json(self) -> dict:
        """``{"seq", "state", "description"}``: the body of the API's 201 answer."""
        return {"seq": self.seq, "state": self.state, "description": self.description}


_subscribers: list[Callable[[Change], None]] = []


def on_commit(fn: Callable[[Change], None]) -> None:
    """Have ``fn(change)`` called after each append commits, in seq order within this process.

    The live layer subscribes at start-up (``LiveConfig.ready``). ``fn`` must not raise: it runs
    after the answer is decided; a failure is logged and screens catch up on their own.
    """
    if fn not in _subscribers:
        _subscribers.append(fn)


def _publish(change: Change) -> None:
    for fn in list(_subscribers):
        try:
            fn(change)
        except Exception:  # noqa: BLE001 - the event is stored; screens resynchronise
            logger.exception("after-commit subscriber failed for match %s seq %s", change.match.pk,
                          change.seq)


_settlers: list[Callable[[Change], None]] = []


def on_settled(fn: Callable[[Change], None]) -> None:
    """Have ``fn(change)`` called after each append commits *and* its match's locks are
    released (the row lock with the commit, this process's lock and writer slot after the
    :func:`on_commit` subscribers): the competition's reaction to a result (``advance``) reads
    and writes other rows, and under the match's lock it held the next tap of that match, and
    the referee's answer, behind it. ``fn`` must not raise (a failure is logged)."""
    if fn not in _settlers:
        _settlers.append(fn)


def _settle(change: Change) -> None:
    for fn in list(_settlers):
        try:
            fn(change)
        except Exception:  # noqa: BLE001 - the event is stored; the desk can advance again
            logger.exception("after-lock subscriber failed for match %s seq %s", change.match.pk, change.seq)


_notables: list[Callable[[Change], None]] = []


def on_notable(fn: Callable[[Change], None]) -> None:
    """Have ``fn(change)`` called inside the append's own transaction, under the match's lock,
    for each change the :func:`on_settled` subscribers act on (:func:`_notable`: a match's
    first event, the event that ended it, an undo that took its end back), before it commits.

    For what must be stored with the event or not at all (a competition marked due, a webhook's
    news): it costs the referee one statement in the transaction instead of a commit of its own
    after it. ``fn`` must not publish (nothing is committed yet); an exception it raises refuses
    the append (nothing stored)."""
    if fn not in _notables:
        _notables.append(fn)


def _note(change: Change) -> None:
    for fn in list(_notables):
        fn(change)


_restaters: list[Callable[[int], None]] = []


def on_restate(fn: Callable[[int], None]) -> None:
    """Have ``fn(match_id)`` called after a desk action changed what a match's screens show
    without a new event (a W.O.: same seq, another state); the live layer renders the match
    again and pushes it as new to every socket of it."""
    if fn not in _restaters:
        _restaters.append(fn)


_reopen_guards: list[Callable[[Match], None]] = []


def on_reopen(fn: Callable[[Match], None]) -> None:
    """Have ``fn(match)`` asked, under the match's lock, before an undo takes back the end of a
    finished match: it raises a ``SinucaError`` (``OperationRefused``) when the match may not
    be reopened (a competition's result that a started match depends on); nothing is stored
    then. The log imports nothing of those who ask."""
    if fn not in _reopen_guards:
        _reopen_guards.append(fn)


def publish_again(match_id: int) -> None:
    """Tell the :func:`on_restate` subscribers that ``match_id`` shows something new."""
    for fn in list(_restaters):
        try:
            fn(match_id)
        except Exception:  # noqa: BLE001 - stored already; screens resynchronise
            logger.exception("restate subscriber failed for match %s", match_id)


# match id -> (seq folded, engine, view, story, config). The engine is mutated by apply(), so
# only the holder of the match's lock below touches it, and the story (what the screens show of
# the log) likewise. ``view`` is ``(state, options)`` at that seq, stored only once that seq is
# committed and never mutated afterwards: readers take it without any lock (None while an append
# is between apply() and commit). ``config`` is the match row's config the engine was built
# from: an entry is used only while the row still has that seq *and* that config, so a desk
# change of the config (a player renamed) needs no lock to retire the engines that have the old
# names, in this process or any other.
#
# At most ``settings.ENGINE_CACHE_BYTES`` of them (least recently used out first): an entry grows
# with its match's log (the engine's snapshot per event for undo, the story's description per
# event), and a process that has served a whole competition must not keep every match it saw.
# Dropping one is :func:`forget`: the next read replays its log.
ENTRY_EVENT_BYTES = 1_100  # an event's share of an entry (engine snapshot + description), about
ENTRY_BASE_BYTES = 40_000  # the view (state and options) and the rest, about


def _entry_bytes(entry: tuple) -> int:
    """The bytes a cache entry holds, about: it grows with the events folded."""
    return ENTRY_BASE_BYTES + ENTRY_EVENT_BYTES * len(entry[1])


def _engine_cache_bytes() -> int:
    from django.conf import settings

    return int(getattr(settings, "ENGINE_CACHE_BYTES", 96 * 1024 * 1024))


_engines: ByteLRU[tuple[int, sinuca.Match, tuple[dict, dict] | None, _Story, dict]] = ByteLRU(
    _engine_cache_bytes, sizeof=_entry_bytes)
memory.remembered(_engines.clear)
_locks: defaultdict[int, threading.RLock] = defaultdict(threading.RLock)
_locks_guard = threading.Lock()


def _match_lock(match_id: int) -> threading.RLock:
    """This process's lock for one match (the database row lock covers other processes).

    Private: it is taken only through :func:`locked`, which keeps the one lock order (never
    wait for it while holding a database connection), and tried without waiting by the
    lock-free read (``tests/web/test_lock_order.py`` fails on any other use)."""
    with _locks_guard:
        return _locks[match_id]


def _cached(match: Match, seq: int):
    """This process's cache entry of ``match`` if it folded ``seq`` of the row's config, else None."""
    cached = _engines.get(match.pk)
    if cached and cached[0] == seq and cached[4] == match.config:
        return cached
    return None


@contextmanager
def locked(match_id: int):
    """Hold the match's lock, taken *before* any database connection.

    The lock order is match lock, then connection. A thread that already holds a pooled
    connection (a token or session lookup) and finds the lock taken gives its connection back to
    the pool before it waits, so a lock holder waiting for a connection can never be waiting for
    one held by a thread that waits for its lock (issue 15: a TV page and 20 taps jammed a
    worker until the pool's time-out). Inside a transaction the connection cannot be given back;
    nothing on the request paths appends inside one, and the desk's actions that run inside one
    (a W.O., a rename, a correction) take no match lock: the row lock orders them with appends."""
    lock = _match_lock(match_id)
    if not lock.acquire(blocking=False):
        give_back_connection()
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _replay(match: Match, seq: int, *, story: bool = True) -> tuple[sinuca.Match, _Story | None]:
    """The log folded up to ``seq``, and its story, from one query (the frame number is read
    inside the database, not each row's whole state). The story's columns cost about as much
    again as the fold (943 events: 5 ms -> 11 ms), so ``story=False`` (an engine nobody keeps)
    reads the events only."""
    events = Event.objects.filter(match_id=match.pk, seq__lte=seq).order_by("seq")
    if not story:
        return sinuca.Match.replay(match.config, list(events.values_list("event", flat=True))), None
    rows = list(events.values_list("seq", "event", "description_pt", "description_en", "at",
                                   "state__frame_number"))
    return sinuca.Match.replay(match.config, [r[1] for r in rows]), _Story.of_rows(rows)


def _entry_at(match: Match, seq: int):
    """The cache entry ``(seq, engine, view, story, config)`` folded up to ``seq``: the cached
    one if it is there; one that is behind (another worker appended since) brought up to date
    with the rows after it (:func:`_catch_up`); else a replay of the whole log (cached). Call
    with the match's lock held; the entry is returned, not looked up again, since
    :func:`forget` may drop it meanwhile."""
    cached = _cached(match, seq)
    if cached:
        return cached
    behind = _engines.get(match.pk)
    if behind and behind[4] == match.config and behind[0] < seq and behind[2] is not None:
        entry = _catch_up(match, behind, seq)
        if entry is not None:
            return entry
    engine, story = _replay(match, seq)
    # a replay reads committed rows only: its view may be shared at once
    entry = _engines[match.pk] = (seq, engine, _view(engine), story, match.config)
    return entry


def _catch_up(match: Match, behind: tuple, seq: int):
    """``behind``'s engine and story fed the events after its seq up to ``seq`` (one query for
    those rows), cached and returned; None (and the entry dropped) when the rows are not all
    there or the engine refuses one. When two workers take turns at a match's taps, each append
    found its engine one or more events behind and replayed the whole log: under a flood of one
    match that was a fold of hundreds of events per tap, all of it CPU the other matches'
    referees wait behind (issue 15)."""
    old_seq, engine, _, story, config = behind
    rows = list(Event.objects.filter(match_id=match.pk, seq__gt=old_seq, seq__lte=seq).order_by("seq")
                .values_list("seq", "event", "description_pt", "description_en", "at", "state__frame_number"))
    if [r[0] for r in rows] != list(range(old_seq + 1, seq + 1)):
        return None
    try:
        for n, event, pt, en, at, frame in rows:
            engine.apply(event)
            story.add(n, event, {"pt": pt, "en": en}, at, frame)
    except SinucaError:
        _engines.pop(match.pk, None)  # moved part of the way: the log decides (a full replay)
        return None
    entry = _engines[match.pk] = (seq, engine, _view(engine), story, config)
    return entry


def _engine_at(match: Match, seq: int) -> sinuca.Match:
    """The engine folded up to ``seq`` (:func:`_entry_at`). Call with the match's lock held."""
    return _entry_at(match, seq)[1]


def _view(engine: sinuca.Match) -> tuple[dict, dict]:
    """``(state, options)`` of the engine now, as private copies nobody mutates."""
    return copy.deepcopy((engine.state(), screen_options(engine)))


def forget(match_id: int) -> None:
    """Drop the cached engine of a match (the next read replays the log). Takes no lock and
    waits for nothing, so it may be called inside a transaction: an append under way keeps its
    own engine, which the next one uses only if the row's seq and config still match it."""
    _engines.pop(match_id, None)


@dataclass(frozen=True)
class Snapshot:
    """A consistent view of a match: its row, the seq and the engine's state and options then."""

    match: Match
    seq: int
    state: dict
    options: dict


def screen_options(engine: sinuca.Match) -> dict:
    """The engine's ``options()`` plus what the screens show that only the engine knows, read
    under the lock: its facts (:meth:`sinuca.Match.facts`: ``free_ball_shown``, ``at_table``,
    ``at_table_player``, ``next_player``, ``winner``, ``best_of``, ``pending_foul``);
    ``break_balls`` (the balls of the current break, TV and overlay); ``undo_target``, the seq of
    the event an undo would take back now (``None``: nothing), and ``undone``, ``{seq of an event
    taken back: seq of the undo that took it back}`` for the whole log. The engine pairs the undos
    (it pops what it took back); seq is its log position + 1."""
    target = engine.undo_target()
    return {**engine.options(), **engine.facts(), "break_balls": engine.break_balls(),
            "undo_target": target + 1 if target is not None else None,
            "undone": {e + 1: u + 1 for e, u in engine.undone().items()}}


def snapshot(match_id: int) -> Snapshot:
    """The current state of a match as committed. Raises ``Match.DoesNotExist``.

    Lock-free: it never waits for the writers' lock (a screen's read must not queue behind a
    burst of taps, nor hold a connection while it waits). It reads the row, then takes the view
    cached at the row's seq; when there is none (another process wrote, or this one has not
    read the match yet) it folds the log itself, caching the result only if the lock is free."""
    return snapshot_of(Match.objects.get(pk=match_id))


def snapshot_of(match: Match) -> Snapshot:
    """:func:`snapshot` for a match row already read (a page reads it with its players and
    table joined)."""
    if match.walkover or match.correction:
        # a W.O. or a corrected result is a match-level result: the screens show it over
        snap = _snapshot_of(match)
        state = shown_state(match, snap.state)
        # nothing can be played or undone; the facts the screens read say the match is over
        options = {**{k: v for k, v in snap.options.items() if k not in ("events",)}, "events": [],
                   "break_balls": [], "free_ball_shown": False, "at_table": None,
                   "at_table_player": None, "next_player": None,
                   "winner": state["match_winner"], "pending_foul": None, "undo_target": None}
        return Snapshot(match, match.seq, state, options)
    return _snapshot_of(match)


def _snapshot_of(match: Match) -> Snapshot:
    """The lock-free read of :func:`snapshot`, for a match row already read."""
    match_id = match.pk
    cached = _cached(match, match.seq)
    if cached and cached[2] is not None:
        state, options = copy.deepcopy(cached[2])
        return Snapshot(match, match.seq, state, options)
    lock = _match_lock(match_id)
    if lock.acquire(blocking=False):  # never waits: this thread holds a connection
        try:
            engine = _engine_at(match, match.seq)
            state, options = engine.state(), screen_options(engine)
        finally:
            lock.release()
        return Snapshot(match, match.seq, state, options)
    engine, _ = _replay(match, match.seq, story=False)  # a private engine: nobody else sees it
    return Snapshot(match, match.seq, engine.state(), screen_options(engine))


def with_engine(match_id: int, fn):
    """Call ``fn(match, seq, engine)`` on the current engine under the match's lock.

    For read-only questions to the engine (``preview``, ``foul_preview``); ``fn`` must not apply.
    """
    with locked(match_id):
        match = Match.objects.get(pk=match_id)
        return fn(match, match.seq, _engine_at(match, match.seq))


def append_event(match_id: int, event, *, expected_seq: int | None = None, key: str | None = None,
                 entered_by: str = "", origin: str = "", recorded: bool = False) -> Change:
    """Append one referee action to the match's log; after commit, hand the :class:`Change` to
    the :func:`on_commit` subscribers (under the match's lock, so changes leave in seq order), then,
    once the locks are released, to the :func:`on_settled` ones.

    The idempotency ``key`` is looked up first: a repeated key with the same event returns the
    first answer again and stores nothing (so a retried tap is safe even with a now-stale
    ``expected_seq``); with a different event it raises :class:`KeyReused`. Then a stale
    ``expected_seq`` raises :class:`Conflict`; an event the rules reject raises ``SinucaError`` and
    changes nothing. Raises ``Match.DoesNotExist`` for an unknown match.

    At most ``MATCH_WRITERS`` appends of one match wait here at once in this process (see
    :data:`~scoreboard.core.limits.WRITERS`); beyond that it raises
    :class:`~scoreboard.core.limits.MatchBusy` at once, before any database work.

    An event that ended the match, or an undo that took its end back, also marks the match's row
    ``results_due`` in the same UPDATE as its seq (the competition reacts after the commit, and a
    worker that dies before it did leaves the mark to ``competitions.run_due``).

    ``recorded``: the event was scored at a venue and is stored at its federation
    (``core.federation``): the engine still folds it, but the venue's own rules of the day (one
    match per table, a player at one table, a finished competition match reopened) were the
    venue's to apply. At a venue of a federation the event also goes to the outbox, in this
    transaction.
    """
    settled: list[Change] = []  # committed while the locks are held: handed on after them
    holding = [True]

    def committed(answer: Change) -> None:
        _publish(answer)
        if holding[0]:
            settled.append(answer)
        else:  # the caller's own transaction committed it, after the append returned
            _settle(answer)

    try:
        return _append(match_id, event, expected_seq, key, entered_by, origin, committed, recorded)
    finally:
        holding[0] = False
        for change in settled:
            _settle(change)


def _append(match_id: int, event, expected_seq: int | None, key: str | None, entered_by: str, origin: str,
            committed: Callable[[Change], None], recorded: bool = False) -> Change:
    """:func:`append_event` under the writer slot and the match's lock; ``committed(change)``
    runs once the transaction commits."""
    with WRITERS.slot(match_id), locked(match_id):
        applied = False
        try:
            with transaction.atomic():
                # the players and the table join for the screens (photo, club, flag, table name), so
                # the after-commit render needs no query for them; only the match is locked
                match = (Match.objects.select_related("player_a", "player_b", "table")
                         .select_for_update(of=("self",)).get(pk=match_id))
                if key:
                    first = Event.objects.filter(match=match, key=key).first()
                    if first is not None:
                        if not same_event(first.event, event):
                            raise KeyReused(first.seq)
                        return Change(match, first.seq, first.event, first.state, {},
                                      first.description, repeated=True)
                if expected_seq is not None and expected_seq != match.seq:
                    raise Conflict(match.seq)
                if match.walkover is not None:
                    raise OperationRefused("match_over", f"O jogo {match.pk} terminou por W.O.",
                                           f"Match {match.pk} ended by a walkover")
                if match.seq == 0 and match.started_at is None and not recorded:
                    # the first event starts the match: one match in progress per table, and a
                    # competition's player at one table at a time (in any competition)
                    check_table_free(match.table, match.pk)
                    if Fixture.objects.filter(match_id=match.pk).exists():
                        check_players_free(match)
                _, engine, view, story, _ = _entry_at(match, match.seq)
                # the committed view at the seq before (never mutated): the pop-ups' "before",
                # none before the first event (as the log has no row then)
                before = (None if match.seq == 0 else view[0] if view is not None
                          else copy.deepcopy(engine.state()))
                if (_reopen_guards and not recorded and before is not None and before.get("phase") == sinuca.Phase.MATCH_OVER
                        and isinstance(event, dict) and event.get("type") == "undo"):
                    for guard in list(_reopen_guards):
                        guard(match)  # SinucaError: refused, nothing changed
                step = engine.apply(event)  # SinucaError: nothing changed, nothing to clean up
                applied = True
                seq = match.seq + 1
                state = step.state
                row = Event.objects.create(match=match, seq=seq, event=step.event, key=key or None,
                                           entered_by=entered_by[:80], state=state,
                                           description_pt=step.description["pt"][:300],
                                           description_en=step.description["en"][:300])
                # a result that changed is marked on the row in the same statement (``results_due``)
                due = {"results_due": True} if result_changed(before, state, step.event) else {}
                Match.objects.filter(pk=match.pk).update(seq=seq, **due)
                match.seq = seq
                outbox.record_event(match, seq, row.event, row.entered_by, row.at)
                _engines[match.pk] = (seq, engine, None, story, match.config)  # not committed: no view for readers
                # the row as stored (``at`` is set on the instance by auto_now_add), so the
                # screens' render reads nothing back
                story.add(seq, row.event, row.description, row.at, state.get("frame_number"))
                options = screen_options(engine)
                answer = Change(match, seq, step.event, state, options, dict(step.description),
                                screen=story.screen(before, state, options), origin=origin)
                if _notable(before, state, step.event, seq):
                    _note(answer)
                # Still under the lock: changes leave in seq order from this process.
                transaction.on_commit(lambda: committed(answer))
            # committed: readers may take this seq's view without the lock
            _engines[match.pk] = (seq, engine, copy.deepcopy((state, answer.options)), story, match.config)
        except BaseException:
            if applied:  # the engine moved but the row did not: the log decides next time
                _engines.pop(match_id, None)
            raise
        return answer


def redescribe(match: Match) -> int:
    """Write the descriptions of ``match``'s logged events again from its config as it is now
    (a player renamed: "Último lance", the story and the feeds' ``last_action`` read them, and
    showed the old name after the rename). The log folded by a new engine of that config, in one
    query, and each row whose words changed updated; the events, their seqs and states are not
    touched. For the caller's transaction, which holds the match's row lock (the desk's
    actions take no match lock). Returns how many rows changed."""
    engine = sinuca.Match(match.config)
    changed = []
    for pk, event, pt, en in (Event.objects.filter(match_id=match.pk).order_by("seq")
                              .values_list("pk", "event", "description_pt", "description_en")):
        words = engine.apply(event).description
        if (words["pt"][:300], words["en"][:300]) != (pt, en):
            changed.append(Event(pk=pk, description_pt=words["pt"][:300], description_en=words["en"][:300]))
    Event.objects.bulk_update(changed, ["description_pt", "description_en"], batch_size=500)
    return len(changed)


def append_many(match_id: int, events: list, *, entered_by: str = "", batch: int = 500) -> int:
    """Append a whole recorded log to a match (an import), in one transaction, and return the
    new seq. Each event goes through the engine as a tap would and is stored with its seq, state
    and descriptions, but nothing is broadcast per event and no options are computed: importing
    3,000 events one :func:`append_event` at a time rendered every page 3,000 times (minutes).
    A refused event raises ``SinucaError`` (with ``index``) and stores nothing.
    """
    with locked(match_id):
        try:
            with transaction.atomic():
                # the players and the table join for the screens (photo, club, flag, table name), so
                # the after-commit render needs no query for them; only the match is locked
                match = (Match.objects.select_related("player_a", "player_b", "table")
                         .select_for_update(of=("self",)).get(pk=match_id))
                _, engine, _, story, _ = _entry_at(match, match.seq)
                seq, rows = match.seq, []
                for i, event in enumerate(events):
                    try:
                        step = engine.apply(event)
                    except SinucaError as e:
                        e.index = i
                        raise
                    seq += 1
                    rows.append(Event(match=match, seq=seq, event=step.event, key=None,
                                      entered_by=entered_by[:80], state=step.state,
                                      description_pt=step.description["pt"][:300],
                                      description_en=step.description["en"][:300]))
                    if len(rows) >= batch:
                        _store(rows, story)
                        rows = []
                _store(rows, story)
                Match.objects.filter(pk=match.pk).update(seq=seq)
                if outbox.enabled():
                    for r in Event.objects.filter(match=match, seq__gt=match.seq).order_by("seq"):
                        outbox.record_event(match, r.seq, r.event, r.entered_by, r.at)
                _engines[match.pk] = (seq, engine, None, story, match.config)
            _engines[match.pk] = (seq, engine, _view(engine), story, match.config)
        except BaseException:
            _engines.pop(match_id, None)
            raise
        return seq


def _notable(before: dict | None, state: dict, event: dict, seq: int) -> bool:
    """Whether the :func:`on_settled` subscribers act on this event: a match's first event, an
    event that ended it, or an undo that took its end back (the webhooks and the competitions
    ignore every other one)."""
    return seq == 1 or result_changed(before, state, event)


def result_changed(before: dict | None, state: dict, event: dict) -> bool:
    """Whether an event changed its match's result: it ended the match, or it was an undo that
    took the end back. The log marks the match's row (``Match.results_due``) in the event's own
    UPDATE; the competitions clear it once they have reacted (``competitions.run_due``)."""
    over = sinuca.Phase.MATCH_OVER
    return state.get("phase") == over or (event.get("type") == "undo" and (before or {}).get("phase") == over)


def append_recorded(match_id: int, items: list[tuple[str, dict, str]], *, expected_seq: int) -> Change:
    """Append a run of events scored at a venue (``core.federation``'s ingest), ``items`` of
    ``(key, event, entered_by)`` for seqs ``expected_seq + 1`` onwards, in one transaction, and
    return the :class:`Change` of the last one.

    Each event goes through the engine and is stored with its key, seq, state and descriptions
    as :func:`append_event` stores it (``recorded``: the venue's rules of the day were the
    venue's), but the run commits once and the screens are handed one change, the last one:
    the pages draw the latest seq and the feed sockets fill the seqs between from the log. The
    :func:`on_settled` subscribers get every change they act on (a start, an end, an end taken
    back) and the last one, in seq order. A 40-match day one event at a time was a commit, a
    render and a publish per event.

    Raises :class:`Conflict` when the match is not at ``expected_seq``, :class:`KeyReused`
    when a key is already in the log, ``SinucaError`` (with ``index``, the item refused) when
    the engine refuses one: nothing is stored then.
    """
    if not items:
        raise ValueError("append_recorded needs at least one event")
    settled: list[Change] = []  # committed while the locks are held: handed on after them
    holding = [True]
    try:
        return _append_recorded(match_id, items, expected_seq, holding, settled)
    finally:
        holding[0] = False
        for change in settled:
            _settle(change)


def _append_recorded(match_id: int, items: list, expected_seq: int, holding: list, settled: list) -> Change:
    """:func:`append_recorded` under the writer slot and the match's lock."""
    with WRITERS.slot(match_id), locked(match_id):
        try:
            with transaction.atomic():
                match = (Match.objects.select_related("player_a", "player_b", "table")
                         .select_for_update(of=("self",)).get(pk=match_id))
                if expected_seq != match.seq:
                    raise Conflict(match.seq)
                if match.walkover is not None:
                    raise OperationRefused("match_over", f"O jogo {match.pk} terminou por W.O.",
                                           f"Match {match.pk} ended by a walkover")
                keys = [k for k, _, _ in items if k]
                used = (Event.objects.filter(match=match, key__in=keys).order_by("seq").values_list("seq", "key")
                        .first() if keys else None)
                if used is not None:
                    raise KeyReused(*used)
                _, engine, view, story, _ = _entry_at(match, match.seq)
                before = (None if match.seq == 0 else view[0] if view is not None
                          else copy.deepcopy(engine.state()))
                seq, rows, changes, due = match.seq, [], [], False
                for i, (key, event, entered_by) in enumerate(items):
                    try:
                        step = engine.apply(event)
                    except SinucaError as e:
                        e.index = i
                        raise
                    seq += 1
                    rows.append(Event(match=match, seq=seq, event=step.event, key=key or None,
                                      entered_by=entered_by[:80], state=step.state,
                                      description_pt=step.description["pt"][:300],
                                      description_en=step.description["en"][:300]))
                    notable = _notable(before, step.state, step.event, seq)
                    due = due or result_changed(before, step.state, step.event)
                    if i == len(items) - 1 or notable:
                        # stored up to here, so the story (and the change's screen) is this seq's
                        _store(rows, story)
                        rows = []
                        options = screen_options(engine)
                        changes.append(Change(match, seq, step.event, step.state, options, dict(step.description),
                                              screen=story.screen(before, step.state, options)))
                        if notable:
                            _note(changes[-1])
                    before = step.state
                Match.objects.filter(pk=match.pk).update(seq=seq, **({"results_due": True} if due else {}))
                match.seq = seq
                if outbox.enabled():
                    for r in Event.objects.filter(match=match, seq__gt=expected_seq).order_by("seq"):
                        outbox.record_event(match, r.seq, r.event, r.entered_by, r.at)
                _engines[match.pk] = (seq, engine, None, story, match.config)  # not committed: no view for readers
                last = changes[-1]

                def committed() -> None:
                    _publish(last)
                    if holding[0]:
                        settled.extend(changes)
                    else:  # the caller's own transaction committed it, after the append returned
                        for change in changes:
                            _settle(change)

                transaction.on_commit(committed)
            # committed (or the caller's transaction will): readers may take this seq's view
            _engines[match.pk] = (seq, engine, copy.deepcopy((last.state, last.options)), story, match.config)
        except BaseException:
            _engines.pop(match_id, None)  # the engine may have moved: the log decides next time
            raise
        return last


def _store(rows: list[Event], story: _Story) -> None:
    """Insert a batch of an import and record it in the match's story (``bulk_create`` sets
    each instance's ``at``, as the database has it)."""
    Event.objects.bulk_create(rows)
    for r in rows:
        story.add(r.seq, r.event, r.description, r.at, r.state.get("frame_number"))


KEY_MAX = 100


def valid_key(key) -> bool:
    """An idempotency key: 1 to 100 printable characters (no NUL, which PostgreSQL refuses)."""
    return isinstance(key, str) and 1 <= len(key) <= KEY_MAX and key.isprintable()


def last_states(match_ids) -> dict[int, dict]:
    """match id -> the engine's state after its latest event, as stored in the log (one query:
    the state every row keeps is the engine's answer to that event; a match with no event is
    absent). Every competition format reads its results from it."""
    from django.db.models import F

    # a match's latest event is the one whose seq is the match's own (seq counts its events)
    return dict(Event.objects.filter(match_id__in=list(match_ids), seq=F("match__seq")).order_by()
                .values_list("match_id", "state"))


def events_of(match_id: int) -> list[Event]:
    """The match's log, in order."""
    return list(Event.objects.filter(match_id=match_id).order_by("seq"))


def events_page(match_id: int, after: int, limit: int) -> list[Event]:
    """Up to ``limit`` events of the match's log with seq > ``after``, in order."""
    return list(Event.objects.filter(match_id=match_id, seq__gt=after).order_by("seq")[:limit])


__all__ = ["RECENT", "Row", "Screen", "wanted_descriptions", "Change", "OperationRefused", "on_reopen", "on_restate", "publish_again", "Conflict", "KeyReused", "SinucaError", "Snapshot", "append_event", "redescribe",
           "append_many", "append_recorded", "events_of", "events_page", "forget", "last_states", "locked", "on_commit", "on_notable", "on_settled", "result_changed", "snapshot", "snapshot_of", "valid_key",
           "with_engine"]
