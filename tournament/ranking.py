"""Ranking points: points by final placing in one competition, and a season ranking across
competitions (etapas, each with a weight) that can seed the next draw."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

DEFAULT_POINTS = ((1, 100), (2, 75), (3, 55), (5, 35), (9, 20), (17, 10), (33, 5), (65, 2))


def points_for(placing: int, table: Iterable[tuple[int, int]] | Mapping = DEFAULT_POINTS) -> int:
    """Points for a placing: the value at the largest placing in ``table`` that is ≤ ``placing``
    (so ``{1: 100, 3: 55}`` gives 55 to both 3rd and 4th); 0 below the table's first key."""
    items = sorted((int(k), int(v)) for k, v in (table.items() if isinstance(table, Mapping) else table))
    best = 0
    for k, v in items:
        if k <= placing:
            best = v
    return best


def competition_points(placings: Mapping, table=DEFAULT_POINTS, absent: Iterable = (),
                       points_absent: int = 0) -> dict:
    """``{entry: points}`` for ``{entry: placing}`` (a :class:`~tournament.progress.State`'s
    ``placings``); an entrant of ``absent`` (:func:`absent_entries`: placed without playing for
    it) gets ``points_absent`` instead of his placing's points."""
    absent = set(absent)
    return {e: points_absent if e in absent else points_for(p, table) for e, p in placings.items()}


def absent_entries(state) -> set:
    """Entrants of a :class:`~tournament.progress.State` whose final placing was not played for:
    those who withdrew, and those whose last decided match (in schedule order) was a double W.O.
    (both absent). A federation gives them the file's ``points_absent``, not the points of the
    place the bracket left them in (two no-shows of a last-16 double W.O. were each given 9th
    place's 20 points, as if they had played)."""
    last = {}
    for n in sorted(state.matches):
        ms = state.matches[n]
        if ms.result is None:
            continue
        for e in ms.players:
            if e is not None:
                last[e] = ms.result.kind
    return set(state.withdrawn) | {e for e, kind in last.items() if kind == "double_walkover"}


def season_ranking(etapas: Iterable[Mapping]) -> list[dict]:
    """The season's ranking.

    etapas: ``[{"placings": {player: placing}, "weight": 1.0, "points": table, "absent":
    {player, …}, "points_absent": 0}]`` (all but placings optional; an absent player, see
    :func:`absent_entries`, gets ``points_absent`` for that etapa); player keys are whatever
    identifies a player across competitions (a name or a player id). Returns rows best first: ``{"player", "points", "etapas", "best",
    "position"}``; ties on points go to the better best placing, then the player key; tied rows
    share a position.
    """
    tot: dict[Any, float] = {}
    count: dict[Any, int] = {}
    best: dict[Any, int] = {}
    for et in etapas:
        w = et.get("weight", 1)
        table = et.get("points", DEFAULT_POINTS) or DEFAULT_POINTS
        got = competition_points(et["placings"], table, et.get("absent", ()), et.get("points_absent", 0))
        for p, placing in et["placings"].items():
            tot[p] = tot.get(p, 0) + w * got[p]
            count[p] = count.get(p, 0) + 1
            best[p] = min(best.get(p, placing), placing)
    order = sorted(tot, key=lambda p: (-tot[p], best[p], repr(p)))
    rows = []
    for i, p in enumerate(order):
        pos = rows[-1]["position"] if rows and rows[-1]["points"] == tot[p] and \
            rows[-1]["best"] == best[p] else i + 1
        pts = tot[p]
        rows.append({"player": p, "points": int(pts) if float(pts).is_integer() else pts,
                     "etapas": count[p], "best": best[p], "position": pos})
    return rows


def seed_order(players: Iterable, ranking: Iterable[Mapping]) -> list:
    """``players`` reordered for the next draw: ranked players by ranking position, then the
    unranked in their given order (the list to pass as the file's ``players``)."""
    rank = {r["player"]: i for i, r in enumerate(ranking)}
    players = list(players)
    idx = {p: i for i, p in enumerate(players)}
    return sorted(players, key=lambda p: (p not in rank, rank.get(p, 0), idx[p]))
