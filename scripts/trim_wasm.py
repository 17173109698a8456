"""Drop the exports of Pyodide's wasm that its own JavaScript never calls, so that binaryen's
``wasm-opt --remove-unused-module-elements`` (run after this by ``scripts/lib.sh``) can drop the
code only they reached (issue 20: the tablet's cold download).

Pyodide's wasm is built as a dynamic-linking main module: it exports 8,560 symbols (7,415
functions: the whole C API, libc, the libraries of every built-in module) so that packages'
shared libraries can link against them. The tablet's engine loads no package, so only what
``pyodide.asm.mjs`` itself uses is needed:

- a function export whose JavaScript name (``_X`` for export ``X``) appears in the glue outside
  the block that assigns every export (``assignWasmExports``), or whose name appears there as a
  string (``"main"``, names built with ``Module["_" + name]``);
- every data export (the glue reads ``wasmExports["X"].value`` for each at start-up);
- the exports the module itself imports back through the GOT (``GOT.func``/``GOT.mem``);
- the runtime's own (``memory``, the function table, constructors, ``wasmExports.X`` reads).

A call the glue makes through a dropped export would fail at once (``_X is not a function``):
the tablet's browser tests run every path the engine takes. A package loaded later would not
find its symbols: the tablet loads none (``lockFileContents`` of no packages, engine-worker.js).

python scripts/trim_wasm.py <pyodide.asm.wasm> <pyodide.asm.mjs, not minified> <output.wasm>
"""
from __future__ import annotations

import collections
import re
import sys

RUNTIME = {"memory", "__indirect_function_table", "__wasm_call_ctors", "__stack_pointer", "__memory_base",
           "__table_base", "__wasm_apply_data_relocs", "__cpp_exception", "__c_longjmp",
           "__main_argc_argv"}  # `main`: callMain finds it by that name (not run: noInitialRun)


def leb(data: bytes, i: int) -> tuple[int, int]:
    """An unsigned LEB128 at ``i``: (value, the index after it)."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def sleb(data: bytes, i: int) -> tuple[int, int]:
    """A signed LEB128 at ``i``: (value, the index after it)."""
    value, j = leb(data, i)
    bits = 7 * (j - i)
    return (value - (1 << bits) if data[j - 1] & 0x40 else value), j


def uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def sections(wasm: bytes):
    """(id, section start, payload start, payload end) of each section."""
    i = 8
    while i < len(wasm):
        sid = wasm[i]
        size, start = leb(wasm, i + 1)
        yield sid, i, start, start + size
        i = start + size


def got_imports(wasm: bytes) -> set[str]:
    """Names the module imports from ``GOT.func``/``GOT.mem``: its own exports, linked back."""
    names = set()
    for sid, _, start, _ in sections(wasm):
        if sid != 2:
            continue
        count, j = leb(wasm, start)
        for _ in range(count):
            n, j = leb(wasm, j)
            module = wasm[j:j + n].decode()
            j += n
            n, j = leb(wasm, j)
            name = wasm[j:j + n].decode()
            j += n
            kind = wasm[j]
            j += 1
            if kind == 0:  # function: type index
                _, j = leb(wasm, j)
            elif kind == 1:  # table: reftype, limits
                j += 1
                flags, j = leb(wasm, j)
                _, j = leb(wasm, j)
                if flags & 1:
                    _, j = leb(wasm, j)
            elif kind == 2:  # memory: limits
                flags, j = leb(wasm, j)
                _, j = leb(wasm, j)
                if flags & 1:
                    _, j = leb(wasm, j)
            elif kind == 3:  # global: valtype, mutability
                j += 2
            elif kind == 4:  # tag: attribute, type index
                j += 1
                _, j = leb(wasm, j)
            if module.startswith("GOT."):
                names.add(name)
    return names


def used_by_glue(js: str) -> set[str]:
    """The exports ``pyodide.asm.mjs`` uses (see the module's docstring)."""
    block = re.search(r"function assignWasmExports\(wasmExports\)\{(.*?)\}", js, re.S)
    if not block:
        raise SystemExit("trim_wasm: no assignWasmExports in the glue (another emscripten?)")
    # `_X=Module["_X"]=wasmExports["X"]` (`.value>>>0` for data)
    assigned = re.findall(r'([\w$]+)=Module\["([\w$]+)"\]=(?:[\w$]+=)*wasmExports\["([^"]+)"\](\.value)?',
                          block.group(1))
    if len(assigned) != block.group(1).count("wasmExports["):
        raise SystemExit("trim_wasm: an export assignment of an unknown form (another emscripten?)")
    rest = js[:block.start()] + js[block.end():]
    tokens = collections.Counter(re.findall(r"[A-Za-z_$][\w$]*", rest))
    strings = set(re.findall(r'"([A-Za-z_$][\w$]*)"', rest))
    keep = {name for _, _, name, value in assigned if value}  # data: read at start-up
    for var, key, name, value in assigned:
        # the declaration `var _X,...` outside the block counts once
        if tokens[var] > 1 or {name, key, var} & strings:
            keep.add(name)
    keep |= set(re.findall(r"wasmExports\.([A-Za-z_$][\w$]*)", rest))
    keep |= set(re.findall(r'wasmExports\["([^"]+)"\]', rest))
    return keep


def trim(wasm: bytes, keep: set[str]) -> tuple[bytes, int, int]:
    """``wasm`` with only the exports in ``keep`` (and every table/memory/global export kept
    by kind when the runtime needs it); returns (bytes, kept, dropped)."""
    out, kept, dropped = bytearray(wasm[:8]), 0, 0
    for sid, header_start, start, end in sections(wasm):
        if sid != 7:
            out += wasm[header_start:end]
            continue
        count, j = leb(wasm, start)
        entries = []
        for _ in range(count):
            first = j
            n, j = leb(wasm, j)
            name = wasm[j:j + n].decode()
            j += n
            kind = wasm[j]
            j += 1
            _, j = leb(wasm, j)
            if name in keep or name in RUNTIME or kind in (1, 2):
                entries.append(wasm[first:j])
                kept += 1
            else:
                dropped += 1
        body = uleb(len(entries)) + b"".join(entries)
        out += bytes([7]) + uleb(len(body)) + body
    return bytes(out), kept, dropped


def main(src: str, glue: str, dest: str) -> None:
    wasm = open(src, "rb").read()
    keep = used_by_glue(open(glue, encoding="utf-8").read()) | got_imports(wasm)
    trimmed, kept, dropped = trim(wasm, keep)
    open(dest, "wb").write(trimmed)
    print(f"{dest}: {kept} exports kept, {dropped} dropped")


if __name__ == "__main__":
    main(*sys.argv[1:4])
