"""Security review: who may write, PIN guessing, CSRF, websocket Origin, escaping, admin, secrets,
DEBUG."""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from scoreboard.live import render as live
from scoreboard.core import log
from scoreboard.core.matches import create_match
from scoreboard.core.models import Event, RefereeCredential

pytestmark = pytest.mark.django_db
ROOT = pathlib.Path(__file__).resolve().parents[2]
RED = json.dumps({"type": "pot", "balls": [1]})
XSS_A = "<script>alert(1)</script>"
XSS_B = '"><img src=x onerror=alert(2)>\''


@pytest.fixture(autouse=True)
def fast_hashes_and_fresh_limits(settings):
    """PINs hashed cheaply (the tests try many) and no rate-limit counts left by other tests."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"security-{os.getpid()}"}}
    cache.clear()
    yield
    cache.clear()


def tap(client, mid):
    return client.post(f"/matches/{mid}/referee/event/", {"event": RED})


# ---- who may write ---------------------------------------------------------------------------

def test_a_staff_user_logged_in_may_score_any_match(created):
    staff = get_user_model().objects.create_user("mesa", password="x-long-password", is_staff=True)
    c = Client()
    c.force_login(staff)
    assert b"Vermelha" in c.get(f"/matches/{created.match.pk}/referee/").content
    r = c.post(f"/matches/{created.match.pk}/referee/event/", {"event": RED, "expected_seq": "0"})
    assert r.status_code == 200
    assert Event.objects.get().entered_by == "user:mesa"


def test_a_logged_in_user_who_is_not_staff_may_not_score(created):
    user = get_user_model().objects.create_user("fan", password="x-long-password")
    c = Client()
    c.force_login(user)
    mid = created.match.pk
    assert b'name="pin"' in c.get(f"/matches/{mid}/referee/").content
    assert c.post(f"/matches/{mid}/referee/event/", {"event": RED}).status_code == 403
    assert c.post(f"/matches/{mid}/referee/foul/submit/", {"ball": "1"}).status_code == 403
    assert c.post(f"/matches/{mid}/referee/art28/", {"answer": "yes"}).status_code == 403
    assert Event.objects.count() == 0


def test_the_api_never_trusts_a_session_cookie(created):
    """The API is CSRF-exempt, so it must accept the bearer token only, not a staff session."""
    staff = get_user_model().objects.create_user("mesa", password="x-long-password", is_staff=True)
    c = Client()
    c.force_login(staff)
    r = c.post(f"/api/matches/{created.match.pk}/events/", data=json.dumps({"event": {"type": "no_pot"}}),
               content_type="application/json")
    assert r.status_code == 401
    assert Event.objects.count() == 0


def test_a_revoked_credential_loses_token_and_tablet_session(created, referee_client, auth):
    RefereeCredential.objects.update(revoked=True)
    mid = created.match.pk
    assert tap(referee_client, mid).status_code == 403
    r = Client().post(f"/api/matches/{mid}/events/", data=json.dumps({"event": {"type": "no_pot"}}),
                      content_type="application/json", **auth)
    assert r.status_code == 403
    assert Event.objects.count() == 0


# ---- PIN guessing ----------------------------------------------------------------------------

def wrong_pin(created) -> str:
    return "000000" if created.pin != "000000" else "111111"


def test_pin_guessing_is_rate_limited_per_address_and_locks_out_the_right_pin_too(created):
    c = Client()
    url = f"/matches/{created.match.pk}/referee/"
    codes = [c.post(url, {"pin": wrong_pin(created)}).status_code for _ in range(10)]
    assert codes == [401] * 10
    r = c.post(url, {"pin": created.pin})
    assert r.status_code == 429 and r["Retry-After"]
    assert "Muitas tentativas" in r.content.decode()
    assert b"Vermelha" not in c.get(url).content  # not logged in
    # another address is not locked out by this one
    other = Client(REMOTE_ADDR="10.0.0.9")
    assert other.post(url, {"pin": created.pin}).status_code == 302


def test_pin_guessing_from_many_addresses_hits_the_per_match_limit(created):
    url = f"/matches/{created.match.pk}/referee/"
    codes = [Client(REMOTE_ADDR=f"10.1.{i // 250}.{i % 250 + 1}").post(url, {"pin": wrong_pin(created)}).status_code
             for i in range(30)]
    assert codes == [401] * 30
    r = Client(REMOTE_ADDR="10.9.9.9").post(url, {"pin": created.pin})
    assert r.status_code == 429
    # another match is not affected, and the signed link still logs a tablet in
    other = create_match("C", "D", first_breaker=0)
    assert Client(REMOTE_ADDR="10.9.9.9").post(f"/matches/{other.match.pk}/referee/",
                                               {"pin": other.pin}).status_code == 302
    assert Client(REMOTE_ADDR="10.9.9.9").get(created.referee_url).status_code == 302


# ---- CSRF ------------------------------------------------------------------------------------

@pytest.fixture
def csrf_client(created) -> Client:
    c = Client(enforce_csrf_checks=True)
    assert c.get(created.referee_url).status_code == 302
    return c


def page_token(client, mid) -> str:
    html = client.get(f"/matches/{mid}/referee/").content.decode()
    return re.search(r'"X-CSRFToken": "([^"]+)"', html).group(1)


def test_tablet_posts_without_the_csrf_token_are_refused(csrf_client, created):
    mid = created.match.pk
    for path, data in (("event/", {"event": RED}), ("foul/submit/", {"ball": "1"}),
                       ("foul/preview/", {"ball": "1"}), ("art28/", {"answer": "yes"})):
        assert csrf_client.post(f"/matches/{mid}/referee/{path}", data).status_code == 403, path
    assert Event.objects.count() == 0
    # the page's token (sent by htmx as X-CSRFToken) is accepted
    r = csrf_client.post(f"/matches/{mid}/referee/event/", {"event": RED}, HTTP_X_CSRFTOKEN=page_token(csrf_client, mid))
    assert r.status_code == 200 and Event.objects.count() == 1


def test_the_pin_form_needs_its_csrf_token(created):
    c = Client(enforce_csrf_checks=True)
    url = f"/matches/{created.match.pk}/referee/"
    html = c.get(url).content.decode()
    assert r'name="csrfmiddlewaretoken"' in html
    assert c.post(url, {"pin": created.pin}).status_code == 403
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    assert c.post(url, {"pin": created.pin, "csrfmiddlewaretoken": token}).status_code == 302


# ---- websocket Origin ------------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("origin,ok", [
    (b"http://127.0.0.1", True), (b"http://localhost:8000", True), (b"http://evil.example", False),
    (b"http://127.0.0.1.evil.example", False), (b"null", False), (None, False),
])
async def test_websocket_origin_is_validated(origin, ok):
    from scoreboard.asgi import application

    mid = (await sync_to_async(create_match)("A", "B", first_breaker=0)).match.pk
    for path in (f"/ws/matches/{mid}/feed/", f"/ws/matches/{mid}/?view=tv"):
        comm = WebsocketCommunicator(application, path, headers=[(b"origin", origin)] if origin else [])
        connected, _ = await comm.connect(timeout=5)
        assert connected is ok, (origin, path)
        if connected:
            await comm.disconnect()


# ---- escaping --------------------------------------------------------------------------------

def assert_escaped(text: str, where: str) -> None:
    for raw in (XSS_A, "<img src=x", "onerror=alert(2)>"):
        assert raw not in text, (where, raw)


@pytest.fixture
def xss(db):
    return create_match(XSS_A, XSS_B, first_breaker=0)


def test_player_names_are_escaped_on_every_page_and_fragment(xss):
    mid = xss.match.pk
    ref = Client()
    ref.get(xss.referee_url)
    # a few events, so the log, descriptions and the foul dialog carry the names too
    for ev in ('{"type":"pot","balls":[1]}', '{"type":"no_pot"}'):
        assert ref.post(f"/matches/{mid}/referee/event/", {"event": ev}).status_code == 200
    anon = Client()
    pages = {
        "home": anon.get("/").content, "tv": anon.get(xss.tv_url).content,
        "overlay": anon.get(xss.overlay_url).content, "tv-en": anon.get(xss.tv_url + "?lang=en").content,
        "login": anon.get(f"/matches/{mid}/referee/").content,
        "referee": ref.get(f"/matches/{mid}/referee/").content,
        "foul": ref.get(f"/matches/{mid}/referee/foul/").content,
        "preview": ref.post(f"/matches/{mid}/referee/foul/preview/", {"ball": "1"}).content,
        "tap": ref.post(f"/matches/{mid}/referee/event/", {"event": '{"type":"foul","ball":1}'}).content,
        "live-tv": anon.get(f"/matches/{mid}/live/tv/").content,
        "live-referee": ref.get(f"/matches/{mid}/live/referee/").content,
    }
    for where, body in pages.items():
        text = body.decode()
        assert_escaped(text, where)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["tv"].decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["referee"].decode()
    # the pre-rendered websocket payloads of every view and language
    for view in live.VIEWS:
        for lang in live.languages():
            _, text = live.connect_payload(mid, live.payload_key(view, lang))
            assert_escaped(text, f"ws {view} {lang}")


def test_the_admin_escapes_player_names(xss):
    staff = get_user_model().objects.create_superuser("boss", password="x-long-password")
    c = Client()
    c.force_login(staff)
    for url in ("/admin/scoreboard/match/", f"/admin/scoreboard/match/{xss.match.pk}/change/",
                "/admin/scoreboard/player/"):
        r = c.get(url)
        assert r.status_code == 200, url
        assert_escaped(r.content.decode(), url)


@pytest.mark.django_db(transaction=True)
async def test_websocket_fragments_of_a_change_are_escaped():
    from scoreboard.asgi import application

    mid = (await sync_to_async(create_match)(XSS_A, XSS_B, first_breaker=0)).match.pk
    comm = WebsocketCommunicator(application, f"/ws/matches/{mid}/?view=tv",
                                 headers=[(b"origin", b"http://127.0.0.1")])
    assert (await comm.connect(timeout=5))[0]
    assert_escaped(await comm.receive_from(timeout=5), "ws connect")
    await sync_to_async(log.append_event)(mid, {"type": "pot", "balls": [1]})
    assert_escaped(await comm.receive_from(timeout=5), "ws change")
    await comm.disconnect()


# ---- admin, secrets, DEBUG -------------------------------------------------------------------

def test_the_admin_is_behind_a_staff_login(created):
    anon = Client()
    for url in ("/admin/", "/admin/scoreboard/match/", "/admin/scoreboard/refereecredential/",
                f"/admin/scoreboard/match/{created.match.pk}/change/"):
        r = anon.get(url)
        assert r.status_code == 302 and r["Location"] == f"/admin/login/?next={url}", url
    fan = Client()
    fan.force_login(get_user_model().objects.create_user("fan", password="x-long-password"))
    r = fan.get("/admin/scoreboard/match/")
    assert r.status_code == 302 and r["Location"] == "/admin/login/?next=/admin/scoreboard/match/"


def test_the_referee_tablet_cannot_be_framed_by_another_site(referee_client, created):
    r = referee_client.get(f"/matches/{created.match.pk}/referee/")
    assert r["X-Frame-Options"] == "SAMEORIGIN"  # framed by its own site only (the display guide)
    assert r["X-Content-Type-Options"] == "nosniff"


SECRET_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}"),
    re.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"""SECRET_KEY\s*=\s*["'][^"']{8,}["']"""),
    re.compile(r"""DJANGO_SECRET_KEY\s*[=:]\s*["']?[A-Za-z0-9!@#$%^&*(\-_=+)]{20,}"""),
    re.compile(r"""(?i)\b(password|passwd|secret|api_key|token)\s*[=:]\s*["'][A-Za-z0-9_\-+/=]{16,}["']"""),
    re.compile(r"Bearer [A-Za-z0-9_\-]{30,}"),
    re.compile(r"://[^/\s:@'\"]+:[^/\s:@'\"]{4,}@"),  # a URL with a password in it
]


def test_no_secret_is_committed():
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    found = []
    for name in filter(None, files.decode().split("\0")):
        path = ROOT / name
        if not path.is_file() or path.suffix in (".png", ".mo", ".pdf", ".ico", ".woff2"):
            continue
        try:
            text = path.read_text(errors="ignore")
        except OSError:
            continue
        found += [f"{name}: {m.group(0)[:40]}" for p in SECRET_PATTERNS for m in p.finditer(text)]
    assert not found, found
    ignored = subprocess.run(["git", "check-ignore", "var/secret_key", "var/db.sqlite3", ".env"],
                             cwd=ROOT, capture_output=True, text=True).stdout.split()
    assert set(ignored) == {"var/secret_key", "var/db.sqlite3", ".env"}


@pytest.mark.parametrize("value,expected", [(None, False), ("", False), ("0", False), ("false", False),
                                            ("1", True), ("true", True)])
def test_debug_is_off_unless_django_debug_is_set(value, expected):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_DEBUG"}
    if value is not None:
        env["DJANGO_DEBUG"] = value
    env["DJANGO_SETTINGS_MODULE"] = "scoreboard.settings"
    out = subprocess.run([sys.executable, "-c", "from django.conf import settings; print(settings.DEBUG, "
                          "bool(settings.SECRET_KEY) and len(settings.SECRET_KEY) >= 40)"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(expected), "True"]
