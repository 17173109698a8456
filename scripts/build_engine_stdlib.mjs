/* Build python_stdlib_engine.zip: only the standard-library modules the tablet's engine uses
 * (Pyodide's start-up, sinuca/ and presentation/ imported and exercised on simulated matches), as
 * bytecode compiled by Pyodide's own CPython, so the tablet neither downloads nor compiles the
 * rest (issue 20: a cold start spent 3.5-4.3 s compiling the stdlib's sources).
 *
 * node scripts/build_engine_stdlib.mjs <pyodide dir> <project root> <output zip>
 */
import fs from "node:fs";
import path from "node:path";

const [pyodideDir, root, out] = process.argv.slice(2).map((p) => path.resolve(p));
const { loadPyodide } = await import(path.join(pyodideDir, "pyodide.mjs"));
// Pyodide's start-up cut to what the engine needs (scripts/pyodide_boot_patches.py): the whole
// stdlib with those files patched, then an interpreter started from it, so what the engine
// imports (below) is measured as the tablet will run it.
const stock = await loadPyodide({ indexURL: pyodideDir + "/" });
stock.FS.writeFile("/tmp/pyodide_boot_patches.py", fs.readFileSync(path.join(root, "scripts", "pyodide_boot_patches.py")));
const patchedZip = stock.runPython(String.raw`
import io, sys, zipfile
_patches = {}
exec(open("/tmp/pyodide_boot_patches.py").read(), _patches)
src = zipfile.ZipFile("/lib/python%d%d.zip" % sys.version_info[:2])
buf = io.BytesIO()
done = set()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as out:
    for info in src.infolist():
        data = src.read(info)
        if info.filename in _patches["PATCHED"]:
            data = _patches["patch"](info.filename, data.decode("utf-8")).encode("utf-8")
            done.add(info.filename)
        out.writestr(info, data)
missing = _patches["PATCHED"] - done
if missing:
    raise SystemExit("pyodide_boot_patches: not in the stdlib: %s" % sorted(missing))
buf.getvalue()
`).toJs();
const patchedPath = out + ".boot.zip";
fs.writeFileSync(patchedPath, patchedZip);
let py;
try {
  py = await loadPyodide({ indexURL: pyodideDir + "/", stdLibURL: patchedPath });
} finally {
  fs.rmSync(patchedPath, { force: true });
}
py.FS.writeFile("/tmp/pyc_tables.py", fs.readFileSync(path.join(root, "scripts", "pyc_tables.py")));
for (const pkg of ["sinuca", "presentation"]) {
  py.FS.mkdirTree(`/engine/${pkg}`);
  for (const f of fs.readdirSync(path.join(root, pkg))) {
    if (f.endsWith(".py")) py.FS.writeFile(`/engine/${pkg}/${f}`, fs.readFileSync(path.join(root, pkg, f)));
  }
}
py.FS.mkdirTree("/engine/sinuca/data");
for (const f of fs.readdirSync(path.join(root, "sinuca", "data"))) {
  py.FS.writeFile(`/engine/sinuca/data/${f}`, fs.readFileSync(path.join(root, "sinuca", "data", f)));
}
const data = py.runPython(String.raw`
import sys
sys.path.insert(0, '/engine')
import json, traceback
import presentation.tablet
from presentation.tablet import TabletEngine
from sinuca import simulate
from sinuca import rulebook
rulebook.load()  # the rules text, parsed as the tablet shows an article
# what a tablet does: every op, on simulated matches (their events through the engine)
for seed in range(6):
    config = {"players": ["Ana", "Bia"], "reds": (15, 6)[seed % 2], "frames_to_win": 1 + seed % 2}
    try:
        events = simulate.play_match(config, seed=seed, max_events=400)
    except Exception:
        traceback.format_exc()
        events = []
    for lang in ("pt", "en"):
        eng = TabletEngine(config, [], lang, {})
        eng.answer(json.dumps({"op": "reset", "events": events[: len(events) // 2]}))
        for ev in events[len(events) // 2:][:60]:
            eng.answer(json.dumps({"op": "foul_form"}))
            eng.answer(json.dumps({"op": "foul_preview", "fields": {}}))
            eng.answer(json.dumps({"op": "apply", "event": ev}))
        for req in ({"op": "view"}, {"op": "state"}, {"op": "count"}, [1], "x", {"op": "apply", "event": {"type": "?"}}):
            eng.answer(json.dumps(req))
try:
    raise ValueError("x")  # Pyodide formats a Python error that reaches JavaScript
except ValueError:
    traceback.format_exc()

used = dict(sys.modules)  # before this script's own imports below
_tables = {}
exec(open("/tmp/pyc_tables.py").read(), _tables)  # scripts/pyc_tables.py
import io, zipfile, importlib.util, marshal
STDLIB = "/lib/python%d%d.zip" % sys.version_info[:2]
src = zipfile.ZipFile(STDLIB)
names = set(src.namelist())
keep = {}
for name, mod in sorted(used.items()):
    origin = getattr(getattr(mod, "__spec__", None), "origin", None) or ""
    if not origin.startswith(STDLIB + "/"):
        continue
    rel = origin[len(STDLIB) + 1:]
    if rel in names and rel.endswith(".py"):
        keep[rel] = name
# every package on the way to a kept module (its __init__)
for rel in list(keep):
    parts = rel.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        init = "/".join(parts[:i]) + "/__init__.py"
        if init in names:
            keep.setdefault(init, ".".join(parts[:i]))
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:  # stored: the server's brotli packs it
    for rel in sorted(keep):
        source = src.read(rel)
        # optimize=2: no docstrings; one_line: one line per function (a third each of the bytes)
        code = _tables["one_line"](compile(source, STDLIB + "/" + rel, "exec", dont_inherit=True, optimize=2))
        # unchecked hash-based .pyc: nothing to compare it with (the zip has no sources)
        pyc = importlib.util.MAGIC_NUMBER + (0b01).to_bytes(4, "little") + importlib.util.source_hash(source) + marshal.dumps(code)
        z.writestr(zipfile.ZipInfo(rel[:-3] + ".pyc", date_time=(2008, 1, 1, 0, 0, 0)), pyc)
len(keep), buf.getvalue()
`).toJs();
const [count, bytes] = data;
fs.writeFileSync(out, bytes);
console.log(`${out}: ${count} modules, ${bytes.length} bytes`);
