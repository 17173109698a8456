"""What the boards show changed without an event: a competition's call, move, W.O., start,
postpone, correction, withdrawal, a match made or dropped by the results flow, a table added or
changed. Announced like a match event, only after it commits, to whoever subscribed (the live
layer, at start-up: every process's hub refreshes its boards, the desk, the event hub and the
table's tablet among them). The log imports nothing above it; neither does this module.

Every desk action leaves an audit row (:class:`~.models.MatchRecord`), so saving one announces
its match by itself (a ``post_save`` receiver, :func:`connect`); what writes no audit row (the
results flow making or dropping matches, a table saved in the admin) calls :func:`announce`.
The boards' fingerprint (``live.boards.fingerprint``) stays only as a safety net for a push lost
on the way (Redis pub/sub delivers at most once).
"""
from __future__ import annotations

import logging
import threading
from typing import Callable, Iterable

from django.db import transaction

logger = logging.getLogger(__name__)

EVERYTHING = None
"""What :func:`announce` hands the subscribers when the change has no match (a redraw, a table):
every board refreshes."""

_subscribers: list[Callable[[frozenset | None], None]] = []
_pending = threading.local()  # this thread's announced matches not yet handed on


def on_change(fn: Callable[[frozenset | None], None]) -> None:
    """Have ``fn(match_ids)`` called after each transaction that announced a change commits:
    ``match_ids`` the matches it touched (a frozenset of pks), or ``None`` (:data:`EVERYTHING`)
    when some change touched no one match. ``fn`` must not raise (a failure is logged; the
    boards' fingerprint catches up within about a second)."""
    if fn not in _subscribers:
        _subscribers.append(fn)


def announce(match_ids: Iterable[int | None] = ()) -> None:
    """Tell the subscribers, once the current transaction commits (at once outside one), that
    what these matches show changed (none given, or a ``None`` among them: everything). Several
    announcements in one transaction reach the subscribers once, together; a rolled-back one
    costs at most a refresh too many."""
    ids = list(match_ids)
    pending = getattr(_pending, "ids", None)
    if pending is None:
        pending = _pending.ids = set()
    if not ids or None in ids:
        _pending.everything = True
    pending.update(i for i in ids if i is not None)
    transaction.on_commit(_flush)


def _flush() -> None:
    ids = getattr(_pending, "ids", None)
    everything = getattr(_pending, "everything", False)
    if not ids and not everything:
        return  # an earlier callback of the same commit handed them on
    _pending.ids, _pending.everything = set(), False
    what = EVERYTHING if everything else frozenset(ids)
    for fn in list(_subscribers):
        try:
            fn(what)
        except Exception:  # noqa: BLE001 - stored already; the boards' fingerprint catches up
            logger.exception("change subscriber failed for %s", what)


def _audited(sender, instance, created: bool, **_kwargs) -> None:
    if created:
        announce([instance.match_id])


def _table_saved(sender, instance, **_kwargs) -> None:
    announce()


def connect() -> None:
    """Announce every audited desk action and every table saved or deleted (once, from
    ``AppConfig.ready``)."""
    from django.db.models.signals import post_delete, post_save

    from .models import MatchRecord, Table

    post_save.connect(_audited, sender=MatchRecord, dispatch_uid="changes.audited")
    post_save.connect(_table_saved, sender=Table, dispatch_uid="changes.table")
    post_delete.connect(_table_saved, sender=Table, dispatch_uid="changes.table_gone")
