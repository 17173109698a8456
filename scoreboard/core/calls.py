"""Calling a match to a table, one service for an individual competition's queue
(``core.competitions``) and a team competition's ties (``core.teams``): which match holds a
table, and the call itself (audited, a rehearsal on the table making way)."""
from __future__ import annotations

from django.utils import timezone

from . import operations
from .matches import delete_matches, rehearsals
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
    """The match that holds ``table``: in progress on it, or called to it and not started."""
    m = operations.busy_with(table)
    if m is not None:
        return m
    return waiting_on(Match.objects.filter(table=table)).order_by("pk").first()


def check_table_free_for(table: Table, match: Match) -> None:
    """Raise ``TableBusy`` (a match in progress on ``table``) or ``TableHeld`` (another match
    called to it) unless ``table`` is free for ``match``: the desk's call, start at a table and
    move alike (a tester started one match on a table another was called to, and the called
    one vanished from the desk)."""
    other = table_busy(table)
    if other is None or other.pk == match.pk:
        return
    if operations.busy_with(table, other_than=match.pk) is not None:
        raise operations.TableBusy(table, other)
    raise operations.TableHeld(table, other)


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


def waiting_on(qs):
    """The matches of ``qs`` put on their table and not started, that hold it: a rehearsal (the
    demo of ``scripts/run.sh``) waiting there holds it for no competition, which calls over it."""
    return qs.filter(started_at__isnull=True, seq=0, walkover__isnull=True, rehearsal=False)


def call(fx: Fixture, table: Table, by: str) -> None:
    """Put fixture ``fx``'s match on ``table`` (the caller checked that the table is free), note
    when, and audit it as ``"call"`` by ``by``."""
    # a rehearsal waiting on the table makes way: it is no record of anything, and left there it
    # would stay the table's next match (its TV and its tablet would show it, not the call)
    delete_matches(rehearsals(table).filter(started_at__isnull=True, seq=0))
    Match.objects.filter(pk=fx.match_id).update(table=table)
    fx.called_at = timezone.now()
    fx.save(update_fields=["called_at"])
    operations.record(fx.match, "call", by, {"table": table.pk, "fixture": fx.number})
