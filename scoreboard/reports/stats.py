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
from dataclasses import dataclass, field
from datetime import datetime

import sinuca
from sinuca import FoulKind, Phase

from ..core import memory
from ..core.bounded import ByteLRU
from ..core.models import Event
from ..core.venue_rules import shown_state

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
    state: dict
    seq: int = 0
    """The seq of the last event folded (0: none)."""
    log: list[LogEntry] = field(default_factory=list)
    """The stored log, when asked for (:func:`compute`, :func:`with_log`); empty in the
    statistics a process keeps (:func:`for_match`), which never hold a copy of the log."""
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


class Fold:
    """The statistics of one match's log, folded event by event: :meth:`add` the next stored
    event, :meth:`stats` what has been folded so far.

    What each event in effect added (a pot's balls, a foul's points, a worm's point, the break it
    extended) is kept as a small journal entry, so an ``undo`` (which takes back the latest event
    still in effect, contract section 4; the engine pairs them) takes exactly that away again:
    the statistics at seq n+1 are those at n and one step, never a second fold of the log, and
    neither the log nor the engine's states are kept (``nbytes`` estimates what is)."""

    # bytes one folded event keeps, about: its journal entry, the engine's snapshot for undo, a
    # worm point; a foul or sanction kept adds its record and description (measured with
    # tracemalloc on simulated matches, tests/web/test_reports_stats_fold.py)
    EVENT_BYTES = 700
    FOUL_BYTES = 1200
    BASE_BYTES = 16_000

    def __init__(self, config: dict) -> None:
        self.engine = sinuca.Match(config)
        self.config = self.engine.config
        self.seq = 0  # the seq of the last event folded (0: none)
        self.count = 0  # events folded, undos included
        self._state = self.engine.state()
        names = list(self.config["players"])
        self.players = [PlayerStats(name=n) for n in names]
        self.people = [[PlayerStats(name=n) for n in side] for side in self.config.get("sides") or []]
        self.breaks: list[Break] = []
        self.fouls: list[Foul] = []
        self.sanctions: list[Sanction] = []
        self.worms: dict[int, list[tuple[int, int]]] = {}
        self.times: dict[int, list] = {}  # frame -> [first stroke's at, last stroke's at]
        self.visit: tuple | None = None  # the open visit: (player, frame, points, last seq, person)
        self.undone: dict[int, int] = {}
        self.undid: dict[int, int] = {}
        self._journal: list[tuple] = []  # one per event in effect, oldest first
        self.nbytes = self.BASE_BYTES

    def add(self, entry: LogEntry) -> None:
        """Fold the next stored event. Raises ``SinucaError`` for one the engine refuses (a stored
        log never has one); the fold is unchanged then."""
        step = self.engine.apply(entry.event)
        b, a = self._state, step.state
        self._state = a
        self.seq = entry.seq
        self.count += 1
        if step.event["type"] == "undo":
            taken = self._journal.pop()
            self._take_back(taken)
            self.undid[entry.seq] = taken[0]
            self.undone[taken[0]] = entry.seq
            self.nbytes += 64
            return
        self._journal.append(self._put(entry, step, b, a))

    def _put(self, entry: LogEntry, step, b: dict, a: dict) -> tuple:
        ev = entry.event
        kind = ev["type"]
        frame = b["frame_number"]
        n_breaks, n_fouls, n_sanctions, visit = len(self.breaks), len(self.fouls), len(self.sanctions), self.visit
        pot = foul = None
        description = None
        if kind == "pot":
            p = b["striker"]
            who = b.get("striker_player")  # doubles: the player at the table (section 11)
            # The points the engine added to the striker's score on this pot extend his break
            # (read from the scores: a pot that ties the frame re-racks for the decider, and the
            # engine's "break" is 0 again after it).
            gained = a["scores"][p] - b["scores"][p]
            v = self.visit
            if v and v[0] == p and v[1] == frame and b["break"] == v[2] and v[4] == who:
                self.visit = (p, frame, v[2] + gained, entry.seq, who)
            else:
                self._close_visit()
                self.visit = (p, frame, b["break"] + gained, entry.seq, who)
            balls = ev["balls"]
            reds = sum(1 for x in balls if x == 1)
            pot = (p, who, len(balls), reds)
            self._count_pot(pot, 1)
        else:
            self._close_visit()
            self.visit = None
        f = step.foul
        if f is not None:
            description = entry.description or step.description
            foul = (f["offender"], f.get("person"), f["kind"], f["penalty"], f["receiver"])
            self._count_foul(foul, 1)
            self.fouls.append(Foul(entry.seq, entry.at, frame, f["offender"], f["receiver"], f["kind"],
                                   f["article"], f["penalty"], f["retorno"], description,
                                   ev.get("snooker") is True, f.get("person")))
            if f["sanction"] is not None:
                self.sanctions.append(Sanction(entry.seq, entry.at, frame, [f["offender"]],
                                               f["sanction"], f["sanction_article"], description,
                                               [f["person"]] if f.get("person") is not None else None))
        elif kind in ("disqualify", "concede_match") and step.match_end is not None:
            # The referee's disqualification (Art. 54.4, 55) or a withdrawal (Art. 54.2).
            # In doubles the referee may name who of a side he disqualified (event ``persons``).
            description = entry.description or step.description
            end = step.match_end
            named = dict(zip(ev["players"], ev["persons"])) if kind == "disqualify" and "persons" in ev else {}
            losers = end["losers"]
            self.sanctions.append(Sanction(entry.seq, entry.at, frame, losers,
                                           "disqualification" if kind == "disqualify" else "concede_match",
                                           end["article"], description,
                                           [named.get(p) for p in losers] if named and self.people else None))
        worm_frame = worm_new = None
        if kind != "lot":
            worm_frame = a["frame_number"] if kind == "next_frame" else frame
            worm_new = worm_frame not in self.worms
            worm = self.worms.setdefault(worm_frame, [(0, 0)])
            if kind != "next_frame":
                worm.append(tuple(a["scores"]))
        times = None
        if kind not in ("lot", "next_frame") and entry.at:
            line = self.times.get(frame)
            times = (frame, None if line is None else line[1])
            if line is None:
                self.times[frame] = [entry.at, entry.at]
            else:
                line[1] = entry.at
        self.nbytes += self.EVENT_BYTES + (self.FOUL_BYTES if description is not None else 0)
        return (entry.seq, visit, n_breaks, n_fouls, n_sanctions, pot, foul, worm_frame, worm_new,
                kind != "next_frame", times, description is not None)

    def _take_back(self, j: tuple) -> None:
        (_seq, visit, n_breaks, n_fouls, n_sanctions, pot, foul, worm_frame, worm_new,
         appended, times, described) = j
        self.visit = visit
        del self.breaks[n_breaks:], self.fouls[n_fouls:], self.sanctions[n_sanctions:]
        if pot is not None:
            self._count_pot(pot, -1)
        if foul is not None:
            self._count_foul(foul, -1)
        if worm_frame is not None:
            if worm_new:
                del self.worms[worm_frame]
            elif appended:
                self.worms[worm_frame].pop()
        if times is not None:
            frame, ended = times
            if ended is None:
                del self.times[frame]
            else:
                self.times[frame][1] = ended
        self.nbytes -= self.EVENT_BYTES + (self.FOUL_BYTES if described else 0)

    def _close_visit(self) -> None:
        v = self.visit
        if v and v[2] > 0:
            self.breaks.append(Break(player=v[0], frame=v[1], points=v[2], seq=v[3], person=v[4]))

    def _count_pot(self, pot: tuple, sign: int) -> None:
        p, who, n, reds = pot
        for ps in [self.players[p]] + ([self.people[p][who]] if self.people and who is not None else []):
            ps.pots += sign * n
            ps.reds_potted += sign * reds
            ps.colours_potted += sign * (n - reds)

    def _count_foul(self, foul: tuple, sign: int) -> None:
        offender, person, kind, penalty, receiver = foul
        by = [self.players[offender]]
        if self.people and person is not None:
            by.append(self.people[offender][person])
        for ps in by:
            left = ps.fouls.get(kind, 0) + sign
            if left:
                ps.fouls[kind] = left
            else:
                del ps.fouls[kind]
            ps.foul_points_given += sign * penalty
        self.players[receiver].points_from_fouls += sign * penalty

    def stats(self, log: list[LogEntry] | None = None) -> MatchStats:
        """The statistics of what has been folded, as new objects (later :meth:`add` calls do not
        change them); ``log``, when given, is the stored log they are of (the súmula lists it)."""
        state = self._state
        players = [_counted(p) for p in self.players]
        people = [[_counted(p) for p in side] for side in self.people]
        breaks = list(self.breaks)
        v = self.visit
        if v and v[2] > 0:
            breaks.append(Break(player=v[0], frame=v[1], points=v[2], seq=v[3], person=v[4]))
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
        frames = [FrameLine(h["frame"], list(h["scores"]), h["winner"], h["ended_by"],
                            list(self.worms.get(h["frame"], [(0, 0)])))
                  for h in state["history"]]
        done = {h["frame"] for h in state["history"]}
        if state["frame_number"] not in done and (self._journal or state["phase"] != Phase.LOT):
            winner = state["frame_winner"] if state["phase"] in (Phase.FRAME_OVER, Phase.MATCH_OVER) else None
            frames.append(FrameLine(state["frame_number"], list(state["scores"]), winner, None,
                                    list(self.worms.get(state["frame_number"], [(0, 0)]))))
        by_frame = {f.frame: f for f in frames}
        for br in breaks:
            if br.frame in by_frame:
                line = by_frame[br.frame]
                line.high[br.player] = max(line.high[br.player], br.points)
        fouls = list(self.fouls)
        for fl in fouls:
            if fl.frame in by_frame:
                by_frame[fl.frame].fouls[fl.offender] += 1
        for frame, (started, ended) in self.times.items():
            if frame in by_frame:
                by_frame[frame].started, by_frame[frame].ended = started, ended
        return MatchStats(self.config, players, frames, breaks, fouls, list(self.sanctions),
                          self.engine.state(), self.seq, list(log) if log is not None else [],
                          undone=dict(self.undone), undid=dict(self.undid),
                          best_of=self.engine.best_of, people=people)


def _counted(p: PlayerStats) -> PlayerStats:
    """A player's running counts as a new :class:`PlayerStats` (breaks and totals left to fill)."""
    return PlayerStats(name=p.name, pots=p.pots, reds_potted=p.reds_potted, colours_potted=p.colours_potted,
                       fouls=dict(p.fouls), foul_points_given=p.foul_points_given,
                       points_from_fouls=p.points_from_fouls)


def compute(config: dict, log: list[LogEntry]) -> MatchStats:
    """Fold ``log`` (in seq order) under ``config``; the statistics carry ``log``. Raises
    ``SinucaError`` for a log the engine refuses (a stored log never is)."""
    fold = Fold(config)
    for entry in log:
        fold.add(entry)
    return fold.stats(log)


def log_of(match, after: int = 0, upto: int | None = None) -> list[LogEntry]:
    """The stored log of a ``Match`` row as :class:`LogEntry` items: the events after seq
    ``after`` and up to ``upto`` (None: the newest)."""
    rows = Event.objects.filter(match_id=match.pk, seq__gt=after)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    return [LogEntry(e.seq, e.event, e.at, e.entered_by, e.description) for e in rows.order_by("seq")]


def _keep_bytes() -> int:
    from django.conf import settings

    return int(getattr(settings, "STATS_CACHE_BYTES", 32 * 1024 * 1024))


class _Kept:
    """One match's fold in this process, what it was made from, and its latest statistics."""

    __slots__ = ("born", "config", "fold", "lock", "shown")

    def __init__(self, born, config: dict) -> None:
        self.born = born
        self.config = config
        self.fold = Fold(config)
        self.lock = threading.Lock()
        self.shown: tuple[tuple, MatchStats] | None = None  # (key, statistics) last given

    @property
    def nbytes(self) -> int:
        # the statistics beside the fold: their worms and fouls, about a fold's worth again
        return self.fold.nbytes * (2 if self.shown is not None else 1)


_cache: ByteLRU[_Kept] = ByteLRU(_keep_bytes)
memory.remembered(_cache.clear)
"""match pk -> its fold and the statistics last drawn from it, in this process, at most
``settings.STATS_CACHE_BYTES`` (each fold's ``nbytes``, plus the statistics kept beside it)."""


def for_match(match) -> MatchStats:
    """Statistics of a ``Match`` row at its seq (``match.seq`` as read; a later one if this
    process has folded further already), shown as the desk left it (W.O., correction).

    Each process keeps one :class:`Fold` per match and brings it up to date with the events
    stored since (one query for those rows only): a phone asking at every new seq costs a step,
    not a fold of the whole log, and a process keeps at most ``STATS_CACHE_BYTES`` of folds
    whatever the number of matches and seqs. Statistics asked for again at the same seq (the TV
    in each language) are the same object. They never carry the log (:func:`with_log`)."""
    kept = _cache.get(match.pk)
    if kept is None or kept.born != match.created_at or kept.config != match.config:
        kept = _Kept(match.created_at, match.config)
    if kept.fold.seq < match.seq:
        # read outside the fold's lock: a wait for it never holds a database connection
        rows = log_of(match, after=kept.fold.seq, upto=match.seq)
        with kept.lock:
            fold = kept.fold
            try:
                for entry in rows:
                    if entry.seq == fold.seq + 1:
                        fold.add(entry)
            except sinuca.SinucaError:
                kept = _Kept(match.created_at, match.config)  # the log decides: fold it anew
                for entry in log_of(match, upto=match.seq):
                    kept.fold.add(entry)
    with kept.lock:
        fold = kept.fold
        key = (fold.seq, bool(match.walkover), repr(match.correction), tuple(match.player_names))
        if kept.shown is not None and kept.shown[0] == key:
            result = kept.shown[1]
        else:
            result = fold.stats()
            if match.walkover or match.correction:
                # a W.O. or a correction is the desk's result, beside the engine's fold (core.operations)
                result.state = shown_state(match, result.state)
            kept.shown = (key, result)
    if _cache.get(match.pk) is kept:
        _cache.resize(match.pk, kept, kept.nbytes)
    else:
        _cache.put(match.pk, kept, kept.nbytes)
    return result


def with_log(match, st: MatchStats) -> MatchStats:
    """``st`` with the stored log it is of (its events up to ``st.seq``), read now and kept by
    nobody: what the súmula lists event by event."""
    import dataclasses

    return dataclasses.replace(st, log=log_of(match, upto=st.seq))
