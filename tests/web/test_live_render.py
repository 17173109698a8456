"""``live/render.py``: what a change renders for the live pages, as the sockets receive it."""
from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from scoreboard.core import log

from ws_helpers import connect, match_id  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]


async def test_the_retorno_banner_follows_the_engine_not_the_last_event(match_id):
    """FALTA E RETORNO shows during the replay (Art. 25.5) and again after a pot is undone back to
    that very position; it is gone once the replayed stroke is played."""
    tv, ok, _ = await connect(f"/ws/matches/{match_id}/?view=tv")
    assert ok
    await tv.receive_from(timeout=5)
    for ev in ({"type": "foul", "ball": 1, "retorno": True}, {"type": "decision", "choice": "retorno"}):
        await sync_to_async(log.append_event)(match_id, ev)
        await tv.receive_from(timeout=5)
    await sync_to_async(log.append_event)(match_id, {"type": "pot", "balls": [1]})
    assert "FALTA E RETORNO" not in await tv.receive_from(timeout=5)
    await sync_to_async(log.append_event)(match_id, {"type": "undo"})
    assert "FALTA E RETORNO" in await tv.receive_from(timeout=5)
    await tv.disconnect()
