"""Tournament formats, the draw, standings and advancement: pure Python (no Django, no
scoreboard; import-linter contract in ``pyproject.toml``). Issue 17; guide in
``docs/tournament.md``.

Typical use (the Django app keeps the JSON forms; everything here is recomputed from them)::

    comp = parse_competition(json.load(f))     # spec.Competition, or TournamentError
    plan = build(comp)                          # draw (comp.draw_seed) + every match
    plan = build(comp, make_draw(comp, seed=7)) # a redraw: same match ids, other players
    state = evaluate(plan, {1: {"winner": 1, "frames": [2, 1]}}, withdrawn=())
    state.ready(); state.standings; state.placings; state.champion
    next_call(table, state.ready(), tables, busy, last_finish, now, rest_minutes)

Public API
----------
Spec (:mod:`tournament.spec`):
    ``Entry(id, name, club="", seed=None)``, ``Table(name, group=None, stream=False)``,
    ``Stage(format, groups, frames_to_win, frames_to_win_by_round, qualify, third_place,
    seeded, tie_breaks, draw, manual)``, ``Competition(name, entries, stages, reds, draw_seed,
    tables, assignment, rest_minutes, wo_tolerance_minutes, points)`` — frozen dataclasses;
    ``Competition.to_dict()`` is the JSON file shape; ``parse_competition(dict) -> Competition``.
    Constants ``FORMATS``, ``KINDS``, ``DRAW_METHODS``, ``DEFAULT_TIE_BREAKS``.
Draw and formats (:mod:`tournament.plan`):
    ``make_draw(comp, seed=None, method=None, manual=None) -> Draw(method, seed, groups, order)``;
    ``build(comp, draw=None) -> Plan``; ``Plan.fixtures``: ``Fixture(id, stage, round,
    round_name, group, a, b, frames_to_win)`` in schedule order, ``id`` 1, 2, … (label
    ``J{id}``/``M{id}``), stable across redraws; ``Slot(kind, entry, match, stage, group,
    position)`` with kind ``entry|winner|loser|position|empty`` and ``Slot.placeholder() ->
    {"pt": "Vencedor J3", "en": "Winner M3"}``; ``check_fit(comp)``; helpers
    ``bracket_order(size)``, ``circle_rounds(members)``, ``snake(n, groups)``.
Results flow (:mod:`tournament.progress`):
    ``Result(winner, frames=(a, b), kind, points=(a, b), highest_break=(a, b), at=None)`` /
    ``Result.from_dict``; ``evaluate(plan, results, withdrawn) -> State`` with ``matches``
    ``{id: MatchState(fixture, players, placeholders, status, winner, loser, result, auto)}``
    (status ``waiting|ready|finished|walkover|bye|void``), ``standings {(stage, "A"): rows}``,
    ``positions``, ``placings {entry: placing}``, ``champion``, ``complete``, ``withdrawn``,
    ``ready()``, ``to_dict()``; ``check_result(state, id, result) -> Result``;
    ``check_correction(plan, results, id, new_result, started) -> new results``;
    ``can_correct(plan, results, id, started) -> (bool, reason | None)``;
    ``correction_blockers``, ``dependents``; ``check_redraw(results, started)`` (raises
    ``draw_locked`` once a match started); ``group_standings(members, matches, tie_breaks, lot)``.
Tables (:mod:`tournament.tables`):
    ``next_call(table, ready, tables, busy, last_finish, now, rest_minutes) -> match | None``;
    ``assign(free_tables, ready, …) -> [(table, match)]``; ``waiting_reasons(match, table, …)``;
    ``check_table_free(table_name, in_play, match_id)`` (raises ``table_busy``);
    ``overdue(called, now, tolerance_minutes) -> [match ids]`` (W.O. clock run out).
Timetable (:mod:`tournament.schedule`):
    ``projected_schedule(plan, tables, minutes_per_frame=15, rest_minutes=None) ->
    {match id: {"table", "start", "end"}}`` (minutes; the day's programme before any result);
    ``earliest_calls(state, now, rest_minutes, in_play=, last_finish=) -> {match id: seconds}``
    (the "não antes de" of each match: a true lower bound on its call).
Ranking (:mod:`tournament.ranking`):
    ``points_for(placing, table)``, ``competition_points(placings, table)``,
    ``season_ranking(etapas) -> rows``, ``seed_order(players, ranking)``.
Teams (:mod:`tournament.teams`, issue 19):
    ``parse_team_competition(dict) -> TeamCompetition(name, teams, tie, decided_by, legs, …)``
    (``is_team_file`` tells a team file); ``team_plan(comp) -> TeamPlan`` (``Tie(id, round,
    leg, home, away, first_rubber)``; rubber numbers are fixture numbers);
    ``tie_score(results, decided_by) -> TieScore``; ``team_standings(ids, ties, lot)``;
    ``evaluate_teams(plan, results, lineups) -> TeamState``; ``rename_player(comp, ties,
    lineups, team_id, old, new)`` (a roster's rename, its lineups too); ``check_lineup``,
    ``check_tie_lineup``, ``default_lineup``.
One interface (:mod:`tournament.formats`):
    ``format_for(data) -> CompetitionFormat`` (``formats.INDIVIDUAL`` or ``.TEAM``, from a file or a
    stored spec), each with ``kind``, ``is_file(data)``, ``parse(data)``, ``plan(spec, draw=None)``,
    ``evaluate(plan, results, **extra)``, ``ready(state) -> [match numbers]`` and ``rows(state)
    -> {(stage, group): rows}``, delegating to the functions above; ``COMPETITION_FORMATS``.
Errors: ``TournamentError(code, pt, en)`` (a ``ValueError``; ``.message`` is ``"pt / en"``).

Entry ids are JSON scalars (the parser numbers players 1, 2, … in seed order); match ids are
ints; every ``to_dict()`` is ``json.dumps``-able.
"""
from .errors import TournamentError
from .plan import (EMPTY, Draw, Fixture, Plan, Slot, bracket_order, build, check_fit,
                   circle_rounds, make_draw, snake)
from .progress import (MatchState, Result, State, can_correct, check_correction, check_redraw, check_result,
                       correction_blockers, dependents, evaluate, group_standings)
from .ranking import absent_entries, competition_points, points_for, season_ranking, seed_order
from .spec import (DEFAULT_TIE_BREAKS, DRAW_METHODS, FORMATS, KINDS, Competition, Entry, Stage,
                   Table, parse_competition)
from .schedule import earliest_calls, match_minutes, projected_schedule
from .teams import (RUBBER_KINDS, TEAM_FORMAT, TIE_DECISIONS, Rubber, Series, Team, TeamCompetition,
                    TeamPlan, TeamState, Tie, TieScore, TieState, check_lineup, check_tie_lineup,
                    default_lineup, evaluate_teams, is_team_file, lineup_of, lot_order,
                    parse_team_competition, rename_player, team_plan, team_schedule, team_standings, tie_score)
from .formats import COMPETITION_FORMATS, CompetitionFormat, format_for
from .tables import assign, check_table_free, next_call, overdue, waiting_reasons

__all__ = [
    "TournamentError", "EMPTY", "Draw", "Fixture", "Plan", "Slot", "bracket_order", "build",
    "check_fit", "circle_rounds", "make_draw", "snake", "MatchState", "Result", "State",
    "can_correct", "check_correction", "check_redraw", "check_result", "correction_blockers", "dependents", "evaluate",
    "group_standings", "absent_entries", "competition_points", "points_for", "season_ranking", "seed_order",
    "DEFAULT_TIE_BREAKS", "DRAW_METHODS", "FORMATS", "KINDS", "Competition", "Entry", "Stage",
    "Table", "parse_competition", "assign", "check_table_free", "next_call", "overdue",
    "waiting_reasons", "match_minutes", "projected_schedule", "earliest_calls",
    "RUBBER_KINDS", "TEAM_FORMAT", "TIE_DECISIONS", "Rubber", "Series", "Team", "TeamCompetition",
    "TeamPlan", "TeamState", "Tie", "TieScore", "TieState", "check_lineup", "check_tie_lineup",
    "default_lineup", "evaluate_teams", "is_team_file", "lineup_of", "lot_order",
    "parse_team_competition", "rename_player", "team_plan", "team_schedule", "team_standings", "tie_score",
    "COMPETITION_FORMATS", "CompetitionFormat", "format_for",
]
