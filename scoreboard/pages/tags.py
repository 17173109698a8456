"""Template helpers: ball names in the active language, descriptions, button events."""
from __future__ import annotations

import json

from django import template

import sinuca

from ..core.i18n import engine_lang, pick

register = template.Library()

@register.filter
def ball_name(n) -> str:
    """``3`` → "verde" (or "green"): the engine's ball names, in the active language."""
    try:
        return sinuca.ball_name(int(n), engine_lang())
    except (KeyError, TypeError, ValueError):
        return ""


@register.filter
def upto(n) -> range:
    """``0 … n``: the counts a referee may pick, ``n`` given by the engine (e.g. reds potted in a
    foul, every red on the table: Art. 15 sets no other limit)."""
    try:
        return range(int(n) + 1)
    except (TypeError, ValueError):
        return range(0)


@register.filter
def desc(obj) -> str:
    """An engine description (``{"pt", "en"}`` or an Event row) in the active language."""
    return pick(obj.description if hasattr(obj, "description") else obj)


@register.filter
def label(d) -> str:
    """A ``{"pt", "en"}`` label of the engine (foul kinds, reasons) in the active language."""
    return desc(d)


@register.simple_tag
def event_json(type_: str, **fields) -> str:
    """The JSON of an event for a button's value, e.g. ``{% event_json "pot" balls="1,1" %}``."""
    ev: dict = {"type": type_}
    for k, v in fields.items():
        if v is None or v == "":
            continue
        if k in ("balls", "players"):
            ev[k] = [int(x) for x in str(v).split(",")]
        elif k in ("player", "free_ball", "nominated"):
            ev[k] = int(v)
        elif k == "safety":
            ev[k] = bool(v)
        else:
            ev[k] = v
    return json.dumps(ev, separators=(",", ":"))


@register.filter
def reds_list(n) -> list[int]:
    """Counts offered for a multi-red pot: 2 … min(n, 4) (taps beyond that are rare)."""
    try:
        return list(range(2, min(int(n), 4) + 1))
    except (TypeError, ValueError):
        return []


@register.filter
def contains(seq, item) -> bool:
    """``item in seq`` for templates."""
    try:
        return item in seq
    except TypeError:
        return False


@register.filter
def reds_event(k) -> str:
    """The pot event of ``k`` reds in one stroke (Art. 14)."""
    return json.dumps({"type": "pot", "balls": [1] * int(k)}, separators=(",", ":"))


@register.filter
def reds_count(k) -> str:
    """``0`` → "nenhuma vermelha", ``2`` → "2 vermelhas": a count of reds in words (the engine's)."""
    try:
        return pick(sinuca.explain.reds_count(int(k)))
    except (TypeError, ValueError):
        return ""


@register.simple_tag
def tablet_texts(state: dict, options: dict, names: list, match) -> dict:
    """What the referee tablet says about the position, from the engine (:mod:`sinuca.explain`):
    ``decision`` (each choice with what it does), ``frame_end`` (heading, reason, the Art. 50.1
    bonus 7), ``match_end``, ``endings`` (the confirmations of concessions and re-racking),
    ``art28`` (the question), ``winner`` (the frame's winner once it is over, else None) and
    ``position`` (the key the Art. 28 answer is kept under)."""
    from sinuca import explain

    if state.get("walkover"):  # the desk's result: nothing was played (core.operations.walkover)
        from ..core.operations import walkover_sentence

        return {"decision": [], "frame_end": None, "match_end": walkover_sentence(state["walkover"], names),
                "endings": {}, "art28": explain.art28_question(), "winner": state["match_winner"],
                "position": ""}
    frame_end = explain.frame_over_texts(state, options, names)
    over = state["phase"] in (sinuca.Phase.FRAME_OVER, sinuca.Phase.MATCH_OVER)
    winner = state["match_winner"] if state["phase"] == sinuca.Phase.MATCH_OVER else state["frame_winner"]
    return {"decision": explain.decision_choices(state, options, names),
            "frame_end": frame_end, "match_end": explain.match_over_text(state, names),
            "endings": explain.ending_confirmations(state, names, match.config["frames_to_win"]),
            "art28": explain.art28_question(), "winner": winner if over else None,
            "position": explain.position_key(state)}


@register.simple_tag
def tablet_engine_settings(match, lang) -> dict:
    """What the referee page's in-browser engine needs (``static/scoreboard/engine.js``)."""
    from .tablet import client_settings

    return client_settings(match, lang)
