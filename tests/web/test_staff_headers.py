"""Staff pages and files are never stored (``Cache-Control: private, no-store``), and HTTPS
deployments send HSTS."""
from __future__ import annotations

import os
import pathlib
import runpy

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from scoreboard.core import access
from scoreboard.core.competitions import create_competition

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_the_desk_its_exports_and_the_admin_are_private_and_never_stored():
    comp = create_competition({"name": "Copa", "reds": 6, "draw_seed": 1, "players": [f"P {i}" for i in range(4)],
                               "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    org = get_user_model().objects.create_user("org", password="x-long-password", is_staff=True)
    access.grant(org, "organiser", "cmd:test", competition=comp)
    root = get_user_model().objects.create_superuser("root", password="x-long-password")
    c, admin = Client(), Client()
    c.force_login(org)
    admin.force_login(root)
    answers = {path: c.get(path) for path in (f"/desk/{comp.pk}/", f"/desk/{comp.pk}/results.csv",
                                              f"/desk/{comp.pk}/standings.csv", f"/desk/{comp.pk}/bracket.pdf")}
    answers |= {path: admin.get(path) for path in ("/admin/", "/admin/scoreboard/match/", "/admin/scoreboard/player/add/")}
    answers["/admin/login/"] = Client().get("/admin/login/")
    answers["desk, anonymous"] = Client().get(f"/desk/{comp.pk}/")
    for path, r in answers.items():
        assert r.status_code in (200, 302), (path, r.status_code)
        assert r["Cache-Control"] == "private, no-store", (path, r.get("Cache-Control"))
    assert answers[f"/desk/{comp.pk}/bracket.pdf"].content.startswith(b"%PDF")
    # a spectator's page keeps its own caching
    assert Client().get("/").get("Cache-Control") != "private, no-store"


def _settings_with(monkeypatch, env: dict) -> list[str]:
    """The settings file's HSTS, subdomains and redirect under ``env`` (read afresh)."""
    for k in [k for k in os.environ if k.startswith("DJANGO_HSTS") or k == "DJANGO_SECURE"]:
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = runpy.run_path(str(ROOT / "scoreboard" / "settings.py"))
    return [str(s.get("SECURE_HSTS_SECONDS", 0)), str(s.get("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)),
            str(s["SECURE_SSL_REDIRECT"])]


def test_hsts_for_a_year_under_django_secure_and_in_the_nginx_example(monkeypatch):
    assert _settings_with(monkeypatch, {"DJANGO_SECURE": "1"}) == ["31536000", "False", "True"]
    assert _settings_with(monkeypatch, {"DJANGO_SECURE": "1", "DJANGO_HSTS_SECONDS": "0"})[0] == "0"
    assert _settings_with(monkeypatch, {})[0] == "0"  # plain HTTP (run.sh on a laptop): no HSTS
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert 'add_header Strict-Transport-Security "max-age=31536000" always;' in nginx


@pytest.mark.django_db
def test_the_app_sends_hsts_over_https(settings):
    settings.SECURE_HSTS_SECONDS = 31536000
    r = Client().get("/", secure=True)
    assert r["Strict-Transport-Security"] == "max-age=31536000"
