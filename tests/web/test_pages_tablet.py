"""``pages/tablet.py``: the engine zip (the sinuca package on disk, versioned by content), the
tablet's service worker, and the settings the referee page hands to engine.js."""
from __future__ import annotations

import _imp
import gzip
import hashlib
import io
import json
import pathlib
import re
import zipfile

import brotli
import pytest

import presentation
import sinuca
from scoreboard.pages import tablet

pytestmark = pytest.mark.django_db
ROOT = pathlib.Path(sinuca.__file__).resolve().parent.parent
PACKAGES = [pathlib.Path(p.__file__).resolve().parent for p in (sinuca, presentation)]


def _sources_hash(pyc: bytes, source: bytes) -> bool:
    """Whether an unchecked hash-based ``.pyc`` was compiled from ``source`` (its header's hash)."""
    return pyc[4:8] == b"\x01\0\0\0" and pyc[8:16] == _imp.source_hash(int.from_bytes(pyc[:4], "little"), source)


@pytest.fixture
def fresh_engine_zip():
    tablet.engine_zip.cache_clear()
    yield
    tablet.engine_zip.cache_clear()


def test_the_engine_zip_is_the_package_on_disk_compiled_and_its_url_is_its_hash(client, fresh_engine_zip):
    digest, data = tablet.engine_zip()
    assert digest == hashlib.sha256(data).hexdigest()[:16]
    r = client.get(f"/tablet/engine/{digest}.zip")
    assert r.status_code == 200 and r["Content-Type"] == "application/zip" and "Content-Encoding" not in r
    assert "immutable" in r["Cache-Control"] and "max-age=31536000" in r["Cache-Control"]
    assert r.content == data
    z = zipfile.ZipFile(io.BytesIO(r.content))
    names = sorted(z.namelist())
    # compiled by the tablet's own CPython (the test command builds it: scripts/lib.sh)
    rules = "sinuca/data/regras-sinuca-cbbs-2008.txt"  # read through the zip's loader (sinuca/rulebook.py)
    assert names == sorted([f"{d.name}/{p.stem}.pyc" for d in PACKAGES for p in d.glob("*.py")] + [rules])
    assert z.read(rules) == (ROOT / rules).read_bytes()
    names.remove(rules)
    assert "presentation/tablet.pyc" in names and "sinuca/engine.pyc" in names
    magic = zipfile.ZipFile(ROOT / "static/vendor/pyodide/python_stdlib_engine.zip").read("json/__init__.pyc")[:4]
    for name in names:  # each from the code the server runs, now: never a second implementation
        pyc = z.read(name)
        assert pyc[:4] == magic and _sources_hash(pyc, (ROOT / name).with_suffix(".py").read_bytes()), name
    assert client.get("/tablet/engine/0000000000000000.zip").status_code == 404  # a stale version


def test_a_compiled_engine_older_than_the_code_is_not_served_the_sources_are(monkeypatch, client, fresh_engine_zip):
    """A change to sinuca/ after the last build: the tablet gets the sources, never old bytecode."""
    compiled = tablet.engine_zip()[1]
    sources = tablet._sources()
    changed = dict(sources, **{"sinuca/rules.py": sources["sinuca/rules.py"] + b"\n# a change\n"})
    monkeypatch.setattr(tablet, "_sources", lambda: changed)
    tablet.engine_zip.cache_clear()
    digest, data = tablet.engine_zip()
    assert data != compiled and tablet.engine_zip_url().endswith(f"/{digest}.zip")
    z = zipfile.ZipFile(io.BytesIO(client.get(f"/tablet/engine/{digest}.zip").content))
    assert sorted(z.namelist()) == sorted([*changed, "sinuca/data/regras-sinuca-cbbs-2008.txt"])
    for name, source in {**changed, **tablet._data()}.items():
        assert z.read(name) == source


def test_a_compiled_engine_with_another_rules_text_is_not_served(monkeypatch, fresh_engine_zip):
    """The rules text changed after the last build: the tablet gets the sources and the new text."""
    compiled = tablet.engine_zip()[1]
    changed = {n: t.replace(b"Artigo 55", b"Artigo 55 ") for n, t in tablet._data().items()}
    monkeypatch.setattr(tablet, "_data", lambda: changed)
    tablet.engine_zip.cache_clear()
    z = zipfile.ZipFile(io.BytesIO(data := tablet.engine_zip()[1]))
    assert data != compiled and "sinuca/engine.py" in z.namelist()
    assert [z.read(n) for n in changed] == list(changed.values())


# In Pyodide under node: the zip the tablet is served, on sys.path as the worker puts it
# (engine-worker.js, ENGINE_ZIP), with the engine's own stdlib (what the tablet downloads).
READ_THE_RULES = r"""
import fs from "node:fs";
const [vendor, zip] = process.argv.slice(1);
const { loadPyodide } = await import(vendor + "/pyodide.mjs");
const py = await loadPyodide({ indexURL: vendor + "/", stdLibURL: vendor + "/python_stdlib_engine.zip" });
py.FS.mkdirTree("/home/pyodide");
py.FS.writeFile("/home/pyodide/engine.zip", fs.readFileSync(zip));
console.log(py.runPython(`
import sys, json
sys.path.insert(0, "/home/pyodide/engine.zip")
from sinuca import rulebook
book = rulebook.load()
json.dumps({"file": rulebook.__file__, "loader": type(rulebook.__loader__).__name__,
            "articles": len(book.articles), "25.5.2": book.item("25.5.2").text})
`));
"""


def test_the_tablets_engine_zip_reads_the_rules_text_from_itself(tmp_path, fresh_engine_zip):
    import subprocess
    zip_path = tmp_path / "engine.zip"
    zip_path.write_bytes(tablet.engine_zip()[1])
    out = subprocess.run(["node", "--input-type=module", "-e", READ_THE_RULES, str(ROOT / "static/vendor/pyodide"),
                          str(zip_path)], capture_output=True, text=True, timeout=120, check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    assert got["file"] == "/home/pyodide/engine.zip/sinuca/rulebook.pyc" and got["loader"] == "zipimporter"
    assert got["articles"] == 55
    assert got["25.5.2"].startswith("Para repetição de jogada, as bolas movimentadas retornam às posições originais")


def test_the_engine_zip_is_sent_brotlid_or_gzipped_as_the_browser_accepts(client, fresh_engine_zip):
    digest, data = tablet.engine_zip()
    url = f"/tablet/engine/{digest}.zip"
    r = client.get(url, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert r["Content-Encoding"] == "br" and "Accept-Encoding" in r["Vary"]
    assert brotli.decompress(r.content) == data and len(r.content) < 0.4 * len(data)
    r = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert r["Content-Encoding"] == "gzip" and gzip.decompress(r.content) == data
    r = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in r and r.content == data


def test_the_service_worker_covers_the_referee_pages_and_keeps_the_engine(client):
    r = client.get("/matches/tablet-sw.js")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/javascript")
    assert r["Service-Worker-Allowed"] == "/matches/" and r["Cache-Control"] == "no-cache"
    body = r.content.decode()
    precache = json.loads(re.search(r"var PRECACHE = (\[.*?\]);", body).group(1))
    assert "/static/vendor/pyodide/pyodide.asm.wasm" in precache
    assert "/static/vendor/pyodide/python_stdlib_engine.zip" in precache  # only what the engine imports
    assert not any("pyodide-lock.json" in u for u in precache)  # Pyodide gets a lock of no packages
    assert tablet.engine_zip_url() in precache
    assert "/static/scoreboard/engine-worker.js" in precache and "/static/scoreboard/referee.js" in precache
    assert re.search(r'var VERSION = "sinuca-tablet-[0-9a-f]{16}";', body)


def test_every_static_file_of_the_referee_page_is_kept_at_the_service_workers_install(client, referee_client,
                                                                                     created):
    """The first visit is not yet under the service worker's control, so what it loads is kept
    only if the install keeps it: a tablet reloaded offline after one visit drew its board
    without the tap guard (referee-ui.js), its status line and its table's follow."""
    body = client.get("/matches/tablet-sw.js").content.decode()
    precache = set(json.loads(re.search(r"var PRECACHE = (\[.*?\]);", body).group(1)))
    html = referee_client.get(f"/matches/{created.match.pk}/referee/").content.decode()
    used = set(re.findall(r'(?:src|href)="(/static/[^"?]+)', html))
    assert "/static/scoreboard/referee-ui.js" in used and "/static/scoreboard/base.css" in used
    # the table's tablet also follows its table (follow.js, drawn only on a table's tablet)
    assert used | {"/static/scoreboard/follow.js"} <= precache, sorted(used - precache)


def test_the_referee_page_hands_engine_js_its_settings_and_a_fixed_status(referee_client, created):
    html = referee_client.get(f"/matches/{created.match.pk}/referee/").content.decode()
    data = json.loads(re.search(r'<script id="tablet-engine" type="application/json">(.*?)</script>', html).group(1))
    assert data["match"] == created.match.pk and data["config"] == created.match.config
    assert data["lang"] == "pt" and data["engine_zip"] == tablet.engine_zip_url()
    assert data["pyodide"] == "/static/vendor/pyodide/" and data["events"] == f"/api/matches/{created.match.pk}/events/"
    lock = json.loads((ROOT / "static/vendor/pyodide/pyodide-lock.json").read_bytes())
    assert data["lock_info"] == lock["info"] and data["lock_info"]["abi_version"]  # Pyodide checks its ABI
    status = re.search(r'<div id="engine-status"[^>]*style="([^"]*)"', html).group(1)
    assert "position:fixed" in status and "height:18px" in status  # never moves the layout
    assert html.index("scoreboard/engine.js") < html.index("scoreboard/referee.js")
