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


def _nice_max(v: int) -> int:
    """An axis top at or above ``v``: a multiple of 10 (20 at least)."""
    return max(20, -(-v // 10) * 10)


def worm(frame: FrameLine, names: list[str], width: int = 640, height: int = 260) -> SafeString:
    """Both players' score after every stroke of one frame, as two lines."""
    pad_l, pad_r, pad_t, pad_b = 44, 16, 30, 28
    pts = frame.worm or [(0, 0)]
    top = _nice_max(max(max(a, b) for a, b in pts))
    n = max(len(pts) - 1, 1)
    w, h = width - pad_l - pad_r, height - pad_t - pad_b

    def xy(i: int, v: int) -> str:
        return f"{pad_l + w * i / n:.1f},{pad_t + h - h * v / top:.1f}"

    title = _("Partida %(n)s: %(a)s %(sa)s × %(sb)s %(b)s") % {
        "n": frame.frame, "a": names[0], "b": names[1], "sa": frame.scores[0], "sb": frame.scores[1]}
    out = [f'<svg class="worm" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>']
    step = 10 if top <= 60 else 20 if top <= 120 else 40
    for v in range(0, top + 1, step):
        y = pad_t + h - h * v / top
        out.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="currentColor" stroke-opacity=".18"/>'
                   f'<text x="{pad_l - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="12" '
                   f'fill="currentColor" fill-opacity=".7">{v}</text>')
    for p in (0, 1):
        line = " ".join(xy(i, s[p]) for i, s in enumerate(pts))
        out.append(f'<polyline class="worm-p{p}" points="{line}" fill="none" stroke="{COLOURS[p]}" '
                   f'stroke-width="3" stroke-linejoin="round" stroke-linecap="round"/>')
        end = pts[-1]
        x, anchor = (pad_l, "start") if p == 0 else (width - pad_r, "end")
        label = f"{names[p]} {end[p]}"
        # Each legend has half the width: a long name is squeezed into it rather than running
        # into the other (about 8.5 px per bold 14 px character).
        room = (width - pad_l - pad_r) / 2 - 8
        fit = f' textLength="{room:.0f}" lengthAdjust="spacingAndGlyphs"' if len(label) * 8.5 > room else ""
        out.append(f'<text x="{x}" y="18" font-size="14" font-weight="700" fill="{COLOURS[p]}" '
                   f'text-anchor="{anchor}"{fit}>{escape(label)}</text>')
    # Outside the f-string: xgettext does not read inside one, so the catalogue would miss it.
    axis = _("Partida %(n)s — tacadas") % {"n": frame.frame}
    out.append(f'<text x="{pad_l + w / 2:.1f}" y="{height - 6}" text-anchor="middle" font-size="12" '
               f'fill="currentColor" fill-opacity=".7">{escape(axis)}</text>')
    out.append("</svg>")
    return mark_safe("".join(out))


def breaks_chart(breaks: list[Break], names: list[str], width: int = 640, height: int = 220) -> SafeString:
    """Every scoring visit of the match in order, one bar each, up for player A and down for B;
    breaks of ``BREAK_MARK`` or more are labelled."""
    pad_l, pad_r, pad_t = 44, 16, 24
    mid = height / 2
    top = _nice_max(max((b.points for b in breaks), default=0))
    half = mid - pad_t
    n = max(len(breaks), 1)
    bw = (width - pad_l - pad_r) / n
    label = _("Tacadas do jogo: %(a)s (acima) e %(b)s (abaixo)") % {"a": names[0], "b": names[1]}
    out = [f'<svg class="breaks" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>',
           f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{mid}" y2="{mid}" stroke="currentColor" stroke-opacity=".5"/>',
           f'<text x="{pad_l - 6}" y="{pad_t + 4}" text-anchor="end" font-size="12" fill="currentColor" '
           f'fill-opacity=".7">{top}</text>',
           f'<text x="{pad_l - 6}" y="{height - pad_t + 4}" text-anchor="end" font-size="12" '
           f'fill="currentColor" fill-opacity=".7">{top}</text>',
           f'<text x="{pad_l}" y="14" font-size="13" font-weight="700" fill="{COLOURS[0]}">{escape(names[0])}</text>',
           f'<text x="{pad_l}" y="{height - 3}" font-size="13" font-weight="700" fill="{COLOURS[1]}">'
           f'{escape(names[1])}</text>']
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
            ty = y - 4 if b.player == 0 else y + bh + 13
            out.append(f'<text x="{x + bw / 2:.1f}" y="{ty:.1f}" text-anchor="middle" font-size="12" '
                       f'font-weight="700" fill="currentColor">{b.points}</text>')
    out.append("</svg>")
    return mark_safe("".join(out))
