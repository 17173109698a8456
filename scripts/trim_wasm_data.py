"""Drop the CJK codecs from Pyodide's wasm: unlist their built-in modules and zero their mapping
tables, 0.64 MB of the memory image that brotli packed to 163 kB (issue 20: the tablet's cold
download). The tablet's engine encodes nothing but UTF-8.

The six CJK codec modules (``_codecs_cn``, ``_codecs_hk``, ``_codecs_iso2022``, ``_codecs_jp``,
``_codecs_kr``, ``_codecs_tw``) and ``_multibytecodec`` are built into Pyodide's CPython. Here:

1. CPython's table of built-in modules (``_PyImport_Inittab``: ``{const char *name; PyObject
   *(*initfunc)(void)}`` records, ending with a NULL name) is found in the memory image by its
   names and table indices, and those seven records are taken out of it. Importing one is then a
   ``ModuleNotFoundError``, and ``"x".encode("gb2312")`` a ``LookupError`` (unknown encoding),
   never a decode with empty tables.
2. The mapping tables are found the way the codecs reach them: each module's initialisation
   stores ``{charset name, encode map, decode map}`` for every charset it maps
   (``cjkcodecs.h``, ``add_mappings``), so the functions whose constants name a CJK charset
   (``"gb2312"``, ``"jisx0208"`` …) hold the maps' addresses. A map is 256 index entries
   ``{row pointer, first byte, last byte}`` (8 bytes each, every row inside the image and first
   ≤ last), and each row ``last - first + 1`` two-byte codes. Those arrays are ``static const``
   in the CJK codecs' own files, so only the code of the modules unlisted in 1. reads them; the
   maps and their rows are zeroed (a row of four-byte codes is zeroed half: less saved, nothing
   else touched).

Everything is checked as it is found: the table of built-in modules must be unique and hold
``sys``, ``builtins`` and the seven; every charset must be found. Otherwise the script exits
non-zero and ``scripts/lib.sh`` serves the wasm unchanged (as for a new Pyodide).

python scripts/trim_wasm_data.py <pyodide.asm.wasm, changed in place>
"""
from __future__ import annotations

import re
import sys

from trim_wasm import leb, sections, sleb

DROP = ("_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr", "_codecs_tw",
        "_multibytecodec")
CHARSETS = ("gb2312", "gbkext", "gbcommon", "gb18030ext", "ksx1001", "cp949", "cp949ext", "jisx0208",
            "jisx0212", "jisxcommon", "cp932ext", "jisx0213_1_bmp", "jisx0213_2_bmp", "jisx0213_bmp",
            "jisx0213_1_emp", "jisx0213_2_emp", "jisx0213_emp", "big5", "cp950ext", "big5hkscs",
            "big5hkscs_bmp", "big5hkscs_nonbmp")
MUST_MAP = ("gb2312", "gbkext", "ksx1001", "jisx0208", "jisx0212", "big5", "cp950ext", "cp932ext")


def i32_constants(wasm: bytes, start: int, end: int) -> list[int]:
    """The ``i32.const`` values of one function body (its instructions decoded in order, so no
    immediate is mistaken for an opcode). Raises ``ValueError`` on an instruction this build does
    not use (SIMD, threads)."""
    i = start
    count, i = leb(wasm, i)
    for _ in range(count):  # locals: count, type
        _, i = leb(wasm, i)
        i += 1
    out = []
    while i < end:
        op = wasm[i]
        i += 1
        if op in (0x02, 0x03, 0x04, 0x06):  # block types: empty, a value type or a type index
            if wasm[i] == 0x40 or wasm[i] >= 0x6B:
                i += 1
            else:
                _, i = sleb(wasm, i)
        elif op in (0x07, 0x08, 0x09, 0x0C, 0x0D, 0x10, 0x12, 0x18, 0x20, 0x21, 0x22, 0x23, 0x24,
                    0x25, 0x26, 0x3F, 0x40, 0xD2, 0xD4, 0xD6):
            _, i = leb(wasm, i)
        elif op == 0x0E:  # br_table
            n, i = leb(wasm, i)
            for _ in range(n + 1):
                _, i = leb(wasm, i)
        elif op in (0x11, 0x13):  # call_indirect: type, table
            _, i = leb(wasm, i)
            _, i = leb(wasm, i)
        elif op == 0x1C:  # select with types
            n, i = leb(wasm, i)
            i += n
        elif 0x28 <= op <= 0x3E:  # memory access: align (memory index when bit 6), offset
            align, i = leb(wasm, i)
            if align & 0x40:
                _, i = leb(wasm, i)
            _, i = leb(wasm, i)
        elif op == 0x41:
            value, i = sleb(wasm, i)
            out.append(value & 0xFFFFFFFF)
        elif op == 0x42:
            _, i = sleb(wasm, i)
        elif op == 0x43:
            i += 4
        elif op == 0x44:
            i += 8
        elif op == 0xD0:  # ref.null heap type
            if wasm[i] >= 0x6B:
                i += 1
            else:
                _, i = sleb(wasm, i)
        elif op == 0x1F:  # try_table: block type, catch clauses
            if wasm[i] == 0x40 or wasm[i] >= 0x6B:
                i += 1
            else:
                _, i = sleb(wasm, i)
            n, i = leb(wasm, i)
            for _ in range(n):
                kind = wasm[i]
                i += 1
                if kind in (0, 1):
                    _, i = leb(wasm, i)
                _, i = leb(wasm, i)
        elif op == 0xFC:
            sub, i = leb(wasm, i)
            if sub in (8, 10, 12, 14):
                _, i = leb(wasm, i)
                _, i = leb(wasm, i)
            elif sub in (9, 11, 13, 15, 16, 17):
                _, i = leb(wasm, i)
            elif sub > 7:
                raise ValueError(f"instruction 0xfc {sub}")
        elif not (op in (0x00, 0x01, 0x05, 0x0A, 0x0B, 0x0F, 0x19, 0x1A, 0x1B, 0xD1, 0xD3, 0xD5)
                  or 0x45 <= op <= 0xC4):
            raise ValueError(f"instruction {op:#x} at {i - 1}")
    if i != end:
        raise ValueError("a function body did not decode to its end")
    return out


def active_offset(wasm: bytes, i: int, kind: str) -> tuple[int, int]:
    """A segment's header at ``i``: flags 0 (active, memory or table 0) and an offset that is one
    ``i32.const``; (offset, the index after it). Raises ``SystemExit`` on any other form."""
    flags, i = leb(wasm, i)
    if flags != 0 or wasm[i] != 0x41:
        raise SystemExit(f"trim_wasm_data: a {kind} segment not at a constant offset")
    offset, i = sleb(wasm, i + 1)
    if wasm[i] != 0x0B:
        raise SystemExit(f"trim_wasm_data: a {kind} segment's offset is not one constant")
    return offset, i + 1


class Image:
    """The wasm's memory image (active data segments at constant addresses) and where each
    segment's bytes sit in the file, so changes are made in place."""

    def __init__(self, wasm: bytearray) -> None:
        self.wasm = wasm
        self.segments: list[tuple[int, int, int]] = []  # (address, file offset, length)
        self.bodies: list[tuple[int, int]] = []
        self.table: dict[int, int] = {}
        for sid, _, start, end in sections(bytes(wasm)):
            if sid == 11:
                count, i = leb(wasm, start)
                for _ in range(count):
                    address, i = active_offset(wasm, i, "data")
                    length, i = leb(wasm, i)
                    self.segments.append((address, i, length))
                    i += length
            elif sid == 10:
                count, i = leb(wasm, start)
                for _ in range(count):
                    size, i = leb(wasm, i)
                    self.bodies.append((i, i + size))
                    i += size
            elif sid == 9:
                count, i = leb(wasm, start)
                for _ in range(count):
                    offset, i = active_offset(wasm, i, "element")
                    n, i = leb(wasm, i)
                    for j in range(n):
                        func, i = leb(wasm, i)
                        self.table[offset + j] = func
        self.low = min(a for a, _, _ in self.segments)
        self.high = max(a + n for a, _, n in self.segments)
        self.mem = bytearray(self.high)
        for address, at, length in self.segments:
            self.mem[address:address + length] = wasm[at:at + length]

    def u32(self, address: int) -> int:
        return int.from_bytes(self.mem[address:address + 4], "little")

    def cstr(self, address: int) -> bytes:
        return bytes(self.mem[address:self.mem.index(0, address)])

    def write(self, address: int, data: bytes) -> None:
        """Set memory bytes (in the image and in the file's segments that hold them); bytes
        outside every segment are zero already and must stay so."""
        self.mem[address:address + len(data)] = data
        end = address + len(data)
        for seg_address, at, length in self.segments:
            lo, hi = max(address, seg_address), min(end, seg_address + length)
            if lo < hi:
                self.wasm[at + lo - seg_address:at + hi - seg_address] = data[lo - address:hi - address]


def inittab(img: Image, anchor: str = "_multibytecodec", must=("sys", "builtins", *DROP)) -> tuple[int, list[tuple[str, int]]]:
    """(address, [(name, table index)]) of CPython's table of built-in modules: the one table of
    such records that names ``anchor`` and every module in ``must``. Raises ``SystemExit``
    otherwise."""
    def record(x: int):
        name, func = img.u32(x), img.u32(x + 4)
        if not (img.low <= name < img.high) or not (func == 0 or func in img.table):
            return None
        try:
            text = img.cstr(name).decode("ascii")
        except (ValueError, UnicodeDecodeError):
            return None
        return (text, func) if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) else None

    found = set()
    for m in re.finditer(re.escape(anchor.encode() + b"\x00"), img.mem):  # maybe the tail of a longer string
        pointer = m.start().to_bytes(4, "little")
        for q in re.finditer(re.escape(pointer), img.mem):
            x = q.start()
            if x % 4 or not record(x):
                continue
            while record(x - 8):
                x -= 8
            rows, j = [], x
            while record(j):
                rows.append(record(j))
                j += 8
            names = {n for n, _ in rows}
            if img.u32(j) == 0 and set(must) <= names:
                found.add((x, tuple(rows)))
    if len(found) != 1:
        raise SystemExit(f"trim_wasm_data: {len(found)} tables of built-in modules found, not one")
    address, rows = found.pop()
    return address, list(rows)


def maps(img: Image) -> list[tuple[int, int]]:
    """The byte ranges of the CJK codecs' maps and rows (see the module's docstring)."""
    names = {}
    for charset in CHARSETS:
        for m in re.finditer(re.escape(charset.encode() + b"\x00"), img.mem):
            names[m.start()] = charset

    def index(address: int):
        if not (img.low <= address <= img.high - 2048):
            return None
        rows = []
        for k in range(256):
            entry = address + 8 * k
            row, first, last = img.u32(entry), img.mem[entry + 4], img.mem[entry + 5]
            if row == 0:
                continue
            if not (img.low <= row < img.high) or first > last or row + 2 * (last - first + 1) > img.high:
                return None
            rows.append((row, row + 2 * (last - first + 1)))
        return rows or None

    ranges, mapped = [], set()
    for start, end in img.bodies:
        constants = i32_constants(img.wasm, start, end)
        named = {names[c] for c in constants if c in names}
        if len(named) < 2:  # a module's mapping list names its charsets; one hit can be chance
            continue
        for c in constants:
            rows = index(c)
            if rows:
                ranges.append((c, c + 2048))
                ranges.extend(rows)
                mapped |= named
    missing = set(MUST_MAP) - mapped
    if missing:
        raise SystemExit(f"trim_wasm_data: no maps found for {sorted(missing)}")
    merged: list[list[int]] = []
    for a, b in sorted(ranges):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def main(path: str) -> None:
    wasm = bytearray(open(path, "rb").read())
    img = Image(wasm)
    address, rows = inittab(img)
    zeroed = 0
    for a, b in maps(img):
        img.write(a, bytes(b - a))
        zeroed += b - a
    kept = [(n, f) for n, f in rows if n not in DROP]
    table = b"".join(img.u32(address + 8 * rows.index((n, f))).to_bytes(4, "little") + f.to_bytes(4, "little")
                     for n, f in kept)
    img.write(address, table + bytes(8 * (len(rows) + 1) - len(table)))
    open(path, "wb").write(wasm)
    print(f"{path}: {len(rows) - len(kept)} built-in modules unlisted, {zeroed} bytes of their maps zeroed")


if __name__ == "__main__":
    main(sys.argv[1])
