"""``live/sockets.py``: the read-only websocket endpoints — state on connect, every change after
it, for the socket's view and language; spectators cannot write; Origin and the referee session
are checked; an unknown match is closed."""
from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from scoreboard.core import log

from ws_helpers import connect, match_id  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]


async def test_feed_sends_seq_and_state_on_connect_then_every_change(match_id):
    comm, ok, _ = await connect(f"/ws/matches/{match_id}/feed/")
    assert ok
    first = json.loads(await comm.receive_from(timeout=5))
    assert set(first) == {"seq", "state"} and first["seq"] == 0
    assert first["state"]["ball_on"] == [1]
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    msg = json.loads(await comm.receive_from(timeout=5))
    assert set(msg) == {"seq", "state", "event", "description"}
    assert msg["seq"] == 1 and msg["state"]["scores"] == [1, 0] and msg["event"] == {"type": "pot", "balls": [1]}
    await sync_to_async(log.append_event)(match_id, {"type": "undo"})
    msg = json.loads(await comm.receive_from(timeout=5))
    assert msg["seq"] == 2 and msg["state"]["scores"] == [0, 0]
    await comm.disconnect()


async def test_html_stream_sends_fragments_with_seq_for_its_view_and_language(match_id):
    tv, ok, _ = await connect(f"/ws/matches/{match_id}/?view=tv&lang=en")
    ov, ok2, _ = await connect(f"/ws/matches/{match_id}/?view=overlay")
    assert ok and ok2
    html = await tv.receive_from(timeout=5)
    assert 'id="live-seq"' in html and 'data-seq="0"' in html and "Ball on" in html and "Ana Souza" in html
    assert 'id="ov-live"' in await ov.receive_from(timeout=5)
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    html = await tv.receive_from(timeout=5)
    assert 'data-seq="1"' in html and 'id="tv-live"' in html
    html = await ov.receive_from(timeout=5)
    assert 'data-seq="1"' in html and 'class="ov-break">1<' in html
    await tv.disconnect()
    await ov.disconnect()


async def test_a_message_from_a_spectator_closes_the_socket_and_changes_nothing(match_id):
    comm, ok, _ = await connect(f"/ws/matches/{match_id}/feed/")
    await comm.receive_from(timeout=5)
    await comm.send_to(text_data=json.dumps({"event": {"type": "pot", "balls": [1]}}))
    out = await comm.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 4400
    snap = await sync_to_async(log.snapshot)(match_id)
    assert snap.seq == 0


async def test_a_foreign_origin_is_refused(match_id):
    comm, ok, _ = await connect(f"/ws/matches/{match_id}/feed/", headers=[(b"origin", b"http://evil.example")])
    assert not ok


async def test_an_unknown_match_is_accepted_then_closed_with_4404(db):
    comm, ok, _ = await connect("/ws/matches/9999/feed/")
    assert ok  # accepted, then closed once the match is not found
    out = await comm.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 4404


async def test_the_referee_stream_needs_the_referee_session(match_id):
    comm, ok, code = await connect(f"/ws/matches/{match_id}/?view=referee")
    assert not ok and code == 4403


def _referee_session(referee_url: str) -> str:
    from django.conf import settings
    from django.test import Client

    c = Client()
    assert c.get(referee_url).status_code == 302
    return c.cookies[settings.SESSION_COOKIE_NAME].value


async def _closes_within(comm, seconds: float) -> tuple[float, int]:
    """Seconds until the socket is closed by the server, and the close code (after its state)."""
    import time

    t0 = time.monotonic()
    while True:
        out = await comm.receive_output(timeout=seconds)
        if out["type"] == "websocket.close":
            return time.monotonic() - t0, out["code"]


@pytest.mark.parametrize("how", ["revoke", "table_pin"])
async def test_a_revoked_referee_socket_closes_within_2_s_and_spectators_stay(db, how, monkeypatch):
    """Revoking a referee (or changing the PIN of the table that logged the tablet in) left that
    referee's socket open and receiving every change."""
    from scoreboard.core import tables
    from scoreboard.core.credentials import login_path
    from scoreboard.core.matches import create_match
    from scoreboard.core.models import RefereeCredential

    created = await sync_to_async(create_match)("Ana", "Bia", first_breaker=0, table="3")
    mid = created.match.pk
    if how == "table_pin":
        table = created.match.table
        await sync_to_async(tables.set_pin)(table, "246813")
        cred = await sync_to_async(tables.table_credential)(created.match)
        url = await sync_to_async(login_path)(cred)
    else:
        url = created.referee_url
    sid = await sync_to_async(_referee_session)(url)
    cookie = [(b"cookie", f"sessionid={sid}".encode())]
    from scoreboard.live import sockets

    checks = []  # each check of the referee socket's session, in order (on connect, then each second)
    real = sockets.session_may_referee
    monkeypatch.setattr(sockets, "session_may_referee", lambda *a: checks.append(real(*a)) or checks[-1])
    ref, ok, _ = await connect(f"/ws/matches/{mid}/?view=referee", headers=[(b"origin", b"http://127.0.0.1"), *cookie])
    assert ok
    tv, ok2, _ = await connect(f"/ws/matches/{mid}/feed/")
    assert ok2
    await ref.receive_from(timeout=5)
    await tv.receive_from(timeout=5)
    while len(checks) < 2:  # the connect's check, then a periodic one (a second apart) passes
        await asyncio.sleep(0.02)
    assert checks[:2] == [True, True]
    assert await ref.receive_nothing(timeout=0.1)
    before = len(checks)
    if how == "revoke":
        await sync_to_async(RefereeCredential.objects.filter(match_id=mid).update)(revoked=True)
    else:
        await sync_to_async(tables.set_pin)(created.match.table, "975312")
    elapsed, code = await _closes_within(ref, 10)
    # closed by the first check after the change, a second apart (the time itself depends on
    # how busy the machine is, the count of checks does not); one check may have read the
    # session just before the change
    after = checks[before:]
    assert code == 4403 and after[-1] is False and len(after) <= 2, (checks, elapsed)
    await sync_to_async(log.append_event)(mid, {"type": "pot", "balls": [1]})
    assert json.loads(await tv.receive_from(timeout=5))["seq"] == 1  # the spectator still follows
    await tv.disconnect()


async def connect_from(path, addr):
    """A socket to ``path`` from client address ``addr`` (as the server puts it in the scope)."""
    from channels.testing import WebsocketCommunicator

    from scoreboard.asgi import application
    from ws_helpers import ORIGIN

    comm = WebsocketCommunicator(application, path, headers=ORIGIN)
    comm.scope["client"] = (addr, 50000)  # read once the app runs, on connect
    ok, _ = await comm.connect(timeout=5)
    return comm, ok


async def test_one_client_address_gets_at_most_the_configured_sockets_then_4429(match_id, settings):
    settings.LIVE_SOCKETS_PER_CLIENT = 3
    mine = []
    for _ in range(3):
        comm, ok = await connect_from(f"/ws/matches/{match_id}/feed/", "203.0.113.7")
        assert ok
        assert json.loads(await comm.receive_from(timeout=5))["seq"] == 0
        mine.append(comm)
    extra, ok = await connect_from(f"/ws/matches/{match_id}/?view=tv", "203.0.113.7")
    assert ok  # accepted, then closed at once: the client sees why
    out = await extra.receive_output(timeout=5)
    assert out == {"type": "websocket.close", "code": 4429}
    other, ok = await connect_from(f"/ws/matches/{match_id}/feed/", "198.51.100.2")
    assert ok and json.loads(await other.receive_from(timeout=5))["seq"] == 0
    await mine.pop().disconnect()  # a socket closed frees its place
    again, ok = await connect_from(f"/ws/matches/{match_id}/feed/", "203.0.113.7")
    assert ok and json.loads(await again.receive_from(timeout=5))["seq"] == 0
    for comm in (*mine, other, again):
        await comm.disconnect()


def _tap_as(session: str, mid: int, event: dict, socket_id: str) -> int:
    from django.conf import settings
    from django.test import Client

    c = Client()
    c.cookies[settings.SESSION_COOKIE_NAME] = session
    r = c.post(f"/matches/{mid}/referee/event/", {"event": json.dumps(event)},
               HTTP_X_SINUCA_SOCKET=socket_id)
    assert r.status_code == 200, r.content
    return r.content.decode().count('data-seq="1"')


async def test_the_tablet_that_tapped_gets_the_change_once_in_the_posts_answer(db):
    """The tablet drew each tap's result twice over: the POST's answer and the same fragment
    pushed on its own socket. Its socket id (``?sid=``, sent with the tap as
    ``X-Sinuca-Socket``) now keeps its own changes off its socket; another tablet of the match,
    and every change made elsewhere, still arrive."""
    from scoreboard.core.matches import create_match

    created = await sync_to_async(create_match)("Ana", "Bia", first_breaker=0)
    mid = created.match.pk
    session = await sync_to_async(_referee_session)(created.referee_url)
    headers = [(b"origin", b"http://127.0.0.1"), (b"cookie", f"sessionid={session}".encode())]
    sid = "tablet-0123456789abcdef"
    own, ok, _ = await connect(f"/ws/matches/{mid}/?view=referee&sid={sid}", headers=headers)
    other, ok2, _ = await connect(f"/ws/matches/{mid}/?view=referee", headers=headers)
    assert ok and ok2
    assert 'data-seq="0"' in await own.receive_from(timeout=5)
    assert 'data-seq="0"' in await other.receive_from(timeout=5)
    # the tap's answer carries seq 1 (the board and the message)
    assert await sync_to_async(_tap_as)(session, mid, {"type": "pot", "balls": [1]}, sid) >= 1
    assert 'data-seq="1"' in await other.receive_from(timeout=5)
    # a change made elsewhere reaches both; the tapping tablet's next message is seq 2, not 1
    await sync_to_async(log.append_event)(mid, {"type": "no_pot"})
    assert 'data-seq="2"' in await other.receive_from(timeout=5)
    assert 'data-seq="2"' in await own.receive_from(timeout=5)
    # a socket id that is not one (too short, bad characters) skips nothing
    bad, ok3, _ = await connect(f"/ws/matches/{mid}/?view=referee&sid=x%3Cy", headers=headers)
    assert ok3 and 'data-seq="2"' in await bad.receive_from(timeout=5)
    await sync_to_async(_tap_as)(session, mid, {"type": "no_pot"}, "x<y")
    assert 'data-seq="3"' in await bad.receive_from(timeout=5)
    for c in (own, other, bad):
        await c.disconnect()


def _rename_in_admin(player_pk: int, name: str) -> int:
    from django.contrib.auth.models import User
    from django.test import Client

    from scoreboard.core.models import Player

    c = Client()
    c.force_login(User.objects.create_superuser(f"adm{player_pk}", "a@example.com", "pw-adm-12345"))
    p = Player.objects.get(pk=player_pk)
    r = c.post(f"/admin/scoreboard/player/{p.pk}/change/",
               {"name": name, "club": p.club or "", "country": "", "photo": ""})
    assert r.status_code == 302, r.content.decode()[:2000]
    return p.pk


async def test_a_player_renamed_in_the_admin_reaches_every_screen_and_feed_without_an_event(db):
    """The names come from the match's config: a player renamed in the admin kept his old name
    on the TV, the overlay and the feeds (a fresh request too, and the feed's ETag stayed) until
    the match was made again. Now his unfinished matches take the new name and are pushed at
    once, same seq; a finished match keeps the name it was played under."""
    from django.test import Client

    from scoreboard.core.matches import create_match
    from scoreboard.core.models import Match, MatchRecord

    created = await sync_to_async(create_match)("Ana Souza", "Bia Lima", first_breaker=0)
    mid = created.match.pk
    done = await sync_to_async(create_match)("Ana Souza", "Caio Rocha", first_breaker=0)
    await sync_to_async(log.append_event)(done.match.pk, {"type": "concede", "player": 1})
    await sync_to_async(Match.objects.filter(pk=done.match.pk).update)(player_a=created.match.player_a)
    await sync_to_async(log.append_event)(mid, {"type": "pot", "balls": [1]})
    feed_url = f"/matches/{mid}/feed.json"
    before = await sync_to_async(lambda: Client().get(feed_url))()
    assert before.json()["player_a"] == "Ana Souza"
    tv, ok, _ = await connect(f"/ws/matches/{mid}/?view=tv")
    feed, ok2, _ = await connect(f"/ws/matches/{mid}/feed/")
    assert ok and ok2
    assert "Ana Souza" in await tv.receive_from(timeout=5)
    await feed.receive_from(timeout=5)
    await sync_to_async(_rename_in_admin)(created.match.player_a_id, "Ana Souza Lima")
    html = await tv.receive_from(timeout=5)
    assert 'data-seq="1"' in html and "Ana Souza Lima" in html
    after = await sync_to_async(lambda: Client().get(feed_url))()
    assert after.json()["player_a"] == "Ana Souza Lima" and after["ETag"] != before["ETag"]
    assert (await sync_to_async(log.snapshot)(mid)).seq == 1  # no event was added
    rec = await sync_to_async(lambda: MatchRecord.objects.filter(match_id=mid, kind="rename").first())()
    assert rec is not None and rec.data["from"] == "Ana Souza" and rec.data["to"] == "Ana Souza Lima"
    # the finished match keeps the name it was played under
    old = await sync_to_async(lambda: Match.objects.get(pk=done.match.pk).config["players"])()
    assert old == ["Ana Souza", "Caio Rocha"]
    for c in (tv, feed):
        await c.disconnect()
