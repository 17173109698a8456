"""A match as the contract's JSON (``{"config", "events"}``), out and in.

The export is exactly what ``python -m sinuca replay`` reads. An import checks the file (size,
depth, names, the engine's replay of the whole log) first, then stores every event through the
engine with ``log.append_many`` in one transaction, so the imported match has the same log and
descriptions as one scored live, without a broadcast per event.
"""
from __future__ import annotations

import json

from django.db import transaction

import sinuca

from ..core import log, names
from ..core.i18n import both, pair
from ..core.matches import new_match
from ..core.models import Match, Player, Table


def export_document(match: Match) -> dict:
    """``{"config", "events"}`` of a match: its frozen configuration and every stored event."""
    doc = {"config": match.config, "events": [e.event for e in log.events_of(match.pk)]}
    if match.walkover:  # the desk's result (core.operations.walkover), not an engine event
        doc["walkover"] = match.walkover
    if match.correction:  # the desk's correction (core.competitions.correct), over the result
        doc["correction"] = match.correction
    return doc


MAX_FILE = 4 * 1024 * 1024  # bytes; a 3,300-event match is about 120 KB
MAX_EVENTS = 50_000
MAX_DEPTH = 8  # levels of the whole file: {"events": [{"balls": [1]}]} is 4
MAX_FRAMES_TO_WIN = 99  # as the admin's match form (MatchForm.frames_to_win)


def _bad(msgid: str, **params) -> ValueError:
    """Why a match file cannot be imported, in Portuguese and English (the server's catalogue)."""
    return ValueError(both(msgid, **params))


def _depth(value) -> int:
    """How deeply lists and objects nest in ``value`` (iterative: no recursion to exhaust)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, d)
            if d > MAX_DEPTH:
                return d
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def check_name(name, max_length: int, what: tuple[str, str] | None = None) -> str | None:
    """Why ``name`` cannot be stored as a name of at most ``max_length`` characters (None: it
    can): ``core.names.check`` (empty, too long, a control, format, private-use character…).
    ``what`` names the field, ``(pt, en)`` (default: "nome", "name")."""
    return names.check(name, max_length, what or pair("nome"))


def read_document(text: str) -> dict:
    """Parse and check a match file (a leading UTF-8 byte-order mark is skipped); raise ``ValueError`` (a ``SinucaError`` for the engine's
    refusals, with ``index`` the refused event's position) when it cannot be imported.

    Checked before the engine sees it: size, nesting depth, number of events, the players' names
    (the ``Player`` row's length, no control characters) and ``frames_to_win`` (1 to 99, as the
    admin's form), so a crafted file gets an error message and never a 500.
    """
    text = text.removeprefix("\ufeff")  # Windows editors save UTF-8 with a byte-order mark
    if len(text) > MAX_FILE:
        raise _bad("arquivo grande demais (máximo %(max)s bytes)", max=MAX_FILE)
    try:
        doc = json.loads(text)
    except RecursionError:
        raise _bad("JSON aninhado demais") from None
    except ValueError as e:
        raise _bad("JSON inválido (%(why)s)", why=e) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict) \
            or not isinstance(doc.get("events", []), list):
        raise _bad('esperado {"config": {...}, "events": [...]}')
    if _depth(doc) > MAX_DEPTH:
        raise _bad("JSON aninhado demais (máximo %(max)s níveis)", max=MAX_DEPTH)
    if len(doc.get("events", [])) > MAX_EVENTS:
        raise _bad("eventos demais (máximo %(max)s)", max=MAX_EVENTS)
    config = doc["config"]
    players = config.get("players")
    if isinstance(players, list):
        limit = Player._meta.get_field("name").max_length
        for i, name in enumerate(players):
            if isinstance(name, list):
                continue  # a doubles side: its players' names are checked below
            why = check_name(name, limit, pair("jogador %(n)s", n=i + 1))
            if why:
                raise ValueError(why)
        # Doubles (contract section 11): each player of a side is a player row too. A side given
        # as a list of names was refused here as "player 1: empty"; an empty name or a shape the
        # engine refuses is left to its own words ("player 2 of side B has no name").
        sides = config.get("sides") if isinstance(config.get("sides"), list) else players
        for i, side in enumerate(sides):
            for k, name in enumerate(side if isinstance(side, list) else ()):
                why = isinstance(name, str) and name.strip() and check_name(
                    name, limit, pair("lado %(side)s, jogador %(n)s", side="AB"[i] if i < 2 else i + 1, n=k + 1))
                if why:
                    raise ValueError(why)
    ftw = config.get("frames_to_win", 1)
    if type(ftw) is int and not 1 <= ftw <= MAX_FRAMES_TO_WIN:
        raise _bad("frames_to_win deve estar entre 1 e %(max)s", max=MAX_FRAMES_TO_WIN)
    match = sinuca.Match.replay(config, doc.get("events", []))  # the engine decides, before anything is stored
    if "sides" in match.config:
        # a side's name is its players' names joined ("Ana / Carla"), stored as a player row too:
        # four long names made it longer than the row holds (the database refused it: a 500)
        for i, name in enumerate(match.config["players"]):
            why = check_name(name, Player._meta.get_field("name").max_length, pair("nome do lado %(side)s", side="AB"[i]))
            if why:
                raise ValueError(why)
    return doc


def import_document(doc: dict, *, table: str = "", entered_by: str = "import") -> Match:
    """Store a checked match file as a new match (see :func:`read_document`), all in one
    transaction: a refused event leaves no match behind. Nothing is broadcast (a new match has
    no screen yet). Raises ``ValueError`` for a table name that cannot be stored."""
    why = table and check_name(table, Table._meta.get_field("name").max_length, pair("mesa"))
    if why:
        raise ValueError(why)
    with transaction.atomic():
        match = new_match(doc["config"], table=table)
        log.append_many(match.pk, doc.get("events", []), entered_by=entered_by)
    match.refresh_from_db()
    return match
