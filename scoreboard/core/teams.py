"""Team competitions in the app (issue 19 item 4): ``tournament.teams`` (pure) over the event log.

Stored: the competition (its spec is ``TeamCompetition.to_dict()``, so ``"teams"`` in it tells a
team competition; ``draw`` records the seed of the lot), the desk's lineups
(``Competition.lineups``: ``{"<tie>": {"home": [[names] per rubber], "away": …}}``), one
:class:`~.models.Fixture` per *rubber* (its number is the core's rubber number) with the scored
:class:`~.models.Match` of the rubber once it is the tie's next to play. Scores, standings and
the places up/down are recomputed by ``tournament.evaluate_teams`` from those and the matches'
results, as for individual competitions.

Rubbers are played in order: :func:`advance` (run after every match end, like the individual
flow) makes the match of each tie's next rubber, sides the home team then the away team, named
by the lineup (a doubles side is one player row named ``"Ana / Carla"`` with the club, until
the doubles engine names each player; the lineup, who plays which rubber, is kept as data in
``summary`` for it). The tie's next rubber is called to a free table of the competition's file
(:func:`call_next_rubbers`): the table its previous rubber was played on when it is free, so a tie
stays on its table, else the first free one in the file's order; none when the file has no tables
(the desk calls or starts each rubber then).

The table calls are ``core.calls``, as for an individual competition. This module imports
nothing of ``core.competitions``, which calls it for a team competition.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from django.db import transaction

import tournament
from sinuca import Phase
from tournament import TournamentError

from . import calls, log, operations, venue_rules
from .matches import delete_matches, match_config, new_match
from .models import Competition, Fixture, Match, Player, Table

SIDES = ("home", "away")
ACTIONS = ("lineup", "start", "walkover", "advance")


_PLANS: dict = {}


def plan_of(comp: Competition) -> tournament.TeamPlan:
    """The core's plan of a stored team competition (parsed once per spec)."""
    key = json.dumps(comp.spec, sort_keys=True)
    hit = _PLANS.get(comp.pk)
    if hit is None or hit[0] != key:
        hit = (key, tournament.team_plan(tournament.parse_team_competition(comp.spec)))
        _PLANS[comp.pk] = hit
        while len(_PLANS) > 32:
            _PLANS.pop(next(iter(_PLANS)))
    return hit[1]


def created(comp: Competition) -> dict:
    """A team competition's part of what ``createcompetition`` prints (beside its id, name,
    desk token, draw, matches and URLs): its format, teams, ties, rubbers and tables."""
    plan = plan_of(comp)
    return {"format": tournament.TEAM_FORMAT, "teams": len(plan.comp.teams), "ties": len(plan.ties),
            "entries": len(plan.comp.teams), "fixtures": len(plan.rubber_numbers()), "tables": list(plan.comp.tables)}


def create(data: dict, desk_token_hash: str) -> Competition:
    """Validate a team file (``tournament.parse_team_competition``) and store it (with the desk
    token's hash), its tables and one fixture per rubber; then make each tie's first rubber.
    Raises ``TournamentError`` (team without players, a player in two teams, a lineup naming a
    player not in his team …); nothing is stored then. ``core.competitions.create_competition``
    is the one way in (names checked, the token made)."""
    spec = tournament.parse_team_competition(data)
    plan = tournament.team_plan(spec)
    with transaction.atomic():
        comp = Competition.objects.create(name=spec.name, spec=spec.to_dict(),
                                          draw={"method": "teams", "seed": spec.draw_seed, "groups": [], "order": []},
                                          desk_token_hash=desk_token_hash)
        for t in spec.tables:
            Table.objects.get_or_create(name=t)
        Fixture.objects.bulk_create([Fixture(competition=comp, number=n) for n in plan.rubber_numbers()])
    advance(comp)
    return comp


def rubber_result(match: Match, last_state: dict | None = None) -> dict | None:
    """A rubber's result, sides as the tie's home (0) and away (1): ``{"winner": 0|1|None,
    "frames": [a, b], "kind"}``, or None while it is not over. A W.O. is the desk's; both
    disqualified (no winner) counts for nobody."""
    k = match.config["frames_to_win"]
    if match.walkover:
        w = match.walkover.get("winner")
        return {"winner": w, "frames": [0, 0] if w is None else ([k, 0] if w == 0 else [0, k]),
                "kind": "walkover" if w is not None else "double_walkover"}
    if not match.seq:
        return None
    s = last_state if last_state is not None else log.snapshot(match.pk).state
    if s.get("phase") != Phase.MATCH_OVER:
        return None
    kind = s.get("match_result") if s.get("match_result") in ("concession", "disqualification") else "frames"
    return {"winner": s.get("match_winner"), "frames": [s["frames"][0], s["frames"][1]], "kind": kind}


def lineups_of(comp: Competition) -> dict:
    """The desk's lineups as the core takes them: ``{(tie id, side 0|1): rubbers}``."""
    out = {}
    for key, sides in (comp.lineups or {}).items():
        for side, name in enumerate(SIDES):
            if name in sides:
                out[(int(key), side)] = tuple(tuple(r) for r in sides[name])
    return out


def _rosters_with(name: str, club: str):
    """``(competition, team)`` of each team competition whose team of ``club`` lists ``name``."""
    for comp in Competition.objects.filter(draw__method="teams").order_by("pk"):
        for team in plan_of(comp).comp.teams:
            if team.club == club and name in team.players:
                yield comp, team


def rosters_in_play(name: str, club: str) -> list[tuple[Competition, tournament.Team]]:
    """``(competition, team)`` of each team competition not yet complete whose team of ``club``
    lists ``name`` (a doubles side's row, ``"Ana / Carla"``, when it lists each of them): the
    rubbers still to be made find their players by name and the team's club (:func:`_person`),
    so such a player's club cannot change before the competition ends."""
    parts = [p.strip() for p in name.split("/")]
    found = []
    for comp in Competition.objects.filter(draw__method="teams").order_by("pk"):
        teams = [t for t in plan_of(comp).comp.teams if t.club == club and all(p in t.players for p in parts)]
        if teams and not now(comp).state.complete:
            found.extend((comp, t) for t in teams)
    return found


def rename_refusal(old: str, club: str, new: str) -> str | None:
    """Why the player ``old`` of ``club`` cannot be renamed ``new`` in the team competitions
    that list him, or None: a team of his would have two players of one name
    (``tournament.rename_player``). ``"Competition: pt / en"``."""
    for comp, team in _rosters_with(old, club):
        plan = plan_of(comp)
        try:
            tournament.rename_player(plan.comp, plan.ties, {}, team.id, old, new)
        except TournamentError as e:
            return f"{comp.name}: {e.message}"
    return None


def player_renamed(player: Player, old: str, by: str, club: str | None = None) -> list[int]:
    """A player's name changed (the admin), the same person: each team competition that lists
    him (by his old name and ``club``, his club before the change; default his club now) takes
    the new name in its team's roster and in the lineups of that team's ties, so that its
    rubbers keep matching their lineups (:func:`advance` remakes a called rubber whose names
    differ); then his matches take it (``operations.player_renamed``, which pushes them).
    Raises ``TournamentError`` (``duplicate_player``) before changing anything if a team of his
    already has a player of the new name. Returns the pks of the matches changed."""
    club = player.club if club is None else club
    new = player.name
    with transaction.atomic():
        for comp, team in list(_rosters_with(old, club)):
            comp = Competition.objects.select_for_update().get(pk=comp.pk)
            plan = plan_of(comp)
            spec, desk = tournament.rename_player(plan.comp, plan.ties, lineups_of(comp), team.id, old, new)
            stored: dict = {}
            for (tie, side), rubbers in desk.items():
                stored.setdefault(str(tie), {})[SIDES[side]] = [list(r) for r in rubbers]
            comp.spec, comp.lineups = spec.to_dict(), stored
            comp.save(update_fields=["spec", "lineups"])
        return operations.player_renamed(player, old, by)


@dataclass
class Now:
    """A team competition as of now: plan, fixture rows, rubber results, the core's state."""

    comp: Competition
    plan: tournament.TeamPlan
    fixtures: dict
    results: dict
    state: tournament.TeamState


def now(comp: Competition) -> Now:
    """Recompute everything of a team competition from what is stored."""
    plan = plan_of(comp)
    fixtures = {f.number: f for f in comp.fixtures.select_related("match", "match__table")}
    need = [fx.match_id for fx in fixtures.values() if fx.match is not None and fx.match.seq and not fx.match.walkover]
    states = log.last_states(need) if need else {}
    res = {}
    for n, fx in fixtures.items():
        if fx.match is not None:
            r = rubber_result(fx.match, states.get(fx.match_id, {}))
            # over with no winner (a double W.O., both disqualified) is a result too: the tie
            # goes on to its next rubber (it stayed "next" for ever)
            if r is not None:
                res[n] = r
    return Now(comp, plan, fixtures, res, tournament.evaluate_teams(plan, res, lineups_of(comp)))


def _side_player(names: tuple, team: tournament.Team) -> Player:
    """The player row of one side of a rubber: the player (by name and the team's club), or for
    a doubles pair a row named as the side, ``"Ana / Carla"`` (its persons: :func:`_person`)."""
    return _person(" / ".join(names), team)


def _person(name: str, team: tournament.Team) -> Player:
    """The team's player row of that name (the oldest), created when there is none: the same
    row in his singles and his doubles rubbers."""
    return (Player.objects.filter(name=name, club=team.club).order_by("pk").first()
            or Player.objects.create(name=name, club=team.club))


def rubber_label(plan: tournament.TeamPlan, tie: tournament.Tie, index: int, lang: str = "pt") -> str:
    """``"C1 · Jogo 2 (duplas)"`` / ``"T1 · Rubber 2 (doubles)"``."""
    kind = plan.comp.tie[index].kind
    if lang == "en":
        return f"T{tie.id} · Rubber {index + 1} ({kind})"
    return f"C{tie.id} · Jogo {index + 1} ({'simples' if kind == 'singles' else 'duplas'})"


def advance(comp: Competition) -> list[int]:
    """Make the match of each tie's next rubber (and drop, before it started, a made match that is
    no longer next or whose lineup changed). Returns the rubber numbers made. Idempotent."""
    made = []
    with transaction.atomic():
        comp = Competition.objects.select_for_update().get(pk=comp.pk)
        cur = now(comp)
        spec = cur.plan.comp
        for ts in cur.state.ties.values():
            tie = ts.tie
            home, away = spec.team(tie.home), spec.team(tie.away)
            for i, status in enumerate(ts.score.statuses):
                n = tie.first_rubber + i
                fx = cur.fixtures[n]
                m = fx.match
                names = (" / ".join(ts.lineups[i][0]), " / ".join(ts.lineups[i][1]))
                if m is not None and not calls.has_started(m) and (status != "next"
                                                                   or m.config["players"] != list(names)):
                    fx.match = None
                    fx.save(update_fields=["match"])
                    delete_matches(Match.objects.filter(pk=m.pk))
                    m = None
                if m is None and status == "next":
                    sides = (ts.lineups[i][0], ts.lineups[i][1])
                    a, b = _side_player(sides[0], home), _side_player(sides[1], away)
                    # a doubles rubber is the engine's doubles (Art. 1): each person at the table
                    doubles = any(len(side) > 1 for side in sides)
                    config = match_config([list(side) for side in sides] if doubles else list(names),
                                          reds=spec.reds, frames_to_win=spec.tie[i].frames_to_win)
                    members = ([[_person(n, team) for n in side] for side, team in zip(sides, (home, away))]
                               if doubles else None)
                    label = f"{comp.name} · {rubber_label(cur.plan, tie, i)}: {home.name} × {away.name}"
                    fx.match = new_match(config, players=(a, b), members=members, started=False,
                                         competition=label[:120])
                    fx.save(update_fields=["match"])
                    made.append(n)
        call_next_rubbers(cur)
    return made


def call_next_rubbers(cur: Now) -> list[int]:
    """Call each tie's next rubber (made, not on a table, not started) to a free table of the
    competition's file, ties in schedule order: the table of the tie's latest rubber played when
    it is free, else the first free table in the file's order. A table is free when no match is
    in progress on it or called to it (``core.calls.table_busy``); a rubber waits while
    one of its players is at a table in another tie, and a tie waits while one of its teams has
    another tie under way (a team plays one tie at a time: its round-2 tie is not called while
    its round-1 tie is still being played). Returns
    the rubber numbers called; each call is audited as ``"call"`` by ``auto``."""
    names = list(cur.plan.comp.tables)
    if not names:
        return []
    rows = {t.name: t for t in Table.objects.filter(name__in=names)}
    order = [rows[n] for n in names if n in rows]
    held = {t.pk for t in order if t.out_of_service or calls.table_busy(t) is not None}
    # a person called or in play in another competition is busy here too (one place at a time)
    elsewhere = calls.people_elsewhere(cur.comp.pk)
    ties = sorted(cur.state.ties.values(), key=lambda ts: (ts.tie.round, ts.tie.id))
    busy: set[str] = set()  # players of rubbers at a table or in play, not finished
    under_way: set[int] = set()  # ties begun (a rubber called, started or played), not over
    for ts in ties:
        for i, status in enumerate(ts.score.statuses):
            m = cur.fixtures[ts.tie.first_rubber + i].match
            if status == "next" and m is not None and (m.table_id is not None or calls.has_started(m)):
                busy |= {*ts.lineups[i][0], *ts.lineups[i][1]}
                under_way.add(ts.tie.id)
            if ts.results[i] is not None and ts.score.next_rubber is not None:
                under_way.add(ts.tie.id)
    # a team plays one tie at a time: its next tie waits until the one under way is over
    playing = {team for ts in ties if ts.tie.id in under_way for team in (ts.tie.home, ts.tie.away)}
    called = []
    for ts in ties:
        i = ts.score.next_rubber
        if i is None:
            continue
        if ts.tie.id not in under_way and {ts.tie.home, ts.tie.away} & playing:
            continue
        n = ts.tie.first_rubber + i
        fx = cur.fixtures[n]
        m = fx.match
        players = {*ts.lineups[i][0], *ts.lineups[i][1]}
        if m is None or m.table_id is not None or calls.has_started(m) or fx.postponed or players & busy:
            continue
        if elsewhere and any(venue_rules.same_person(venue_rules.person_key(p, ""), k)
                             for p in players for k in elsewhere):
            continue
        played = [cur.fixtures[ts.tie.first_rubber + j].match for j in range(i)]
        last = next((p.table_id for p in reversed(played) if p is not None and p.table_id), None)
        free = [t for t in order if t.pk not in held]
        table = next((t for t in free if t.pk == last), free[0] if free else None)
        if table is None:
            break
        try:
            calls.call(fx, table, "auto")
        except operations.OperationRefused:  # taken meanwhile (a start there): seen under its lock
            held.add(table.pk)
            continue
        m.table_id = table.pk
        held.add(table.pk)
        busy |= players
        if ts.tie.id not in under_way:
            under_way.add(ts.tie.id)
            playing |= {ts.tie.home, ts.tie.away}
        called.append(n)
    return called


def _fixture(cur: Now, number) -> Fixture:
    number = calls.fixture_number(number)
    fx = cur.fixtures.get(number) if isinstance(number, int) and not isinstance(number, bool) else None
    if fx is None:
        raise TournamentError("unknown_match", f"Jogo inexistente: {number}", f"No such match: {number}")
    if fx.match is None:
        raise TournamentError("players_unknown", f"J{number}: ainda não é o jogo do confronto a ser disputado",
                              f"M{number}: not yet the tie's rubber to play")
    return fx


def set_lineup(comp: Competition, tie_id, side, lineup, by: str) -> None:
    """The desk sets one side's lineup of a tie (``tournament.check_tie_lineup``: only before its
    first rubber ends; every name a player of that team). The next rubber's match, if not
    started, is made again with the new names. Audited on that match."""
    with transaction.atomic():
        locked = Competition.objects.select_for_update().get(pk=comp.pk)
        cur = now(locked)
        checked = tournament.check_tie_lineup(cur.plan, cur.state, tie_id, side, lineup)
        ts = cur.state.ties[tie_id]
        nxt = ts.score.next_rubber
        if nxt is not None:
            m = cur.fixtures[ts.tie.first_rubber + nxt].match
            if m is not None and calls.has_started(m):
                raise TournamentError("tie_started", f"C{tie_id} já começou: a escalação não muda mais",
                                      f"T{tie_id} has started: its lineup can no longer change")
        lineups = dict(locked.lineups or {})
        lineups[str(tie_id)] = {**lineups.get(str(tie_id), {}), side: [list(r) for r in checked]}
        locked.lineups = lineups
        locked.save(update_fields=["lineups"])
    advance(comp)
    cur = now(comp)
    ts = cur.state.ties[tie_id]
    if ts.score.next_rubber is not None:
        m = cur.fixtures[ts.tie.first_rubber + ts.score.next_rubber].match
        if m is not None:
            operations.record(m, "lineup", by, {"tie": tie_id, "side": side, "lineup": [list(r) for r in checked]})


def check_reopen(comp: Competition, number: int) -> None:
    """Before an undo reopens the finished rubber ``number``: refused (``correction_refused``)
    when a later rubber of its tie has started (the tie's score and its next rubber followed
    from this result)."""
    cur = now(comp)
    tie, index = cur.plan.rubber(number)
    later = [tie.first_rubber + i for i in range(index + 1, len(cur.plan.comp.tie))]
    begun = [n for n in later if cur.fixtures[n].match is not None and calls.has_started(cur.fixtures[n].match)]
    if begun:
        raise operations.ReopenRefused((rubber_label(cur.plan, tie, index), rubber_label(cur.plan, tie, index, "en")),
                                       begun, tie=True)


def perform(comp: Competition, body: dict, by: str) -> None:
    """One desk action on a team competition: ``lineup`` ``{"tie", "side": "home"|"away",
    "lineup": [[names] per rubber]}``; ``start`` / ``walkover`` ``{"match": rubber number, …}``
    as for an individual competition; ``advance``. Raises ``TournamentError`` or
    ``OperationRefused``; nothing changed then."""
    action = body.get("action")
    if action == "lineup":
        set_lineup(comp, body.get("tie"), body.get("side"), body.get("lineup"), by)
    elif action == "start":
        number = calls.fixture_number(body.get("match"))
        calls.start_at(_fixture(now(comp), number).match, body.get("table"), number, body.get("lot"), by)
        advance(comp)  # started at another table than it was called to: that one is free again
    elif action == "walkover":
        absent = body.get("absent")
        operations.walkover(_fixture(now(comp), body.get("match")).match, absent if isinstance(absent, list) else [],
                            by, str(body.get("reason", ""))[:300])
    elif action == "advance":
        advance(comp)
    else:
        raise TournamentError("invalid_field",
                              f"Ação {action!r} não se aplica a uma competição de equipes (use {', '.join(ACTIONS)})",
                              f"Action {action!r} does not apply to a team competition (use {', '.join(ACTIONS)})")


def _rubber_status(fx: Fixture, status: str) -> str:
    """``pending | not_played | scheduled | called | in_play | finished | walkover``."""
    m = fx.match
    if status in ("pending", "not_played"):
        return status
    if m is not None and m.walkover:
        return "walkover"
    if status == "finished":
        return "finished"
    if m is not None and calls.has_started(m):
        return "in_play"
    if m is not None and m.table_id is not None:
        return "called"
    return "scheduled"


def summary(comp: Competition, lang: str = "pt") -> dict:
    """``GET /api/competitions/<id>/`` of a team competition: ``{"id", "name", "format":
    "team_round_robin", "reds", "decided_by", "tie": [kinds], "teams": [{"id", "name", "club",
    "players"}], "ties": [{"tie", "label", "round", "leg", "home", "away", "home_name",
    "away_name", "status", "score": [home, away], "frames", "decided", "winner", "winner_name",
    "rubber_in_play", "rubbers": [{"number", "index", "kind", "label", "players": [[home names],
    [away names]], "sides": ["Ana", "Bia / Duda"], "match", "status", "table", "winner",
    "frames", "kind_of_result"}]}], "standings": rows with names, "series", "promoted",
    "relegated", "complete", "stages": []}``."""
    cur = now(comp)
    spec = cur.plan.comp
    tname = {t.id: t.name for t in spec.teams}
    ties = []
    for ts in cur.state.ties.values():
        tie = ts.tie
        rubbers = []
        for i, st in enumerate(ts.score.statuses):
            fx = cur.fixtures[tie.first_rubber + i]
            res = ts.results[i] or (rubber_result(fx.match) if fx.match is not None and fx.match.walkover else None)
            m = fx.match
            rubbers.append({
                "number": tie.first_rubber + i, "index": i, "kind": spec.tie[i].kind,
                "frames_to_win": spec.tie[i].frames_to_win, "label": rubber_label(cur.plan, tie, i, lang),
                "players": [list(ts.lineups[i][0]), list(ts.lineups[i][1])],
                "sides": [" / ".join(ts.lineups[i][0]), " / ".join(ts.lineups[i][1])],
                "match": fx.match_id, "status": _rubber_status(fx, st),
                "table": m.table.name if m is not None and m.table_id else None,
                "winner": None if not res or res["winner"] is None else (tname[tie.home], tname[tie.away])[res["winner"]],
                "frames": res["frames"] if res else None, "kind_of_result": res["kind"] if res else None})
        nxt = ts.score.next_rubber
        ties.append({"tie": tie.id, "label": tie.label()[lang], "round": tie.round, "leg": tie.leg,
                     "home": tie.home, "away": tie.away, "home_name": tname[tie.home], "away_name": tname[tie.away],
                     "status": ts.status, "score": list(ts.score.rubbers), "frames": list(ts.score.frames),
                     "decided": ts.score.decided,
                     "winner": None if ts.score.winner is None else (tie.home, tie.away)[ts.score.winner],
                     "winner_name": None if ts.score.winner is None else (tname[tie.home], tname[tie.away])[ts.score.winner],
                     "rubber_in_play": None if nxt is None else tie.first_rubber + nxt, "rubbers": rubbers})
    standings = [{**r, "name": tname[r["team"]]} for r in cur.state.standings]
    s = spec.series
    return {"id": comp.pk, "name": comp.name, "format": tournament.TEAM_FORMAT, "reds": spec.reds,
            "decided_by": spec.decided_by, "legs": spec.legs, "draw": comp.draw,
            "tie": [{"kind": r.kind, "frames_to_win": r.frames_to_win} for r in spec.tie],
            "teams": [{"id": t.id, "name": t.name, "club": t.club, "players": list(t.players)} for t in spec.teams],
            "ties": ties, "standings": standings,
            "series": {"name": s.name, "up": list(s.up), "down": list(s.down), "above": s.above, "below": s.below},
            "promoted": [tname[t] for t in cur.state.promoted], "relegated": [tname[t] for t in cur.state.relegated],
            "complete": cur.state.complete, "stages": [], "placings": [],
            "champion": standings[0]["name"] if cur.state.complete and standings else None}


def tie_of(comp: Competition, fx: Fixture, lang: str = "pt") -> dict:
    """The tie that fixture ``fx`` (a rubber of team competition ``comp``) belongs to:
    ``{"competition", "tie", "label", "home_name", "away_name", "score", "rubber", "rubbers"}``
    (what the TV and the desk show beside the rubber in play)."""
    s = summary(comp, lang)
    plan = plan_of(comp)
    tie, index = plan.rubber(fx.number)
    t = s["ties"][tie.id - 1]
    return {"competition": comp.name, "tie": tie.id, "label": t["label"], "home_name": t["home_name"],
            "away_name": t["away_name"], "score": t["score"], "rubber": index + 1, "rubbers": len(plan.comp.tie)}


def desk_context(comp: Competition) -> dict:
    """The desk of a team competition: each tie with its teams, score and rubbers (the one in
    play, its frames), the standings, the places up/down."""
    from ..core.i18n import engine_lang

    lang = engine_lang()
    s = summary(comp, lang)
    cur_matches = Match.objects.in_bulk([r["match"] for t in s["ties"] for r in t["rubbers"] if r["match"]])
    for t in s["ties"]:
        for r in t["rubbers"]:
            m = cur_matches.get(r["match"]) if r["match"] else None
            r["live"] = None
            if m is not None and r["status"] == "in_play":
                st = log.snapshot(m.pk).state
                r["live"] = {"frames": st.get("frames"), "scores": st.get("scores")}
    players = {t["id"]: (t["name"], t["players"]) for t in s["teams"]}
    for t in s["ties"]:
        # the desk's lineup form (action "lineup"), while the lineup may change: no rubber of the
        # tie finished and the first not started (``set_lineup`` refuses later)
        first = t["rubbers"][0]
        t["lineup_sides"] = [] if t["status"] != "waiting" or first["status"] not in ("scheduled", "called") else [
            {"side": side, "team_name": players[team][0], "players": players[team][1],
             "rubbers": [{"label": r["label"], "current": r["players"][i]} for r in t["rubbers"]]}
            for i, (side, team) in enumerate(zip(SIDES, (t["home"], t["away"])))]
    for row in s["standings"]:
        tb = row.get("tie_break")
        row["tie"] = tb.get(lang, "") if isinstance(tb, dict) else ""
    return {"comp": comp, "team": s}
