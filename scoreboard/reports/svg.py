"""Pictures of a match as SVG rendered on the server: a frame's "worm" and the match's breaks.

Plain strings, every text escaped; colours come from CSS custom properties (``--pa``, ``--pb``)
with fallbacks, so a club theme recolours them and the SVG still reads without any stylesheet.
"""
from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from .stats import BREAK_MARK, Break, FrameLine

COLOURS = ("var(--pa, #ffd54f)", "var(--pb, #4fc3f7)")


# Both pictures are drawn for a phone's width (a box 360 units wide) and scale with the space they
# get: text of 13-14 units is about 13 px on a 390-px phone (at 640 units wide with 12-unit text it
# was 6.6 px) and about 29 px on a 1080p TV's statistics, where 26 px is the least read across a
# room. Fewer ticks, so that the larger labels never touch.
WIDTH = 360
FONT = 13  # tick labels, the axis's title, a break's points
FONT_NAME = 14  # the players' names (bold)
CHAR = .62  # a bold character's average width, in ems (DejaVu Sans)


def _nice_max(v: int) -> int:
    """An axis top at or above ``v``: a multiple of 10 (20 at least)."""
    return max(20, -(-v // 10) * 10)


def _axis(v: int) -> tuple[int, int]:
    """The axis's top at or above ``v`` and its step: at most four steps (five labels)."""
    for step in (10, 20, 25, 50, 100, 200, 500):
        top = max(20, -(-max(v, 1) // step) * step)
        if top // step <= 4:
            return top, step
    return _nice_max(v), -(-_nice_max(v) // 4)


def _legend(name: str, score, room: float) -> tuple[str, str]:
    """A player's legend and its squeeze: the full name when it fits ``room`` units, else the
    first name(s) (the picture's title has the full names); squeezed only when even that is
    too wide."""
    for text in (f"{name} {score}", f"{_first_names(name)} {score}"):
        if len(text) * CHAR * FONT_NAME <= room:
            return text, ""
    return text, f' textLength="{room:.0f}" lengthAdjust="spacingAndGlyphs"'


def _first_names(name: str) -> str:
    """"Ana Souza" -> "Ana"; a doubles side "Ana Souza / Carla Dias" -> "Ana / Carla"."""
    return " / ".join((part.split() or [""])[0] for part in str(name).split(" / "))


def worm(frame: FrameLine, names: list[str], width: int = WIDTH, height: int = 180) -> SafeString:
    """Both players' score after every stroke of one frame, as two lines."""
    pad_l, pad_r, pad_t, pad_b = 36, 10, 28, 24
    pts = frame.worm or [(0, 0)]
    top, step = _axis(max(max(a, b) for a, b in pts))
    n = max(len(pts) - 1, 1)
    w, h = width - pad_l - pad_r, height - pad_t - pad_b

    def xy(i: int, v: int) -> str:
        return f"{pad_l + w * i / n:.1f},{pad_t + h - h * v / top:.1f}"

    title = _("Partida %(n)s: %(a)s %(sa)s × %(sb)s %(b)s") % {
        "n": frame.frame, "a": names[0], "b": names[1], "sa": frame.scores[0], "sb": frame.scores[1]}
    out = [f'<svg class="worm" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>']
    for v in range(0, top + 1, step):
        y = pad_t + h - h * v / top
        out.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="currentColor" stroke-opacity=".18"/>'
                   f'<text x="{pad_l - 5}" y="{y + FONT * .35:.1f}" text-anchor="end" font-size="{FONT}" '
                   f'fill="currentColor" fill-opacity=".7">{v}</text>')
    # Each legend has half the width: a long name gives way to the first name rather than
    # running into the other.
    room = (width - pad_l - pad_r) / 2 - 6
    for p in (0, 1):
        line = " ".join(xy(i, s[p]) for i, s in enumerate(pts))
        out.append(f'<polyline class="worm-p{p}" points="{line}" fill="none" stroke="{COLOURS[p]}" '
                   f'stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round"/>')
        x, anchor = (pad_l, "start") if p == 0 else (width - pad_r, "end")
        label, fit = _legend(names[p], pts[-1][p], room)
        out.append(f'<text x="{x}" y="{FONT_NAME + 3}" font-size="{FONT_NAME}" font-weight="700" fill="{COLOURS[p]}" '
                   f'text-anchor="{anchor}"{fit}>{escape(label)}</text>')
    # Outside the f-string: xgettext does not read inside one, so the catalogue would miss it.
    axis = _("Partida %(n)s — tacadas") % {"n": frame.frame}
    out.append(f'<text x="{pad_l + w / 2:.1f}" y="{height - 6}" text-anchor="middle" font-size="{FONT}" '
               f'fill="currentColor" fill-opacity=".7">{escape(axis)}</text>')
    out.append("</svg>")
    return mark_safe("".join(out))


def breaks_chart(breaks: list[Break], names: list[str], width: int = WIDTH, height: int = 220) -> SafeString:
    """Every scoring visit of the match in order, one bar each, up for player A and down for B;
    breaks of ``BREAK_MARK`` or more are labelled."""
    pad_l, pad_r, pad_t = 36, 10, 40  # a break's points between the bars and the names
    mid = height / 2
    top = _nice_max(max((b.points for b in breaks), default=0))
    half = mid - pad_t
    n = max(len(breaks), 1)
    bw = (width - pad_l - pad_r) / n
    label = _("Tacadas do jogo: %(a)s (acima) e %(b)s (abaixo)") % {"a": names[0], "b": names[1]}
    out = [f'<svg class="breaks" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>',
           f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{mid}" y2="{mid}" stroke="currentColor" stroke-opacity=".5"/>',
           f'<text x="{pad_l - 5}" y="{pad_t + FONT * .35:.1f}" text-anchor="end" font-size="{FONT}" fill="currentColor" '
           f'fill-opacity=".7">{top}</text>',
           f'<text x="{pad_l - 5}" y="{height - pad_t + FONT * .35:.1f}" text-anchor="end" font-size="{FONT}" '
           f'fill="currentColor" fill-opacity=".7">{top}</text>']
    room = width - pad_l - pad_r
    for p, y in ((0, FONT_NAME + 2), (1, height - 4)):
        text, fit = _legend(names[p], "", room)
        out.append(f'<text x="{pad_l}" y="{y}" font-size="{FONT_NAME}" font-weight="700" fill="{COLOURS[p]}"{fit}>'
                   f'{escape(text.strip())}</text>')
    frame = None
    for i, b in enumerate(breaks):
        x = pad_l + i * bw
        if b.frame != frame and frame is not None:
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{pad_t - 8}" y2="{height - pad_t + 8}" '
                       f'stroke="currentColor" stroke-opacity=".3" stroke-dasharray="4 3"/>')
        frame = b.frame
        bh = half * b.points / top
        y = mid - bh if b.player == 0 else mid
        out.append(f'<rect class="brk-p{b.player}" x="{x + bw * .12:.1f}" y="{y:.1f}" width="{max(bw * .76, 1):.1f}" '
                   f'height="{bh:.1f}" fill="{COLOURS[b.player]}"><title>{escape(names[b.player])}: {b.points}'
                   f'</title></rect>')
        if b.points >= BREAK_MARK:
            ty = y - 4 if b.player == 0 else y + bh + FONT
            out.append(f'<text x="{x + bw / 2:.1f}" y="{ty:.1f}" text-anchor="middle" font-size="{FONT}" '
                       f'font-weight="700" fill="currentColor">{b.points}</text>')
    out.append("</svg>")
    return mark_safe("".join(out))
