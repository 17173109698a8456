"""Smaller location tables for the bytecode the referee tablet downloads (issue 20), run inside
Pyodide's CPython by ``build_engine_stdlib.mjs`` and ``build_engine_pyc.mjs``.

A code object's ``co_linetable`` maps each instruction to its line and columns (CPython 3.11+,
``Objects/locations.md``): about a third of a stdlib ``.pyc``. Two cuts:

- :func:`one_line` (the standard library): every instruction on the function's first line, no
  columns: a traceback through the stdlib names the function and where it starts. An empty table
  would be smaller still, but ``traceback`` then fails (StopIteration from ``co_positions``)
  and Pyodide formats every Python error that reaches JavaScript.
- :func:`lines_only` (the engine's own code): each instruction keeps its line, only the columns
  go (a traceback loses its ``^^^`` markers, never a line number).
"""
from __future__ import annotations

import types

_NO_COLUMNS = 13  # entry: line delta (signed varint), no columns
_NO_LOCATION = 15  # entry: no location at all (e.g. an implicit return's cleanup)


def _entry(code: int, n: int) -> int:
    """The first byte of an entry covering ``n`` (1..8) instructions."""
    return 0x80 | (code << 3) | (n - 1)


def _svarint(value: int) -> bytes:
    """A signed varint of the location table: 6-bit chunks, 0x40 marks one more."""
    u = ((-value) << 1) | 1 if value < 0 else value << 1
    out = bytearray()
    while u >= 64:
        out.append(0x40 | (u & 63))
        u >>= 6
    out.append(u)
    return bytes(out)


def _table(lines: list[int | None], first: int) -> bytes:
    """A location table giving instruction ``i`` the line ``lines[i]`` (None: no location)."""
    table, prev, i = bytearray(), first, 0
    while i < len(lines):
        j = i
        while j < len(lines) and j - i < 8 and lines[j] == lines[i]:
            j += 1
        if lines[i] is None:
            table.append(_entry(_NO_LOCATION, j - i))
        else:
            table.append(_entry(_NO_COLUMNS, j - i))
            table += _svarint(lines[i] - prev)
            prev = lines[i]
        i = j
    return bytes(table)


def _rebuild(code: types.CodeType, lines_of) -> types.CodeType:
    consts = tuple(_rebuild(c, lines_of) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_linetable=_table(lines_of(code), code.co_firstlineno), co_consts=consts)


def one_line(code: types.CodeType) -> types.CodeType:
    """``code`` (and the code objects inside it) with every instruction on its first line."""
    return _rebuild(code, lambda c: [c.co_firstlineno] * (len(c.co_code) // 2))


def lines_only(code: types.CodeType) -> types.CodeType:
    """``code`` (and the code objects inside it) with each instruction's line, without columns."""
    return _rebuild(code, lambda c: [p[0] for p in c.co_positions()])
