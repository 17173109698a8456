"""Statistics of a match: a fold over its event log, asking the engine at every step.

Nothing here knows a rule. Each event is applied to a fresh :class:`sinuca.Match` in log order;
what a step did is read from the engine's answers (the state before and after it; ``Step.foul``:
penalty, offender, receiver, articles, sanction; ``Step.match_end``; the description). An
``undo`` takes back the
latest event still in effect; which events are in effect, and which undo took back which, the
engine says (:meth:`sinuca.Match.in_effect`, :meth:`sinuca.Match.undid`), so undone strokes count
for nothing. Breaks are the striker's ``break`` values: a visit's break is the
engine's ``break`` after its last pot.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime

import sinuca
from sinuca import FoulKind, Phase

from ..core.venue_rules import shown_state

from ..core.models import Event

BREAK_MARK = 20  # breaks of 20 or more are listed (the broadcasters' "20+ breaks")


@dataclass(frozen=True)
class LogEntry:
    """One stored event: its seq, the event, when it was entered, by whom, and its description."""

    seq: int
    event: dict
    at: datetime | None = None
    entered_by: str = ""
    description: dict | None = None


@dataclass
class Record:
    """One event still in effect, with the engine's state around it."""

    entry: LogEntry
    before: dict
    after: dict
    description: dict
    foul: dict | None = None  # the engine's Step.foul
    match_end: dict | None = None  # the engine's Step.match_end


@dataclass
class Break:
    """A visit that scored: who, in which frame, how many points, and its last pot's seq."""

    player: int
    frame: int
    points: int
    seq: int
    person: int | None = None  # doubles: the index, in side ``player``, of who made it


@dataclass
class Foul:
    """A foul in effect: who committed it, its kind and article, the penalty and its receiver."""

    seq: int
    at: datetime | None
    frame: int
    offender: int
    receiver: int
    kind: str
    article: str
    penalty: int
    retorno: bool
    description: dict
    free_ball: bool = False  # the foul left a snooker: a free ball for the receiver (Art. 36)
    person: int | None = None  # doubles: the offender's index in his side (contract section 11)


@dataclass
class Sanction:
    """A warning, disqualification or withdrawal (Art. 42, 43, 54, 55)."""

    seq: int
    at: datetime | None
    frame: int
    players: list[int]
    what: str  # "warning", "disqualification", "concede_match"
    article: str
    description: dict
    # doubles: who of each side in ``players`` was sanctioned (his index in the side), or None
    persons: list[int | None] | None = None


@dataclass
class FrameLine:
    """One frame: its scores, winner and how it ended (engine ``history``), and its worm: the
    scores after every stroke of the frame, starting at 0-0."""

    frame: int
    scores: list[int]
    winner: int | None
    ended_by: str | None
    worm: list[tuple[int, int]] = field(default_factory=list)
    high: list[int] = field(default_factory=lambda: [0, 0])  # each player's highest break
    fouls: list[int] = field(default_factory=lambda: [0, 0])  # fouls each player committed
    started: datetime | None = None  # the frame's first stroke in effect
    ended: datetime | None = None  # its last


@dataclass
class PlayerStats:
    """Per player and match."""

    name: str
    highest_break: int = 0
    breaks: list[int] = field(default_factory=list)  # every scoring visit, in order
    pots: int = 0
    reds_potted: int = 0
    colours_potted: int = 0
    fouls: dict[str, int] = field(default_factory=dict)  # kind -> count (committed)
    foul_points_given: int = 0
    points_from_fouls: int = 0  # penalties received from the opponent's fouls
    warnings: int = 0
    frames: int = 0

    @property
    def big_breaks(self) -> list[int]:
        """Breaks of ``BREAK_MARK`` points or more, highest first."""
        return sorted((b for b in self.breaks if b >= BREAK_MARK), reverse=True)

    @property
    def big_breaks_text(self) -> str:
        """The breaks of 20+ as one readable list ("39, 22"), "—" when there are none: run
        together with spaces they read as one number ("39 22")."""
        return ", ".join(map(str, self.big_breaks)) or "—"

    @property
    def fouls_total(self) -> int:
        return sum(self.fouls.values())

    @property
    def foul_kinds(self) -> list[dict]:
        """``[{"code", "count", "article", "pt", "en"}]`` by count, for tables."""
        return [{"code": k, "count": n, "article": FoulKind(k).article, **FoulKind(k).label}
                for k, n in sorted(self.fouls.items(), key=lambda kv: (-kv[1], kv[0]))]


@dataclass
class MatchStats:
    """Everything the match page, the TV between frames and the súmula show."""

    config: dict
    players: list[PlayerStats]
    frames: list[FrameLine]
    breaks: list[Break]
    fouls: list[Foul]
    sanctions: list[Sanction]
    records: list[Record]
    state: dict
    log: list[LogEntry]
    undone: dict[int, int] = field(default_factory=dict)
    """seq of an event taken back -> seq of the ``undo`` that took it back."""
    undid: dict[int, int] = field(default_factory=dict)
    """seq of an ``undo`` -> seq of the event it took back."""
    best_of: int = 1
    """The most frames the match can last (:attr:`sinuca.Match.best_of`, Art. 54.1)."""
    people: list[list[PlayerStats]] = field(default_factory=list)
    """Doubles (contract section 11): per side, per person, what that person did (breaks, pots,
    fouls committed, warnings); ``players`` stays the sides' totals. Empty for one player a side.
    A person's ``frames`` and ``points_from_fouls`` are left 0: they are the side's."""

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def log_by_seq(self, seq: int) -> LogEntry | None:
        """The stored event of ``seq`` (the log is in seq order, from 1, without gaps)."""
        i = seq - self.log[0].seq if self.log else -1
        if 0 <= i < len(self.log) and self.log[i].seq == seq:
            return self.log[i]
        return next((e for e in self.log if e.seq == seq), None)


def _close_visit(visit: list | None, breaks: list[Break]) -> None:
    if visit and visit[2] > 0:
        breaks.append(Break(player=visit[0], frame=visit[1], points=visit[2], seq=visit[3], person=visit[4]))


def compute(config: dict, log: list[LogEntry]) -> MatchStats:
    """Fold ``log`` (in seq order) under ``config``. Raises ``SinucaError`` for a log the engine
    refuses (a stored log never is)."""
    engine = sinuca.Match(config)
    records: list[Record | None] = []  # by log position; the engine says which are in effect
    for entry in log:
        before = engine.state()
        step = engine.apply(entry.event)
        records.append(None if step.event["type"] == "undo" else
                       Record(entry, before, step.state, entry.description or step.description,
                              step.foul, step.match_end))
    out = _summarise(engine.config, [records[i] for i in engine.in_effect()], engine.state(), log)
    # which undo took back which event: the engine's pairing (log position -> seq)
    seq = [e.seq for e in log]
    out.undone = {seq[e]: seq[u] for e, u in engine.undone().items()}
    out.undid = {seq[u]: seq[e] for u, e in engine.undid().items()}
    out.best_of = engine.best_of
    return out



def _summarise(config: dict, records: list[Record], state: dict, log: list[LogEntry]) -> MatchStats:
    names = list(config["players"])
    players = [PlayerStats(name=n) for n in names]
    people = [[PlayerStats(name=n) for n in side] for side in config.get("sides") or []]
    breaks: list[Break] = []
    fouls: list[Foul] = []
    sanctions: list[Sanction] = []
    worms: dict[int, list[tuple[int, int]]] = {}
    visit: list | None = None  # [player, frame, points, last seq]
    for r in records:
        ev, b, a = r.entry.event, r.before, r.after
        kind = ev["type"]
        frame = b["frame_number"]
        if kind == "pot":
            p = b["striker"]
            who = b.get("striker_player")  # doubles: the player at the table (section 11)
            # The points the engine added to the striker's score on this pot extend his break
            # (read from the scores: a pot that ties the frame re-racks for the decider, and the
            # engine's "break" is 0 again after it).
            gained = a["scores"][p] - b["scores"][p]
            if visit and visit[0] == p and visit[1] == frame and b["break"] == visit[2] and visit[4] == who:
                visit[2], visit[3] = visit[2] + gained, r.entry.seq
            else:
                _close_visit(visit, breaks)
                visit = [p, frame, b["break"] + gained, r.entry.seq, who]
            balls = ev["balls"]
            for ps in [players[p]] + ([people[p][who]] if people and who is not None else []):
                ps.pots += len(balls)
                ps.reds_potted += sum(1 for x in balls if x == 1)
                ps.colours_potted += sum(1 for x in balls if x != 1)
        else:
            _close_visit(visit, breaks)
            visit = None
        if r.foul is not None:
            f = r.foul
            by = [players[f["offender"]]]
            if people and f.get("person") is not None:
                by.append(people[f["offender"]][f["person"]])
            for ps in by:
                ps.fouls[f["kind"]] = ps.fouls.get(f["kind"], 0) + 1
                ps.foul_points_given += f["penalty"]
            players[f["receiver"]].points_from_fouls += f["penalty"]
            fouls.append(Foul(r.entry.seq, r.entry.at, frame, f["offender"], f["receiver"], f["kind"],
                              f["article"], f["penalty"], f["retorno"], r.description,
                              ev.get("snooker") is True, f.get("person")))
            if f["sanction"] is not None:
                sanctions.append(Sanction(r.entry.seq, r.entry.at, frame, [f["offender"]],
                                          f["sanction"], f["sanction_article"], r.description,
                                          [f["person"]] if f.get("person") is not None else None))
        elif kind in ("disqualify", "concede_match") and r.match_end is not None:
            # The referee's disqualification (Art. 54.4, 55) or a withdrawal (Art. 54.2).
            # In doubles the referee may name who of a side he disqualified (event ``persons``).
            named = dict(zip(ev["players"], ev["persons"])) if kind == "disqualify" and "persons" in ev else {}
            losers = r.match_end["losers"]
            sanctions.append(Sanction(r.entry.seq, r.entry.at, frame, losers,
                                      "disqualification" if kind == "disqualify" else "concede_match",
                                      r.match_end["article"], r.description,
                                      [named.get(p) for p in losers] if named and people else None))
        if kind != "lot":
            worm = worms.setdefault(a["frame_number"] if kind == "next_frame" else frame, [(0, 0)])
            if kind != "next_frame":
                worm.append(tuple(a["scores"]))
    _close_visit(visit, breaks)
    for br in breaks:
        players[br.player].breaks.append(br.points)
        if people and br.person is not None:
            people[br.player][br.person].breaks.append(br.points)
    for i, p in enumerate(players):
        p.highest_break = max(p.breaks, default=0)
        p.warnings = state["warnings"][i]
        p.frames = state["frames"][i]
    for i, side in enumerate(people):
        for k, p in enumerate(side):
            p.highest_break = max(p.breaks, default=0)
            p.warnings = state["player_warnings"][i][k]
    frames = [FrameLine(h["frame"], list(h["scores"]), h["winner"], h["ended_by"], worms.get(h["frame"], [(0, 0)]))
              for h in state["history"]]
    done = {h["frame"] for h in state["history"]}
    if state["frame_number"] not in done and (records or state["phase"] != Phase.LOT):
        winner = state["frame_winner"] if state["phase"] in (Phase.FRAME_OVER, Phase.MATCH_OVER) else None
        frames.append(FrameLine(state["frame_number"], list(state["scores"]), winner, None,
                                worms.get(state["frame_number"], [(0, 0)])))
    by_frame = {f.frame: f for f in frames}
    for br in breaks:
        if br.frame in by_frame:
            line = by_frame[br.frame]
            line.high[br.player] = max(line.high[br.player], br.points)
    for fl in fouls:
        if fl.frame in by_frame:
            by_frame[fl.frame].fouls[fl.offender] += 1
    for r in records:
        line = by_frame.get(r.before["frame_number"])
        if line is not None and r.entry.event["type"] not in ("lot", "next_frame") and r.entry.at:
            line.started = line.started or r.entry.at
            line.ended = r.entry.at
    return MatchStats(config, players, frames, breaks, fouls, sanctions, records, state, log, people=people)


def log_of(match) -> list[LogEntry]:
    """The stored log of a ``Match`` row as :class:`LogEntry` items."""
    return [LogEntry(e.seq, e.event, e.at, e.entered_by, e.description)
            for e in Event.objects.filter(match_id=match.pk).order_by("seq")]


_cache: OrderedDict[tuple[int, int], MatchStats] = OrderedDict()
_cache_lock = threading.Lock()
CACHE_SIZE = 64


def for_match(match) -> MatchStats:
    """Statistics of a ``Match`` row at its current seq, cached per (match, seq, W.O., correction,
    names) in this process:
    the TV renders them once per language on the same change."""
    # the names too: a player renamed at the desk changes what is shown without a new seq
    key = (match.pk, match.seq, bool(match.walkover), repr(match.correction), tuple(match.player_names))
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    log = log_of(match)
    key = (match.pk, log[-1].seq if log else 0, bool(match.walkover), repr(match.correction),
           tuple(match.player_names))
    result = compute(match.config, log)
    if match.walkover or match.correction:
        # a W.O. or a correction is the desk's result, beside the engine's fold (core.operations)
        result.state = shown_state(match, result.state)
    with _cache_lock:
        _cache[key] = result
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return result
