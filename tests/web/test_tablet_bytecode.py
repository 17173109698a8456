"""``scripts/pyc_tables.py``: the smaller location tables of the bytecode the tablet downloads
(issue 20). The engine's own code keeps every line number; the standard library's keeps one line
per function, and a traceback through it still formats (Pyodide formats every Python error that
reaches JavaScript; with an empty table ``traceback`` raised StopIteration instead)."""
from __future__ import annotations

import importlib.util
import marshal
import pathlib
import traceback
import types

import sinuca

ROOT = pathlib.Path(sinuca.__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("pyc_tables", ROOT / "scripts" / "pyc_tables.py")
pyc_tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pyc_tables)

SOURCE = '''
def outer(x):
    y = [i * 2 for i in range(x)]
    if x > 3:
        return inner(y)
    return y


def inner(y):
    total = 0
    for v in y:
        total += v
    return {}[total]
'''


def codes(code: types.CodeType):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from codes(c)


def run(code: types.CodeType) -> str:
    ns: dict = {}
    exec(code, ns)
    assert ns["outer"](2) == [0, 2]
    try:
        ns["outer"](5)
    except KeyError:
        return traceback.format_exc()
    raise AssertionError("no KeyError")


def test_the_engines_code_keeps_every_line_and_loses_only_its_columns():
    for path in [ROOT / "sinuca" / "engine.py", ROOT / "presentation" / "tablet_board.py"]:
        code = compile(path.read_bytes(), str(path), "exec", dont_inherit=True, optimize=2)
        lean = pyc_tables.lines_only(code)
        for before, after in zip(codes(code), codes(lean), strict=True):
            assert [p[0] for p in after.co_positions()] == [p[0] for p in before.co_positions()]
            assert {p[2] for p in after.co_positions()} == {None}
        assert len(marshal.dumps(lean)) < 0.9 * len(marshal.dumps(code))
    code = compile(SOURCE, "/home/pyodide/engine.zip/m.py", "exec")
    frames = [line for line in run(pyc_tables.lines_only(code)).split("\n") if "engine.zip" in line]
    assert frames == [line for line in run(code).split("\n") if "engine.zip" in line] == [
        '  File "/home/pyodide/engine.zip/m.py", line 5, in outer',
        '  File "/home/pyodide/engine.zip/m.py", line 13, in inner']


def test_the_stdlibs_code_names_each_function_at_its_first_line_and_its_tracebacks_format():
    code = pyc_tables.one_line(compile(SOURCE, "/lib/python314.zip/m.py", "exec"))
    for c in codes(code):
        assert {p[:2] for p in c.co_positions()} == {(c.co_firstlineno, c.co_firstlineno)}
    text = run(code)
    assert 'File "/lib/python314.zip/m.py", line 2, in outer' in text
    assert 'File "/lib/python314.zip/m.py", line 9, in inner' in text and text.endswith("KeyError: 20\n")
    # a third of a stdlib module's bytes were its location table
    path = pathlib.Path(traceback.__file__)
    full = compile(path.read_bytes(), str(path), "exec", optimize=2)
    assert len(marshal.dumps(pyc_tables.one_line(full))) < 0.85 * len(marshal.dumps(full))
