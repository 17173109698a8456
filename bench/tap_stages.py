"""Benchmark: where a tap's time goes, stage by stage, beside the bare-broadcaster floor.

A referee's tap goes through the app's real path: the POST through the ASGI application (Daphne
on a real socket, or in-process), the view, ``log.append_event``, the commit, the after-commit
render and publish, the hub's delivery to every spectator's JSON feed socket. This script wraps
the app's functions from here (nothing in ``scoreboard/`` is changed for it) and times each
stage of each tap with ``time.perf_counter_ns``:

- ``request``: from the client sending the POST to the view's ``post_event`` (the HTTP request,
  Daphne, the middleware, the database connection and the match row the view reads);
- ``auth``: the bearer token's credential lookup (``access.credential_for_token``);
- ``lock``: waiting for the match's lock in this process (``log.locked``), then the SQL that
  takes the database's lock (SQLite's ``BEGIN IMMEDIATE``, the match row's ``SELECT … FOR
  UPDATE`` on PostgreSQL);
- ``apply``: the rules engine's ``Match.apply``;
- ``insert``: the event's ``INSERT`` and the match's seq ``UPDATE``;
- ``options``: the engine's options for the screens (``log.screen_options``), under the lock;
- ``commit``: the database's ``COMMIT``;
- ``render``: ``render.render_change`` (the page kinds and languages watched, and the feed message);
- ``publish``: from ``Publisher.publish`` (the request's thread) to the hub's
  ``Delivery.deliver`` starting on the event loop: the hand-over to the loop, the channel
  layer's send and its receive;
- ``deliver``: from ``Delivery.deliver`` starting to the message's bytes received by the last
  spectator socket.

Two stages are split further, printed under them: ``request`` into the database connection
(``connect``) and the view's match row (its SQL), ``auth`` into its SQL.

The total is from the client sending the POST to the last socket receiving the message; the
stages are disjoint parts of it, and ``rest`` is what is left (the body's parsing, the Change
and the screens' story built under the lock, leaving the transaction, the thread hops). It
prints per stage the p50 and p99 (ms) and the share of the mean total, the POST's own answer
time, and the SQL statements per tap (sent through Django's cursor in the request's thread;
the COMMIT is not one).

The floor (``floor_server.py``, the bare aiohttp broadcaster: no database, auth or render) runs
in the same process in a thread of its own, as the app does, with the same client, sockets and
taps, in the same run; the ratios compare the tap-to-screen p50 and p99.

SQLite (a fresh file) and the in-memory channel layer by default; PostgreSQL and Redis when
DATABASE_URL and REDIS_URL are set (the database is migrated: give it one of its own).

Run: .venv/bin/python bench/tap_stages.py [--taps 300] [--sockets 20] [--transport daphne|asgi]
"""
from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[1]
FLOOR_SERVER = ROOT / "bench" / "floor_server.py"
STAGES = ("request", "auth", "lock", "apply", "insert", "options", "commit", "render", "publish",
          "deliver")
"""In the order a tap runs them: issue 20's eight, with ``request`` and ``options`` besides."""
ns = time.perf_counter_ns
_SEQ = re.compile(rb'^\{"seq":\s*(\d+)')


def pct(xs: list, p: float) -> float:
    """The ``p``-th percentile of ``xs`` (nearest rank, as ``live_fanout.py``); NaN if empty."""
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


@dataclass
class Tap:
    """One tap's timings in nanoseconds: each stage's time and how many intervals made it (a
    stage that never ran has count 0), the SQL statements' threads, the client's marks."""

    seq: int
    ns: dict = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    counts: dict = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    sql_threads: list = field(default_factory=list)
    view_sql: list = field(default_factory=list)  # (thread, start, ns) of statements outside the write
    connects: list = field(default_factory=list)  # (thread, ns) of database connections opened
    sub: dict = field(default_factory=dict)  # parts of two stages: "connect", "match row", "auth sql"
    view_thread: int | None = None
    marks: dict = field(default_factory=dict)  # "view", "publish", "deliver": when each began (ns)
    t_post: int = 0
    t_answer: int = 0
    t_received: int = 0  # the last socket's receipt

    def add(self, stage: str, d: int) -> None:
        self.ns[stage] += d
        self.counts[stage] += 1

    @property
    def total(self) -> int:
        return self.t_received - self.t_post

    @property
    def answer(self) -> int:
        return self.t_answer - self.t_post

    @property
    def queries(self) -> int:
        """SQL statements of the request's thread (the view's, the write's, the render's)."""
        return sum(1 for t in self.sql_threads if t == self.view_thread)

    def close_marks(self) -> None:
        """Turn the view, publish and deliver marks into the request, publish and deliver
        stages' times."""
        if (view := self.marks.get("view")) is not None:
            self.add("request", view - self.t_post)
            self.sub["connect"] = sum(d for th, d in self.connects if th == self.view_thread)
            self.sub["match row"] = sum(d for th, t, d in self.view_sql if th == self.view_thread and t < view)
        if (auth := self.marks.get("auth")) is not None:
            self.sub["auth sql"] = sum(d for th, t, d in self.view_sql
                                       if th == self.view_thread and auth <= t < auth + self.ns["auth"])
        pub, dlv = self.marks.get("publish"), self.marks.get("deliver")
        if pub is not None and dlv is not None:
            self.add("publish", dlv - pub)
        if dlv is not None and self.t_received:
            self.add("deliver", self.t_received - dlv)


_MISSING = object()


class Probe:
    """Wraps the app's functions to time the stages of the tap in flight (:attr:`tap`; taps go
    one at a time). :meth:`install` patches, :meth:`uninstall` puts the originals back."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.tap: Tap | None = None
        self._undo: list = []
        self._local = threading.local()  # .append: inside append_event; .render: inside the render

    def _patch(self, owner, name: str, new) -> None:
        self._undo.append((owner, name, vars(owner).get(name, _MISSING)))
        setattr(owner, name, new)

    def uninstall(self) -> None:
        """Put back every original, newest first."""
        while self._undo:
            owner, name, old = self._undo.pop()
            if old is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, old)

    def _in_append(self) -> bool:
        return getattr(self._local, "append", False) and not getattr(self._local, "render", False)

    def install(self) -> None:
        """Wrap the functions of each stage (see the module's docstring)."""
        from django.db import connections
        from django.db.backends import utils as dbutils

        import sinuca.engine
        from scoreboard import api
        from scoreboard.core import access, log
        from scoreboard.live import render
        from scoreboard.live.hub.delivery import Delivery
        from scoreboard.live.hub.publisher import Publisher

        probe, local = self, self._local

        orig_cred = access.credential_for_token

        def credential_for_token(token):
            t = ns()
            try:
                return orig_cred(token)
            finally:
                if (tap := probe.tap) is not None:
                    tap.add("auth", ns() - t)
                    tap.view_thread = threading.get_ident()
                    tap.marks["auth"] = t

        self._patch(access, "credential_for_token", credential_for_token)

        orig_post_event = api.post_event

        def post_event(request, match):
            if (tap := probe.tap) is not None and "view" not in tap.marks:
                tap.marks["view"] = ns()
            return orig_post_event(request, match)

        self._patch(api, "post_event", post_event)

        orig_options = log.screen_options

        def screen_options(engine):
            t = ns()
            try:
                return orig_options(engine)
            finally:
                if (tap := probe.tap) is not None and probe._in_append():
                    tap.add("options", ns() - t)

        self._patch(log, "screen_options", screen_options)

        orig_append = log.append_event

        def append_event(*args, **kwargs):
            local.append = True
            try:
                return orig_append(*args, **kwargs)
            finally:
                local.append = False

        self._patch(log, "append_event", append_event)

        orig_locked = log.locked

        @contextmanager
        def locked(match_id):
            t = ns()
            with orig_locked(match_id):
                if (tap := probe.tap) is not None and probe._in_append():
                    tap.add("lock", ns() - t)
                yield

        self._patch(log, "locked", locked)

        orig_execute = dbutils.CursorWrapper._execute

        def _execute(cursor, sql, params, *rest):
            tap = probe.tap
            if tap is None:
                return orig_execute(cursor, sql, params, *rest)
            t = ns()
            try:
                return orig_execute(cursor, sql, params, *rest)
            finally:
                d = ns() - t
                tap.sql_threads.append(threading.get_ident())
                if probe._in_append() and (stage := sql_stage(sql)) is not None:
                    tap.add(stage, d)
                elif not getattr(local, "append", False):
                    tap.view_sql.append((threading.get_ident(), t, d))

        self._patch(dbutils.CursorWrapper, "_execute", _execute)

        wrapper = type(connections["default"])
        owner = next(c for c in wrapper.__mro__ if "_commit" in vars(c))
        orig_commit = owner._commit

        def _commit(conn):
            t = ns()
            try:
                return orig_commit(conn)
            finally:
                if (tap := probe.tap) is not None and probe._in_append():
                    tap.add("commit", ns() - t)

        self._patch(owner, "_commit", _commit)

        owner = next(c for c in wrapper.__mro__ if "connect" in vars(c))
        orig_connect = owner.connect

        def connect(conn):
            t = ns()
            try:
                return orig_connect(conn)
            finally:
                if (tap := probe.tap) is not None:
                    tap.connects.append((threading.get_ident(), ns() - t))

        self._patch(owner, "connect", connect)

        orig_apply = sinuca.engine.Match.apply

        def apply(engine, event):
            t = ns()
            try:
                return orig_apply(engine, event)
            finally:
                if (tap := probe.tap) is not None and probe._in_append():
                    tap.add("apply", ns() - t)

        self._patch(sinuca.engine.Match, "apply", apply)

        orig_render = render.render_change

        def render_change(change, keys=None):
            local.render = True
            t = ns()
            try:
                return orig_render(change, keys)
            finally:
                local.render = False
                if (tap := probe.tap) is not None:
                    tap.add("render", ns() - t)

        self._patch(render, "render_change", render_change)

        orig_publish = Publisher.publish

        def publish(publisher, match_id, seq, payloads, again=(), **kw):
            probe._mark("publish", match_id, seq)
            return orig_publish(publisher, match_id, seq, payloads, again, **kw)

        self._patch(Publisher, "publish", publish)

        orig_deliver = Delivery.deliver

        async def deliver(delivery, match_id, seq, payloads, again=(), **kw):
            probe._mark("deliver", match_id, seq)
            return await orig_deliver(delivery, match_id, seq, payloads, again, **kw)

        self._patch(Delivery, "deliver", deliver)

    def _mark(self, name: str, match_id: int, seq: int) -> None:
        tap = self.tap
        if tap is not None and match_id == self.match_id and seq == tap.seq and name not in tap.marks:
            tap.marks[name] = ns()


def sql_stage(sql: str) -> str | None:
    """The stage of a statement sent inside ``append_event`` (outside the render): ``lock`` for
    the transaction's start and the match row's locking read, ``insert`` for the event's row and
    the seq's update, None for anything else (an idempotency key's look-up, a replay)."""
    s = sql.lstrip()
    if s.startswith("BEGIN") or (s.startswith("SELECT") and ' FROM "scoreboard_match"' in s):
        return "lock"
    if s.startswith('INSERT INTO "scoreboard_event"') or s.startswith('UPDATE "scoreboard_match" SET "seq"'):
        return "insert"
    return None


# -- the client: the same for the app and the floor ----------------------------------------------

def seq_of(raw: bytes | str) -> int | None:
    """The ``seq`` a feed message starts with (both servers put it first)."""
    if isinstance(raw, str):
        raw = raw.encode()
    m = _SEQ.match(raw)
    return int(m[1]) if m else json.loads(raw).get("seq")


class Socket:
    """A spectator's feed socket: ``got`` maps each seq to when it arrived (ns)."""

    def __init__(self) -> None:
        self.got: dict[int, int] = {}


class AsgiTransport:
    """The app in this process and on this event loop, without sockets: the POST and the feed
    sockets go through ``scoreboard.asgi.application`` as Daphne would hand them over."""

    def __init__(self) -> None:
        from scoreboard.asgi import application

        self.app = application
        self.tasks: list = []  # the feed readers, the POSTs' applications
        self.sockets: list = []

    async def post(self, path: str, body: bytes, token: str | None) -> int:
        from channels.testing import ApplicationCommunicator

        headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode())]
        if token:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
                 "root_path": "", "headers": headers, "client": ("127.0.0.1", 40000),
                 "server": ("127.0.0.1", 80)}
        comm = ApplicationCommunicator(self.app, scope)
        await comm.send_input({"type": "http.request", "body": body})
        start = await comm.receive_output(30)
        while (await comm.receive_output(30)).get("more_body"):
            pass
        self.tasks.append(comm)  # its application finishes after the answer: awaited by close()
        return start["status"]

    async def feed(self, path: str) -> Socket:
        from channels.testing import WebsocketCommunicator

        comm = WebsocketCommunicator(self.app, path, headers=[(b"origin", b"http://127.0.0.1"),
                                                              (b"host", b"127.0.0.1")])
        connected, _ = await comm.connect(timeout=10)
        if not connected:
            raise RuntimeError(f"socket {path} refused")
        sock = Socket()
        first = asyncio.get_running_loop().create_future()

        async def read():
            while True:
                msg = await comm.receive_output(timeout=3600)
                if msg["type"] != "websocket.send":
                    return
                t = ns()
                sock.got.setdefault(seq_of(msg["text"]), t)
                if not first.done():
                    first.set_result(None)

        self.tasks.append(asyncio.ensure_future(read()))
        self.sockets.append(comm)
        await asyncio.wait_for(first, 10)
        return sock

    async def close(self) -> None:
        for t in self.tasks:
            if isinstance(t, asyncio.Task):
                t.cancel()
            else:
                try:
                    await t.wait(timeout=5)
                except Exception:  # noqa: BLE001 - done already, or it never will be: leave it
                    pass
        for comm in self.sockets:
            try:
                await comm.disconnect(timeout=2)
            except Exception:  # noqa: BLE001 - the app may have closed it already
                pass


class TcpTransport:
    """A server on ``127.0.0.1:port``: the POST through one kept-alive ``httpx`` connection,
    the feed sockets through ``wsclient`` (the lean client of ``live_fanout.py``)."""

    def __init__(self, port: int) -> None:
        import httpx

        self.port = port
        self.http = httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30)
        self.feeds: list = []

    async def post(self, path: str, body: bytes, token: str | None) -> int:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        r = await self.http.post(path, content=body, headers=headers)
        return r.status_code

    async def feed(self, path: str) -> Socket:
        open_feed = _load(pathlib.Path(__file__).with_name("wsclient.py"), "wsclient").open_feed

        f = await open_feed("127.0.0.1", self.port, path)
        self.feeds.append(f)
        sock = Socket()
        sock.got = _FeedTimes(f)  # the Feed appends (perf_counter, bytes) as they come
        return sock

    async def close(self) -> None:
        await self.http.aclose()
        for f in self.feeds:
            f.tr.close()


class _FeedTimes:
    """seq -> arrival (ns) over a ``wsclient.Feed``'s messages, decoded as they are asked for."""

    def __init__(self, feed) -> None:
        self.feed, self.seen, self.times = feed, 0, {}

    def _catch_up(self) -> None:
        msgs = self.feed.msgs
        while self.seen < len(msgs):
            t, raw = msgs[self.seen]
            self.times.setdefault(seq_of(raw), int(t * 1e9))  # perf_counter: the same clock
            self.seen += 1

    def __contains__(self, seq) -> bool:
        self._catch_up()
        return seq in self.times

    def __getitem__(self, seq) -> int:
        self._catch_up()
        return self.times[seq]


async def run_taps(transport, match_id: int, token: str | None, events: list, *, first_seq: int,
                   sockets: int = 1, warmup: int = 3, pace: float = 0.005, probe: Probe | None = None,
                   timeout: float = 30) -> list[Tap]:
    """POST ``events`` one at a time to match ``match_id`` and wait for each on every feed socket;
    the timings of the taps after the first ``warmup`` (which warm the caches a tap needs once:
    the engine's replay, the templates, the layer's subscription). ``first_seq``: the seq the
    first event gets. With ``probe`` (installed) each tap's stages are timed too."""
    feeds = [await transport.feed(f"/ws/matches/{match_id}/feed/") for _ in range(sockets)]
    await asyncio.sleep(0.2)  # the hub's subscription is in place
    path = f"/api/matches/{match_id}/events/"
    taps = []
    for i, event in enumerate(events):
        tap = Tap(seq=first_seq + i)
        if probe is not None:
            probe.tap = tap
        body = json.dumps({"event": event}).encode()
        tap.t_post = ns()
        status = await transport.post(path, body, token)
        tap.t_answer = ns()
        if status != 201:
            raise RuntimeError(f"POST {event}: {status}")
        end = time.monotonic() + timeout
        while not all(tap.seq in f.got for f in feeds):
            if time.monotonic() > end:
                raise RuntimeError(f"seq {tap.seq} did not reach every socket in {timeout} s")
            await asyncio.sleep(0.0005)
        tap.t_received = max(f.got[tap.seq] for f in feeds)
        if probe is not None:
            await asyncio.sleep(0)  # nothing of this tap is still running on the loop
            probe.tap = None
        tap.close_marks()
        if i >= warmup:
            taps.append(tap)
        if pace:
            await asyncio.sleep(pace)
    await transport.close()
    return taps


async def measure(match_id: int, token: str, events: list, *, transport=None, sockets: int = 1,
                  warmup: int = 3, pace: float = 0.005) -> list[Tap]:
    """Tap ``events`` into a fresh match through the app (``transport``; default: in-process
    ASGI on this loop) with every stage timed; the taps after ``warmup``."""
    probe = Probe(match_id)
    probe.install()
    try:
        return await run_taps(transport or AsgiTransport(), match_id, token, events, first_seq=1,
                              sockets=sockets, warmup=warmup, pace=pace, probe=probe)
    finally:
        probe.uninstall()


def summary(taps: list[Tap]) -> dict:
    """Per stage and for ``rest``, ``total`` and ``answer``: ``(p50 ms, p99 ms, share of the
    mean total)``; ``queries``: ``(p50, max)`` per tap."""
    ms = lambda xs: [x / 1e6 for x in xs]  # noqa: E731
    mean_total = sum(t.total for t in taps) / len(taps)
    rows = {}
    for stage in STAGES:
        xs = [t.ns[stage] for t in taps]
        rows[stage] = (pct(ms(xs), 50), pct(ms(xs), 99), sum(xs) / len(xs) / mean_total)
    rest = [t.total - sum(t.ns.values()) for t in taps]
    for part in ("connect", "match row", "auth sql"):
        xs = [t.sub.get(part, 0) for t in taps]
        rows[part] = (pct(ms(xs), 50), pct(ms(xs), 99), sum(xs) / len(xs) / mean_total)
    rows["rest"] = (pct(ms(rest), 50), pct(ms(rest), 99), sum(rest) / len(rest) / mean_total)
    rows["total"] = (pct(ms([t.total for t in taps]), 50), pct(ms([t.total for t in taps]), 99), 1.0)
    rows["answer"] = (pct(ms([t.answer for t in taps]), 50), pct(ms([t.answer for t in taps]), 99),
                      sum(t.answer for t in taps) / len(taps) / mean_total)
    q = [t.queries for t in taps]
    rows["queries"] = (pct(q, 50), max(q))
    return rows


LABELS = {"connect": "  of which: db connect", "match row": "  of which: view's match row",
          "auth sql": "  of which: its SQL",
          "rest": "(rest)", "total": "total: tap -> last socket", "answer": "POST answer"}


def table(rows: dict) -> str:
    """The printed table of :func:`summary`."""
    out = [f"{'stage':28s} {'p50 ms':>8s} {'p99 ms':>8s} {'share':>7s}"]
    names = [*STAGES[:1], "connect", "match row", STAGES[1], "auth sql", *STAGES[2:], "rest", "total", "answer"]
    for name in names:
        p50, p99, share = rows[name]
        out.append(f"{LABELS.get(name, name):28s} {p50:8.2f} {p99:8.2f} {share * 100:6.1f}%")
    out.append(f"SQL statements per tap: p50 {rows['queries'][0]}, max {rows['queries'][1]}")
    return "\n".join(out)


# -- the servers ---------------------------------------------------------------------------------

def _load(path: pathlib.Path, name: str):
    """The module at ``path`` by its file (bench/ and tests/web are not put on sys.path: bench's
    tournament.py would shadow the tournament package), imported once."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_harness = _load(pathlib.Path(__file__).resolve().parents[1] / "tests" / "web" / "live_harness.py", "live_harness")
free_port, wait_port = _harness.free_port, _harness.wait_port  # the fault tests' own


def start_daphne(port: int):
    """Daphne serving the app in a thread of this process (so the probe sees its functions);
    returns a function that stops it."""
    from daphne.server import Server
    from twisted.internet import reactor

    from scoreboard.asgi import application

    server = Server(application=application, endpoints=[f"tcp:port={port}:interface=127.0.0.1"],
                    signal_handlers=False, verbosity=0)
    threading.Thread(target=server.run, name="daphne", daemon=True).start()
    wait_port(port)
    return lambda: reactor.callFromThread(reactor.stop)


def start_floor(port: int, path: pathlib.Path):
    """``floor_server.py``'s aiohttp app in a thread of this process with its own event loop,
    as the app runs here; returns a function that stops it."""
    from aiohttp import web

    spec = importlib.util.spec_from_file_location("floor_server", path)
    floor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(floor)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(floor.app, access_log=None)

    def serve():
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
        loop.run_forever()

    threading.Thread(target=serve, name="floor", daemon=True).start()
    wait_port(port)

    def stop():
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
    return stop


def setup_django(tmp: str) -> str:
    """Settings from the environment (SQLite in ``tmp`` unless DATABASE_URL is set), Django set
    up and the database migrated; returns a description of the set-up."""
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/db.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoreboard.settings")
    os.environ.setdefault("CHANNEL_PREFIX", "bench-stages")
    os.environ["DJANGO_DEBUG"] = "0"  # as in service: no query log
    os.environ.setdefault("ACCESS_LOG_LEVEL", "WARNING")  # not a line per tap on the terminal
    sys.path.insert(0, str(ROOT))
    import django
    from django.conf import settings
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    return f"{db}, {layer}"


def tap_events(config: dict, n: int, seed: int = 1) -> list[dict]:
    """``n`` events of a seeded match (pots, fouls, free balls, retornos, undos, frame ends)."""
    from sinuca.simulate import play_match

    events = play_match(config, seed=seed)
    if len(events) < n:
        raise RuntimeError(f"the seeded match has {len(events)} events, fewer than {n}")
    return events[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--taps", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--sockets", type=int, default=20, help="spectator feed sockets")
    ap.add_argument("--pace", type=float, default=0.02, help="seconds between a tap's delivery and the next")
    ap.add_argument("--transport", choices=("daphne", "asgi"), default="daphne",
                    help="daphne: real sockets, Daphne in a thread; asgi: in-process, no sockets")
    ap.add_argument("--floor-server", default=str(FLOOR_SERVER), help="'' to skip the floor")
    a = ap.parse_args()

    if a.transport == "daphne":
        import daphne.server  # noqa: F401 - installs the asyncio reactor before anything imports Twisted
    tmp = tempfile.mkdtemp(prefix="bench-stages-")
    where = setup_django(tmp)
    from scoreboard.core.matches import create_match

    created = create_match("Ana Souza", "Bia Lima", first_breaker=0, frames_to_win=30)
    events = tap_events(created.match.config, a.warmup + a.taps)
    mid = created.match.pk
    print(f"{a.taps} taps (after {a.warmup} to warm up), {a.sockets} feed sockets, {where}, "
          f"transport {a.transport}; load average {os.getloadavg()[0]:.1f}", flush=True)

    stop = None
    transport = None  # in-process ASGI, made on measure()'s loop
    if a.transport == "daphne":
        port = free_port()
        stop = start_daphne(port)
        transport = TcpTransport(port)
    try:
        taps = asyncio.run(measure(mid, created.token, events, transport=transport,
                                   sockets=a.sockets, warmup=a.warmup, pace=a.pace))
    finally:
        if stop:
            stop()
    shutil.rmtree(tmp, ignore_errors=True)  # the SQLite file, when it was ours
    rows = summary(taps)
    print(table(rows), flush=True)

    if a.floor_server and pathlib.Path(a.floor_server).exists():
        if a.transport != "daphne":
            print("floor: only with --transport daphne (it is served on a real socket)")
            return
        port = free_port()
        stop = start_floor(port, pathlib.Path(a.floor_server))
        try:
            floor = asyncio.run(run_taps(TcpTransport(port), 1, None, events, first_seq=1,
                                         sockets=a.sockets, warmup=a.warmup, pace=a.pace))
        finally:
            stop()
        f = summary(floor)
        print(f"floor (bare aiohttp, same client, sockets and taps, this run): tap -> last socket "
              f"p50 {f['total'][0]:.2f} ms, p99 {f['total'][1]:.2f} ms; POST answer p50 "
              f"{f['answer'][0]:.2f} ms, p99 {f['answer'][1]:.2f} ms")
        print(f"app / floor: p50 {rows['total'][0] / f['total'][0]:.2f}x, "
              f"p99 {rows['total'][1] / f['total'][1]:.2f}x", flush=True)


if __name__ == "__main__":
    main()
