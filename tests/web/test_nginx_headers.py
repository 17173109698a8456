"""The nginx example (``deploy/nginx.conf``) serves static files and photos itself with the very
security headers the app sends on them: the same Content-Security-Policy, HSTS and the rest. In
nginx an ``add_header`` in a location drops every ``add_header`` of the server, so a location that
adds one header and forgets HSTS would serve files without it; and a policy copied by hand goes
stale when the app's changes (the referee page's inline guard's hash is in it)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client, override_settings

from browser import seed_origin

ROOT = Path(__file__).resolve().parents[2]
HEADERS = ("Content-Security-Policy", "Strict-Transport-Security", "X-Content-Type-Options",
           "Referrer-Policy", "Cross-Origin-Opener-Policy")
"""The security headers the app sends on a file (a static file, a player's photo)."""


def nginx_locations(text: str) -> tuple[dict, dict[str, dict]]:
    """``(server's add_header, {location: its add_header})`` of the config's server block, each
    ``{header name: value}`` (the value unquoted; ``always`` required, else the header is missing
    from error answers)."""
    text = re.sub(r"#[^\n]*", "", text)
    server = text[text.index("server {"):]
    locations, own = {}, {}
    for m in re.finditer(r"location\s+(\S+)\s*\{", server):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(server[i], 0)
            i += 1
        locations[m.group(1)] = server[m.end():i - 1]
    outside = server
    for body in locations.values():
        outside = outside.replace(body, "")

    def headers(block: str) -> dict:
        found = {}
        for name, value, always in re.findall(r'add_header\s+(\S+)\s+"([^"]*)"\s*(always)?\s*;', block):
            assert always, f"add_header {name} without always"
            found[name] = value
        assert len(found) == block.count("add_header"), block
        return found

    return headers(outside), {loc: headers(body) for loc, body in locations.items()}


def directives(header: str) -> dict[str, list[str]]:
    return {p.split()[0]: p.split()[1:] for p in header.split(";") if p.strip()}


# WhiteNoise serving from the finders, as in test_csp.py
STATIC = override_settings(WHITENOISE_USE_FINDERS=True, WHITENOISE_AUTOREFRESH=True, STORAGES={
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})


@pytest.mark.django_db
@STATIC
def test_nginx_serves_files_with_the_apps_csp_and_hsts(settings, tmp_path):
    settings.SECURE_HSTS_SECONDS = 31536000  # as under DJANGO_SECURE=1
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "players").mkdir()
    (tmp_path / "players" / "ana.jpg").write_bytes(b"\xff\xd8\xff\xe0 a photo")
    client = Client()
    sent = {}
    for where, path in (("/static/", "/static/scoreboard/base.css"),
                        ("/static/", "/static/scoreboard/engine-worker.js"),
                        ("/media/", "/media/players/ana.jpg")):
        r = client.get(path, secure=True)
        assert r.status_code == 200, path
        got = {h: r.headers.get(h) for h in HEADERS}
        assert all(got.values()), (path, got)
        # the test run adds its engine-snapshot server to connect-src (conftest.py): not the app's
        policy = directives(got["Content-Security-Policy"])
        policy["connect-src"] = [s for s in policy["connect-src"] if s != seed_origin()]
        got["Content-Security-Policy"] = policy
        assert sent.setdefault(where, got) == got, path  # one set of headers for every file
    server, locations = nginx_locations((ROOT / "deploy" / "nginx.conf").read_text())
    assert set(locations) >= {"/static/", "/media/", "/", "/ws/"}
    for where, app in sent.items():
        conf = dict(locations[where])
        assert set(conf) == set(HEADERS), (where, conf)
        assert directives(conf.pop("Content-Security-Policy")) == app.pop("Content-Security-Policy"), where
        assert conf == app, where
        assert "frame-ancestors 'self'" in locations[where]["Content-Security-Policy"]
    # the pages are the app's: nginx adds HSTS only (the app's own is hidden, so it is sent once)
    # and no policy (each page has its own framing); a location adding a header of its own would
    # drop the server's HSTS unless it repeats it
    assert server == {"Strict-Transport-Security": sent["/static/"]["Strict-Transport-Security"]}
    for loc, added in locations.items():
        assert not added or added.get("Strict-Transport-Security") == server["Strict-Transport-Security"], loc
        if loc in ("/", "/ws/"):
            assert added == {}, loc
