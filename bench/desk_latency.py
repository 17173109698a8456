"""Benchmark: the desk and the venue updated after the tap that ends a match (issue 17, target ≤ 1 s).

A 128-entrant, 16-table competition (32 CBBS double-elimination groups of 4, then a knockout)
is created in a scratch database; one Daphne worker serves it (``--workers 2``: two, over
PostgreSQL and Redis; the referee's POSTs and the venue's socket go to the first, the desk's and
the tables' sockets to the second, so every push crosses the channel layer). The staff desk's
socket (``/ws/boards/?view=desk-<id>``, logged in as staff), the venue's (``view=venue``) and
each table's follow board (``view=table-<id>``: what its tablet and TV open) are connected. Then, for ``--matches`` of the called matches, through the API with that match's
referee token: the lot, then (once the screens have taken it) the concession that ends the
match, which runs the result's effect (standings, the dependent matches, the freed table
called). For each, it prints the time from the concession's POST being sent to:

* the POST's answer (201), beside the POSTs of the taps played before it in the same frame
  (``--mid`` pots per match, each after the same pause): p50 and p99 of each, and their ratio (the
  result's effect runs after the match's locks, out of the referee's request: target p99 within
  1.2× of a mid-frame tap's);
* the desk's first message after it that shows the result, and the venue's;
* the desk's first message that shows the freed table's next match called there, and the
  freed table's follow board telling its tablet to open it; the latest of all four is the
  result's effect (standings, bracket and next call stored, every board pushed; target ≤ 1 s).

Run: .venv/bin/python bench/desk_latency.py [--matches 20] [--mid 4] [--workers 2]
(SQLite in a temporary directory unless DATABASE_URL is set: use a database of your own.)
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import httpx

ROOT = pathlib.Path(__file__).resolve().parents[1]
PY = sys.executable
sys.path.insert(0, str(ROOT / "bench"))
from wsclient import open_feed  # noqa: E402

SETUP = r"""
import json, sys
import django
django.setup()
from django.contrib.auth.models import User
from django.test import Client
from scoreboard.core import competitions, operations
from scoreboard.core.models import Match

data = {"name": "Bench", "reds": 6, "draw_seed": 2026,
        "players": [{"name": f"Jogador {i}", "club": f"Clube {i % 9}"} for i in range(1, 129)],
        "tables": [f"Mesa {i}" for i in range(1, 17)], "rest_minutes": 0,
        "stages": [{"format": "double_elimination_groups", "groups": 32, "frames_to_win": 1, "qualify": 2},
                   {"format": "knockout", "frames_to_win": 1}]}
comp = competitions.create_competition(data).competition
User.objects.create_superuser("bench", "b@example.com", "bench-pass-123")
c = Client()
c.force_login(User.objects.get(username="bench"))
tokens = {m.pk: operations.issue_token(m, "bench")
          for m in Match.objects.filter(fixture__competition=comp).order_by("pk")}
from scoreboard.core.models import Table
tables = dict(Table.objects.filter(name__in=data["tables"]).values_list("name", "pk"))
print(json.dumps({"competition": comp.pk, "session": c.cookies["sessionid"].value, "tokens": tokens,
                  "tables": tables}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def open_with_cookie(port: int, path: str, cookie: str):
    """``open_feed`` with a session cookie (the desk is for staff only)."""
    import wsclient

    class CookieFeed(wsclient.Feed):
        def connection_made(self, tr) -> None:
            real = tr.write
            tr.write = lambda data: real(data.replace(b"\r\n\r\n", f"\r\nCookie: sessionid={cookie}\r\n\r\n".encode(), 1))
            super().connection_made(tr)
            tr.write = real

    loop = asyncio.get_running_loop()
    _, feed = await loop.create_connection(lambda: CookieFeed("127.0.0.1", path), "127.0.0.1", port)
    await asyncio.wait_for(feed.first, 30)
    return feed


async def first_after(feed, t0: float, need, timeout: float = 10.0) -> float | None:
    """Seconds from ``t0`` to the first message of ``feed`` received after it that contains
    ``need`` (a string; or a predicate on the raw bytes) (None if none came within ``timeout``)."""
    test = need if callable(need) else (lambda raw: need.encode() in raw)
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        for t, raw in feed.msgs:
            if t >= t0 and test(raw):
                return t - t0
        await asyncio.sleep(0.005)
    return None


def called_on(table: str, name: str):
    """A predicate: the desk's message shows ``table`` called, with ``name`` in its match."""
    head = f'class="desk-table st-called" data-table="{table}">'.encode()

    def test(raw: bytes) -> bool:
        i = raw.find(head)
        return i >= 0 and name.encode() in raw[i:raw.find(b"</article>", i)]
    return test


def follows(match_id: int):
    """A predicate: a table's follow board (JSON) tells its tablet to open ``match_id``."""
    return lambda raw: f'"tablet": {match_id}'.encode() in raw


async def run(args, ports: list[int], setup: dict) -> None:
    """The referee's POSTs and the venue's socket on the first worker; the desk's socket and
    the tables' follow boards (what each table's tablet and TV follow) on the last one, so with
    two workers every push they wait for crossed the channel layer."""
    cid, tokens = setup["competition"], setup["tokens"]
    port, far = ports[0], ports[-1]
    desk = await open_with_cookie(far, f"/ws/boards/?view=desk-{cid}&lang=pt-br", setup["session"])
    venue = await open_feed("127.0.0.1", port, "/ws/boards/?view=venue&lang=pt-br")
    follow = {name: await open_feed("127.0.0.1", far, f"/ws/boards/?view=table-{pk}")
              for name, pk in setup["tables"].items()}
    base = f"http://127.0.0.1:{port}"
    post, mid_post, to_desk, to_venue, to_call, to_tablet, effect = [], [], [], [], [], [], []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for _ in range(args.matches):
            comp = (await http.get(f"/api/competitions/{cid}/")).json()
            called = [m for s in comp["stages"] for m in s["matches"]
                      if m.get("status") == "called" and m.get("match")]
            if not called:
                break
            m = called[0]
            mid, auth = m["match"], {"Authorization": f"Bearer {tokens[str(m['match'])]}"}
            r = await http.post(f"/api/matches/{mid}/events/", json={"event": {"type": "lot", "player": 0}},
                                headers=auth)
            assert r.status_code == 201, r.text
            await asyncio.sleep(0.5)  # the lot's own pushes go out first: they are not measured
            for i in range(args.mid):  # mid-frame taps: a red, then the black (6 reds)
                await asyncio.sleep(0.3)
                t1 = time.perf_counter()
                r = await http.post(f"/api/matches/{mid}/events/",
                                    json={"event": {"type": "pot", "balls": [1] if i % 2 == 0 else [7]}}, headers=auth)
                mid_post.append(time.perf_counter() - t1)
                assert r.status_code == 201, r.text
            await asyncio.sleep(0.3)
            winner = m["players"][0]
            t0 = time.perf_counter()
            r = await http.post(f"/api/matches/{mid}/events/",
                                json={"event": {"type": "concede", "player": 1}}, headers=auth)
            post.append(time.perf_counter() - t0)
            assert r.status_code == 201, r.text
            # the result is on the desk (the winner's line) and in the venue's results
            d = await first_after(desk, t0, winner)
            v = await first_after(venue, t0, winner)
            to_desk.append(d if d is not None else float("inf"))
            to_venue.append(v if v is not None else float("inf"))
            # the match the queue called to the freed table, and when the desk showed it
            after = (await http.get(f"/api/competitions/{cid}/")).json()
            nxt = [x for s in after["stages"] for x in s["matches"]
                   if x.get("status") == "called" and x.get("table") == m["table"] and x["number"] != m["number"]]
            if nxt:
                c = await first_after(desk, t0, called_on(m["table"], nxt[0]["players"][0]))
                to_call.append(c if c is not None else float("inf"))
                tb = await first_after(follow[m["table"]], t0, follows(nxt[0]["match"]))
                to_tablet.append(tb if tb is not None else float("inf"))
                # the result's effect: stored (the desk shows the next call) and every board pushed
                effect.append(max(to_desk[-1], to_venue[-1], to_call[-1], to_tablet[-1]))
    for f in (desk, venue, *follow.values()):
        f.tr.close()

    def fig(xs):
        xs = sorted(xs)
        return (f"median {statistics.median(xs) * 1000:.0f} ms, worst {xs[-1] * 1000:.0f} ms "
                f"(≤ 1 s: {sum(x <= 1 for x in xs)}/{len(xs)})")
    db = "PostgreSQL + Redis" if "postgres" in os.environ.get("DATABASE_URL", "") else "SQLite"
    print(f"{len(post)} matches ended by the API, {len(ports)} Daphne worker{'s' if len(ports) > 1 else ''}, {db}:")
    print(f"  the ending tap's POST answered: {fig(post)}")

    def pct(xs, q):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] * 1000
    if mid_post:
        print(f"  POST p50 / p99: the ending tap {pct(post, .5):.1f} / {pct(post, .99):.1f} ms ({len(post)}), "
              f"a mid-frame tap {pct(mid_post, .5):.1f} / {pct(mid_post, .99):.1f} ms ({len(mid_post)}); "
              f"p99 ratio {pct(post, .99) / pct(mid_post, .99):.2f}x (target ≤ 1.2x)")
    print(f"  the desk shows the result:      {fig(to_desk)}")
    print(f"  the venue shows the result:     {fig(to_venue)}")
    if to_call:
        print(f"  the desk shows the next call:   {fig(to_call)}")
        print(f"  the table's tablet follows it:  {fig(to_tablet)}")
        print(f"  a result's effect (stored, every board above pushed): {fig(effect)} (target ≤ 1 s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--mid", type=int, default=4, help="mid-frame taps timed per match before its last")
    ap.add_argument("--workers", type=int, default=1,
                    help="Daphne workers (more than one needs DATABASE_URL on PostgreSQL and REDIS_URL)")
    args = ap.parse_args()
    if args.workers > 1 and not ("postgres" in os.environ.get("DATABASE_URL", "") and os.environ.get("REDIS_URL")):
        sys.exit("--workers 2 needs DATABASE_URL (PostgreSQL) and REDIS_URL: the workers share them")
    tmp = tempfile.mkdtemp(prefix="bench-desk-")
    env = dict(os.environ, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="bench-" + uuid.uuid4().hex, DJANGO_ALLOWED_HOSTS="127.0.0.1",
               LIVE_SOCKETS_PER_CLIENT="0", DJANGO_SETTINGS_MODULE="scoreboard.settings")
    env.setdefault("DATABASE_URL", f"sqlite:///{tmp}/db.sqlite3")
    env.pop("REDIS_URL", None) if "postgres" not in env["DATABASE_URL"] else None
    def run_(*a):
        p = subprocess.run([PY, *a], cwd=ROOT, env=env, capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"{a[0]} failed:\n{p.stderr[-3000:]}")
        return p
    procs = []
    try:
        run_("manage.py", "migrate", "--noinput")
        run_("manage.py", "collectstatic", "--noinput")
        t0 = time.perf_counter()
        setup = json.loads(run_("-c", SETUP).stdout.strip().splitlines()[-1])
        print(f"set-up (createcompetition, 128 entrants, 16 tables, tokens): {time.perf_counter() - t0:.1f} s")
        ports = [free_port() for _ in range(args.workers)]
        for i, port in enumerate(ports):
            procs.append(subprocess.Popen(
                [PY, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "scoreboard.asgi:application"],
                cwd=ROOT, env=env, stdout=open(f"{tmp}/daphne-{i}.log", "w"),
                stderr=subprocess.STDOUT, start_new_session=True))
        for port in ports:
            for _ in range(150):
                try:
                    httpx.get(f"http://127.0.0.1:{port}/api/live/", timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
        asyncio.run(run(args, ports, setup))
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
