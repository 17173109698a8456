"""Issue 18 audit, item 2: the phone hub's first load is at most 150 KB on the wire at scale,
measured without a browser: a 128-entrant event (32 groups of four, then a 64-player knockout:
255 matches), the hub page as the server sends it (gzip), every static file and image it
names as a deployment serves them (precompressed by ``collectstatic``; gzip level 9 here, brotli
is smaller), and the board socket's first message. Before: the HTML went uncompressed, the socket
sent the whole board again on connect, and a player's page loaded the photo as uploaded (up to
2 MB). Figures are printed for docs/hub.md."""
from __future__ import annotations

import asyncio
import gzip
import html as html_mod
import io
import re

import pytest
from asgiref.sync import sync_to_async
from django.contrib.staticfiles import finders
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from scoreboard.core.competitions import create_competition
from scoreboard.core.models import Player
from scoreboard.live.hub import hub

from ws_helpers import connect

pytestmark = [pytest.mark.django_db(transaction=True)]

LIMIT = 150 * 1024
FIRST = ["Igor", "Ana", "Bia", "Caio", "Davi", "Maria Eduarda", "Fábio", "Gil", "Hugo", "Kátia", "Luís Otávio",
         "Otávio", "Rafaela", "Sérgio", "Tânia", "Wagner"]
LAST = ["Martins de Albuquerque", "Souza", "Lima", "Rocha", "Nunes", "Fonseca", "Reis", "Matos"]
EVENT = {"name": "Aberto Paulista de Sinuca · Etapa de Santos", "reds": 6, "draw_seed": 128,
         "players": [f"{FIRST[i % 16]} {LAST[i // 16]}" for i in range(128)],
         "tables": [f"Mesa {i}" for i in range(1, 9)],
         "stages": [{"format": "round_robin_groups", "groups": 32, "frames_to_win": 2, "qualify": 2},
                    {"format": "knockout", "frames_to_win": 3}]}


def photo(w: int = 1600, h: int = 2000) -> SimpleUploadedFile:
    """A camera-like JPEG of about 1 MB (noise compresses badly, as a real face does not)."""
    import os

    from PIL import Image

    img = Image.frombytes("RGB", (w, h), os.urandom(w * h * 3)).resize((w, h))
    out = io.BytesIO()
    img.save(out, "JPEG", quality=70)
    return SimpleUploadedFile("rosto.jpg", out.getvalue(), content_type="image/jpeg")


def head_bytes(resp) -> int:
    """The response's status line and headers as HTTP/1.1 writes them."""
    return len(f"HTTP/1.1 {resp.status_code} OK\r\n") + sum(len(k) + len(v) + 4 for k, v in resp.items()) + 2


def body(resp) -> bytes:
    return b"".join(resp.streaming_content) if resp.streaming else resp.content


def weigh(client: Client, path: str) -> tuple[int, dict, str]:
    """``(bytes on the wire, {url: bytes}, page text)`` of a page and everything it names."""
    resp = client.get(path, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert resp.status_code == 200 and resp["Content-Encoding"] == "gzip", path
    raw = body(resp)
    text = gzip.decompress(raw).decode()
    parts = {path: head_bytes(resp) + len(raw)}
    for url in sorted(set(re.findall(r'(?:src|href)="(/(?:static|media)/[^"]+)"', text))):
        if url.startswith("/static/"):
            data = open(finders.find(url[len("/static/"):]), "rb").read()
            packed = gzip.compress(data, 9)
            parts[url] = 200 + min(len(data), len(packed))  # the smaller of plain and gzip, 200 B of headers
        else:
            r = client.get(url)
            assert r.status_code == 200, url
            parts[url] = head_bytes(r) + len(body(r))
    return sum(parts.values()), parts, text


async def first_message(path: str) -> int:
    """Bytes of the board socket's first message on connect (0: none, the page holds the board)."""
    skipped = hub.stats.get("board_first_skipped", 0)
    comm, ok, _ = await connect(path)
    assert ok
    loop = asyncio.get_running_loop()
    end = loop.time() + 15
    while True:  # wait for the socket's first send, or for the hub to say it skipped it
        if not comm.output_queue.empty():
            size = len((await comm.receive_output())["text"].encode())
            break
        if hub.stats.get("board_first_skipped", 0) > skipped:
            size = 0
            break
        assert loop.time() < end, "neither a board nor a skip"
        await asyncio.sleep(0.01)
    await comm.disconnect()
    return size


def socket_of(text: str) -> str:
    return html_mod.unescape(re.search(r'data-board-ws="([^"]+)"', text).group(1))


async def test_the_hub_and_a_player_s_page_of_a_128_entrant_event_weigh_under_150_kb():
    comp = (await sync_to_async(create_competition)(EVENT)).competition
    me = await sync_to_async(Player.objects.get)(name=EVENT["players"][0])
    me.photo = photo()
    await sync_to_async(me.save)()
    assert me.photo.size > 300 * 1024 and me.photo_thumb.size < 30 * 1024, (me.photo.size, me.photo_thumb.size)
    client = Client()
    figures = {}
    for name, path in (("hub", f"/competitions/{comp.pk}/?view=tables"),
                       ("hub-bracket-en", f"/competitions/{comp.pk}/?view=bracket&lang=en"),
                       ("player", f"/competitions/{comp.pk}/players/1/")):
        total, parts, text = await sync_to_async(weigh)(client, path)
        ws = socket_of(text)
        first = await first_message(ws)
        # the same page's socket had the board changed in between: the board comes whole
        stale = await first_message(re.sub(r"have=[0-9a-f]+", "have=0000000000000000", ws))
        figures[name] = (total, first, stale, parts)
        print(f"{name}: {total} B on the wire ({', '.join(f'{u}: {b}' for u, b in parts.items())});"
              f" socket's first message {first} B (board changed since the load: {stale} B)")
        assert first == 0, (name, first)
        assert total + first <= LIMIT, (name, total, parts)
    # the player's page shows the thumbnail, not the upload
    assert me.photo_thumb.url in figures["player"][3] and me.photo.url not in figures["player"][3]
    raw = len((await sync_to_async(client.get)(f"/competitions/{comp.pk}/")).content)
    print(f"hub HTML uncompressed: {raw} B; board pushed whole: {figures['hub'][2]} B")


def test_public_pages_are_compressed_and_the_referee_s_are_not(created, referee_client, admin_client):
    """Only the public pages: the referee's and the desk's carry a CSRF token or a session's
    secrets beside what a visitor puts in the address (BREACH)."""
    c = Client()
    mid = created.match.pk
    for path in ("/", "/tv/", f"/matches/{mid}/", f"/matches/{mid}/tv/", f"/matches/{mid}/overlay/", "/display/"):
        r = c.get(path, HTTP_ACCEPT_ENCODING="gzip")
        assert r.status_code == 200 and r["Content-Encoding"] == "gzip" and "Accept-Encoding" in r["Vary"], path
        assert not c.get(path).has_header("Content-Encoding"), path  # a client that does not accept it
    referee = referee_client.get(f"/matches/{mid}/referee/", HTTP_ACCEPT_ENCODING="gzip")
    assert referee.status_code == 200 and not referee.has_header("Content-Encoding")
    for path in ("/admin/", "/admin/login/"):
        assert not c.get(path, HTTP_ACCEPT_ENCODING="gzip").has_header("Content-Encoding"), path
    assert not admin_client.get("/admin/", HTTP_ACCEPT_ENCODING="gzip").has_header("Content-Encoding")


def test_a_photo_gets_a_thumbnail_at_upload_and_loses_it_with_the_photo(admin_client, settings, tmp_path):
    """Through the admin's form, as an organiser uploads it: a 1600×2000 JPEG of about 1 MB gets
    a WebP of at most 320 px; removing the photo removes the thumbnail."""
    from PIL import Image

    settings.MEDIA_ROOT = tmp_path
    r = admin_client.post("/admin/scoreboard/player/add/", {"name": "Rafaela Souza", "club": "", "country": "",
                                                           "photo": photo()})
    assert r.status_code == 302, r.content.decode()[:2000]
    p = Player.objects.get(name="Rafaela Souza")
    with Image.open(p.photo_thumb.path) as t:
        assert t.format == "WEBP" and max(t.size) == 320 and t.size == (256, 320), t.size
    assert p.photo_small_url == p.photo_thumb.url and p.photo_thumb.size < 30 * 1024
    r = admin_client.post(f"/admin/scoreboard/player/{p.pk}/change/", {"name": "Rafaela Souza", "club": "",
                                                                      "country": "", "photo-clear": "on"})
    assert r.status_code == 302
    p.refresh_from_db()
    assert not p.photo and not p.photo_thumb and p.photo_small_url == ""
