"""The CBBS 2008 rules engine: a match folded event by event.

A :class:`Match` holds the configuration (contract section 2), the current position and a
stack of earlier positions, so that ``undo`` is an O(1) pop (the python-chess way: every
``apply`` keeps a small immutable snapshot; nothing is recomputed). Events are the contract's
section 3 dicts; the state is section 7's dict. A rejected event raises a :class:`SinucaError`
and changes nothing.

>>> m = Match({"players": ["Ana", "Bia"], "first_breaker": 0})
>>> m.apply({"type": "pot", "balls": [1]}).state["ball_on"]
[2, 3, 4, 5, 6, 7]
>>> m.state()["points_remaining"]
146
"""
from __future__ import annotations

from typing import Any

from .errors import (IllegalFoul, IllegalFreeBall, IllegalPot, InvalidConfig, InvalidEvent,
                     MatchIsOver, NothingToUndo, RetornoNotAllowed, SinucaError, WrongPhase)
from .rules import (ALL_COLOURS_SUM, COLOURS, DISCIPLINARY_FOULS, FOUL_ARTICLE, MAX_FOULS,
                    MAX_PENALTY, MIN_PENALTY, RED_AND_COLOUR, REDS_ALLOWED)

LOT, PLAY, DECISION, FRAME_OVER, MATCH_OVER = "lot", "play", "decision", "frame_over", "match_over"
ANY_COLOURS = COLOURS  # ball on just after a red (Art. 11.1)

_EVENT_FIELDS = {
    "lot": frozenset({"player"}),
    "pot": frozenset({"balls", "free_ball", "nominated"}),
    "no_pot": frozenset({"free_ball", "nominated", "safety"}),
    "foul": frozenset({"ball", "potted", "kind", "retorno", "snooker", "aggravated", "free_ball",
                       "nominated", "player", "grave"}),
    "decision": frozenset({"choice"}),
    "stalemate_warning": frozenset(),
    "restart_frame": frozenset(),
    "concede": frozenset({"player"}),
    "next_frame": frozenset(),
    "concede_match": frozenset({"player"}),
    "disqualify": frozenset({"players"}),
    "undo": frozenset(),
}
EVENT_TYPES = tuple(_EVENT_FIELDS)
"""Every event type of the contract's section 3."""

_PHASE_NAMES = {
    LOT: ("aguardando o sorteio", "waiting for the lot"),
    PLAY: ("em jogo", "in play"),
    DECISION: ("aguardando a decisão do beneficiado", "waiting for the beneficiary's decision"),
    FRAME_OVER: ("partida encerrada", "frame over"),
    MATCH_OVER: ("jogo encerrado", "match over"),
}
# The article that says when each event can happen, cited by wrong_phase.
_EVENT_ARTICLE = {"lot": "17, 18", "pot": "11", "no_pot": "11", "foul": "35", "decision": "25.2, 35",
                  "stalemate_warning": "53", "restart_frame": "53.3", "concede": "50.2",
                  "next_frame": "16, 17", "concede_match": "54.2", "disqualify": "54.4"}

_CONFIG_KEYS = frozenset({"reds", "frames_to_win", "players", "first_breaker", "retorno", "position"})
_POSITION_KEYS = frozenset({"reds_remaining", "colours_remaining", "scores", "striker", "frames"})


class _State:
    """One position of the match. Treated as immutable once built: ``apply`` copies, then edits
    the copy. Tuples everywhere, so a copy shares them safely and costs ~1 µs."""

    __slots__ = ("phase", "frame_number", "first", "breaker", "striker", "scores", "frames", "reds",
                 "colours", "colour_on", "brk", "free_ball", "pending", "decider", "agg", "warning",
                 "warnings", "last_penalty", "frame_winner", "match_winner", "match_result", "highest",
                 "history", "bonus7", "replay")

    def copy(self) -> "_State":
        n = _State.__new__(_State)
        n.phase = self.phase
        n.frame_number = self.frame_number
        n.first = self.first
        n.breaker = self.breaker
        n.striker = self.striker
        n.scores = self.scores
        n.frames = self.frames
        n.reds = self.reds
        n.colours = self.colours
        n.colour_on = self.colour_on
        n.brk = self.brk
        n.free_ball = self.free_ball
        n.pending = self.pending
        n.decider = self.decider
        n.agg = self.agg
        n.warning = self.warning
        n.warnings = self.warnings
        n.last_penalty = self.last_penalty
        n.frame_winner = self.frame_winner
        n.match_winner = self.match_winner
        n.match_result = self.match_result
        n.highest = self.highest
        n.history = self.history
        n.bonus7 = False  # the Art. 50.1 extra 7 is open only right after the 6 that ended the frame
        n.replay = False  # the stroke after a retorno is a replay until the next event
        return n

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _State) and all(
            getattr(self, k) == getattr(other, k) for k in _State.__slots__)


class _Pending:
    """A foul waiting for the beneficiary's choice (Art. 25.2, 35)."""

    __slots__ = ("offender", "snooker", "retorno", "table")

    def __init__(self, offender: int, snooker: bool, retorno: bool, table: tuple) -> None:
        self.offender = offender
        self.snooker = snooker
        self.retorno = retorno
        self.table = table  # (reds, colours, colour_on, free_ball) before the fouled stroke (Art. 25.3.2)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Pending) and (self.offender, self.snooker, self.retorno, self.table) == (
            other.offender, other.snooker, other.retorno, other.table)


# ---------------------------------------------------------------------------------------------
# Derived figures (contract section 7)

def _on(s: _State) -> tuple:
    """Ball(s) on for the next stroke, whatever the phase: the decider's 7, any colour just after
    a red (Art. 11.1), a red while reds remain, else the lowest colour (Art. 11.2)."""
    if s.decider:
        return (7,)
    if s.colour_on:
        return ANY_COLOURS
    if s.reds:
        return (1,)
    return s.colours[:1]



def _points_remaining(s: _State) -> int:
    """Most points the striker can still make from the table as it lies (Art. 6), without the
    free-ball bonus of Art. 7."""
    if s.phase in (LOT, FRAME_OVER, MATCH_OVER):
        return 0
    if s.decider:
        return 7
    if s.colour_on:
        return 7 + RED_AND_COLOUR * s.reds + ALL_COLOURS_SUM
    if s.reds:
        return RED_AND_COLOUR * s.reds + ALL_COLOURS_SUM
    return sum(s.colours)


def _snookers_required(s: _State, remaining: int) -> int:
    """Snookers the player behind needs: ``ceil((deficit - remaining) / max(4, v))`` with ``v`` the
    lowest ball on, each snooker worth at least the Art. 40 minimum."""
    if s.phase not in (PLAY, DECISION):
        return 0
    deficit = abs(s.scores[0] - s.scores[1])
    if deficit <= remaining:
        return 0
    on = _on(s)
    per = max(MIN_PENALTY, on[0] if on else MIN_PENALTY)
    return -(-(deficit - remaining) // per)


def _public(s: _State) -> dict:
    """The contract's state dict (section 7), every field present, fresh lists."""
    if s.phase == PLAY:
        ball_on = list(_on(s))
    elif s.bonus7:
        ball_on = [7]
    else:
        ball_on = []
    remaining = _points_remaining(s)
    p = s.pending
    return {
        "phase": s.phase,
        "frame_number": s.frame_number,
        "breaker": s.breaker,
        "striker": s.striker,
        "scores": list(s.scores),
        "frames": list(s.frames),
        "reds_remaining": s.reds,
        "colours_remaining": list(s.colours),
        "ball_on": ball_on,
        "points_remaining": remaining,
        "snookers_required": _snookers_required(s, remaining),
        "break": s.brk,
        "free_ball": s.free_ball,
        "decision_options": (["play", "pass", "retorno"] if p.retorno else ["play", "pass"]) if p else [],
        "decider": s.decider,
        "aggravated_fouls": s.agg,
        "warning": s.warning,
        "warnings": list(s.warnings),
        "last_penalty": {"player": s.last_penalty[0], "points": s.last_penalty[1]} if s.last_penalty else None,
        "frame_winner": s.frame_winner,
        "match_winner": s.match_winner,
        "match_result": s.match_result,
        "highest_break": list(s.highest),
        "history": [{"frame": f, "scores": list(sc), "winner": w, "ended_by": e} for f, sc, w, e in s.history],
    }


def _add(pair: tuple, player: int, points: int) -> tuple:
    return (pair[0] + points, pair[1]) if player == 0 else (pair[0], pair[1] + points)


# ---------------------------------------------------------------------------------------------
# Configuration (contract section 2)

def _is_int(v: Any) -> bool:
    return type(v) is int  # bools are ints in Python; the contract's ints are not


def _bad_config(pt: str, en: str) -> InvalidConfig:
    return InvalidConfig(f"Configuração inválida: {pt}", f"Invalid configuration: {en}")


def normalize_config(config: Any) -> dict:
    """Check a match configuration and fill in its defaults.

    Args:
        config: the contract's section-2 dict.
    Returns:
        a new dict with ``reds``, ``frames_to_win``, ``players``, ``retorno`` always present, and
        ``first_breaker`` / ``position`` when given.
    Raises:
        InvalidConfig: a key is unknown, missing or out of range (Art. 1, 54.1).
    """
    if not isinstance(config, dict):
        raise _bad_config("esperado um objeto JSON", "expected a JSON object")
    unknown = set(config) - _CONFIG_KEYS
    if unknown:
        raise _bad_config(f"chave desconhecida {sorted(unknown)[0]!r}", f"unknown key {sorted(unknown)[0]!r}")
    reds = config.get("reds", 15)
    if not _is_int(reds) or reds not in REDS_ALLOWED:
        raise _bad_config("reds deve ser 6, 10 ou 15 (Art. 1)", "reds must be 6, 10 or 15 (Art. 1)")
    ftw = config.get("frames_to_win", 1)
    if not _is_int(ftw) or ftw < 1:
        raise _bad_config("frames_to_win deve ser um inteiro >= 1 (Art. 54.1)",
                          "frames_to_win must be an integer >= 1 (Art. 54.1)")
    players = config.get("players")
    if (not isinstance(players, list) or len(players) != 2
            or not all(isinstance(p, str) and p.strip() for p in players)):
        raise _bad_config("players deve ser uma lista de dois nomes", "players must be a list of two names")
    out: dict = {"reds": reds, "frames_to_win": ftw, "players": [p.strip() for p in players]}
    if "first_breaker" in config and config["first_breaker"] is not None:
        fb = config["first_breaker"]
        if fb not in (0, 1) or not _is_int(fb):
            raise _bad_config("first_breaker deve ser 0 ou 1 (Art. 17)", "first_breaker must be 0 or 1 (Art. 17)")
        out["first_breaker"] = fb
    retorno = config.get("retorno", True)
    if type(retorno) is not bool:
        raise _bad_config("retorno deve ser true ou false (Art. 29)", "retorno must be true or false (Art. 29)")
    out["retorno"] = retorno
    if "position" in config and config["position"] is not None:
        out["position"] = _normalize_position(config["position"], reds, ftw)
    return out


def _normalize_position(pos: Any, reds: int, ftw: int) -> dict:
    if not isinstance(pos, dict):
        raise _bad_config("position deve ser um objeto", "position must be an object")
    unknown = set(pos) - _POSITION_KEYS
    if unknown:
        raise _bad_config(f"chave desconhecida em position: {sorted(unknown)[0]!r}",
                          f"unknown key in position: {sorted(unknown)[0]!r}")
    r = pos.get("reds_remaining", reds)
    if not _is_int(r) or not 0 <= r <= reds:
        raise _bad_config(f"reds_remaining deve estar entre 0 e {reds}", f"reds_remaining must be 0 to {reds}")
    cols = pos.get("colours_remaining", list(COLOURS))
    # Colours leave the table only in ascending order once the reds are gone (Art. 11.2, 12.2),
    # so what remains is always n..7.
    if (not isinstance(cols, list) or not cols or not all(_is_int(c) for c in cols)
            or cols != list(range(cols[0], 8)) or cols[0] < 2):
        raise _bad_config("colours_remaining deve ser n..7 em ordem crescente (Art. 11.2)",
                          "colours_remaining must be n..7 ascending (Art. 11.2)")
    if r and cols != list(COLOURS):
        raise _bad_config("com vermelhas na mesa todas as coloridas estão em jogo (Art. 12.1)",
                          "while reds remain every colour is on the table (Art. 12.1)")
    scores = pos.get("scores", [0, 0])
    if not (isinstance(scores, list) and len(scores) == 2 and all(_is_int(x) and x >= 0 for x in scores)):
        raise _bad_config("scores deve ser [int, int] >= 0", "scores must be [int, int] >= 0")
    striker = pos.get("striker")
    if not _is_int(striker) or striker not in (0, 1):
        raise _bad_config("position.striker (0 ou 1) é obrigatório", "position.striker (0 or 1) is required")
    frames = pos.get("frames", [0, 0])
    if not (isinstance(frames, list) and len(frames) == 2
            and all(_is_int(x) and 0 <= x < ftw for x in frames)):
        raise _bad_config(f"frames deve ser [int, int] entre 0 e {ftw - 1}",
                          f"frames must be [int, int] from 0 to {ftw - 1}")
    return {"reds_remaining": r, "colours_remaining": list(cols), "scores": list(scores),
            "striker": striker, "frames": list(frames)}


def _initial(config: dict) -> _State:
    s = _State.__new__(_State)
    s.phase = LOT
    s.frame_number = 1
    s.first = config.get("first_breaker")
    s.breaker = s.striker = None
    s.scores = s.frames = s.highest = s.warnings = (0, 0)
    s.reds = config["reds"]
    s.colours = COLOURS
    s.colour_on = s.free_ball = s.decider = s.bonus7 = s.replay = False
    s.brk = s.agg = 0
    s.pending = s.warning = s.last_penalty = None
    s.frame_winner = s.match_winner = s.match_result = None
    s.history = ()
    pos = config.get("position")
    if pos:
        s.phase = PLAY
        s.frames = tuple(pos["frames"])
        s.frame_number = s.frames[0] + s.frames[1] + 1
        s.reds = pos["reds_remaining"]
        s.colours = tuple(pos["colours_remaining"])
        s.scores = tuple(pos["scores"])
        s.striker = pos["striker"]
        if s.first is None:  # the striker of the position is taken as this frame's breaker
            s.first = s.striker if s.frame_number % 2 else 1 - s.striker
        s.breaker = _breaker_of(s.first, s.frame_number)
    elif s.first is not None:
        s.phase = PLAY
        s.breaker = s.striker = s.first
    return s


def _breaker_of(first: int, frame_number: int) -> int:
    """Break-offs alternate frame by frame from the lot's winner (Art. 17)."""
    return first if frame_number % 2 else 1 - first


def _new_frame(s: _State, reds: int) -> None:
    """Full rack for ``s.frame_number``: scores 0, the frame's breaker at the table (Art. 16)."""
    s.phase = PLAY
    s.breaker = s.striker = _breaker_of(s.first, s.frame_number)
    s.scores = (0, 0)
    s.reds = reds
    s.colours = COLOURS
    s.colour_on = s.free_ball = s.decider = False
    s.brk = s.agg = 0
    s.pending = s.warning = s.last_penalty = s.frame_winner = None


# ---------------------------------------------------------------------------------------------
# Event field checks

def _bad_event(pt: str, en: str) -> InvalidEvent:
    return InvalidEvent(f"Evento inválido: {pt}", f"Invalid event: {en}")


def _opt_ball(ev: dict, key: str, lo: int = 1) -> int | None:
    v = ev.get(key)
    if v is None:
        return None
    if not _is_int(v) or not lo <= v <= 7:
        raise _bad_event(f"{key} deve ser uma bola de {lo} a 7", f"{key} must be a ball from {lo} to 7")
    return v


def _opt_bool(ev: dict, key: str) -> bool:
    v = ev.get(key, False)
    if v is None:
        return False
    if type(v) is not bool:
        raise _bad_event(f"{key} deve ser true ou false", f"{key} must be true or false")
    return v


def _player(ev: dict, key: str = "player", required: bool = True) -> int | None:
    v = ev.get(key)
    if v is None and not required:
        return None
    if not _is_int(v) or v not in (0, 1):
        raise _bad_event(f"{key} deve ser 0 ou 1", f"{key} must be 0 or 1")
    return v


def _ball_list(ev: dict, key: str, required: bool) -> list:
    v = ev.get(key)
    if v is None and not required:
        return []
    if not isinstance(v, list) or (required and not v) or not all(_is_int(b) and 1 <= b <= 7 for b in v):
        raise _bad_event(f"{key} deve ser uma lista{' não vazia' if required else ''} de bolas de 1 a 7",
                         f"{key} must be a{' non-empty' if required else ''} list of balls 1 to 7")
    return v


def _check_on_table(s: _State, balls: list, err: type, what_pt: str, what_en: str) -> int:
    """Count the reds in ``balls`` and check every ball listed is on the table."""
    reds = 0
    seen = set()
    for b in balls:
        if b == 1:
            reds += 1
        elif b in seen:
            raise err(f"{what_pt}: a bola {b} aparece duas vezes", f"{what_en}: ball {b} is listed twice")
        elif b not in s.colours:
            raise err(f"{what_pt}: a bola {b} não está na mesa", f"{what_en}: ball {b} is not on the table")
        else:
            seen.add(b)
    if reds > s.reds:
        raise err(f"{what_pt}: só restam {s.reds} vermelhas", f"{what_en}: only {s.reds} reds remain")
    return reds


def _free_ball_choices(s: _State) -> tuple:
    """Colours that may be nominated as a free ball: any colour on the table but the ball on
    (Art. 4, 36.2)."""
    if not s.free_ball:
        return ()
    if s.reds:
        return s.colours
    return s.colours[1:]


def _check_free_ball(s: _State, ev: dict) -> int | None:
    fb = _opt_ball(ev, "free_ball", 2)
    if fb is None:
        return None
    if not s.free_ball:
        raise IllegalFreeBall("Bola livre não concedida: só após falta que deixa sinuca, com 'jogar' (Art. 4, 36)",
                              "No free ball: only after a foul that leaves a snooker, on 'play' (Art. 4, 36)")
    if fb not in _free_ball_choices(s):
        raise IllegalFreeBall(f"A bola {fb} não pode ser bola livre: deve ser uma colorida na mesa que não a "
                              f"bola da vez (Art. 4)",
                              f"Ball {fb} cannot be the free ball: it must be a colour on the table other than "
                              f"the ball on (Art. 4)")
    return fb


def _check_nominated(s: _State, ev: dict, err: type) -> int | None:
    nom = _opt_ball(ev, "nominated", 2)
    if nom is not None and nom not in s.colours:
        raise err(f"A bola cantada {nom} não está na mesa (Art. 19)",
                  f"The nominated ball {nom} is not on the table (Art. 19)")
    return nom


# ---------------------------------------------------------------------------------------------

class Step:
    """The outcome of one applied (or previewed) event.

    Attributes:
        event: the event dict as applied.
        index: 0-based position of the event in the match's log.
    Properties ``state`` (contract section 7 dict) and ``description`` (``{"pt", "en"}``
    one-liners citing the article) are computed on first use, so a replay pays nothing for them.
    """

    __slots__ = ("event", "index", "_before", "_after", "_info", "_config", "_state")

    def __init__(self, event: dict, index: int, before: _State, after: _State, info: dict,
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
            self._state = _public(self._after)
        return self._state

    @property
    def foul(self) -> dict | None:
        """For a ``foul`` event: ``{"penalty", "receiver", "offender", "kind", "article"}``, the
        points given (Art. 40-43), to whom, by whom, the foul kind and the article applied;
        ``None`` for other events."""
        i = self._info
        if "penalty" not in i:
            return None
        return {"penalty": i["penalty"], "receiver": i["receiver"], "offender": i["offender"],
                "kind": i["kind"], "article": i["article"]}

    @property
    def description(self) -> dict:
        """``{"pt": "Falta de Ana: 5 pontos para Bia (Art. 40)", "en": "Foul by Ana: …"}``."""
        from .describe import describe
        return describe(self.event, self._info, self._before, self._after, self._config["players"])

    def __repr__(self) -> str:
        return f"<Step {self.index} {self.event!r}>"


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
        self._s = _initial(self.config)
        self._stack: list[_State] = []
        self._keep = keep_history
        self._count = 0  # events applied, undo included

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
            the :class:`Step` (new state, description).
        Raises:
            SinucaError: a subclass carrying the contract's code; the match is unchanged.
        """
        before = self._s
        after, info = self._next(event)
        if info.get("undo"):
            self._stack.pop()
        elif self._keep:
            self._stack.append(before)
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
        return _public(self._s)

    @property
    def can_undo(self) -> bool:
        """Whether an event is left to take back."""
        return bool(self._stack)

    def options(self) -> dict:
        """What the referee may enter now, so a UI enables only legal buttons.

        Returns:
            ``{"events": [types allowed now], "pot": [balls on], "max_reds": int,
            "free_ball": [colours nominable as free ball], "decision_options": [...],
            "bonus_seven": bool, "retorno_enabled": bool, "free_ball_offered": bool,
            "retorno_replay": bool}``: ``free_ball_offered`` while a decision is pending on a
            foul that left a snooker ("play" brings a free ball, Art. 36); ``retorno_replay``
            while the offender replays after a retorno (Art. 25.3).
        """
        s = self._s
        ph = s.phase
        if ph == PLAY:
            events = ["pot", "no_pot", "foul", "stalemate_warning", "restart_frame", "concede"]
        elif ph == DECISION:
            events = ["decision", "foul", "restart_frame", "concede"]
        elif ph == LOT:
            events = ["lot"]
        elif ph == FRAME_OVER:
            events = ["next_frame"]
        else:
            events = []
        if s.bonus7:
            events.insert(0, "pot")
        if ph != MATCH_OVER:
            events += ["concede_match", "disqualify"]
        if self._stack:
            events.append("undo")
        on = list(_on(s)) if ph == PLAY else ([7] if s.bonus7 else [])
        return {
            "events": events,
            "pot": on,
            "max_reds": s.reds if on == [1] else 0,
            "free_ball": list(_free_ball_choices(s)) if ph == PLAY else [],
            "decision_options": _public(s)["decision_options"],
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
            "ends_frame", "ends_match", "state", "error"}``: the penalty (Art. 40-43) and its
            receiver, whether ``retorno: true`` would be accepted (Art. 26, 29) and if not why
            (``{"pt", "en"}``), whether the foul ends the frame or the match, the state after it
            (``None`` on error), and the error (``{"code", "message"}``) if the foul is refused.
        """
        ev = dict(event)
        ev["type"] = "foul"
        out: dict = {"penalty": None, "receiver": None, "article": None, "retorno_allowed": False,
                     "retorno_reason": None, "ends_frame": False, "ends_match": False, "state": None,
                     "error": None}
        wanted = ev.get("retorno") is True
        try:
            ev_plain = dict(ev, retorno=False)
            step = self.preview(ev_plain)
        except SinucaError as e:
            out["error"] = e.as_dict()
            return out
        info = step._info
        out.update(penalty=info["penalty"], receiver=info["receiver"], article=info["article"])
        try:
            self.preview(dict(ev, retorno=True))
            out["retorno_allowed"] = True
        except RetornoNotAllowed as e:
            out["retorno_reason"] = {"pt": e.message_pt, "en": e.message_en}
        except SinucaError as e:
            out["retorno_reason"] = {"pt": e.message_pt, "en": e.message_en}
        if wanted and out["retorno_allowed"]:
            step = self.preview(ev)
        elif wanted:
            out["error"] = {"code": RetornoNotAllowed.code,
                            "message": f"{out['retorno_reason']['pt']} / {out['retorno_reason']['en']}"}
        after = step._after
        out["state"] = step.state
        out["ends_match"] = after.phase == MATCH_OVER
        out["ends_frame"] = after.phase in (FRAME_OVER, MATCH_OVER) or (after.decider and not self._s.decider)
        return out

    def __len__(self) -> int:
        """Events applied so far (undo events included)."""
        return self._count

    # -- the rules ---------------------------------------------------------------------------

    def _next(self, ev: Any) -> tuple[_State, dict]:
        if not isinstance(ev, dict):
            raise _bad_event("esperado um objeto JSON", "expected a JSON object")
        kind = ev.get("type")
        fields = _EVENT_FIELDS.get(kind) if isinstance(kind, str) else None
        if fields is None:
            raise _bad_event(f"tipo desconhecido {kind!r}", f"unknown type {kind!r}")
        for key in ev:
            if key != "type" and key not in fields:
                raise _bad_event(f"campo desconhecido {key!r} em {kind}", f"unknown field {key!r} in {kind}")
        return getattr(self, "_ev_" + kind)(self._s, ev)

    def _phase(self, s: _State, kind: str, *allowed: str) -> None:
        if s.phase in allowed:
            return
        if s.phase == MATCH_OVER:
            raise MatchIsOver("O jogo terminou: só é possível desfazer (Art. 54)",
                              "The match is over: only undo is possible (Art. 54)")
        pt, en = _PHASE_NAMES[s.phase]
        art = _EVENT_ARTICLE[kind]
        raise WrongPhase(f"'{kind}' não é permitido agora ({pt}) (Art. {art})",
                         f"'{kind}' is not allowed now ({en}) (Art. {art})")

    def _ev_undo(self, s: _State, ev: dict) -> tuple[_State, dict]:
        if not self._stack:
            raise NothingToUndo("Nada a desfazer", "Nothing to undo")
        return self._stack[-1], {"undo": True}

    def _ev_lot(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 17: the lot decides who breaks off; Art. 18, 52: also who starts the decider."""
        p = _player(ev)
        self._phase(s, "lot", LOT)
        n = s.copy()
        n.phase = PLAY
        n.striker = p
        if not s.decider:
            n.first = n.breaker = p
        return n, {"player": p}

    def _ev_pot(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 11-14, 37, 50.1: a legal stroke that potted ``balls``."""
        balls = _ball_list(ev, "balls", True)
        fb = _opt_ball(ev, "free_ball", 2)
        nom = _opt_ball(ev, "nominated", 2)
        if s.bonus7:
            # Contract section 4: the 7 after the 6 that ended the frame (Art. 50.1 vs 6.1).
            if balls != [7] or fb is not None:
                raise IllegalPot("Após a bola 6 que encerrou a partida só a 7 pode ser encaçapada (Art. 6.1, 50.1)",
                                 "After the 6 that ended the frame only the 7 may be potted (Art. 6.1, 50.1)")
            n = s.copy()
            p = s.striker
            n.scores = _add(s.scores, p, 7)
            n.brk = s.brk + 7
            if n.brk > s.highest[p]:
                n.highest = (n.brk, s.highest[1]) if p == 0 else (s.highest[0], n.brk)
            f, _, w, e = s.history[-1]
            n.history = s.history[:-1] + ((f, n.scores, w, e),)
            return n, {"points": 7, "bonus": True}
        self._phase(s, "pot", PLAY)
        if fb is not None:
            fb = _check_free_ball(s, ev)
        reds = _check_on_table(s, balls, IllegalPot, "Encaçapada ilegal", "Illegal pot")
        cols = [b for b in balls if b != 1]
        if nom is not None:
            _check_nominated(s, ev, IllegalPot)
        n = s.copy()
        p = s.striker
        info: dict = {"balls": balls}
        end = None
        if s.decider:
            if balls != [7]:
                raise _illegal_pot((7,))
            points = 7
            end = "decider"
        elif fb is not None:
            # Art. 4, 37: the free ball counts as the ball on; Art. 14: with reds, 1 point each.
            if s.reds:
                if cols and cols != [fb]:
                    raise IllegalPot(f"Com bola livre {fb} e vermelha da vez só valem vermelhas e a {fb} (Art. 14, 47.12)",
                                     f"With free ball {fb} and red on only reds and the {fb} count (Art. 14, 47.12)")
                points = len(balls)
                n.reds = s.reds - reds
                n.colour_on = True  # Art. 37.1: a colour follows
            else:
                on = s.colours[0]
                if reds or any(c not in (fb, on) for c in cols):
                    raise IllegalPot(f"Com bola livre {fb} e bola da vez {on} só valem essas duas (Art. 14, 47.12)",
                                     f"With free ball {fb} and ball on {on} only those two count (Art. 14, 47.12)")
                points = on  # Art. 37.2, 14: the free ball scores the ball on's value, once
                if on in cols:
                    n.colours = s.colours[1:]  # the ball on stays off (Art. 12.2)
                    if on == 6 and abs(s.scores[0] - s.scores[1] + (on if p == 0 else -on)) > 7:
                        end = "pot6"
            info["free_ball"] = fb
        elif s.colour_on:
            if reds or len(cols) != 1:
                raise IllegalPot("Após a vermelha encaçapa-se uma só colorida (Art. 11.1, 47.12)",
                                 "After a red exactly one colour may be potted (Art. 11.1, 47.12)")
            if nom is not None and nom != cols[0]:
                raise IllegalPot(f"Foi cantada a {nom}, não a {cols[0]} (Art. 19, 47.17)",
                                 f"The {nom} was nominated, not the {cols[0]} (Art. 19, 47.17)")
            points = cols[0]
            n.colour_on = False  # re-spotted (Art. 12.1); a red follows, or the 2 (Art. 12.4)
        elif s.reds:
            if cols:
                raise _illegal_pot((1,))
            points = reds  # Art. 14: one point a red
            n.reds = s.reds - reds
            n.colour_on = True  # Art. 11.1
        else:
            on = s.colours[0]
            if balls != [on]:
                raise _illegal_pot((on,))
            points = on
            n.colours = s.colours[1:]  # Art. 12.2: stays off
            if on == 7:
                end = "pot7"
            elif on == 6 and abs(s.scores[0] - s.scores[1] + (6 if p == 0 else -6)) > 7:
                end = "pot6"
        n.scores = _add(s.scores, p, points)
        n.brk = s.brk + points
        if n.brk > s.highest[p]:
            n.highest = (n.brk, s.highest[1]) if p == 0 else (s.highest[0], n.brk)
        # A legal stroke ends the retorno chain (contract 4) and clears the stalemate warning (Art. 53).
        n.free_ball = False
        n.agg = 0
        n.warning = None
        info["points"] = points
        if end == "decider":
            _end_frame(n, p, "decider", self.config)
        elif end == "pot7":
            # Art. 50.1, 52: the 7 ends the frame for the leader; level scores go to the decider.
            if n.scores[0] == n.scores[1]:
                _start_decider(n)
            else:
                _end_frame(n, 0 if n.scores[0] > n.scores[1] else 1, "pot", self.config)
        elif end == "pot6":
            # Art. 50.1: the 6 with a lead above 7 ends the frame; the 7 may still be potted (Art. 6.1).
            _end_frame(n, 0 if n.scores[0] > n.scores[1] else 1, "pot", self.config)
            n.bonus7 = True
        return n, info

    def _ev_no_pot(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 11, 12.4: the visit ends, the opponent plays the ball on."""
        _opt_ball(ev, "free_ball", 2)
        _opt_ball(ev, "nominated", 2)
        safety = _opt_bool(ev, "safety")
        self._phase(s, "no_pot", PLAY)
        _check_free_ball(s, ev)
        _check_nominated(s, ev, IllegalPot)
        n = s.copy()
        n.striker = 1 - s.striker
        n.brk = 0
        n.colour_on = False  # Art. 12.4: a miss after the last red leaves the 2 on
        n.free_ball = False
        n.agg = 0
        if s.warning == "aggravated_last_chance":
            n.warning = None
        return n, {"safety": safety}

    def _ev_foul(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 35-49, 51: a foul, its penalty, and what follows it."""
        kind = ev.get("kind", "other")
        if kind is None:
            kind = "other"
        if not isinstance(kind, str) or kind not in FOUL_ARTICLE:
            raise _bad_event(f"tipo de falta desconhecido {kind!r}", f"unknown foul kind {kind!r}")
        ball = _opt_ball(ev, "ball")
        potted = _ball_list(ev, "potted", False)
        retorno = _opt_bool(ev, "retorno")
        snooker = _opt_bool(ev, "snooker")
        aggravated = _opt_bool(ev, "aggravated")
        grave = _opt_bool(ev, "grave")
        _opt_ball(ev, "free_ball", 2)
        nom = _opt_ball(ev, "nominated", 2)
        offender = _player(ev, required=False)
        disciplinary = kind in DISCIPLINARY_FOULS
        if s.phase in (PLAY, DECISION) and offender is None:
            offender = s.striker
        seated = offender is not None and offender != s.striker
        if s.phase == DECISION and not (disciplinary and seated):
            raise WrongPhase("Aguardando a decisão do beneficiado; só uma falta disciplinar do outro jogador "
                             "cabe agora (Art. 35)",
                             "Waiting for the beneficiary's decision; only a disciplinary foul by the other "
                             "player fits now (Art. 35)")
        self._phase(s, "foul", PLAY, DECISION)
        if seated and not disciplinary:
            raise IllegalFoul("Só uma falta disciplinar pode ser do jogador fora da mesa (Art. 42, 49)",
                              "Only a disciplinary foul can be committed by the seated player (Art. 42, 49)")
        if grave and not disciplinary:
            raise IllegalFoul("Falta grave só para faltas disciplinares (Art. 43)",
                              "A grave foul must be of a disciplinary kind (Art. 43)")
        receiver = 1 - offender
        article = FOUL_ARTICLE[kind]
        n = s.copy()
        n.warning = None if s.warning == "stalemate" else s.warning  # Art. 53: a foul changes the play
        if seated:
            # Contract 4.6: a disciplinary foul by the seated player; the striker plays on.
            if retorno:
                raise RetornoNotAllowed("Não há retorno para falta de quem não está jogando (Art. 25)",
                                        "No replay for a foul by the player not at the table (Art. 25)")
            if potted or snooker or aggravated or ev.get("free_ball") is not None or ball is not None:
                raise IllegalFoul("Falta do jogador fora da mesa não envolve bolas (Art. 49)",
                                  "A foul by the seated player involves no ball (Art. 49)")
            penalty = MAX_PENALTY  # Art. 42, 43
        else:
            _check_free_ball(s, ev)
            if kind == "free_ball_snooker":
                # Art. 38, 47.16: only on a free-ball stroke, and not with only the 6 and 7 left.
                if not s.free_ball:
                    raise IllegalFoul("Sinuca com bola livre exige uma jogada de bola livre (Art. 47.16)",
                                      "A free-ball snooker needs a free-ball stroke (Art. 47.16)")
                if not s.reds and s.colours == (6, 7):
                    raise IllegalFoul("Com só as bolas 6 e 7 na mesa a bola livre pode ser o primeiro obstáculo "
                                      "(Art. 38)",
                                      "With only the 6 and 7 on the table the free ball may be the first "
                                      "obstacle (Art. 38)")
            if nom is not None:
                _check_nominated(s, ev, IllegalFoul)
            if ball is not None and not (s.reds if ball == 1 else ball in s.colours):
                raise IllegalFoul(f"A bola {ball} não está na mesa (Art. 45)",
                                  f"Ball {ball} is not on the table (Art. 45)")
            red_count = _check_on_table(s, potted, IllegalFoul, "Falta", "Foul")
            if kind in MAX_FOULS or disciplinary:
                penalty = MAX_PENALTY  # Art. 41, 42, 43, 48, 49
            elif s.colour_on and nom is None:
                penalty = MAX_PENALTY  # Art. 48.3: a foul before nominating the colour after a red
                article = "48.3"
            else:
                if s.decider:
                    aimed = 7
                elif s.colour_on:
                    aimed = nom  # Art. 19, 40a: the nominated colour
                elif s.reds:
                    aimed = 1  # also on a free-ball stroke: its value is the ball on's (Art. 4)
                else:
                    aimed = s.colours[0]
                # Art. 40, 45: the highest ball involved; a ball potted in the foul is involved.
                penalty = max(MIN_PENALTY, aimed, ball or 0, max(potted) if potted else 0)
                article = "40"
            only_seven = s.decider or (not s.reds and s.colours == (7,))
            if retorno:
                self._check_retorno(s, kind, offender, receiver, penalty, red_count, snooker, only_seven)
            n.reds = s.reds - red_count  # Art. 15: reds potted in a foul stay off; colours re-spot (12.3)
        n.scores = _add(s.scores, receiver, penalty)
        n.last_penalty = (receiver, penalty)
        info = {"penalty": penalty, "receiver": receiver, "offender": offender, "article": article,
                "kind": kind}
        if disciplinary:
            # Art. 42: a warning; the second, or a grave foul (Art. 43), disqualifies (Art. 54.3).
            n.warnings = _add(s.warnings, offender, 1)
            if grave or n.warnings[offender] >= 2:
                _end_match(n, receiver, "disqualification")
                info["disqualified"] = offender
                return n, info
        if seated:
            if s.phase == PLAY and (s.decider or (not s.reds and s.colours == (7,))):
                self._foul_on_seven(n, offender, receiver)
            return n, info
        # Art. 27, 44.2: the third consecutive aggravated foul of a retorno chain loses the frame.
        n.agg = s.agg + 1 if aggravated else 0
        if n.agg >= 3:
            n.warning = None
            _end_frame(n, receiver, "aggravated", self.config)
            return n, info
        if s.decider or (not s.reds and s.colours == (7,)):
            self._foul_on_seven(n, offender, receiver)
            return n, info
        n.phase = DECISION
        n.striker = receiver
        n.brk = 0
        n.colour_on = False
        n.free_ball = False
        n.pending = _Pending(offender, snooker, retorno, (s.reds, s.colours, s.colour_on, s.free_ball))
        if n.agg == 2:
            n.warning = "aggravated_last_chance"  # Art. 46: warn before the replay that can lose the frame
        elif n.warning == "aggravated_last_chance":
            n.warning = None
        return n, info

    def _foul_on_seven(self, n: _State, offender: int, receiver: int) -> None:
        """Art. 51, 52: with only the 7 left any foul loses the frame, unless it levels the scores."""
        n.agg = 0
        n.warning = None
        if n.scores[0] == n.scores[1]:
            _start_decider(n)
        else:
            # A decider settled by a foul is still recorded as decided in the decider (Art. 52).
            _end_frame(n, receiver, "decider" if n.decider else "foul", self.config)

    def _check_retorno(self, s: _State, kind: str, offender: int, receiver: int, penalty: int,
                       red_count: int, snooker: bool, only_seven: bool) -> None:
        """Art. 26, 29: when "falta e retorno" cannot be called."""
        if not self.config["retorno"]:
            raise RetornoNotAllowed("O regulamento do evento não concede retorno (Art. 29)",
                                    "The event regulation grants no replay (Art. 29)")
        if only_seven:
            raise RetornoNotAllowed("Sem retorno com só a tacadeira e a bola 7 em jogo (Art. 26.1)",
                                    "No replay with only the cue ball and the 7 left (Art. 26.1)")
        if kind == "compulsory":
            raise RetornoNotAllowed("Sem retorno em falta compulsória (Art. 26.4)",
                                    "No replay on a compulsory foul (Art. 26.4)")
        # Art. 26.2 (contract 6): the beneficiary, after the penalty, on the table as it lies.
        reds = s.reds - red_count
        remaining = RED_AND_COLOUR * reds + ALL_COLOURS_SUM if reds else sum(s.colours)
        bonus = (RED_AND_COLOUR if reds else s.colours[0]) if snooker else 0  # Art. 7
        deficit = s.scores[offender] - (s.scores[receiver] + penalty)
        if deficit > remaining + bonus:
            raise RetornoNotAllowed(
                f"Sem retorno: o beneficiado está {deficit} pontos atrás e só restam {remaining + bonus} "
                f"possíveis (Art. 26.2)",
                f"No replay: the beneficiary is {deficit} behind with only {remaining + bonus} points "
                f"left (Art. 26.2)")

    def _ev_decision(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 25.2, 35: the beneficiary plays, passes, or asks for the replay."""
        choice = ev.get("choice")
        if choice not in ("play", "pass", "retorno"):
            raise _bad_event("choice deve ser 'play', 'pass' ou 'retorno'",
                             "choice must be 'play', 'pass' or 'retorno'")
        self._phase(s, "decision", DECISION)
        p = s.pending
        if choice == "retorno" and not p.retorno:
            raise RetornoNotAllowed("O árbitro não anunciou 'falta e retorno' nesta falta (Art. 25.1)",
                                    "The referee did not call 'foul and replay' on this foul (Art. 25.1)")
        n = s.copy()
        n.phase = PLAY
        n.pending = None
        n.brk = 0
        if choice == "play":
            n.free_ball = p.snooker  # Art. 36
        elif choice == "pass":
            n.striker = p.offender
            n.free_ball = False  # Art. 25.4, 35.4 (contract 6: no free ball after a pass)
        else:
            # Art. 25.3.2, 30: the table as before the fouled stroke, reds included; penalty stands.
            n.striker = p.offender
            n.reds, n.colours, n.colour_on, n.free_ball = p.table
            n.replay = True
            return n, {"choice": choice, "offender": p.offender}
        n.agg = 0  # play and pass end the retorno chain
        if s.warning == "aggravated_last_chance":
            n.warning = None
        return n, {"choice": choice, "offender": p.offender}

    def _ev_stalemate_warning(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 53.1: the referee warns that the next stroke must change the position."""
        self._phase(s, "stalemate_warning", PLAY)
        n = s.copy()
        n.warning = "stalemate"
        n.replay = s.replay
        return n, {}

    def _ev_restart_frame(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 53.3: the frame is void and re-racked, the same player breaking."""
        self._phase(s, "restart_frame", PLAY, DECISION)
        n = s.copy()
        _new_frame(n, self.config["reds"])
        return n, {}

    def _ev_concede(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 50.2: a player concedes the frame."""
        p = _player(ev)
        self._phase(s, "concede", PLAY, DECISION)
        n = s.copy()
        _end_frame(n, 1 - p, "concession", self.config)
        return n, {"player": p}

    def _ev_next_frame(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 16, 17: a new rack; break-offs alternate by frame number."""
        self._phase(s, "next_frame", FRAME_OVER)
        n = s.copy()
        n.frame_number = s.frame_number + 1
        _new_frame(n, self.config["reds"])
        return n, {}

    def _ev_concede_match(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 54.2: a player concedes the match."""
        p = _player(ev)
        if s.phase == MATCH_OVER:
            self._phase(s, "concede_match")
        n = s.copy()
        _end_match(n, 1 - p, "concession")
        return n, {"player": p}

    def _ev_disqualify(self, s: _State, ev: dict) -> tuple[_State, dict]:
        """Art. 54.4, 55: disqualification of one player, or of both at once."""
        players = ev.get("players")
        if (not isinstance(players, list) or not players or len(players) > 2
                or not all(_is_int(x) and x in (0, 1) for x in players) or len(set(players)) != len(players)):
            raise _bad_event("players deve ser [0], [1] ou [0, 1]", "players must be [0], [1] or [0, 1]")
        if s.phase == MATCH_OVER:
            self._phase(s, "disqualify")
        n = s.copy()
        if len(players) == 2:
            _end_match(n, None, "both_disqualified")
        else:
            _end_match(n, 1 - players[0], "disqualification")
        return n, {"players": sorted(players)}


def _illegal_pot(on: tuple) -> IllegalPot:
    names = ", ".join(str(b) for b in on)
    return IllegalPot(f"Encaçapada ilegal: a bola da vez é {names}; registre uma falta (Art. 11, 47.12)",
                      f"Illegal pot: the ball on is {names}; record a foul instead (Art. 11, 47.12)")


def _start_decider(n: _State) -> None:
    """Art. 52, 18: level scores: the 7 re-spotted, cue ball in hand, who starts drawn by lot."""
    n.phase = LOT
    n.decider = True
    n.striker = None
    n.reds = 0
    n.colours = (7,)
    n.colour_on = n.free_ball = False
    n.brk = 0
    n.pending = None


def _end_frame(n: _State, winner: int, ended_by: str, config: dict) -> None:
    """Art. 50: the frame is over; the match too once ``frames_to_win`` is reached (Art. 54.1)."""
    n.frames = _add(n.frames, winner, 1)
    n.history = n.history + ((n.frame_number, n.scores, winner, ended_by),)
    n.frame_winner = winner
    n.pending = None
    n.free_ball = False
    n.colour_on = False
    if n.frames[winner] >= config["frames_to_win"]:
        n.phase = MATCH_OVER
        n.match_winner = winner
        n.match_result = "frames"
    else:
        n.phase = FRAME_OVER


def _end_match(n: _State, winner: int | None, result: str) -> None:
    """Art. 54, 55: the match ends now; the frame in play gets no history row."""
    n.phase = MATCH_OVER
    n.match_winner = winner
    n.match_result = result
    n.pending = None
    n.free_ball = False
