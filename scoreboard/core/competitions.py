"""Competitions in the app: the tournament core (``tournament/``, pure) over the event log.

What is stored: the competition's spec and draw (:class:`~.models.Competition`), its entrants
(player rows), one :class:`~.models.Fixture` row per match of the plan (with the scored
:class:`~.models.Match` once both players are known), and a corrected result where the desk
corrected one. Everything else, the plan, who plays whom, standings, placings, the champion, is
recomputed by the core from those and from the matches' results as the log says them
(:func:`results`): the log stays the only truth of a match.

Results flow by themselves: :func:`connect` subscribes :func:`after_change` to the log's commits
(and to a W.O.'s re-statement), so a match's end (frames, concession, disqualification, W.O.)
runs :func:`advance`: the matches whose players became known are made, a match whose players
changed before it started is made again, and free tables are called (``assignment`` next free
or fixed table; ``manual`` leaves it to the desk, ``confirm`` offers the desk the queue's pick to
confirm). A called match is on its table, not started:
the table's TV and venue show it as the next match with its W.O. tolerance clock, and the
table's tablet (which follows what its table has next) opens it by itself.

Refusals are ``tournament.TournamentError`` (too few entrants, unknown format, duplicate
entrant, players unknown, correction refused, draw locked …) or ``operations.OperationRefused``
(table busy), both with a Portuguese and an English message, and change nothing.
"""
from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Callable

from django.db import transaction
from django.utils import timezone

import tournament
from sinuca import Phase
from tournament import TournamentError

from . import changes, log, memory, names, operations, outbox, teams, venue_rules
from . import calls
from .calls import call as _call
from .matches import delete_matches, match_config, new_matches
from .models import Competition, CompetitionEntry, Fixture, Match, MatchRecord, Player, Table, hash_token

logger = logging.getLogger(__name__)

RESULT_KINDS = {"frames", "concession", "disqualification"}


# -- building ----------------------------------------------------------------------------------

# comp pk -> ((spec json, draw json), spec, plan): a result's effect re-reads the competition on
# every match end, and parsing the spec and building a 240-fixture plan cost more than the
# evaluation itself; both are pure functions of the stored spec and draw (frozen dataclasses),
# so they are rebuilt only when those change (a redraw). Bounded: the oldest goes first.
_PLANS: dict = {}
_PLANS_MAX = 32


def _cached(comp: Competition):
    key = (json.dumps(comp.spec, sort_keys=True), json.dumps(comp.draw, sort_keys=True))
    hit = _PLANS.get(comp.pk)
    if hit is not None and hit[0] == key:
        return hit
    spec = tournament.parse_competition(comp.spec)
    hit = (key, spec, tournament.build(spec, draw_from(comp.draw)))
    _PLANS.pop(comp.pk, None)
    _PLANS[comp.pk] = hit
    while len(_PLANS) > _PLANS_MAX:
        _PLANS.pop(next(iter(_PLANS)))
    return hit


def spec_of(comp: Competition) -> tournament.Competition:
    """The core's spec of a stored competition (parsed once per spec, see ``_cached``)."""
    return _cached(comp)[1]


def draw_from(data: dict) -> tournament.Draw:
    """A recorded draw (``{"method", "seed", "groups": [[ids]], "order": [ids]}``) as the core's."""
    return tournament.Draw(data["method"], data["seed"], tuple(tuple(g) for g in data.get("groups", [])),
                           tuple(data.get("order", [])))


def draw_json(draw: tournament.Draw) -> dict:
    return {"method": draw.method, "seed": draw.seed, "groups": [list(g) for g in draw.groups],
            "order": list(draw.order)}


def plan_of(comp: Competition) -> tournament.Plan:
    """The competition's plan: every fixture, from the spec and the recorded draw (built once
    per spec and draw, see ``_cached``)."""
    return _cached(comp)[2]


@dataclass
class Created:
    """A new competition (of either format) and the desk's API token (shown once)."""

    competition: Competition
    desk_token: str

    def as_json(self) -> dict:
        """What ``createcompetition`` prints: ``{"competition", "name", "desk_token", "draw",
        "matches", "api_url", "desk_url"}`` and its format's part (:attr:`Format.created`:
        ``"entries"``, ``"fixtures"``, ``"tables"``; a team competition's ``"format"``,
        ``"teams"``, ``"ties"`` too)."""
        c = self.competition
        return {"competition": c.pk, "name": c.name, "desk_token": self.desk_token, **format_of(c).created(c),
                "draw": c.draw, "matches": sorted(c.fixtures.exclude(match=None).values_list("match_id", flat=True)),
                "api_url": f"/api/competitions/{c.pk}/", "desk_url": f"/desk/{c.pk}/"}


def _created_individual(comp: Competition) -> dict:
    """An individual competition's part of :meth:`Created.as_json`."""
    return {"entries": comp.entries.count(), "fixtures": len(plan_of(comp).fixtures),
            "tables": [t["name"] for t in comp.spec.get("tables", [])]}


def _fits(what_pt: str, what_en: str, value, model, field: str) -> None:
    """Raise ``TournamentError`` (``name_too_long``) when ``value`` is longer than its column: a
    10,000-character name reached PostgreSQL and came back as a DataError traceback (and SQLite,
    which has no lengths, stored it)."""
    limit = model._meta.get_field(field).max_length
    if isinstance(value, str) and len(value.strip()) > limit:
        raise TournamentError(
            "name_too_long", f"Nome longo demais: {what_pt} tem {len(value.strip())} caracteres, o máximo é {limit}",
            f"Name too long: {what_en} has {len(value.strip())} characters, at most {limit}")


def venue_tables(data):
    """The competition file ``data`` with each table named as the venue's row of that name
    ignoring case (``str.casefold``; names already :func:`names.normal`), so "mesa 1" in a file
    is the venue's "Mesa 1", not a second table that reads the same on every screen. Anything
    that is not a table's name is left for the file's own checks."""
    if not isinstance(data, dict) or not isinstance(data.get("tables"), list):
        return data
    venue = {n.casefold(): n for n in Table.objects.values_list("name", flat=True)}

    def named(t):
        if isinstance(t, str):
            return venue.get(t.casefold(), t)
        if isinstance(t, dict) and isinstance(t.get("name"), str):
            return {**t, "name": venue.get(t["name"].casefold(), t["name"])}
        return t
    return {**data, "tables": [named(t) for t in data["tables"]]}

def create_competition(data: dict, by: str = "cmd") -> Created:
    """Validate the file's JSON (``tournament.parse_competition``), draw it with its seed, and
    store it with its players (found by name and club, else created), tables and fixtures; then
    make the first matches and call the free tables. Raises ``TournamentError``; nothing is
    stored then. A file seeded by a season's ranking (``"seed_by_season"``) is ordered first by
    ``core.seasons.create_seeded``, which sits above this module. The file's format is
    ``tournament.format_for``'s (a team file, ``"teams"``, is ``core.teams.create``'s). Every
    name in it is checked and stored clean first (``names.competition_file``: a refused one is a
    ``TournamentError`` ``bad_name``; a name too long for its column is refused by
    :func:`_fits`)."""
    if isinstance(data, dict):
        _fits("o nome da competição", "the competition's name", data.get("name"), Competition, "name")
    try:
        data = names.competition_file(data)
    except names.NameRefused as e:
        raise TournamentError("bad_name", e.pt, e.en) from e
    data = venue_tables(data)
    token = secrets.token_urlsafe(32)
    return Created(_FORMATS[tournament.format_for(data).kind].create(data, hash_token(token)), token)


def _create_individual(data: dict, desk_token_hash: str) -> Competition:
    """:func:`create_competition` of an individual competition's file (names already clean):
    the stored competition, its first matches made and free tables called."""
    spec = tournament.parse_competition(data)
    for e in spec.entries:
        _fits(f"o nome do jogador {e.id}", f"player {e.id}'s name", e.name, Player, "name")
        _fits(f"o clube do jogador {e.id}", f"player {e.id}'s club", e.club, Player, "club")
    for t in spec.tables:
        _fits(f"o nome da mesa {t.name[:20]}…", f"the name of table {t.name[:20]}…", t.name, Table, "name")
    plan = tournament.build(spec)
    with transaction.atomic():
        comp = Competition.objects.create(name=spec.name, spec=spec.to_dict(), draw=draw_json(plan.draw),
                                          desk_token_hash=desk_token_hash)
        # the entrants' rows, found by name and club (the oldest of each) or made: three queries
        # for 128 players, not 384; a player registered at the federation before an unregistered namesake
        found: dict = {}
        for p in sorted(Player.objects.filter(name__in={e.name for e in spec.entries}),
                        key=lambda p: (p.federation_id is None, p.pk)):
            found.setdefault((p.name, p.club), p)
        new = {}
        for e in spec.entries:
            if (e.name, e.club) not in found and (e.name, e.club) not in new:
                new[(e.name, e.club)] = Player(name=e.name, club=e.club)
        found.update(zip(new, Player.objects.bulk_create(list(new.values()))))
        CompetitionEntry.objects.bulk_create([CompetitionEntry(competition=comp, number=i, player=found[(e.name, e.club)],
                                                               seed=e.seed) for i, e in enumerate(spec.entries, start=1)])
        have = set(Table.objects.filter(name__in=[t.name for t in spec.tables]).values_list("name", flat=True))
        Table.objects.bulk_create([Table(name=t.name) for t in spec.tables if t.name not in have], ignore_conflicts=True)
        Fixture.objects.bulk_create([Fixture(competition=comp, number=f.id, stream=f.stream) for f in plan.fixtures])
    advance(comp)
    return comp


def new_desk_token(comp: Competition, by: str) -> str:
    """A new desk API token for ``comp`` (shown once, only its hash kept): the previous one
    stops working at once (a competition has one desk token; a lost or leaked one is replaced,
    ``manage.py desktoken``). Audited (``desk_token``, on no match)."""
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        Competition.objects.filter(pk=comp.pk).update(desk_token_hash=hash_token(token))
        MatchRecord.objects.create(match=None, kind="desk_token", by=by[:80], data={"competition": comp.pk})
    return token


def desk_competition(token: str) -> Competition | None:
    """The competition a desk token belongs to, or None."""
    return Competition.objects.filter(desk_token_hash=hash_token(token)).first() if token else None


# -- results -----------------------------------------------------------------------------------

def _entry_ids(spec: tournament.Competition) -> list:
    return [e.id for e in spec.entries]


# comp pk -> {player pk: entry id}: a competition's entries are written once, with it (the
# admin shows them read-only), and every result's effect read them again
_ENTRIES: dict = {}


def _player_entries(comp: Competition, spec: tournament.Competition) -> dict[int, object]:
    """player pk -> the core's entry id (kept per competition once all its entries exist)."""
    ids = _entry_ids(spec)
    key = (ids, comp.created_at)  # a row id may come back (a rolled-back test on SQLite): its time not
    hit = _ENTRIES.get(comp.pk)
    if hit is not None and hit[0] == key:
        return hit[1]
    out = {pl: ids[n - 1] for n, pl in comp.entries.values_list("number", "player_id") if 1 <= n <= len(ids)}
    if len(out) == len(ids):
        if len(_ENTRIES) >= _PLANS_MAX:
            _ENTRIES.pop(next(iter(_ENTRIES)))
        _ENTRIES[comp.pk] = (key, out)
    return out


def match_result(match: Match, entry_of: dict, last_state: dict | None = None,
                 frames_to_win: int | None = None) -> tournament.Result | None:
    """The core's result of a scored match (sides as the match's players A, B), or None while
    it is not over. A W.O. is the desk's; otherwise the engine's end: frames, concession,
    disqualification (no winner: both disqualified, Art. 55, counted as a double W.O.).
    ``last_state``: the engine's state after the match's latest event as the log stored it
    (read here when not given). ``frames_to_win``: the match's (its fixture's in the plan, which
    its configuration was made with), else read from its configuration."""
    a, b = entry_of.get(match.player_a_id), entry_of.get(match.player_b_id)
    if match.walkover:
        w = match.walkover.get("winner")
        if w is None:
            return tournament.Result(None, (0, 0), "double_walkover")
        k = frames_to_win if frames_to_win is not None else match.config["frames_to_win"]
        return tournament.Result(a if w == 0 else b, (k, 0) if w == 0 else (0, k), "walkover")
    if match.seq == 0:
        return None
    s = last_state if last_state is not None else log.snapshot(match.pk).state
    if s.get("phase") != Phase.MATCH_OVER:
        return None
    w = s["match_winner"]
    frames = (s["frames"][0], s["frames"][1])
    if w is None:
        return tournament.Result(None, (0, 0), "double_walkover")
    points = [sum(h["scores"][i] for h in s.get("history", [])) for i in (0, 1)]
    kind = s.get("match_result") if s.get("match_result") in RESULT_KINDS else "frames"
    return tournament.Result(a if w == 0 else b, frames, kind, (points[0], points[1]),
                             (s["highest_break"][0], s["highest_break"][1]))


last_states = log.last_states  # the screens' name for it (live.event, live.graphics)


# what the results flow reads of a fixture and its match (``advance``, ``call_free_tables``,
# ``match_result``): a match row is wide, and building 240 of them on every match end was a
# third of a result's effect
_FIXTURE_FIELDS = ("id", "competition_id", "number", "match_id", "called_at", "postponed", "correction", "stream")
_MATCH_FIELDS = ("id", "player_a_id", "player_b_id", "table_id", "seq", "started_at", "walkover")


def _bare(cls, values: dict, db: str):
    """A row of ``cls`` as a model instance made from ``values`` (attribute names) without
    ``Model.__init__`` (a result's effect built ~450 of them: the largest part of its time after
    the queries): ``save(update_fields=…)`` and the relations work; a field not in ``values`` is
    deferred (read on access, as with ``QuerySet.only``). Only for models without ``post_init``
    work (no file fields): ``Fixture`` and ``Match``."""
    from django.db.models.base import ModelState

    obj = cls.__new__(cls)
    obj.__dict__.update(values)
    state = obj._state = ModelState()
    state.adding, state.db = False, db
    return obj


def _fixtures(comp: Competition, light: bool = False) -> dict[int, Fixture]:
    """fixture number -> its row with its match (and table). ``light``: only the fields the
    results flow reads (:data:`_FIXTURE_FIELDS`, :data:`_MATCH_FIELDS`; any other is read on
    access, one query each), read as values and made into rows by :func:`_bare`."""
    if not light:
        return {f.number: f for f in comp.fixtures.select_related("match", "match__table")}
    qs = comp.fixtures.all()
    db = qs.db
    nf = len(_FIXTURE_FIELDS)
    out = {}
    for row in qs.values_list(*_FIXTURE_FIELDS, *(f"match__{f}" for f in _MATCH_FIELDS)):
        fx = _bare(Fixture, dict(zip(_FIXTURE_FIELDS, row[:nf])), db)
        m = _bare(Match, dict(zip(_MATCH_FIELDS, row[nf:])), db) if row[3] is not None else None
        fx._state.fields_cache["match"] = m
        out[fx.number] = fx
    return out


def results(comp: Competition, spec=None, fixtures=None, entry_of=None, plan=None) -> dict:
    """``{fixture number: tournament.Result}`` of every decided match: a protest's overruling
    where the federation recorded one (a venue's competition at its federation,
    ``core.overrulings``), else a correction where the desk made one, else the match's own
    result (:func:`match_result`). ``entry_of``: player pk -> entry id, when the caller has read
    it."""
    spec = spec or spec_of(comp)
    fixtures = fixtures if fixtures is not None else _fixtures(comp)
    entry_of = entry_of if entry_of is not None else _player_entries(comp, spec)
    plan = plan or _cached(comp)[2]
    born = comp.created_at  # a row id may come back (a rolled-back test on SQLite): its competition's time not
    cache = _MATCH_RESULTS
    # (fixture number, its row, its match) once: a result's effect walks the 240 fixtures here
    rows = [(n, fx, fx.match) for n, fx in fixtures.items()]

    def key(m: Match):
        return (m.pk, born, m.seq, m.player_a_id, m.player_b_id, entry_of.get(m.player_a_id),
                entry_of.get(m.player_b_id))

    # only matches with events the cache has not seen need their last state (a W.O. needs none);
    # the one that just ended, the log's commit gave (``after_change``)
    states, need = {}, []
    for _n, fx, m in rows:
        if m is not None and not fx.correction and not m.walkover and m.seq and key(m) not in cache:
            given = _ENDED.pop((m.pk, m.seq), None)
            if given is not None:
                states[m.pk] = given
            else:
                need.append(m.pk)
    if need:
        states.update(last_states(need))
    overruled = {}
    if comp.origin_venue_id is not None:  # only a venue's matches are overruled, at its federation
        from .overrulings import of_matches

        overruled = of_matches([m.pk for _n, _fx, m in rows if m is not None])
    out = {}
    for n, fx, m in rows:
        if m is not None and m.pk in overruled:
            o = overruled[m.pk]
            pa, pb = entry_of.get(m.player_a_id), entry_of.get(m.player_b_id)
            out[n] = tournament.Result(pa if o["winner"] == 0 else pb, tuple(o["frames"]), "frames")
        elif fx.correction:
            out[n] = tournament.Result.from_dict(fx.correction)
        elif m is not None:
            if m.walkover or not m.seq:
                r = match_result(m, entry_of, {}, plan.fixtures[n - 1].frames_to_win if n <= len(plan.fixtures) else None)
            else:
                k = key(m)
                r = cache.get(k, cache)
                if r is cache:
                    r = match_result(m, entry_of, states.get(m.pk, {}))
                    if len(cache) >= _MATCH_RESULTS_MAX:
                        cache.clear()
                    cache[k] = r
            if r is not None:
                out[n] = r
    return out


# (match pk and its competition's creation time, its event count, players and their entries) -> its result (or None while it is not
# over): the log is append-only, so a match's result at a given event count never changes (an
# undo is a new event, so a new count); every match end re-read and decoded the last state of
# every match played so far. Bounded: cleared when full.
_MATCH_RESULTS: dict = {}
_MATCH_RESULTS_MAX = 20000

# (match pk, seq) -> the engine's state after that event, as the log committed it (its
# ``Change``): the result's effect that follows needs it and read it back from the log. Bounded.
_ENDED: dict = {}
for _memory in (_PLANS, _ENTRIES, _MATCH_RESULTS, _ENDED):
    memory.remembered(_memory.clear)


def started(fixtures: dict) -> set[int]:
    """Fixture numbers whose match has started (the desk started it, or it has events, or W.O.)."""
    out = set()
    for n, fx in fixtures.items():
        m = fx.match
        if m is not None and (m.started_at is not None or m.seq > 0 or m.walkover is not None):
            out.add(n)
    return out


@dataclass
class Now:
    """A competition as of now: spec, plan, fixture rows, results and the core's state."""

    comp: Competition
    spec: tournament.Competition
    plan: tournament.Plan
    fixtures: dict
    results: dict
    state: tournament.State
    player_of: dict  # entry id -> player pk


def now(comp: Competition, light: bool = False) -> Now:
    """Recompute everything of ``comp`` from what is stored (``light``: the fixtures' matches
    with only what the results flow reads, see ``_fixtures``)."""
    _, spec, plan = _cached(comp)
    fixtures = _fixtures(comp, light)
    entry_of = _player_entries(comp, spec)
    res = results(comp, spec, fixtures, entry_of, plan)
    ids = _entry_ids(spec)
    withdrawn = [ids[n - 1] for n in comp.withdrawn or [] if 1 <= n <= len(ids)]
    return Now(comp, spec, plan, fixtures, res, tournament.evaluate(plan, res, withdrawn),
               {e: pl for pl, e in entry_of.items()})


# -- the flow: make matches, call tables -------------------------------------------------------

def _names(comp: Competition, spec: tournament.Competition | None = None) -> dict:
    """entry id -> its player row."""
    spec_ids = _entry_ids(spec or spec_of(comp))
    return {spec_ids[e.number - 1]: e.player for e in comp.entries.select_related("player")}


def advance(comp: Competition) -> list[int]:
    """Bring the stored matches in line with the core's state (its format's flow, see
    :func:`format_of`): make the matches whose players became known, drop (before it started)
    one whose players changed, then call free tables. Returns the fixture numbers called.
    Idempotent. A competition a venue ran (at its federation: ``origin_venue``) is the venue's
    to advance: nothing is made or called here; at a venue of a federation the competition's
    file and fixtures then go to the outbox when they changed. The marks of its matches whose
    result changed (``Match.results_due``), read before the work, are cleared after it."""
    flagged = list(Match.objects.filter(fixture__competition=comp, results_due=True).values_list("pk", flat=True))
    if comp.origin_venue_id is None:
        called = format_of(comp).advance(comp)
        outbox.record_competition(comp)
    else:
        called = []
    if flagged:
        # the results seen before the work are done; one that changed since keeps its mark
        Match.objects.filter(pk__in=flagged).update(results_due=False)
    return called


def _advance_individual(comp: Competition) -> list[int]:
    """:func:`advance` of an individual competition: make the match of every fixture whose two
    players are known, drop (before it started) one whose players changed or are no longer
    known, then call free tables."""
    with transaction.atomic():
        comp = Competition.objects.select_for_update().get(pk=comp.pk)
        if comp.due_at is not None and comp.due_at <= timezone.now():
            # run now: what was due is done (a rest still holding a table is stored again below)
            Competition.objects.filter(pk=comp.pk).update(due_at=None)
        cur = now(comp, light=True)
        player_pk = cur.player_of  # no rows: they are read only for the matches made below
        label_of = {f.id: f for f in cur.plan.fixtures}
        make = []
        for n, ms in cur.state.matches.items():
            fx = cur.fixtures[n]
            m = fx.match
            want = None
            if ms.status == "ready" or (ms.status in ("finished", "walkover") and m is not None):
                want = tuple(player_pk[e] for e in ms.players) if None not in ms.players else None
            # a match not started goes when its players changed, or a withdrawal made it a W.O.
            if m is not None and not calls.has_started(m) and (want is None or ms.auto
                                                               or (m.player_a_id, m.player_b_id) != want):
                fx.match = None
                fx.called_at = None
                fx.save(update_fields=["match", "called_at"])
                delete_matches(Match.objects.filter(pk=m.pk))
                m = None
            if m is None and ms.status == "ready" and want is not None:
                make.append((n, fx, ms, want))
        rows = Player.objects.in_bulk({pk for *_, want in make for pk in want}) if make else {}
        items = []
        for n, fx, ms, want in make:
            f = label_of[n]
            a, b = rows[want[0]], rows[want[1]]
            config = match_config([a.name, b.name], reds=cur.spec.reds, frames_to_win=f.frames_to_win)
            items.append((config, (a, b), {"competition": f"{comp.name} · {f.label()['pt']}"[:120]}))
        # one INSERT for the matches made, one UPDATE for their fixtures (the draw makes 64)
        for (n, fx, ms, want), m in zip(make, new_matches(items)):
            fx.match = m
        if len(make) == 1:
            make[0][1].save(update_fields=["match"])
        elif make:
            Fixture.objects.bulk_update([fx for _n, fx, _ms, _w in make], ["match"])
        # "manual": the desk calls; "confirm": the desk confirms the queue's suggestion (desk_context)
        called = [] if cur.spec.assignment in ("manual", "confirm") else call_free_tables(comp, cur)
    return called


def queue_picks(comp: Competition, cur: Now | None = None, *, rest: bool = True,
                lock: bool = False) -> tuple[list, float | None, dict]:
    """What the queue would call now (``tournament.assign``: schedule order, fixed group
    tables, stream tables and the matches flagged for them, players busy or resting), without
    calling anything: ``([(table row, fixture row)], wake, rehearsals)`` for the competition's
    free tables in the file's order, no player twice; ``wake``: when the first rest that holds a
    free table back ends (seconds), or None; ``rehearsals``: table pk -> the rehearsals waiting
    there (a call deletes them). ``rest`` False ignores the rests (the desk's suggestion of a
    match whose player still rests). A table is free with nothing in progress on it and nothing
    waiting there (as ``venue_rules.table_holder`` says). ``lock`` (inside a transaction): the
    competition's tables are locked first (``select_for_update``), so what is free stays free
    for the calls until the caller commits (as every start path checks a table under its lock)."""
    from django.db.models import Max

    from . import tables as venue

    cur = cur or now(comp)
    spec_tables = list(cur.spec.tables)
    tables_qs = Table.objects.filter(name__in=[t.name for t in spec_tables])
    rows = {t.name: t for t in (tables_qs.select_for_update() if lock else tables_qs)}
    # what holds each table: a match in progress, or a match waiting there; a rehearsal waiting
    # holds it for nobody. Read after the lock (a move there may just have committed); whether
    # one of this competition's matches is over, ``cur`` says (a match that ended since only frees
    # a table); another event's match started there needs its last phase (a second query, only then)
    own = {fx.match_id: n for n, fx in cur.fixtures.items() if fx.match_id is not None}
    held, rehearsals, others = set(), {}, []
    for table_id, pk, rehearsal, started_at, seq in (
            Match.objects.filter(table__in=rows.values(), walkover__isnull=True)
            .values_list("table_id", "pk", "rehearsal", "started_at", "seq")):
        if pk in own:
            if own[pk] not in cur.results:
                held.add(table_id)
        elif started_at is None and seq == 0:
            if rehearsal:
                rehearsals.setdefault(table_id, []).append(pk)
            else:
                held.add(table_id)
        else:
            others.append((table_id, pk))
    if others:
        going = set(venue.in_progress().filter(pk__in=[pk for _t, pk in others]).values_list("pk", flat=True))
        held |= {t for t, pk in others if pk in going}
    for t in held:
        rehearsals.pop(t, None)
    free = [st for st in spec_tables if st.name in rows and rows[st.name].pk not in held
            and not rows[st.name].out_of_service]
    # a match in progress on a table out of service needs a free table: the queue leaves it one
    # (the table freed for the move is not refilled before the move)
    broken = [st.name for st in spec_tables if st.name in rows and rows[st.name].out_of_service]
    if broken and free:
        free = free[:max(0, len(free) - calls.displaced(broken))]
    if not free:
        return [], None, rehearsals
    # when each player's last match ended: only a rest needs it
    ended = dict(Match.objects.filter(pk__in=[fx.match_id for n, fx in cur.fixtures.items()
                                              if fx.match_id and n in cur.results])
                 .annotate(end=Max("events__at")).values_list("pk", "end")) if rest and cur.spec.rest_minutes else {}
    busy, last_finish = set(), {}
    # a person is in one place at a time: called or in play in another competition (or in a
    # friendly) is busy here too, his row or another row of the same person
    elsewhere = calls.people_elsewhere(comp.pk)
    # and he rests after a match wherever he played it: one just ended in another competition
    # holds him back as one of this competition's would
    rested = (calls.people_ended_elsewhere(comp.pk, timezone.now() - timedelta(minutes=cur.spec.rest_minutes))
              if rest and cur.spec.rest_minutes else [])
    if elsewhere or rested:
        ids = _entry_ids(cur.spec)
        for number, pname, club in comp.entries.values_list("number", "player__name", "player__club"):
            key = venue_rules.person_key(pname, club)
            if not 1 <= number <= len(ids):
                continue
            if any(venue_rules.same_person(key, k) for k in elsewhere):
                busy.add(ids[number - 1])
            for k, end in rested:
                if venue_rules.same_person(key, k):
                    last_finish[ids[number - 1]] = max(last_finish.get(ids[number - 1], 0), end)
    for n, fx in cur.fixtures.items():
        m, ms = fx.match, cur.state.matches[n]
        if m is None:
            continue
        over = n in cur.results
        if not over and (m.table_id is not None or calls.has_started(m)):
            busy |= {p for p in ms.players if p is not None}
        if over and m.seq:
            end = ended.get(m.pk)
            if end:
                for p in ms.players:
                    last_finish[p] = max(last_finish.get(p, 0), end.timestamp())
    # the queue's view of each match: the stream flag is the stored one (the file's, or the desk's)
    candidates = []
    for ms in cur.state.ready():
        fx = cur.fixtures[ms.id]
        m = fx.match
        if m is not None and m.table_id is None and not calls.has_started(m) and not fx.postponed:
            candidates.append({"id": ms.id, "group": ms.fixture.group, "players": list(ms.players),
                               "stream": fx.stream})
    t_now = timezone.now().timestamp()
    rest_minutes = cur.spec.rest_minutes if rest else 0
    picks = tournament.assign(free, candidates, spec_tables, busy, last_finish, t_now, rest_minutes)
    taken = {st.name for st, _m in picks}
    wake = None  # when a player who holds back a free table ends his rest
    left = [c for c in candidates if c["id"] not in {m["id"] for _t, m in picks}]
    busy |= {p for _t, m in picks for p in m["players"]}
    for st in free:
        if st.name in taken:
            continue
        for c in left:
            why = tournament.waiting_reasons(c, st, spec_tables, busy, last_finish, t_now, rest_minutes, ready=left)
            if why and all(r["code"] == "resting" for r in why):
                until = max(r["until"] for r in why)
                wake = until if wake is None else min(wake, until)
    return [(rows[st.name], cur.fixtures[m["id"]]) for st, m in picks], wake, rehearsals


def call_free_tables(comp: Competition, cur: Now | None = None) -> list[int]:
    """Call the next match to each of the competition's free tables (:func:`queue_picks`, the
    tables locked while they are read and called). Returns the fixture numbers called. ``cur``:
    the competition as :func:`now` read it (with the matches :func:`advance` just made)."""
    with transaction.atomic(savepoint=False):  # advance's own transaction (a savepoint is a round trip)
        picks, wake, rehearsals = queue_picks(comp, cur, lock=True)
        called = []
        for table, fx in picks:
            # checked under the table's lock just now: the call does not read it again
            _call(fx, table, "auto", rehearsals=rehearsals.get(table.pk, []))
            called.append(fx.number)
    if wake is not None:
        # nothing else happens when a rest ends: without this the free table waited for some
        # other match to end (or for the desk) however long the rest had been over
        wake_at(comp.pk, wake)
    return called


WAKE_MARGIN = 0.5
"""Seconds after a rest's end that the queue runs (a rest still holds the table at its very end)."""


def wake_at(comp_id: int, when: float) -> None:
    """Store that the competition's queue must run again at ``when`` (seconds since the epoch:
    a player's rest ends), in the competition's row (``Competition.due_at``; an earlier due time
    stays). Whoever checks the due times next runs it (:func:`run_due`: every worker's
    once-a-second reconciliation), so a worker's restart loses nothing."""
    from datetime import datetime, timezone as tz

    from django.db.models import Q

    at = datetime.fromtimestamp(when + WAKE_MARGIN, tz=tz.utc)
    Competition.objects.filter(pk=comp_id).filter(Q(due_at__isnull=True) | Q(due_at__gt=at)).update(due_at=at)


def run_due(at=None) -> list[int]:
    """Run the queue (:func:`advance`) of every competition whose stored due time
    (:func:`wake_at`, or a result handed to the background, :func:`_flow`) has come (``at``:
    now), and of every competition with a match whose result changed and was not reacted to
    (``Match.results_due``, marked by the log with the event: the process that took the tap died
    before its background work ran). Each due time is claimed by one process (cleared only while
    it is still the one read), and :func:`advance` is idempotent. Returns the competitions run.
    Never raises: a failure (the database away) is logged, and the next check tries again."""
    at = at or timezone.now()
    ran = []
    try:
        for pk, due in Competition.objects.filter(due_at__lte=at).order_by("due_at").values_list("pk", "due_at"):
            if Competition.objects.filter(pk=pk, due_at=due).update(due_at=None):
                _advance_safely(pk, 0)
                ran.append(pk)
        # a result whose reaction never ran (its process died first): :func:`advance` clears it
        flagged = list(Match.objects.filter(results_due=True).order_by("pk")
                       .values_list("pk", "fixture__competition_id"))
        for pk, comp_id in flagged:
            if comp_id is None:  # a match of no competition: nobody reacts to it
                Match.objects.filter(pk=pk).update(results_due=False)
            elif comp_id not in ran:
                _advance_safely(comp_id, pk)
                ran.append(comp_id)
    except Exception:  # noqa: BLE001 - the database away, say: the next check runs it
        logger.exception("running the competitions' due queues failed")
    return ran


def rearm_wakes() -> list[int]:
    """Run the queue of every competition that may call a match now (a match made, not called,
    not started, its tables not manual): a process that starts (a worker restarted, a deploy)
    calls any table freed while no process was there to see it. Idempotent like
    :func:`advance`. Returns the competitions' pks. Run once by each serving process's hub."""
    pks = list(Competition.objects.filter(fixtures__match__isnull=False, fixtures__match__table__isnull=True,
                                          fixtures__match__started_at__isnull=True,
                                          fixtures__match__walkover__isnull=True)
               .distinct().order_by("pk").values_list("pk", flat=True))
    for pk in pks:
        _advance_safely(pk, 0)
    return pks


_background: list = []


def run_in_background_by(fn) -> None:
    """Have ``fn(job)`` run the results flow's work out of the referee's request: it returns
    True when ``job`` (a callable taking nothing) will run soon in this process, off the
    request's thread (the live layer's hub, in a serving process), False when it cannot (no
    event loop running: a command, a test without sockets); the work then runs at once, in the
    caller's thread, after the match's locks are released."""
    if fn not in _background:
        _background.append(fn)


def _mark_due(match_id: int) -> None:
    """Store that ``match_id``'s competition must run its queue now (``Competition.due_at``,
    :func:`run_due`), so that a worker that dies before the background work runs leaves it to
    the next check."""
    from django.db.models import Q

    at = timezone.now()
    Competition.objects.filter(Q(due_at__isnull=True) | Q(due_at__gt=at),
                               fixtures__match_id=match_id).update(due_at=at)


def _flow(match_id: int, freed: int | None = None, *, marked: bool = False) -> None:
    """Let the results of ``match_id`` flow (:func:`_advance_match`): in the background when a
    runner takes it, its competition marked due first (unless ``marked``: the event that ended
    the match marked its row, ``Match.results_due``, which :func:`run_due` reads), else here."""
    job = lambda: _advance_match(match_id, freed)  # noqa: E731
    if _background:
        if not marked:
            _mark_due(match_id)
        if any(run(job) for run in list(_background)):
            return
    job()


def _ends_or_reopens(change: log.Change) -> bool:
    """Whether ``change`` ended its match or took its end back (``log.result_changed``); a
    Change without its screen (none is built so today) counts every undo."""
    before = change.screen.before if change.screen is not None else {"phase": Phase.MATCH_OVER}
    return log.result_changed(before, change.state, change.event)


def after_change(change: log.Change) -> None:
    """After an event commits and its match's locks are released: when it ended a match (or
    undid its end) of a competition, let the results flow (:func:`advance`, through
    :func:`_flow`: out of the referee's request where a runner takes it; the event's own UPDATE
    marked the match ``results_due``, for :func:`run_due` should this process die first)."""
    if change.repeated or not _ends_or_reopens(change):
        return
    if len(_ENDED) >= 1000:
        _ENDED.clear()
    _ENDED[(change.match.pk, change.seq)] = change.state
    _flow(change.match.pk, marked=True)


def after_restate(match_id: int) -> None:
    """After a W.O. (no event, a new result): let the results flow."""
    _flow(match_id)


def _advance_match(match_id: int, freed: int | None = None) -> None:
    """Let the results of ``match_id``'s competition flow, then offer its freed table (``freed``,
    else the match's own) to every other competition that uses it: a table freed by a match of no
    competition (the demo, a friendly made in the admin) or of another competition was called by
    nobody."""
    row = Match.objects.filter(pk=match_id).values("table_id", "fixture__competition_id").first()
    if row is None:
        return
    comp_id = row["fixture__competition_id"]
    if comp_id is not None:
        _advance_safely(comp_id, match_id)  # clears the match's ``results_due`` (``advance``)
    else:
        Match.objects.filter(pk=match_id, results_due=True).update(results_due=False)
    table_id = freed if freed is not None else row["table_id"]
    offered = {comp_id}
    if table_id is not None:
        for other in waiting_for_table(table_id):
            if other.pk not in offered:
                offered.add(other.pk)
                _advance_safely(other.pk, match_id)
    # its players are free again for the other competitions' queues (one place at a time)
    for other in waiting_for_people(match_id):
        if other.pk not in offered:
            _advance_safely(other.pk, match_id)


def delete_competition(comp: Competition) -> None:
    """Delete a competition (the admin): its matches never played go with it (they were its
    plan, and left behind they held their tables, called, for nobody); those played stay, as
    the record of what was played. The tables freed are offered to the other competitions."""
    unplayed = calls.waiting_on(Match.objects.filter(fixture__competition=comp)).filter(walkover__isnull=True)
    freed = set(unplayed.exclude(table__isnull=True).values_list("table_id", flat=True))
    with transaction.atomic():
        delete_matches(Match.objects.filter(pk__in=list(unplayed.values_list("pk", flat=True))))
        comp.delete()
        changes.announce()

    def offer() -> None:
        for table_id in freed:
            for other in waiting_for_table(table_id):
                _advance_safely(other.pk, 0)
    transaction.on_commit(offer)


def move_match(match: Match, table: Table | None, by: str, *, confirm: bool = False) -> Match:
    """``operations.move_match`` (asked first when in progress, its tablet follows, audited),
    then, once the move commits, the table it left is offered to the queue: of the match's
    competition and of every other competition using that table (the desk's move and the admin's
    change of table alike; left free, nobody called it). Returns the row as saved."""
    left = Match.objects.filter(pk=match.pk).values_list("table_id", flat=True).first()
    moved = operations.move_match(match, table, by, confirm=confirm)
    if left is not None and left != moved.table_id:
        transaction.on_commit(lambda: _advance_match(moved.pk, freed=left))
    return moved


def _advance_safely(comp_id: int, match_id: int) -> None:
    try:
        advance(Competition.objects.get(pk=comp_id))
    except Exception:  # noqa: BLE001 - the result is stored; the desk can advance again
        logger.exception("advancing competition %s after match %s failed", comp_id, match_id)


def waiting_for_table(table_id: int) -> list[Competition]:
    """The competitions that may call a match to table ``table_id`` now: the table is in their
    file, their calls are not manual, and they have a match made and not called yet."""
    name = Table.objects.filter(pk=table_id).values_list("name", flat=True).first()
    if name is None:
        return []
    comps = (Competition.objects.filter(fixtures__match__isnull=False, fixtures__match__table__isnull=True,
                                        fixtures__match__started_at__isnull=True, fixtures__match__seq=0,
                                        fixtures__match__walkover__isnull=True, fixtures__postponed=False)
             .distinct().order_by("pk"))
    out = []
    for comp in comps:
        spec = comp.spec or {}
        names = {t if isinstance(t, str) else (t or {}).get("name") for t in spec.get("tables", [])}
        if name in names and spec.get("assignment", "next_free") not in ("manual", "confirm"):
            out.append(comp)
    return out


def waiting_for_people(match_id: int) -> list[Competition]:
    """The competitions with a match made and not called yet, calls not manual, one of whose
    entrants is a person of match ``match_id`` (``venue_rules.same_person``): when that match
    ends, their queue may call him."""
    people = [venue_rules.person_key(n, c) for n, c in venue_rules.persons_of([match_id])[match_id].values()]
    if not people:
        return []
    comps = (Competition.objects.filter(fixtures__match__isnull=False, fixtures__match__table__isnull=True,
                                        fixtures__match__started_at__isnull=True, fixtures__match__seq=0,
                                        fixtures__match__walkover__isnull=True, fixtures__postponed=False)
             .exclude(fixtures__match_id=match_id).distinct().order_by("pk"))
    out = []
    for comp in comps:
        if (comp.spec or {}).get("assignment", "next_free") in ("manual", "confirm"):
            continue
        for n, c in comp.entries.values_list("player__name", "player__club"):
            if any(venue_rules.same_person(venue_rules.person_key(n, c), k) for k in people):
                out.append(comp)
                break
    return out


def connect() -> None:
    """Subscribe the results flow to the log's appends, once they commit and the match's locks
    are released (once, from ``AppConfig.ready``)."""
    log.on_settled(after_change)
    log.on_restate(after_restate)
    log.on_reopen(check_reopen)


def check_reopen(match: Match) -> None:
    """Before an undo takes back the end of ``match``: refused (``correction_refused``) when it
    is a competition's match whose result a started match depends on, as the desk's correction
    is ("only while no dependent match has started"); a team rubber, when a later rubber of its
    tie has started (its format's check, :func:`format_of`)."""
    fx = Fixture.objects.select_related("competition").filter(match_id=match.pk).first()
    if fx is None:
        return
    format_of(fx.competition).check_reopen(fx.competition, fx.number)


def _check_reopen_individual(comp: Competition, number: int) -> None:
    """:func:`check_reopen` of an individual competition's fixture ``number``."""
    cur = now(comp)
    if number not in cur.results:
        return
    blockers = tournament.correction_blockers(cur.plan, cur.results, number, started(cur.fixtures))
    if blockers:
        raise venue_rules.ReopenRefused((f"J{number}", f"M{number}"), list(blockers))


# -- the desk's actions ------------------------------------------------------------------------

def fixture(comp: Competition, number) -> Fixture:
    """The fixture J``number`` of ``comp`` (``TournamentError unknown_match``)."""
    number = calls.fixture_number(number)
    fx = comp.fixtures.select_related("match").filter(number=number).first() if isinstance(number, int) else None
    if fx is None:
        raise TournamentError("unknown_match", f"Jogo inexistente: {number}", f"No such match: {number}")
    return fx


# what the desk tried, in the refusal of a match whose players are not known: (pt, en)
_NOT_YET = {"call": ("chamado", "called"), "move": ("movido", "moved"), "start": ("iniciado", "started")}


def _need_match(cur: Now, fx: Fixture, action: str | None = None) -> Match:
    """The scored match of a fixture, or a refusal: a bye (``no_opponent``), players not known
    yet (``players_unknown``, naming the placeholders and what cannot be done: ``action`` is
    ``call``, ``move`` or ``start``; without it, the core's "no result or W.O. accepted")."""
    if fx.match is not None:
        return fx.match
    n, ms = fx.number, cur.state.matches[fx.number]
    if action in _NOT_YET and ms.status not in ("bye", "void") and None in ms.players:
        names = _names(cur.comp, cur.spec)
        sides = {lang: " × ".join(names[e].name if e in names else
                                  (p.get(lang, "—") if isinstance(p, dict) else str(p or "—"))
                                  for e, p in zip(ms.players, ms.placeholders)) for lang in ("pt", "en")}
        pt, en = _NOT_YET[action]
        raise TournamentError("players_unknown",
                              f"J{n}: os jogadores ainda não são conhecidos ({sides['pt']}); "
                              f"o jogo não pode ser {pt} antes",
                              f"M{n}: its players are not known yet ({sides['en']}); it cannot be {en} before")
    # the core's own refusal: players not known yet (players_unknown), or a bye (no_opponent)
    tournament.check_result(cur.state, n, {"winner": None, "kind": "double_walkover"})
    raise TournamentError("players_unknown", f"J{n}: jogadores ainda não definidos",
                          f"M{n}: players not known yet")


def walkover(comp: Competition, number: int, absent: list[int], by: str, reason: str = "") -> Match:
    """A W.O. on fixture ``number`` (``absent`` sides 0/1 of the match). Refused for a match
    whose players are not known yet (``players_unknown``), a bye, or one already played."""
    cur = now(comp)
    m = _need_match(cur, fixture(comp, number))
    m = operations.walkover(m, absent, by, reason)
    return m


def call(comp: Competition, number: int, table: Table, by: str) -> Fixture:
    """Call fixture ``number`` to ``table`` (the desk's manual call). The table must be free:
    nothing in progress on it and nothing else called to it (``TableBusy``)."""
    cur = now(comp)
    fx = fixture(comp, number)
    m = _need_match(cur, fx, "call")
    if calls.has_started(m):
        raise TournamentError("already_started", f"J{number} já começou", f"M{number} has already started")
    _call(fx, table, by)  # refused when the table is not free for it, under its lock
    return fx


def set_stream(comp: Competition, number, flag: bool, by: str) -> Fixture:
    """Flag (``flag`` True) or unflag fixture ``number`` for a stream table: the queue calls a
    flagged match only to a stream table, and a stream table takes only flagged matches. Refused
    once the match has started (``already_started``: its table is decided). Audited
    (``stream``) on its match when it exists; then the queue runs (a stream table waiting for a
    flagged match may take it now)."""
    fx = fixture(comp, number)
    if fx.match is not None and calls.has_started(fx.match):
        raise TournamentError("already_started", f"J{fx.number} já começou", f"M{fx.number} has already started")
    if fx.stream != flag:
        with transaction.atomic():
            fx.stream = flag
            fx.save(update_fields=["stream"])
            if fx.match is not None:
                operations.record(fx.match, "stream", by, {"fixture": fx.number, "stream": flag})
        advance(comp)
    return fx


def postpone(comp: Competition, number: int, by: str) -> Fixture:
    """Take a called, not started match off its table and out of the automatic calls."""
    fx = fixture(comp, number)
    if fx.match is not None and calls.has_started(fx.match):
        raise TournamentError("already_started", f"J{number} já começou", f"M{number} has already started")
    with transaction.atomic():
        fx.postponed, fx.called_at = True, None
        fx.save(update_fields=["postponed", "called_at"])
        if fx.match is not None:
            Match.objects.filter(pk=fx.match_id).update(table=None)
            operations.record(fx.match, "postpone", by)
    advance(comp)
    return fx


def correct(comp: Competition, number: int, result: dict, reason: str, by: str) -> dict:
    """Correct the finished fixture ``number``: ``result`` is ``{"winner": 0|1 (side), "frames":
    [a, b], "kind"?, "points"?: [a, b]}``. The points and highest breaks each side made in the
    match stay as played (the log says who scored what) unless ``points`` gives others: the
    standings, their tie-breaks (points difference), the exports and the placings all count the
    corrected result (the points and breaks of a corrected match were dropped to 0).
    Allowed only while no match it feeds has started (``tournament.check_correction``:
    ``correction_refused`` naming them); the reason is kept and audited. Returns the new
    result's JSON."""
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("reason_required", "Informe o motivo da correção",
                              "Give the reason for the correction")
    cur = now(comp)
    fx = fixture(comp, number)
    ms = cur.state.matches[number]
    if None in ms.players:
        raise TournamentError("players_unknown", f"J{number}: jogadores ainda não definidos",
                              f"M{number}: players not known yet")
    side = result.get("winner") if isinstance(result, dict) else None
    if side not in (0, 1):
        raise TournamentError("invalid_result", "'winner' deve ser 0 ou 1 (o lado do jogo)",
                              "'winner' must be 0 or 1 (the side of the match)")
    played = cur.results.get(number)
    new = {"winner": ms.players[side], "frames": result.get("frames") or [0, 0],
           "kind": result.get("kind", "frames"),
           "points": result.get("points") or (list(played.points) if played else [0, 0]),
           "highest_break": list(played.highest_break) if played else [0, 0]}
    fixed = tournament.check_correction(cur.plan, cur.results, number, new, started(cur.fixtures))
    value = fixed[number].to_dict()
    with transaction.atomic():
        old = cur.results[number].to_dict()
        fx.correction = value
        fx.save(update_fields=["correction"])
        rec = MatchRecord.objects.create(match=fx.match, kind="correction", data={"from": old, "to": value},
                                         reason=reason[:300], by=by[:80])
        # the match's own record shows it too (its screens, feeds, export, súmula, the admin),
        # by side as the engine's state has it; they are drawn again at once
        frames = list(new["frames"]) if isinstance(new["frames"], list) else [0, 0]
        corrected = {"winner": side, "frames": frames, "kind": new["kind"], "reason": reason[:300]}
        Match.objects.filter(pk=fx.match_id).update(correction=corrected)
        if fx.match is not None:
            fx.match.correction = corrected
            outbox.record_correction(fx.match, rec.pk, reason[:300])
        log.forget(fx.match_id)
    transaction.on_commit(lambda: log.publish_again(fx.match_id))
    advance(comp)
    return value


def redraw(comp: Competition, by: str, seed: int | None = None, method: str | None = None,
           manual=None) -> dict:
    """Draw again (``tournament.make_draw``: ``method`` one of ``pots``, ``snake``, ``random``,
    ``manual`` — default the first stage's —, ``seed`` default the file's, ``manual`` the groups
    of entry numbers or the knockout's order); allowed freely until the first match starts,
    never after (``draw_locked``). Checked under the competition's lock and the locks of its
    matches, so a start (or a first event) at the same moment either comes first and the redraw
    is refused, or waits for it. The matches made for the old draw are dropped; audited
    (``redraw``) on no match; returns the draw. Raises ``TournamentError`` (``invalid_field``,
    ``invalid_draw``, ``draw_locked``); nothing changed then."""
    with transaction.atomic():
        comp = Competition.objects.select_for_update().get(pk=comp.pk)
        spec = spec_of(comp)
        draw = tournament.make_draw(spec, seed=seed, method=method, manual=manual)  # invalid_*: nothing done
        # the matches' own row locks: a start and a first event lock their match first
        mine = list(Match.objects.select_for_update().filter(fixture__competition=comp)
                    .values_list("pk", "started_at", "seq", "walkover"))
        if any(at is not None or seq > 0 or wo is not None for _pk, at, seq, wo in mine):
            raise TournamentError("draw_locked",
                                  "O sorteio não pode ser refeito: o primeiro jogo já começou",
                                  "The draw cannot be redone: the first match has started")
        Fixture.objects.filter(competition=comp).update(match=None, called_at=None, postponed=False)
        delete_matches(Match.objects.filter(pk__in=[pk for pk, *_rest in mine]))
        old = comp.draw
        comp.draw = draw_json(draw)
        comp.save(update_fields=["draw"])
        MatchRecord.objects.create(match=None, kind="redraw", by=by[:80],
                                   data={"from": {k: old.get(k) for k in ("method", "seed")},
                                         "to": {"method": draw.method, "seed": draw.seed}})
        advance(comp)
    return comp.draw


# -- what the API, the desk and the exports show -----------------------------------------------

def status_of(ms: tournament.MatchState, fx: Fixture) -> str:
    """``scheduled | called | in_play | finished | walkover | bye``."""
    if ms.status == "walkover" or (fx.match is not None and fx.match.walkover):
        return "walkover"
    if ms.status in ("finished",):
        return "finished"
    if ms.status in ("bye", "void"):
        return "bye"
    m = fx.match
    if m is not None and (m.started_at is not None or m.seq > 0):
        return "in_play"
    if m is not None and m.table_id is not None and fx.called_at is not None:
        return "called"
    return "scheduled"


def qualifiers(cur: Now) -> set:
    """The entry ids through to the next stage from a group: each group's final places up to its
    stage's quota (``qualify``), once the group has ended and only when a stage follows."""
    out = set()
    for s, g in cur.state.standings:
        if s + 1 < len(cur.spec.stages):
            places = (cur.state.positions.get((s, g)) or [])[:cur.spec.stages[s].qualify]
            out.update(e for e in places if e is not None)
    return out


def summary(comp: Competition, lang: str = "pt") -> dict:
    """``GET /api/competitions/<id>/``: ``{"id", "name", "draw", "stages": [{"index", "format",
    "matches": [{"number", "match", "stage", "round", "round_name", "group", "label", "players",
    "placeholders", "table", "status", "called_at", "winner", "frames", "kind"}]}], "standings":
    {"<stage>:<group>": rows with names, "qualified" (through to the next stage) and "withdrawn"},
    "placings", "champion"}`` (names of players; ``lang``
    picks the placeholders' and labels' language). A team competition's is its format's
    (``core.teams.summary``: ties, rubbers, team standings)."""
    return format_of(comp).summary(comp, lang)


def _summary_individual(comp: Competition, lang: str = "pt") -> dict:
    cur = now(comp)
    players = _names(comp)
    name = lambda e: players[e].name if e in players else None  # noqa: E731
    stages = [{"index": i, "format": st.format, "frames_to_win": st.frames_to_win, "matches": []}
              for i, st in enumerate(cur.spec.stages)]
    for n, ms in cur.state.matches.items():
        fx, f = cur.fixtures[n], ms.fixture
        m = fx.match
        stages[f.stage]["matches"].append({
            "number": n, "match": fx.match_id, "stage": f.stage, "round": f.round,
            "round_name": f.round_name, "group": f.group, "label": f.label()[lang],
            "players": [name(e) if e is not None else None for e in ms.players],
            "placeholders": [p[lang] if isinstance(p, dict) else p for p in ms.placeholders],
            "table": m.table.name if m is not None and m.table_id else None,
            "status": status_of(ms, fx),
            "called_at": fx.called_at.isoformat() if fx.called_at else None,
            "winner": name(ms.winner) if ms.winner is not None else None,
            "frames": list(ms.result.frames) if ms.result else None,
            "kind": ms.result.kind if ms.result else None,
            "frames_to_win": f.frames_to_win, "stream": fx.stream})
    points = ranking_points(cur)
    standings = {}
    through = qualifiers(cur)
    for (s, g), rows in cur.state.standings.items():
        standings[f"{s}:{g}"] = [{**r, "name": name(r["entry"]), "placing": cur.state.placings.get(r["entry"]),
                                  "ranking_points": points.get(r["entry"]), "qualified": r["entry"] in through,
                                  "withdrawn": r["entry"] in cur.state.withdrawn} for r in rows]
    return {"id": comp.pk, "name": comp.name, "reds": cur.spec.reds, "draw": comp.draw,
            "wo_tolerance_minutes": cur.spec.wo_tolerance_minutes, "stages": stages,
            "standings": standings,
            "placings": [{"name": name(e), "club": players[e].club if e in players else "", "placing": p,
                          "points": points.get(e, 0)} for e, p in
                         sorted(cur.state.placings.items(), key=lambda kv: kv[1])],
            "champion": name(cur.state.champion) if cur.state.champion is not None else None,
            "complete": cur.state.complete}


def ranking_points(cur: Now) -> dict:
    """entry id -> the ranking points of his final placing so far (``tournament.competition_points``
    with the file's ``points``, the core's default table when the file has none: as the season
    ranking counts this competition); players not placed yet are absent. Who withdrew or whose
    last match was a double W.O. gets the file's ``points_absent`` (``tournament.absent_entries``)."""
    from tournament.ranking import DEFAULT_POINTS

    return tournament.competition_points(cur.state.placings, dict(cur.spec.points) or DEFAULT_POINTS,
                                         tournament.absent_entries(cur.state), cur.spec.points_absent)


ACTIONS = ("walkover", "call", "move", "start", "postpone", "correct", "redraw", "advance", "withdraw", "lineup",
           "stream", "out_of_service", "in_service")


def entry_of(comp: Competition, player=None, entry=None) -> CompetitionEntry:
    """The entrant the desk means: by ``entry`` (its number, 1 = seed order's first, as the
    file listed the players), else by ``player``: a name, or "Name (Club)" as the admin and the
    exports tell namesakes apart. Raises ``TournamentError``: ``unknown_entrant``;
    ``ambiguous_entrant`` for a name two entrants share (then the number or the club tells
    which); ``invalid_field`` for an entry that is not a whole number."""
    rows = list(comp.entries.select_related("player").order_by("number"))
    if entry is not None:
        if type(entry) is not int:
            raise TournamentError("invalid_field", "'entry' deve ser o número de inscrição (1, 2, …)",
                                  "'entry' must be the entry number (1, 2, …)")
        found = [e for e in rows if e.number == entry]
        if not found:
            raise TournamentError("unknown_entrant", f"Inscrição inexistente: {entry}", f"No such entry: {entry}")
        return found[0]
    name = " ".join(str(player or "").split())
    found = [e for e in rows if e.player.name == name]
    if not found:  # "Ana (Clube Y)"
        found = [e for e in rows if e.player.club and f"{e.player.name} ({e.player.club})" == name]
    if not found:
        raise TournamentError("unknown_entrant", f"Jogador não inscrito: {name}", f"Not an entrant: {name}")
    if len(found) > 1:
        who = ", ".join(f"{e.number}: {e.player.name} ({e.player.club or '—'})" for e in found)
        raise TournamentError("ambiguous_entrant",
                              f"Há {len(found)} inscritos chamados {name} ({who}): informe o número de "
                              f"inscrição ('entry') ou o clube ('{name} (Clube)')",
                              f"{len(found)} entrants are called {name} ({who}): give the entry number "
                              f"('entry') or the club ('{name} (Club)')")
    return found[0]


def withdraw(comp: Competition, player: str | None, by: str, reason: str = "", entry: int | None = None) -> None:
    """A player leaves the competition (``entry``: his entry number, else ``player``: his name,
    or "Name (Club)", see :func:`entry_of`): every match of his not played yet becomes a W.O.
    for the opponent (the core's ``withdrawn``); a match in progress is the referee's
    (concession, Art. 54.2). Audited on the player's next match, or on the last one played."""
    row = entry_of(comp, player, entry)
    who = f"{row.player.name} ({row.player.club})" if row.player.club else row.player.name
    with transaction.atomic():
        locked = Competition.objects.select_for_update().get(pk=comp.pk)
        if row.number in (locked.withdrawn or []):
            raise TournamentError("already_withdrawn", f"{who} já desistiu", f"{who} has already withdrawn")
        locked.withdrawn = sorted({*(locked.withdrawn or []), row.number})
        locked.save(update_fields=["withdrawn"])
        m = (Match.objects.filter(fixture__competition=comp).filter(models_q_player(row.player_id))
             .order_by("-pk").first())
        if m is not None:
            MatchRecord.objects.create(match=m, kind="withdrawal",
                                       data={"entry": row.number, "player": row.player.name, "club": row.player.club},
                                       reason=reason[:300], by=by[:80])
    advance(locked)


def table_service(comp: Competition, body: dict, by: str) -> None:
    """The desk's ``{"action": "out_of_service", "table": name, "reason"?: text}`` and
    ``{"action": "in_service", "table": name}`` on one of the competition's tables (individual
    or team; ``core.calls.take_out_of_service`` / ``put_in_service``). Then the queues that use
    the table run: a match whose call was undone is called elsewhere, a table back in service
    takes the next match. Raises ``TournamentError`` (``unknown_table``,
    ``already_out_of_service``, ``not_out_of_service``, ``invalid_field``); nothing changed then."""
    names_ = [t if isinstance(t, str) else (t or {}).get("name") for t in (comp.spec or {}).get("tables", [])]
    table = calls.table_of([n for n in names_ if isinstance(n, str)], body.get("table"))
    reason = body.get("reason", "")
    if not isinstance(reason, str):
        raise TournamentError("invalid_field", "'reason' deve ser um texto", "'reason' must be text")
    if body.get("action") == "out_of_service":
        calls.take_out_of_service(table, reason, by)
    else:
        calls.put_in_service(table, by)

    advance(comp)
    for other in waiting_for_table(table.pk):
        if other.pk != comp.pk:
            _advance_safely(other.pk, 0)


def models_q_player(player_id: int):
    from django.db.models import Q

    return Q(player_a_id=player_id) | Q(player_b_id=player_id)


def perform(comp: Competition, body: dict, by: str) -> None:
    """One desk action, as the API and the desk page send it: ``{"action": one of
    :data:`ACTIONS`, "match": fixture number, …}`` (see ``api.competition_action``). Raises
    ``TournamentError`` or ``OperationRefused``; nothing changed then. A team competition's
    actions are ``core.teams.perform``'s (``lineup``, ``start``, ``walkover``, ``advance``).
    A table's service (``out_of_service``, ``in_service``) is every format's."""
    if body.get("action") in ("out_of_service", "in_service"):
        return table_service(comp, body, by)
    return format_of(comp).perform(comp, body, by)


def _perform_individual(comp: Competition, body: dict, by: str) -> None:
    action, number = body.get("action"), calls.fixture_number(body.get("match"))

    def table_named(name) -> Table:
        t = Table.objects.filter(name=name).first() if isinstance(name, str) else None
        if t is None:
            raise TournamentError("unknown_table", f"Mesa desconhecida: {name}", f"Unknown table: {name}")
        return t

    def scored() -> Match:
        return _need_match(now(comp), fixture(comp, number), action)

    if action == "walkover":
        absent = body.get("absent")
        walkover(comp, number, absent if isinstance(absent, list) else [], by, str(body.get("reason", ""))[:300])
    elif action == "call":
        call(comp, number, table_named(body.get("table")), by)
    elif action == "move":
        # the table it left is free: the queue calls its next match there; the one it goes to
        # must be free for it (nothing in progress, nothing else called there)
        m, t = scored(), table_named(body.get("table"))
        with transaction.atomic():
            if m.table_id != t.pk:
                calls.check_table_free_for(t, m)  # under the table's lock until the move commits
            move_match(m, t, by, confirm=body.get("confirm") is True)
    elif action == "start":
        if calls.start_at(scored(), body.get("table"), number, body.get("lot"), by):
            advance(comp)  # started on another table: the one it was called to is free again
    elif action == "postpone":
        postpone(comp, number, by)
    elif action == "correct":
        correct(comp, number, body.get("result") or {}, str(body.get("reason", "")), by)
    elif action == "redraw":
        seed, method, manual = body.get("seed"), body.get("method"), body.get("manual")
        if seed is not None and type(seed) is not int:
            raise TournamentError("invalid_field", "seed deve ser um inteiro", "seed must be an integer")
        if method is not None and not isinstance(method, str):
            raise TournamentError("invalid_field", "method deve ser pots, snake, random ou manual",
                                  "method must be pots, snake, random or manual")
        if method == "manual" and manual is None:
            raise TournamentError("invalid_draw", "o sorteio manual precisa de 'manual' (a ordem ou os grupos)",
                                  "a manual draw needs 'manual' (the order or the groups)")
        redraw(comp, by, seed=seed, method=method, manual=manual)
    elif action == "advance":
        advance(comp)
    elif action == "stream":
        flag = body.get("stream", True)
        if type(flag) is not bool:
            raise TournamentError("invalid_field", "stream deve ser true ou false", "stream must be true or false")
        set_stream(comp, number, flag, by)
    elif action == "withdraw":
        withdraw(comp, body.get("player"), by, str(body.get("reason", ""))[:300], entry=body.get("entry"))
    else:
        raise TournamentError("invalid_field", f"Ação desconhecida: {action}", f"Unknown action: {action}")


# -- one service, dispatched by format ---------------------------------------------------------

def _waiting_individual(comp: Competition, lang: str) -> list[dict]:
    """Matches of an individual competition whose players are not known yet, with their
    placeholders: ``[{"label", "competition", "sides"}]`` ("Vencedor J3 × Vencedor J4")."""
    cur = now(comp)
    names_ = _names(comp, cur.spec)
    out = []
    for n, ms in cur.state.matches.items():
        if ms.status == "waiting" and cur.fixtures[n].match_id is None:
            sides = [names_[e].name if e in names_ else (p.get(lang, "—") if isinstance(p, dict) else "—")
                     for e, p in zip(ms.players, ms.placeholders)]
            out.append({"label": ms.fixture.label()[lang], "competition": comp.name, "sides": sides})
    return out


def _stages_individual(comp: Competition) -> list[tuple[int, str, list[int]]]:
    """``[(stage index, its format, its fixture numbers)]`` of an individual competition."""
    plan = plan_of(comp)
    return [(i, st.format, [f.id for f in plan.fixtures if f.stage == i])
            for i, st in enumerate(plan.competition.stages)]


def _none(*_args, **_kwargs):
    return None


def _nothing(*_args, **_kwargs) -> list:
    return []


@dataclass(frozen=True)
class Format:
    """The app's side of one competition format, behind which every caller asks the same
    questions (:func:`format_of`): ``core``, the tournament core's format
    (``tournament.CompetitionFormat``: parse, plan, evaluation), over the stored rows.
    ``kind``: ``core.kind``, ``individual`` or ``team``, the key of the pages' own renderers.

    ``create(data, desk_token_hash)`` -> the stored ``Competition`` (first matches made);
    ``created(comp)`` -> its format's part of :meth:`Created.as_json`; ``now(comp)`` -> the
    competition as of now (``.state`` with ``.complete``); ``advance(comp)`` -> fixture numbers
    called; ``summary(comp, lang)`` -> the API's JSON; ``perform(comp, body, by)`` the desk's
    actions; ``check_reopen(comp, number)`` raises when an undo may not reopen that fixture's result; ``entrants(comp)`` ->
    ``{entry id: Player}`` (a team competition's players are its rosters: none); ``stages(comp)``
    -> ``[(index, format, fixture numbers)]``; ``bracket(comp)`` -> the plan a bracket is drawn
    from, or None; ``waiting(comp, lang)`` -> matches whose players are not known yet;
    ``tie(comp, fixture, lang)`` -> the tie a rubber belongs to, or None; ``entrants_are_players``:
    whether its entrants, and so its placings, are players (a season's ranking counts them, the
    event hub has a page for each); a team competition's are teams."""

    core: tournament.CompetitionFormat
    create: Callable
    created: Callable
    now: Callable
    advance: Callable
    summary: Callable
    perform: Callable
    check_reopen: Callable
    entrants: Callable
    stages: Callable
    bracket: Callable
    waiting: Callable
    tie: Callable
    entrants_are_players: bool

    @property
    def kind(self) -> str:
        """``individual`` or ``team`` (the core format's)."""
        return self.core.kind


INDIVIDUAL = Format(tournament.formats.INDIVIDUAL, _create_individual, _created_individual, now,
                    _advance_individual, _summary_individual, _perform_individual, _check_reopen_individual,
                    lambda comp: _names(comp), _stages_individual, plan_of, _waiting_individual, _none, True)
TEAM = Format(tournament.formats.TEAM, teams.create, teams.created, teams.now, teams.advance, teams.summary,
              teams.perform, teams.check_reopen, lambda comp: {}, _nothing, _none, _nothing, teams.tie_of, False)


_FORMATS = {f.kind: f for f in (INDIVIDUAL, TEAM)}


def format_of(comp: Competition) -> Format:
    """The format of a stored competition, as ``tournament.format_for`` reads its spec (a team
    competition's lists ``teams``). With the create path, the app's only question to the core
    about formats: everything else asks the competition's :class:`Format`."""
    return _FORMATS[tournament.format_for(comp.spec).kind]


def tie_of_match(match_id: int, lang: str = "pt") -> dict | None:
    """For a match that is a rubber of a team tie, the tie as the TV and the desk show it beside
    the rubber (``core.teams.tie_of``), else None (also for an id no row can have)."""
    if not 0 < match_id < 2 ** 63:
        return None
    fx = Fixture.objects.select_related("competition").filter(match_id=match_id).first()
    return None if fx is None else format_of(fx.competition).tie(fx.competition, fx, lang)
