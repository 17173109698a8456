"""Careers and head-to-heads from the database: loads each match row into the record shape of
``tournament.career`` (sides, frames, frame scores, winner, W.O., breaks by person) and hands
them to it; nothing is computed here that the pure core computes.

A player is addressed by a *public id*: their ``federation_id`` where the federation registered
them, else the local primary key (a venue's own players), as text. The frames and breaks come
from the statistics fold (``reports.stats.for_match``, one per match and process, brought up to
date with the rows stored since), so a page asked for again after one more event costs a step,
not a replay; the W.O. and a correction are the desk's (``core.venue_rules.shown_state``), and a
protest's overruling at the federation (``core.overrulings``) is over them all: its winner and
frames count, and the match carries ``overruled`` (the reason) for the pages to mark it.
A rehearsal and a match neither started nor decided are no part of a career.
"""
from __future__ import annotations

import unicodedata

from django.db.models import Q

from sinuca import Phase
from tournament import career as core

from ..core import overrulings
from ..core.models import Club, Competition, Fixture, Match, MatchMember, Player, Season, SeasonEtapa
from ..core.names import identity
from . import stats

SEARCH_LIMIT = 50  # names a search answers at most


def _has_federation_id() -> bool:
    return any(f.name == "federation_id" for f in Player._meta.get_fields())


def public_id(player: Player) -> str:
    """The id the public site and JSON name ``player`` by: ``federation_id`` when set, else the
    primary key, as text."""
    fid = getattr(player, "federation_id", None)
    return str(fid) if fid else str(player.pk)


def player_by_id(key) -> Player | None:
    """The player of a public id (:func:`public_id`): a registered federation id first, then a
    primary key; None when neither names one."""
    key = str(key).strip()
    if not key or len(key) > 64:
        return None
    if _has_federation_id():
        found = Player.objects.filter(federation_id=key).first()
        if found is not None:
            return found
    if key.isdigit() and len(key) < 18:
        return Player.objects.filter(pk=int(key)).first()
    return None


def fold_text(text: str) -> str:
    """``text`` without accents, case-folded: "Dênis" and "DENIS" search alike."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _club_ids() -> dict[str, str]:
    """A registered club's key (``names.identity`` of its name) -> its federation id."""
    return dict(Club.objects.filter(federation_id__isnull=False).values_list("key", "federation_id"))


def search(q: str, limit: int = SEARCH_LIMIT) -> list[dict]:
    """``GET /api/players/?q=``: ``[{"id", "name", "club", "club_id"}]`` of the players whose
    name holds every word of ``q`` (accents and case ignored), by name; every player (up to
    ``limit``) for an empty ``q``. ``club_id`` is the federation id of the player's club (as
    names are compared), None when the club is not registered or he has none."""
    words = fold_text(q).split()
    fields = ["pk", "name", "club"] + (["federation_id"] if _has_federation_id() else [])
    club_ids = _club_ids()
    out = []
    for row in Player.objects.order_by("name", "pk").values(*fields).iterator():
        name = fold_text(row["name"])
        if all(w in name for w in words):
            club = row["club"] or ""
            out.append({"id": str(row.get("federation_id") or row["pk"]), "name": row["name"], "club": club,
                        "club_id": club_ids.get(identity(club)) if club else None})
            if len(out) >= limit:
                break
    return out


def clubs() -> list[dict]:
    """``GET /api/clubs/``: ``[{"id", "name", "players": [{"id", "name"}]}]``, every club by
    name (accents and case ignored): each registered one (``id`` its federation id; one
    registered alone may have no players yet) and each club name players bear that no
    registered club has (``id`` None). Names that differ only by case, spaces or Unicode form
    are one club. A player's ``id`` is his public id (:func:`public_id`); players by name."""
    groups: dict[str, dict] = {}
    for c in Club.objects.order_by("name", "pk"):
        groups[c.key] = {"id": c.federation_id or None, "name": c.name, "players": []}
    for row in Player.objects.exclude(club="").order_by("name", "pk").values("pk", "name", "club", "federation_id"):
        group = groups.setdefault(identity(row["club"]), {"id": None, "name": row["club"], "players": []})
        group["players"].append({"id": str(row["federation_id"] or row["pk"]), "name": row["name"]})
    return sorted(groups.values(), key=lambda g: (fold_text(g["name"]), g["name"]))


def matches_of(*players: Player):
    """The matches each of ``players`` plays in (a side of a singles match, or a member of a
    doubles side), rehearsals left out; one queryset."""
    q = Q()
    for p in players:
        q_p = Q(player_a=p) | Q(player_b=p) | Q(pk__in=MatchMember.objects.filter(player=p).values("match_id"))
        q = q_p if not q else q & q_p
    return Match.objects.filter(q, rehearsal=False).order_by("pk")


def _sides(match: Match, members: dict) -> list[list[int]]:
    rows = members.get(match.pk)
    if rows:
        sides = [[], []]
        for side, _order, pid in sorted(rows):
            sides[side].append(pid)
        if all(sides):
            return sides
    return [[match.player_a_id], [match.player_b_id]]


def record(match: Match, sides: list[list[int]], comp: dict | None = None,
           overruled: dict | None = None) -> dict | None:
    """The ``tournament.career`` record of one match row (None for one neither started nor
    decided). ``comp``: ``{"name", "season", "id"}`` of its competition, when it has one;
    ``overruled``: its overruling at the federation (``core.overrulings.of_matches``), whose
    winner and frames replace the venue's (the frames' scores and the breaks stay as played)."""
    if not match.seq and not match.walkover and not match.correction:
        return None
    st = stats.for_match(match)
    state = st.state
    over = state.get("phase") == Phase.MATCH_OVER.value
    winner = state.get("match_winner") if over else None
    walkover = bool(match.walkover) and not match.correction
    breaks = []
    for br in st.breaks:
        people = sides[br.player]
        person = people[br.person] if br.person is not None and br.person < len(people) else people[0]
        breaks.append({"player": person, "points": br.points})
    comp = comp or {}
    when = match.started_at or match.created_at
    frames = list(state.get("frames") or [0, 0])
    if overruled:
        winner, frames, walkover = overruled["winner"], list(overruled["frames"]), False
    return {"id": match.pk, "when": when.isoformat() if when else None,
            "season": comp.get("season"), "competition": comp.get("name", ""),
            "competition_id": comp.get("id"), "sides": sides,
            "frames": frames,
            "frame_scores": [list(f.scores) for f in st.frames if f.winner is not None] if not walkover else [],
            "winner": winner if winner in (0, 1) else None,
            "walkover": walkover or (over and winner is None and bool(match.walkover)),
            "breaks": breaks, "overruled": overruled["reason"] if overruled else None}


def records(matches) -> list[dict]:
    """:func:`record` of each match row (rows started or decided only), with its competition's
    name and season read for all of them at once."""
    matches = list(matches)
    pks = [m.pk for m in matches]
    members: dict[int, list] = {}
    for mid, side, order, pid in MatchMember.objects.filter(match_id__in=pks).values_list(
            "match_id", "side", "order", "player_id"):
        members.setdefault(mid, []).append((side, order, pid))
    comps = dict(Fixture.objects.filter(match_id__in=pks).values_list("match_id", "competition_id"))
    names = dict(Competition.objects.filter(pk__in=set(comps.values())).values_list("pk", "name"))
    # only a venue's matches, at the federation, can be overruled: a venue's own pages ask nothing
    overruled = overrulings.of_matches([m.pk for m in matches if m.origin_venue_id is not None])
    season_of: dict[int, int] = {}
    for cid, sid in SeasonEtapa.objects.filter(competition_id__in=set(comps.values())).order_by(
            "season__created_at", "pk").values_list("competition_id", "season_id"):
        season_of.setdefault(cid, sid)
    out = []
    for m in matches:
        cid = comps.get(m.pk)
        comp = {"id": cid, "name": names.get(cid, ""), "season": season_of.get(cid)} if cid else None
        rec = record(m, _sides(m, members), comp, overruled.get(m.pk))
        if rec is not None:
            out.append(rec)
    return out


def person(player: Player) -> dict:
    """``{"id", "name", "club"}``: a player as the JSON and the pages name them."""
    return {"id": public_id(player), "name": player.name, "club": player.club or ""}


def _people(ids) -> dict[int, dict]:
    return {pk: person(p) for pk, p in Player.objects.in_bulk(list(ids)).items()}


def career(player: Player) -> dict:
    """``GET /api/players/<id>/career/``: ``{"player": {"id", "name", "club"}, "total": line,
    "by_season": [{"season": id or None, "name", **line}], "last": [{"match", "when",
    "competition", "competition_id", "opponents": [person], "partners": [person], "frames":
    [own, theirs], "outcome", "overruled": the overruling's reason or None}]}``:
    ``tournament.career.career`` over the player's matches
    (a line: matches, won, lost, wo_won, wo_lost, frames_won, frames_lost, win_pct,
    highest_break, breaks_30, breaks_50, breaks_100), seasons newest first."""
    recs = records(matches_of(player))
    out = core.career(player.pk, recs)
    by_id = {r["id"]: r for r in recs}
    people = _people({p for r in recs for side in r["sides"] for p in side})
    seasons = dict(Season.objects.filter(pk__in=[s for s in out["by_season"] if s is not None])
                   .values_list("pk", "name"))
    by_season = [{"season": s, "name": seasons.get(s, ""), **line}
                 for s, line in sorted(out["by_season"].items(), key=lambda kv: (kv[0] is not None, kv[0] or 0),
                                       reverse=True)]
    last = [{"match": r["id"], "when": r["when"], "competition": r["competition"],
             "competition_id": by_id[r["id"]]["competition_id"],
             "opponents": [people[p] for p in r["opponents"] if p in people],
             "partners": [people[p] for p in r["partners"] if p in people and p != player.pk],
             "frames": r["frames"], "outcome": r["outcome"], "overruled": by_id[r["id"]]["overruled"]}
            for r in out["last"]]
    return {"player": person(player), "total": out["total"], "by_season": by_season, "last": last}


def head_to_head(a: Player, b: Player) -> dict:
    """``GET /api/players/<a>/h2h/<b>/``: ``{"a": person, "b": person, "played", "won": [a's,
    b's], "walkovers": [a's, b's], "frames": [a's, b's], "matches": [{"match", "when",
    "competition", "competition_id", "frames", "frame_scores", "winner": "a" | "b" | None,
    "walkover", "overruled": the overruling's reason or None}]}`` oldest first (``tournament.career.head_to_head``). Raises ``ValueError``
    when ``a`` is ``b``."""
    recs = records(matches_of(a, b))
    out = core.head_to_head(a.pk, b.pk, recs)
    comp_of = {r["id"]: r["competition_id"] for r in recs}
    overruled = {r["id"]: r["overruled"] for r in recs}
    return {"a": person(a), "b": person(b), "played": out["played"], "won": out["won"],
            "walkovers": out["walkovers"], "frames": out["frames"],
            "matches": [{"match": m["id"], "when": m["when"], "competition": m["competition"],
                         "competition_id": comp_of.get(m["id"]), "frames": m["frames"],
                         "frame_scores": m["frame_scores"], "winner": m["winner"],
                         "walkover": m["walkover"], "overruled": overruled.get(m["id"])}
                        for m in out["matches"]]}
