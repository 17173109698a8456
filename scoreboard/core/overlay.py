"""The overlays' show/hide switches (the score bar and the statistics panel), written like every
other change: under the match's lock, in a transaction, and told to the live layer only once it
has committed (``transaction.on_commit``), so a switch rolled back is never shown.

The control endpoint (``api.overlay_control``) parses what was asked; this module stores it.
A table's switches belong to the table: they reach every match on it with nothing scored yet,
and a new match on the table takes them (``Match.save``).
"""
from __future__ import annotations

import logging
from typing import Callable

from django.db import transaction
from django.db.models import F

from . import log
from .models import Match

logger = logging.getLogger(__name__)

NAMES = ("bar", "stats")
"""The switches, as the endpoint names them; stored as ``Match.overlay_<name>``."""

_subscribers: list[Callable[[int], None]] = []


def on_switch(fn: Callable[[int], None]) -> None:
    """Have ``fn(match_id)`` called after a switch of that match's overlays commits (the live
    layer subscribes at start-up and pushes the overlays again). ``fn`` must not raise."""
    if fn not in _subscribers:
        _subscribers.append(fn)


def _announce(match_ids: list[int]) -> None:
    for pk in match_ids:
        for fn in list(_subscribers):
            try:
                fn(pk)
            except Exception:  # noqa: BLE001 - stored already; the overlays resynchronise
                logger.exception("overlay subscriber failed for match %s", pk)


def switch(match: Match, values: dict[str, bool], table_id: int | None = None) -> list[int]:
    """Set the switches in ``values`` (``{"bar": False}``) on ``match`` and, for a table's
    switch (``table_id``), on every match of that table with nothing scored yet; each changed
    match's ``overlay_ver`` moves by one. Returns the matches written, announced after commit
    in id order. Values equal to the match's own change nothing (no new version, nothing sent).
    """
    new = {f"overlay_{name}": bool(v) for name, v in values.items()
           if name in NAMES and bool(v) != getattr(match, f"overlay_{name}")}
    if not new:
        return []
    with log.locked(match.pk):  # gives this thread's connection back before it waits
        # the one that starts next on a table is not always the one scheduled first
        targets = {match.pk} | (set(Match.objects.filter(table_id=table_id, seq=0)
                                    .values_list("pk", flat=True)) if table_id is not None else set())
        with transaction.atomic():
            Match.objects.filter(pk__in=targets).update(overlay_ver=F("overlay_ver") + 1, **new)
    written = sorted(targets)
    transaction.on_commit(lambda: _announce(written))
    return written
