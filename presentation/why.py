""""Why?" of one logged event: what a disciplinary board reads when a result is protested.

:func:`why_view` gathers, for the event ``seq``, its description, the state before it (the
score, the ball on, the reds left, who was at the table) and each rule its description cites with
the article's short title and its words verbatim (:mod:`sinuca.rulebook`); :func:`rule_refs` the
rules alone. :func:`presentation.referee_html.why_panel` draws it for the tablet (online and
offline, from the engine in the browser) and for the public page ``/matches/<id>/why/<seq>/``.
No Django import: this module ships in the tablet's engine zip.
"""
from __future__ import annotations

from sinuca import rulebook
from sinuca.article_titles import short_title
from sinuca.rules import ball_name


def rule_refs(text: str, lang: str = "pt") -> list[dict]:
    """Each article or item cited in ``text``, once, in order: ``{"ref": "25.5", "article": 25,
    "title": "Falta e retorno", "words": "requerer a repetição da jogada."}`` (the words verbatim,
    an item's after those of the items it sits under; a reference the text lacks is left out)."""
    book = rulebook.load()
    out = []
    for ref in dict.fromkeys(rulebook.citations(text or "")):
        if book.find(ref) is None:
            continue
        words = book.words(ref)
        art, item = book.find(ref)
        if item is None and words.endswith(":") and 0 < len(art.items) <= 4:
            # an article whose opening only leads into its list ("É pena …:"): the list is the rule
            words += " " + " ".join(f"{i.id.split('.', 1)[1]}) {i.text}" for i in art.items)
        out.append({"ref": ref, "article": art.number, "title": short_title(ref, lang), "words": words})
    return out


def _ball_on(state: dict, lang: str) -> str:
    balls = state.get("ball_on") or []
    if not balls:
        return "—"
    if len(balls) > 1:  # after a red: any colour
        return "colorida" if lang != "en" else "a colour"
    return f"{balls[0]} ({ball_name(balls[0], lang)})"


def why_view(players: list, seq: int, description: str, before: dict, lang: str = "pt") -> dict:
    """The "why?" of event ``seq`` for the screens, in ``lang``: ``{"seq", "description",
    "before": {"frame", "scores": [[name, points], …], "ball_on", "reds", "break", "at_table"},
    "rules": rule_refs(description)}``. ``before`` is the public state before the event
    (contract section 7; :attr:`sinuca.engine.Step.state_before`), ``players`` the two names."""
    striker = before.get("striker")
    phase = str(getattr(before.get("phase"), "value", before.get("phase")))
    at_table = players[striker] if striker is not None and phase in ("play", "decision") else "—"
    return {"seq": seq, "description": description,
            "before": {"frame": before.get("frame_number"),
                       "scores": [[players[i], before["scores"][i]] for i in (0, 1)],
                       "frames": list(before.get("frames") or [0, 0]),
                       "ball_on": _ball_on(before, lang), "reds": before.get("reds_remaining"),
                       "break": before.get("break"), "at_table": at_table,
                       "decision": phase == "decision"},
            "rules": rule_refs(description, lang)}
