"""The tablet reports its state over its referee socket (``core.tablets``) and the desk shows
it; the desk's board socket is for staff only and is pushed when a desk action or a tablet
report changes it."""
from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from scoreboard.core import tablets

from ws_helpers import ORIGIN, connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]


def _session(url: str | None = None, staff: bool = False) -> str:
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client

    c = Client()
    if staff:
        user = User.objects.create_superuser("desk", "d@example.com", "pw-desk-123")
        c.force_login(user)
    else:
        assert c.get(url).status_code == 302
    return c.cookies[settings.SESSION_COOKIE_NAME].value


def _competition() -> int:
    from scoreboard.core.competitions import create_competition

    return create_competition({"name": "Copa", "reds": 6, "draw_seed": 1, "players": ["A1", "B2", "C3", "D4"],
                               "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]}
                              ).competition.pk


async def _until(comm, predicate, timeout=10.0) -> str:
    """The first message of ``comm`` that ``predicate`` accepts (messages before it are skipped)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        text = await comm.receive_from(timeout=max(0.1, end - loop.time()))
        if predicate(text):
            return text


async def test_a_tablet_reports_its_state_and_the_desk_is_pushed():
    from scoreboard.core.models import Match, Table

    cid = await sync_to_async(_competition)()
    m = await sync_to_async(lambda: Match.objects.filter(table__name="Mesa 1").get())()
    from scoreboard.core import tables
    from scoreboard.core.credentials import login_path

    t = await sync_to_async(Table.objects.get)(name="Mesa 1")
    await sync_to_async(tables.set_pin)(t, "135790")
    cred = await sync_to_async(tables.table_credential)(m)
    sid = await sync_to_async(_session)(await sync_to_async(login_path)(cred))
    staff = await sync_to_async(_session)(staff=True)
    # spectators cannot open the desk
    anon, ok, code = await connect(f"/ws/boards/?view=desk-{cid}&lang=pt-br")
    assert not ok and code == 4403
    desk, ok, _ = await connect(f"/ws/boards/?view=desk-{cid}&lang=pt-br",
                                headers=[*ORIGIN, (b"cookie", f"sessionid={staff}".encode())])
    assert ok
    first = await desk.receive_from(timeout=10)
    assert 'id="desk-board"' in first and "nunca conectado" in first
    ref, ok, _ = await connect(f"/ws/matches/{m.pk}/?view=referee",
                               headers=[*ORIGIN, (b"cookie", f"sessionid={sid}".encode())])
    assert ok
    await ref.receive_from(timeout=5)
    await ref.send_to(text_data=json.dumps({"type": "status", "queued": 3, "engine": True, "battery": 0.42,
                                            "charging": False, "state": "offline"}))
    text = await _until(desk, lambda s: "3 na fila" in s)
    assert "on-line" in text and "motor carregado" in text and "bateria 42%" in text
    st = await sync_to_async(tablets.status)(m.pk)
    assert st["queued"] == 3 and st["engine"] is True and st["battery"] == 0.42 and st["online"] is True
    # anything but a status message still closes a referee socket (it scores nothing)
    await ref.send_to(text_data="hello")
    out = await ref.receive_output(timeout=5)
    assert out["type"] == "websocket.close" and out["code"] == 4400
    text = await _until(desk, lambda s: "off-line" in s)
    assert (await sync_to_async(tablets.status)(m.pk))["online"] is False
    await desk.disconnect()


async def test_the_venue_is_pushed_when_the_desk_records_a_walkover():
    from scoreboard.core import competitions
    from scoreboard.core.models import Competition

    cid = await sync_to_async(_competition)()
    venue, ok, _ = await connect("/ws/boards/?view=venue&lang=pt-br")
    assert ok
    first = await venue.receive_from(timeout=10)
    assert "chamado" in first and "Resultados do dia" not in first
    comp = await sync_to_async(Competition.objects.get)(pk=cid)
    await sync_to_async(competitions.walkover)(comp, 1, [1], "desk:test", "não compareceu")
    text = await _until(venue, lambda s: "Resultados do dia" in s)
    assert '<b class="mc-wo">W.O.</b>' in text
    await venue.disconnect()


async def test_taps_held_unsent_on_one_tablet_are_pushed_to_the_matchs_other_tablets():
    """Tablet A's queue stops (a refusal) with 2 taps: tablet B of the same match is told at once
    over its socket, A's id with them (A leaves its own entry out); A letting them go (sent or
    discarded) clears it; a page opened meanwhile shows what is held."""
    from django.test import Client

    from scoreboard.core.credentials import login_path
    from scoreboard.core.matches import create_match
    from scoreboard.core.models import RefereeCredential

    created = await sync_to_async(create_match)("Ana Souza", "Bia Lima", first_breaker=0)
    mid = created.match.pk
    cred = await sync_to_async(RefereeCredential.objects.get)(match_id=mid)
    sessions = [await sync_to_async(_session)(await sync_to_async(login_path)(cred)) for _ in range(2)]
    a, b = [(await connect(f"/ws/matches/{mid}/?view=referee",
                           headers=[*ORIGIN, (b"cookie", f"sessionid={s}".encode())]))[0] for s in sessions]
    await a.receive_from(timeout=5)
    await b.receive_from(timeout=5)
    tablet_a = "tablet-a-0123456789"
    await a.send_to(text_data=json.dumps({"type": "status", "queued": 2, "engine": True, "state": "blocked",
                                          "tablet": tablet_a}))
    text = await _until(b, lambda s: 'id="held-elsewhere"' in s)
    assert json.loads(text.split('data-held="', 1)[1].split('"', 1)[0].replace("&quot;", '"')) == \
        {tablet_a: {"queued": 2, "state": "blocked"}}
    page = await sync_to_async(lambda: Client(HTTP_COOKIE=f"sessionid={sessions[1]}").get(
        f"/matches/{mid}/referee/").content.decode())()
    assert f"{tablet_a}&quot;: {{&quot;queued&quot;: 2" in page
    await a.send_to(text_data=json.dumps({"type": "status", "queued": 0, "engine": True, "state": "idle",
                                          "tablet": tablet_a}))
    text = await _until(b, lambda s: 'id="held-elsewhere"' in s)
    assert 'data-held="{}"' in text
    assert await sync_to_async(tablets.held)(mid) == {}
    await a.disconnect()
    await b.disconnect()
