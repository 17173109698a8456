"""The venue's tables and their matches: what is in progress, what is on a table now, what is next.

A match is *in progress* once it was started (by the organiser, or by its first event) and until
the engine's phase after its latest event is ``match_over`` (or a W.O. is recorded). At most one
match is in progress per table (``core.operations`` refuses a second). A table's *current* match is its most
recently started match in progress; between matches a table shows its last result and its next
match (the earliest scheduled one not started yet).
"""
from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.hashers import check_password, make_password
from django.db.models import CharField, Max, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce

from sinuca import Phase

from .models import Event, Match, RefereeCredential, Table

TABLE_CREDENTIAL = "mesa"  # label prefix of the credentials a table PIN logs a tablet in with


def with_phase(qs: QuerySet | None = None) -> QuerySet:
    """Matches annotated with ``last_phase``: the engine's phase after the latest event ("" for
    a match without events), read from the stored log rather than replayed."""
    qs = Match.objects.all() if qs is None else qs
    last = (Event.objects.filter(match=OuterRef("pk")).order_by("-seq")
            .annotate(ph=KeyTextTransform("phase", "state")).values("ph")[:1])
    return (qs.select_related("player_a", "player_b", "table")
            .annotate(last_phase=Coalesce(Subquery(last, output_field=CharField()), Value(""),
                                          output_field=CharField())))


def in_progress() -> QuerySet:
    """Every match in progress, with or without a table, the most recently started first."""
    return (with_phase().filter(Q(started_at__isnull=False) | Q(seq__gt=0))
            .exclude(last_phase=Phase.MATCH_OVER.value).filter(walkover__isnull=True)
            .order_by("table__name", "-started_at", "-pk"))


def scheduled() -> QuerySet:
    """Matches not started yet, in their scheduled order."""
    return (Match.objects.select_related("player_a", "player_b", "table")
            .filter(started_at__isnull=True, seq=0, walkover__isnull=True)
            .order_by("scheduled_at", "pk"))


def finished() -> QuerySet:
    """Finished matches (by the engine, or by a W.O.), the most recent first."""
    return (with_phase().filter(Q(last_phase=Phase.MATCH_OVER.value) | Q(walkover__isnull=False))
            .annotate(ended_at=Coalesce(Max("events__at"), "started_at", "created_at"))
            .order_by("-ended_at", "-pk"))


@dataclass
class TableNow:
    """What a table shows: its current match, or its last result and next match."""

    table: Table
    current: Match | None
    last: Match | None
    next: Match | None

    @property
    def key(self) -> str:
        """Changes exactly when a page following the table must switch what it shows."""
        if self.current:
            return f"match:{self.current.pk}"
        out = ":out" if self.table.out_of_service else ""  # its screens say so at once
        return f"idle:{self.last.pk if self.last else 0}:{self.next.pk if self.next else 0}{out}"


def table_now(table: Table) -> TableNow:
    current = in_progress().filter(table=table).order_by("-started_at", "-seq", "-pk").first()
    if current is not None:
        return TableNow(table, current, None, None)
    return TableNow(table, None, finished().filter(table=table).first(), scheduled().filter(table=table).first())


def tables_now(table_rows) -> dict[int, TableNow]:
    """table pk -> :func:`table_now` of each of ``table_rows``, read together: three queries
    whatever their number (a board refresh follows every table of the venue; one by one it
    cost three queries a table, one aggregating every event of the table's finished matches)."""
    rows = {t.pk: t for t in table_rows}
    current: dict = {}
    for m in in_progress().filter(table_id__in=list(rows)).order_by("table_id", "-started_at", "-seq", "-pk"):
        current.setdefault(m.table_id, m)
    idle = [pk for pk in rows if pk not in current]
    last: dict = {}
    nxt: dict = {}
    if idle:
        for m in finished().filter(table_id__in=idle):
            last.setdefault(m.table_id, m)
        for m in scheduled().filter(table_id__in=idle):
            nxt.setdefault(m.table_id, m)
    return {pk: TableNow(t, current[pk], None, None) if pk in current else TableNow(t, None, last.get(pk), nxt.get(pk))
            for pk, t in rows.items()}


def set_pin(table: Table, pin: str) -> None:
    """Set (or with an empty ``pin``, clear) the table's referee PIN, and end every tablet session
    the old PIN opened: the credentials it logged tablets in with are revoked (their sessions
    stop scoring at once, their referee sockets close within 2 s), and the table page asks for
    the new PIN (the session's fingerprint of the old hash no longer matches)."""
    table.pin_hash = make_password(pin) if pin else ""
    table.save(update_fields=["pin_hash"])
    RefereeCredential.objects.filter(match__table=table, label__startswith=TABLE_CREDENTIAL,
                                     revoked=False).update(revoked=True)


def check_pin(table: Table, pin: str) -> bool:
    return bool(table.pin_hash) and bool(pin) and check_password(pin, table.pin_hash)


def table_credential(match: Match) -> RefereeCredential:
    """The credential a table's tablet scores ``match`` with (created on first use)."""
    label = f"{TABLE_CREDENTIAL} {match.table.name if match.table else ''}".strip()
    cred = RefereeCredential.objects.filter(match=match, label=label, revoked=False).first()
    if cred is None:
        cred = RefereeCredential.issue(match, label=label)[0]
    return cred


def qr_credential(match: Match) -> RefereeCredential:
    """The credential behind the match's QR code / referee link (created on first use)."""
    cred = RefereeCredential.objects.filter(match=match, revoked=False).order_by("pk").first()
    return cred or RefereeCredential.issue(match, label="QR")[0]
