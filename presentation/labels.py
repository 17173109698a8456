"""Labels of the engine's codes for the screens, in Portuguese and English, with the article.

How a frame ended (``history[].ended_by``) and how the match ended (``match_result``): words the
súmula, the feeds and the tablet show beside the state; the rules never need them.
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
    r = MatchResult(result)
    return {lang: f"{r.label[lang]} (Art. {r.article})" for lang in ("pt", "en")}
