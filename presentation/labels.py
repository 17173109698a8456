"""Labels of the engine's codes for the screens, in Portuguese and English, with the article.

How a frame ended (``history[].ended_by``) and how the match ended (``match_result``): words the
súmula, the feeds and the tablet show beside the state; the rules never need them. What an undo's
log line says (:func:`undo_line`), the same on every screen, the súmula and the tablet.
"""
from __future__ import annotations

from sinuca.vocab import FrameEnd, MatchResult


def frame_end_text(ended_by: str) -> dict:
    """How a frame ended (``history[].ended_by``), in words with its article.

    >>> frame_end_text("foul")["pt"]
    'falta com só a 7 na mesa (Art. 51)'

    Raises:
        ValueError: not a :class:`FrameEnd` value.
    """
    e = FrameEnd(ended_by)
    return {lang: f"{e.label[lang]} (Art. {e.article})" for lang in ("pt", "en")}


def match_result_text(result: str | None) -> dict:
    """How the match ended (``match_result``), in words with its article; ``None``: in progress.

    >>> match_result_text("frames")["en"], match_result_text(None)["pt"]
    ('on frames (Art. 54.1)', 'em andamento')

    Raises:
        ValueError: not a :class:`MatchResult` value.
    """
    if result is None:
        return {"pt": "em andamento", "en": "in progress"}
    if result in WALKOVER_TEXTS:  # the desk's result, beside the engine's (no article: no stroke played)
        return dict(WALKOVER_TEXTS[result])
    r = MatchResult(result)
    return {lang: f"{r.label[lang]} (Art. {r.article})" for lang in ("pt", "en")}


WALKOVER = "walkover"
DOUBLE_WALKOVER = "double_walkover"
CORRECTED = "corrected"
WALKOVER_TEXTS = {
    WALKOVER: {"pt": "W.O. (não comparecimento do adversário)", "en": "W.O. (walkover: opponent absent)"},
    DOUBLE_WALKOVER: {"pt": "W.O. duplo (ambos ausentes)", "en": "Double W.O. (both absent)"},
    CORRECTED: {"pt": "resultado corrigido pela organização", "en": "result corrected by the organiser"},
}
"""The words of the two W.O. results (a match-level result the desk records, not an engine
event), beside :func:`match_result_text`'s engine results."""


WITHDRAWAL = "withdrawal"
RESULT_MARKS = {
    WALKOVER: {"pt": "W.O.", "en": "W.O."},
    DOUBLE_WALKOVER: {"pt": "W.O. duplo", "en": "double W.O."},
    WITHDRAWAL: {"pt": "abandono", "en": "withdrawal"},
}
"""The short mark a results list prints for a match not decided on the table alone: in place of
the frames for a W.O. (a double W.O. — both absent, nobody goes through — is named as such, never
as a plain W.O.), beside them for a match a player left by withdrawing."""


def result_mark(kind, lang: str, withdrawn: bool = False) -> str:
    """The mark of a result of kind ``kind`` (``"walkover"``, ``"double_walkover"``,
    ``"withdrawal"``; any other kind, or ``None``, has none: ``""``) in ``lang`` (``"pt"`` or
    ``"en"``; another code reads as ``"pt"``). ``withdrawn``: a W.O. given because a player had
    withdrawn from the competition, which says so.

    >>> result_mark("double_walkover", "en"), result_mark("walkover", "pt", withdrawn=True), result_mark("frames", "en")
    ('double W.O.', 'W.O. (abandono)', '')
    """
    lang = "en" if lang == "en" else "pt"
    marks = RESULT_MARKS.get(kind)
    if not marks:
        return ""
    if withdrawn and kind in (WALKOVER, DOUBLE_WALKOVER):
        return f"{marks[lang]} ({RESULT_MARKS[WITHDRAWAL][lang]})"
    return marks[lang]


def walkover_mark(wo, lang: str) -> str:
    """The mark of a match's W.O. record ``wo`` (``{"winner": 0 | 1 | None, "absent": [...]}``;
    ``None`` or empty: no W.O., ``""``) in ``lang`` (``"pt"``/``"en"``): ``"W.O. duplo"`` when
    nobody won (both absent), else ``"W.O."``.

    >>> walkover_mark({"winner": None, "absent": [0, 1]}, "pt"), walkover_mark({"winner": 1}, "en")
    ('W.O. duplo', 'W.O.')
    """
    if not wo:
        return ""
    return result_mark(DOUBLE_WALKOVER if wo.get("winner") is None else WALKOVER, lang)


STANDING_MARKS = {
    "qualified": {"pt": "classificado", "en": "qualified"},
    "withdrawn": {"pt": "abandonou", "en": "withdrew"},
    WALKOVER: {"pt": "W.O.", "en": "W.O."},
}
"""The marks beside a name in a group table: through to the next stage, out by withdrawal, and
the matches lost by W.O. (not played: absent)."""


def standing_marks(qualified: bool, withdrawn: bool, walkovers: int, lang: str) -> list[str]:
    """The marks of one group-table row in ``lang`` (``"pt"``/``"en"``): ``"classificado"`` when
    ``qualified``, ``"abandonou"`` when ``withdrawn``, and ``"W.O."`` (``"2 W.O."`` for two or
    more) for ``walkovers`` matches lost by W.O. (a double W.O. counts for both players).

    >>> standing_marks(True, False, 0, "en"), standing_marks(False, True, 2, "pt")
    (['qualified'], ['abandonou', '2 W.O.'])
    """
    lang = "en" if lang == "en" else "pt"
    out = [STANDING_MARKS["qualified"][lang]] if qualified else []
    if withdrawn:
        out.append(STANDING_MARKS["withdrawn"][lang])
    if walkovers:
        wo = STANDING_MARKS[WALKOVER][lang]
        out.append(wo if walkovers == 1 else f"{walkovers} {wo}")
    return out


def walkover_sentence(wo: dict, names: list) -> dict:
    """``{"pt": "Ana vence por W.O. (Bia ausente)", "en": …}``, or both absent; ``wo`` is the
    match's W.O. record (``{"winner": 0 | 1 | None, "absent": [...]}``)."""
    if wo.get("winner") is None:
        return {"pt": f"W.O. duplo: {names[0]} e {names[1]} ausentes",
                "en": f"Double W.O.: {names[0]} and {names[1]} absent"}
    w = wo["winner"]
    return {"pt": f"{names[w]} vence por W.O. ({names[1 - w]} ausente)",
            "en": f"{names[w]} wins by W.O. ({names[1 - w]} absent)"}


def undo_line(n: int, desc) -> dict:
    """An undo's line in the log: the entry it took back, ``n`` (its seq, from 1), and that entry's
    description ``desc`` (``{"pt", "en"}``, or one text for both).

    >>> undo_line(3, {"pt": "Ana encaçapa a preta", "en": "Ana pots the black"})["en"]
    'Undoes entry 3: Ana pots the black'
    """
    text = desc if isinstance(desc, dict) else {"pt": desc, "en": desc}
    return {"pt": f"Desfaz o lance {n}: {text.get('pt') or ''}", "en": f"Undoes entry {n}: {text.get('en') or ''}"}
