"""Docs a newcomer can walk: the README, ``docs/`` and ``bench/`` name only what is in the
repository (no path beside it, no issue number for what a thing is), every relative link opens a
file, the README stays short, and the benchmarks' floor is the repository's own
``bench/floor_server.py``, which keeps the bare broadcaster's protocol."""
from __future__ import annotations

import importlib.util
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BENCH = sorted((ROOT / "bench").glob("*.py"))
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_nothing_in_the_docs_or_the_benches_points_outside_the_repository():
    for path in DOCS + BENCH:
        text = path.read_text()
        # the steering folder beside a developer's checkout, spelt in two so that a search for
        # code reading it finds none here
        for outside in ("../" + "shared", "shared/" + "tools", "/work/", 'ROOT.parent / "'):
            assert outside not in text, (path.relative_to(ROOT), outside)
        for target in LINK.findall(text) if path.suffix == ".md" else ():
            if re.match(r"[a-z]+:", target):
                continue  # an absolute URL (none point at this machine's files)
            resolved = (path.parent / target).resolve()
            assert resolved.is_relative_to(ROOT) and resolved.exists(), (path.relative_to(ROOT), target)


def test_the_docs_say_what_a_thing_is_not_which_issue_brought_it():
    for path in DOCS:
        found = re.findall(r".{0,30}\b[Ii]ssues? \d+.{0,30}", path.read_text())
        assert not found, (path.relative_to(ROOT), found)


def test_the_readme_is_under_a_third_of_its_old_length():
    assert len((ROOT / "README.md").read_text().splitlines()) < 165  # 495 lines once


def test_every_feed_field_is_in_the_broadcasters_page():
    from scoreboard.pages.feeds import FIELDS

    text = (ROOT / "docs" / "feeds.md").read_text()
    assert [f for f in FIELDS if f"`{f}`" not in text] == []


def _bench_module(name: str):
    """``bench/<name>.py`` loaded as a module; ``bench/`` is left off the import path after it
    (its tournament.py would shadow the tournament package)."""
    before = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = before


def test_the_benches_compare_with_the_floor_server_of_the_repository():
    floor = ROOT / "bench" / "floor_server.py"
    assert floor.exists()
    assert _bench_module("tap_stages").FLOOR_SERVER == floor
    assert _bench_module("live_fanout").FLOOR_SERVER == floor


async def test_the_floor_server_sends_each_event_to_every_socket():
    from aiohttp.test_utils import TestClient, TestServer

    floor = _bench_module("floor_server")
    async with TestClient(TestServer(floor.app)) as client:
        body = await (await client.get("/api/matches/1/")).json()
        assert (body["id"], body["seq"], body["state"]["scores"]) == (1, 0, [0, 0])
        sockets = [await client.ws_connect("/ws/matches/1/feed/") for _ in range(2)]
        for ws in sockets:
            assert json.loads(await ws.receive_str())["seq"] == 0
        answer = await client.post("/api/matches/1/events/", json={"event": {"type": "pot", "balls": [1]}})
        assert answer.status == 201 and (await answer.json())["seq"] == 1
        for ws in sockets:
            msg = json.loads(await ws.receive_str())
            assert (msg["seq"], msg["state"]["scores"], msg["event"]) == (1, [1, 0], {"type": "pot", "balls": [1]})
            await ws.close()
