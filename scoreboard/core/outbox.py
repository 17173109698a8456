"""A venue's outbox: the records a venue of a federation writes, in the same transaction as each
match made, event, W.O., correction and competition file (``core.federation`` tells the whole
story: the records' shapes, the sender, the federation's ingest). Only the writing lives here, below
the log, which calls it inside an append; the ingest, which appends through the log, stays in
``core.federation``.
"""
from __future__ import annotations

import hashlib
import json
import threading

from django.conf import settings
from django.db import transaction

from .models import Competition, CompetitionEntry, Fixture, Match, MatchMember, OutboxRecord, Player

BATCH = 200
"""Records per POST (the federation's limit too)."""

wakeup = threading.Event()
"""Set after a transaction that wrote to the outbox commits: the sender need not wait its poll."""


def enabled() -> bool:
    """Whether this server is a venue of a federation (``FEDERATION_URL`` and ``FEDERATION_TOKEN``
    set): only then is anything written to the outbox, so a plain server's taps cost nothing."""
    return bool(settings.FEDERATION_URL and settings.FEDERATION_TOKEN)


def person(p: Player) -> dict:
    """A player as a record names him: ``{"federation_id", "name", "club"}`` when registered,
    else ``{"provisional": <this server's pk>, "name", "club"}``."""
    ref = {"name": p.name, "club": p.club}
    if p.federation_id:
        ref["federation_id"] = p.federation_id
    else:
        ref["provisional"] = p.pk
    return ref


def match_header(match: Match) -> dict:
    """What the federation needs to make a match before its events: ``{"config", "players":
    [A, B], "members": [[side, order, person]], "competition", "referee_name", "table"}``."""
    players = Player.objects.in_bulk([match.player_a_id, match.player_b_id])
    members = [[m.side, m.order, person(m.player)]
               for m in MatchMember.objects.filter(match_id=match.pk).select_related("player")]
    table = match.table.name if match.table_id and match.table else ""
    return {"config": match.config, "players": [person(players[match.player_a_id]), person(players[match.player_b_id])],
            "members": members, "competition": match.competition, "referee_name": match.referee_name,
            "table": table}


def _put(key: str, kind: str, payload: dict, match_uid: str | None = None, seq: int | None = None) -> None:
    """Write one record in the caller's transaction (a key already there is not written twice)."""
    if OutboxRecord.objects.filter(key=key).exists():
        return
    OutboxRecord.objects.create(key=key, kind=kind, match_uid=match_uid, seq=seq, payload=payload)
    transaction.on_commit(wakeup.set)


def _own(match: Match) -> bool:
    """Whether the match is this venue's to send: not a rehearsal (never an official result) and
    not another venue's match stored here (a server both a venue and a federation)."""
    return enabled() and not match.rehearsal and match.origin_venue_id is None


def record_match(match: Match) -> None:
    """Outbox: a match was made (not a rehearsal, which is never an official result)."""
    if _own(match):
        _put(f"match:{match.pk}", "match", {"header": match_header(match)}, str(match.pk), 0)


def record_event(match: Match, seq: int, event: dict, entered_by: str, at) -> None:
    """Outbox: event ``seq`` of ``match`` was stored (called inside the append's transaction)."""
    if not _own(match):
        return
    payload = {"event": event, "entered_by": entered_by, "at": at.isoformat() if at else None}
    if seq == 1:
        payload["header"] = match_header(match)
    _put(f"event:{match.pk}:{seq}", "event", payload, str(match.pk), seq)


def record_walkover(match: Match, data: dict, reason: str) -> None:
    """Outbox: a W.O. was given (``data``: its audit record's)."""
    if _own(match):
        _put(f"walkover:{match.pk}", "walkover",
             {"walkover": match.walkover, "data": data, "reason": reason, "header": match_header(match)},
             str(match.pk), None)


def record_correction(match: Match, record_pk: int, reason: str) -> None:
    """Outbox: the desk corrected a finished match's result (``record_pk``: its audit record)."""
    if _own(match):
        _put(f"correction:{match.pk}:{record_pk}", "correction",
             {"correction": match.correction, "reason": reason, "header": match_header(match)},
             str(match.pk), None)


def competition_payload(comp: Competition) -> dict:
    """The competition as the federation stores it: its file (spec, draw, withdrawals, lineups),
    its entries as people and its fixtures with their matches' uids and corrections."""
    entries = [[e.number, person(e.player), e.seed]
               for e in CompetitionEntry.objects.filter(competition=comp).select_related("player").order_by("number")]
    fixtures = [[f.number, str(f.match_id) if f.match_id else None, f.correction, f.postponed, f.stream]
                for f in Fixture.objects.filter(competition=comp).order_by("number")]
    return {"uid": str(comp.pk), "name": comp.name, "spec": comp.spec, "draw": comp.draw,
            "withdrawn": comp.withdrawn, "lineups": comp.lineups, "entries": entries, "fixtures": fixtures}


def record_competition(comp: Competition) -> None:
    """Outbox: the competition's file or its fixtures' matches changed; written only when its
    content differs from the last one recorded (keys ``competition:<pk>:<digest>``)."""
    if not enabled() or comp.origin_venue_id is not None:
        return
    with transaction.atomic():
        payload = competition_payload(comp)
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]
        last = (OutboxRecord.objects.filter(kind="competition", match_uid=f"c{comp.pk}").order_by("-id")
                .values_list("key", flat=True).first())
        if last is None or not last.endswith(digest):
            n = OutboxRecord.objects.filter(kind="competition", match_uid=f"c{comp.pk}").count()
            _put(f"competition:{comp.pk}:{n}:{digest}", "competition", payload, f"c{comp.pk}", None)
