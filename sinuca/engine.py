"""The CBBS 2008 rules engine: a match folded event by event.

A :class:`Match` holds the configuration (``docs/contract.md`` section 2), the current position
and a stack of earlier positions, so that ``undo`` is an O(1) pop (the python-chess way: every
``apply`` keeps a small immutable snapshot; nothing is recomputed). Events are the contract's
section 3 dicts; the state is section 7's dict. A rejected event raises a :class:`SinucaError`
and changes nothing. The rules the handlers share live in :mod:`sinuca.position`, one function
per article.

>>> m = Match({"players": ["Ana", "Bia"], "first_breaker": 0})
>>> m.apply({"type": "pot", "balls": [1]}).state["ball_on"]
[2, 3, 4, 5, 6, 7]
>>> m.state()["points_remaining"]
146
"""
from __future__ import annotations

from typing import Any

from .config import initial, is_int, normalize_config
from .describe import describe, frame_end_sentence, match_end_sentence
from .errors import SinucaError, error
from .messages import texts
from .position import (DECISION, FRAME_OVER, LOT, MATCH_OVER, PLAY, Pending, State, add, ball_on,
                       black_potted, decision_options, default_order, end_frame, end_match, end_visit,
                       foul_with_only_seven, free_ball_choices, leader, new_frame, only_seven, penalty,
                       player_due, public, retorno_refusal, score_pot, set_due, six_ends_frame, turn,
                       warn_or_disqualify)
from .vocab import Choice, FoulGroup, FoulKind, FrameEnd, MatchResult, Sanction, TableWarning

__all__ = ["EVENT_TYPES", "Match", "Step", "normalize_config"]

STALEMATE = TableWarning.STALEMATE
LAST_CHANCE = TableWarning.AGGRAVATED_LAST_CHANCE
DISCIPLINARY = FoulGroup.DISCIPLINARY
RETORNO = Choice.RETORNO

_EVENT_FIELDS = {
    "lot": frozenset({"player"}),
    "pot": frozenset({"balls", "free_ball", "nominated"}),
    "no_pot": frozenset({"free_ball", "nominated", "safety"}),
    "foul": frozenset({"ball", "potted", "kind", "retorno", "snooker", "aggravated", "free_ball",
                       "nominated", "player", "grave", "person"}),
    "decision": frozenset({"choice"}),
    "stalemate_warning": frozenset(),
    "restart_frame": frozenset(),
    "concede": frozenset({"player"}),
    "next_frame": frozenset(),
    "concede_match": frozenset({"player"}),
    "disqualify": frozenset({"players", "persons"}),
    "undo": frozenset(),
    "order": frozenset({"order"}),
}
EVENT_TYPES = tuple(_EVENT_FIELDS)
"""Every event type of the contract's section 3."""

# The article that says when each event can happen, cited by wrong_phase.
_EVENT_ARTICLE = {"lot": "17, 18", "pot": "11", "no_pot": "11", "foul": "35", "decision": "25.2, 35",
                  "stalemate_warning": "53", "restart_frame": "53.3", "concede": "50.2",
                  "next_frame": "16, 17", "concede_match": "54.2", "disqualify": "54.4", "order": "1"}
_FOUL_KINDS = {k.value: k for k in FoulKind}
_CHOICES = {c.value: c for c in Choice}


# ---------------------------------------------------------------------------------------------
# Event field checks

def _opt_ball(ev: dict, key: str, lo: int = 1) -> int | None:
    v = ev.get(key)
    if v is None:
        return None
    if not is_int(v) or not lo <= v <= 7:
        raise error("invalid_event.ball", field=key, lowest=lo)
    return v


def _opt_bool(ev: dict, key: str) -> bool:
    v = ev.get(key, False)
    if v is None:
        return False
    if type(v) is not bool:
        raise error("invalid_event.bool", field=key)
    return v


def _player(ev: dict, key: str = "player", required: bool = True) -> int | None:
    v = ev.get(key)
    if v is None and not required:
        return None
    if not is_int(v) or v not in (0, 1):
        raise error("invalid_event.player", field=key)
    return v


def _ball_list(ev: dict, key: str, required: bool) -> list:
    v = ev.get(key)
    if v is None and not required:
        return []
    if not isinstance(v, list) or (required and not v) or not all(is_int(b) and 1 <= b <= 7 for b in v):
        raise error("invalid_event.balls_empty" if required else "invalid_event.balls", field=key)
    return v


def _foul_kind(ev: dict) -> FoulKind:
    kind = ev.get("kind")
    if kind is None:
        return FoulKind.OTHER
    found = _FOUL_KINDS.get(kind) if isinstance(kind, str) else None
    if found is None:
        raise error("invalid_event.foul_kind", kind=kind)
    return found


def _check_on_table(s: State, balls: list, code: str) -> int:
    """Check every ball listed is on the table, a colour at most once; return the reds listed.
    ``code``: ``"illegal_pot"`` or ``"illegal_foul"``, the error to raise."""
    reds = 0
    seen = set()
    for b in balls:
        if b == 1:
            reds += 1
        elif b in seen:
            raise error(f"{code}.ball_twice", ball=b)
        elif b not in s.colours:
            raise error(f"{code}.ball_off_table", ball=b)
        else:
            seen.add(b)
    if reds > s.reds:
        raise error(f"{code}.too_many_reds", reds=s.reds)
    return reds


def _check_free_ball(s: State, fb: int) -> None:
    """Art. 4, 36: a free ball only on the stroke after "play" on a foul that left a snooker, and
    only a colour on the table other than the ball on."""
    if not s.free_ball:
        raise error("illegal_free_ball.not_offered")
    if fb not in free_ball_choices(s):
        raise error("illegal_free_ball.not_nominable", ball=fb)


def _check_nominated(s: State, nominated: int, code: str) -> None:
    """Art. 19: the nominated colour must be on the table."""
    if nominated not in s.colours:
        raise error(f"{code}.nominated_off_table", nominated=nominated)


def _wrong_phase(s: State, event_type: str) -> SinucaError:
    """The error for an event not allowed in ``s.phase``, citing when it is allowed (Art. 54 once
    the match is over)."""
    if s.phase is MATCH_OVER:
        return error("match_over.only_undo")
    return error(f"wrong_phase.{s.phase}", event=event_type, article=_EVENT_ARTICLE[event_type])


# ---------------------------------------------------------------------------------------------
# What one event did

class Step:
    """The outcome of one applied (or previewed) event.

    Attributes:
        event: the event dict as applied.
        index: 0-based position of the event in the match's log.
    Properties ``state``, ``description``, ``foul``, ``frame_end``, ``match_end`` and
    ``starts_decider`` are computed on first use, so a replay pays nothing for them.
    """

    __slots__ = ("event", "index", "_before", "_after", "_info", "_config", "_state")

    def __init__(self, event: dict, index: int, before: State, after: State, info: dict,
                 config: dict) -> None:
        self.event = event
        self.index = index
        self._before = before
        self._after = after
        self._info = info
        self._config = config
        self._state: dict | None = None

    @property
    def state(self) -> dict:
        """The state after the event (contract section 7)."""
        if self._state is None:
            self._state = public(self._after)
        return self._state

    @property
    def state_before(self) -> dict:
        """The state before the event (contract section 7): what a "why?" of the event shows
        beside it (the score, the ball on, the reds, who was at the table)."""
        return public(self._before)

    @property
    def foul(self) -> dict | None:
        """For a ``foul`` event, what it cost and what it brought; ``None`` for other events.

        Keys: ``penalty`` (points, Art. 40-43) given to ``receiver`` (0/1) by ``offender`` (0/1);
        ``kind`` (:class:`FoulKind`), its ``kind_article`` (Art. 47-49) and ``group``
        (:class:`FoulGroup`); ``article``: the article that set the penalty ("40", "48.3", the
        kind's article for a max or disciplinary kind); ``sanction``: ``None``,
        :attr:`Sanction.WARNING` or :attr:`Sanction.DISQUALIFICATION` (Art. 42, 43) and its
        ``sanction_article`` ("42.1", "42.2" or "43"; ``None`` without sanction); ``retorno``:
        the referee called "falta e retorno"; ``retorno_allowed``: whether he could (Art. 26, 29),
        and if not, ``retorno_reason`` ``{"pt", "en"}`` (else ``None``); in doubles ``person``,
        the offender's index in his side.
        """
        i = self._info
        if "penalty" not in i:
            return None
        kind = i["kind"]
        refusal = self._retorno_refusal()
        sanction = article = None
        if kind.group is DISCIPLINARY:
            if "disqualified" in i:
                sanction, article = Sanction.DISQUALIFICATION, "43" if self.event.get("grave") else "42.2"
            else:
                sanction, article = Sanction.WARNING, Sanction.WARNING.article
        out = {"penalty": i["penalty"], "receiver": i["receiver"], "offender": i["offender"],
               "kind": kind, "article": i["article"], "kind_article": kind.article, "group": kind.group,
               "sanction": sanction, "sanction_article": article,
               "retorno": self.event.get("retorno") is True, "retorno_allowed": refusal is None,
               "retorno_reason": texts(refusal[0], **refusal[1]) if refusal else None}
        if "person" in i:
            out["person"] = i["person"]  # doubles: who of side ``offender`` fouled (contract section 11)
        return out

    def _retorno_refusal(self) -> tuple[str, dict] | None:
        """Why ``retorno: true`` would have been refused on this foul (message id and
        parameters), or ``None``: the check ``apply`` makes, asked of the position before it."""
        i, s, ev = self._info, self._before, self.event
        if i.get("off_table") or i["offender"] != s.striker or i.get("person", 0) != player_due(s, s.striker):
            return "retorno_not_allowed.seated", {}
        reds_potted = (ev.get("potted") or []).count(1)
        return retorno_refusal(self._config["retorno"], s, i["kind"], i["offender"], i["penalty"],
                               reds_potted, ev.get("snooker") is True)

    @property
    def frame_end(self) -> dict | None:
        """When the event ended a frame: ``{"frame", "scores", "winner", "ended_by", "article",
        "text"}``, ``ended_by`` a :class:`FrameEnd`, ``article`` the one it follows (Art. 50-52),
        ``text`` ``{"pt", "en"}`` ("Bia vence a partida 1 por 34–30 (Art. 51)": the winner's score
        first; a decider lost by a foul cites Art. 51.2 and 52); else ``None``.
        A tie sent to the decider ends no frame (see ``starts_decider``)."""
        b, a = self._before, self._after
        if self.event["type"] == "undo" or len(a.history) <= len(b.history):
            return None
        frame, scores, winner, ended_by = a.history[-1]
        return {"frame": frame, "scores": list(scores), "winner": winner, "ended_by": ended_by,
                "article": ended_by.article,
                "text": frame_end_sentence(frame, scores, winner, ended_by, self._config["players"],
                                           by_foul=self.event["type"] == "foul")}

    @property
    def match_end(self) -> dict | None:
        """When the event ended the match: ``{"winner", "result", "article", "frames", "losers",
        "text"}``: the winner (``None`` if both were disqualified), ``result`` a
        :class:`MatchResult`, ``article`` the one applied ("54.1" frames, "54.2" concession,
        "54.3" second disciplinary or grave foul, "54.4" disqualification by the referee, "55"
        both), ``frames`` won, ``losers`` (the players who lost, conceded or were disqualified),
        ``text`` ``{"pt", "en"}`` ("Bia vence o jogo por 1–0", the winner's frames first); else ``None``."""
        b, a = self._before, self._after
        if self.event["type"] == "undo" or a.phase is not MATCH_OVER or b.phase is MATCH_OVER:
            return None
        result, winner = a.match_result, a.match_winner
        if result is MatchResult.DISQUALIFICATION:
            article = "54.4" if self.event["type"] == "disqualify" else "54.3"
        else:
            article = result.article
        return {"winner": winner, "result": result, "article": article, "frames": list(a.frames),
                "losers": [0, 1] if winner is None else [1 - winner],
                "text": match_end_sentence(winner, result, a.frames, self._config["players"])}

    @property
    def starts_decider(self) -> bool:
        """The event levelled the scores with only the 7 left: the frame goes to the decider on
        the re-spotted 7, its first striker drawn by lot (Art. 51.1, 52, 18)."""
        return self.event["type"] != "undo" and self._after.decider and not self._before.decider

    @property
    def description(self) -> dict:
        """``{"pt": "Falta de Ana: 5 pontos para Bia (Art. 40)", "en": "Foul by Ana: …"}``."""
        return describe(self.event, self._info, self._before, self._after, self._config["players"],
                        self._config.get("sides"))

    def __repr__(self) -> str:
        return f"<Step {self.index} {self.event!r}>"


# ---------------------------------------------------------------------------------------------

class Match:
    """A match under the CBBS 2008 rules, built from its configuration and fed events in order.

    Args:
        config: the contract's section-2 dict (players, reds, frames_to_win, first_breaker,
            retorno, position).
        keep_history: keep a snapshot per event so that ``undo`` works (O(1) time and about
            300 bytes per event). Off, ``undo`` raises :class:`NothingToUndo`.
    Raises:
        InvalidConfig: the configuration breaks section 2.
    """

    def __init__(self, config: dict, *, keep_history: bool = True) -> None:
        self.config = normalize_config(config)
        self._s = initial(self.config)
        self._stack: list[State] = []
        self._keep = keep_history
        self._count = 0  # events applied, undo included
        self._ftw = self.config["frames_to_win"]
        # The log positions of the events in effect (an undo pops the latest, as it pops its
        # snapshot), and which event each undo took back: the one pairing of undos there is.
        self._effect: list[int] = []
        self._undid: dict[int, int] = {}

    # -- public API ------------------------------------------------------------------------

    @classmethod
    def replay(cls, config: dict, events: list, *, keep_history: bool = True) -> "Match":
        """Fold a log: a new match with every event of ``events`` applied in order.

        Raises the first event's :class:`SinucaError`; its ``index`` attribute is the event's
        position in ``events``.
        """
        m = cls(config, keep_history=keep_history)
        for i, ev in enumerate(events):
            try:
                m.apply(ev)
            except SinucaError as e:
                e.index = i
                raise
        return m

    def apply(self, event: dict) -> Step:
        """Validate ``event`` and apply it.

        Returns:
            the :class:`Step` (new state, description, foul, frame and match ends).
        Raises:
            SinucaError: a subclass carrying the contract's code; the match is unchanged.
        """
        before = self._s
        after, info = self._next(event)
        if info is _UNDONE:
            self._stack.pop()
            self._undid[self._count] = self._effect.pop()
        elif self._keep:
            self._stack.append(before)
            self._effect.append(self._count)
        self._s = after
        self._count += 1
        return Step(event, self._count - 1, before, after, info, self.config)

    def preview(self, event: dict) -> Step:
        """What ``apply(event)`` would give, without applying it. Raises the same errors."""
        after, info = self._next(event)
        return Step(event, self._count, self._s, after, info, self.config)

    def undo(self) -> Step:
        """Take back the latest event still in effect (an ``undo`` event). Raises NothingToUndo."""
        return self.apply({"type": "undo"})

    def state(self) -> dict:
        """The current state: the contract's section-7 dict, every field present."""
        return public(self._s)

    def break_balls(self) -> list[int]:
        """The balls potted in the current break, in order (empty when no break is running): what
        the screens draw beside the break's points. Not part of the contract's state."""
        return list(self._s.brk_balls) if self._s.brk else []

    @property
    def can_undo(self) -> bool:
        """Whether an event is left to take back."""
        return bool(self._stack)

    # -- facts the screens ask (never worked out again outside the engine) ------------------

    def in_effect(self) -> list[int]:
        """The log positions (0-based, as :attr:`Step.index`) of the events still in effect,
        oldest first: every event but the undos and the events an undo took back (contract
        section 4: ``undo`` takes back the latest event still in effect; undoing again, the one
        before it). Empty without ``keep_history`` (nothing can be taken back then)."""
        return list(self._effect)

    def undo_target(self) -> int | None:
        """The log position of the event an ``undo`` would take back now (the newest still in
        effect), or ``None`` when nothing can be undone."""
        return self._effect[-1] if self._effect else None

    def undid(self) -> dict[int, int]:
        """Which event each ``undo`` took back: ``{log position of the undo: log position of the
        event}``, every undo of the log (an undo is never itself taken back)."""
        return dict(self._undid)

    def undone(self) -> dict[int, int]:
        """The events taken back: ``{log position of the event: log position of the undo that
        took it back}`` (the reverse of :meth:`undid`)."""
        return {e: u for u, e in self._undid.items()}

    def free_ball_shown(self) -> bool:
        """Whether a free ball is on or offered now (Art. 4, 36): the striker may nominate one on
        this stroke, or the decision pending is on a foul that left a snooker, so "play" brings
        one (Art. 35.3, 36). What the screens' "BOLA LIVRE" shows."""
        s = self._s
        return bool(s.free_ball or (s.phase is DECISION and s.pending and s.pending.snooker))

    def at_table(self) -> int | None:
        """Who is at the table: the striker in play (Art. 3), or the beneficiary who must decide
        after a foul (Art. 35); ``None`` in the lot and once the frame or match is over (the
        state's ``striker`` is left on the last striker then)."""
        s = self._s
        return s.striker if s.phase is PLAY or s.phase is DECISION else None

    def winner(self) -> int | None:
        """Who won what is over now: the match's winner once it is over (Art. 54; ``None`` if
        both were disqualified, Art. 55), the frame's winner between frames (Art. 50-52);
        ``None`` while a frame is in play or waits for its lot."""
        s = self._s
        if s.phase is MATCH_OVER:
            return s.match_winner
        return s.frame_winner if s.phase is FRAME_OVER else None

    def frame_lost_on_foul(self) -> bool:
        """Whether the frame whose result shows now (``frame_over``, or ``match_over`` on its last
        row) was lost on a foul: the third aggravated one (Art. 27), one with only the 7 left
        (Art. 51.2), the decider's too (Art. 51.2, 52), whose history row says ``decider`` either
        way (contract section 6). ``False`` while a frame is in play or waits for its lot."""
        s = self._s
        return (s.phase is FRAME_OVER or s.phase is MATCH_OVER) and bool(s.history) and s.lost_on_foul

    def pending_foul(self) -> dict | None:
        """The foul the beneficiary is deciding on (Art. 25.2, 35): ``{"offender", "receiver",
        "penalty", "snooker", "retorno"}`` (``snooker``: "play" brings a free ball, Art. 36;
        ``retorno``: the replay was called, Art. 25), or ``None`` outside a decision. A seated
        player's disciplinary foul while the decision waits (Art. 49) changes ``last_penalty``
        in the state, not this foul."""
        s = self._s
        p = s.pending
        if s.phase is not DECISION or p is None:
            return None
        out = {"offender": p.offender, "receiver": 1 - p.offender, "penalty": p.points,
               "snooker": p.snooker, "retorno": p.retorno}
        if s.sizes:
            out["person"] = s.order[p.offender][p.due]  # doubles: who fouled, who replays on pass
        return out

    @property
    def sides(self) -> list[list[str]]:
        """Each side's players' names (Art. 1 "individualmente ou em conjunto"): ``[[name], [name]]``
        for a singles match, else the configuration's ``sides``."""
        return [list(x) for x in self.config["sides"]] if "sides" in self.config else [[p] for p in self.config["players"]]

    @property
    def doubles(self) -> bool:
        """A side has several players (the state then has the fields of contract section 11)."""
        return "sides" in self.config

    def at_table_player(self) -> tuple[int, int] | None:
        """``(side, index within the side)`` of the player at the table, as :meth:`at_table`
        (in ``decision``, the beneficiary's player due, who plays on *jogar*); else ``None``.
        With one player a side the index is 0."""
        return turn(self._s)[0]

    def next_player(self) -> tuple[int, int] | None:
        """``(side, index)`` of the player who plays after the one at the table: in play, the
        other side's player due at its next visit (after a miss); ``None`` in a decision, where
        it hangs on the beneficiary's choice (*jogar*: the offender's partner, after the
        beneficiary's visit; *passar* or *retorno*: the offender again at once, Art. 24-26),
        and ``None`` when nobody is at the table. The state's ``next_player`` is its index."""
        return turn(self._s)[1]

    FACTS = ("free_ball_shown", "at_table", "at_table_player", "next_player", "winner", "best_of", "pending_foul",
             "frame_lost_on_foul")
    """The names of :meth:`facts`, in its order: what a view of the match keeps apart from
    :meth:`options` (what may be entered)."""

    def facts(self) -> dict:
        """The facts every screen shows beside :meth:`options`, as JSON carries them: the one list
        of them, which the tablet's view and the server's screens both take.

        Returns:
            ``{"free_ball_shown": bool, "at_table": 0 | 1 | None, "at_table_player": [side,
            index] | None, "next_player": [side, index] | None, "winner": 0 | 1 | None,
            "best_of": int, "pending_foul": dict | None, "frame_lost_on_foul": bool}``, each the
            method or property of that
            name (:meth:`at_table_player` and :meth:`next_player` as lists; nobody is next while
            a decision is pending), keys in the order of :attr:`FACTS`.
        """
        at, nxt = self.at_table_player(), self.next_player()
        return {"free_ball_shown": self.free_ball_shown(), "at_table": self.at_table(),
                "at_table_player": list(at) if at is not None else None,
                "next_player": list(nxt) if nxt is not None else None,
                "winner": self.winner(), "best_of": self.best_of, "pending_foul": self.pending_foul(),
                "frame_lost_on_foul": self.frame_lost_on_foul()}

    def nomination_needed(self, event: dict) -> bool:
        """Whether the penalty of foul ``event`` depends on the colour aimed at, which the event
        must then say (``nominated``, Art. 19) or leave out for "not nominated" (7 points, Art.
        48.3): any colour is on after a red (Art. 11.1), the foul is the striker's and its kind's
        penalty is variable (Art. 40.1.a). Not for a kind of fixed 7 points (Art. 41-43, 48, 49), nor
        for the seated player's foul, which involves no stroke (Art. 49; in doubles the striker's
        partner is seated too, so a foul naming him as ``person`` needs none). An event the engine
        would refuse for its kind or player needs no colour: its error says what is wrong."""
        s = self._s
        if s.phase is not PLAY or not s.colour_on or s.decider or not isinstance(event, dict):
            return False
        kind = event.get("kind")
        kind = FoulKind.OTHER if kind is None else (_FOUL_KINDS.get(kind) if isinstance(kind, str) else None)
        player, person = event.get("player"), event.get("person")
        if kind is None or kind.group is not FoulGroup.VARIABLE:
            return False
        if person is not None and s.sizes and person != player_due(s, s.striker):
            return False  # doubles: the striker's partner is not at the table (contract section 11)
        return player is None or (is_int(player) and player == s.striker)

    @property
    def best_of(self) -> int:
        """The most frames the match can last: first to ``frames_to_win`` (Art. 54.1), so best of
        ``2 * frames_to_win - 1``."""
        return 2 * self._ftw - 1

    def options(self) -> dict:
        """What the referee may enter now, so a UI enables only legal buttons.

        Returns:
            ``{"events": [types allowed now], "pot": [balls on], "max_reds": int,
            "max_foul_reds": int, "free_ball": [colours nominable as free ball],
            "decision_options": [...], "bonus_seven": bool, "retorno_enabled": bool,
            "free_ball_offered": bool, "retorno_replay": bool}``: ``max_reds`` the reds a pot may
            list now (Art. 14); ``max_foul_reds`` the reds a foul may list as potted: every red on
            the table, as Art. 15 sets no other limit (0 while only a seated player's foul fits);
            ``free_ball_offered`` while a decision is pending on a foul that left a snooker
            ("play" brings a free ball, Art. 36); ``retorno_replay`` while the offender replays
            after a retorno (Art. 25.5).
        """
        s = self._s
        ph = s.phase
        if ph is PLAY:
            events = ["pot", "no_pot", "foul", "stalemate_warning", "restart_frame", "concede"]
        elif ph is DECISION:
            events = ["decision", "foul", "restart_frame", "concede"]
        elif ph is LOT:
            # a disciplinary foul is conduct, not a stroke (Art. 42, 43); the tied frame can be
            # conceded while its decider's lot waits (Art. 50.2)
            events = ["lot", "foul", "concede"] if s.decider else ["lot", "foul"]
        elif ph is FRAME_OVER:
            events = ["next_frame", "foul"]
        else:
            events = []
        if s.bonus7:
            events.insert(0, "pot")
        if s.sizes and (ph is PLAY or ph is LOT) and not s.started and not s.decider:
            events.insert(0, "order")  # doubles: the frame's order, before its first stroke
        if ph is not MATCH_OVER:
            events += ["concede_match", "disqualify"]
        if self._stack:
            events.append("undo")
        on = list(ball_on(s)) if ph is PLAY else ([7] if s.bonus7 else [])
        return {
            "events": events,
            "pot": on,
            "max_reds": s.reds if on == [1] else 0,
            "max_foul_reds": s.reds if ph is PLAY else 0,
            "free_ball": list(free_ball_choices(s)) if ph is PLAY else [],
            "decision_options": decision_options(s),
            "bonus_seven": s.bonus7,
            "retorno_enabled": self.config["retorno"],
            "free_ball_offered": bool(s.pending and s.pending.snooker),
            "retorno_replay": s.replay,
        }

    def foul_preview(self, event: dict) -> dict:
        """Preview a ``foul`` for the referee's dialog before it is confirmed.

        Args:
            event: a foul event (``"type"`` may be left out).
        Returns:
            ``{"penalty", "receiver", "article", "retorno_allowed", "retorno_reason",
            "ends_frame", "ends_match", "state", "error", "refusal", "aggravated_count"}``: the
            penalty (Art. 40-43) and its receiver, whether ``retorno: true`` would be accepted
            (Art. 26, 29) and if not why (``{"pt", "en"}``), whether the foul ends the frame or
            the match, the state after it (``None`` on error), the error (``{"code",
            "message"}``) if the foul is refused as entered (the very error ``apply`` raises)
            and ``refusal``, its message (``{"pt", "en"}``, else ``None``) — refused only for
            its ``retorno``, the penalty and the rest are those of the foul without it — and
            the consecutive aggravated fouls it would make (0 if it is not aggravated; Art. 27,
            44); ``disqualified``, whether it disqualifies the offender (Art. 42.2, 43), and
            with sides of several players ``person``, who of the offender's side fouled (his
            warnings are his own, Art. 42; contract section 11). Facts only: the verdict in
            words is the presentation layer's (``presentation.explain.foul_verdict``).
        """
        out: dict = {"penalty": None, "receiver": None, "article": None, "retorno_allowed": False,
                     "retorno_reason": None, "ends_frame": False, "ends_match": False, "state": None,
                     "error": None, "refusal": None, "aggravated_count": 0, "disqualified": False}
        try:
            if not isinstance(event, dict):
                raise error("invalid_event.not_object")
            ev = dict(event, type="foul")
            step = self.preview(ev)  # exactly what apply would answer: same error, same state
        except SinucaError as e:
            out["error"] = e.as_dict()
            out["refusal"] = {"pt": e.message_pt, "en": e.message_en}
            if e.code != "retorno_not_allowed" or not isinstance(event, dict) or event.get("retorno") is not True:
                return out
            try:  # refused for its replay only: the rest of the verdict still holds
                step = self.preview(dict(ev, retorno=False))
            except SinucaError:
                return out
        info, refusal = step._info, step._retorno_refusal()
        out.update(penalty=info["penalty"], receiver=info["receiver"], article=info["article"],
                   retorno_allowed=refusal is None, disqualified="disqualified" in info,
                   retorno_reason=texts(refusal[0], **refusal[1]) if refusal else None)
        after = step._after
        out["state"] = step.state
        if "person" in info:
            out["person"] = info["person"]
        out["ends_match"] = after.phase is MATCH_OVER
        # between frames the frame is over already: a disqualification then ends only the match
        out["ends_frame"] = ((after.phase is FRAME_OVER or after.phase is MATCH_OVER)
                             and self._s.phase is not FRAME_OVER) or step.starts_decider
        if ev.get("aggravated") is True and "disqualified" not in info and info["offender"] == self._s.striker:
            out["aggravated_count"] = self._s.agg + 1  # Art. 27, 44.2: the chain this foul makes
        return out

    def __len__(self) -> int:
        """Events applied so far (undo events included)."""
        return self._count

    # -- the rules ---------------------------------------------------------------------------

    def _next(self, ev: Any) -> tuple[State, dict]:
        if not isinstance(ev, dict):
            raise error("invalid_event.not_object")
        kind = ev.get("type")
        entry = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if entry is None:
            raise error("invalid_event.unknown_type", type=kind)
        fields, handler = entry
        if not fields.issuperset(ev):
            for key in ev:
                if key not in fields:
                    raise error("invalid_event.unknown_field", field=key, type=kind)
        return handler(self, self._s, ev)

    def _ev_undo(self, s: State, ev: dict) -> tuple[State, dict]:
        if not self._stack:
            raise error("nothing_to_undo.empty")
        return self._stack[-1], _UNDONE

    def _ev_lot(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 17: the lot decides who breaks off; Art. 18, 52: also who starts the decider."""
        p = _player(ev)
        if s.phase is not LOT:
            raise _wrong_phase(s, "lot")
        n = s.copy()
        n.phase = PLAY
        n.striker = p
        if not s.decider:
            n.first = n.breaker = p
        return n, {"player": p}

    def _ev_pot(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 11-14, 37, 50.1: a legal stroke that potted ``balls``; the striker plays on."""
        balls = _ball_list(ev, "balls", True)
        fb = _opt_ball(ev, "free_ball", 2)
        nom = _opt_ball(ev, "nominated", 2)
        if s.bonus7:
            return _pot_bonus_seven(s, balls, fb)
        if s.phase is not PLAY:
            raise _wrong_phase(s, "pot")
        if fb is not None:
            _check_free_ball(s, fb)
        reds = _check_on_table(s, balls, "illegal_pot")
        if nom is not None:
            _check_nominated(s, nom, "illegal_pot")
        n = s.copy()
        if s.decider:
            points, off = _pot_in_decider(n, balls)
        elif fb is not None:
            points, off = _pot_free_ball(s, n, balls, reds, fb)
        elif s.colour_on:
            points, off = _pot_colour_after_red(n, balls, reds, nom)
        elif s.reds:
            points, off = _pot_reds(s, n, balls, reds)
        else:
            points, off = _pot_colour_in_sequence(s, n, balls)
        score_pot(n, points)
        n.started = True  # the order of play is fixed from the frame's first stroke (doubles)
        # The screens list the balls of the break: a pot continues the break score_pot added to,
        # or starts it when none was running.
        n.brk_balls = (s.brk_balls if s.brk else ()) + tuple(balls)
        # A legal stroke ends the retorno chain (contract section 4) and clears the stalemate
        # warning (Art. 53).
        n.free_ball = False
        n.agg = 0
        n.warning = None
        if s.decider:
            end_frame(n, n.striker, FrameEnd.DECIDER, self._ftw)  # Art. 52
        elif off == 7:
            black_potted(n, self._ftw)
            if n.decider:
                end_visit(n, s.striker)  # doubles: the tie ends his visit; the decider goes on after him
        elif off == 6 and six_ends_frame(n.scores):
            end_frame(n, leader(n.scores), FrameEnd.POT, self._ftw)
            n.bonus7 = True  # the 7 may still be potted for the break (Art. 6.1, contract section 4)
        if fb is None:
            return n, {"balls": balls, "points": points}
        return n, {"balls": balls, "free_ball": fb, "points": points}

    def _ev_no_pot(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 11, 12.4: the visit ends, the opponent plays the ball on."""
        fb = _opt_ball(ev, "free_ball", 2)
        nom = _opt_ball(ev, "nominated", 2)
        safety = _opt_bool(ev, "safety")
        if s.phase is not PLAY:
            raise _wrong_phase(s, "no_pot")
        if fb is not None:
            _check_free_ball(s, fb)
        if nom is not None:
            _check_nominated(s, nom, "illegal_pot")
        n = s.copy()
        end_visit(n, s.striker)  # doubles: the side's next player is due at its next visit
        n.started = True
        n.striker = 1 - s.striker
        n.brk = 0
        n.colour_on = False  # Art. 12.4: a miss after the last red leaves the 2 on
        n.free_ball = False
        n.agg = 0  # the retorno chain is over (contract section 4)
        if s.warning is LAST_CHANCE:
            n.warning = None
        return n, {"safety": safety}

    def _ev_foul(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 35-49, 51: a foul, its penalty to the opponent, a sanction, and what follows it."""
        kind = _foul_kind(ev)
        ball = _opt_ball(ev, "ball")
        potted = _ball_list(ev, "potted", False)
        retorno = _opt_bool(ev, "retorno")
        snooker = _opt_bool(ev, "snooker")
        aggravated = _opt_bool(ev, "aggravated")
        grave = _opt_bool(ev, "grave")
        fb = _opt_ball(ev, "free_ball", 2)
        nom = _opt_ball(ev, "nominated", 2)
        offender = _player(ev, required=False)
        person = ev.get("person")
        if person is not None and (not is_int(person) or person < 0):
            raise error("invalid_event.person")
        if s.phase is LOT or s.phase is FRAME_OVER:
            return self._foul_off_table(s, kind, offender, person, grave, retorno,
                                        bool(potted or snooker or aggravated or fb is not None or ball is not None))
        if offender is None and (s.phase is PLAY or s.phase is DECISION):
            offender = s.striker
        seated = offender is not None and offender != s.striker
        if offender is not None and (s.phase is PLAY or s.phase is DECISION):
            person = self._offender_person(s, offender, person)
            # Doubles: the striker's partner is not at the table either (a seated player's foul).
            seated = seated or person != player_due(s, s.striker)
        _check_who_fouls(s, kind, seated, grave)
        if seated:
            _check_seated_foul(retorno, potted or snooker or aggravated or fb is not None or ball is not None)
            reds_potted = 0
        else:
            reds_potted = _check_fouled_stroke(s, kind, ball, potted, nom, fb)
        points, article = penalty(s, kind, ball, potted, nom)
        if retorno and not seated:
            refusal = retorno_refusal(self.config["retorno"], s, kind, offender, points, reds_potted, snooker)
            if refusal:
                raise error(refusal[0], **refusal[1])
        receiver = 1 - offender
        n = s.copy()
        n.scores = add(s.scores, receiver, points)  # Art. 35.1
        n.last_penalty = (receiver, points)
        n.reds = s.reds - reds_potted  # Art. 15: reds potted in a foul stay off; colours re-spot (12.3)
        if s.warning is STALEMATE:
            n.warning = None  # Art. 53: a foul changes the position
        info = {"penalty": points, "receiver": receiver, "offender": offender, "article": article, "kind": kind}
        if self.config.get("sides"):
            info["person"] = person
        if kind.group is DISCIPLINARY and warn_or_disqualify(n, offender, grave, person or 0):
            info["disqualified"] = offender
        elif seated:
            # Contract section 4.6: the striker takes the points and plays on.
            if s.phase is PLAY and only_seven(s):
                foul_with_only_seven(n, receiver, self._ftw)
                if n.decider and not s.decider:
                    end_visit(n, s.striker)  # doubles: as after a tying pot
        else:
            n.started = True
            _after_stroke_foul(s, n, offender, aggravated, snooker, retorno, self._ftw)
        return n, info

    def _foul_off_table(self, s: State, kind: FoulKind, offender: int | None, person: int | None,
                        grave: bool, retorno: bool, involves_balls: bool) -> tuple[State, dict]:
        """Art. 42, 43: a disciplinary foul while nobody is at the table, in a lot or between
        frames: conduct, not a stroke, so it is recorded there too (contract section 6). The
        offender must be named (in doubles the person too: warnings are the person's). In a lot
        the 7 points go into the frame about to be played; in the decider's lot, with only the
        7 left and the scores level, the foul loses the frame (Art. 51.2, 52). Between frames
        the finished frame's result stands (Art. 50) and the next one starts from 0-0 (Art.
        16): only the warning or the disqualification counts (Art. 42, 43, 54.3)."""
        if kind.group is not DISCIPLINARY:
            raise _wrong_phase(s, "foul")
        _check_seated_foul(retorno, involves_balls)
        if offender is None:
            raise error("illegal_foul.player_required")
        size = s.sizes[offender] if s.sizes else 1
        if person is None:
            if size > 1:
                raise error("illegal_foul.person_required_off_table", side="AB"[offender])
            person = 0
        elif person >= size:
            raise error("illegal_foul.person_not_in_match", side="AB"[offender], person=person)
        receiver = 1 - offender
        between = s.phase is FRAME_OVER
        points = 0 if between else penalty(s, kind, None, [], None)[0]
        n = s.copy()
        if points:
            n.scores = add(s.scores, receiver, points)  # Art. 42: into the frame whose lot it is
            n.last_penalty = (receiver, points)
        info = {"penalty": points, "receiver": receiver, "offender": offender, "article": kind.article,
                "kind": kind, "off_table": True}
        if self.config.get("sides"):
            info["person"] = person
        if warn_or_disqualify(n, offender, grave, person):
            info["disqualified"] = offender
        elif s.decider and not between:
            foul_with_only_seven(n, receiver, self._ftw)  # Art. 51.2, 52: the tie is broken by a foul
        return n, info

    def _offender_person(self, s: State, side: int, person: int | None) -> int:
        """Which player of ``side`` committed the foul: the one named (``person``, checked to be
        in the match), else the player at the table for the striker's side; a side of several
        players not at the table must name him (doubles: warnings are the person's, Art. 42)."""
        size = s.sizes[side] if s.sizes else 1
        if person is not None:
            if person >= size:
                raise error("illegal_foul.person_not_in_match", side="AB"[side], person=person)
            return person
        if side == s.striker:
            return player_due(s, side)
        if size == 1:
            return 0
        raise error("illegal_foul.person_required", side="AB"[side])

    def _ev_decision(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 25.2, 35: the beneficiary plays, passes, or asks for the replay."""
        choice = ev.get("choice")
        choice = _CHOICES.get(choice) if isinstance(choice, str) else None
        if choice is None:
            raise error("invalid_event.choice")
        if s.phase is not DECISION:
            raise _wrong_phase(s, "decision")
        p = s.pending
        if choice is RETORNO and not p.retorno:
            raise error("retorno_not_allowed.not_called")
        n = s.copy()
        n.phase = PLAY
        n.pending = None
        n.brk = 0
        if choice is not Choice.PLAY:
            set_due(n, p.offender, p.due)  # doubles: the offender plays again, the order goes on after him
        if choice is RETORNO:
            # Art. 25.5.2, 30: the table as before the fouled stroke, reds included; penalty stands.
            n.striker = p.offender
            n.reds, n.colours, n.colour_on, n.free_ball = p.table
            n.replay = True
            return n, {"choice": choice, "offender": p.offender}
        if choice is Choice.PLAY:
            n.free_ball = p.snooker  # Art. 36
        else:
            n.striker = p.offender
            n.free_ball = False  # Art. 25.4, 35.4 (contract section 6: no free ball after a pass)
        n.agg = 0  # play and pass end the retorno chain
        if s.warning is LAST_CHANCE:
            n.warning = None
        return n, {"choice": choice, "offender": p.offender}

    def _ev_stalemate_warning(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 53.1: the referee warns that the next stroke must change the position."""
        if s.phase is not PLAY:
            raise _wrong_phase(s, "stalemate_warning")
        n = s.copy()
        n.warning = STALEMATE
        n.replay = s.replay
        return n, {}

    def _ev_restart_frame(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 53.3: the frame is void and re-racked, the same player breaking."""
        if s.phase is not PLAY and s.phase is not DECISION:
            raise _wrong_phase(s, "restart_frame")
        n = s.copy()
        new_frame(n, self.config["reds"])
        return n, {}

    def _ev_concede(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 50.2: a player concedes the frame, "at any time" of it: in play, in a decision and
        while the decider's lot is awaited (Art. 18, 52: the tied frame is still in play). Not in
        the match's first lot, before any frame has a breaker (Art. 17)."""
        p = _player(ev)
        if not (s.phase is PLAY or s.phase is DECISION or (s.phase is LOT and s.decider)):
            raise _wrong_phase(s, "concede")
        n = s.copy()
        end_frame(n, 1 - p, FrameEnd.CONCESSION, self._ftw)
        return n, {"player": p}

    def _ev_next_frame(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 16, 17: a new rack; break-offs alternate by frame number."""
        if s.phase is not FRAME_OVER:
            raise _wrong_phase(s, "next_frame")
        n = s.copy()
        n.frame_number = s.frame_number + 1
        new_frame(n, self.config["reds"])
        if s.sizes:
            n.order = default_order(s.sizes)  # each frame's order is set anew (doubles decision)
        return n, {}

    def _ev_order(self, s: State, ev: dict) -> tuple[State, dict]:
        """Doubles decision (Art. 1 "em conjunto"): the frame's order of play, per side its
        players' indices in turn, given before the frame's first stroke; the sides alternate
        (A1, B1, A2, B2, …). With one player a side the only order is ``[[0], [0]]``."""
        sizes = s.sizes or (1, 1)
        order = ev.get("order")
        if (not isinstance(order, list) or len(order) != 2
                or not all(isinstance(o, list) and all(is_int(x) for x in o) and sorted(o) == list(range(k))
                           for o, k in zip(order, sizes))):
            raise error("invalid_event.order", a=sizes[0], b=sizes[1])
        if s.phase is not PLAY and s.phase is not LOT:
            raise _wrong_phase(s, "order")
        if s.started or s.decider:
            raise error("wrong_phase.order_started")
        n = s.copy()
        n.order = (tuple(order[0]), tuple(order[1]))
        n.due = (0, 0)
        return n, {"order": [list(o) for o in n.order]}

    def _ev_concede_match(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 54.2: a player concedes the match."""
        p = _player(ev)
        if s.phase is MATCH_OVER:
            raise _wrong_phase(s, "concede_match")
        n = s.copy()
        end_match(n, 1 - p, MatchResult.CONCESSION)
        return n, {"player": p}

    def _ev_disqualify(self, s: State, ev: dict) -> tuple[State, dict]:
        """Art. 54.4, 55: disqualification of one player, or of both at once. In doubles
        ``persons`` (optional, one per side listed, in the same order) names who of each side
        was disqualified; his side loses the match (contract section 11)."""
        players = ev.get("players")
        if (not isinstance(players, list) or not players or len(players) > 2
                or not all(is_int(x) and x in (0, 1) for x in players) or len(set(players)) != len(players)):
            raise error("invalid_event.players")
        persons = ev.get("persons")
        sizes = s.sizes or (1, 1)
        if persons is not None and not (
                isinstance(persons, list) and len(persons) == len(players)
                and all(is_int(x) and 0 <= x < sizes[p] for x, p in zip(persons, players))):
            raise error("invalid_event.persons", a=sizes[0], b=sizes[1])
        if s.phase is MATCH_OVER:
            raise _wrong_phase(s, "disqualify")
        n = s.copy()
        if len(players) == 2:
            end_match(n, None, MatchResult.BOTH_DISQUALIFIED)
        else:
            end_match(n, 1 - players[0], MatchResult.DISQUALIFICATION)
        info: dict = {"players": sorted(players)}
        if persons is not None and s.sizes:
            info["persons"] = dict(zip(players, persons))  # side -> who of it (doubles)
        return n, info


_UNDONE = {"undo": True}  # the info of an undo, told apart by identity in Match.apply
_HANDLERS = {t: (fields | {"type"}, getattr(Match, "_ev_" + t)) for t, fields in _EVENT_FIELDS.items()}


# ---------------------------------------------------------------------------------------------
# Pots: each returns ``(points, colour off)``, the colour that left the table for good or 0.

def _pot_bonus_seven(s: State, balls: list, fb: int | None) -> tuple[State, dict]:
    """Art. 6.1, 50.1 (contract section 4): the 7 after the 6 that ended the frame, for the break;
    the frame's history row takes the new score."""
    if balls != [7] or fb is not None:
        raise error("illegal_pot.bonus_seven")
    n = s.copy()
    score_pot(n, 7)
    n.brk_balls = s.brk_balls + (7,)
    f, _, w, e = s.history[-1]
    n.history = s.history[:-1] + ((f, n.scores, w, e),)
    return n, {"points": 7, "bonus": True}


def _pot_in_decider(n: State, balls: list) -> tuple[int, int]:
    """Art. 52: only the 7 is on; potting it wins the decider, and it stays off (Art. 12.2), as
    the 7 that ends an ordinary frame."""
    if balls != [7]:
        raise error("illegal_pot.not_on", ball_on="7")
    n.colours = ()
    return 7, 7


def _pot_free_ball(s: State, n: State, balls: list, reds: int, fb: int) -> tuple[int, int]:
    """Art. 4, 14, 37: the free ball counts as the ball on and is re-spotted. With reds on it may
    go down with reds, 1 point each, then any colour is on (Art. 37.1); with colour ``n`` on it
    scores ``n`` once, even with ``n`` potted too, and ``n`` stays off (Art. 37.2, 12.2)."""
    cols = [b for b in balls if b != 1]
    if s.reds:
        if cols and cols != [fb]:
            raise error("illegal_pot.free_ball_with_red", free_ball=fb)
        n.reds = s.reds - reds
        n.colour_on = True
        return len(balls), 0
    on = s.colours[0]
    if reds or any(c not in (fb, on) for c in cols):
        raise error("illegal_pot.free_ball_with_colour", free_ball=fb, ball_on=on)
    if on in cols:
        n.colours = s.colours[1:]
        return on, on
    return on, 0


def _pot_colour_after_red(n: State, balls: list, reds: int, nom: int | None) -> tuple[int, int]:
    """Art. 11.1, 19: after a red, exactly one colour, the one nominated; it is re-spotted and a
    red follows, or the 2 after the last red (Art. 12.1, 12.4)."""
    if reds or len(balls) != 1:
        raise error("illegal_pot.one_colour")
    if nom is not None and nom != balls[0]:
        raise error("illegal_pot.not_nominated", nominated=nom, ball=balls[0])
    n.colour_on = False
    return balls[0], 0


def _pot_reds(s: State, n: State, balls: list, reds: int) -> tuple[int, int]:
    """Art. 11.1, 14: reds only, one point each; any colour is on next."""
    if reds != len(balls):
        raise error("illegal_pot.not_on", ball_on="1")
    n.reds = s.reds - reds
    n.colour_on = True
    return reds, 0


def _pot_colour_in_sequence(s: State, n: State, balls: list) -> tuple[int, int]:
    """Art. 11.2, 12.2: no reds left: the lowest colour, which stays off."""
    on = s.colours[0]
    if len(balls) != 1 or balls[0] != on:
        raise error("illegal_pot.not_on", ball_on=str(on))
    n.colours = s.colours[1:]
    return on, on


# ---------------------------------------------------------------------------------------------
# Fouls

def _check_who_fouls(s: State, kind: FoulKind, seated: bool, grave: bool) -> None:
    """Art. 35, 42, 43, 49: a foul is the striker's, in play; only a disciplinary foul can be the
    seated player's, also while a decision is pending; only a disciplinary foul can be grave."""
    disciplinary = kind.group is DISCIPLINARY
    if s.phase is DECISION and not (disciplinary and seated):
        raise error("wrong_phase.decision_pending")
    if s.phase is not PLAY and s.phase is not DECISION:
        raise _wrong_phase(s, "foul")
    if seated and not disciplinary:
        raise error("illegal_foul.seated_not_disciplinary")
    if grave and not disciplinary:
        raise error("illegal_foul.grave_not_disciplinary")


def _check_seated_foul(retorno: bool, involves_balls: bool) -> None:
    """Art. 25, 49: the seated player's foul has no replay and involves no ball."""
    if retorno:
        raise error("retorno_not_allowed.seated")
    if involves_balls:
        raise error("illegal_foul.seated_with_balls")


def _check_fouled_stroke(s: State, kind: FoulKind, ball: int | None, potted: list, nom: int | None,
                         fb: int | None) -> int:
    """The striker's fouled stroke as described can have happened; returns the reds it potted."""
    if fb is not None:
        _check_free_ball(s, fb)
    if kind is FoulKind.FREE_BALL_SNOOKER:
        # Art. 38, 47.16: only on a free-ball stroke, and not with only the 6 and 7 left.
        if not s.free_ball:
            raise error("illegal_foul.free_ball_snooker_needs_free_ball")
        if not s.reds and s.colours == (6, 7):
            raise error("illegal_foul.free_ball_snooker_six_seven")
    if nom is not None:
        _check_nominated(s, nom, "illegal_foul")
    if ball is not None and not (s.reds if ball == 1 else ball in s.colours):
        raise error("illegal_foul.ball_not_on_table", ball=ball)
    return _check_on_table(s, potted, "illegal_foul")


def _after_stroke_foul(s: State, n: State, offender: int, aggravated: bool, snooker: bool,
                       retorno: bool, frames_to_win: int) -> None:
    """What follows the striker's foul, in the contract's order (section 4): the third aggravated
    foul of a retorno chain loses the frame (Art. 27, 44.2); with only the 7 left the foul
    decides the frame (Art. 51); otherwise the beneficiary decides (Art. 35), warned before a
    replay that could lose the frame (Art. 46)."""
    receiver = 1 - offender
    end_visit(n, offender)  # doubles: the offender's visit is over (his partner is due next)
    n.agg = s.agg + 1 if aggravated else 0
    if n.agg >= 3:
        n.warning = None
        end_frame(n, receiver, FrameEnd.AGGRAVATED, frames_to_win)
        n.lost_on_foul = True
        return
    if only_seven(s):
        foul_with_only_seven(n, receiver, frames_to_win)
        return
    n.phase = DECISION
    n.striker = receiver
    n.brk = 0
    n.colour_on = False
    n.free_ball = False
    n.pending = Pending(offender, snooker, retorno, (s.reds, s.colours, s.colour_on, s.free_ball),
                        n.last_penalty[1], s.due[offender])
    if n.agg == 2:
        n.warning = LAST_CHANCE
    elif n.warning is LAST_CHANCE:
        n.warning = None
