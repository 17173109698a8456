/* Build the tablet's engine zip compiled: every .py of the sinuca/ and presentation/ packages on disk
 * as bytecode of Pyodide's own CPython (the package data, sinuca/data/*.txt, as it is), so a cold load of the tablet imports the engine without
 * compiling it (issue 20: 0.45-0.55 s of the cold start). Each .pyc is an unchecked hash-based
 * one: its header holds its source's hash, and the server serves this zip only while every .pyc
 * matches the source on disk, the sources zip otherwise (scoreboard/pages/tablet.py). Line
 * numbers kept, columns dropped (scripts/pyc_tables.py), docstrings dropped (the engine reads
 * none and has no assert).
 *
 * node scripts/build_engine_pyc.mjs <pyodide dir> <project root> <the zip's path on the tablet> <output zip>
 */
import fs from "node:fs";
import path from "node:path";

const [pyodideDir, root] = process.argv.slice(2, 4).map((p) => path.resolve(p));
const [where, out] = [process.argv[4], path.resolve(process.argv[5])];
const { loadPyodide } = await import(path.join(pyodideDir, "pyodide.mjs"));
const py = await loadPyodide({ indexURL: pyodideDir + "/" });
py.FS.writeFile("/tmp/pyc_tables.py", fs.readFileSync(path.join(root, "scripts", "pyc_tables.py")));
const files = [];
for (const pkg of ["sinuca", "presentation"]) {
  for (const f of fs.readdirSync(path.join(root, pkg)).sort()) {
    if (!f.endsWith(".py")) continue;
    py.FS.mkdirTree(`/src/${pkg}`);
    py.FS.writeFile(`/src/${pkg}/${f}`, fs.readFileSync(path.join(root, pkg, f)));
    files.push(`${pkg}/${f}`);
  }
}
// the rules text the engine reads through its loader (sinuca/rulebook.py: read_text)
const data = fs.readdirSync(path.join(root, "sinuca", "data")).sort().filter((f) => f.endsWith(".txt"))
  .map((f) => `sinuca/data/${f}`);
for (const rel of data) {
  py.FS.mkdirTree("/src/sinuca/data");
  py.FS.writeFile(`/src/${rel}`, fs.readFileSync(path.join(root, rel)));
}
py.globals.set("_files", py.toPy(files));
py.globals.set("_data", py.toPy(data));
py.globals.set("_where", where);
const bytes = py.runPython(String.raw`
import io, zipfile, importlib.util, marshal
_tables = {}
exec(open("/tmp/pyc_tables.py").read(), _tables)
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:  # stored: the server's brotli packs it
    for rel in _files:
        source = open("/src/" + rel, "rb").read()
        code = _tables["lines_only"](compile(source, _where + "/" + rel, "exec", dont_inherit=True, optimize=2))
        pyc = importlib.util.MAGIC_NUMBER + (0b01).to_bytes(4, "little") + importlib.util.source_hash(source) + marshal.dumps(code)
        z.writestr(zipfile.ZipInfo(rel[:-3] + ".pyc", date_time=(2008, 1, 1, 0, 0, 0)), pyc)
    for rel in _data:
        z.writestr(zipfile.ZipInfo(rel, date_time=(2008, 1, 1, 0, 0, 0)), open("/src/" + rel, "rb").read())
buf.getvalue()
`).toJs();
fs.writeFileSync(out, bytes);
console.log(`${out}: ${files.length} modules, ${data.length} data files, ${bytes.length} bytes`);
