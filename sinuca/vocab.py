"""The engine's vocabulary: every string value of the contract (``docs/contract.md``) as an enum.

All are :class:`enum.StrEnum`: a member *is* its string, so ``state["phase"] == "play"`` holds and
``json.dumps`` writes ``"play"``, byte for byte what the contract fixes. Each member also knows the
article of the rules (``docs/rules.md``) it follows, where there is one, and a ``label``
``{"pt", "en"}`` for screens and score sheets.

>>> Phase.PLAY == "play", Phase.PLAY.label["en"]
(True, 'in play')
>>> FoulKind("wrong_ball").article, FoulKind.WRONG_BALL.group
('48.2', <FoulGroup.MAX: 'max'>)
"""
from __future__ import annotations

from enum import StrEnum


def _member(cls: type, value: str, article: str | None, pt: str, en: str):
    member = str.__new__(cls, value)
    member._value_ = value
    member.article = article
    member.label = {"pt": pt, "en": en}
    return member


class _Term(StrEnum):
    """A contract string with the article it follows (``None`` if none) and a pt/en label."""

    article: str | None
    label: dict

    def __new__(cls, value: str, article: str | None, pt: str, en: str) -> "_Term":
        return _member(cls, value, article, pt, en)


class Phase(_Term):
    """What the match is waiting for (contract section 7, ``phase``)."""

    LOT = "lot", "17, 18", "aguardando o sorteio", "waiting for the lot"
    """The lot decides who breaks off (Art. 17) or who starts the decider (Art. 18, 52)."""
    PLAY = "play", None, "em jogo", "in play"
    """A stroke is due: ``pot``, ``no_pot`` or ``foul``."""
    DECISION = "decision", "35", "aguardando a decisão do beneficiado", "waiting for the beneficiary's decision"
    """After a foul the beneficiary plays, passes or asks for the replay (Art. 25.2, 35)."""
    FRAME_OVER = "frame_over", "50", "partida encerrada", "frame over"
    """The frame has a winner; ``next_frame`` racks the next one (Art. 50)."""
    MATCH_OVER = "match_over", "54", "jogo encerrado", "match over"
    """The match has a result; only ``undo`` is accepted (Art. 54, 55)."""


class FrameEnd(_Term):
    """How a frame ended (``history[].ended_by``)."""

    POT = "pot", "50.1", "bola encaçapada", "ball potted"
    """The 7 potted with a lead, or the 6 leaving a gap above 7 (Art. 50.1)."""
    FOUL = "foul", "51", "falta com só a 7 na mesa", "foul with only the 7 left"
    """A foul with only the cue ball and the 7 left that did not level the scores (Art. 51)."""
    AGGRAVATED = "aggravated", "27", "3ª falta agravada", "third aggravated foul"
    """The third consecutive aggravated foul of a retorno chain (Art. 27, 44.2, 50.3)."""
    DECIDER = "decider", "52", "partida complementar", "decider"
    """Settled on the re-spotted 7 after a tie, by a pot or a foul (Art. 52)."""
    CONCESSION = "concession", "50.2", "desistência da partida", "frame conceded"
    """A player conceded the frame (Art. 50.2)."""


class MatchResult(_Term):
    """How the match ended (``match_result``)."""

    FRAMES = "frames", "54.1", "por partidas", "on frames"
    """The winner reached ``frames_to_win`` (Art. 54.1)."""
    CONCESSION = "concession", "54.2", "por desistência", "by concession"
    """A player conceded the match (Art. 54.2)."""
    DISQUALIFICATION = "disqualification", "54.3, 54.4", "por desclassificação", "by disqualification"
    """A second disciplinary or a grave foul (Art. 42.2, 43, 54.3), or the referee's ``disqualify``
    (Art. 54.4)."""
    BOTH_DISQUALIFIED = "both_disqualified", "55", "ambos desclassificados", "both disqualified"
    """Both players disqualified at once: both lose, no winner (Art. 55)."""


class TableWarning(_Term):
    """The referee's warning on the table (``warning``); named so as not to shadow :class:`Warning`."""

    STALEMATE = "stalemate", "53.1", "aviso de impasse", "stalemate warning"
    """The next stroke must change the position, or the frame is re-racked (Art. 53)."""
    AGGRAVATED_LAST_CHANCE = ("aggravated_last_chance", "46", "outra falta agravada perde a partida",
                              "another aggravated foul loses the frame")
    """Two aggravated fouls in a row: a third loses the frame (Art. 46, 27)."""


class Choice(_Term):
    """The beneficiary's answer to a foul (``decision`` event, ``decision_options``)."""

    PLAY = "play", "35.3", "jogar", "play"
    """Take the table, with a free ball if the foul left a snooker (Art. 35.3, 36)."""
    PASS = "pass", "35.4", "passar", "pass"
    """Make the offender play again, without a free ball (Art. 25.4, 35.4)."""
    RETORNO = "retorno", "25.5", "retorno", "replay"
    """The table as before the fouled stroke; the offender replays it (Art. 25.5, 30)."""


class FoulGroup(_Term):
    """The penalty group of a foul kind (contract section 5)."""

    VARIABLE = ("variable", "40", "Penalidade variável (mín. 4, Art. 40)",
                "Variable penalty (min. 4, Art. 40)")
    """The highest of 4, the ball aimed at and the highest ball involved (Art. 40, 47)."""
    MAX = "max", "41", "Penalidade máxima (7, Art. 41)", "Maximum penalty (7, Art. 41)"
    """7 points (Art. 41, 48)."""
    DISCIPLINARY = ("disciplinary", "42", "Falta disciplinar (7 + advertência, Art. 42)",
                    "Disciplinary foul (7 + warning, Art. 42)")
    """7 points and a warning; the second, or a grave one, disqualifies (Art. 42, 43, 49)."""


class Sanction(_Term):
    """What a disciplinary foul adds to its 7 points (``Step.foul["sanction"]``)."""

    WARNING = "warning", "42.1", "advertência", "warning"
    """The first disciplinary foul of the match (Art. 42.1)."""
    DISQUALIFICATION = "disqualification", "42.2, 43", "desclassificação", "disqualification"
    """The second disciplinary foul (Art. 42.2) or a grave one (Art. 43): the match is lost (Art. 54.3)."""


class FoulKind(_Term):
    """A foul's ``kind`` (contract section 5): its article in Art. 47-49, its group, its label.

    >>> FoulKind.COMPULSORY.article, FoulKind.COMPULSORY.group, FoulKind.COMPULSORY.label["en"]
    ('48.4', <FoulGroup.MAX: 'max'>, 'Compulsory foul (total snooker)')
    """

    group: FoulGroup

    def __new__(cls, value: str, article: str, pt: str, en: str) -> "FoulKind":
        member = _member(cls, value, article, pt, en)
        # Art. 47 lists the variable fouls, 48 the maximum ones, 49 the disciplinary ones.
        member.group = {"47": FoulGroup.VARIABLE, "48": FoulGroup.MAX,
                        "49": FoulGroup.DISCIPLINARY}[article.split(".")[0]]
        return member

    CUE_BALL_POTTED = "cue_ball_potted", "47.1", "Tacadeira encaçapada (suicídio)", "Cue ball potted"
    """Potting the cue ball (Art. 47.1)."""
    DOUBLE_HIT = "double_hit", "47.2", "Dois toques (bitoque)", "Double hit"
    """Striking the cue ball more than once (Art. 47.2)."""
    PUSH_STROKE = "push_stroke", "47.3", "Conduzir a tacadeira (carretão)", "Push stroke"
    """Pushing the cue ball (Art. 47.3)."""
    TOUCHING_BALL = "touching_ball", "47.4", "Bola colada movimentada", "Touching ball moved"
    """Moving a ball touching the cue ball (Art. 47.4, 22)."""
    BALL_TOUCHED = "ball_touched", "47.5", "Tocar bola indevidamente", "Ball touched"
    """Touching any ball improperly (Art. 47.5)."""
    BALL_MOVING = "ball_moving", "47.6", "Jogar com bola em movimento", "Played with a ball moving"
    """Playing while a ball moves or before one is re-spotted (Art. 47.6)."""
    NOT_TIP = "not_tip", "47.7", "Jogar sem a ponteira", "Not struck with the tip"
    """Striking with any part of the cue but the tip (Art. 47.7)."""
    NO_FOOT_ON_FLOOR = "no_foot_on_floor", "47.8", "Sem contato com o piso", "No foot on the floor"
    """Playing without a foot on the floor (Art. 47.8)."""
    OUTSIDE_D = "outside_d", "47.9", "Tacadeira fora do D", "Cue ball outside the D"
    """Playing from hand outside the D (Art. 47.9)."""
    BALL_OFF_TABLE = "ball_off_table", "47.10", "Bola fora da mesa", "Ball off the table"
    """Forcing a ball off the table by accident (Art. 47.10)."""
    JUMP = "jump", "47.11", "Salto da tacadeira", "Jump shot"
    """The cue ball jumping over a ball by accident (Art. 47.11)."""
    BALL_NOT_ON_POTTED = "ball_not_on_potted", "47.12", "Bola não visada encaçapada", "Ball not on potted"
    """Potting two balls, or a ball not on, outside the exceptions for reds and free ball (Art. 47.12)."""
    WRONG_GROUP_POTTED = ("wrong_group_potted", "47.13", "Bola da vez e colorida trocadas",
                          "Red and colour confused")
    """Potting the ball on while playing a colour, or the reverse (Art. 47.13)."""
    BALL_ON_NOT_HIT_FIRST = ("ball_on_not_hit_first", "47.14", "Não atingir primeiro a bola visada",
                             "Ball on not hit first")
    """Not hitting the ball aimed at first (Art. 47.14)."""
    SIMULTANEOUS_HIT = "simultaneous_hit", "47.15", "Toque simultâneo", "Simultaneous hit"
    """Hitting two balls at once, outside the exceptions (Art. 47.15)."""
    FREE_BALL_SNOOKER = ("free_ball_snooker", "47.16", "Sinuca com a bola livre",
                         "Snookered behind the free ball")
    """Snookering the opponent behind the free ball; not with only the 6 and 7 left (Art. 47.16, 38)."""
    NOT_NOMINATED = "not_nominated", "47.17", "Bola não cantada", "Ball not nominated"
    """Not nominating the colour or free ball aimed at (Art. 47.17, 19)."""
    OTHER = "other", "47.18", "Outra falta técnica", "Other technical foul"
    """Any other technical foul; the default kind (Art. 47.18)."""
    OUT_OF_SEQUENCE = "out_of_sequence", "48.1", "Fora da sequência", "Out of sequence"
    """Playing the ball on or a colour out of the required order (Art. 48.1)."""
    WRONG_BALL = "wrong_ball", "48.2", "Bola errada", "Wrong ball"
    """Playing the wrong ball (Art. 48.2)."""
    FOUL_BEFORE_NOMINATION = ("foul_before_nomination", "48.3", "Falta antes de cantar a colorida",
                              "Foul before nominating")
    """A foul after a red, before nominating the colour (Art. 48.3)."""
    COMPULSORY = "compulsory", "48.4", "Falta compulsória (sinuca total)", "Compulsory foul (total snooker)"
    """The foul forced by a total snooker; no retorno (Art. 48.4, 26.4)."""
    INTENTIONAL = "intentional", "49.1", "Falta intencional", "Intentional foul"
    """A foul committed on purpose (Art. 49.1)."""
    INTENTIONAL_JUMP = "intentional_jump", "49.2", "Salto intencional", "Intentional jump"
    """Making a ball jump on purpose (Art. 49.2)."""
    MISUSE_OF_BALLS = "misuse_of_balls", "49.3", "Uso indevido das bolas", "Misuse of the balls"
    """Using the balls for anything but lawful play (Art. 49.3)."""
    SLOW_PLAY = "slow_play", "49.4", "Tempo excessivo", "Slow play"
    """Taking excessive time over a stroke (Art. 49.4)."""
    MISCONDUCT = "misconduct", "49.5", "Conduta antidesportiva", "Misconduct"
    """Other unsporting conduct under the billiards regulation (Art. 49.5)."""


VOCABULARY = (Phase, FrameEnd, MatchResult, TableWarning, Choice, FoulGroup, Sanction, FoulKind)
"""Every enum of the engine's vocabulary, for documentation and tests."""
