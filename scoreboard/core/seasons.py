"""Seasons (issue 17, item 7): a season's competitions are its etapas, each with a weight; the
ranking across them is the pure core's (``tournament.ranking.season_ranking``) over each
finished competition's placings and its own points table, and it can seed the next draw
(``seed_by_season`` in a ``createcompetition`` file, ordered by ``tournament.ranking.seed_order``).

Players are keyed by their ``Player`` row across competitions (the same name and club is the
same row: ``create_competition`` finds players by both). Nothing of the ranking is stored.
Refusals are ``TournamentError`` with a Portuguese and an English message, and change nothing.
"""
from __future__ import annotations

import math

from tournament import TournamentError
from tournament.ranking import DEFAULT_POINTS, absent_entries, competition_points, season_ranking, seed_order

from . import competitions
from .competitions import Created, create_competition, now
from .models import Competition, Player, PulledSeason, Season, SeasonEtapa


def _season(season_id) -> Season:
    try:
        return Season.objects.get(pk=int(season_id))
    except (Season.DoesNotExist, ValueError, TypeError, OverflowError):
        raise TournamentError("unknown_season", f"temporada desconhecida: {season_id!r}",
                              f"unknown season: {season_id!r}") from None


def check_weight(weight) -> float:
    """The weight as a float; ``invalid_weight`` unless a finite number > 0."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) \
            or weight <= 0:
        raise TournamentError("invalid_weight", f"o peso de uma etapa deve ser maior que zero ({weight!r})",
                              f"an etapa's weight must be greater than zero ({weight!r})")
    return float(weight)


def add_etapa(season: Season, competition: Competition, weight=1) -> SeasonEtapa:
    """Add ``competition`` to ``season`` with ``weight`` (> 0, else ``invalid_weight``). A team
    competition has no individual placings: refused (``team_etapa``)."""
    w = check_weight(weight)
    if not competitions.format_of(competition).entrants_are_players:
        raise TournamentError("team_etapa",
                              "Uma competição de equipes não é etapa de um ranking individual",
                              "A team competition is not an etapa of an individual ranking")
    return SeasonEtapa.objects.create(season=season, competition=competition, weight=w)


def ranking(season: Season) -> list[dict]:
    """The season's rows best first: ``{"player": Player pk, "name", "club", "points",
    "etapas", "best", "position"}``. Only finished competitions count (an event in progress
    has no final placings yet); each one's points table is its file's ``points`` (the core's
    default table when empty), times the etapa's weight."""

    return [{k: v for k, v in r.items() if k != "parts"} for r in ranking_detail(season)]


def ranking_detail(season: Season) -> list[dict]:
    """:func:`ranking` rows, each with ``"parts"``: where its points came from, one per etapa
    the player was placed in, ``{"competition": pk, "name", "placing", "points"}`` (points
    times the etapa's weight, as counted), in the etapas' order."""
    etapas, comps = [], []
    for et in season.etapas.select_related("competition"):
        if not competitions.format_of(et.competition).entrants_are_players:
            continue  # no individual placings (add_etapa refuses one; the admin may not)
        cur = now(et.competition)
        if not cur.state.complete:
            continue
        ids = [e.id for e in cur.spec.entries]
        player_of = {ids[n - 1]: pl for n, pl in et.competition.entries.values_list("number", "player_id")}
        etapas.append({"placings": {player_of[e]: p for e, p in cur.state.placings.items() if e in player_of},
                       "weight": et.weight, "points": dict(cur.spec.points),
                       "absent": {player_of[e] for e in absent_entries(cur.state) if e in player_of},
                       "points_absent": cur.spec.points_absent})
        comps.append(et.competition)
    rows = season_ranking(etapas)
    parts: dict = {}
    for et, comp in zip(etapas, comps):
        got = competition_points(et["placings"], et["points"] or DEFAULT_POINTS, et["absent"], et["points_absent"])
        for p, placing in et["placings"].items():
            pts = et["weight"] * got[p]
            parts.setdefault(p, []).append({"competition": comp.pk, "name": comp.name, "placing": placing,
                                            "points": int(pts) if float(pts).is_integer() else pts})
    players = Player.objects.in_bulk([r["player"] for r in rows])
    return [{**r, "name": players[r["player"]].name, "club": players[r["player"]].club,
             "parts": parts.get(r["player"], [])} for r in rows]


def summary(season_id) -> dict:
    """``GET /api/seasons/<id>/``: ``{"id", "name", "etapas": [{"competition", "name",
    "weight", "finished"}], "ranking": rows}`` (see :func:`ranking`); ``unknown_season``."""

    season = _season(season_id)
    etapas = [{"competition": et.competition_id, "name": et.competition.name, "weight": et.weight,
               "finished": competitions.format_of(et.competition).now(et.competition).state.complete}
              for et in season.etapas.select_related("competition")]
    return {"id": season.pk, "name": season.name, "etapas": etapas, "ranking": ranking(season)}


def seed_players(data: dict) -> dict:
    """A ``createcompetition`` file with ``"seed_by_season": <id>``: its ``players`` reordered
    by that season's ranking (ranked players by position, then the unranked in their order),
    the key removed. A file without it is returned as it is. ``unknown_season``."""
    if not isinstance(data, dict) or not ({"seed_by_season", "seed_by_federation_season"} & set(data)):
        return data
    data = dict(data)
    if "seed_by_federation_season" in data:
        rows = _pulled_ranking(data.pop("seed_by_federation_season"))
    else:
        rows = ranking(_season(data.pop("seed_by_season")))
    players = data.get("players")
    if not isinstance(players, list):
        return data  # parse_competition says what is wrong with it

    def key(p):
        name, club = (p, "") if isinstance(p, str) else (p.get("name"), p.get("club") or "") \
            if isinstance(p, dict) else (None, None)
        # a player registered at the federation before an unregistered namesake, as the draw finds them
        row = (min(Player.objects.filter(name=name.strip(), club=str(club).strip()),
                   key=lambda p: (p.federation_id is None, p.pk), default=None)
               if isinstance(name, str) else None)
        return row.pk if row else ("new", repr(p))

    keys = [key(p) for p in players]
    if len(set(keys)) != len(keys):
        return data  # a duplicate entrant: parse_competition refuses it
    by_key = dict(zip(keys, players))
    data["players"] = [by_key[k] for k in seed_order(keys, rows)]
    # an explicit seed in a player's entry would override the order: the ranking decides
    data["players"] = [({k: v for k, v in p.items() if k != "seed"} if isinstance(p, dict) else p)
                       for p in data["players"]]
    return data


def _pulled_ranking(season_id) -> list[dict]:
    """The ranking of a federation's season as last pulled, as :func:`ranking`'s rows
    (``{"player": local pk}``, best first; a federation id no local player has is left out).
    ``unknown_season`` when it was never pulled."""
    try:
        pulled = PulledSeason.objects.get(federation_season_id=int(season_id))
    except (PulledSeason.DoesNotExist, ValueError, TypeError, OverflowError):
        raise TournamentError("unknown_season",
                              f"temporada da federação desconhecida: {season_id!r} (manage.py federation pull)",
                              f"unknown federation season: {season_id!r} (manage.py federation pull)") from None
    local = dict(Player.objects.filter(federation_id__in=[r.get("federation_id") for r in pulled.ranking
                                                           if isinstance(r, dict)]).values_list("federation_id", "pk"))
    return [{"player": local[r["federation_id"]]} for r in pulled.ranking
            if isinstance(r, dict) and r.get("federation_id") in local]


def create_seeded(data: dict, by: str = "cmd") -> Created:
    """``create_competition`` of a file that may be seeded by a season's ranking
    (``"seed_by_season": <id>``, see ``seed_players``). Raises ``TournamentError``
    (``unknown_season`` among them); nothing is stored then."""
    return create_competition(seed_players(data), by=by)
