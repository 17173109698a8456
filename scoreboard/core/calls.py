"""Calling a match to a table, one service for an individual competition's queue
(``core.competitions``) and a team competition's ties (``core.teams``): which match holds a
table, and the call itself (audited, a rehearsal on the table making way)."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from . import operations, venue_rules
from .venue_rules import waiting_on  # noqa: F401 - the callers' name for it
from .matches import delete_matches
from .models import Fixture, Match, MatchRecord, Table


def fixture_number(number):
    """A fixture's number as the desk writes it: ``3``, or ``"J3"`` / ``"M3"`` / ``"3"`` (as the
    screens print it); anything else is returned as given (and then refused)."""
    if isinstance(number, str):
        t = number.strip().upper()
        t = t[1:] if t[:1] in ("J", "M") else t
        if t.isdigit() and len(t) <= 6:
            return int(t)
    return number


def has_started(m: Match) -> bool:
    """Whether a competition's match has begun: started at its table, scored, or given as a
    W.O. (before that, a changed draw or lineup may still remake it, and the queue may call it)."""
    return m.started_at is not None or m.seq > 0 or m.walkover is not None


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


def table_of(comp_tables, name) -> Table:
    """The venue's table named ``name`` (compared by ``names.identity``: case, spacing and
    Unicode form aside) among ``comp_tables`` (the names in the competition's file); raises
    ``TournamentError`` ``unknown_table`` for a name that is no table of the competition."""
    from tournament import TournamentError

    from .names import identity

    key = identity(name)
    wanted = {identity(n): n for n in comp_tables}
    found = Table.objects.filter(name=wanted[key]).first() if key and key in wanted else None
    if found is None:
        shown = str(name)[:40] if isinstance(name, str) else repr(name)[:40]
        raise TournamentError("unknown_table", f"Mesa desconhecida nesta competição: {shown}",
                              f"No such table in this competition: {shown}")
    return found


def take_out_of_service(table: Table, reason: str, by: str) -> list[int]:
    """Put ``table`` out of service (a torn cloth, a broken light): the queue calls nothing to
    it, nothing starts or is moved onto it (``venue_rules.TableOutOfService``), and every
    screen says "fora de serviço". A competition's match called to it and not started goes
    back to its queue (its call undone); a match in progress there stays until the desk moves
    it (in one step: no confirmation asked off a table out of service). Audited
    (``out_of_service``, on no match, with the table and the reason). Returns the pks of the
    matches sent back to their queue. Raises ``TournamentError`` ``already_out_of_service``;
    nothing changed then."""
    from tournament import TournamentError

    with transaction.atomic():
        row = Table.objects.select_for_update().get(pk=table.pk)
        if row.out_since is not None:
            why = f" ({row.out_reason})" if row.out_reason else ""
            raise TournamentError("already_out_of_service", f"A mesa {row.name} já está fora de serviço{why}",
                                  f"Table {row.name} is already out of service{why}")
        row.out_since, row.out_reason = timezone.now(), (reason or "").strip()[:300]
        row.save(update_fields=["out_since", "out_reason"])
        back = list(waiting_on(Match.objects.filter(table=row, fixture__isnull=False))
                    .values_list("pk", flat=True))
        if back:
            Fixture.objects.filter(match_id__in=back).update(called_at=None)
            Match.objects.filter(pk__in=back).update(table=None)
        MatchRecord.objects.create(match=None, kind="out_of_service", by=by[:80], reason=row.out_reason,
                                   data={"table": row.pk, "name": row.name, "uncalled": back})
    table.out_since, table.out_reason = row.out_since, row.out_reason
    return back


def put_in_service(table: Table, by: str) -> None:
    """Put ``table`` back in service (the queue may call to it again). Audited (``in_service``).
    Raises ``TournamentError`` ``not_out_of_service`` for a table in service; nothing changed
    then."""
    from tournament import TournamentError

    with transaction.atomic():
        row = Table.objects.select_for_update().get(pk=table.pk)
        if row.out_since is None:
            raise TournamentError("not_out_of_service", f"A mesa {row.name} não está fora de serviço",
                                  f"Table {row.name} is not out of service")
        MatchRecord.objects.create(match=None, kind="in_service", by=by[:80],
                                   data={"table": row.pk, "name": row.name, "since": row.out_since.isoformat()})
        row.out_since, row.out_reason = None, ""
        row.save(update_fields=["out_since", "out_reason"])
    table.out_since, table.out_reason = None, ""


def displaced(table_names) -> int:
    """How many matches in progress sit on a table out of service among ``table_names``: each
    needs a free table, so the queue leaves that many free tables to the desk's move."""
    from .tables import in_progress

    return in_progress().filter(table__name__in=list(table_names), table__out_since__isnull=False).count()


def people_elsewhere(comp_id: int | None) -> list[tuple[str, str]]:
    """The people (``venue_rules.person_key``) called to a table or in play in a match not of
    competition ``comp_id``: another competition's, or none's (a friendly put on a table). A
    person is in one place at a time: the queue calls none of them. Rehearsals hold nobody."""
    from django.db.models import Q

    from sinuca import Phase

    from .tables import with_phase

    qs = (Match.objects.filter(walkover__isnull=True, rehearsal=False)
          .filter(Q(table__isnull=False) | Q(started_at__isnull=False) | Q(seq__gt=0)))
    if comp_id is not None:
        qs = qs.exclude(fixture__competition_id=comp_id)
    ids = list(with_phase(qs).exclude(last_phase=Phase.MATCH_OVER.value).values_list("pk", flat=True))
    if not ids:
        return []
    return [venue_rules.person_key(name, club) for people in venue_rules.persons_of(ids).values()
            for name, club in people.values()]


def people_ended_elsewhere(comp_id: int | None, since) -> list[tuple[tuple[str, str], float]]:
    """``[(person key, seconds)]``: the people (``venue_rules.person_key``) of every match not of
    competition ``comp_id`` (another competition's, or a friendly) whose last event came at or
    after ``since`` (a datetime), with that time: a person rests after a match wherever he
    played it, so a competition's queue counts his rest from a match just ended in another (a
    match still in progress makes him busy anyway, :func:`people_elsewhere`). W.O.s and
    rehearsals give no rest."""
    from django.db.models import Max

    qs = Match.objects.filter(walkover__isnull=True, rehearsal=False, seq__gt=0, events__at__gte=since)
    if comp_id is not None:
        qs = qs.exclude(fixture__competition_id=comp_id)
    ended = dict(qs.annotate(end=Max("events__at")).values_list("pk", "end"))
    if not ended:
        return []
    return [(venue_rules.person_key(name, club), ended[pk].timestamp())
            for pk, people in venue_rules.persons_of(ended).items() for name, club in people.values()]
