"""How much one worker takes on at once: bounded slots for anonymous reads and for PDF renders,
and a bound on one match's concurrent writers. The HTTP side (who waits for which slot, and the
busy answers) is ``scoreboard/http/capacity.py``.

A worker's database pool (settings ``DB_POOL_MAX``) is shared by every request thread. Anonymous
reads are let through :data:`READS` (``READ_SLOTS`` at a time), so however many spectators ask
for the log, a report or a screen's page, the referees' writes still find free connections;
súmula renders go through :data:`PDFS` as well (``PDF_SLOTS``), since each holds a whole
document in memory.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from contextlib import contextmanager

from django.conf import settings
from django.db import connections

from . import memory


class Busy(Exception):
    """This worker cannot take the request now; the client should retry after ``retry_after`` s."""

    def __init__(self, retry_after: int = 2) -> None:
        super().__init__("busy")
        self.retry_after = retry_after


class Slots:
    """A per-process counting semaphore whose size is read from settings on first use."""

    def __init__(self, size_setting: str, wait_setting: str) -> None:
        self.size_setting, self.wait_setting = size_setting, wait_setting
        self._sem: threading.BoundedSemaphore | None = None
        self._guard = threading.Lock()

    def _semaphore(self) -> threading.BoundedSemaphore:
        with self._guard:
            if self._sem is None:
                self._sem = threading.BoundedSemaphore(max(1, getattr(settings, self.size_setting)))
            return self._sem

    def acquire(self, wait: float | None = None) -> None:
        """Take one slot (to be given back with :meth:`release`, from any thread); raise
        :class:`Busy` when none frees up within ``wait`` seconds (default: the wait setting)."""
        if not self._semaphore().acquire(timeout=getattr(settings, self.wait_setting) if wait is None else wait):
            raise Busy()

    def release(self) -> None:
        """Give back a slot taken with :meth:`acquire`."""
        self._semaphore().release()

    @contextmanager
    def slot(self, wait: float | None = None):
        """Hold one slot; raise :class:`Busy` when none frees up within ``wait`` seconds."""
        self.acquire(wait)
        try:
            yield
        finally:
            self.release()


READS = Slots("READ_SLOTS", "READ_WAIT")
PDFS = Slots("PDF_SLOTS", "PDF_WAIT")


class MatchBusy(Busy):
    """Already ``MATCH_WRITERS`` writers of this match in this worker: answered 429 at once."""

    status = 429

    def __init__(self, match_id: int, retry_after: int = 1) -> None:
        super().__init__(retry_after)
        self.match_id = match_id


class MatchWriters:
    """A per-process bound on the concurrent writers of *each* match (settings ``MATCH_WRITERS``).

    One match's appends are serialised by its lock anyway, so more of them waiting buys nothing
    and would hold request threads and pooled connections that other matches' referees need.
    :meth:`slot` refuses at once (:class:`MatchBusy`) rather than queue; it is re-entrant per
    thread, so a view that took the slot before its first query (the API) and the append
    inside it count once.

    Two pools of ``MATCH_WRITERS`` slots per match: one for the credentials this process has
    already seen accepted for the match (:meth:`trust`), one for everyone else. A flood of taps
    with no token or a wrong one (an attacker, a stale client) fills only the second, so the
    match's referee, once one of his taps was accepted, is never answered 429 because of it.
    The first pool is a hint, not an authorisation: the view still checks every credential."""

    TRUSTED_PER_MATCH = 16  # credentials remembered per match (tablets, API clients); oldest go first

    def __init__(self, size_setting: str) -> None:
        self.size_setting = size_setting
        self._counts: defaultdict[tuple[int, bool], int] = defaultdict(int)
        self._trusted: dict[int, dict[str, None]] = {}
        self._guard = threading.Lock()
        self._held = threading.local()

    def count(self, match_id: int, trusted: bool | None = None) -> int:
        """How many writers of the match hold a slot now (of one pool, or of both)."""
        with self._guard:
            return sum(n for (m, t), n in self._counts.items()
                       if m == match_id and (trusted is None or t == trusted))

    def trusted(self, match_id: int, cred: str | None) -> bool:
        """Whether ``cred`` (``http.capacity.credential_key``) was seen accepted for the match here."""
        if cred is None:
            return False
        with self._guard:
            return cred in self._trusted.get(match_id, ())

    def trust(self, match_id: int, cred: str | None) -> None:
        """Remember that ``cred`` was accepted for the match (its later taps use the first pool)."""
        if cred is None:
            return
        with self._guard:
            known = self._trusted.setdefault(match_id, {})
            known.pop(cred, None)
            known[cred] = None
            while len(known) > self.TRUSTED_PER_MATCH:
                del known[next(iter(known))]

    def enter(self, match_id: int, trusted: bool = False) -> bool:
        """Take one of the match's slots of that pool if one is free (give it back with
        :meth:`leave`)."""
        size = max(1, getattr(settings, self.size_setting))
        with self._guard:
            if self._counts[(match_id, trusted)] >= size:
                return False
            self._counts[(match_id, trusted)] += 1
            return True

    def leave(self, match_id: int, trusted: bool = False) -> None:
        """Give back a slot taken with :meth:`enter`."""
        with self._guard:
            self._counts[(match_id, trusted)] -= 1
            if not self._counts[(match_id, trusted)]:
                del self._counts[(match_id, trusted)]

    @contextmanager
    def slot(self, match_id: int, taken: bool = False, trusted: bool = False):
        """Hold one of the match's writer slots in this thread; :class:`MatchBusy` when all of
        its pool are taken. ``taken``: the request already holds one (:class:`WriterGate` took
        it before Django ran), so this thread only records it."""
        held = getattr(self._held, "ids", None)
        if held is None:
            held = self._held.ids = set()
        if match_id in held:
            yield
            return
        if not taken and not self.enter(match_id, trusted):
            raise MatchBusy(match_id)
        held.add(match_id)
        try:
            yield
        finally:
            held.discard(match_id)
            if not taken:
                self.leave(match_id, trusted)


WRITERS = MatchWriters("MATCH_WRITERS")
memory.remembered(WRITERS._trusted.clear)


def give_back_connection() -> None:
    """Return this thread's pooled connection now rather than at the end of the response, so a
    read holds a connection no longer than its slot (no-op without a pool or in a transaction)."""
    conn = connections["default"]
    if "pool" in conn.settings_dict.get("OPTIONS", {}) and not conn.in_atomic_block:
        conn.close()
