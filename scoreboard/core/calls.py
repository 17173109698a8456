"""Calling a match to a table, one service for an individual competition's queue
(``core.competitions``) and a team competition's ties (``core.teams``): which match holds a
table, and the call itself (audited, a rehearsal on the table making way)."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from . import operations, venue_rules
from .venue_rules import waiting_on  # noqa: F401 - the callers' name for it
from .matches import delete_matches
from .models import Fixture, Match, Table


def fixture_number(number):
    """A fixture's number as the desk writes it: ``3``, or ``"J3"`` / ``"M3"`` / ``"3"`` (as the
    screens print it); anything else is returned as given (and then refused)."""
    if isinstance(number, str):
        t = number.strip().upper()
        t = t[1:] if t[:1] in ("J", "M") else t
        if t.isdigit() and len(t) <= 6:
            return int(t)
    return number


def table_busy(table: Table) -> Match | None:
    """The match that holds ``table``: in progress on it, or put on it and not started
    (``venue_rules.table_holder``)."""
    return venue_rules.table_holder(table)


def check_table_free_for(table: Table, match: Match) -> venue_rules.Holders:
    """Raise ``TableBusy`` (a match in progress on ``table``) or ``TableHeld`` (another match
    called to it, or waiting on it) unless ``table`` is free for ``match``: the desk's call,
    start at a table and move alike (a tester started one match on a table another was called
    to, and the called one vanished from the desk). The check is ``venue_rules``' (every start
    path's), with the table's row locked inside a transaction."""
    return venue_rules.check_table_free(table, match.pk, waiting=True)


def start_at(match: Match, table_name, number: int, lot, by: str) -> bool:
    """The desk's ``start`` of fixture ``number``'s match (individual and team competitions):
    at the table named ``table_name`` when given (free for it, :func:`check_table_free_for`,
    and none of its players at another table), else where it is called; never on no table (a
    match in play there shows on no table's TV, overlay or tablet). ``lot``: 0 or 1, else drawn.
    Returns whether it left a table it was called to (the caller's queue may call that one).
    Raises ``TournamentError`` (``unknown_table``, ``no_table``) or ``OperationRefused``."""
    from tournament import TournamentError

    left = False
    if table_name is not None:
        t = Table.objects.filter(name=table_name).first() if isinstance(table_name, str) else None
        if t is None:
            raise TournamentError("unknown_table", f"Mesa desconhecida: {table_name}", f"Unknown table: {table_name}")
        check_table_free_for(t, match)
        operations.check_players_free(match)
        if match.table_id != t.pk:
            left = match.table_id is not None
            match = operations.move_match(match, t, by)
    elif match.table_id is None:
        raise TournamentError("no_table", f"J{number}: escolha a mesa antes de iniciar",
                              f"M{number}: choose its table before starting it")
    operations.start_match(match, lot if lot in (0, 1) else None, by)
    return left


def call(fx: Fixture, table: Table, by: str, rehearsals: list | None = None) -> None:
    """Put fixture ``fx``'s match on ``table``, note when, and audit it as ``"call"`` by ``by``.
    The table must be free for it (:func:`check_table_free_for`), checked here under its row
    lock whatever the caller saw before; raises ``TableBusy`` / ``TableHeld`` otherwise
    (nothing changed). ``rehearsals``: given by a caller that holds the table's lock and has
    checked it (the queue, ``competitions.queue_picks``): the rehearsals waiting there, and no
    check is made again."""
    # the queue's call is part of its caller's transaction (no savepoint: it checks nothing that
    # could fail here); a call that checks the table may be refused, and then changes nothing
    with transaction.atomic(savepoint=rehearsals is None):
        if rehearsals is None:
            # the match first, then the table: every start path locks in that order
            list(Match.objects.select_for_update().filter(pk=fx.match_id).values_list("pk", flat=True))
            rehearsals = check_table_free_for(table, fx.match).rehearsals
        # a rehearsal waiting on the table makes way: it is no record of anything, and left there it
        # would stay the table's next match (its TV and its tablet would show it, not the call)
        if rehearsals:
            delete_matches(Match.objects.filter(pk__in=rehearsals))
        Match.objects.filter(pk=fx.match_id).update(table=table)
        fx.called_at = timezone.now()
        fx.save(update_fields=["called_at"])
        operations.record(fx.match, "call", by, {"table": table.pk, "fixture": fx.number})
