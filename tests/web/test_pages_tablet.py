"""``pages/tablet.py``: the engine zip (the sinuca package on disk, versioned by content), the
tablet's service worker, and the settings the referee page hands to engine.js."""
from __future__ import annotations

import hashlib
import io
import json
import pathlib
import re
import zipfile

import pytest

import presentation
import sinuca
from scoreboard.pages import tablet

pytestmark = pytest.mark.django_db
ROOT = pathlib.Path(sinuca.__file__).resolve().parent.parent
PACKAGES = [pathlib.Path(p.__file__).resolve().parent for p in (sinuca, presentation)]


def test_the_engine_zip_is_the_package_on_disk_and_its_url_is_its_hash(client):
    digest, data = tablet.engine_zip()
    assert digest == hashlib.sha256(data).hexdigest()[:16]
    r = client.get(f"/tablet/engine/{digest}.zip")
    assert r.status_code == 200 and r["Content-Type"] == "application/zip"
    assert "immutable" in r["Cache-Control"] and "max-age=31536000" in r["Cache-Control"]
    z = zipfile.ZipFile(io.BytesIO(r.content))
    names = sorted(z.namelist())
    assert names == sorted(f"{d.name}/{p.name}" for d in PACKAGES for p in d.glob("*.py"))
    assert "presentation/tablet.py" in names and "sinuca/engine.py" in names
    for name in names:  # byte for byte the code the server runs: never a second implementation
        assert z.read(name) == (ROOT / name).read_bytes()
    assert client.get("/tablet/engine/0000000000000000.zip").status_code == 404  # a stale version


def test_the_service_worker_covers_the_referee_pages_and_keeps_the_engine(client):
    r = client.get("/matches/tablet-sw.js")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/javascript")
    assert r["Service-Worker-Allowed"] == "/matches/" and r["Cache-Control"] == "no-cache"
    body = r.content.decode()
    precache = json.loads(re.search(r"var PRECACHE = (\[.*?\]);", body).group(1))
    assert "/static/vendor/pyodide/pyodide.asm.wasm" in precache
    assert "/static/vendor/pyodide/python_stdlib_engine.zip" in precache  # only what the engine imports
    assert tablet.engine_zip_url() in precache
    assert "/static/scoreboard/engine-worker.js" in precache and "/static/scoreboard/referee.js" in precache
    assert re.search(r'var VERSION = "sinuca-tablet-[0-9a-f]{16}";', body)


def test_the_referee_page_hands_engine_js_its_settings_and_a_fixed_status(referee_client, created):
    html = referee_client.get(f"/matches/{created.match.pk}/referee/").content.decode()
    data = json.loads(re.search(r'<script id="tablet-engine" type="application/json">(.*?)</script>', html).group(1))
    assert data["match"] == created.match.pk and data["config"] == created.match.config
    assert data["lang"] == "pt" and data["engine_zip"] == tablet.engine_zip_url()
    assert data["pyodide"] == "/static/vendor/pyodide/" and data["events"] == f"/api/matches/{created.match.pk}/events/"
    status = re.search(r'<div id="engine-status"[^>]*style="([^"]*)"', html).group(1)
    assert "position:fixed" in status and "height:18px" in status  # never moves the layout
    assert html.index("scoreboard/engine.js") < html.index("scoreboard/referee.js")
