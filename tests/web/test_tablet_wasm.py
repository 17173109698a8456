"""``scripts/trim_wasm.py``: the tablet's Pyodide wasm keeps every export Pyodide's JavaScript uses
(its data exports, which the glue reads at start-up, above all) and drops the rest (issue 20: the
C API exported for packages the tablet never loads). The tablet's browser tests run the result."""
from __future__ import annotations

import importlib.util
import pathlib

import sinuca

ROOT = pathlib.Path(sinuca.__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("trim_wasm", ROOT / "scripts" / "trim_wasm.py")
trim_wasm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(trim_wasm)

NPM = ROOT / "node_modules" / "pyodide"
VENDOR = ROOT / "static" / "vendor" / "pyodide"


def exports(wasm: bytes) -> dict[str, int]:
    """name -> kind of each export."""
    out = {}
    for sid, _, start, _ in trim_wasm.sections(wasm):
        if sid == 7:
            count, j = trim_wasm.leb(wasm, start)
            for _ in range(count):
                n, j = trim_wasm.leb(wasm, j)
                name = wasm[j:j + n].decode()
                kind = wasm[j + n]
                _, j = trim_wasm.leb(wasm, j + n + 1)
                out[name] = kind
    return out


def test_the_glues_exports_are_kept_and_the_rest_dropped():
    glue = (NPM / "pyodide.asm.mjs").read_text()
    full = (NPM / "pyodide.asm.wasm").read_bytes()
    keep = trim_wasm.used_by_glue(glue)
    assert {"malloc", "free", "__wasm_call_ctors", "PyErr_Occurred"} <= keep
    assert {"PyExc_AttributeError", "py_docstring_mod"} <= keep  # data: `.value` read at start-up
    assert not {"PyInit__decimal", "PyInit__sqlite3", "PyInitConfig_Create"} & keep
    trimmed, kept, dropped = trim_wasm.trim(full, keep | trim_wasm.got_imports(full))
    before, after = exports(full), exports(trimmed)
    assert set(after) <= set(before) and kept == len(after) and kept + dropped == len(before)
    assert dropped > 7000 and trim_wasm.got_imports(full) & set(before) <= set(after) and "__main_argc_argv" in after
    assert {n for n, kind in before.items() if kind in (1, 2)} <= set(after)  # table, memory
    # every data export the glue reads survives (a missing one stopped Pyodide's start)
    import re
    for name in re.findall(r'wasmExports\["([^"]+)"\]\.value', glue):
        assert name in after, name


def test_the_tablet_is_served_the_trimmed_wasm():
    served = exports((VENDOR / "pyodide.asm.wasm").read_bytes())
    assert 300 < len(served) < 1000 and "PyInit__decimal" not in served and "malloc" in served
