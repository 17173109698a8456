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


def _script(name: str):
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))  # trim_wasm_data imports trim_wasm
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return module


def test_the_served_wasm_has_no_cjk_codecs_and_their_maps_are_zero():
    """``scripts/trim_wasm_data.py``: the seven CJK codec modules are gone from the served wasm's
    table of built-in modules (``sys``, ``posix``, ``_json`` … stay) and their maps read zero,
    while Pyodide's own wasm holds both (issue 20: 0.16 MB of the cold download)."""
    trim_data = _script("trim_wasm_data")
    stock = trim_data.Image(bytearray((NPM / "pyodide.asm.wasm").read_bytes()))
    _, stock_rows = trim_data.inittab(stock)
    stock_names = {n for n, _ in stock_rows}
    assert set(trim_data.DROP) <= stock_names
    stock_maps = trim_data.maps(stock)
    assert sum(b - a for a, b in stock_maps) > 500_000
    assert any(stock.mem[a:b].strip(b"\0") for a, b in stock_maps)

    served = trim_data.Image(bytearray((VENDOR / "pyodide.asm.wasm").read_bytes()))
    _, rows = trim_data.inittab(served, anchor="_json", must=("sys", "builtins", "posix", "_json"))
    names = {n for n, _ in rows}
    assert not set(trim_data.DROP) & names
    assert names == stock_names - set(trim_data.DROP)
    # the same addresses (the trimmed wasm keeps Pyodide's memory layout) read zero now
    assert all(not served.mem[a:b].strip(b"\0") for a, b in stock_maps)


def test_the_engine_stdlib_leaves_out_pyodides_event_loop_and_archive_modules():
    """``scripts/pyodide_boot_patches.py``: Pyodide's start-up imported ``asyncio`` (and with it
    ``ssl``, ``socket``, ``subprocess``, ``logging``…) and its package loader's ``shutil``,
    ``zipfile``, ``bz2``, ``lzma``; the engine's stdlib now holds a stub ``asyncio`` and none of
    the rest (issue 20: 225 kB of the cold download)."""
    import zipfile

    patches = _script("pyodide_boot_patches")
    names = set(zipfile.ZipFile(VENDOR / "python_stdlib_engine.zip").namelist())
    assert {"json/__init__.pyc", "re/__init__.pyc", "pyodide/_package_loader.pyc", "asyncio/__init__.pyc"} <= names
    gone = {"asyncio/base_events.pyc", "asyncio/tasks.pyc", "ssl.pyc", "socket.pyc", "subprocess.pyc",
            "logging/__init__.pyc", "shutil.pyc", "zipfile/__init__.pyc", "tempfile.pyc", "bz2.pyc",
            "lzma.pyc", "selectors.pyc", "concurrent/futures/_base.pyc", "pyodide/webloop.pyc"}
    assert not gone & names
    # the stub says what is missing when used
    ns: dict = {}
    exec(patches.ASYNCIO_STUB, ns)
    try:
        ns["__getattr__"]("ensure_future")()
    except RuntimeError as e:
        assert "asyncio.ensure_future" in str(e)
    else:
        raise AssertionError("the stub ran")
    # a patch whose text is missing (another Pyodide) stops the build
    import pytest

    with pytest.raises(SystemExit):
        patches.patch("pyodide/common.py", "import os\n")
    assert "shutil = _Lazy" in patches.patch("pyodide/common.py", "import os\nimport shutil\n")
