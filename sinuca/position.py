"""One position of a match, and the rules that read or change it (internal to the engine).

Each rule of ``docs/rules.md`` that the event handlers of :mod:`sinuca.engine` share is written
here once, as a small function citing its article. A :class:`State` is treated as immutable once
built: a handler copies it, then edits the copy with these functions.
"""
from __future__ import annotations

from .rules import ALL_COLOURS_SUM, COLOURS, MAX_PENALTY, MIN_PENALTY, RED_AND_COLOUR
from .vocab import Choice, FoulGroup, FoulKind, FrameEnd, MatchResult, Phase

# Module-level names for the hot paths: a global is read faster than an enum class attribute.
LOT, PLAY, DECISION, FRAME_OVER, MATCH_OVER = Phase
VARIABLE = FoulGroup.VARIABLE
ANY_COLOURS = COLOURS  # ball on just after a red (Art. 11.1)
_OPTIONS = [Choice.PLAY, Choice.PASS]
_OPTIONS_RETORNO = [Choice.PLAY, Choice.PASS, Choice.RETORNO]


class State:
    """One position of the match. Tuples everywhere, so a copy shares them safely and costs ~1 µs.

    ``bonus7``: the 7 after the 6 that ended the frame may still be potted (Art. 50.1 vs 6.1);
    ``replay``: the striker is replaying after a retorno (Art. 25.5); ``agg``: consecutive
    aggravated fouls (Art. 27, 44.2); ``history``: ``(frame, scores, winner, ended_by)`` rows;
    ``brk_balls``: the balls potted in the break ``brk`` counts (for the screens, not the contract);
    ``lost_on_foul``: the last frame ended was lost on a foul (Art. 27, 51; for the screens: a
    decider's history row says ``decider`` either way).

    Sides of several players (doubles, Art. 1 "em conjunto"; ``docs/contract.md`` section 11):
    ``sizes`` is ``None`` for one player a side (then the other side fields stay at their
    one-player values and never reach the state), else the two side sizes; ``order``: the frame's
    order of play, per side the player indices in turn; ``due``: per side, the position in
    ``order`` of the player due at that side's next visit (the striker's side: the one at the
    table); ``started``: the frame's first stroke was played, so the order is fixed; ``pwarn``:
    disciplinary warnings per person (Art. 42, 43).
    """

    __slots__ = ("phase", "frame_number", "first", "breaker", "striker", "scores", "frames", "reds",
                 "colours", "colour_on", "brk", "free_ball", "pending", "decider", "agg", "warning",
                 "warnings", "last_penalty", "frame_winner", "match_winner", "match_result", "highest",
                 "history", "bonus7", "replay", "brk_balls", "sizes", "order", "due", "started", "pwarn",
                 "lost_on_foul")

    def copy(self) -> "State":
        n = State.__new__(State)
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
        n.brk_balls = self.brk_balls
        n.sizes = self.sizes
        n.order = self.order
        n.due = self.due
        n.started = self.started
        n.pwarn = self.pwarn
        n.lost_on_foul = self.lost_on_foul
        n.bonus7 = False  # the Art. 50.1 extra 7 is open only right after the 6 that ended the frame
        n.replay = False  # the stroke after a retorno is a replay until the next event
        return n


class Pending:
    """A foul waiting for the beneficiary's choice (Art. 25.2, 35)."""

    __slots__ = ("offender", "snooker", "retorno", "table", "points", "due")

    def __init__(self, offender: int, snooker: bool, retorno: bool, table: tuple, points: int,
                 due: int = 0) -> None:
        self.offender = offender
        self.due = due  # the offender's position in his side's order: who replays on pass/retorno
        self.snooker = snooker
        self.retorno = retorno
        self.table = table  # (reds, colours, colour_on, free_ball) before the fouled stroke (Art. 25.5.2)
        # the foul's penalty: a seated player's foul meanwhile (Art. 49) changes last_penalty, not this
        self.points = points


def add(pair: tuple, player: int, points: int) -> tuple:
    """``pair`` (scores, frames, warnings) with ``points`` added to ``player``'s entry."""
    return (pair[0] + points, pair[1]) if player == 0 else (pair[0], pair[1] + points)


# ---------------------------------------------------------------------------------------------
# Reading the table

def ball_on(s: State) -> tuple:
    """Art. 3, 11, 52: the ball(s) on for the next stroke, whatever the phase: the decider's 7,
    any colour just after a red (Art. 11.1), a red while reds remain, else the lowest colour
    (Art. 11.2)."""
    if s.decider:
        return (7,)
    if s.colour_on:
        return ANY_COLOURS
    if s.reds:
        return (1,)
    return s.colours[:1]


def only_seven(s: State) -> bool:
    """Art. 26.1, 51, 52: only the cue ball and the 7 are left (the decider included)."""
    return s.decider or (not s.reds and s.colours == (7,))


def table_points(reds: int, colours: tuple, colour_on: bool = False) -> int:
    """Art. 6: the most one visit can still score: 8 a red (with the 7 after it) and 27 for the
    colours while reds remain, else the colours left; 7 more when any colour is on after a red."""
    after_red = 7 if colour_on else 0
    if reds:
        return after_red + RED_AND_COLOUR * reds + ALL_COLOURS_SUM
    return after_red + sum(colours)


def free_ball_bonus(reds: int, colours: tuple) -> int:
    """Art. 7: a free ball adds up to 8 points with reds left, else the value of the ball on."""
    return RED_AND_COLOUR if reds else colours[0]


def free_ball_points(state: dict) -> int:
    """Art. 7: what a free ball on adds to the state's ``points_remaining`` (the table as it
    lies, contract section 7): "até oito (8) pontos adicionais", 8 with reds left (it scores as a
    red and a colour follows), else the value of the ball on, which stays on (Art. 37.2); 0 while
    no free ball is on. Takes the contract's state dict, for the screens.

    >>> free_ball_points({"free_ball": True, "reds_remaining": 10, "colours_remaining": [2, 3, 4, 5, 6, 7]})
    8
    """
    if not state["free_ball"]:
        return 0
    return free_ball_bonus(state["reds_remaining"], tuple(state["colours_remaining"]))


def points_remaining(s: State) -> int:
    """Most points the striker can still make from the table as it lies (Art. 6), without the
    free-ball bonus of Art. 7; 7 in a decider; 0 while no stroke is due."""
    if s.phase is LOT or s.phase is FRAME_OVER or s.phase is MATCH_OVER:
        return 0
    if s.decider:
        return 7
    return table_points(s.reds, s.colours, s.colour_on)


def snookers_required(s: State, remaining: int) -> int:
    """Snookers the player behind needs: ``ceil((deficit - remaining) / max(4, v))`` with ``v`` the
    lowest ball on, each snooker worth at least the Art. 40 minimum."""
    if s.phase is not PLAY and s.phase is not DECISION:
        return 0
    deficit = abs(s.scores[0] - s.scores[1])
    if deficit <= remaining:
        return 0
    on = ball_on(s)
    per = max(MIN_PENALTY, on[0] if on else MIN_PENALTY)
    return -(-(deficit - remaining) // per)


def free_ball_choices(s: State) -> tuple:
    """Art. 4, 36.2: colours that may be nominated as a free ball: any colour on the table but
    the ball on."""
    if not s.free_ball:
        return ()
    if s.reds:
        return s.colours
    return s.colours[1:]


def decision_options(s: State) -> list:
    """Art. 25.2, 35: the beneficiary's choices, ``retorno`` only when the referee called it."""
    p = s.pending
    if not p:
        return []
    return list(_OPTIONS_RETORNO if p.retorno else _OPTIONS)


def default_order(sizes: tuple) -> tuple:
    """The listed order of each side (doubles decision: the default order of play of a frame)."""
    return tuple(tuple(range(k)) for k in sizes)


def player_due(s: State, side: int) -> int:
    """The index, within ``side``, of the player due at that side's next visit (for the
    striker's side, the player at the table); always 0 with one player a side."""
    return s.order[side][s.due[side]] if s.sizes else 0


def end_visit(n: State, side: int) -> None:
    """The visit of ``side``'s player is over: his partner is due at the side's next visit
    (doubles decision: the players alternate sides, A1, B1, A2, B2, …)."""
    if n.sizes:
        d = list(n.due)
        d[side] = (d[side] + 1) % n.sizes[side]
        n.due = tuple(d)


def set_due(n: State, side: int, pos: int) -> None:
    """Make the player at position ``pos`` of ``side``'s order the one due (after *passar* or
    *retorno* the offender plays again)."""
    if n.sizes:
        d = list(n.due)
        d[side] = pos
        n.due = tuple(d)


def turn(s: State) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """Who plays now and who next, each ``(side, index within the side)`` or ``None``: the one
    answer every screen shows (contract sections 10, 11).

    At the table: the striker's player in play (Art. 3); in a decision, the beneficiary's player
    due, who plays on *jogar* (Art. 35). Next: in play, the other side's player due at its next
    visit; in a decision nobody, as it hangs on the choice (*jogar*: the offender's partner after
    the beneficiary's visit; *passar* or *retorno*: the offender himself at once, Art. 24-26);
    nobody either in the lot and once the frame or match is over."""
    if s.striker is None or not (s.phase is PLAY or s.phase is DECISION):
        return None, None
    at = (s.striker, player_due(s, s.striker))
    return at, ((1 - s.striker, player_due(s, 1 - s.striker)) if s.phase is PLAY else None)


def _sides_public(s: State) -> dict:
    """The doubles fields of the state (contract section 11), only for sides of several players:
    ``striker_player`` and ``next_player`` are :func:`turn`'s indices."""
    at, nxt = turn(s)
    return {
        "order": [list(o) for o in s.order],
        "striker_player": at[1] if at else None,
        "next_player": nxt[1] if nxt else None,
        "player_warnings": [list(w) for w in s.pwarn],
    }


def public(s: State) -> dict:
    """The contract's state dict (``docs/contract.md`` section 7), every field present, fresh lists;
    with sides of several players, the fields of section 11 after them."""
    if s.phase is PLAY:
        on = list(ball_on(s))
    elif s.bonus7:
        on = [7]
    else:
        on = []
    remaining = points_remaining(s)
    return {
        "phase": s.phase,
        "frame_number": s.frame_number,
        "breaker": s.breaker,
        "striker": s.striker,
        "scores": list(s.scores),
        "frames": list(s.frames),
        "reds_remaining": s.reds,
        "colours_remaining": list(s.colours),
        "ball_on": on,
        "points_remaining": remaining,
        "snookers_required": snookers_required(s, remaining),
        "break": s.brk,
        "free_ball": s.free_ball,
        "decision_options": decision_options(s),
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
    } | (_sides_public(s) if s.sizes else {})


# ---------------------------------------------------------------------------------------------
# Scoring

def score_pot(n: State, points: int) -> None:
    """Art. 14, 37: a legal pot's points go to the striker's score and current break."""
    p = n.striker
    n.scores = add(n.scores, p, points)
    n.brk += points
    update_highest(n, p)


def update_highest(n: State, p: int) -> None:
    """``highest_break`` follows player ``p``'s current break: a statistic of the contract
    (section 7), not a rule; Art. 6 bounds it (147, 107, 75)."""
    if n.brk > n.highest[p]:
        n.highest = (n.brk, n.highest[1]) if p == 0 else (n.highest[0], n.brk)


def six_ends_frame(scores: tuple) -> bool:
    """Art. 50.1: the 6 potted for good ends the frame when it leaves a gap above 7."""
    return abs(scores[0] - scores[1]) > 7


def leader(scores: tuple) -> int:
    """The player ahead (scores are not level)."""
    return 0 if scores[0] > scores[1] else 1


def penalty(s: State, kind: FoulKind, ball: int | None, potted: list, nominated: int | None) -> tuple[int, str]:
    """``(points, article)`` of a foul by the striker in position ``s``.

    Art. 41, 42, 43, 48, 49: 7 for the max and disciplinary kinds. Art. 48.3: 7 for a foul before
    nominating the colour after a red. Art. 40: otherwise the highest of 4, the value of the ball
    aimed at and the highest ball involved, a ball potted in the foul included (Art. 40.1.b, 45).
    """
    if kind.group is not VARIABLE:
        return MAX_PENALTY, kind.article
    if s.colour_on and nominated is None:
        return MAX_PENALTY, FoulKind.FOUL_BEFORE_NOMINATION.article
    if s.decider:
        aimed = 7
    elif s.colour_on:
        aimed = nominated  # Art. 19, 40.1.a: the nominated colour
    elif s.reds:
        aimed = 1  # also on a free-ball stroke: its value is the ball on's (Art. 4)
    else:
        aimed = s.colours[0]
    return max(MIN_PENALTY, aimed, ball or 0, max(potted) if potted else 0), VARIABLE.article


def retorno_refusal(granted: bool, s: State, kind: FoulKind, offender: int, points: int,
                    reds_potted: int, snooker: bool) -> tuple[str, dict] | None:
    """Art. 26, 29: why "falta e retorno" cannot be called on a foul by the striker, as a message
    id and its parameters, or ``None`` when it can. ``granted``: the event regulation allows
    replays (Art. 29); ``points``: the foul's penalty."""
    if not granted:
        return "retorno_not_allowed.regulation", {}
    if only_seven(s):
        return "retorno_not_allowed.only_seven", {}
    if kind is FoulKind.COMPULSORY:
        return "retorno_not_allowed.compulsory", {}
    # Art. 26.2 (contract section 6): the beneficiary, after the penalty, on the table as it lies.
    reds = s.reds - reds_potted
    possible = table_points(reds, s.colours) + (free_ball_bonus(reds, s.colours) if snooker else 0)
    deficit = s.scores[offender] - (s.scores[1 - offender] + points)
    if deficit > possible:
        return "retorno_not_allowed.cannot_catch_up", {"deficit": deficit, "points": possible}
    return None


# ---------------------------------------------------------------------------------------------
# Frames and the match

def breaker_of(first: int, frame_number: int) -> int:
    """Art. 17: break-offs alternate frame by frame from the lot's winner."""
    return first if frame_number % 2 else 1 - first


def new_frame(n: State, reds: int) -> None:
    """Art. 16: a full rack for ``n.frame_number``: scores 0, the frame's breaker at the table."""
    n.phase = PLAY
    n.breaker = n.striker = breaker_of(n.first, n.frame_number)
    n.scores = (0, 0)
    n.reds = reds
    n.colours = COLOURS
    n.colour_on = n.free_ball = n.decider = False
    n.brk = n.agg = 0
    n.pending = n.warning = n.last_penalty = n.frame_winner = None
    n.due = (0, 0)  # the order starts again with each side's first player
    n.started = False
    n.lost_on_foul = False


def start_decider(n: State) -> None:
    """Art. 52, 18: level scores: the 7 re-spotted, cue ball in hand, who starts drawn by lot."""
    n.phase = LOT
    n.decider = True
    n.striker = None
    n.reds = 0
    n.colours = (7,)
    n.colour_on = n.free_ball = False
    n.brk = 0
    n.pending = None


def black_potted(n: State, frames_to_win: int) -> None:
    """Art. 50.1, 52: the 7 potted for good ends the frame for the leader; level scores go to
    the decider."""
    if n.scores[0] == n.scores[1]:
        start_decider(n)
    else:
        end_frame(n, leader(n.scores), FrameEnd.POT, frames_to_win)


def foul_with_only_seven(n: State, receiver: int, frames_to_win: int) -> None:
    """Art. 51, 52: with only the 7 left any foul loses the frame, unless the penalty levels the
    scores, which sends it to the decider. A decider settled by a foul is still ``decider``."""
    n.agg = 0
    n.warning = None
    if n.scores[0] == n.scores[1]:
        start_decider(n)
    else:
        end_frame(n, receiver, FrameEnd.DECIDER if n.decider else FrameEnd.FOUL, frames_to_win)
        n.lost_on_foul = True


def end_frame(n: State, winner: int, ended_by: FrameEnd, frames_to_win: int) -> None:
    """Art. 50: the frame is over; the match too once ``frames_to_win`` is reached (Art. 54.1)."""
    n.frames = add(n.frames, winner, 1)
    n.history = n.history + ((n.frame_number, n.scores, winner, ended_by),)
    n.frame_winner = winner
    n.pending = None
    n.free_ball = False
    n.colour_on = False
    if n.frames[winner] >= frames_to_win:
        n.phase = MATCH_OVER
        n.match_winner = winner
        n.match_result = MatchResult.FRAMES
    else:
        n.phase = FRAME_OVER


def warn_or_disqualify(n: State, offender: int, grave: bool, person: int = 0) -> bool:
    """Art. 42, 43, 54.3: a disciplinary foul warns the offender; the second, or a grave one,
    disqualifies him and the match ends for the opponent. Returns whether he was disqualified.
    With sides of several players the warnings are the person's (``person``, his index in side
    ``offender``), and his disqualification loses the match for his side (doubles decision)."""
    n.warnings = add(n.warnings, offender, 1)
    count = n.warnings[offender]
    if n.sizes:
        w = [list(x) for x in n.pwarn]
        w[offender][person] += 1
        n.pwarn = tuple(tuple(x) for x in w)
        count = w[offender][person]
    if grave or count >= 2:
        end_match(n, 1 - offender, MatchResult.DISQUALIFICATION)
        return True
    return False


def end_match(n: State, winner: int | None, result: MatchResult) -> None:
    """Art. 54, 55: the match ends now; the frame in play gets no history row."""
    n.phase = MATCH_OVER
    n.match_winner = winner
    n.match_result = result
    n.pending = None
    n.free_ball = False
