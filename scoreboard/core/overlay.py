"""The overlays' show/hide switches (the score bar and the statistics panel), written like every
other change: under the match's lock, in a transaction, and told to the live layer only once it
has committed (``transaction.on_commit``), so a switch rolled back is never shown.

The control endpoint (``api.overlay_control``) parses what was asked; this module stores it.
The switches belong to the table (``Table.overlay_bar``, ``overlay_stats``, ``overlay_words``), as the stream
graphics' do: set before the table's first match, they hold; they reach every match on it with
nothing scored yet, and a new match on the table takes them (``Match.save``).
"""
from __future__ import annotations

import logging
from contextlib import nullcontext
from typing import Callable

from django.db import transaction
from django.db.models import F

from . import log
from .models import Match, Table

logger = logging.getLogger(__name__)

NAMES = ("bar", "stats", "words")
"""The switches, as the endpoint names them (``words``: the foul and retorno pop-ups add the
cited item's first words, off by default); stored as ``Table.overlay_<name>`` and ``Match.overlay_<name>``."""

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


def switch(match: Match | None, values: dict[str, bool], table: Table | None = None) -> list[int]:
    """Set the switches in ``values`` (``{"bar": False}``).

    The switches belong to the table (``Table.overlay_bar``, ``overlay_stats``): a table's switch
    (``table``) is stored on the table, even one that has no match yet (``match`` None: a Stream
    Deck pre-sets the bar before the day's first match), and on ``match`` (the one on the table
    now, else its next or last) and every match of that table with nothing scored yet; a match's
    own switch (no ``table``) is stored on the match and on its table, if it has one. A new match
    on the table takes the table's (``Match.save``). Each changed match's ``overlay_ver`` moves
    by one. Returns the matches written, announced after commit in id order. Values equal to the
    stored ones change nothing (no new version, nothing sent).
    """
    values = {name: bool(v) for name, v in values.items() if name in NAMES}
    table_id = table.pk if table is not None else (match.table_id if match is not None else None)
    new = ({f"overlay_{name}": v for name, v in values.items() if v != getattr(match, f"overlay_{name}")}
           if match is not None else {})
    with log.locked(match.pk) if match is not None else nullcontext():  # gives this thread's connection back before it waits
        with transaction.atomic():
            if table_id is not None:
                row = Table.objects.select_for_update().filter(pk=table_id).values(*(f"overlay_{n}" for n in NAMES)).first()
                own = {f"overlay_{n}": v for n, v in values.items() if row is not None and row[f"overlay_{n}"] != v}
                if own:
                    Table.objects.filter(pk=table_id).update(**own)
            if not new:
                return []
            # the one that starts next on a table is not always the one scheduled first
            targets = {match.pk} | (set(Match.objects.filter(table_id=table_id, seq=0)
                                        .values_list("pk", flat=True)) if table is not None else set())
            Match.objects.filter(pk__in=targets).update(overlay_ver=F("overlay_ver") + 1, **new)
    written = sorted(targets)
    transaction.on_commit(lambda: _announce(written))
    return written


def current(table: Table) -> dict:
    """The table's switches, ``{"bar", "stats", "words"}`` (what its next match will take)."""
    return {n: getattr(table, f"overlay_{n}") for n in NAMES}
