"""``live/boards.py`` and the hub's board sockets: the venue and the jumbotron get the board on
connect, then again after a change (a tap, or a match scheduled or started in the admin, which no
event announces), in the socket's language; a spectator cannot write."""
from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from scoreboard.core import log
from scoreboard.core.matches import new_match
from scoreboard.core.models import Match
from scoreboard.live.hub import hub

from ws_helpers import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]
CONFIG = {"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 1, "first_breaker": 0}


async def next_board(comm, want: str, timeout: float = 5.0) -> str:
    """The next board message containing ``want`` (boards may be re-sent meanwhile)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        html = await comm.receive_from(timeout=max(0.1, end - loop.time()))
        if want in html:
            return html


async def test_board_on_connect_then_after_a_tap_in_its_language():
    m = await sync_to_async(new_match)(CONFIG, table="Mesa 1")
    venue, ok, _ = await connect("/ws/boards/?view=venue&lang=en")
    jumbo, ok2, _ = await connect("/ws/boards/?view=jumbotron&lang=pt-br")
    assert ok and ok2
    first = await venue.receive_from(timeout=5)
    assert first.lstrip().startswith('<main id="venue-board"') and "In progress" in first
    assert (await jumbo.receive_from(timeout=5)).lstrip().startswith('<main id="jumbo-grid"')
    await sync_to_async(log.append_event)(m.pk, {"type": "pot", "balls": [1]})
    html = await next_board(venue, 'class="mc-score">1<')
    assert "At the table: Ana Souza" in html
    html = await next_board(jumbo, 'class="jt-score">1<')
    assert "Tacada 1" in html
    await venue.disconnect()
    await jumbo.disconnect()


async def test_a_match_started_in_the_admin_appears_without_any_event():
    later = await sync_to_async(new_match)({**CONFIG, "players": ["Caio", "Davi"]}, table="Mesa 2", started=False)
    venue, ok, _ = await connect("/ws/boards/?view=venue")
    first = await venue.receive_from(timeout=5)
    assert "Nenhum jogo em andamento" in first and "Caio × Davi" in first  # up next
    await sync_to_async(Match.objects.filter(pk=later.pk).update)(started_at=timezone.now())
    html = await next_board(venue, f'data-match="{later.pk}"', timeout=5)
    assert "Em andamento" in html and "(1)" in html
    await venue.disconnect()


async def test_one_render_per_burst_and_read_only():
    m = await sync_to_async(new_match)(CONFIG, table="Mesa 1")
    socks = [await connect("/ws/boards/?view=venue") for _ in range(3)]
    for comm, ok, _ in socks:
        assert ok
        await comm.receive_from(timeout=5)
    before = hub.stats.get("board_renders", 0)
    for i in range(3):
        await sync_to_async(log.append_event)(m.pk, {"type": "pot", "balls": [1] if i % 2 == 0 else [7]})
    for comm, _, _ in socks:
        await next_board(comm, 'class="mc-score">9<')
    assert hub.stats.get("board_renders", 0) - before <= 2  # three taps in a burst: one or two renders
    comm = socks[0][0]
    await comm.send_to(text_data=json.dumps({"x": 1}))
    out = await comm.receive_output(timeout=5)
    while out["type"] != "websocket.close":
        out = await comm.receive_output(timeout=5)
    assert out["code"] == 4400
    for c, _, _ in socks[1:]:
        await c.disconnect()


async def test_event_hub_and_player_boards_are_pushed_on_the_board_socket():
    """Issue 18: the hub of a competition and a player's page ride the same board socket; a
    match ending there reaches both, in the socket's language."""
    from scoreboard.core import competitions, operations

    event = {"name": "Etapa", "reds": 6, "draw_seed": 1, "players": ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"],
             "tables": ["Mesa 1", "Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}]}
    comp = (await sync_to_async(competitions.create_competition)(event)).competition
    m = await sync_to_async(Match.objects.select_related("player_a", "player_b").get)(
        fixture__competition=comp, fixture__number=1)
    entry = await sync_to_async(lambda: comp.entries.get(player=m.player_a).number)()
    hub_ws, ok, _ = await connect(f"/ws/boards/?view=hub-{comp.pk}&lang=en")
    player_ws, ok2, _ = await connect(f"/ws/boards/?view=player-{comp.pk}-{entry}&lang=pt-br")
    assert ok and ok2
    first = await hub_ws.receive_from(timeout=5)
    assert first.startswith('<main id="hub-board"') and "Tables now" in first and "called · Table 1" in first
    assert (await player_ws.receive_from(timeout=5)).startswith('<main id="player-board"')
    await sync_to_async(operations.issue_token)(m, "t")
    await sync_to_async(log.append_event)(m.pk, {"type": "lot", "player": 0})
    await sync_to_async(log.append_event)(m.pk, {"type": "concede", "player": 1})
    html = await next_board(hub_ws, 'id="r-M1"', timeout=10)
    row = html.split('id="r-M1"')[1].split("</li>")[0]
    assert m.player_a.name in row and m.player_b.name in row and "1 × 0" in row
    html = await next_board(player_ws, "Vitórias: 1", timeout=10)
    assert "Derrotas: 0" in html
    await hub_ws.disconnect()
    await player_ws.disconnect()


async def test_a_players_page_is_rendered_only_for_changes_of_its_competition(monkeypatch):
    """Issue 18: a player's page shows one competition; a tap in another match does not render
    it again, a tap in one of its competition's matches does (and reaches the socket)."""
    from scoreboard.core import competitions, operations
    from scoreboard.live import boards

    event = {"name": "Etapa", "reds": 6, "draw_seed": 1, "players": ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"],
             "tables": ["Mesa 1", "Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}]}
    comp = (await sync_to_async(competitions.create_competition)(event)).competition
    m = await sync_to_async(Match.objects.select_related("player_a").get)(fixture__competition=comp, fixture__number=1)
    entry = await sync_to_async(lambda: comp.entries.get(player=m.player_a).number)()
    other = await sync_to_async(new_match)({**CONFIG, "players": ["Edu Reis", "Fabi Luz"]}, table="Mesa 9")
    kind = f"player-{comp.pk}-{entry}"
    rendered: list[str] = []
    real = boards.render_board
    monkeypatch.setattr(boards, "render_board", lambda k, lang: (rendered.append(k), real(k, lang))[1])
    player_ws, ok, _ = await connect(f"/ws/boards/?view={kind}&lang=pt-br")
    venue, ok2, _ = await connect("/ws/boards/?view=venue")
    assert ok and ok2
    assert (await player_ws.receive_from(timeout=5)).startswith('<main id="player-board"')
    await venue.receive_from(timeout=5)
    await sync_to_async(log.append_event)(other.pk, {"type": "pot", "balls": [1]})
    await next_board(venue, 'class="mc-score">1<')  # the refresh of that tap has run
    assert rendered.count(kind) == 1, rendered  # only its first render, on connect
    await sync_to_async(operations.issue_token)(m, "t")
    await sync_to_async(log.append_event)(m.pk, {"type": "lot", "player": 0})
    await sync_to_async(log.append_event)(m.pk, {"type": "concede", "player": 1})
    html = await next_board(player_ws, "Vitórias: 1", timeout=10)
    assert "Derrotas: 0" in html and rendered.count(kind) >= 2
    # the result's effect runs in the hub's loop, after the tap: the test ends once it has run
    # (its thread's connection given back), not while it still works
    from scoreboard.core.models import Competition

    for _ in range(600):
        if not await sync_to_async(Competition.objects.filter(pk=comp.pk, due_at__isnull=False).exists)():
            break
        await asyncio.sleep(0.05)
    assert (await sync_to_async(Competition.objects.get)(pk=comp.pk)).due_at is None
    await player_ws.disconnect()
    await venue.disconnect()


async def test_a_board_that_comes_out_the_same_is_not_sent_again(monkeypatch):
    """A refresh whose text for a board equals the text its sockets were last sent sends
    nothing (a venue TV does not redraw for a tap it does not show)."""
    from scoreboard.live import boards
    from scoreboard.live.hub.board_sockets import BoardSockets
    from scoreboard.live.hub.registry import Sink

    texts = iter(["<main>1</main>", "<main>1</main>", "<main>2</main>", "<main>2</main>"])
    monkeypatch.setattr(boards, "fingerprint", lambda: (1,))
    monkeypatch.setattr(boards, "render_board", lambda kind, lang: next(texts))
    sent: list[str] = []

    async def send(msg):
        sent.append(msg["text"])

    socks = BoardSockets({})
    await socks.open(Sink(0, "venue:pt-br", send))
    for _ in range(3):
        await socks.refresh()
    assert sent == ["<main>1</main>", "<main>2</main>"]


async def test_a_board_the_page_printed_is_not_sent_again_on_connect():
    """Audit (issue 18, first load ≤ 150 KB): the board socket sent the whole board on connect,
    the page's weight again. The page now puts the digest of the board it printed in the socket's
    address (``&have=``): while the board is still that one the socket sends nothing on connect,
    and its first message is the next change; a page whose board changed meanwhile gets the
    board at once."""
    import html as html_mod
    import re

    from django.test import Client

    from scoreboard.core import competitions, operations
    from scoreboard.core.models import Table
    from scoreboard.live import boards

    event = {"name": "Etapa", "reds": 6, "draw_seed": 1, "players": ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"],
             "tables": ["Mesa 1", "Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 2}]}
    comp = (await sync_to_async(competitions.create_competition)(event)).competition
    m = await sync_to_async(Match.objects.select_related("player_a").get)(fixture__competition=comp, fixture__number=1)
    entry = await sync_to_async(lambda: comp.entries.get(player=m.player_a).number)()
    t2 = await sync_to_async(Table.objects.get)(name="Mesa 2")
    await sync_to_async(operations.issue_token)(m, "t")
    await sync_to_async(log.append_event)(m.pk, {"type": "lot", "player": 0})
    skipped0 = hub.stats.get("board_first_skipped", 0)
    pages = [f"/competitions/{comp.pk}/", f"/competitions/{comp.pk}/players/{entry}/?lang=en", "/tv/",
             f"/tv/?comp={comp.pk}", "/", f"/tables/{t2.pk}/graphics/"]
    socks = []
    for path in pages:
        page = (await sync_to_async(Client().get)(path)).content.decode()
        ws = html_mod.unescape(re.search(r'data-board-ws="([^"]+)"', page).group(1))
        kind, lang, have = re.fullmatch(r"/ws/boards/\?view=([\w-]+)&lang=([\w-]+)&have=([0-9a-f]{16})", ws).groups()
        pushed = await sync_to_async(boards.render_board)(kind, lang)
        assert have == boards.digest(pushed) and pushed in page, path  # the page printed the pushed board
        comm, ok, _ = await connect(ws)
        assert ok
        socks.append((path, comm, pushed))
    # a stale digest: the board comes at once
    stale, ok, _ = await connect(f"/ws/boards/?view=hub-{comp.pk}&lang=pt-br&have=0123456789abcdef")
    assert ok and (await stale.receive_from(timeout=5)).startswith('<main id="hub-board"')
    # every page's socket skipped its first send (waited for, not slept on)
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while hub.stats.get("board_first_skipped", 0) - skipped0 < len(pages) and loop.time() < end:
        await asyncio.sleep(0.01)
    await sync_to_async(log.append_event)(m.pk, {"type": "concede", "player": 1})  # frame 1: 1–0
    for path, comm, before in socks:
        if "graphics" in path:
            continue  # nothing switched on: the frame changes nothing it shows, so nothing comes
        first = await comm.receive_from(timeout=10)
        # the first message is the board after the frame, not the one the page printed
        assert first != before and first[:20] == before[:20], (path, first[:200])
    assert hub.stats.get("board_first_skipped", 0) - skipped0 == len(pages)
    for _, comm, _ in socks:
        await comm.disconnect()
    await stale.disconnect()
