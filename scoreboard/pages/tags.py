"""Template helpers: ball names in the active language, descriptions, button events."""
from __future__ import annotations

import json

from django import template
from django.urls import reverse
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import SafeData, mark_safe

import sinuca
from presentation import explain, referee_html
from sinuca import rulebook
from sinuca.article_titles import short_title

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
def cited(text, titled: str = "") -> str:
    """``text`` escaped, each article it cites ("Art. 35.3, 36") a link to that article or item
    of the rules page (``/rules/#art-35.3``; ``?lang=en`` on an English page). ``|cited:"titled"``
    (the TV's last action) follows each article's first citation with its short title
    (``sinuca.article_titles``): "Art. 40 · Penalidade variável"."""
    lang = engine_lang()
    base = reverse("rules") + ("?lang=en" if lang == "en" else "")
    seen: set[int] = set()
    out = []
    for p in rulebook.citation_pieces(str(text or "")):
        if isinstance(p, str):
            out.append(conditional_escape(p))
            continue
        out.append(format_html('<a href="{}#art-{}">{}</a>', base, p[1], p[0]))
        art = int(p[1].split(".")[0])
        if titled and art not in seen:
            seen.add(art)
            out.append(format_html('<small class="rule-title"> · {}</small>', short_title(art, lang)))
    return mark_safe("".join(out))


@register.filter
def titled(text) -> str:
    """``text`` escaped, each article's first citation followed by its short title, no links
    (the overlay's pop-ups, on a stream): "(Art. 40 · Penalidade variável)"."""
    lang = engine_lang()
    # a text already safe (a translated sentence with its names escaped) is not escaped again
    esc = (lambda x: x) if isinstance(text, SafeData) else conditional_escape
    seen: set[int] = set()
    out = []
    for p in rulebook.citation_pieces(str(text or "")):
        if isinstance(p, str):
            out.append(esc(p))
            continue
        out.append(esc(p[0]))
        art = int(p[1].split(".")[0])
        if art not in seen:
            seen.add(art)
            out.append(format_html('<small class="rule-title"> · {}</small>', short_title(art, lang)))
    return mark_safe("".join(out))


@register.filter
def rule_words(text, ref: str = "") -> str:
    """The first words of the rule ``text`` cites (or of ``ref``), verbatim, for the overlay's
    foul and retorno pop-ups when the stream asks for them: ``Art. 25.5: “requerer a repetição
    da jogada.”``; the first item cited before any bare article (a foul's kind, 47.1, says more
    than its penalty's article, 40); twelve words, then "…"; ``""`` when nothing is cited."""
    cited = rulebook.citations(str(text or ""))
    refs = [ref] if ref else [r for r in cited if "." in r] + [r for r in cited if "." not in r]
    book = rulebook.load()
    for r in refs:
        found = book.find(r)
        if found is None:
            continue
        art, item = found
        words = (item.text if item else art.text).split()
        cut = " ".join(words[:12]) + (" …" if len(words) > 12 else "")
        return f"Art. {r}: “{cut}”"
    return ""


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
        return pick(explain.reds_count(int(k)))
    except (TypeError, ValueError):
        return ""


@register.filter
def art_taps(text) -> str:
    """The tablet's message escaped, each "Art. N" it cites a tap that opens the article over the
    board (the tablet's renderer's markup, :func:`presentation.referee_html.cited`), where
    :func:`cited` links to the rules page."""
    return mark_safe(referee_html.cited("" if text is None else str(text), escape))  # noqa: S308 - escaped there


@register.simple_tag(takes_context=True)
def referee_region(context) -> str:
    """The referee tablet's board and controls for the page's context, in the active language:
    the one renderer's HTML (:func:`presentation.referee_html.region`), which the tablet's
    in-browser engine also draws."""
    from django.utils.safestring import SafeData, mark_safe

    from .referee import region_html

    return mark_safe(region_html(context["match"], context["seq"], context["s"], context["opts"],
                                 context["log_lines"], context.get("undo_what"), engine_lang()))


@register.simple_tag
def tablet_engine_settings(match, lang) -> dict:
    """What the referee page's in-browser engine needs (``static/scoreboard/engine.js``)."""
    from .tablet import client_settings

    return client_settings(match, lang)
