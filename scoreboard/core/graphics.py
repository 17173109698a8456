"""The stream graphics' switches of a table (``Table.graphics``), as the control endpoint sets them.

``/tables/<id>/graphics/`` is one transparent 1920×1080 page with every graphic of the table;
each is shown or hidden by a switch that belongs to the table (never to a match), so a Stream Deck
can pre-set a card between matches and it holds across them. The two bars (the ticker of the other
tables and the sponsor slot) are independent; the cards (next match, holding, player intro,
head-to-head, bracket, group) take the middle of the screen, so showing one hides the others
(the newest replaces, like the overlay's pop-ups). Options: ``countdown`` (``HH:MM``, local time,
the next-match and holding cards count down to it; ``""`` clears it) and ``player`` (``a``/``b``:
whose intro card), ``group_letter`` (``"B"``: the group card shows that group; ``""``: the
table's group, else the current stage's groups) and ``bracket_round`` (``"2"``: the bracket card
starts at the knockout's second round; ``""``: the table's match, else the current round).
"""
from __future__ import annotations

import logging
import re
from typing import Callable

from django.db import transaction
from django.db.models import F

from .models import Table

logger = logging.getLogger(__name__)

BARS = ("ticker", "sponsors")
CARDS = ("next", "holding", "intro", "h2h", "bracket", "group")
SWITCHES = BARS + CARDS
OPTIONS = ("countdown", "player", "group_letter", "bracket_round")
DEFAULTS = {**{k: False for k in SWITCHES}, "countdown": "", "player": "a", "group_letter": "", "bracket_round": ""}
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_LETTER = re.compile(r"^[A-Z]{1,2}$")
ROUNDS_MAX = 7  # a knockout of 128

_subscribers: list[Callable[[int], None]] = []


def on_switch(fn: Callable[[int], None]) -> None:
    """Have ``fn(table_id)`` called after a change of that table's graphics commits (the live
    layer subscribes at start-up and refreshes the boards of every process). ``fn`` must not
    raise."""
    if fn not in _subscribers:
        _subscribers.append(fn)


def _announce(table_id: int) -> None:
    for fn in list(_subscribers):
        try:
            fn(table_id)
        except Exception:  # noqa: BLE001 - stored already; the boards' fingerprint catches up
            logger.exception("graphics subscriber failed for table %s", table_id)


class GraphicsError(ValueError):
    """A bad switch or option: ``pt`` and ``en`` say which and why."""

    def __init__(self, pt: str, en: str) -> None:
        super().__init__(en)
        self.pt, self.en = pt, en


def current(table: Table) -> dict:
    """The table's switches and options, every one present (defaults for those never set)."""
    return {**DEFAULTS, **{k: v for k, v in (table.graphics or {}).items() if k in DEFAULTS}}


def parse(wanted: dict, now: dict, switch) -> dict:
    """The new values of the switches and options in ``wanted`` (names of :data:`SWITCHES` and
    :data:`OPTIONS` only; other names are the caller's), from ``now``. ``switch(value, current)``
    reads show/hide/toggle (the overlay's). Raises :class:`GraphicsError`; nothing changes then."""
    new = {}
    for name in SWITCHES:
        if name in wanted:
            value = switch(wanted[name], now[name])
            if value is None:
                raise GraphicsError(f'"{name}" deve ser show, hide ou toggle',
                                    f'"{name}" must be show, hide or toggle')
            new[name] = value
    if "countdown" in wanted:
        value = str(wanted["countdown"]).strip()
        m = _TIME.match(value)
        if value and not m:
            raise GraphicsError('"countdown" deve ser uma hora HH:MM (ou vazio para tirar)',
                                '"countdown" must be a time HH:MM (or empty to clear it)')
        new["countdown"] = f"{int(m.group(1)):02d}:{m.group(2)}" if m else ""
    if "player" in wanted:
        value = str(wanted["player"]).strip().lower()
        if value not in ("a", "b"):
            raise GraphicsError('"player" deve ser a ou b', '"player" must be a or b')
        new["player"] = value
    if "group_letter" in wanted:
        value = str(wanted["group_letter"]).strip().upper()
        if value and not _LETTER.match(value):
            raise GraphicsError('"group_letter" deve ser a letra de um grupo (A, B…) ou vazio para o grupo da mesa',
                                '"group_letter" must be a group\'s letter (A, B…) or empty for the table\'s group')
        new["group_letter"] = value
    if "bracket_round" in wanted:
        value = str(wanted["bracket_round"]).strip()
        if value and not (value.isdigit() and 1 <= int(value) <= ROUNDS_MAX):
            raise GraphicsError(f'"bracket_round" deve ser uma rodada do mata-mata, 1 a {ROUNDS_MAX}, ou vazio para a rodada atual',
                                f'"bracket_round" must be a knockout round, 1 to {ROUNDS_MAX}, or empty for the current round')
        new["bracket_round"] = str(int(value)) if value else ""
    shown = [c for c in CARDS if new.get(c) and not now[c]]
    if shown:  # one card at a time: the newest one shown replaces the others
        for c in CARDS:
            new[c] = c == shown[-1]
    return {k: v for k, v in new.items() if now.get(k) != v}


def apply(table: Table, new: dict) -> dict:
    """Store ``new`` (from :func:`parse`) on the table, counting the change, and announce it to
    the live layer once it has committed (like every other write: a change rolled back is never
    shown); returns the table's switches after it. Nothing is stored or sent when ``new`` is
    empty."""
    if new:
        with transaction.atomic():
            locked = Table.objects.select_for_update().get(pk=table.pk)
            Table.objects.filter(pk=table.pk).update(graphics={**current(locked), **new},
                                                     graphics_ver=F("graphics_ver") + 1)
            pk = table.pk
            transaction.on_commit(lambda: _announce(pk))
        table.refresh_from_db(fields=["graphics", "graphics_ver"])
    return current(table)


def read_switch(value, now: bool) -> bool | None:
    """A switch's new value from ``show``/``hide``/``toggle`` (any case), None if it is none of them."""
    value = str(value).strip().lower()
    return {"show": True, "hide": False, "toggle": not now}.get(value)


def control(table: Table, wanted: dict) -> None:
    """Set a table's overlay switches (``overlay.NAMES``: on the table and the match it shows)
    and its graphics' switches and options from ``wanted`` (names to ``show``/``hide``/``toggle``,
    ``countdown`` ``HH:MM``, ``player`` ``a``/``b``), as the streamer's controls page sends them.
    Raises :class:`GraphicsError` for a bad value; nothing is stored then. Each change is pushed
    once it has committed (``overlay.switch``, :func:`apply`)."""
    from . import overlay
    from .tables import table_now

    now = table_now(table)
    match = now.current or now.next or now.last  # the match the table's switches act on now
    on = overlay.current(table) if match is None else {n: getattr(match, f"overlay_{n}") for n in overlay.NAMES}
    values = {}
    for name in overlay.NAMES:
        if name in wanted:
            value = read_switch(wanted[name], on[name])
            if value is None:
                raise GraphicsError(f'"{name}" deve ser show, hide ou toggle', f'"{name}" must be show, hide or toggle')
            values[name] = value
    new = parse({k: v for k, v in wanted.items() if k in SWITCHES + OPTIONS}, current(table), read_switch)
    # both parsed before anything is stored: a bad value changes nothing
    apply(table, new)
    if values:
        overlay.switch(match, values, table)
