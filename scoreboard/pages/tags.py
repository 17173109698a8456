"""Template helpers: ball names in the active language, descriptions, button events."""
from __future__ import annotations

import json

from django import template
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

register = template.Library()

BALL_NAMES = {1: _("vermelha"), 2: _("amarela"), 3: _("verde"), 4: _("marrom"), 5: _("azul"),
              6: _("rosa"), 7: _("preta")}


@register.filter
def ball_name(n) -> str:
    """``3`` → "verde" (or "green")."""
    try:
        return str(BALL_NAMES[int(n)])
    except (KeyError, TypeError, ValueError):
        return ""


@register.filter
def desc(obj) -> str:
    """An engine description (``{"pt", "en"}`` or an Event row) in the active language."""
    d = obj.description if hasattr(obj, "description") else obj
    if not isinstance(d, dict):
        return ""
    return d.get("en" if (get_language() or "").startswith("en") else "pt") or d.get("pt", "")


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
