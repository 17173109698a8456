"""Where each piece of text of a PDF is printed, read back from the PDF itself (pypdf): every
text-showing operator of each page's content stream with its string, font, size and place, as
the box it takes. pypdf reads the document (pages, fonts, streams); the content streams are
tokenised here (:func:`operations`: pypdf's own parser took 6 s for a 33-page chart). Widths come from each font's ``/Widths`` (the standard 14 fonts from
reportlab's metrics), heights from its descriptor's ``/Ascent`` and ``/Descent``; the graphics
state (``q``/``Q``/``cm``) and the text state (``Tm``, ``Td``, ``TD``, ``T*``, ``TL``, ``Tc``,
``Tw``, ``Tz``, ``Ts``) are followed as the PDF specification says (ISO 32000-1, 9.4)."""
from __future__ import annotations

import io
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class TextBox:
    """One shown string: ``page`` (0-based), its ``text`` and its box in points (origin bottom left)."""

    page: int
    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: "TextBox", slack: float = 0.3) -> bool:
        """Whether the two boxes share more than ``slack`` points each way."""
        return (min(self.x1, other.x1) - max(self.x0, other.x0) > slack
                and min(self.y1, other.y1) - max(self.y0, other.y0) > slack)


def _mul(a, b):
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def _apply(m, x, y):
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


class _Font:
    def __init__(self, obj):
        from reportlab.pdfbase import pdfmetrics

        self.widths = [float(w) for w in obj.get("/Widths", [])]
        self.first = int(obj.get("/FirstChar", 0))
        base = str(obj.get("/BaseFont", "/Helvetica"))[1:]
        self.std = None if self.widths else pdfmetrics.getFont(base)
        desc = obj.get("/FontDescriptor")
        desc = desc.get_object() if desc is not None else {}
        face = self.std.face if self.std is not None else None
        self.missing = float(desc["/MissingWidth"]) / 1000 if "/MissingWidth" in desc else None
        self.ascent = float(desc.get("/Ascent", face.ascent if face else 750)) / 1000
        self.descent = float(desc.get("/Descent", face.descent if face else -250)) / 1000
        self.cmap: dict[int, str] = {}
        if "/ToUnicode" in obj:
            data = obj["/ToUnicode"].get_object().get_data().decode("latin-1")
            for block in re.findall(r"beginbfchar(.*?)endbfchar", data, re.S):
                for src, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
                    self.cmap[int(src, 16)] = bytes.fromhex(dst).decode("utf-16-be")
            for block in re.findall(r"beginbfrange(.*?)endbfrange", data, re.S):
                for lo, hi, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
                    start = int(dst, 16)
                    for k, code in enumerate(range(int(lo, 16), int(hi, 16) + 1)):
                        self.cmap[code] = chr(start + k)

    def width(self, code: int) -> float:
        if self.std is not None:
            return self.std.stringWidth(bytes([code]).decode("cp1252", "replace"), 1000) / 1000
        i = code - self.first
        if 0 <= i < len(self.widths):
            return self.widths[i] / 1000
        assert self.missing is not None, f"code {code} has no width in its font"  # never measured as 0
        return self.missing

    def text(self, raw: bytes) -> str:
        if self.cmap:
            return "".join(self.cmap.get(b, "?") for b in raw)
        return raw.decode("cp1252", "replace")


_TOKEN = re.compile(rb"""
    (?P<space>\s+|%[^\r\n]*)
  | (?P<str>\((?:\\.|[^\\()])*\))
  | (?P<hex><[0-9A-Fa-f\s]*>)
  | (?P<name>/[^\s/\[\]()<>{}%]*)
  | (?P<num>[+-]?(?:\d+\.?\d*|\.\d+))
  | (?P<open>\[) | (?P<close>\])
  | (?P<op>[A-Za-z'"*]+\d*\*?)
""", re.X | re.S)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def _unescape(body: bytes) -> bytes:
    def one(m: re.Match) -> bytes:
        e = m.group(1)
        if e[:1].isdigit():
            return bytes([int(e, 8) & 0xFF])
        return _ESCAPES.get(e, e if e not in (b"\r\n", b"\n", b"\r") else b"")
    return re.sub(rb"\\([0-7]{1,3}|\r\n|.)", one, body, flags=re.S)


def operations(data: bytes):
    """``(operands, operator)`` of a content stream, as pypdf's ``ContentStream.operations``
    gives them but ten times faster (strings as bytes, numbers as floats, arrays as lists):
    enough for the streams reportlab writes (no inline images, no dictionaries)."""
    operands: list = []
    stack: list[list] = []
    for m in _TOKEN.finditer(data):
        kind = m.lastgroup
        tok = m.group(kind)
        if kind == "space":
            continue
        if kind == "op":
            yield operands, tok
            operands = []
            continue
        if kind == "open":
            stack.append(operands)
            operands = []
            continue
        if kind == "close":
            arr, operands = operands, stack.pop()
            value = arr
        elif kind == "str":
            value = _unescape(tok[1:-1])
        elif kind == "hex":
            h = re.sub(rb"\s", b"", tok[1:-1])
            value = bytes.fromhex((h + b"0" * (len(h) % 2)).decode())
        elif kind == "name":
            value = tok.decode("latin-1")
        else:
            value = float(tok)
        operands.append(value)


def text_boxes(pdf: bytes) -> list[TextBox]:
    """Every string the PDF shows, as a :class:`TextBox`, page by page in drawing order."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    out: list[TextBox] = []
    for pno, page in enumerate(reader.pages):
        res = page.get("/Resources") or {}
        fonts = {str(k): _Font(v.get_object()) for k, v in (res.get("/Font") or {}).items()}
        ctm, stack = [1, 0, 0, 1, 0, 0], []
        tm = tlm = [1, 0, 0, 1, 0, 0]
        font, size, tc, tw, tz, tl, rise = None, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0

        def show(raw: bytes, adjust: list | None = None) -> None:
            nonlocal tm
            adv, pieces = 0.0, []
            items = adjust if adjust is not None else [raw]
            for it in items:
                if isinstance(it, bytes):
                    for code in it:
                        adv += (font.width(code) * size + tc + (tw if code == 32 else 0)) * tz
                    pieces.append(font.text(bytes(it)))
                else:
                    adv -= float(it) / 1000 * size * tz
            m = _mul(tm, ctm)
            xs, ys = zip(*(_apply(m, x, y) for x in (0, adv) for y in (rise + font.descent * size,
                                                                        rise + font.ascent * size)))
            text = "".join(pieces)
            if text.strip():
                out.append(TextBox(pno, text, min(xs), min(ys), max(xs), max(ys)))
            tm = _mul([1, 0, 0, 1, adv, 0], tm)

        for operands, op in operations(page.get_contents().get_data()):
            if op == b"q":
                stack.append(ctm)
            elif op == b"Q":
                ctm = stack.pop()
            elif op == b"cm":
                ctm = _mul([float(v) for v in operands], ctm)
            elif op == b"BT":
                tm = tlm = [1, 0, 0, 1, 0, 0]
            elif op == b"Tf":
                font, size = fonts[str(operands[0])], float(operands[1])
            elif op == b"Tm":
                tm = tlm = [float(v) for v in operands]
            elif op in (b"Td", b"TD"):
                if op == b"TD":
                    tl = -float(operands[1])
                tm = tlm = _mul([1, 0, 0, 1, float(operands[0]), float(operands[1])], tlm)
            elif op == b"T*":
                tm = tlm = _mul([1, 0, 0, 1, 0, -tl], tlm)
            elif op == b"TL":
                tl = float(operands[0])
            elif op == b"Tc":
                tc = float(operands[0])
            elif op == b"Tw":
                tw = float(operands[0])
            elif op == b"Tz":
                tz = float(operands[0]) / 100
            elif op == b"Ts":
                rise = float(operands[0])
            elif op == b"Tj":
                show(operands[0])
            elif op == b"'":
                tm = tlm = _mul([1, 0, 0, 1, 0, -tl], tlm)
                show(operands[0])
            elif op == b'"':
                tw, tc = float(operands[0]), float(operands[1])
                tm = tlm = _mul([1, 0, 0, 1, 0, -tl], tlm)
                show(operands[2])
            elif op == b"TJ":
                show(b"", operands[0])
    return out


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    """Each page's (width, height) in points."""
    from pypdf import PdfReader

    return [(float(p.mediabox.width), float(p.mediabox.height)) for p in PdfReader(io.BytesIO(pdf)).pages]


def overlapping(boxes: list[TextBox]) -> list[tuple[TextBox, TextBox]]:
    """The pairs of boxes of one page that overlap (a sweep along x: cheap for a thousand boxes)."""
    found = []
    by_page: dict[int, list[TextBox]] = {}
    for b in boxes:
        by_page.setdefault(b.page, []).append(b)
    for page in by_page.values():
        page.sort(key=lambda b: b.x0)
        active: list[TextBox] = []
        for b in page:
            active = [a for a in active if a.x1 > b.x0]
            found += [(a, b) for a in active if a.overlaps(b)]
            active.append(b)
    return found
