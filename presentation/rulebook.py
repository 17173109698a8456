"""The rules text's English gloss, written for the project: one short sentence per article and
the name of each Título. The Portuguese text (``sinuca.rulebook``) stays the authority; the gloss
only says what an article is about, for a reader of the English pages (``/rules/?lang=en``).
"""
from __future__ import annotations

TITLES_EN = {
    "I": "The frame and the match", "II": "Snookers", "III": "Movement of the balls", "IV": "Break-offs",
    "V": "Nominating", "VI": "Touching ball", "VII": "Replayable strokes (foul and replay)",
    "VIII": "Re-spotting balls", "IX": "Options after a foul", "X": "Penalties", "XI": "Fouls",
    "XII": "End of a frame", "XIII": "End of a match",
}
"""Título (roman) -> its name in English."""

GLOSS_EN = {
    1: "Definitions; two or more players, singly or in teams; the cue ball, 6, 10 or 15 reds worth 1, "
       "and the colours yellow 2, green 3, brown 4, blue 5, pink 6, black 7.",
    2: "The object: pot the ball on and the colours in ascending order, striking the cue ball with the cue tip.",
    3: "The lowest-valued ball in play is the ball on; the others are colours.",
    4: "Free ball: after a foul that leaves a snooker, the beneficiary may nominate a colour and play it as the "
       "ball on, with its value.",
    5: "The ball on, a free ball or a colour may be played to attack or for safety.",
    6: "Maximum scores: one break from a red makes 75, 107 or 147 (6, 10, 15 reds); the points remaining "
       "with each ball on.",
    7: "A stroke at a free ball may add up to 8 points to those maxima.",
    8: "Snookered: the cue ball cannot hit both sides of the ball on directly; total, partial and "
       "aggravated partial snookers; the first obstacle.",
    9: "A red ball on and the cushions are not obstacles when judging a snooker.",
    10: "A snooker may give the opponent an extra option, depending on the obstacle.",
    11: "Red, then any colour, then red again; when the reds are gone, the colours in ascending order.",
    12: "Which balls come back: a colour after a red, balls potted in a foul or forced off the table "
        "(never the reds); the 2 after the last red.",
    13: "Potting several balls on at once, or a free ball, is legal, even through other balls.",
    14: "One point a ball for reds (and a free ball of equal value) potted together.",
    15: "A red never comes back, even after a foul, except when the balls are replaced for a replay.",
    16: "Break-off: the colours on their spots, the reds in a triangle, the cue ball in hand in the D.",
    17: "A lot decides who breaks off the first frame; break-offs alternate afterwards.",
    18: "The decider's break-off is also drawn by lot.",
    19: "The colour or free ball aimed at must be nominated, unless evident.",
    20: "Playing off a cushion needs no nomination.",
    21: "Any pocket is legal.",
    22: "Touching ball: what the next stroke may do when the cue ball rests against another ball.",
    23: "A touching ball exists when the referee confirms it.",
    24: "If asked, the referee says whether the cue ball is touching a ball.",
    25: "Foul and replay: missing the ball aimed at without showing the skill possible is a foul, and the "
        "opponent may play, pass, or ask for the stroke to be replayed with the balls put back.",
    26: "No replay when only the 7 is left, when the beneficiary cannot catch up, when the stroke was "
        "satisfactory, or when the foul was compulsory.",
    27: "After an aggravated partial snooker, the second fouled replay in a row loses the frame.",
    28: "Before a stroke the referee answers whether an aggravated snooker exists.",
    29: "Replays apply in full at the top categories; an event's regulation may relax them.",
    30: "A red potted in a stroke that is replayed also goes back.",
    31: "A returning ball goes on its spot; if taken, on the spot of a higher ball.",
    32: "All spots taken: as near its own spot as possible, towards the top cushion.",
    33: "No room that way: the same in the opposite direction.",
    34: "Several balls returning at once: the highest-valued first.",
    35: "After any foul: the penalty to the opponent, who may play, make the offender play again, or ask "
        "for the replay when called; any extra penalty.",
    36: "A foul that leaves a snooker gives the beneficiary a free ball.",
    37: "A potted free ball scores the ball on's value; then a colour (red on) or the ball on continues.",
    38: "Snookering the opponent behind the free ball is a variable-penalty foul, except with only the 6 "
        "and 7 left.",
    39: "Other penalties of the Regulamento dos Esportes do Bilhar may be added.",
    40: "Variable penalty: at least 4, the higher of the ball aimed at and the highest ball involved.",
    41: "Maximum penalty: 7 points.",
    42: "Disciplinary foul: 7 points and a warning; a second one, 7 points and disqualification.",
    43: "Grave disciplinary foul: 7 points and disqualification.",
    44: "Aggravated foul without intent: a variable penalty; the third in a row loses the frame.",
    45: "The highest ball involved is the first one the cue ball touches, unless a later touch is a "
        "costlier foul.",
    46: "Before a replay that could become an aggravated foul, the referee should warn the player.",
    47: "Variable-penalty fouls: potting the cue ball, double hit, push, touching balls, playing with "
        "balls moving, jump, wrong pots, not hitting the ball on first, not nominating, and others.",
    48: "Maximum-penalty fouls: out of sequence, wrong ball, a foul before nominating after a red, a "
        "foul forced by a total snooker.",
    49: "Disciplinary or grave fouls: intentional fouls or jumps, misuse of the balls, slow play, misconduct.",
    50: "A frame ends when the 7 (or the 6 with a lead over 7) is potted for good, when a player concedes, "
        "or on an aggravated foul.",
    51: "Only the 7 left: at a gap of 7 the trailer may tie; below 7 any foul loses the frame.",
    52: "A tie is decided by a decider: the 7 on its spot, the cue ball in hand.",
    53: "Stalemate: a third stroke that changes nothing; the referee warns, the next stroke must change "
        "the position, or the frame is void and re-racked.",
    54: "The match ends when a player wins the frames needed, concedes, commits a second disciplinary or "
        "a grave foul, or is disqualified.",
    55: "Both players disqualified at once both lose.",
}
"""Article -> one English sentence on what it says (a gloss, not a translation)."""
