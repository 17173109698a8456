"""One interface for the competition formats: an individual competition (stages of groups and
knockouts, :mod:`tournament.spec` / :mod:`.plan` / :mod:`.progress`) and a team round-robin
(:mod:`tournament.teams`) answer the same questions, so a caller asks the file's format
(:func:`format_for`) instead of telling the two apart itself.

Each format only delegates to its own functions: the rules of either are where they were.

Shapes (``Spec``, ``Plan``, ``State`` are each format's own types)::

    fmt = format_for(data)                  # INDIVIDUAL or TEAM, from the file's JSON
    spec = fmt.parse(data)                  # Competition | TeamCompetition, or TournamentError
    plan = fmt.plan(spec)                   # Plan | TeamPlan
    state = fmt.evaluate(plan, results)     # State | TeamState (extra: withdrawn= | lineups=)
    fmt.ready(state)                        # [match / rubber number] to play now, in order
    fmt.rows(state)                         # {(stage index, group | None): [standings row]}
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Protocol, runtime_checkable

from .errors import TournamentError
from .plan import Draw, Plan, build
from .progress import State, evaluate
from .spec import Competition, parse_competition
from .teams import TeamCompetition, TeamPlan, TeamState, evaluate_teams, is_team_file, parse_team_competition, team_plan


@runtime_checkable
class CompetitionFormat(Protocol):
    """What every competition format answers.

    ``kind``: ``"individual"`` or ``"team"``. ``is_file(data)``: whether a ``createcompetition``
    file (its JSON) is this format's (exactly one format claims any value). ``parse(data)`` ->
    the format's spec (raises ``TournamentError``). ``plan(spec, draw=None)`` -> every match of
    it (``draw``: a recorded draw, for a format that has one). ``evaluate(plan, results,
    **extra)`` -> the state the results (``{match or rubber number: result dict}``) imply.
    ``ready(state)`` -> the numbers of the matches to play now (players known, no result), in
    schedule order. ``rows(state)`` -> the standings, ``{(stage index, group label or None):
    [row dict, …]}`` with rows in position order."""

    kind: str

    def is_file(self, data: Any) -> bool: ...

    def parse(self, data: Any) -> Any: ...

    def plan(self, spec: Any, draw: Draw | None = None) -> Any: ...

    def evaluate(self, plan: Any, results: Mapping | None = None, **extra: Any) -> Any: ...

    def ready(self, state: Any) -> list[int]: ...

    def rows(self, state: Any) -> dict[tuple[int, str | None], list[dict]]: ...


class Individual:
    """Players in stages of groups and knockouts: :func:`~tournament.parse_competition`,
    :func:`~tournament.build`, :func:`~tournament.evaluate`. Its file is any file that is not a
    team file (the parser then says what is wrong with one that is no competition at all)."""

    kind = "individual"

    def is_file(self, data: Any) -> bool:
        """Whether ``data`` is not a team file."""
        return not is_team_file(data)

    def parse(self, data: Any) -> Competition:
        """:func:`~tournament.parse_competition`."""
        return parse_competition(data)

    def plan(self, spec: Competition, draw: Draw | None = None) -> Plan:
        """:func:`~tournament.build` (``draw`` None: drawn with the file's seed)."""
        return build(spec, draw)

    def evaluate(self, plan: Plan, results: Mapping | None = None, withdrawn: Iterable = ()) -> State:
        """:func:`~tournament.evaluate` (``withdrawn``: entry ids who left)."""
        return evaluate(plan, results, withdrawn)

    def ready(self, state: State) -> list[int]:
        """The ids of ``state.ready()``."""
        return [m.id for m in state.ready()]

    def rows(self, state: State) -> dict[tuple[int, str | None], list[dict]]:
        """``state.standings``: each group's table, keyed ``(stage index, "A")``."""
        return state.standings


class Team:
    """Clubs in a round-robin of ties of rubbers: :func:`~tournament.parse_team_competition`,
    :func:`~tournament.team_plan`, :func:`~tournament.evaluate_teams`."""

    kind = "team"

    def is_file(self, data: Any) -> bool:
        """:func:`~tournament.is_team_file`."""
        return is_team_file(data)

    def parse(self, data: Any) -> TeamCompetition:
        """:func:`~tournament.parse_team_competition`."""
        return parse_team_competition(data)

    def plan(self, spec: TeamCompetition, draw: Draw | None = None) -> TeamPlan:
        """:func:`~tournament.team_plan`. A team plan has no draw (its lot is the file's
        ``draw_seed``): a ``draw`` is refused."""
        if draw is not None:
            raise TournamentError("invalid_field", "Uma competição de equipes não tem sorteio de chaves",
                                  "A team competition has no draw")
        return team_plan(spec)

    def evaluate(self, plan: TeamPlan, results: Mapping | None = None, lineups: dict | None = None) -> TeamState:
        """:func:`~tournament.evaluate_teams` (``lineups``: the desk's, ``{(tie id, side): rubbers}``)."""
        return evaluate_teams(plan, results or {}, lineups)

    def ready(self, state: TeamState) -> list[int]:
        """The rubber number each undecided tie plays next, ties in schedule order."""
        return [ts.tie.first_rubber + ts.score.next_rubber for ts in state.ties.values()
                if ts.score.next_rubber is not None]

    def rows(self, state: TeamState) -> dict[tuple[int, str | None], list[dict]]:
        """The one table of the round-robin, keyed ``(0, None)``."""
        return {(0, None): state.standings}


INDIVIDUAL = Individual()
TEAM = Team()
COMPETITION_FORMATS: tuple[CompetitionFormat, ...] = (INDIVIDUAL, TEAM)


def format_for(data: Any) -> CompetitionFormat:
    """The format of a ``createcompetition`` file or a stored spec (its JSON): :data:`TEAM` for
    a team file (:func:`~tournament.is_team_file`), else :data:`INDIVIDUAL`."""
    return TEAM if TEAM.is_file(data) else INDIVIDUAL
