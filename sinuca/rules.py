"""Constants of the CBBS 2008 rules (``docs/rules.md``): balls, their names, foul kinds for forms.

Balls are integers: ``1`` a red, ``2``..``7`` the colours (Art. 1).
"""
from __future__ import annotations

from .vocab import FoulGroup, FoulKind

RED = 1
COLOURS = (2, 3, 4, 5, 6, 7)
ALL_COLOURS_SUM = 27  # 2+3+4+5+6+7 (Art. 6.2.5: "bola 2, 27 pontos")
RED_AND_COLOUR = 8    # a red and the 7 after it (Art. 6.2.7: "a cada vermelha adicional, mais 8")
REDS_ALLOWED = (6, 10, 15)  # Art. 1.2.1
MIN_PENALTY = 4       # Art. 40
MAX_PENALTY = 7       # Art. 41, 42, 43



def max_break(reds: int) -> int:
    """The maximum break of a frame with ``reds`` reds: each red with the 7, then every colour
    (Art. 6.1.3: 15 reds give 147).

    >>> max_break(15), max_break(6)
    (147, 75)
    """
    return reds * RED_AND_COLOUR + ALL_COLOURS_SUM


BALL_NAMES = {
    1: ("vermelha", "red"),
    2: ("amarela", "yellow"),
    3: ("verde", "green"),
    4: ("marrom", "brown"),
    5: ("azul", "blue"),
    6: ("rosa", "pink"),
    7: ("preta", "black"),
}
"""Ball -> (Portuguese name, English name), Art. 1.2.1."""


def ball_name(ball: int, lang: str = "pt") -> str:
    """The name of ``ball`` (1 red .. 7 black, Art. 1.2.1) in ``lang`` (``"pt"`` or ``"en"``).

    >>> ball_name(3), ball_name(3, "en")
    ('verde', 'green')

    Raises:
        KeyError: ``ball`` is not 1..7.
    """
    return BALL_NAMES[ball][lang == "en"]


def _table(group: FoulGroup) -> dict:
    return {k.value: (k.article, k.label["pt"], k.label["en"]) for k in FoulKind if k.group is group}


# The foul kinds of one group: code -> (article, label pt, label en), as before the enums.
VARIABLE_FOULS = _table(FoulGroup.VARIABLE)
MAX_FOULS = _table(FoulGroup.MAX)
DISCIPLINARY_FOULS = _table(FoulGroup.DISCIPLINARY)
FOUL_ARTICLE = {k.value: k.article for k in FoulKind}

FOUL_KINDS = [
    {"group": g.value, "label": dict(g.label),
     "kinds": [{"code": k.value, "article": k.article, "label": dict(k.label)} for k in FoulKind if k.group is g]}
    for g in FoulGroup
]
"""Foul kinds grouped as in the contract's section 5, with articles and pt/en labels (for forms):
``[{"group", "label": {"pt", "en"}, "kinds": [{"code", "article", "label": {"pt", "en"}}]}]``,
plain strings and dicts (JSON as it always was)."""
