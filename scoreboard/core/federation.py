"""A federation and its venues: the registry of people, the venue's outbox and its ingest.

One codebase, two roles. A *venue* (``FEDERATION_URL`` and ``FEDERATION_TOKEN`` set) keeps an
outbox (:class:`~scoreboard.core.models.OutboxRecord`) written in the same transaction as each
match made, event, W.O., correction and competition file, and a sender (``sender.py``) delivers
it, in outbox order, at least once. The *federation* stores what a venue sends as ORDINARY rows
(Player, Match with its ``origin_venue`` and ``origin_uid``, Event through the engine's fold,
MatchMember, Competition, CompetitionEntry, Fixture), so every page and computation that works on
a venue's database works on the federation's unchanged.

Records (``{"key", "kind", "match", "seq", "payload"}``), per match in order:

- ``match`` ``{"header"}``: the match's configuration and people (:func:`match_header`);
- ``event`` ``{"event", "entered_by", "at", "header"?}`` with ``seq`` (the header on seq 1);
- ``walkover`` ``{"walkover", "data", "reason", "header"}``;
- ``correction`` ``{"correction", "reason", "header"}``;
- ``competition`` ``{"uid", "name", "spec", "draw", "withdrawn", "lineups", "entries", "fixtures"}``.

A person is ``{"federation_id"}`` when registered, else ``{"provisional": <venue pk>}``, always
with ``name`` and ``club``; the federation keeps a provisional one as a Player with
``provisional_key`` "<venue>:<pk>", which a person matches to a registered player
(:func:`match_player`; never merged silently). A match belongs to the venue that scored it: a
record naming another venue as its ``origin`` is refused (``owned_elsewhere``), and order is by
seq, never by anyone's clock.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.utils import timezone

import sinuca
from sinuca import SinucaError

from . import clubs, names
from .clubs import ClubRefused, register_club, rename_club  # noqa: F401 - the registry's clubs, named here too
from .models import (Club, Competition, CompetitionEntry, Fixture, Match, MatchMember, MatchRecord, Player,
                     PulledSeason, Season, Venue, hash_token)

# the venue's side (the outbox), which the log, the matches and the desk write to: a module of its
# own, below the log, so the ingest here (which appends through the log) makes no import circle
from .outbox import (BATCH, competition_payload, enabled, match_header, person, record_competition,  # noqa: F401
                     record_correction, record_event, record_match, record_walkover, wakeup)


# -- the federation's side: venues and their tokens ----------------------------------------------

class VenueError(ValueError):
    """A venue token that cannot be issued or revoked as asked: ``pt`` and ``en``."""

    def __init__(self, pt: str, en: str) -> None:
        super().__init__(f"{pt} / {en}")
        self.pt, self.en = pt, en


def issue_venue_token(name: str) -> str:
    """A new token for the venue ``name`` (made when new; an existing venue's old token stops
    working, a revoked one is live again): returned once, only its hash is kept."""
    name = " ".join(str(name or "").split())
    if not name or len(name) > Venue._meta.get_field("name").max_length or ":" in name:
        raise VenueError("Nome do clube inválido (1 a 60 caracteres, sem ':')",
                         "Invalid venue name (1 to 60 characters, no ':')")
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        venue, made = Venue.objects.get_or_create(name=name, defaults={"token_hash": hash_token(token)})
        if not made:
            Venue.objects.filter(pk=venue.pk).update(token_hash=hash_token(token), revoked=False)
        MatchRecord.objects.create(match=None, kind="token", by="cmd", data={"venue": name})
    return token


def revoke_venue_token(name: str) -> None:
    """Revoke the venue's token: its records are refused (401) from now on."""
    if not Venue.objects.filter(name=name).update(revoked=True):
        raise VenueError(f"Clube desconhecido: {name}", f"Unknown venue: {name}")


def venue_of_token(token: str | None) -> Venue | None:
    """The live (not revoked) venue a bearer token belongs to, or None."""
    if not token:
        return None
    return Venue.objects.filter(token_hash=hash_token(token), revoked=False).first()


# -- the registry --------------------------------------------------------------------------------

PLAYER_NAME = ("nome do jogador", "player name")  # a player's name, in the registry's refusals

def register(name: str, club: str | None = "", federation_id: str | None = None) -> Player:
    """Register a player at the federation: the player of that name and club (as names are
    compared) without a federation id, else a new one, given ``federation_id`` (default ``F``
    and six digits of its pk). A club is registered with him when new (``clubs.club_for``) and
    his ``club`` is its registered name; ``club`` None, "" or blank is none. Raises, nothing
    stored, ``names.NameRefused`` for a bad player name (``names.clean``: not text, empty, too
    long, a refused character; a ``federation_id`` another player holds) and
    ``clubs.ClubRefused`` for a bad club name (not text included) or federation id."""
    name = names.clean(name, names.PLAYER, PLAYER_NAME)
    federation_id = clubs.clean_id(federation_id)
    if club is None or (isinstance(club, str) and not club.strip()):
        club = ""
    with transaction.atomic():
        holder = (Player.objects.filter(federation_id=federation_id).first() if federation_id else None)
        if holder is not None:
            raise names.NameRefused(f"O id {federation_id} já é do jogador {holder.name}",
                                    f"The id {federation_id} belongs to the player {holder.name} already")
        registered = clubs.club_for(club) if club != "" else None
        club = registered.name if registered else ""
        key = names.identity(club)
        p = next((q for q in Player.objects.filter(name=name, federation_id__isnull=True,
                                                   provisional_key__isnull=True).order_by("pk")
                  if names.identity(q.club) == key), None) or Player.objects.create(name=name, club=club)
        p.federation_id, p.club = federation_id or f"F{p.pk:06d}", club
        p.save(update_fields=["federation_id", "club"])
    return p


def registry() -> dict:
    """What a venue pulls: ``{"clubs": [{"federation_id", "name"}], "players": [{"federation_id",
    "name", "club", "club_id"}], "seasons": [{"id", "name", "ranking": [{"federation_id", "name",
    "club", "points", "position"}]}]}``: the registered clubs, the registered players (``club``
    the name, ``club_id`` the federation id of that club, None when it is not registered), and
    the ranking of each season, for seeding a draw."""
    from . import seasons

    registered = list(Club.objects.filter(federation_id__isnull=False).order_by("federation_id")
                      .values("federation_id", "name", "key"))
    club_id = {c["key"]: c["federation_id"] for c in registered}
    players = list(Player.objects.filter(federation_id__isnull=False).order_by("federation_id")
                   .values("pk", "federation_id", "name", "club"))
    fid = {p["pk"]: p["federation_id"] for p in players}
    out = []
    for s in Season.objects.order_by("pk"):
        rows = seasons.ranking(s)
        out.append({"id": s.pk, "name": s.name,
                    "ranking": [{"federation_id": fid.get(r["player"]), "name": r["name"], "club": r["club"],
                                 "points": r["points"], "position": r["position"]} for r in rows]})
    return {"clubs": [{"federation_id": c["federation_id"], "name": c["name"]} for c in registered],
            "players": [{"federation_id": p["federation_id"], "name": p["name"], "club": p["club"],
                         "club_id": club_id.get(names.identity(p["club"])) if p["club"] else None}
                        for p in players],
            "seasons": out}


@dataclass
class Pulled:
    """What a pull did: players ``added`` and ``updated`` (by federation id), clubs
    ``clubs_added`` and ``clubs_updated`` (renamed), and the ``clashes``: local players without
    a federation id who bear a registered name and club, left as they are for a person to match
    (:func:`match_player`)."""

    added: int = 0
    updated: int = 0
    clashes: list = field(default_factory=list)
    clubs_added: int = 0
    clubs_updated: int = 0


def _apply_clubs(rows: list[dict], out: Pulled) -> dict[str, str]:
    """Upsert the pulled clubs by federation id (inside the pull's transaction); returns
    federation id -> name. A club renamed at the federation is renamed here and its players'
    ``club`` follows (``clubs.follow_renames``: the venue's own players too); a local club of the
    name without an id, or with one the registry no longer has, takes the registry's id (or
    gives way to the renamed club). A row without a usable name, or of a name an earlier row
    has, is skipped."""
    pulled: dict[str, str] = {}
    seen: set[str] = set()
    for c in rows:
        name = names.normal(str(c.get("name") or ""))[:names.CLUB]
        if name and not names.check(name, names.CLUB) and names.identity(name) not in seen:
            seen.add(names.identity(name))
            pulled[str(c["federation_id"])[:clubs.ID_MAX]] = name
    have = {c.federation_id: c for c in Club.objects.filter(federation_id__in=list(pulled))}
    # the clubs renamed give up their keys first, as two clubs may swap names in one pull (the
    # key put in the meantime is none a name has: a name holds no control character)
    for f, name in pulled.items():
        if f in have and have[f].name != name:
            Club.objects.filter(pk=have[f].pk).update(key=f"\x01{have[f].pk}")
    renamed: dict[str, str] = {}  # a club's key before the pull -> its name now
    for f, name in pulled.items():
        key, mine = names.identity(name), have.get(f)
        other = Club.objects.filter(key=key).exclude(pk=getattr(mine, "pk", None)).first()
        if other is not None and mine is None:
            mine = other  # a local club of the name: the registry's from now on
        elif other is not None:
            other.delete()
        if mine is None:
            Club.objects.create(name=name, federation_id=f)
            out.clubs_added += 1
        elif (mine.name, mine.federation_id) != (name, f):
            Club.objects.filter(pk=mine.pk).update(name=name, key=key, federation_id=f)
            renamed[mine.key] = name  # the key the row was read with: its name's before the pull
            if f in have:
                out.clubs_updated += 1
            else:
                out.clubs_added += 1
    clubs.follow_renames(renamed)
    return pulled


def apply_registry(data: dict) -> Pulled:
    """Upsert the pulled registry's clubs (:func:`_apply_clubs`) and players by federation id
    (name and club follow the federation's; a player's ``club_id`` names his club); a local
    player without an id of the same name and club, as names are compared (``names.identity``:
    "nina alves" of "esquina  snooker clube" is "Nina Alves" of "Esquina Snooker Clube"), is
    never merged (a clash). The seasons' rankings are
    kept (``PulledSeason``) for seeding a draw. A registry of the older shape (``"clubs"`` a
    list of names, players without ``club_id``) applies too: its players' clubs are their
    ``club`` text."""
    out = Pulled()
    for s in (data or {}).get("seasons") or []:
        if isinstance(s, dict) and isinstance(s.get("id"), int) and isinstance(s.get("ranking"), list):
            PulledSeason.objects.update_or_create(federation_season_id=s["id"], defaults={
                "name": str(s.get("name") or "")[:120], "ranking": s["ranking"]})
    club_rows = [c for c in (data or {}).get("clubs") or [] if isinstance(c, dict) and c.get("federation_id")]
    rows = [p for p in (data or {}).get("players") or [] if isinstance(p, dict) and p.get("federation_id")]
    with transaction.atomic():
        club_names = _apply_clubs(club_rows, out)
        have = {p.federation_id: p for p in Player.objects.filter(federation_id__in=[r["federation_id"] for r in rows])}
        local = None  # (name, club) as names are compared -> the first local player without an id
        for r in rows:
            name = str(r.get("name") or "")[:80]
            club = club_names.get(str(r.get("club_id") or "")) or str(r.get("club") or "")[:60]
            p = have.get(r["federation_id"])
            if p is None:
                if local is None:  # read once, when a player is new: no query per row
                    local = {}
                    for pk, n, c in (Player.objects.filter(federation_id__isnull=True).order_by("pk")
                                     .values_list("pk", "name", "club").iterator()):
                        local.setdefault((names.identity(n), names.identity(c)), pk)
                clash = local.get((names.identity(name), names.identity(club)))
                if clash is not None:
                    out.clashes.append({"player": clash, "name": name, "club": club,
                                        "federation_id": r["federation_id"]})
                Player.objects.create(name=name, club=club, federation_id=r["federation_id"])
                out.added += 1
            elif (p.name, p.club) != (name, club):
                Player.objects.filter(pk=p.pk).update(name=name, club=club)
                out.updated += 1
    return out


class MatchRefused(ValueError):
    """A provisional player that cannot be matched as asked: ``pt`` and ``en``."""

    def __init__(self, pt: str, en: str) -> None:
        super().__init__(f"{pt} / {en}")
        self.pt, self.en = pt, en


def match_player(provisional: Player, registered: Player, by: str) -> int:
    """A person says ``provisional`` (a player without a federation id, e.g. made at a venue on
    the day) is ``registered``: his matches, members and entries move to the registered player,
    the provisional row stays (``matched_to``, so later records of his key land on the registered
    one) and the act is audited (``rename`` record). Returns the rows moved. Raises
    :class:`MatchRefused` when ``registered`` has no federation id or ``provisional`` has one."""
    if not registered.federation_id:
        raise MatchRefused(f"{registered.name} não está registrado na federação",
                           f"{registered.name} is not registered at the federation")
    if provisional.federation_id or provisional.pk == registered.pk:
        raise MatchRefused(f"{provisional.name} já está registrado; nada a identificar",
                           f"{provisional.name} is registered already; nothing to match")
    with transaction.atomic():
        moved = (Match.objects.filter(player_a=provisional).update(player_a=registered)
                 + Match.objects.filter(player_b=provisional).update(player_b=registered)
                 + MatchMember.objects.filter(player=provisional).update(player=registered)
                 + CompetitionEntry.objects.filter(player=provisional).update(player=registered))
        Player.objects.filter(pk=provisional.pk).update(matched_to=registered)
        MatchRecord.objects.create(match=None, kind="rename", by=by[:80],
                                   data={"provisional": provisional.pk, "key": provisional.provisional_key,
                                         "registered": registered.federation_id, "moved": moved})
    return moved


# -- the federation's side: ingest ---------------------------------------------------------------

class Refused(Exception):
    """A record the federation will not store: ``code`` (``gap``, ``owned_elsewhere``,
    ``bad_record``, ``rejected``), ``pt``/``en`` and ``extra`` keys of the answer."""

    def __init__(self, code: str, pt: str, en: str, **extra) -> None:
        super().__init__(f"{pt} / {en}")
        self.code, self.pt, self.en, self.extra = code, pt, en, extra

    def _keyed(self, key: str) -> "Refused":
        """This refusal naming ``key`` as the record that stopped the batch (unless it names one)."""
        self.extra.setdefault("key", key)
        return self


def _player(venue: Venue, ref) -> Player:
    if not isinstance(ref, dict):
        raise Refused("bad_record", "Jogador inválido no registro", "Invalid player in the record")
    name, club = str(ref.get("name") or "?")[:80], str(ref.get("club") or "")[:60]
    if ref.get("federation_id"):
        p = Player.objects.filter(federation_id=str(ref["federation_id"])).first()
        if p is not None:
            return p
        # an id this federation does not know (deleted, another federation's): a provisional one
        key = f"{venue.name}:fid:{ref['federation_id']}"
    else:
        key = f"{venue.name}:{ref.get('provisional')}"
    p = Player.objects.filter(provisional_key=key).first()
    if p is None:
        p = Player.objects.create(name=name, club=club, provisional_key=key[:100])
    return p.matched_to if p.matched_to_id else p


def _ensure_match(venue: Venue, uid: str, header: dict | None) -> Match | None:
    """The federation's row of the venue's match ``uid`` (made from ``header`` when new)."""
    match = Match.objects.filter(origin_venue=venue, origin_uid=uid).first()
    if match is not None or not header:
        return match
    try:
        config = sinuca.Match(header["config"]).config
        a, b = (_player(venue, r) for r in header["players"])
    except (KeyError, TypeError, ValueError, SinucaError) as e:
        raise Refused("bad_record", "Cabeçalho de jogo inválido", "Invalid match header") from e
    match = Match.objects.create(player_a=a, player_b=b, table=None, config=config, started_at=None,
                                 competition=str(header.get("competition") or "")[:120],
                                 referee_name=str(header.get("referee_name") or "")[:80],
                                 origin_venue=venue, origin_uid=uid)
    MatchMember.objects.bulk_create(MatchMember(match=match, side=int(s), order=int(o), player=_player(venue, r))
                                    for s, o, r in header.get("members") or [])
    return match


def _gap(uid: str, seq: int) -> Refused:
    return Refused("gap", f"Falta o registro anterior do jogo {uid} (esperado o evento {seq})",
                   f"A record of match {uid} is missing (expected event {seq})",
                   expected={"match": uid, "seq": seq})


def _ingest_event(venue: Venue, key: str, uid: str, seq, payload: dict) -> None:
    from . import log

    if not isinstance(seq, int) or seq < 1 or not isinstance(payload.get("event"), dict):
        raise Refused("bad_record", "Evento sem seq ou sem evento", "Event without a seq or an event")
    match = _ensure_match(venue, uid, payload.get("header"))
    if match is None:
        raise _gap(uid, 0)  # the match's own record first
    if seq <= match.seq:
        return  # delivered before: at least once, stored once
    if seq != match.seq + 1:
        raise _gap(uid, match.seq + 1)
    try:
        log.append_event(match.pk, payload["event"], expected_seq=seq - 1, key=key,
                         entered_by=str(payload.get("entered_by") or f"venue:{venue.name}")[:80], recorded=True)
    except log.Conflict as e:  # another request of the same venue appended meanwhile
        if seq > e.seq + 1:
            raise _gap(uid, e.seq + 1) from e
    except SinucaError as e:
        raise Refused("rejected", f"O motor recusou o evento {seq} do jogo {uid}: {e.message_pt}",
                      f"The engine refused event {seq} of match {uid}: {e.message_en}") from e
    if match.started_at is None:
        Match.objects.filter(pk=match.pk, started_at__isnull=True).update(started_at=timezone.now())


def _ingest_walkover(venue: Venue, uid: str, payload: dict) -> None:
    from . import log

    match = _ensure_match(venue, uid, payload.get("header"))
    wo = payload.get("walkover")
    if match is None or not isinstance(wo, dict):
        raise Refused("bad_record", "W.O. sem jogo", "Walkover without its match")
    if match.walkover is None:
        Match.objects.filter(pk=match.pk).update(walkover=wo, started_at=match.started_at or timezone.now())
        MatchRecord.objects.create(match=match, kind="walkover", data=payload.get("data") or wo,
                                   reason=str(payload.get("reason") or "")[:300], by=f"venue:{venue.name}"[:80])
        transaction.on_commit(lambda: log.publish_again(match.pk))


def _ingest_correction(venue: Venue, uid: str, payload: dict) -> None:
    from . import log

    match = _ensure_match(venue, uid, payload.get("header"))
    if match is None or not isinstance(payload.get("correction"), dict):
        raise Refused("bad_record", "Correção sem jogo", "Correction without its match")
    if match.correction != payload["correction"]:
        Match.objects.filter(pk=match.pk).update(correction=payload["correction"])
        MatchRecord.objects.create(match=match, kind="correction", data={"to": payload["correction"]},
                                   reason=str(payload.get("reason") or "")[:300], by=f"venue:{venue.name}"[:80])
        log.forget(match.pk)
        transaction.on_commit(lambda: log.publish_again(match.pk))


def _ingest_competition(venue: Venue, payload: dict) -> None:
    try:
        uid = str(payload["uid"])
        fields = {"name": str(payload["name"])[:120], "spec": payload["spec"], "draw": payload["draw"],
                  "withdrawn": payload.get("withdrawn") or [], "lineups": payload.get("lineups") or {}}
        entries, fixtures = payload["entries"], payload["fixtures"]
    except (KeyError, TypeError) as e:
        raise Refused("bad_record", "Competição incompleta", "Incomplete competition") from e
    comp, made = Competition.objects.get_or_create(origin_venue=venue, origin_uid=uid, defaults=fields)
    if not made:
        Competition.objects.filter(pk=comp.pk).update(**fields)
    CompetitionEntry.objects.filter(competition=comp).delete()
    CompetitionEntry.objects.bulk_create(CompetitionEntry(competition=comp, number=int(n), player=_player(venue, r),
                                                          seed=seed) for n, r, seed in entries)
    matches = dict(Match.objects.filter(origin_venue=venue, origin_uid__in=[f[1] for f in fixtures if f[1]])
                   .values_list("origin_uid", "pk"))
    have = {f.number: f for f in Fixture.objects.filter(competition=comp)}
    # a match moved from one fixture to another (a redraw) is unlinked first: one fixture per match
    Fixture.objects.filter(competition=comp).update(match=None)
    for number, muid, correction, postponed, stream in fixtures:
        values = {"match_id": matches.get(muid), "correction": correction, "postponed": bool(postponed),
                  "stream": bool(stream)}
        if number in have:
            Fixture.objects.filter(pk=have[number].pk).update(**values)
        else:
            Fixture.objects.create(competition=comp, number=int(number), **values)
    Fixture.objects.filter(competition=comp).exclude(number__in=[f[0] for f in fixtures]).delete()


def _event_record(venue: Venue, rec) -> bool:
    """Whether ``rec`` is a well-formed event record of this venue's (a run of them is stored
    per match in one transaction); any other record goes one at a time, refusals included."""
    if not (isinstance(rec, dict) and rec.get("kind") == "event" and rec.get("match") is not None
            and isinstance(rec.get("key"), str) and 1 <= len(rec["key"]) <= 120):
        return False
    payload, seq = rec.get("payload"), rec.get("seq")
    return (isinstance(payload, dict) and payload.get("origin") in (None, venue.name)
            and isinstance(seq, int) and seq >= 1
            and isinstance(payload.get("event"), dict))


def _ingest_run(venue: Venue, uid: str, recs: list[dict], acked: list[str]) -> Refused | None:
    """Store one match's event records (in the venue's order) in one transaction: those at or
    below the match's seq were delivered before (acknowledged again, nothing stored), the next
    ones are appended together (``log.append_recorded``), a seq beyond the next is a gap. The
    keys are added to ``acked`` only once committed; returns the refusal that stopped the run."""
    from . import log

    for _ in range(3):  # another request of the same venue appended meanwhile: plan again
        try:
            with transaction.atomic():
                match = _ensure_match(venue, uid, recs[0]["payload"].get("header"))
                if match is None:
                    return _gap(uid, 0)._keyed(recs[0]["key"])  # the match's own record first
                seq, plan, appended, stop = match.seq, [], [], None
                for rec in recs:
                    if rec["seq"] <= seq:
                        plan.append(rec)  # delivered before: at least once, stored once
                    elif rec["seq"] == seq + 1:
                        plan.append(rec)
                        appended.append(rec)
                        seq += 1
                    else:
                        stop = _gap(uid, seq + 1)._keyed(rec["key"])
                        break
                if appended:
                    items = [(r["key"], r["payload"]["event"],
                              str(r["payload"].get("entered_by") or f"venue:{venue.name}")[:80]) for r in appended]
                    try:
                        log.append_recorded(match.pk, items, expected_seq=match.seq)
                    except log.KeyReused as e:
                        raise Refused("bad_record", f"Chave já usada pelo evento {e.seq} do jogo {uid}",
                                      f"Key already used by event {e.seq} of match {uid}", key=e.key) from e
                    except SinucaError as e:
                        index = getattr(e, "index", None)
                        index = index if isinstance(index, int) else 0  # a W.O.'s refusal: the first
                        refused = appended[index]
                        stop = Refused("rejected", f"O motor recusou o evento {refused['seq']} do jogo {uid}: {e.message_pt}",
                                       f"The engine refused event {refused['seq']} of match {uid}: {e.message_en}",
                                       key=refused["key"])
                        plan = plan[:next(k for k, r in enumerate(plan) if r is refused)]
                        appended = appended[:index]
                        if appended:  # the events before the refused one are stored, as one by one
                            log.append_recorded(match.pk, items[:index], expected_seq=match.seq)
                    if appended and match.started_at is None:
                        Match.objects.filter(pk=match.pk, started_at__isnull=True).update(started_at=timezone.now())
        except log.Conflict:
            continue
        except Refused as e:
            return e._keyed(recs[0]["key"])
        except IntegrityError:  # two deliveries of the same new match at once: the next try finds it
            break
        acked.extend(r["key"] for r in plan)
        return stop
    return Refused("busy", "Registro concorrente; tente de novo", "Concurrent record; try again", key=recs[0]["key"])


def ingest(venue: Venue, records) -> tuple[list[str], Refused | None]:
    """Store a venue's records, in order per match: returns the keys acknowledged (stored now
    or before, each committed) and the refusal that stopped the batch, if any (a ``gap``:
    ``expected`` says which seq of which match; ``owned_elsewhere``; ``bad_record``;
    ``rejected`` by the engine). Idempotent: a record delivered again is acknowledged again and
    changes nothing.

    A run of consecutive event records is stored per match, each match's events in one
    transaction (:func:`_ingest_run`, in the order the matches first appear); any other
    record, and any record not well formed, one at a time in its own, in its place."""
    acked: list[str] = []
    if not isinstance(records, list) or len(records) > BATCH:
        return acked, Refused("bad_record", f"Envie de 1 a {BATCH} registros em 'records'",
                              f"Send 1 to {BATCH} records in 'records'")
    i = 0
    while i < len(records):
        end = i
        while end < len(records) and _event_record(venue, records[end]):
            end += 1
        if end > i:
            runs: dict[str, list[dict]] = {}
            for rec in records[i:end]:
                runs.setdefault(str(rec["match"])[:40], []).append(rec)
            for uid, recs in runs.items():
                stop = _ingest_run(venue, uid, recs, acked)
                if stop is not None:
                    return acked, stop
            i = end
            continue
        rec = records[i]
        i += 1
        if not isinstance(rec, dict) or not isinstance(rec.get("key"), str) or not 1 <= len(rec["key"]) <= 120:
            return acked, Refused("bad_record", "Registro sem 'key'", "Record without a 'key'")
        key, kind, payload = rec["key"], rec.get("kind"), rec.get("payload")
        uid = None if rec.get("match") is None else str(rec["match"])[:40]
        if not isinstance(payload, dict):
            return acked, Refused("bad_record", f"Registro {key} sem 'payload'", f"Record {key} without a 'payload'")
        origin = payload.get("origin")
        if origin is not None and origin != venue.name:
            return acked, Refused("owned_elsewhere",
                                  f"O jogo {uid} pertence ao clube {origin}; só ele o registra",
                                  f"Match {uid} belongs to venue {origin}; only it records it",
                                  key=key)
        try:
            with transaction.atomic():
                if kind == "match":
                    if uid is None or _ensure_match(venue, uid, payload.get("header")) is None:
                        raise Refused("bad_record", "Jogo sem cabeçalho", "Match without its header")
                elif kind == "event" and uid is not None:
                    _ingest_event(venue, key, uid, rec.get("seq"), payload)
                elif kind == "walkover" and uid is not None:
                    _ingest_walkover(venue, uid, payload)
                elif kind == "correction" and uid is not None:
                    _ingest_correction(venue, uid, payload)
                elif kind == "competition":
                    _ingest_competition(venue, payload)
                else:
                    raise Refused("bad_record", f"Tipo de registro desconhecido: {kind}", f"Unknown record kind: {kind}")
        except Refused as e:
            return acked, e._keyed(key)
        except IntegrityError:  # two deliveries of the same new match at once: the next try finds it
            return acked, Refused("busy", "Registro concorrente; tente de novo", "Concurrent record; try again", key=key)
        acked.append(key)
    return acked, None


__all__ = ["BATCH", "ClubRefused", "MatchRefused", "Pulled", "Refused", "VenueError", "apply_registry",
           "competition_payload", "enabled", "ingest", "issue_venue_token", "match_header", "match_player", "person", "record_competition",
           "record_correction", "record_event", "record_match", "record_walkover", "register", "register_club",
           "registry", "rename_club", "revoke_venue_token", "venue_of_token", "wakeup"]
