"""Results flow: from a :class:`~tournament.plan.Plan` and the results known so far to who
fills every slot, which matches are ready, the standings, the placings and the champion.

:func:`evaluate` is a pure function of ``(plan, results, withdrawn)``; ``results`` is a mapping
``match id → Result`` (or its dict form), so the outcome cannot depend on the order in which
results arrived. Statuses of a match:

* ``waiting``: a player is not known yet (the slot's placeholder is shown);
* ``ready``: both players known, no result;
* ``finished``: a result of kind frames / concession / disqualification / withdrawal;
* ``walkover``: kind walkover or double_walkover, or a player who withdrew earlier (automatic);
* ``bye``: one side is nobody (a double W.O. upstream): the other goes through, no match played;
* ``void``: both sides nobody.

"Decided" = finished, walkover, bye or void.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .errors import TournamentError
from .labels import tie_break_reason
from .plan import Fixture, Plan, Slot
from .spec import KINDS

UNKNOWN = object()  # a slot whose player is not known yet
NOBODY = None       # a slot known to hold nobody
DECIDED = ("finished", "walkover", "bye", "void")


@dataclass(frozen=True)
class Result:
    """The end of one match, sides in the fixture's order (``a`` first).

    winner: entry id (``None`` only for ``double_walkover``). frames: ``(a, b)`` frames won.
    kind: one of ``frames``, ``concession``, ``disqualification``, ``walkover`` (the winner was
    present: frames become ``frames_to_win × 0``), ``double_walkover`` (both absent, nobody goes
    through), ``withdrawal`` (the loser withdrew: his remaining matches become W.O.).
    points: ``(a, b)`` points scored; highest_break: ``(a, b)`` best break of each (both optional).
    at: when the match ended (any increasing number, e.g. seconds; optional): it orders the
    withdrawals (without it, match order), so pass it when players may withdraw.
    """

    winner: Any
    frames: tuple[int, int] = (0, 0)
    kind: str = "frames"
    points: tuple[int, int] = (0, 0)
    highest_break: tuple[int, int] = (0, 0)
    at: float | None = None

    @classmethod
    def from_dict(cls, d: Mapping | "Result") -> "Result":
        """From ``{"winner", "frames": [a, b], "kind", "points", "highest_break", "at"}``."""
        if isinstance(d, Result):
            return d
        if not isinstance(d, dict) and not isinstance(d, Mapping):
            raise TournamentError("invalid_result", "resultado deve ser um objeto",
                                  "a result must be an object")
        def pair(key):
            v = d.get(key) or (0, 0)
            if (not isinstance(v, (list, tuple)) or len(v) != 2 or
                    not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
                raise TournamentError("invalid_result", f"'{key}' deve ser um par de inteiros ≥ 0",
                                      f"'{key}' must be a pair of integers ≥ 0")
            return (v[0], v[1])
        at = d.get("at")
        if at is not None and (isinstance(at, bool) or not isinstance(at, (int, float))):
            raise TournamentError("invalid_result", "'at' deve ser um número (quando terminou)",
                                  "'at' must be a number (when it ended)")
        return cls(d.get("winner"), pair("frames"), d.get("kind", "frames"), pair("points"),
                   pair("highest_break"), at)

    def to_dict(self) -> dict:
        """JSON form, the one :meth:`from_dict` reads."""
        d = {"winner": self.winner, "frames": list(self.frames), "kind": self.kind,
             "points": list(self.points), "highest_break": list(self.highest_break)}
        if self.at is not None:
            d["at"] = self.at
        return d


@dataclass
class MatchState:
    """One match as of the results given.

    players: ``[a, b]`` entry ids, ``None`` where not known or nobody; placeholders: the label
    of each side while its player is unknown (else ``None``); status: see the module doc;
    winner / loser: entry ids once decided (``None`` for nobody); result: the :class:`Result`
    applied (for an automatic W.O. one built here, ``auto`` True).
    """

    fixture: Fixture
    players: list
    placeholders: list
    status: str
    winner: Any = None
    loser: Any = None
    result: Result | None = None
    auto: bool = False

    @property
    def id(self) -> int:
        """The match number (the fixture's id)."""
        return self.fixture.id

    def to_dict(self) -> dict:
        """JSON form: the fixture's fields plus players, placeholders, status, winner, frames, kind."""
        d = self.fixture.to_dict()
        d.update(players=list(self.players), placeholders=list(self.placeholders),
                 status=self.status, winner=self.winner, loser=self.loser,
                 frames=list(self.result.frames) if self.result else None,
                 kind=self.result.kind if self.result else None, auto=self.auto)
        return d


@dataclass
class State:
    """Everything the results imply.

    matches: ``{id: MatchState}`` in schedule order. standings: ``{(stage, "A"): [row, …]}``
    (rows: see :func:`group_standings`). positions: ``{(stage, "A"): [entry id or None, …]}``
    final group positions once known (``None``: not yet / nobody). placings: ``{entry id:
    placing}`` final placings known so far (shared placings repeat, e.g. two 3rds).
    champion: entry id or ``None``. complete: every match decided. withdrawn: entry ids.
    """

    plan: Plan
    matches: dict
    standings: dict = field(default_factory=dict)
    positions: dict = field(default_factory=dict)
    placings: dict = field(default_factory=dict)
    champion: Any = None
    complete: bool = False
    withdrawn: frozenset = frozenset()

    def ready(self) -> list[MatchState]:
        """Matches with both players known and no result, in schedule order."""
        return [m for m in self.matches.values() if m.status == "ready"]

    def to_dict(self) -> dict:
        """JSON form: ``{"stages": [{"index", "format", "frames_to_win", "groups", "complete"}],
        "matches": […], "standings": {"1:A": rows}, "placings": [[id, p], …],
        "champion", "complete", "withdrawn"}``."""
        comp = self.plan.competition
        stages = [{"index": i, "format": s.format, "frames_to_win": s.frames_to_win,
                   "groups": [g for (si, g) in self.plan.groups if si == i],
                   "complete": all(m.status in DECIDED for m in self.matches.values()
                                   if m.fixture.stage == i)}
                  for i, s in enumerate(comp.stages)]
        return {"stages": stages,
                "matches": [m.to_dict() for m in self.matches.values()],
                "standings": {f"{s + 1}:{g}": rows for (s, g), rows in self.standings.items()},
                "placings": sorted(([k, v] for k, v in self.placings.items()), key=lambda x: x[1]),
                "champion": self.champion, "complete": self.complete,
                "withdrawn": sorted(self.withdrawn, key=repr)}


def _err_unknown(f: Fixture) -> TournamentError:
    return TournamentError(
        "players_unknown",
        f"J{f.id}: os jogadores ainda não são conhecidos; resultado ou W.O. não aceito",
        f"M{f.id}: its players are not known yet; no result or W.O. accepted")


def validate_result(f: Fixture, players: list, result: Result) -> Result:
    """Check ``result`` against fixture ``f`` whose players are ``players`` (both known) and
    return it normalised (W.O. frames ``frames_to_win × 0``, double W.O. ``0 × 0``).

    Raises TournamentError: ``players_unknown``, ``unknown_kind``, ``invalid_result`` (winner
    not in the match, impossible frames).
    """
    if players[0] is None or players[1] is None:
        raise _err_unknown(f)
    if result.kind not in KINDS:
        raise TournamentError("unknown_kind", f"tipo de resultado desconhecido {result.kind!r}",
                              f"unknown result kind {result.kind!r}")
    k = f.frames_to_win
    if result.kind == "double_walkover":
        return Result(None, (0, 0), "double_walkover")
    if result.winner not in players:
        raise TournamentError("invalid_result",
                              f"J{f.id}: o vencedor {result.winner!r} não está neste jogo",
                              f"M{f.id}: winner {result.winner!r} is not in this match")
    w = players.index(result.winner)
    if result.kind == "walkover":
        fr = [0, 0]
        fr[w] = k
        return Result(result.winner, (fr[0], fr[1]), "walkover")
    fw, fl = result.frames[w], result.frames[1 - w]
    ok = fl < k and (fw == k if result.kind == "frames" else fw <= k)
    if not ok:
        raise TournamentError(
            "invalid_result",
            f"J{f.id}: placar {result.frames[0]}×{result.frames[1]} impossível numa melhor de {2 * k - 1}",
            f"M{f.id}: score {result.frames[0]}-{result.frames[1]} impossible in a best of {2 * k - 1}")
    return result


class _Eval:
    """One pass over the fixtures in order. ``withdrawn``: entry ids out of the competition;
    ``frozen``: W.O.s decided by earlier withdrawals (``{match id: Result}``), kept as results."""

    def __init__(self, plan: Plan, results: Mapping, withdrawn: frozenset,
                 frozen: Mapping | None = None, strict: bool = True):
        self.strict = strict
        self.plan = plan
        self.results = results
        self.withdrawn = withdrawn
        self.frozen = frozen or {}
        self.ms: dict[int, MatchState] = {}
        self.standings: dict = {}
        self.positions: dict = {}
        self.new_withdrawn: set = set()   # (match id, entry) of each withdrawal result seen
        self.autos: dict = {}             # W.O.s this pass made for withdrawn players
        self.by_group = _group_index(plan)

    def resolve(self, s: Slot):
        if s.kind == "entry":
            return s.entry
        if s.kind == "empty":
            return NOBODY
        if s.kind in ("winner", "loser"):
            m = self.ms[s.match]
            if m.status not in DECIDED:
                return UNKNOWN
            return m.winner if s.kind == "winner" else m.loser
        pos = self.group_positions(s.stage, s.group)
        return pos[s.position - 1] if s.position - 1 < len(pos) else NOBODY

    def group_positions(self, stage: int, group: str) -> list:
        key = (stage, group)
        if key in self.positions:
            return self.positions[key]
        if key in self.plan.de_positions:
            self.positions[key] = [self.resolve(x) for x in self.plan.de_positions[key]]
            return self.positions[key]
        # round robin: known only once every match of the group is decided. Only matches of a
        # later stage ask, after the whole group has been evaluated, so the answer is cached.
        ms = [self.ms.get(i) for i in self.by_group[key]]
        if any(m is None or m.status not in DECIDED for m in ms):
            self.positions[key] = [UNKNOWN] * len(self.plan.groups[key])
        else:
            rows = self.table(stage, group)
            self.positions[key] = [r["entry"] for r in rows] + \
                [NOBODY] * (len(self.plan.groups[key]) - len(rows))
        return self.positions[key]

    def table(self, stage: int, group: str) -> list:
        key = (stage, group)
        if key not in self.standings:
            members = [self.resolve(s) for s in self.plan.groups[key]]
            ms = [self.ms[i] for i in self.by_group[key]]
            st = self.plan.competition.stages[stage]
            if key in self.plan.de_positions:
                pos = [self.resolve(x) for x in self.plan.de_positions[key]]
                self.standings[key] = de_standings(members, ms, pos, all(m.status in DECIDED for m in ms))
            else:
                self.standings[key] = group_standings(members, ms, st.tie_breaks, self.plan.lot)
        return self.standings[key]

    def run(self) -> None:
        for f in self.plan.fixtures:
            a, b = self.resolve(f.a), self.resolve(f.b)
            ph = [None if x is not UNKNOWN else s.placeholder() for x, s in ((a, f.a), (b, f.b))]
            players = [None if x is UNKNOWN else x for x in (a, b)]
            res = self.results.get(f.id)
            if a is UNKNOWN or b is UNKNOWN:
                if res is not None and self.strict:
                    raise _err_unknown(f)
                self.ms[f.id] = MatchState(f, players, ph, "waiting")
                continue
            if a is NOBODY or b is NOBODY:
                if res is not None and self.strict:
                    raise TournamentError("no_opponent", f"J{f.id}: não há adversário (isento)",
                                          f"M{f.id}: there is no opponent (bye)")
                status = "void" if a is b else "bye"
                self.ms[f.id] = MatchState(f, players, ph, status,
                                           winner=a if b is NOBODY else b, loser=NOBODY)
                continue
            if res is not None:
                r = validate_result(f, players, res)
                if r.kind == "withdrawal":
                    self.new_withdrawn.add((f.id, players[1 - players.index(r.winner)]))
                st = "walkover" if r.kind in ("walkover", "double_walkover") else "finished"
                loser = None if r.winner is None else players[1 - players.index(r.winner)]
                self.ms[f.id] = MatchState(f, players, ph, st, r.winner, loser, r)
                continue
            r = self.frozen.get(f.id)
            if r is None:
                out = [p in self.withdrawn for p in players]
                if any(out):
                    if all(out):
                        r = Result(None, (0, 0), "double_walkover")
                    else:
                        r = validate_result(f, players, Result(players[out.index(False)],
                                                               kind="walkover"))
                    self.autos[f.id] = r
            if r is not None:
                loser = None if r.winner is None else players[1 - players.index(r.winner)]
                self.ms[f.id] = MatchState(f, players, ph, "walkover", r.winner, loser, r, auto=True)
                continue
            self.ms[f.id] = MatchState(f, players, ph, "ready")


def _match_key(mid):
    """A match id from JSON may arrive as a string of digits (an object key)."""
    return int(mid) if isinstance(mid, str) and mid.isdigit() else mid


def evaluate(plan: Plan, results: Mapping | None = None, withdrawn: Iterable = ()) -> State:
    """The :class:`State` the ``results`` (``{match id: Result | dict}``) imply.

    withdrawn: entry ids who left the competition (every match of theirs without a result
    becomes a W.O., ``auto``); a ``withdrawal`` result withdraws its loser from the rest of his
    matches. Withdrawals apply in the order they happened (the results' ``at``, else match
    order) and the W.O.s each makes stand, so a player keeps
    a W.O. he won before withdrawing himself. Raises TournamentError for a result on a match whose
    players are not known (``players_unknown``), on a bye (``no_opponent``), or invalid
    (``invalid_result``, ``unknown_kind``); an unknown match id is ``unknown_match``.
    """
    results = {_match_key(mid): Result.from_dict(r) for mid, r in (results or {}).items()}
    for mid in results:
        plan.fixture(mid)
    out = set(withdrawn)
    frozen: dict = {}
    if any(r.kind == "withdrawal" for r in results.values()):
        # Withdrawals apply one at a time, in the order they happened (``at``, else match
        # order): each turns the player's open matches
        # into W.O.s, which are then kept as results, so a later withdrawal never rewrites a
        # W.O. its player already won (and a W.O. may decide a group, letting later results in).
        applied: set = set()
        while True:
            ev = _Eval(plan, results, frozenset(out), frozen, strict=False)
            ev.run()
            frozen.update(ev.autos)
            todo = sorted((w for w in ev.new_withdrawn if w[0] not in applied),
                          key=lambda w: (results[w[0]].at is None, results[w[0]].at or 0, w[0]))
            if not todo:
                break
            applied.add(todo[0][0])
            out.add(todo[0][1])
    ev = _Eval(plan, results, frozenset(out), frozen)
    ev.run()
    for key in plan.groups:
        ev.table(*key)
        ev.group_positions(*key)
    state = State(plan, ev.ms, ev.standings,
                  {k: [None if x is UNKNOWN else x for x in v] for k, v in
                   ((k, ev.group_positions(*k)) for k in plan.groups)},
                  withdrawn=frozenset(out))
    state.complete = all(m.status in DECIDED for m in ev.ms.values())
    state.placings = placings(plan, ev)
    firsts = [e for e, p in state.placings.items() if p == 1]
    state.champion = firsts[0] if len(firsts) == 1 else None
    return state


def _group_index(plan: Plan) -> dict:
    """``{(stage, group): [match ids]}`` for the plan (kept in ``plan.memo``)."""
    idx = plan.memo.get("groups")
    if idx is None:
        idx = {k: [] for k in plan.groups}
        for f in plan.fixtures:
            if f.group is not None:
                idx.setdefault((f.stage, f.group), []).append(f.id)
        plan.memo["groups"] = idx
    return idx


# --- standings ---------------------------------------------------------------------------------

def _row(entry) -> dict:
    return {"entry": entry, "played": 0, "wins": 0, "losses": 0, "walkovers": 0,
            "frames_won": 0, "frames_lost": 0, "frame_difference": 0, "points_won": 0,
            "points_lost": 0, "points_difference": 0, "highest_break": 0,
            "position": None, "tie_break": None}


def _tally(members: list, ms: list) -> dict:
    rows = {e: _row(e) for e in members if e is not NOBODY and e is not UNKNOWN}
    for m in ms:
        if m.status not in ("finished", "walkover") or m.result is None:
            continue
        r = m.result
        for side, e in enumerate(m.players):
            if e not in rows:
                continue
            row = rows[e]
            row["played"] += 1
            if r.winner == e:
                row["wins"] += 1
            else:
                row["losses"] += 1
                if r.kind in ("walkover", "double_walkover"):
                    row["walkovers"] += 1
            row["frames_won"] += r.frames[side]
            row["frames_lost"] += r.frames[1 - side]
            row["points_won"] += r.points[side]
            row["points_lost"] += r.points[1 - side]
            row["highest_break"] = max(row["highest_break"], r.highest_break[side])
    for row in rows.values():
        row["frame_difference"] = row["frames_won"] - row["frames_lost"]
        row["points_difference"] = row["points_won"] - row["points_lost"]
    return rows


def group_standings(members: list, ms: list, tie_breaks=None, lot=()) -> list[dict]:
    """A round-robin group's table from its decided matches.

    members: entry ids of the group (``None``/unknown ones are left out); ms: its
    :class:`MatchState` s; tie_breaks: ordered criteria (``wins``, ``head_to_head`` (wins among
    the tied only), ``frame_difference``, ``frames_won``,
    ``points_difference``, ``points_won``, ``highest_break``, ``lot``); the first is the ranking
    itself, the rest break its ties in order, starting again for any smaller tie they leave
    (so head-to-head is re-applied among fewer players). lot: entry ids in lot order (the draw seed's lot).

    Rows (best first): ``{"entry", "position", "played", "wins", "losses", "walkovers",
    "frames_won", "frames_lost", "frame_difference", "points_won", "points_lost",
    "points_difference", "highest_break", "tie_break"}``; ``tie_break`` is ``None`` or
    ``{"code", "pt": "desempate: confronto direto", "en": "tie-break: head-to-head"}`` for a
    row whose place among equals the named criterion decided. Rows still level after every
    criterion share a position.
    """
    from .spec import DEFAULT_TIE_BREAKS
    crits = list(tie_breaks or DEFAULT_TIE_BREAKS)
    rows = _tally(members, ms)
    lot_rank = {e: i for i, e in enumerate(lot)}
    decided = [m for m in ms if m.status in ("finished", "walkover") and m.result]

    def key(c: str, tied: list) -> dict:
        if c == "head_to_head":
            ts = set(tied)
            w = {e: 0 for e in tied}
            for m in decided:
                if m.players[0] in ts and m.players[1] in ts and m.winner in ts:
                    w[m.winner] += 1
            return w
        if c == "lot":
            return {e: -lot_rank.get(e, len(lot_rank)) for e in tied}
        return {e: rows[e][c] for e in tied}

    ordered: list[tuple[list, str | None]] = []  # blocks of equal entries, reason

    def order(tied: list, cs: list, reason: str | None, top: bool) -> None:
        if len(tied) == 1:
            ordered.append((tied, None if top else reason))
            return
        if not cs:
            ordered.append((tied, None))
            return
        c = cs[0]
        k = key(c, tied)
        vals = sorted(set(k.values()), reverse=True)
        if len(vals) == 1:
            order(tied, cs[1:], reason, top)
            return
        for v in vals:
            part = [e for e in tied if k[e] == v]
            # a smaller tie starts the tie-breaks again: head-to-head among fewer players
            # may now separate them
            order(part, tbs, c, False)

    tbs = crits[1:]
    start = sorted(rows, key=repr)
    # the first criterion ranks; a reason is shown only for what the later ones decided
    c0 = crits[0]
    k0 = key(c0, start)
    for v in sorted(set(k0.values()), reverse=True):
        part = [e for e in start if k0[e] == v]
        order(part, tbs, None, True)
    out = []
    pos = 1
    for block, reason in ordered:
        for e in sorted(block, key=repr):
            row = rows[e]
            row["position"] = pos
            row["tie_break"] = tie_break_reason(reason) if reason else None
            out.append(row)
        pos += len(block)
    return out


def de_standings(members: list, ms: list, positions: list, over: bool = False) -> list[dict]:
    """A double-elimination group's table: rows as :func:`group_standings`, ordered by the
    places the bracket gives (``positions``: entry of 1st…4th, unknown/``None`` while open);
    rows whose place is not known yet come last with ``position`` ``None``. Once the group is
    ``over`` (every match decided), the players no place reached (both absent from a double
    W.O., which sends neither on) share the place after the last one given."""
    rows = _tally(members, ms)
    out = []
    for i, e in enumerate(positions):
        if e is not UNKNOWN and e is not NOBODY and e in rows:
            rows[e]["position"] = i + 1
            out.append(rows.pop(e))
    rest = sorted(rows.values(), key=lambda r: (-r["wins"], repr(r["entry"])))
    if over:
        for r in rest:
            r["position"] = len(out) + 1
    return out + rest


# --- placings ----------------------------------------------------------------------------------

def placings(plan: Plan, ev: _Eval) -> dict:
    """``{entry id: final placing}`` as far as known: the last stage places its players (knockout:
    1 champion, 2 runner-up, 3/4 by the third-place match or 3 shared, the losers of a round of
    ``n`` lines share ``n/2 + 1``, both players of a double W.O. too; single group: its
    positions); a player out in an earlier group stage is placed after everyone who went on, by
    his group position (shared across groups). Once every match is decided, anyone still without
    a place (out by a double W.O. in a double-elimination group) shares the last place."""
    comp = plan.competition
    out: dict = {}
    last = len(comp.stages) - 1
    st = comp.stages[last]
    ko = [ev.ms[f.id] for f in plan.fixtures if f.stage == last]
    if st.format == "knockout":
        final = next(m for m in reversed(ko) if m.fixture.round_name == "final") if ko else None
        # lines per round: the first round's name tells the bracket size
        n_entr = len(plan.entrants[last])
        if n_entr == 1 or final is None:
            e = ev.resolve(plan.entrants[last][0])
            if e is not UNKNOWN and e is not NOBODY:
                out[e] = 1
        for m in ko:
            if m.status not in DECIDED:
                continue
            rn = m.fixture.round_name
            if rn == "final":
                if m.winner is not NOBODY:
                    out[m.winner] = 1
                if m.loser is not NOBODY:
                    out[m.loser] = 2
                elif m.status == "walkover" and m.winner is NOBODY:
                    for e in m.players:  # both absent from the final: no champion, both 2nd
                        out[e] = 2
            elif rn == "third_place":
                if m.winner is not NOBODY:
                    out[m.winner] = 3
                if m.loser is not NOBODY:
                    out[m.loser] = 4
            elif rn == "semi_final" and st.third_place:
                continue
            else:
                lines = 4 if rn == "semi_final" else 8 if rn == "quarter_final" else int(rn.rsplit("_", 1)[1])
                if m.loser is not NOBODY:
                    out[m.loser] = lines // 2 + 1
                elif m.status == "walkover" and m.winner is NOBODY:
                    for e in m.players:  # both absent: both out in this round
                        out[e] = lines // 2 + 1
    else:
        key = (last, "A")
        pos = ev.group_positions(*key)
        for i, e in enumerate(pos):
            if e is not UNKNOWN and e is not NOBODY:
                out[e] = i + 1
    # earlier stages: eliminated by group position
    for si in range(last - 1, -1, -1):
        stg = comp.stages[si]
        # everyone in later stages is ahead; count those who went on from this stage
        ahead = len(plan.entrants[si + 1]) + sum(
            len(plan.entrants[j]) - comp.stages[j - 1].groups * comp.stages[j - 1].qualify
            for j in range(si + 2, last + 1))
        keys = [k for k in plan.groups if k[0] == si]
        place = ahead + 1
        maxlen = max(len(plan.groups[k]) for k in keys)
        for p in range(stg.qualify + 1, maxlen + 1):
            got = []
            for k in keys:
                pos = ev.group_positions(*k)
                if p - 1 < len(pos) and pos[p - 1] is not UNKNOWN and pos[p - 1] is not NOBODY:
                    got.append(pos[p - 1])
            for e in got:
                out[e] = place
            place += sum(1 for k in keys if p <= len(plan.groups[k]))
    if all(m.status in DECIDED for m in ev.ms.values()):
        # over: whoever no place reached (out by a double W.O. in a bracket) shares the last
        rest = [e.id for e in comp.entries if e.id not in out]
        for e in rest:
            out[e] = max(2, len(comp.entries) - len(rest) + 1)
    return out


# --- corrections -------------------------------------------------------------------------------

def dependents(plan: Plan, match_id: int) -> list[int]:
    """Ids of the matches a result of ``match_id`` feeds directly: those whose slot is its winner
    or loser, and (for a group match) those fed by a position of its group."""
    f = plan.fixture(match_id)
    out = []
    for g in plan.fixtures:
        for s in (g.a, g.b):
            if s.kind in ("winner", "loser") and s.match == match_id:
                out.append(g.id)
                break
            if (s.kind == "position" and f.group is not None and s.stage == f.stage
                    and s.group == f.group):
                out.append(g.id)
                break
    return out


def correction_blockers(plan: Plan, results: Mapping, match_id: int,
                        started: Iterable[int] = ()) -> list[int]:
    """The dependent matches (:func:`dependents`) that have started: with a result in ``results``
    or listed in ``started`` (in play). A correction of ``match_id`` is allowed iff empty."""
    st = set(started) | set(results)
    return [d for d in dependents(plan, match_id) if d in st]


def can_correct(plan: Plan, results: Mapping, match_id: int,
                started: Iterable[int] = ()) -> tuple[bool, dict | None]:
    """Whether the desk may correct ``match_id`` now, and why not: ``(True, None)`` or
    ``(False, {"code", "pt", "en"})`` (``not_finished``, ``correction_refused``), for greying
    out the button; :func:`check_correction` applies the same rule to a new result."""
    results = {_match_key(k): v for k, v in results.items()}
    try:
        _check_correctable(plan, results, match_id, started)
    except TournamentError as e:
        return False, {"code": e.code, "pt": e.pt, "en": e.en}
    return True, None


def _check_correctable(plan: Plan, results: Mapping, match_id: int, started) -> None:
    f = plan.fixture(match_id)
    if match_id not in results:
        raise TournamentError("not_finished", f"J{f.id} ainda não tem resultado para corrigir",
                              f"M{f.id} has no result to correct")
    blockers = correction_blockers(plan, results, match_id, started)
    if blockers:
        js = ", ".join(f"J{b}" for b in blockers)
        ms = ", ".join(f"M{b}" for b in blockers)
        raise TournamentError(
            "correction_refused",
            f"J{f.id} não pode ser corrigido: o jogo seguinte já começou ({js})",
            f"M{f.id} cannot be corrected: a match it feeds has started ({ms})")


def check_correction(plan: Plan, results: Mapping, match_id: int, new_result,
                     started: Iterable[int] = ()) -> dict:
    """Validate correcting the finished ``match_id`` to ``new_result``; return the new results
    mapping (the input is not changed).

    Raises TournamentError: ``not_finished`` (nothing to correct), ``correction_refused`` (a
    dependent match has started: J… named), or the errors of :func:`validate_result`.
    """
    results = {_match_key(k): v for k, v in results.items()}
    _check_correctable(plan, results, match_id, started)
    new = dict(results)
    new[match_id] = Result.from_dict(new_result)
    evaluate(plan, new)
    return new


def check_result(state: State, match_id: int, result) -> Result:
    """Validate a new result (or W.O.) for ``match_id`` against ``state``; return it normalised.

    Raises TournamentError: ``players_unknown`` (a player not known yet), ``no_opponent`` (a bye),
    ``already_finished`` (use :func:`check_correction`), and those of :func:`validate_result`.
    """
    match_id = _match_key(match_id)
    m = state.matches.get(match_id) or state.matches[state.plan.fixture(match_id).id]
    if m.status == "waiting":
        raise _err_unknown(m.fixture)
    if m.status in ("bye", "void"):
        raise TournamentError("no_opponent", f"J{m.id}: não há adversário (isento)",
                              f"M{m.id}: there is no opponent (bye)")
    if m.status in ("finished", "walkover") and not m.auto:
        raise TournamentError("already_finished", f"J{m.id} já terminou: use a correção",
                              f"M{m.id} is already over: use a correction")
    return validate_result(m.fixture, m.players, Result.from_dict(result))


def check_redraw(results: Mapping, started: Iterable[int] = ()) -> None:
    """Raise TournamentError ``draw_locked`` once any match has started (listed in ``started``)
    or has a result: the draw may be redone freely until then, never after (issue 17)."""
    if results or any(True for _ in started):
        raise TournamentError("draw_locked",
                              "O sorteio não pode ser refeito: o primeiro jogo já começou",
                              "The draw cannot be redone: the first match has started")
