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
