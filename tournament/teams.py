"""Team competitions (issue 19 item 4): clubs as teams of players, a team tie made of several
rubbers (singles and doubles, the composition set by the event), the team score, the team
round-robin ("Interclubes") with its standings, and promotion and relegation between séries
as data. Pure Python like the rest of ``tournament``; guide in ``docs/tournament.md`` (*Team
competitions*).

Typical use::

    comp = parse_team_competition(data)        # TeamCompetition, or TournamentError
    plan = team_plan(comp)                      # every tie and rubber, numbered
    state = evaluate_teams(plan, {1: {"winner": 0, "frames": [2, 1]}}, lineups={})
    state.ties[1].score; state.standings; state.promoted

A rubber's number is its fixture number (``(tie - 1) * len(comp.tie) + index + 1``), so the
Django side keeps one fixture row per rubber. A result names the winning *side* of the rubber
(0 = the tie's home team, 1 = the away team), not a player.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from .errors import TournamentError
from .plan import circle_rounds
from .spec import _bad, _int, parse_head, table_names

RUBBER_KINDS = {"singles": 1, "doubles": 2}
TIE_DECISIONS = ("all_rubbers", "majority")
TEAM_TIE_BREAKS = ("ties_won", "rubber_difference", "frame_difference", "head_to_head", "lot")
TEAM_FORMAT = "team_round_robin"
MAX_TEAMS = 32
MAX_PLAYERS = 16
MAX_RUBBERS = 9

_TB_LABELS = {"ties_won": ("confrontos vencidos", "ties won"),
              "rubber_difference": ("saldo de jogos", "rubber difference"),
              "frame_difference": ("saldo de partidas", "frame difference"),
              "head_to_head": ("confronto direto", "head-to-head"),
              "lot": ("sorteio", "lot")}


@dataclass(frozen=True)
class Team:
    """A team (a club) and its players, by name, in the order the file lists them (the
    default lineup takes them in that order). ``id`` 1, 2, … in the file's order."""

    id: int
    name: str
    players: tuple[str, ...]
    club: str = ""


@dataclass(frozen=True)
class Rubber:
    """One match of a tie's composition: ``kind`` singles or doubles, frames to win."""

    kind: str
    frames_to_win: int

    @property
    def size(self) -> int:
        """Players per side: 1 for singles, 2 for doubles."""
        return RUBBER_KINDS[self.kind]


@dataclass(frozen=True)
class Series:
    """The competition's série and which final places go up or down (data only: applying it
    to next season's files is the organiser's). ``up``/``down``: 1-based places."""

    name: str = ""
    up: tuple[int, ...] = ()
    down: tuple[int, ...] = ()
    above: str = ""
    below: str = ""


@dataclass(frozen=True)
class TeamCompetition:
    """A team round-robin: every pair of ``teams`` meets ``legs`` times in a tie of the
    rubbers ``tie`` (played in order). ``decided_by``: ``all_rubbers`` (default: every rubber
    is played, the tie may be drawn with an even number of rubbers) or ``majority`` (the tie
    ends once a team has won more than half of the rubbers; the rest are not played)."""

    name: str
    teams: tuple[Team, ...]
    tie: tuple[Rubber, ...]
    decided_by: str = "all_rubbers"
    legs: int = 1
    reds: int = 15
    draw_seed: int = 0
    tables: tuple[str, ...] = ()
    series: Series = field(default_factory=Series)
    lineups: tuple = ()  # ((tie id, side, ((names), …)), …) given in the file

    def team(self, team_id: int) -> Team:
        """The team with this id (``KeyError`` if none)."""
        for t in self.teams:
            if t.id == team_id:
                return t
        raise KeyError(team_id)

    def to_dict(self) -> dict:
        """The JSON form (:func:`parse_team_competition` reads it back to an equal spec)."""
        lineups: dict = {}
        for tie_id, side, rubbers in self.lineups:
            lineups.setdefault(str(tie_id), {})[("home", "away")[side]] = [list(r) for r in rubbers]
        return {
            "name": self.name, "format": TEAM_FORMAT, "reds": self.reds, "draw_seed": self.draw_seed,
            "teams": [{"name": t.name, "club": t.club, "players": list(t.players)} for t in self.teams],
            "tie": [{"kind": r.kind, "frames_to_win": r.frames_to_win} for r in self.tie],
            "decided_by": self.decided_by, "legs": self.legs, "tables": list(self.tables),
            "series": {"name": self.series.name, "up": list(self.series.up), "down": list(self.series.down),
                       "above": self.series.above, "below": self.series.below},
            "lineups": lineups,
        }


def is_team_file(data: Any) -> bool:
    """Whether a ``createcompetition`` file is a team competition (it has ``"teams"``)."""
    return isinstance(data, dict) and ("teams" in data or data.get("format") == TEAM_FORMAT)


def _teams(raw: Any, need: int) -> tuple[Team, ...]:
    if not isinstance(raw, list):
        raise _bad("invalid_field", "'teams' deve ser uma lista", "'teams' must be a list")
    out, names, owner = [], set(), {}
    for i, t in enumerate(raw, start=1):
        if not isinstance(t, dict) or not isinstance(t.get("name"), str) or not t["name"].strip():
            raise _bad("invalid_field", f"equipe {i}: falta o nome", f"team {i}: name missing")
        name = t["name"].strip()
        if name.casefold() in names:
            raise _bad("duplicate_team", f"Equipe inscrita duas vezes: {name}", f"Team entered twice: {name}")
        names.add(name.casefold())
        players = t.get("players")
        if players is not None and not isinstance(players, list):
            raise _bad("invalid_field", f"A equipe {name}: 'players' deve ser uma lista de nomes",
                       f"Team {name}: 'players' must be a list of names")
        if not players:
            raise _bad("team_without_players", f"A equipe {name} não tem jogadores",
                       f"Team {name} has no players")
        clean = []
        for p in players:
            if not isinstance(p, str) or not p.strip() or "/" in p:
                raise _bad("invalid_field", f"{name}: nome de jogador inválido {p!r}",
                           f"{name}: bad player name {p!r}")
            p = p.strip()
            if p.casefold() in owner:
                where = owner[p.casefold()]
                raise _bad("player_in_two_teams",
                           f"{p} está em duas equipes desta competição: {where} e {name}"
                           if where != name else f"{p} aparece duas vezes na equipe {name}",
                           f"{p} is in two teams of this competition: {where} and {name}"
                           if where != name else f"{p} is listed twice in team {name}")
            owner[p.casefold()] = name
            clean.append(p)
        if len(clean) > MAX_PLAYERS:
            raise _bad("invalid_field", f"{name}: no máximo {MAX_PLAYERS} jogadores",
                       f"{name}: at most {MAX_PLAYERS} players")
        if len(clean) < need:
            raise _bad("team_too_small", f"A equipe {name} tem {len(clean)} jogador(es); a composição do confronto pede {need}",
                       f"Team {name} has {len(clean)} player(s); the tie's composition needs {need}")
        out.append(Team(id=i, name=name, players=tuple(clean), club=str(t.get("club") or name).strip()))
    if len(out) < 2:
        raise _bad("too_few_entrants", "São precisas ao menos 2 equipes", "At least 2 teams are needed")
    if len(out) > MAX_TEAMS:
        raise _bad("too_many_entrants", f"No máximo {MAX_TEAMS} equipes", f"At most {MAX_TEAMS} teams")
    return tuple(out)


def _rubbers(raw: Any, default_ftw: int) -> tuple[Rubber, ...]:
    if not isinstance(raw, list) or not raw or len(raw) > MAX_RUBBERS:
        raise _bad("invalid_field", f"'tie' deve ser uma lista de 1 a {MAX_RUBBERS} jogos",
                   f"'tie' must be a list of 1 to {MAX_RUBBERS} rubbers")
    out = []
    for i, r in enumerate(raw, start=1):
        r = {"kind": r} if isinstance(r, str) else r
        if not isinstance(r, dict) or r.get("kind") not in RUBBER_KINDS:
            raise _bad("invalid_field", f"jogo {i} do confronto: 'kind' deve ser singles ou doubles",
                       f"rubber {i} of the tie: 'kind' must be singles or doubles")
        out.append(Rubber(r["kind"], _int(r, "frames_to_win", default_ftw, 1, 30, f"jogo {i}: ", f"rubber {i}: ")))
    return tuple(out)


def check_lineup(team: Team, tie: tuple[Rubber, ...], lineup: Any) -> tuple[tuple[str, ...], ...]:
    """A team's composition for one tie: for each rubber in order, the list of its players
    (one for singles, two for doubles), each a player of ``team``. Returns it as tuples.

    Raises:
        TournamentError: ``invalid_lineup`` (wrong shape or count, a player twice in a
        doubles pair), ``player_not_in_team`` (a name not in the team).
    """
    if not isinstance(lineup, list) or len(lineup) != len(tie):
        raise _bad("invalid_lineup", f"{team.name}: a escalação deve ter {len(tie)} jogos",
                   f"{team.name}: the lineup must have {len(tie)} rubbers")
    members = {p.casefold(): p for p in team.players}
    out = []
    for i, (rubber, names) in enumerate(zip(tie, lineup), start=1):
        names = [names] if isinstance(names, str) else names
        if not isinstance(names, list) or len(names) != rubber.size or not all(isinstance(n, str) for n in names):
            raise _bad("invalid_lineup",
                       f"{team.name}, jogo {i} ({rubber.kind}): são precisos {rubber.size} jogador(es)",
                       f"{team.name}, rubber {i} ({rubber.kind}): {rubber.size} player(s) needed")
        got = []
        for n in names:
            p = members.get(n.strip().casefold())
            if p is None:
                raise _bad("player_not_in_team", f"{n} não é jogador da equipe {team.name}",
                           f"{n} is not a player of team {team.name}")
            got.append(p)
        if len(set(got)) != len(got):
            raise _bad("invalid_lineup", f"{team.name}, jogo {i}: o mesmo jogador duas vezes na dupla",
                       f"{team.name}, rubber {i}: the same player twice in the pair")
        out.append(tuple(got))
    return tuple(out)


def default_lineup(team: Team, tie: tuple[Rubber, ...]) -> tuple[tuple[str, ...], ...]:
    """The composition when none is given: singles take the team's players in their order
    (the first singles the first player, the second the second…, cycling), doubles the pairs
    in order (first and second, third and fourth…, cycling)."""
    n, s, d, out = len(team.players), 0, 0, []
    for r in tie:
        if r.size == 1:
            out.append((team.players[s % n],))
            s += 1
        else:
            a, b = (2 * d) % n, (2 * d + 1) % n
            out.append((team.players[a], team.players[b if b != a else (a + 1) % n]))
            d += 1
    return tuple(out)


def _series(raw: Any, n: int) -> Series:
    if raw is None:
        return Series()
    if not isinstance(raw, dict):
        raise _bad("invalid_field", "'series' deve ser um objeto", "'series' must be an object")
    places = {}
    for key in ("up", "down"):
        v = raw.get(key) or []
        if not isinstance(v, list) or not all(isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= n for p in v):
            raise _bad("invalid_field", f"'series.{key}' deve listar colocações de 1 a {n}",
                       f"'series.{key}' must list places from 1 to {n}")
        places[key] = tuple(sorted(set(v)))
    if set(places["up"]) & set(places["down"]):
        raise _bad("invalid_field", "uma colocação não pode subir e descer", "a place cannot go both up and down")
    return Series(str(raw.get("name") or ""), places["up"], places["down"], str(raw.get("above") or ""),
                  str(raw.get("below") or ""))


def parse_team_competition(data: Any) -> TeamCompetition:
    """Validate a team ``createcompetition`` file (shape in ``docs/tournament.md``, *Team
    competitions*) into a :class:`TeamCompetition`.

    Raises:
        TournamentError: ``invalid_field``, ``team_without_players``, ``player_in_two_teams``,
        ``team_too_small``, ``duplicate_team``, ``too_few_entrants``, ``invalid_lineup``,
        ``player_not_in_team``, ``unknown_format``.
    """
    name, reds, seed = parse_head(data)
    if data.get("format", TEAM_FORMAT) != TEAM_FORMAT:
        raise _bad("unknown_format", f"formato de equipes desconhecido {data.get('format')!r} (use {TEAM_FORMAT})",
                   f"unknown team format {data.get('format')!r} (use {TEAM_FORMAT})")
    decided_by = data.get("decided_by", "all_rubbers")
    if decided_by not in TIE_DECISIONS:
        raise _bad("invalid_field", f"'decided_by' deve ser um de {', '.join(TIE_DECISIONS)}",
                   f"'decided_by' must be one of {', '.join(TIE_DECISIONS)}")
    tie = _rubbers(data.get("tie", [{"kind": "singles"}, {"kind": "doubles"}, {"kind": "singles"}]),
                   _int(data, "frames_to_win", 2, 1, 30))
    teams = _teams(data.get("teams"), max(r.size for r in tie))
    tables = [t["name"] for t in table_names(data.get("tables"))]
    comp = TeamCompetition(name=name, teams=teams, tie=tie, decided_by=decided_by,
                           legs=_int(data, "legs", 1, 1, 2), reds=reds, draw_seed=seed, tables=tuple(tables),
                           series=_series(data.get("series"), len(teams)))
    raw = data.get("lineups") or {}
    if not isinstance(raw, dict):
        raise _bad("invalid_field", "'lineups' deve mapear confronto → escalações",
                   "'lineups' must map tie → lineups")
    ties = {t.id: t for t in team_plan(comp).ties}
    lineups = []
    for key, sides in raw.items():
        tie_id = int(key) if str(key).isdigit() else None
        if tie_id not in ties:
            raise _bad("invalid_lineup", f"escalação de um confronto inexistente: {key}",
                       f"lineup of no such tie: {key}")
        if not isinstance(sides, dict) or not set(sides) <= {"home", "away"}:
            raise _bad("invalid_lineup", f"escalação do confronto {key}: os lados são 'home' e 'away'",
                       f"lineup of tie {key}: the sides are 'home' and 'away'")
        for side, team_id in ((0, ties[tie_id].home), (1, ties[tie_id].away)):
            if ("home", "away")[side] in sides:
                lineups.append((tie_id, side, check_lineup(comp.team(team_id), tie, sides[("home", "away")[side]])))
    return TeamCompetition(**{**comp.__dict__, "lineups": tuple(sorted(lineups))})


# -- the plan ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Tie:
    """A team tie: ``home`` × ``away`` (team ids) in ``round``; its rubbers are numbered
    ``first_rubber`` … ``first_rubber + len(tie) - 1``."""

    id: int
    round: int
    leg: int
    home: int
    away: int
    first_rubber: int

    def label(self) -> dict:
        """``{"pt": "C1", "en": "T1"}`` (confronto / tie)."""
        return {"pt": f"C{self.id}", "en": f"T{self.id}"}


@dataclass(frozen=True)
class TeamPlan:
    """Every tie of the round-robin, in schedule order (round by round)."""

    comp: TeamCompetition
    ties: tuple[Tie, ...]

    def rubber(self, number: int) -> tuple[Tie, int]:
        """The tie and the rubber's index (0-based) of a rubber number."""
        r = len(self.comp.tie)
        tie = self.ties[(number - 1) // r]
        return tie, (number - 1) % r

    def rubber_numbers(self) -> list[int]:
        """Every rubber's number, in order."""
        return list(range(1, len(self.ties) * len(self.comp.tie) + 1))


def team_schedule(team_ids: list, legs: int = 1) -> list[tuple[int, int, int, Any, Any]]:
    """``[(round, leg, home, away)…]``: the circle method over ``team_ids`` (every pair meets
    once per leg, nobody twice in a round); the second leg repeats the first with home and
    away swapped."""
    rounds = circle_rounds(list(team_ids))
    out = []
    for leg in range(legs):
        for r, pairs in enumerate(rounds, start=1):
            for x, y in pairs:
                a, b = (team_ids[x], team_ids[y]) if leg == 0 else (team_ids[y], team_ids[x])
                out.append((r + leg * len(rounds), leg + 1, a, b))
    return out


def rename_player(comp: TeamCompetition, plan_ties: tuple, lineups: dict, team_id: int, old: str,
                  new: str) -> tuple[TeamCompetition, dict]:
    """A player of team ``team_id`` renamed ``old`` → ``new`` (the same person): the
    competition with his name changed in the team's roster and in the file's lineups of that
    team's ties, and ``lineups`` (the desk's ``{(tie id, side 0|1): rubbers}``) with it changed
    in that team's sides. ``plan_ties``: the plan's ties (which team is home, which away).
    Nothing else changes; a name not in the roster returns both unchanged.

    Raises:
        TournamentError: ``duplicate_player`` when ``new`` is already another player of the
        team (the lineups could no longer tell them apart), ``player_in_two_teams`` when it is a
        player of another team of the competition (the file would no longer read back), both
        case aside as the file's own check.
    """
    team = comp.team(team_id)
    if old not in team.players or old == new:
        return comp, dict(lineups)
    key = new.casefold()
    if any(p.casefold() == key for p in team.players if p != old):
        raise _bad("duplicate_player", f"{team.name} já tem um jogador chamado {new}",
                   f"{team.name} already has a player named {new}")
    other = next((t for t in comp.teams if t.id != team_id and any(p.casefold() == key for p in t.players)), None)
    if other is not None:
        raise _bad("player_in_two_teams",
                   f"{new} já joga pela equipe {other.name} nesta competição: {team.name} não pode ter outro {new}",
                   f"{new} already plays for team {other.name} in this competition: {team.name} cannot have another {new}")
    sides = {(t.id, side) for t in plan_ties for side, tid in enumerate((t.home, t.away)) if tid == team_id}

    def swap(rubbers):
        return tuple(tuple(new if n == old else n for n in r) for r in rubbers)

    teams = tuple(replace(t, players=tuple(new if n == old else n for n in t.players)) if t.id == team_id else t
                  for t in comp.teams)
    in_file = tuple((tie, side, swap(rubbers) if (tie, side) in sides else rubbers)
                    for tie, side, rubbers in comp.lineups)
    desk = {key: swap(rubbers) if key in sides else rubbers for key, rubbers in lineups.items()}
    return replace(comp, teams=teams, lineups=in_file), desk


def team_plan(comp: TeamCompetition) -> TeamPlan:
    """Every tie (ids 1, 2, … in schedule order) and so every rubber's number."""
    r = len(comp.tie)
    ties = tuple(Tie(i, rnd, leg, h, a, (i - 1) * r + 1)
                 for i, (rnd, leg, h, a) in enumerate(team_schedule([t.id for t in comp.teams], comp.legs), start=1))
    return TeamPlan(comp, ties)


# -- the score ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class TieScore:
    """A tie's score: ``rubbers`` won by home and away, ``frames`` won, ``decided`` (no more
    rubbers to play), ``winner`` 0/1 (side) or ``None`` (a draw, or not decided), and for each
    rubber its status: ``finished``, ``next`` (the one to play now), ``pending`` or
    ``not_played`` (after a majority decided the tie)."""

    rubbers: tuple[int, int]
    frames: tuple[int, int]
    decided: bool
    winner: int | None
    statuses: tuple[str, ...]

    @property
    def next_rubber(self) -> int | None:
        """The index of the rubber in play or to play next, or None."""
        return self.statuses.index("next") if "next" in self.statuses else None


def _winner_side(res: Any) -> int | None:
    w = res.get("winner") if isinstance(res, dict) else getattr(res, "winner", None)
    return w if w in (0, 1) else None


def _frames(res: Any) -> tuple[int, int]:
    f = res.get("frames") if isinstance(res, dict) else getattr(res, "frames", None)
    return (int(f[0]), int(f[1])) if f else (0, 0)


def tie_score(results: list, decided_by: str = "all_rubbers") -> TieScore:
    """The score of one tie from its rubbers' results in order (``None`` while a rubber has
    none; else ``{"winner": 0|1, "frames": [a, b]}``). ``all_rubbers``: decided when every
    rubber has a result, winner the side with more rubbers (equal: a draw). ``majority``:
    decided as soon as a side has won more than half of the rubbers (the rest are not
    played), or when all are played. The score is always the rubbers won. A result whose
    ``winner`` is None (a double W.O.: both sides absent) is a rubber played that nobody won: it
    counts for neither side, and the tie goes on to its next rubber."""
    n = len(results)
    won, frames, statuses = [0, 0], [0, 0], []
    decided = False
    for res in results:
        if decided:
            statuses.append("not_played")
            continue
        w = _winner_side(res) if res is not None else None
        if res is None:
            statuses.append("pending")
        elif w is None:  # a double W.O.: played, nobody's
            statuses.append("finished")
        else:
            won[w] += 1
            fa, fb = _frames(res)
            frames[0] += fa
            frames[1] += fb
            statuses.append("finished")
        if decided_by == "majority" and max(won) * 2 > n:
            decided = True
    if "pending" not in statuses:
        decided = True
    if "pending" in statuses:
        statuses[statuses.index("pending")] = "next"
    winner = None
    if decided and won[0] != won[1]:
        winner = 0 if won[0] > won[1] else 1
    return TieScore((won[0], won[1]), (frames[0], frames[1]), decided, winner, tuple(statuses))


# -- standings ---------------------------------------------------------------------------------

def lot_order(team_ids: Iterable, seed: int) -> list:
    """The fixed lot order of the teams from the draw seed (the last tie-break)."""
    ids = sorted(team_ids)
    random.Random(f"teams:{seed}").shuffle(ids)
    return ids


def team_standings(team_ids: list, ties: list[tuple[Any, Any, TieScore]], lot: list) -> list[dict]:
    """The round-robin's table: rows ``{"team", "position", "played", "won", "drawn",
    "lost", "rubbers_won", "rubbers_lost", "rubber_difference", "frames_won", "frames_lost",
    "frame_difference", "tie_break"}`` ordered by ties won, then rubber difference, frame
    difference, head-to-head (ties won among the teams still level, applied again to any
    smaller group it leaves level) and the lot. Only decided ties count. ``ties``: ``(home,
    away, score)``; the result does not depend on their order."""
    rows = {t: {"team": t, "played": 0, "won": 0, "drawn": 0, "lost": 0, "rubbers_won": 0,
                "rubbers_lost": 0, "frames_won": 0, "frames_lost": 0} for t in team_ids}
    decided = [(h, a, s) for h, a, s in ties if s.decided]
    for h, a, s in decided:
        for side, team in ((0, h), (1, a)):
            r = rows[team]
            r["played"] += 1
            r["rubbers_won"] += s.rubbers[side]
            r["rubbers_lost"] += s.rubbers[1 - side]
            r["frames_won"] += s.frames[side]
            r["frames_lost"] += s.frames[1 - side]
            if s.winner is None:
                r["drawn"] += 1
            elif s.winner == side:
                r["won"] += 1
            else:
                r["lost"] += 1
    for r in rows.values():
        r["rubber_difference"] = r["rubbers_won"] - r["rubbers_lost"]
        r["frame_difference"] = r["frames_won"] - r["frames_lost"]
    lot_pos = {t: i for i, t in enumerate(lot)}
    reason: dict = {}

    def h2h_wins(group: set) -> dict:
        w = {t: 0 for t in group}
        for h, a, s in decided:
            if h in group and a in group and s.winner is not None:
                w[(h, a)[s.winner]] += 1
        return w

    def order(group: list) -> list:
        """``group`` is level on the three numbers: head-to-head, then the lot."""
        if len(group) == 1:
            return group
        w = h2h_wins(set(group))
        levels = sorted({w[t] for t in group}, reverse=True)
        if len(levels) > 1:
            out = []
            for lv in levels:
                sub = [t for t in group if w[t] == lv]
                for t in sub:
                    reason.setdefault(t, "head_to_head")
                out += order(sub)
            return out
        for t in group:
            reason[t] = "lot"
        return sorted(group, key=lambda t: lot_pos.get(t, len(lot_pos)))

    key = lambda t: (rows[t]["won"], rows[t]["rubber_difference"], rows[t]["frame_difference"])  # noqa: E731
    ranked = []
    for k in sorted({key(t) for t in team_ids}, reverse=True):
        level = sorted(t for t in team_ids if key(t) == k)
        ranked += order(level)
    out = []
    for i, t in enumerate(ranked, start=1):
        why = reason.get(t)
        label = None
        if why:
            pt, en = _TB_LABELS[why]
            label = {"code": why, "pt": f"desempate: {pt}", "en": f"tie-break: {en}"}
        out.append({**rows[t], "position": i, "tie_break": label})
    return out


# -- the whole state ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TieState:
    """A tie as of the results: its plan, each rubber's lineup (``lineups[i] = (home names,
    away names)``), each rubber's result (or None), and the score."""

    tie: Tie
    lineups: tuple
    results: tuple
    score: TieScore

    @property
    def status(self) -> str:
        """``waiting`` (no rubber played), ``in_play`` or ``finished``."""
        if self.score.decided:
            return "finished"
        return "in_play" if "finished" in self.score.statuses else "waiting"

    def to_dict(self) -> dict:
        """The tie's JSON (team ids, rubbers with lineups, results and statuses, the score)."""
        t = self.tie
        return {"tie": t.id, "round": t.round, "leg": t.leg, "home": t.home, "away": t.away,
                "status": self.status, "score": list(self.score.rubbers), "frames": list(self.score.frames),
                "decided": self.score.decided,
                "winner": None if self.score.winner is None else (t.home, t.away)[self.score.winner],
                "rubbers": [{"number": t.first_rubber + i, "index": i, "players": [list(h), list(a)],
                             "status": st, "result": r}
                            for i, ((h, a), st, r) in enumerate(zip(self.lineups, self.score.statuses, self.results))]}


@dataclass(frozen=True)
class TeamState:
    """Everything of a team competition as of the results: ties, standings, ``complete``
    (every tie decided), and the teams going up/down (once complete, by the série's places)."""

    ties: dict
    standings: list
    complete: bool
    promoted: tuple
    relegated: tuple

    def to_dict(self) -> dict:
        """JSON form."""
        return {"ties": [ts.to_dict() for ts in self.ties.values()], "standings": self.standings,
                "complete": self.complete, "promoted": list(self.promoted), "relegated": list(self.relegated)}


def lineup_of(plan: TeamPlan, tie: Tie, lineups: dict | None = None) -> tuple:
    """``((home names, away names) per rubber)``: the desk's lineup (``lineups[(tie id,
    side)]``), else the file's, else :func:`default_lineup`."""
    comp = plan.comp
    given = {(t, s): r for t, s, r in comp.lineups}
    given.update(lineups or {})
    sides = []
    for side, team_id in ((0, tie.home), (1, tie.away)):
        team = comp.team(team_id)
        sides.append(given.get((tie.id, side)) or default_lineup(team, comp.tie))
    return tuple(zip(sides[0], sides[1]))


def evaluate_teams(plan: TeamPlan, results: dict, lineups: dict | None = None) -> TeamState:
    """The state from ``results`` (``{rubber number: {"winner": 0|1|None, "frames": [a, b]}}``,
    ``None`` a double W.O.,
    sides as the tie's home/away) and the desk's ``lineups`` (``{(tie id, side): rubbers}``).
    Pure: the same results in any order give the same state."""
    comp = plan.comp
    r = len(comp.tie)
    ties = {}
    for tie in plan.ties:
        res = tuple(results.get(tie.first_rubber + i) for i in range(r))
        ties[tie.id] = TieState(tie, lineup_of(plan, tie, lineups), res, tie_score(list(res), comp.decided_by))
    ids = [t.id for t in comp.teams]
    standings = team_standings(ids, [(ts.tie.home, ts.tie.away, ts.score) for ts in ties.values()],
                               lot_order(ids, comp.draw_seed))
    complete = all(ts.score.decided for ts in ties.values())
    place = {row["position"]: row["team"] for row in standings}
    up = tuple(place[p] for p in comp.series.up if p in place) if complete else ()
    down = tuple(place[p] for p in comp.series.down if p in place) if complete else ()
    return TeamState(ties, standings, complete, up, down)


def check_tie_lineup(plan: TeamPlan, state: TeamState, tie_id: Any, side: Any, lineup: Any) -> tuple:
    """The desk's lineup for one side of a tie, checked: the tie exists, no rubber of it has
    a result, and :func:`check_lineup`. Returns the lineup as tuples.

    Raises:
        TournamentError: ``unknown_tie``, ``invalid_field`` (side), ``tie_started``,
        ``invalid_lineup``, ``player_not_in_team``.
    """
    if not isinstance(tie_id, int) or isinstance(tie_id, bool):
        raise _bad("invalid_field", f"'tie' deve ser o número do confronto (um inteiro), não {tie_id!r}",
                   f"'tie' must be the tie's number (an integer), not {tie_id!r}")
    if tie_id not in state.ties:
        raise _bad("unknown_tie", f"Confronto inexistente: {tie_id}", f"No such tie: {tie_id}")
    if side not in ("home", "away"):
        raise _bad("invalid_field", "'side' deve ser home ou away", "'side' must be home or away")
    ts = state.ties[tie_id]
    if "finished" in ts.score.statuses:
        raise _bad("tie_started", f"C{tie_id} já começou: a escalação não muda mais",
                   f"T{tie_id} has started: its lineup can no longer change")
    team = plan.comp.team(ts.tie.home if side == "home" else ts.tie.away)
    return check_lineup(team, plan.comp.tie, lineup)
