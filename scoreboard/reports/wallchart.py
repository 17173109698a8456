"""The competition's wallchart: the knockout drawn as a tree and the groups as tables, on A4
landscape pages (the day's paper fallback) or A3 landscape (the wall), with reportlab as the súmula.

The input is plain data (:class:`Chart`: no database, no Django), built by
``reports.brackets.chart`` from the competition's summary and plan; :func:`render` lays it out.
Every text is measured before it is drawn and nothing is printed over anything else or past the
page: in the tree a name too long for its slot is printed smaller, then with its given names as
initials, then cut with "…" (:func:`fit`); table cells wrap between words and a word wider than
its column is printed smaller (``sumula.fit_style``). A knockout whose first round does not fit
one page at a readable size is cut into parts of 16 first-round matches (32 players), each
drawn to the match its winner goes on to, and a last page from there to the final.
"""
from __future__ import annotations

import functools
import io
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

PAPERS = ("a4", "a3")
MIN_NAME = 0.72  # a name is printed down to this share of its slot's size before it is abbreviated


@dataclass(frozen=True)
class Side:
    """One side of a bracket box. ``name``: the player's, or a placeholder ("1º Grupo A",
    "Vencedor J3", "Isento") when ``player`` is false; ``score``: frames won or a mark ("W.O."),
    "" before the result; ``won``: this side won the match (printed bold)."""

    name: str = ""
    player: bool = False
    score: str = ""
    won: bool = False
    feeder: bool = False  # the placeholder names the winner of the box drawn just before it


@dataclass(frozen=True)
class Box:
    """One match of the tree (``number`` is the match number, J12), or a bye (``number`` None:
    one player and "Isento"). ``note``: the table and status, or how the match ended; ``tag``:
    the match's name ("J12" in Portuguese, "M12" in English)."""

    number: int | None
    sides: tuple[Side, Side]
    note: str = ""
    tag: str = ""  # the match's name as the chart's language writes it: "J12", "M12"


@dataclass(frozen=True)
class Tree:
    """A knockout: ``rounds[0]`` is the first round with a power of two of boxes (byes
    included), each next round half as many, to the final's one. ``round_titles``: one or two
    lines per round ("Quartas de final", "melhor de 5"). ``third``: the third-place match or
    None. ``champion``: the champion's name, "" while not known. ``words``: the labels the tree
    prints (``part``, ``champion``, ``goes_to``), in the chart's language."""

    title: str
    rounds: tuple[tuple[Box, ...], ...]
    round_titles: tuple[tuple[str, ...], ...]
    third: Box | None = None
    champion: str = ""
    words: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Grid:
    """A table: its head and rows of strings; ``bold`` the (row, column) cells printed bold;
    ``caption`` its title, kept at its top on every page it runs over ("Grupo A · Jogos")."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    bold: frozenset = frozenset()
    caption: str = ""  # a first row across the table, repeated with the head on every page


@dataclass(frozen=True)
class Block:
    """A group (or a team series): its tables (standings, then matches), each titled by its
    caption."""

    grids: tuple[Grid, ...]


@dataclass(frozen=True)
class Part:
    """One stage of the competition: its title and its groups as :class:`Block` s, or a tree."""

    title: str
    blocks: tuple[Block, ...] = ()
    tree: Tree | None = None


@dataclass(frozen=True)
class Chart:
    """What the wallchart prints: ``title`` (the competition and the document), ``subtitle`` (the
    draw, the champion), ``as_of`` (when the results were read), ``parts`` in stage order."""

    title: str
    subtitle: str
    as_of: str
    parts: tuple[Part, ...]


class Paper:
    """A landscape page and the sizes that go with it (A3 is A4 scaled by √2: the same layout,
    read from further away)."""

    def __init__(self, name: str):
        from reportlab.lib.pagesizes import A3, A4, landscape

        if name not in PAPERS:
            raise ValueError(name)
        self.name = name
        self.width, self.height = landscape(A3 if name == "a3" else A4)
        self.scale = self.width / landscape(A4)[0]
        s = self.scale
        self.margin = 20 * s
        self.head = 46 * s  # the running head: the title, the draw line, the stage shown
        self.foot = 12 * s
        self.gutter = 16 * s  # between two columns of tables
        self.table_font = 8 * s
        self.name_max = 12 * s  # a tree's names: at most this size,
        self.name_min = 7 * s   # and at least this before the tree is cut into parts

    @property
    def frame(self) -> tuple[float, float]:
        """The content area's width and height, points."""
        return self.width - 2 * self.margin, self.height - 2 * self.margin - self.head - self.foot


# -- fitting text ------------------------------------------------------------------------------

@functools.lru_cache(maxsize=65536)  # the same names and words are measured over and over
def _width(text: str, font: str, size: float) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return stringWidth(text, font, size)


PARTICLES = ("da", "de", "do", "das", "dos", "e", "di", "van", "von")


def _initials(name: str, first: bool = True) -> str:
    """The middle names as initials (and with ``first`` false the first name too), particles
    and the last name whole: "Maria Aparecida da Silva Neto" → "Maria A. da S. Neto"."""
    words = name.split()
    if len(words) < 3 and first:
        return name
    keep = 1 if first else 0
    mid = [w if w.lower() in PARTICLES or not any(c.isalpha() for c in w)
           else next(c for c in w if c.isalpha()) + "." for w in words[keep:-1]]
    return " ".join(words[:keep] + mid + words[-1:])


def fit(text: str, font: str, size: float, width: float, least: float | None = None) -> tuple[str, float]:
    """``(text, size)`` that fits ``width`` points: ``text`` at ``size``, or smaller down to
    ``least`` (default :data:`MIN_NAME` of ``size``), then with the given names as initials,
    then cut with "…" at ``least``."""
    least = size * MIN_NAME if least is None else least
    w = _width(text, font, size)
    if w <= width:
        return text, size
    if w * least / size <= width:
        return text, int(size * width / w * 10) / 10
    for short in (_initials(text), _initials(text, first=False)):
        w = _width(short, font, least)
        if w <= width:
            return short, min(size, int(least * width / w * 10) / 10)
    while short and _width(short + "…", font, least) > width:
        short = short[:-1]
    return (short.rstrip() + "…") if short else "", least


# -- the tree ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Page:
    """One page of a tree: rounds ``r0``…``r1`` (indexes), the first of them from box ``start``,
    ``count`` boxes; ``last``: the page with the final (the champion's line, the third place)."""

    r0: int
    r1: int
    start: int
    count: int
    last: bool
    part: int = 0
    parts: int = 0


def tree_pages(tree: Tree, per_page: int) -> list[_Page]:
    """The pages of ``tree`` when a page holds ``per_page`` (a power of two) first-column boxes:
    one page when the first round fits, else parts of ``per_page`` boxes each drawn through to
    one box, then the rest of the tree the same way."""
    pages: list[_Page] = []
    r0, count = 0, len(tree.rounds[0])
    last = len(tree.rounds) - 1
    while count > per_page:
        depth = per_page.bit_length()  # rounds until a part is one box: 16 → 5
        r1 = min(last, r0 + depth - 1)
        pages += [_Page(r0, r1, k * per_page, per_page, False) for k in range(count // per_page)]
        count >>= r1 - r0 + 1
        r0 = r1 + 1
    pages.append(_Page(r0, last, 0, count, True))
    n = len(pages)
    return [_Page(p.r0, p.r1, p.start, p.count, p.last, i + 1, n) for i, p in enumerate(pages)] if n > 1 else pages


class _Geometry:
    """Where each box of one tree page goes, for a ``width`` × ``height`` area: the first column's
    boxes each in a slot of ``pitch`` (its label above it, the pair centred in the slot), every
    later box level with the middle of the two it comes from."""

    def __init__(self, paper: Paper, page: _Page, width: float, height: float, bold: str):
        s = paper.scale
        self.rounds_h = 22 * s
        cols = page.r1 - page.r0 + 1
        self.top = height - self.rounds_h
        self.pitch = self.top / page.count
        self.f = f = min(paper.name_max, self.pitch / 4.0)
        self.row = 1.32 * f
        self.box_h = 2 * self.row
        self.label = 0.72 * f
        self.label_h = 1.2 * self.label + 0.15 * f
        self.col = min(width / (cols + 0.85), 230 * s)
        self.box_w = self.col - max(10 * s, 0.12 * self.col)
        self.tail = 0.85 * self.col  # the winner's line
        self.cols = cols
        self.score_w = _width("W.O.", bold, f) + 0.7 * f
        self.least = min(f, max(0.55 * f, 0.8 * paper.name_min))  # a long name printed down to this
        first = [self.top - (k + 0.5) * self.pitch - self.label_h / 2 for k in range(page.count)]
        self.centres = [first]
        for _ in range(1, cols):
            prev = self.centres[-1]
            self.centres.append([(prev[2 * k] + prev[2 * k + 1]) / 2 for k in range(len(prev) // 2)])

    def x(self, col: int) -> float:
        return col * self.col


def _draw_tree_page(canv, paper: Paper, tree: Tree, page: _Page, width: float, height: float,
                    font: str, bold: str) -> None:
    from reportlab.lib import colors

    g = _Geometry(paper, page, width, height, bold)
    f, s = g.f, paper.scale
    ink, grey, line = colors.black, colors.HexColor("#6b6b6b"), colors.HexColor("#8a8a8a")

    def text(x, y, value, fnt, size, width_, colour=ink, right=False, centre=False, least=None):
        value, size = fit(value, fnt, size, width_, least)
        if not value:
            return
        canv.setFont(fnt, size)
        canv.setFillColor(colour)
        if right:
            canv.drawRightString(x, y, value)
        elif centre:
            canv.drawCentredString(x, y, value)
        else:
            canv.drawString(x, y, value)

    # the rounds' names over their columns
    for c in range(g.cols):
        lines = tree.round_titles[page.r0 + c]
        cx = g.x(c) + g.box_w / 2
        text(cx, g.top + 12 * s, lines[0], bold, 8.5 * s, g.box_w, centre=True, least=6 * s)
        if len(lines) > 1:
            text(cx, g.top + 2.5 * s, lines[1], font, 7 * s, g.box_w, grey, centre=True, least=5.5 * s)

    canv.setLineWidth(0.6 * s)
    for c in range(g.cols):
        r = page.r0 + c
        boxes = _page_boxes(tree, page, r)
        for k, box in enumerate(boxes):
            y = g.centres[c][k]
            x = g.x(c)
            _box(canv, g, box, x, y, text, font, bold, ink, grey, line, feeders=c > 0)
            if c + 1 < g.cols and k % 2 == 0:  # the pair's connector to the next round
                y2 = g.centres[c][k + 1]
                mid = x + g.box_w + (g.col - g.box_w) / 2
                canv.setStrokeColor(line)
                canv.line(x + g.box_w, y, mid, y)
                canv.line(x + g.box_w, y2, mid, y2)
                canv.line(mid, y, mid, y2)
                canv.line(mid, (y + y2) / 2, g.x(c + 1), (y + y2) / 2)
    # the winner's line after the page's last box
    x0 = g.x(g.cols - 1) + g.box_w
    y = g.centres[-1][0]
    room = g.tail - 4 * s
    canv.setStrokeColor(ink)
    canv.setLineWidth(1.2 * s)
    canv.line(x0, y, x0 + g.tail, y)
    last = _page_boxes(tree, page, page.r1)[0]
    if page.last:
        who, under = tree.champion, tree.words["champion"]
    else:
        nxt = tree.rounds[page.r1 + 1][page.start >> (page.r1 - page.r0 + 1)]
        who = next((sd.name for sd in last.sides if sd.won and sd.player), "")
        under = f"{tree.words['goes_to']} {nxt.tag}" if nxt.number else ""
    if who:
        text(x0 + 4 * s, y + 0.35 * f, who, bold, 1.1 * f, room)
    if under:
        text(x0 + 4 * s, y - 0.35 * f - g.label, under, font, g.label, room, grey, least=g.label * 0.8)
    if page.last and tree.third is not None:  # below the final, in its column
        c = g.cols - 1
        room_top = g.centres[c][0] - g.box_h / 2 - 2 * g.label_h
        y = room_top / 2 - g.label_h / 2
        _box(canv, g, tree.third, g.x(c), max(y, g.box_h / 2 + 2 * s), text, font, bold, ink, grey, line,
             feeders=False)


def tree_title(tree: Tree, page: _Page) -> str:
    """The title of one page of a tree: the stage, and for a tree in parts which part and its
    matches ("Mata-mata · parte 1/5 (J1–J121)")."""
    title = tree.title
    if page.parts:
        title += f" · {tree.words['part']} {page.part}/{page.parts}"
        tags = sorted((b.number, b.tag) for r in range(page.r0, page.r1 + 1) for b in _page_boxes(tree, page, r)
                      if b.number)
        if tags:
            title += f" ({tags[0][1]}–{tags[-1][1]})"
    return title


def _page_boxes(tree: Tree, page: _Page, r: int) -> tuple[Box, ...]:
    shift = r - page.r0
    lo = page.start >> shift
    return tree.rounds[r][lo:lo + max(1, page.count >> shift)]


def _box(canv, g: _Geometry, box: Box, x: float, y: float, text, font, bold, ink, grey, line, feeders: bool) -> None:
    """One match (or bye) centred at height ``y``: its label above, two rows of name and score."""
    from reportlab.lib import colors

    f = g.f
    top, bottom = y + g.box_h / 2, y - g.box_h / 2
    canv.setLineWidth(0.6 * g.f / 8)
    canv.setStrokeColor(line if box.number else colors.HexColor("#c4c4c4"))
    canv.setFillColor(colors.white)
    canv.rect(x, bottom, g.box_w, g.box_h, stroke=1, fill=1)
    canv.line(x, y, x + g.box_w, y)
    if box.number:
        canv.line(x + g.box_w - g.score_w, bottom, x + g.box_w - g.score_w, top)
    label = " · ".join(p for p in (box.tag, box.note) if p)
    if label:
        text(x, top + 0.22 * f, label, font, g.label, g.box_w, grey, least=g.label * 0.8)
    pad = 0.35 * f
    room = g.box_w - (g.score_w if box.number else 0) - 2 * pad
    for i, sd in enumerate(box.sides):
        base = (top if i == 0 else y) - g.row / 2 - 0.36 * f
        if sd.name and not (feeders and sd.feeder and not sd.player):
            text(x + pad, base, sd.name, bold if sd.won else font, f if sd.player else 0.85 * f, room,
                 ink if sd.player else grey, least=min(g.least, 0.85 * f))
        if sd.score and box.number:
            text(x + g.box_w - pad, base, sd.score, bold if sd.won else font, f, g.score_w - pad, ink, right=True)


def _tree_flowable(paper: Paper, tree: Tree, page: _Page, font: str, bold: str):
    """One page of a tree as a platypus flowable: always the whole frame, so it starts a page."""
    from reportlab.platypus import Flowable

    class TreePage(Flowable):
        def wrap(self, aw, ah):
            self.width, self.height = paper.frame
            return self.width, self.height - 0.01

        def draw(self):
            _draw_tree_page(self.canv, paper, tree, page, self.width, self.height - 0.01, font, bold)

    return TreePage()


def per_page(paper: Paper) -> int:
    """How many first-round boxes one page of a tree holds with names at ``paper.name_min`` at
    least (a power of two: 16 on A4 and A3)."""
    s = paper.scale
    top = paper.frame[1] - 22 * s
    n = 1
    while top / (2 * n) / 4.0 >= paper.name_min and n < 64:
        n *= 2
    return n


# -- the tables -------------------------------------------------------------------------------

def _grid_table(grid: Grid, width: float, font: str, bold: str, size: float):
    """A platypus Table of ``grid`` at most ``width`` wide: widths from the content
    (``sumula.col_widths``); a cell that fits its column on one line is a plain string (fast: a
    group stage of 128 players has a thousand rows), a longer one a Paragraph wrapped between
    words, a word wider than its column printed smaller (``sumula.fit_style``)."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, Table, TableStyle

    from . import sumula

    widths = sumula.col_widths(list(grid.head), [list(r) for r in grid.rows], width, font, bold, size)
    lead = size * 1.22
    body = ParagraphStyle("wc-body", fontName=font, fontSize=size, leading=lead)
    strong = ParagraphStyle("wc-bold", parent=body, fontName=bold)
    h = 1 if grid.caption else 0  # the head's row

    def cell(value: str, st, w: float):
        if _width(value, st.fontName, size) <= w - 2 * sumula.PAD - 1:
            return value
        return Paragraph(escape(value), sumula.fit_style(st, value, w))

    data = [[cell(v, strong, w) for v, w in zip(grid.head, widths)]]
    data += [[cell(v, strong if (i, j) in grid.bold else body, w) for j, (v, w) in enumerate(zip(row, widths))]
             for i, row in enumerate(grid.rows)]
    style = [("FONT", (0, 0), (-1, -1), font, size, lead), ("FONT", (0, h), (-1, h), bold, size, lead),
             ("GRID", (0, h), (-1, -1), 0.4, colors.grey), ("VALIGN", (0, 0), (-1, -1), "TOP"),
             ("BACKGROUND", (0, h), (-1, h), colors.HexColor("#e8eef4")),
             ("LEFTPADDING", (0, 0), (-1, -1), sumula.PAD), ("RIGHTPADDING", (0, 0), (-1, -1), sumula.PAD),
             ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5)]
    style += [("FONT", (j, i + 1 + h), (j, i + 1 + h), bold, size, lead) for i, j in grid.bold]
    if grid.caption:
        title = ParagraphStyle("wc-caption", parent=strong, fontSize=size * 1.15, leading=size * 1.4)
        data.insert(0, [Paragraph(escape(grid.caption), sumula.fit_style(title, grid.caption, sum(widths)))]
                    + [""] * (len(widths) - 1))
        style += [("SPAN", (0, 0), (-1, 0)), ("BOX", (0, 0), (-1, 0), 0.4, colors.grey),
                  ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#cfdbe6"))]
    t = Table(data, colWidths=widths, repeatRows=1 + h, hAlign="LEFT")
    t.setStyle(TableStyle(style))
    return t


def _need(grid: Grid, font: str, bold: str, size: float) -> tuple[float, float]:
    """(narrowest, natural) width of ``grid``: with no word smaller than ``size``, and with
    every cell on one line."""
    from . import sumula

    n = len(grid.head)
    least, want = [0.0] * n, [0.0] * n
    for r, row in enumerate((grid.head,) + grid.rows):
        f = bold if r == 0 else font
        for i, cell in enumerate(row[:n]):
            text = str(cell)
            want[i] = max(want[i], _width(text, f, size))
            least[i] = max([least[i]] + [_width(w, f, size) for w in text.split()])
    pad = n * (2 * sumula.PAD + 1)
    return sum(least) + pad, sum(want) + pad


def _height(grid: Grid, width: float, font: str, bold: str, size: float) -> float:
    """About how tall ``grid`` is at ``width`` (its columns as :func:`_grid_table` sets them, each
    cell wrapped between words): to choose a layout without building the tables."""
    from . import sumula

    widths = sumula.col_widths(list(grid.head), [list(r) for r in grid.rows], width, font, bold, size)
    total = 0.0
    for r, row in enumerate((grid.head,) + grid.rows):
        f = bold if r == 0 else font
        lines = 1
        space = _width(" ", f, size)
        for text, w in zip(row, widths):
            room, n, used = w - 2 * sumula.PAD, 1, 0.0
            for word in str(text).split():
                ww = _width(word, f, size)
                if used and used + space + ww > room:
                    n, used = n + 1, ww
                else:
                    used += (space if used else 0) + ww
            lines = max(lines, n)
        total += lines * size * 1.22 + 4
    return total


def _block_flowables(block: Block, width: float, paper: Paper, font: str, bold: str) -> list:
    """A group's tables: its standings and its matches side by side when both fit the width
    and the page's height (a group of four or eight), else one under the other at the full
    width, where a long table goes on over pages with its caption and head repeated."""
    from reportlab.platypus import KeepTogether, Spacer, Table, TableStyle

    size, gap = paper.table_font, paper.gutter
    after = Spacer(1, size)
    if len(block.grids) == 2:
        (l1, w1), (l2, w2) = (_need(g, font, bold, size) for g in block.grids)
        room = width - gap
        row_h = size * 1.22 + 4  # a row of one line, its padding
        if l1 + l2 <= room and max(len(g.rows) + 2 for g in block.grids) * row_h < paper.frame[1]:
            # the split of the width that makes the taller of the two tables shortest
            splits = [l1 + (room - l1 - l2) * k / 6 for k in range(7)]
            a = min(splits, key=lambda a: max(_height(g, w, font, bold, size)
                                              for g, w in zip(block.grids, (a, room - a))))
            inner = [_grid_table(g, w, font, bold, size) for g, w in zip(block.grids, (a, room - a))]
            t = Table([inner], colWidths=[a + gap, room - a], hAlign="LEFT")
            t.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), 0), ("TOPPADDING", (0, 0), (-1, -1), 0),
                                   ("BOTTOMPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (0, 0), gap)]))
            if t.wrap(width, paper.frame[1])[1] <= paper.frame[1] * 0.98:
                return [t, after]
    out: list = []
    for g in block.grids:
        out += [_grid_table(g, width, font, bold, size), Spacer(1, size * 0.6)]
    return [KeepTogether(out[:2])] + out[2:] + [after]  # a short standings table stays whole


# -- the document -----------------------------------------------------------------------------

def _Titled(title: str):
    """A flowable of no size that names the part of the chart its page shows (the running head
    prints it at the page's end; the pages after it keep it until the next)."""
    from reportlab.platypus import Flowable

    class Titled(Flowable):
        def wrap(self, aw, ah):
            return 0, 0

        def draw(self):
            self.canv._wc_part = title

    return Titled()



def render(chart: Chart, paper: str = "a4") -> bytes:
    """The wallchart of ``chart`` as a PDF on ``paper`` (``"a4"`` or ``"a3"``, landscape;
    ``ValueError`` for another): each group stage's tables flowing over as many pages as they
    need, each knockout on pages of its own (:func:`tree_pages`)."""
    from reportlab.lib import colors
    from reportlab.pdfgen import canvas as rl_canvas
    from reportlab.platypus import BaseDocTemplate, Frame, PageBreak, PageTemplate

    from . import sumula

    pp = Paper(paper)
    font, bold = sumula._font()
    s = pp.scale
    buf = io.BytesIO()
    width, height = pp.frame
    frame = Frame(pp.margin, pp.margin + pp.foot, width, height, 0, 0, 0, 0, id="body")

    def head(canv, doc) -> None:  # at the page's end: the part it shows is known by then
        canv.saveState()
        top = pp.height - pp.margin
        lines = ((chart.title, bold, 13 * s, 12 * s), (chart.subtitle, font, 8.5 * s, 25 * s),
                 (getattr(canv, "_wc_part", ""), bold, 11 * s, 40 * s))
        for value, fnt, size, y in lines:
            value, size = fit(value, fnt, size, width, 6 * s)
            if value:
                canv.setFont(fnt, size)
                canv.drawString(pp.margin, top - y, value)
        canv.restoreState()

    class Numbered(rl_canvas.Canvas):
        """Writes "página n de N" and when the results were read at each page's foot."""

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self._pages: list = []

        def showPage(self):
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            total = len(self._pages)
            for state in self._pages:
                self.__dict__.update(state)
                self.setFont(font, 7 * s)
                self.setFillColor(colors.HexColor("#555555"))
                num = f"{self._pageNumber}/{total}"
                self.drawRightString(pp.width - pp.margin, pp.margin, num)
                room = width - _width(num, font, 7 * s) - 10 * s
                value, size = fit(chart.as_of, font, 7 * s, room, 5 * s)
                self.setFont(font, size)
                self.drawString(pp.margin, pp.margin, value)
                super().showPage()
            super().save()

    doc = BaseDocTemplate(buf, pagesize=(pp.width, pp.height), leftMargin=pp.margin, rightMargin=pp.margin,
                          topMargin=pp.margin + pp.head, bottomMargin=pp.margin + pp.foot, title=chart.title)
    doc.addPageTemplates([PageTemplate("page", [frame], onPageEnd=head)])
    story: list = []
    for part in chart.parts:
        if part.tree is not None:
            for p in tree_pages(part.tree, per_page(pp)):
                if story:
                    story.append(PageBreak())
                story += [_Titled(tree_title(part.tree, p)), _tree_flowable(pp, part.tree, p, font, bold)]
            continue
        if story:
            story.append(PageBreak())
        story.append(_Titled(part.title))
        for b in part.blocks:
            story += _block_flowables(b, width, pp, font, bold)
    if not story:
        story.append(_Titled("—"))
    doc.build(story, canvasmaker=Numbered)
    return buf.getvalue()
