"""The Content-Security-Policy of every page kind (scoreboard/http/policy.py): present, with no
'unsafe-inline' or 'unsafe-eval' in script-src, and framing as the page's use asks: the stream and
TV screens framable by anyone (OBS, a club's site), the tablet, the desk and the admin by no one,
every other page by its own origin. Static files carry the policy too: the tablet's engine worker
runs Pyodide under it."""
from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client, override_settings

from scoreboard.core.competitions import create_competition
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import Match, RefereeCredential, Table

from browser import seed_origin

# WhiteNoise serving from the finders, as under DEBUG: the static file's response is WhiteNoise's
STATIC = override_settings(WHITENOISE_USE_FINDERS=True, WHITENOISE_AUTOREFRESH=True, STORAGES={
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
EVENT = {"name": "Aberto de Santos", "reds": 6, "draw_seed": 7, "players": ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"],
         "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]}


def directives(header: str) -> dict[str, list[str]]:
    """A policy header as {directive: [sources]}."""
    out = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def page_kinds(client: Client) -> dict[str, tuple[str, str]]:
    """{kind: (url, framing)} for one page of every kind; framing is "*", "'none'" or "'self'"."""
    comp = create_competition(EVENT).competition
    table = Table.objects.get(name="Mesa 1")
    mid = create_match("Ana Souza", "Bia Lima", first_breaker=0).match.pk
    fixture_match = Match.objects.filter(fixture__competition=comp).first()
    client.get(login_path(RefereeCredential.objects.get(match_id=mid)))
    staff = Client()
    staff.force_login(User.objects.create_superuser("csp", "csp@example.com", "pw-csp-123"))
    return {
        "venue": ("/", "'self'"), "rules": ("/rules/", "'self'"), "match": (f"/matches/{mid}/", "'self'"),
        "hub": (f"/competitions/{comp.pk}/", "'self'"), "player": (f"/competitions/{comp.pk}/players/1/", "'self'"),
        "display guide": ("/display/", "'self'"),
        "tv": (f"/matches/{mid}/tv/", "*"), "overlay": (f"/matches/{mid}/overlay/", "*"),
        "jumbotron": ("/tv/", "*"), "table tv": (f"/tables/{table.pk}/tv/", "*"),
        "table overlay": (f"/tables/{table.pk}/overlay/", "*"), "graphics": (f"/tables/{table.pk}/graphics/", "*"),
        "referee": (f"/matches/{mid}/referee/", "'none'"),
        "desk": (f"/desk/{comp.pk}/", "'none'"), "admin": ("/admin/", "'none'"),
        "admin login": ("/admin/login/", "'none'"), "fixture match": (f"/matches/{fixture_match.pk}/", "'self'"),
        "engine worker": ("/static/scoreboard/engine-worker.js", "'self'"),
    }, staff


@pytest.mark.django_db
@STATIC
def test_every_page_kind_carries_the_policy_and_its_framing():
    client = Client()
    kinds, staff = page_kinds(client)
    for kind, (url, framing) in kinds.items():
        r = (staff if kind in ("desk", "admin") else client).get(url)
        assert r.status_code == 200, (kind, url, r.status_code)
        assert "Content-Security-Policy" in r.headers, kind
        d = directives(r.headers["Content-Security-Policy"])
        # beside the origin and WebAssembly, only the inline guard's hash: never 'unsafe-inline'
        assert d["script-src"] == ["'self'", "'wasm-unsafe-eval'", *settings.INLINE_SCRIPT_HASHES], (kind, d["script-src"])
        assert d["default-src"] == ["'self'"] and d["object-src"] == ["'none'"], kind
        # the test run's engine-snapshot server (conftest.py) is the one other origin
        assert d["connect-src"] == ["'self'", seed_origin()] and d["worker-src"] == ["'self'", "blob:"], kind
        assert d["frame-ancestors"] == [framing], (kind, d["frame-ancestors"])
        xfo = {"*": None, "'none'": "DENY", "'self'": "SAMEORIGIN"}[framing]
        if kind != "engine worker":  # a static file: no X-Frame-Options, as before
            assert r.headers.get("X-Frame-Options") == xfo, (kind, r.headers.get("X-Frame-Options"))


@pytest.mark.django_db
@STATIC
def test_no_page_has_an_inline_script_the_policy_does_not_name():
    """An inline <script> (not a JSON data block) runs only when its exact text's hash is in the
    page's script-src: the referee page's tap guard; no other page has one."""
    import base64
    import hashlib
    import re

    client = Client()
    kinds, staff = page_kinds(client)
    for kind, (url, _) in kinds.items():
        if kind == "engine worker":
            continue
        r = (staff if kind in ("desk", "admin") else client).get(url)
        html = r.content.decode()
        inline = [body for attrs, body in re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
                  if "src=" not in attrs and 'type="application/json"' not in attrs]
        hashes = ["'sha256-%s'" % base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() for b in inline]
        assert len(inline) == (1 if kind == "referee" else 0), (kind, inline)
        assert all(h in directives(r.headers["Content-Security-Policy"])["script-src"] for h in hashes), kind
        assert not re.search(r"\son[a-z]+\s*=|javascript:|hx-on", html), kind
