"""The venue's rules that the event log itself checks, and how a W.O. reads: the refusals
(:class:`OperationRefused` and its kinds), whether a table is free (one match in progress per
table), and the state every screen shows for a W.O. (:func:`walkover_state`). Below the log
(:mod:`.log` asks it on a match's first event and on every read); the desk's actions that write
(start, move, W.O., tokens) are in :mod:`.operations`, above the log.
"""
from __future__ import annotations

from dataclasses import dataclass

from sinuca import Phase, SinucaError

from .models import Match, Table


# The W.O. is the desk's result, not the engine's: its words live with the other words
# (presentation.labels), so the tablet's renderer says it too.
from presentation.labels import CORRECTED, DOUBLE_WALKOVER, WALKOVER, walkover_sentence  # noqa: E402

class OperationRefused(SinucaError):
    """The desk's action is refused; ``code`` says why (``table_busy``, ``needs_confirmation``,
    ``walkover_after_play``, ``match_over``, ``players_unknown``). Nothing was changed."""

    def __init__(self, code: str, pt: str, en: str) -> None:
        super().__init__(pt, en)
        self.code = code


class TableBusy(OperationRefused):
    """Another match is in progress on the table."""

    def __init__(self, table: Table, other: Match) -> None:
        super().__init__(
            "table_busy",
            f"A mesa {table.name} já tem um jogo em andamento, o {match_names(other)[0]}; encerre-o ou "
            f"mude-o de mesa antes",
            f"Table {table.name} already has a match in progress, {match_names(other)[1]}; finish it or "
            f"move it first")
        self.other = other


def _initial(text: str) -> str:
    """``text`` with a capital first letter (it opens a sentence)."""
    return text[:1].upper() + text[1:]


def match_names(m: Match) -> tuple[str, str]:
    """``("jogo 28 (J27: Ana × Bia)", "match 28 (M27: Ana × Bia)")``: the row's number and, for
    a competition's match, the number the desk knows it by (none for a match of no competition)."""
    fx = getattr(m, "fixture", None)  # None when the match is no competition's
    pair = f"{m.player_a} × {m.player_b}"
    if fx is None:
        return f"jogo {m.pk} ({pair})", f"match {m.pk} ({pair})"
    return f"jogo {m.pk} (J{fx.number}: {pair})", f"match {m.pk} (M{fx.number}: {pair})"


class TableHeld(OperationRefused):
    """Another match is called to the table (on it, not started): the table is not free. A
    match put there without a call (a friendly scheduled on it) is said to wait there."""

    def __init__(self, table: Table, other: Match) -> None:
        fx = getattr(other, "fixture", None)  # None when the match is no competition's
        if fx is not None and fx.called_at is not None:
            why = ("foi chamado para ela", "is called to it")
        else:
            why = ("espera nela", "is waiting on it")
        super().__init__(
            "table_busy",
            f"A mesa {table.name} está reservada: o {match_names(other)[0]} {why[0]}; "
            f"mova-o, adie-o ou escolha outra mesa",
            f"Table {table.name} is taken: {match_names(other)[1]} {why[1]}; "
            f"move it, postpone it or choose another table")
        self.other = other


class ReopenRefused(OperationRefused):
    """An undo would take back the end of a match whose result a started match depends on
    (``correction_refused``): the correction is the desk's. ``what``: the match as the desk
    names it, (pt, en); ``begun``: the fixture numbers started; ``tie``: the dependant is the
    tie's next rubber (a team competition), else a match the result feeds."""

    def __init__(self, what: tuple[str, str], begun: list[int], tie: bool = False) -> None:
        js, ms = ", ".join(f"J{n}" for n in begun), ", ".join(f"M{n}" for n in begun)
        why = (("o jogo seguinte do confronto já começou", "the tie's next rubber has started") if tie else
               ("o jogo que depende dele já começou", "the match that depends on it has started"))
        super().__init__(
            "correction_refused",
            f"O fim de {what[0]} não pode ser desfeito: {why[0]} ({js}); uma correção é da organização",
            f"The end of {what[1]} cannot be undone: {why[1]} ({ms}); a correction is the desk's")


class NeedsConfirmation(OperationRefused):
    """Moving a match in progress must be confirmed (its tablet moves with it)."""

    def __init__(self, match: Match) -> None:
        super().__init__(
            "needs_confirmation",
            f"O {match_names(match)[0]} está em andamento: confirme a mudança de mesa (o tablet da mesa vai junto)",
            f"{_initial(match_names(match)[1])} is in progress: confirm the move (the table's tablet goes with it)")


class PlayerBusy(OperationRefused):
    """A person of the match is playing another match in progress (of any competition, or of
    none), at the table named in the refusal."""

    def __init__(self, name: str, other: Match) -> None:
        where_pt, where_en = ((f"na mesa {other.table.short_name}", f"at table {other.table.short_name}")
                              if other.table_id else ("sem mesa", "on no table"))
        super().__init__(
            "player_busy",
            f"{name} está em jogo {where_pt}, no {match_names(other)[0]}: "
            f"este jogo começa quando aquele terminar",
            f"{name} is playing {where_en}, in {match_names(other)[1]}: "
            f"this match starts once that one is over")
        self.other = other


class TableOutOfService(OperationRefused):
    """The table is out of service (``Table.out_since``): nothing is called, started or moved
    onto it until the desk puts it back in service."""

    def __init__(self, table: Table, reason: str = "") -> None:
        why = f" ({reason})" if reason else ""
        super().__init__(
            "table_out_of_service",
            f"A mesa {table.name} está fora de serviço{why}: escolha outra mesa",
            f"Table {table.name} is out of service{why}: choose another table")
        self.table = table


def person_key(name, club) -> tuple[str, str]:
    """Who a player row is, for a clash check (``names.identity`` of the name and of the club):
    two rows with equal names, and equal clubs or one club left blank, are one person (one
    player entered in two categories, once with his club and once without)."""
    from .names import identity

    return identity(name or ""), identity(club or "")


def same_person(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether two :func:`person_key` s are one person."""
    return a[0] == b[0] and (a[1] == b[1] or not a[1] or not b[1])


def people_of(match: Match) -> dict[int, str]:
    """player row id -> name of everyone at the table in ``match``: its two sides' rows and, in
    doubles, each person of the sides (``MatchMember``)."""
    return {pid: name for pid, (name, _club) in persons_of([match.pk]).get(match.pk, {}).items()}


def persons_of(match_ids) -> dict[int, dict[int, tuple[str, str]]]:
    """match id -> {player row id: (name, club)} of everyone at the table in each match: its two
    sides' rows and, in doubles, each person of the sides (``MatchMember``). Two queries."""
    from .models import MatchMember

    ids = list(match_ids)
    out: dict = {pk: {} for pk in ids}
    for pk, a, an, ac, b, bn, bc in Match.objects.filter(pk__in=ids).values_list(
            "pk", "player_a_id", "player_a__name", "player_a__club", "player_b_id", "player_b__name",
            "player_b__club"):
        out[pk][a] = (an, ac)
        out[pk][b] = (bn, bc)
    for pk, pid, name, club in MatchMember.objects.filter(match_id__in=ids).values_list(
            "match_id", "player_id", "player__name", "player__club"):
        out[pk][pid] = (name, club)
    return out


def check_players_free(match: Match) -> None:
    """Raise :class:`PlayerBusy` when a person of ``match`` is in another match in progress
    anywhere in the venue: any competition's or none's, the same player row or another row of
    the same person (:func:`same_person`: a player entered in two categories). The desk's
    start, the admin's "Iniciar" and a competition match's first event (its lot) ask it."""
    from .tables import in_progress

    others = list(in_progress().exclude(pk=match.pk).exclude(rehearsal=True)
                  .select_related("player_a", "player_b", "table"))
    if not others:
        return
    people = persons_of([match.pk, *(o.pk for o in others)])
    mine = {pid: (name, person_key(name, club)) for pid, (name, club) in people[match.pk].items()}
    for other in others:
        for pid, (name, club) in people[other.pk].items():
            key = person_key(name, club)
            for my_pid, (my_name, my_key) in mine.items():
                if my_pid == pid or same_person(my_key, key):
                    raise PlayerBusy(my_name, other)


def is_in_progress(match: Match) -> bool:
    """Started (by the desk or by its first event), not a W.O. and not over by the engine."""
    from .tables import in_progress

    return in_progress().filter(pk=match.pk).exists()


def busy_with(table: Table | None, *, other_than: int | None = None) -> Match | None:
    """The match in progress on ``table`` (other than ``other_than``), or None."""
    if table is None:
        return None
    from .tables import in_progress

    qs = in_progress().filter(table=table)
    if other_than is not None:
        qs = qs.exclude(pk=other_than)
    return qs.first()


def waiting_on(qs):
    """The matches of ``qs`` put on their table and not started, that hold it: a rehearsal (the
    demo of ``scripts/run.sh``) waiting there holds it for no competition, which calls over it."""
    return qs.filter(started_at__isnull=True, seq=0, walkover__isnull=True, rehearsal=False)


@dataclass
class Holders:
    """What holds a table, read in one query (:func:`holders`): ``busy``, the match in progress
    on it; ``called``, a competition's match called to it and not started; ``waiting``, any
    match put on it and not started (a called one first; a rehearsal never); ``rehearsals``,
    the pks of the rehearsals waiting there (they hold it for nobody)."""

    busy: Match | None
    called: Match | None
    waiting: Match | None
    rehearsals: list


def holders(table: Table | None, *, other_than: int | None = None) -> Holders:
    """The matches on ``table`` that are not over (other than ``other_than``), sorted as the
    checks need them (:class:`Holders`): one query, for the paths that start or call a match
    there and for a result's call on the freed table."""
    if table is None:
        return Holders(None, None, None, [])
    from django.db.models import F

    from .tables import with_phase

    qs = (with_phase(Match.objects.filter(table=table, walkover__isnull=True))
          .exclude(last_phase=Phase.MATCH_OVER.value).annotate(called_at=F("fixture__called_at")))
    if other_than is not None:
        qs = qs.exclude(pk=other_than)
    rows = list(qs)
    going = [m for m in rows if m.started_at is not None or m.seq > 0]
    # the most recently started, as the table's TV shows it (``tables.table_now``)
    going.sort(key=lambda m: (m.started_at is not None, m.started_at or m.created_at, m.pk), reverse=True)
    waiting = sorted((m for m in rows if m not in going and not m.rehearsal), key=lambda m: m.pk)
    called = [m for m in waiting if m.called_at is not None]
    return Holders(going[0] if going else None, called[0] if called else None,
                   (called or waiting or [None])[0], [m.pk for m in rows if m.rehearsal and m not in going])


def called_to(table: Table | None, *, other_than: int | None = None, waiting: bool = False) -> Match | None:
    """The match that holds ``table`` without being in progress on it (other than
    ``other_than``), or None: a competition's match called to it and not started; with
    ``waiting`` also any other match put on it and not started (a friendly scheduled there holds
    it for the competitions' desks and queues, not for the admin's own matches)."""
    h = holders(table, other_than=other_than)
    return h.waiting if waiting else h.called


def table_holder(table: Table | None, *, other_than: int | None = None, waiting: bool = True) -> Match | None:
    """The match that holds ``table``: in progress on it, else called to it (and with
    ``waiting``, any match waiting on it, :func:`called_to`); other than ``other_than``."""
    h = holders(table, other_than=other_than)
    return h.busy or (h.waiting if waiting else h.called)


def lock_table(table: Table | None) -> None:
    """Take ``table``'s row lock until the transaction ends (``select_for_update``; a no-op on
    SQLite, whose writers are serialized anyway): two starts, calls or moves onto one table at
    once then check it one after the other, so they cannot both find it free."""
    if table is not None:
        list(Table.objects.select_for_update().filter(pk=table.pk).values_list("pk", flat=True))


def check_in_service(table: Table | None) -> None:
    """Raise :class:`TableOutOfService` when ``table`` is out of service as stored now (the row
    is read again: the caller's copy may be older than the desk's change; under the table's
    lock when the caller took it)."""
    if table is None:
        return
    row = Table.objects.filter(pk=table.pk).values_list("out_since", "out_reason").first()
    if row is not None and row[0] is not None:
        raise TableOutOfService(table, row[1])


def check_table_free(table: Table | None, match_id: int | None = None, *, waiting: bool = False,
                     called: bool = True) -> Holders:
    """The one check of every path that starts a match on ``table`` or puts one there (the
    admin's "Iniciar", a match's first event, ``creatematch --table``, the desk's start, call and
    move): raise :class:`TableBusy` when another match than ``match_id`` is in progress on
    ``table``, :class:`TableHeld` when another is called to it (``waiting``: or waits on it, see
    :func:`called_to`; ``called`` False: only a match in progress counts, for a rehearsal that
    waits on the table and is checked again by its first event). Inside a transaction it first
    takes the table's row lock (:func:`lock_table`), so the answer holds until the caller commits.
    Returns what it read (:class:`Holders`: the rehearsals waiting there, for a call)."""
    if table is None:
        return Holders(None, None, None, [])
    from django.db import connection

    if connection.in_atomic_block:
        lock_table(table)
    check_in_service(table)
    h = holders(table, other_than=match_id)
    if h.busy is not None:
        raise TableBusy(table, h.busy)
    other = (h.waiting if waiting else h.called) if called else None
    if other is not None:
        raise TableHeld(table, other)
    return h


def check_may_start(match: Match) -> None:
    """Whether ``match`` may start now: not a W.O., and its table free: nothing else in progress
    on it (:class:`TableBusy`) nor called to it (:class:`TableHeld`)."""
    if match.walkover is not None:
        raise OperationRefused("match_over", f"O jogo {match.pk} já terminou por W.O.",
                               f"Match {match.pk} already ended by a walkover")
    check_table_free(match.table, match.pk)


def walkover_state(match: Match, state: dict) -> dict:
    """The engine's state as the screens show a W.O.: the match over, the present player with
    the frames needed (``frames_to_win``), the other 0, ``walkover`` set; the engine's own state
    when the match has no W.O."""
    wo = match.walkover
    if not wo:
        return state
    k = match.config["frames_to_win"]
    winner = wo.get("winner")
    frames = [k if winner == i else 0 for i in (0, 1)]
    return {**state, "phase": Phase.MATCH_OVER.value, "frames": frames, "match_winner": winner,
            "frame_winner": None, "striker": None, "walkover": wo,
            "match_result": WALKOVER if winner is not None else DOUBLE_WALKOVER}


def corrected_state(match: Match, state: dict) -> dict:
    """The state as the screens show a corrected result (``match.correction``, by side): the
    match over with the corrected frames and winner, ``match_result`` ``corrected`` and
    ``correction`` set (a W.O. corrected is no longer a W.O.); the state as given otherwise."""
    fix = getattr(match, "correction", None)
    if not fix:
        return state
    out = {k: v for k, v in state.items() if k != "walkover"}
    return {**out, "phase": Phase.MATCH_OVER.value, "frames": list(fix["frames"]),
            "match_winner": fix["winner"], "frame_winner": None, "striker": None,
            "match_result": CORRECTED, "correction": fix}


def shown_state(match: Match, state: dict) -> dict:
    """The engine's state with the desk's match-level results over it: a W.O.
    (:func:`walkover_state`), then a correction (:func:`corrected_state`)."""
    return corrected_state(match, walkover_state(match, state))


def result_text(code: str | None) -> dict:
    """How a match ended, ``{"pt", "en"}``: a W.O. in the desk's words, else the engine's
    (``presentation.labels.match_result_text``, with the article)."""
    from presentation import labels

    return labels.match_result_text(code)


__all__ = ["DOUBLE_WALKOVER", "NeedsConfirmation", "OperationRefused", "TableBusy", "TableHeld", "TableOutOfService",
           "WALKOVER", "check_in_service", "check_players_free", "person_key", "same_person",
           "busy_with", "called_to", "check_may_start", "check_table_free", "lock_table", "table_holder", "waiting_on", "is_in_progress", "result_text", "walkover_sentence",
           "walkover_state", "corrected_state", "shown_state", "CORRECTED"]
