"""Creating a match: the one way a match row comes to exist.

Every path (``creatematch``, the admin's form, a match file's import, ``replaymatch``, the tests)
goes through :func:`match_config`, which asks the engine to accept the configuration, and
:func:`new_match`, which stores it. The configuration is frozen in ``Match.config``; the row
keeps no copy of it (``reds``, ``frames_to_win`` … are read from it).
"""
from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

import sinuca

from . import changes, names, outbox
from .credentials import login_path
from .models import Event, Match, MatchMember, Player, RefereeCredential, Table


def match_config(players: list, *, reds: int = 15, frames_to_win: int = 1,
                 first_breaker: int | None = None, retorno: bool = True) -> dict:
    """The engine's normalized configuration (contract section 2) for these settings.

    ``players``: two names, or two sides each a name or a list of 1 to 4 names (doubles, contract
    section 11: the configuration then keeps the side names in ``players`` and the players in
    ``sides``).
    ``first_breaker`` None leaves the match waiting for the lot (Art. 17); ``retorno`` False is
    an event regulation without replays (Art. 29). Raises ``sinuca.SinucaError``
    (``invalid_config``) when the engine refuses it.
    """
    config = {"reds": reds, "frames_to_win": frames_to_win, "players": list(players),
              "retorno": retorno}
    if first_breaker is not None:
        config["first_breaker"] = first_breaker
    return sinuca.Match(config).config


def player_named(name: str) -> Player:
    """The oldest player of that name, created when there is none."""
    return Player.objects.filter(name=name).order_by("pk").first() or Player.objects.create(name=name)


def new_match(config: dict, *, players: tuple[Player, Player] | None = None,
              members: list[list[Player]] | None = None,
              table: Table | str | None = None, started: bool = True, **fields) -> Match:
    """Store a match for ``config`` once the engine accepted it (raises ``SinucaError`` and
    stores nothing otherwise).

    ``players`` are the rows to link (default: found or created by the configuration's names);
    ``members``, for a doubles configuration (``config["sides"]``), each side's person rows in
    the listed order (default: found or created by name), linked as :class:`MatchMember`;
    ``table`` a row or a name (created when new); ``started`` marks it started now (a match
    scheduled in the admin is started later, with the lot); ``fields`` are the event-day fields
    (competition, referee_name, scheduled_at, shot_clock).
    """
    cfg = sinuca.Match(config).config
    with transaction.atomic():
        if isinstance(table, str):
            table = Table.objects.get_or_create(name=table)[0] if table else None
        a, b = players or (player_named(cfg["players"][0]), player_named(cfg["players"][1]))
        match = Match.objects.create(player_a=a, player_b=b, table=table, config=cfg,
                                     started_at=timezone.now() if started else None, **fields)
        sides = cfg.get("sides") or ()
        rows = members or [[player_named(name) for name in names] for names in sides]
        if [len(r) for r in rows] != [len(names) for names in sides]:
            raise ValueError("members must match config['sides'] person for person")
        MatchMember.objects.bulk_create(MatchMember(match=match, side=i, order=j, player=p)
                                        for i, people in enumerate(rows) for j, p in enumerate(people))
        outbox.record_match(match)
        changes.announce([match.pk])
        return match


def new_matches(items) -> list[Match]:
    """Store several singles matches at once, on no table and not started (a competition's
    matches as their players become known: 64 at the draw of a 128-player event): ``items`` is
    ``[(config, (player A row, player B row), fields)]``; each configuration is accepted by the
    engine first (raises ``SinucaError`` and stores nothing otherwise), then one INSERT stores
    them all. The same rows as :func:`new_match` with ``started=False`` and no table (a match on
    no table takes no table's overlay switches, so ``Match.save`` has nothing to add). Returns
    the matches, with their pks, in ``items``' order."""
    rows = [Match(player_a=a, player_b=b, table=None, config=sinuca.Match(config).config, started_at=None, **fields)
            for config, (a, b), fields in items]
    with transaction.atomic():
        made = Match.objects.bulk_create(rows) if rows else []
        for m in made:
            outbox.record_match(m)
    if made:
        changes.announce([m.pk for m in made])
    return made


@dataclass
class Created:
    """A new match with its referee's secrets (shown once) and its URLs."""

    match: Match
    token: str
    pin: str
    referee_url: str
    tv_url: str
    overlay_url: str

    def as_json(self) -> dict:
        """What ``creatematch`` prints."""
        return {"match": self.match.pk, "referee_token": self.token, "referee_pin": self.pin,
                "referee_url": self.referee_url, "tv_url": self.tv_url,
                "overlay_url": self.overlay_url}


def create_match(player_a: str | list[str], player_b: str | list[str], *, reds: int = 15, frames_to_win: int = 1,
                 first_breaker: int | None = None, retorno: bool = True, table: str = "",
                 base_url: str | None = None, referee_name: str = "", competition: str = "",
                 rehearsal: bool = False) -> Created:
    """A match to play now, with a referee credential (token and PIN) and its URLs.

    ``player_a`` / ``player_b``: a name, or a side's names (doubles: 1 to 4, Art. 1); the match
    row links one player row per side, named as the side ("Ana / Carla").
    ``rehearsal``: a demonstration (``scripts/run.sh``'s demo), never an official result. It is
    not started: it waits on ``table`` as the table's next match and starts with its first tap,
    so it holds the table for no competition (``core.competitions`` calls over it), and it
    replaces the earlier rehearsals on that table (no record of anything: run.sh may run again).
    Each name is its clubless player row (:func:`clubless_player`). Raises
    ``sinuca.SinucaError`` (``invalid_config``) and stores nothing when the engine refuses the
    configuration or both sides are one person, ``names.NameRefused`` for a name that cannot be
    stored (every name is checked first), ``operations.TableBusy`` when another match is in progress on
    ``table`` (one match in progress per table) and ``operations.TableHeld`` when a competition's
    match is called to it (not for a rehearsal).
    """
    from .venue_rules import check_table_free

    def side(value, which):
        # an empty name, or one that is not text, is left to the engine's own words
        def one(v, pt, en):
            return names.clean(v, names.PLAYER, (pt, en)) if isinstance(v, str) and v.strip() else v

        if isinstance(value, list):
            return [one(v, f"jogador {which}{k}", f"player {which}{k}") for k, v in enumerate(value, 1)]
        return one(value, f"jogador {which}", f"player {which}")

    player_a, player_b = side(player_a, "A"), side(player_b, "B")
    table = names.clean(table, names.TABLE, ("mesa", "table")) if table else ""
    referee_name = names.clean(referee_name, names.PLAYER, ("árbitro", "referee")) if referee_name else ""
    competition = names.clean(competition, names.COMPETITION, ("competição", "competition")) if competition else ""
    config = match_config([player_a, player_b], reds=reds, frames_to_win=frames_to_win,
                          first_breaker=first_breaker, retorno=retorno)
    base = settings.SITE_URL if base_url is None else base_url.rstrip("/")
    with transaction.atomic():
        if table:
            row = Table.objects.filter(name=table).first()
            if rehearsal and row is not None:
                delete_matches(rehearsals(row))
            # one match in progress per table, and none started on a table a match is called
            # to (a rehearsal only waits: its first tap is checked)
            check_table_free(row, called=not rehearsal)
        # Each name is the player row of that name with no club (the oldest), made when there
        # is none: as the admin has it, a name without a club is one person, and two of one
        # name are told apart by their clubs there (also each person of a doubles side).
        members = [[clubless_player(name) for name in names] for names in config.get("sides") or ()]
        a, b = clubless_player(config["players"][0]), clubless_player(config["players"][1])
        if a == b:  # one row, one person: he cannot play both sides (the engine's own words)
            raise sinuca.errors.error("invalid_config.player_twice", name=a.name[:40])
        match = new_match(config, players=(a, b),
                          members=members or None, table=table,
                          referee_name=referee_name, competition=competition, started=not rehearsal,
                          rehearsal=rehearsal)
        cred, token, pin = RefereeCredential.issue(match)
    ref = login_path(cred)
    return Created(match, token, pin, base + ref, base + reverse("tv", args=[match.pk]),
                   base + reverse("overlay", args=[match.pk]))


def clubless_player(name: str) -> Player:
    """The player row named ``name`` (80 characters at most; case and spaces aside, as the
    admin tells players apart) with no club, the oldest; created when there is none."""
    name = " ".join(name.split())[:80]
    return (Player.objects.filter(name__iexact=name, club="").order_by("pk").first()
            or Player.objects.create(name=name))


def delete_matches(matches) -> int:
    """Delete matches with their whole log (their events first: the log is append-only, so an
    event row protects its match from a stray delete). For rehearsals only, which are no record
    of anything (``replaymatch``). Returns how many matches were deleted."""
    from . import log

    ids = list(matches.values_list("pk", flat=True))
    with transaction.atomic():
        Event.objects.filter(match_id__in=ids).delete()
        Match.objects.filter(pk__in=ids).delete()
        if ids:
            changes.announce()  # a match gone: no competition of it to name any more
    for pk in ids:
        log._engines.pop(pk, None)  # this process's cached engine of a match that is gone
    return len(ids)


def rehearsals(table: Table | None = None, everywhere: bool = False):
    """Rehearsal matches: on ``table`` (or on no table), or with ``everywhere`` all of them."""
    qs = Match.objects.filter(rehearsal=True)
    return qs if everywhere else qs.filter(table=table)
