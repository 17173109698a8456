"""Template helpers of the tournament pages: display options, statistics pictures, labels."""
from __future__ import annotations

from django import template

from ..reports import stats as stats_mod
from ..reports import svg
from ..reports.sumula import ended_by_label, result_label
from . import display as display_mod

register = template.Library()


@register.simple_tag(takes_context=True)
def display_options(context) -> display_mod.Display:
    """``{% display_options as d %}``: the page's URL display options."""
    return display_mod.from_request(context.get("request"))


@register.simple_tag(takes_context=True)
def display_classes(context) -> str:
    """Classes for ``<body>`` from the URL options (layout, theme)."""
    return display_mod.from_request(context.get("request")).classes


@register.simple_tag
def match_stats(match) -> stats_mod.MatchStats:
    """``{% match_stats match as st %}``: the statistics fold at the match's current seq."""
    return stats_mod.for_match(match)


@register.simple_tag
def worm_svg(frame, names):
    return svg.worm(frame, names)


@register.simple_tag
def breaks_svg(st):
    return svg.breaks_chart(st.breaks, st.names)


@register.filter
def short_name(name) -> str:
    """A column head under a player's panel (which shows the full name): his first name
    ("Ana"), or a doubles side's first names ("Ana Souza / Carla Dias" → "Ana / Carla")."""
    return " / ".join((part.split() or [""])[0] for part in str(name).split(" / "))


@register.filter
def ended_by(code) -> str:
    return ended_by_label(code)


@register.filter
def match_result(code) -> str:
    return result_label(code)


@register.filter
def at(seq, i):
    """``list|at:i``."""
    try:
        return seq[int(i)]
    except (IndexError, TypeError, ValueError, KeyError):
        return ""


@register.simple_tag
def recent_events(match, n: int = 10) -> list:
    """``{% recent_events match as rows %}``: the match's last ``n`` logged events, newest first
    (``Event`` rows: ``seq``, ``description``), each a way to its "why?" page."""
    return list(match.events.order_by("-seq")[:n])
