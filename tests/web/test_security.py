"""Security review: who may write, PIN guessing, CSRF, websocket Origin, escaping, admin, secrets,
DEBUG."""
from __future__ import annotations

import json
import logging
import os
import pathlib
import re
import subprocess
import sys

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.conf import settings
from django.core.cache import cache
from django.test import Client

from scoreboard.live import render as live
from scoreboard.core import log
from scoreboard.core.matches import create_match
from scoreboard.core.models import Event, Match, RefereeCredential

pytestmark = [pytest.mark.django_db, pytest.mark.pg]
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


@pytest.fixture(autouse=True)
def a_days_window(monkeypatch):
    """The PIN limits' counts over a day instead of a minute (an hour per match): the limit's
    window is fixed in time, and a test whose tries straddled its end (a busy machine, 1.5 s of
    tries) saw the count start again, a 302 where the eleventh try must be refused."""
    from scoreboard.pages import referee

    monkeypatch.setattr(referee, "PIN_RATE_PER_ADDRESS", "10/d")
    monkeypatch.setattr(referee, "PIN_RATE_PER_TARGET", "30/d")


def tap(client, mid):
    return client.post(f"/matches/{mid}/referee/event/", {"event": RED})


# ---- who may write ---------------------------------------------------------------------------

def test_staff_status_alone_scores_nothing_a_referee_role_of_the_table_scores_there(created):
    from scoreboard.core import access
    from scoreboard.core.models import Table

    staff = get_user_model().objects.create_user("mesa", password="x-long-password", is_staff=True)
    c = Client()
    c.force_login(staff)
    mid = created.match.pk
    assert b'name="pin"' in c.get(f"/matches/{mid}/referee/").content
    assert c.post(f"/matches/{mid}/referee/event/", {"event": RED, "expected_seq": "0"}).status_code == 403
    assert Event.objects.count() == 0
    table = Table.objects.create(name="Mesa 9")
    Match.objects.filter(pk=mid).update(table=table)
    access.grant(staff, "referee", "cmd:test", table=table)
    assert b"Vermelha" in c.get(f"/matches/{mid}/referee/").content
    r = c.post(f"/matches/{mid}/referee/event/", {"event": RED, "expected_seq": "0"})
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


def test_an_attacker_exhausting_the_pin_limit_does_not_keep_the_referee_out(created, referee_client):
    """30 wrong PINs an hour from any addresses used to lock the right PIN out for an hour (429).
    A device that once logged in to the match keeps its own allowance; a tablet still logged in
    keeps scoring; the admin's QR code (a new single-use code) logs in a new tablet."""
    mid = created.match.pk
    url = f"/matches/{mid}/referee/"
    tablet = Client(REMOTE_ADDR="192.0.2.50")
    assert tablet.post(url, {"pin": created.pin}).status_code == 302
    del tablet.cookies[settings.SESSION_COOKIE_NAME]  # its session is gone (expired, cleared)
    codes = [Client(REMOTE_ADDR=f"10.1.0.{i}").post(url, {"pin": wrong_pin(created)}).status_code
             for i in range(1, 31)]
    assert codes == [401] * 29 + [429]  # the tablet's login was the first of the match's 30
    assert Client(REMOTE_ADDR="10.9.9.9").post(url, {"pin": created.pin}).status_code == 429
    # the device that logged in before: its own allowance, not the attacker's exhausted one
    assert tablet.post(url, {"pin": created.pin}).status_code == 302
    assert tap(tablet, mid).status_code == 200
    no_pot = {"event": json.dumps({"type": "no_pot"})}
    # logged in by the link before the attack
    assert referee_client.post(f"/matches/{mid}/referee/event/", no_pot).status_code == 200
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("boss", password="x-long-password"))
    page = staff.get(f"/admin/scoreboard/match/{mid}/change/").content.decode()
    qr_link = re.search(r'href="(http://testserver/matches/\d+/referee/\?c=[^"]+)"', page).group(1)
    new_tablet = Client(REMOTE_ADDR="10.9.9.9")
    assert new_tablet.get(qr_link).status_code == 302
    assert new_tablet.post(f"/matches/{mid}/referee/event/", no_pot).status_code == 200
    assert Event.objects.count() == 3


def test_a_device_allowance_is_its_own_and_no_faster_than_anyone(created):
    """A device that logged in once may not use its allowance to guess faster: 30 an hour too."""
    mid = created.match.pk
    url = f"/matches/{mid}/referee/"
    device = Client(REMOTE_ADDR="192.0.2.50")
    assert device.post(url, {"pin": created.pin}).status_code == 302
    del device.cookies[settings.SESSION_COOKIE_NAME]
    codes = []
    for i in range(31):  # new addresses, the same device cookie
        device.defaults["REMOTE_ADDR"] = f"10.2.0.{i + 1}"
        codes.append(device.post(url, {"pin": wrong_pin(created)}).status_code)
    assert codes == [401] * 30 + [429]
    # a forged or foreign cookie is no device
    forged = Client(REMOTE_ADDR="10.3.0.1")
    forged.cookies["sinuca_device"] = "e30:1:forged"
    assert forged.post(url, {"pin": created.pin}).status_code == 302  # the shared allowance is intact


def test_table_pin_guessing_is_limited_per_table_from_any_number_of_addresses():
    from scoreboard.core import tables
    from scoreboard.core.models import Table

    t, other = Table.objects.create(name="1"), Table.objects.create(name="2")
    tables.set_pin(t, "135790")
    tables.set_pin(other, "135790")
    url = f"/tables/{t.pk}/referee/"
    tablet = Client(REMOTE_ADDR="192.0.2.60")
    assert tablet.post(url, {"pin": "135790"}).status_code == 200  # allowed, nothing on the table yet
    codes = [Client(REMOTE_ADDR=f"10.4.{i // 250}.{i % 250 + 1}").post(url, {"pin": "000000"}).status_code
             for i in range(30)]
    assert codes == [401] * 29 + [429]  # the tablet's login was the first of the 30
    r = Client(REMOTE_ADDR="10.9.9.9").post(url, {"pin": "135790"})
    assert r.status_code == 429 and r["Retry-After"] == "60"
    assert Client(REMOTE_ADDR="10.9.9.9").post(f"/tables/{other.pk}/referee/",
                                               {"pin": "135790"}).status_code == 200
    # the table's own tablet (its session gone) still opens it
    del tablet.cookies[settings.SESSION_COOKIE_NAME]
    r = tablet.post(url, {"pin": "135790"})
    assert r.status_code == 200 and 'name="pin"' not in r.content.decode()


def test_a_table_pin_needs_6_to_12_digits_in_the_admin(admin_client):
    from scoreboard.core.models import Table

    t = Table.objects.create(name="1")
    for pin, ok in (("1234", False), ("12345", False), ("123456", True), ("1" * 12, True), ("1" * 13, False)):
        r = admin_client.post(f"/admin/scoreboard/table/{t.pk}/change/", {"name": "1", "new_pin": pin})
        assert (r.status_code == 302) is ok, pin


# ---- the referee link: a single-use code, no working credential in any log ---------------------

@pytest.mark.django_db(transaction=True)
async def test_the_referee_link_is_a_single_use_code_that_no_log_keeps_working(caplog):
    """The link used to carry a signed 7-day token in its query string, which the access log
    wrote down. Now it carries a single-use code, exchanged at once for a session (then a
    redirect to the clean URL); the app's access log writes no query string, and a code read
    from any other log (nginx's) has been used up already."""
    import httpx

    from scoreboard.asgi import application

    created = await sync_to_async(create_match)("A", "B", first_breaker=0)
    mid = created.match.pk
    code = created.referee_url.split("?c=")[1]
    assert created.referee_url == f"/matches/{mid}/referee/?c={code}" and len(code) == 32
    caplog.set_level("INFO", logger="scoreboard.access")
    logging.getLogger("scoreboard.access").addHandler(caplog.handler)  # it does not propagate
    transport = httpx.ASGITransport(app=application, client=("203.0.113.9", 5555))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as tablet:
        r = await tablet.get(created.referee_url)
        assert r.status_code == 302 and r.headers["location"] == f"/matches/{mid}/referee/"
        assert "Vermelha" in (await tablet.get(f"/matches/{mid}/referee/")).text
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as thief:
        r = await thief.get(created.referee_url)  # the code as read from a log: used up
        assert r.status_code == 200 and 'name="pin"' in r.text and "Vermelha" not in r.text
    logging.getLogger("scoreboard.access").removeHandler(caplog.handler)
    lines = [rec.getMessage() for rec in caplog.records if rec.name == "scoreboard.access"]
    assert lines[0].startswith(f'203.0.113.9 "GET /matches/{mid}/referee/" 302 ')
    assert len(lines) == 3 and not any(code in line or "?" in line for line in lines)
    assert created.token not in caplog.text


def test_an_expired_or_revoked_code_does_not_log_in(created, settings):
    from scoreboard.core.credentials import login_path

    settings.REFEREE_CODE_MAX_AGE = 0
    cred = RefereeCredential.objects.get()
    expired = login_path(cred)
    r = Client().get(expired)
    assert r.status_code == 200 and "Este link já foi usado ou expirou" in r.content.decode()
    settings.REFEREE_CODE_MAX_AGE = 3600
    fresh = login_path(cred)
    RefereeCredential.objects.update(revoked=True)
    assert b'name="pin"' in Client().get(fresh).content


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


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("host,origin,ok", [
    (b"127.0.0.1:8000", b"http://127.0.0.1:8000", True),
    (b"127.0.0.1:8000", b"http://127.0.0.1:9999", False),  # another service on the same machine
    (b"127.0.0.1:8000", b"http://127.0.0.1", False),  # port 80 is not 8000
    (b"127.0.0.1", b"http://127.0.0.1", True),
    (b"127.0.0.1", b"http://127.0.0.1:8080", False),
    (b"localhost", b"https://localhost", True),  # behind a TLS proxy: Host without a port
    (b"localhost", b"https://localhost:8443", False),
    (b"localhost:8000", b"http://127.0.0.1:8000", False),  # another host name
    (b"evil.example:8000", b"http://evil.example:8000", False),  # not an allowed host
])
async def test_websocket_origin_must_match_host_and_port(host, origin, ok):
    """Channels' AllowedHostsOriginValidator accepted any port of an allowed host."""
    from scoreboard.asgi import application

    mid = (await sync_to_async(create_match)("A", "B", first_breaker=0)).match.pk
    for path in (f"/ws/matches/{mid}/feed/", f"/ws/matches/{mid}/?view=tv"):
        comm = WebsocketCommunicator(application, path, headers=[(b"host", host), (b"origin", origin)])
        connected, _ = await comm.connect(timeout=5)
        assert connected is ok, (host, origin, path)
        if connected:
            await comm.disconnect()


# ---- client address: forwarded headers from trusted proxies only ------------------------------

@pytest.mark.parametrize("peer,xff,trusted,expected", [
    ("203.0.113.7", "1.2.3.4", [], "203.0.113.7"),  # no trusted proxy: the header is ignored
    ("10.0.0.10", "1.2.3.4", [], "10.0.0.10"),
    ("203.0.113.7", "1.2.3.4", ["10.0.0.10"], "203.0.113.7"),  # not from the proxy: ignored
    ("10.0.0.10", "1.2.3.4", ["10.0.0.10"], "1.2.3.4"),
    ("10.0.0.10", "6.6.6.6, 1.2.3.4", ["10.0.0.10"], "1.2.3.4"),  # the client's own hop is ignored
    ("10.0.0.10", "6.6.6.6, 1.2.3.4, 10.0.0.11", ["10.0.0.0/24"], "1.2.3.4"),  # two proxies
    ("10.0.0.10", "10.0.0.11", ["10.0.0.0/24"], "10.0.0.11"),  # every hop trusted: the leftmost
    ("10.0.0.10", "junk, 10.0.0.11", ["10.0.0.0/24"], "10.0.0.11"),  # a malformed hop stops the walk
    ("10.0.0.10", "", ["10.0.0.10"], "10.0.0.10"),
    ("::1", "2001:db8::5", ["::1"], "2001:db8::5"),
])
def test_client_address_takes_forwarded_for_only_from_trusted_proxies(peer, xff, trusted, expected):
    from scoreboard.http.clients import _networks, client_address

    assert client_address(peer, xff, _networks(tuple(trusted))) == expected


async def asgi_pin_tries(application, url: str, pins_and_xff: list[tuple[str, str]],
                         peer: str = "203.0.113.7") -> list[int]:
    """POST each PIN to ``url`` through the whole ASGI application (as Daphne would call it),
    with its own X-Forwarded-For, from the TCP peer ``peer``; the status of each."""
    import httpx

    transport = httpx.ASGITransport(app=application, client=(peer, 4321))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        page = (await http.get(url)).text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        codes = []
        for pin, xff in pins_and_xff:
            r = await http.post(url, data={"pin": pin, "csrfmiddlewaretoken": token},
                                headers={"X-Forwarded-For": xff})
            codes.append(r.status_code)
        return codes


@pytest.mark.django_db(transaction=True)
async def test_a_spoofed_forwarded_for_is_limited_as_one_address(settings):
    """The table PIN fell in 19 s: each try claimed another address in X-Forwarded-For, and Daphne's
    --proxy-headers believed it. Now the header counts only from TRUSTED_PROXIES (none here)."""
    from scoreboard.asgi import application
    from scoreboard.core import tables
    from scoreboard.core.models import Table

    settings.TRUSTED_PROXIES = []
    table = await sync_to_async(Table.objects.create)(name="7")
    await sync_to_async(tables.set_pin)(table, "246813")
    tries = [("000000", f"198.51.100.{i}") for i in range(1, 11)] + [("246813", "198.51.100.99")]
    codes = await asgi_pin_tries(application, f"/tables/{table.pk}/referee/", tries)
    assert codes == [401] * 10 + [429]  # the 11th try, even the right PIN, is the same address's


@pytest.mark.django_db(transaction=True)
async def test_behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client(settings):
    from scoreboard.asgi import application

    settings.TRUSTED_PROXIES = ["10.0.0.10"]
    created = await sync_to_async(create_match)("A", "B", first_breaker=0)
    url = f"/matches/{created.match.pk}/referee/"
    wrong = wrong_pin(created)
    # the client writes a new leftmost hop each time; nginx appends the address it saw
    tries = [(wrong, f"6.6.6.{i}, 198.51.100.1") for i in range(10)] + [(created.pin, "6.6.6.99, 198.51.100.1")]
    assert await asgi_pin_tries(application, url, tries, peer="10.0.0.10") == [401] * 10 + [429]
    # another client behind the same proxy is another address
    assert await asgi_pin_tries(application, url, [(created.pin, "198.51.100.2")], peer="10.0.0.10") == [302]


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
    assert r["X-Frame-Options"] == "DENY"  # framed by no one: a tap through an invisible frame
    assert "frame-ancestors 'none'" in r["Content-Security-Policy"]
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


# ---- with real processes: two workers behind scripts/serve.py, PostgreSQL and Redis ------------

def _csrf(http, url: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', http.get(url).text).group(1)


@pytest.mark.services
def test_limits_are_shared_by_two_workers_survive_a_restart_and_ignore_spoofed_addresses():
    """Two workers under scripts/serve.py (PostgreSQL, Redis): PIN tries with a new spoofed
    X-Forwarded-For each, on new connections (the kernel spreads them over both workers), are
    counted as one address in one store; killing both workers forgets nothing; django-axes locks
    the admin the same way; the access log has the real address and no login code or token."""
    import signal
    import time

    import httpx

    from live_harness import App, PrivateRedis

    redis = PrivateRedis()
    # a day's window instead of a minute's, so that no window ends while the test runs
    app = App(redis.url, workers=2, env={"TRUSTED_PROXIES": "", "ACCESS_LOG_LEVEL": "INFO",
                                         "PIN_RATE_PER_ADDRESS": "10/d"})
    try:
        url = f"{app.base}/matches/{app.match}/referee/"
        right = app.created["referee_pin"]
        wrong = "000000" if right != "000000" else "111111"
        with httpx.Client(timeout=10) as http:
            token, cookie = _csrf(http, url), http.cookies["csrftoken"]

        def post(path: str, data: dict, xff: str) -> int:
            with httpx.Client(timeout=10, cookies={"csrftoken": cookie}) as http:  # a new connection
                return http.post(f"{app.base}{path}", data={**data, "csrfmiddlewaretoken": token},
                                 headers={"X-Forwarded-For": xff}).status_code

        path = f"/matches/{app.match}/referee/"
        codes = [post(path, {"pin": wrong}, f"198.51.100.{i}") for i in range(1, 11)]
        assert codes == [401] * 10
        assert post(path, {"pin": right}, "198.51.100.99") == 429
        # the admin: 10 failures lock the address out, whatever it claims to be
        app.env["DJANGO_SUPERUSER_PASSWORD"] = "x-long-password"
        app.manage("createsuperuser", "--noinput", "--username", "boss", "--email", "boss@example.org")
        login = {"username": "boss", "password": "nope"}
        codes = [post("/admin/login/", login, f"203.0.113.{i}") for i in range(1, 11)]
        assert codes == [200] * 9 + [429]
        # both workers killed and started again: the counts are in Redis and PostgreSQL
        before = app.worker_pids()
        for pid in before.values():
            os.kill(pid, signal.SIGKILL)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            pids = app.worker_pids()
            if all(pids[i] != before[i] for i in before):
                try:
                    if httpx.get(f"{app.base}/api/matches/{app.match}/", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
            time.sleep(0.2)
        assert all(app.worker_pids()[i] != before[i] for i in before)
        assert post(path, {"pin": right}, "198.51.100.100") == 429
        assert post("/admin/login/", {**login, "password": "x-long-password"}, "203.0.113.99") == 429
        # the referee link logs in once; the access log keeps neither its code nor the token
        with httpx.Client(timeout=10) as tablet:
            r = tablet.get(app.base + app.created["referee_url"])
            assert r.status_code == 302 and r.headers["location"] == path
        code = app.created["referee_url"].split("?c=")[1]
        text = app.log_text()
        assert f'127.0.0.1 "POST {path}" 401' in text and f'127.0.0.1 "GET {path}" 302' in text
        assert code not in text and app.token not in text and "198.51.100" not in text
    finally:
        app.stop()
        redis.stop()
