"""Faults on the live path, with real processes (PostgreSQL, Redis, two Daphne workers behind
one address): whatever happens, the log holds every acknowledged tap once, in order, it replays
through the engine to the served state, and every screen ends on that state."""
from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time

import aiohttp
import httpx
import pytest

from live_harness import FRAME, App, PrivateRedis, Referee, Spectator, replay, settle

pytestmark = [pytest.mark.services, pytest.mark.asyncio]
KEYS = ("phase", "scores", "frames", "striker", "ball_on", "reds_remaining", "colours_remaining",
        "points_remaining", "break", "free_ball", "decision_options", "frame_winner", "match_winner")


@pytest.fixture(scope="module")
def redis():
    """The Redis of the module's shared app (:func:`served`)."""
    r = PrivateRedis()
    yield r
    r.stop()


@pytest.fixture(scope="module")
def served(redis):
    """One app for the module's tests whose subject is neither a fresh worker, nor the workers' log
    of a Redis outage, nor a ratio of timings: starting two workers cost each test seconds. Each test takes a match of its
    own (:func:`app`), so its log, seqs and screens are its own."""
    a = App(redis.url, workers=2, env={"SINUCA_LIVE_STATS": "1"})  # GET /api/live/: each worker's renders
    yield a
    a.stop()


@pytest.fixture
def app(served):
    """The module's app (:func:`served`) on a match of the test's own, no event yet."""
    served.take_match()
    return served


@pytest.fixture
def own_redis():
    """A Redis of the test's own: the test stops it, and reads its app's log of the outage."""
    r = PrivateRedis()
    yield r
    r.stop()


@pytest.fixture
def fresh_app(own_redis):
    """Two workers started for the test: their first socket, their first PDF, or the lines they
    log for a Redis outage (once per outage, and the "back" line 3 s after it) are the test's.
    The PDF test and the Redis-down test start theirs with settings of their own."""
    a = App(own_redis.url, workers=2)
    yield a
    a.stop()


async def spectators(app: App, n: int) -> list[Spectator]:
    specs = [Spectator(app.base, app.match) for _ in range(n)]
    await settle(specs, 0)
    assert all(s.seq == 0 for s in specs)
    return specs


def check_end(app: App, specs: list[Spectator], referee: Referee) -> None:
    """The log is the acknowledged taps, once each, in order; replay = served = every screen."""
    served = app.state()
    log = app.log_events()
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert [(e["seq"], e["event"]) for e in log] == sorted(dict(referee.acked).items())
    assert served["seq"] == len(log)
    replayed = replay(served["config"], [e["event"] for e in log])
    assert {k: replayed[k] for k in KEYS} == {k: served["state"][k] for k in KEYS}
    for s in specs:
        assert s.seq == served["seq"]
        assert s.state == served["state"]


async def play(referee: Referee, events: list[dict], start_seq: int) -> int:
    seq = start_seq
    for ev in events:
        r = await referee.tap(ev, expected_seq=seq)
        assert r.status_code == 201, r.text
        seq = r.json()["seq"]
    return seq


async def test_a_worker_killed_mid_frame_loses_no_tap_and_every_screen_catches_up(app):
    specs = await spectators(app, 24)
    ref = Referee(app.base, app.match, app.token)
    half = len(FRAME) // 2
    seq = await play(ref, FRAME[:half], 0)
    victim = app.worker_pids()[0]
    os.kill(victim, signal.SIGKILL)  # serve.py starts it again
    seq = await play(ref, FRAME[half:], seq)
    await settle(specs, seq)
    assert app.worker_pids()[0] != victim
    assert sum(s.reconnects for s in specs) > 0  # the killed worker's screens came back
    check_end(app, specs, ref)
    for s in specs:
        s.stop()


async def test_redis_restarted_while_spectators_are_connected(app, redis):
    specs = await spectators(app, 16)
    ref = Referee(app.base, app.match, app.token)
    seq = await play(ref, FRAME[:10], 0)
    await settle(specs, seq)
    redis.kill()
    seq = await play(ref, FRAME[10:14], seq)  # stored while Redis is down
    redis.start()
    seq = await play(ref, FRAME[14:20], seq)
    await settle(specs, seq)
    check_end(app, specs, ref)
    for s in specs:
        s.stop()


async def test_screens_dropped_and_reconnected_while_taps_flow(app):
    specs = await spectators(app, 12)
    ref = Referee(app.base, app.match, app.token)

    async def drops():
        for _ in range(6):
            await asyncio.sleep(0.15)
            for s in specs[::2]:
                await s.drop()

    seq, _ = await asyncio.gather(play(ref, FRAME[:24], 0), drops())
    await settle(specs, seq)
    assert all(s.reconnects >= 1 for s in specs[::2])
    check_end(app, specs, ref)
    for s in specs:
        s.stop()


async def test_the_same_tap_twice_is_stored_once_and_taps_out_of_order_are_refused(app):
    specs = await spectators(app, 6)
    ref = Referee(app.base, app.match, app.token)
    # the same tap sent twice at once (a retry racing the original): one event, one answer
    a, b = await asyncio.gather(ref.tap(FRAME[0], expected_seq=0, key="tap-1"),
                                ref.tap(FRAME[0], expected_seq=0, key="tap-1"))
    assert a.status_code == b.status_code == 201 and a.json()["seq"] == b.json()["seq"] == 1
    ref.acked = ref.acked[:1]
    # taps out of order: the second tap arrives first and is refused; nothing is merged
    late = await ref.tap(FRAME[2], expected_seq=2, key="tap-3")
    assert late.status_code == 409 and late.json()["seq"] == 1
    assert (await ref.tap(FRAME[1], expected_seq=1, key="tap-2")).status_code == 201
    assert (await ref.tap(FRAME[2], expected_seq=2, key="tap-3")).status_code == 201
    await settle(specs, 3)
    assert [e["event"] for e in app.log_events()] == FRAME[:3]
    check_end(app, specs, ref)
    for s in specs:
        s.stop()


class FeedLog:
    """A JSON-feed socket that records every message it gets, in order (no refetch, no
    reconnect: what the server sends is what is checked)."""

    def __init__(self, base: str, match: int) -> None:
        self.base, self.match = base, match
        self.msgs: list[dict] = []
        self.first_at: float | None = None
        self.started = time.monotonic()
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        url = self.base.replace("http", "ws") + f"/ws/matches/{self.match}/feed/"
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(url, headers={"Origin": self.base}, heartbeat=None) as ws:
                async for msg in ws:
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    if self.first_at is None:
                        self.first_at = time.monotonic() - self.started
                    self.msgs.append(json.loads(msg.data))

    @property
    def seq(self) -> int:
        return self.msgs[-1]["seq"] if self.msgs else -1

    def stop(self) -> None:
        self.task.cancel()


async def tap_resending(http, app, headers: dict, key: str):
    """One ``no_pot`` tap through the API. Beyond MATCH_WRITERS at once a tap is refused 429
    ``match_busy`` before any query; it is sent again with its key after Retry-After, as the
    tablet's queue does (issue 15). Returns the first answer that is not a 429."""
    while True:
        r = await http.post(f"/api/matches/{app.match}/events/", headers=headers,
                            json={"event": {"type": "no_pot"}, "key": key})
        if r.status_code != 429:
            return r
        assert r.json()["error"]["code"] == "match_busy"
        await asyncio.sleep(float(r.headers["Retry-After"]))  # the server's asked pause, not a wait for a condition


async def until(cond, timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and not cond():
        await asyncio.sleep(0.05)


def assert_every_event_once_in_order(app: App, feeds: list[FeedLog]) -> None:
    """Each socket: its first state (seq 0), then every logged event once, in seq order, with the
    event, its description and the state after it, as the log has them."""
    log = app.log_events()
    want = [0] + [e["seq"] for e in log]
    for f in feeds:
        assert [m["seq"] for m in f.msgs] == want
        assert [(m["event"], m["description"]) for m in f.msgs[1:]] == \
            [(e["event"], e["description"]) for e in log]
    assert feeds[0].msgs[-1]["state"] == app.state()["state"]


async def test_feed_sockets_get_every_event_once_in_order_under_concurrent_posts_on_two_workers(app):
    feeds = [FeedLog(app.base, app.match) for _ in range(50)]
    await until(lambda: all(f.seq == 0 for f in feeds))
    headers = {"Authorization": f"Bearer {app.token}"}
    async with httpx.AsyncClient(base_url=app.base, timeout=30,
                                 limits=httpx.Limits(max_connections=80)) as http:
        answers = await asyncio.gather(*(tap_resending(http, app, headers, f"c{i}") for i in range(80)))
    assert sorted(r.json()["seq"] for r in answers) == list(range(1, 81))
    await until(lambda: all(f.seq == 80 for f in feeds))
    assert_every_event_once_in_order(app, feeds)
    for f in feeds:
        f.stop()


async def test_feed_sockets_get_every_event_missed_while_redis_was_down_in_order(fresh_app, own_redis):
    app, redis = fresh_app, own_redis
    feeds = [FeedLog(app.base, app.match) for _ in range(16)]
    await until(lambda: all(f.seq == 0 for f in feeds))
    ref = Referee(app.base, app.match, app.token)
    seq = await play(ref, FRAME[:10], 0)
    await until(lambda: all(f.seq == seq for f in feeds))
    redis.kill()
    seq = await play(ref, FRAME[10:14], seq)  # stored while Redis is down
    await asyncio.sleep(3)  # the layer retries every second meanwhile
    redis.start()
    seq = await play(ref, FRAME[14:20], seq)
    await until(lambda: all(f.seq == seq for f in feeds))
    assert_every_event_once_in_order(app, feeds)
    for f in feeds:
        f.stop()
    # the outage in the workers' log: one line each when Redis went, one when it came back, and
    # no traceback a second (the layer's receive task logged one per second per worker)
    await until(lambda: app.log_text().count("channel layer: Redis is back") == 2, timeout=15)
    text = app.log_text()
    assert text.count("channel layer: Redis unreachable") == 2, text[-3000:]
    assert "Traceback" not in text and "Unexpected exception in receive task" not in text, text[-3000:]


async def test_a_feed_socket_opened_while_redis_is_down_gets_its_first_state_at_once(fresh_app, own_redis):
    """The first state comes from the database, not after the layer's subscription (which waited
    up to 5 s for a dead Redis). Quiet: 0.34 s; beside a browser test on the 2-core machine: 0.57 s;
    so the bound is 1.5 s, well under the 5 s of the bug and above what load adds."""
    app, redis = fresh_app, own_redis
    redis.kill()  # the workers have not subscribed yet: their first socket starts the hub
    feeds = [FeedLog(app.base, app.match) for _ in range(8)]  # the kernel spreads them over both
    await until(lambda: all(f.first_at is not None for f in feeds), timeout=10)
    assert [f.msgs[:1] and f.msgs[0]["seq"] for f in feeds] == [0] * 8
    assert max(f.first_at for f in feeds) < 1.5, [round(f.first_at, 3) for f in feeds]
    for f in feeds:
        f.stop()


async def test_a_burst_of_taps_and_readers_never_gets_a_5xx_for_the_referee(app):
    """Issue finding 1: 200 taps at once, with 150 anonymous readers of the log, met PostgreSQL's
    connection limit (half the taps answered an HTML 500). With a bounded pool per worker and
    read slots, every tap is stored once, readers get 200 or a JSON 503, the log is gap-free and
    replays to the served state."""
    import httpx

    headers = {"Authorization": f"Bearer {app.token}"}
    limits = httpx.Limits(max_connections=400, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=app.base, timeout=60, limits=limits) as http:
        async def tap(i: int) -> httpx.Response:
            return await tap_resending(http, app, headers, f"burst-{i}")

        async def read() -> httpx.Response:
            return await http.get(f"/api/matches/{app.match}/events/")

        answers = await asyncio.gather(*[tap(i) for i in range(200)], *[read() for _ in range(150)])
    taps, reads = answers[:200], answers[200:]
    tap_codes = sorted({r.status_code for r in taps})
    read_codes = sorted({r.status_code for r in reads})
    busy = [r for r in reads if r.status_code == 503]
    print(f"taps: {tap_codes}, reads: {read_codes} ({len(busy)} busy)")
    assert tap_codes == [201]
    assert set(read_codes) <= {200, 503}
    assert all(r.json()["error"]["code"] == "busy" and r.headers["Retry-After"] for r in busy)
    log = app.log_events()
    assert [e["seq"] for e in log] == list(range(1, 201))
    served = app.state()
    assert served["seq"] == 200
    replayed = replay(served["config"], [e["event"] for e in log])
    assert {k: replayed[k] for k in KEYS} == {k: served["state"][k] for k in KEYS}


async def test_concurrent_first_pdfs_on_fresh_workers_all_render(fresh_app):
    """Issue finding 7: 2 of 16 concurrent first PDFs on a fresh worker answered 500 (the fonts
    were registered by the first requests, racing). The workers register them at start-up."""
    import httpx

    app = fresh_app
    async with httpx.AsyncClient(base_url=app.base, timeout=60) as http:
        answers = await asyncio.gather(*[http.get(f"/matches/{app.match}/sumula.pdf?lang={lang}")
                                         for lang in ("pt-br", "en") * 8])
    assert [r.status_code for r in answers] == [200] * 16
    assert all(r.content.startswith(b"%PDF") for r in answers)


async def each_worker(app: App) -> dict[int, dict]:
    """pid -> ``/api/live/`` of each of the app's two workers: asked on new connections, which the
    kernel spreads over the workers (SO_REUSEPORT), until both have answered."""
    seen: dict[int, dict] = {}
    for _ in range(400):
        async with httpx.AsyncClient(base_url=app.base, timeout=10) as http:  # a new connection
            stats = (await http.get("/api/live/")).json()
        seen[stats["pid"]] = stats
        if len(seen) == 2:
            return seen
    raise AssertionError(f"one worker answered every connection: {list(seen)}")


async def test_a_tv_loaded_at_once_on_both_workers_is_drawn_once_for_the_deployment(app):
    """A room of TVs loading a match's page at a new seq on two workers drew it once per worker;
    the first worker to load it draws it, the other takes its text from the shared cache."""
    seq = await play(Referee(app.base, app.match, app.token), [{"type": "no_pot"}], 0)
    before = await each_worker(app)

    async def load() -> httpx.Response:
        async with httpx.AsyncClient(base_url=app.base, timeout=30) as http:  # one connection each
            return await http.get(f"/matches/{app.match}/tv/")

    answers = await asyncio.gather(*[load() for _ in range(16)])
    assert [r.status_code for r in answers] == [200] * 16
    assert all(f'data-seq="{seq}"' in r.text for r in answers)
    after = await each_worker(app)
    drawn = {pid: after[pid]["views_rendered"] - before[pid]["views_rendered"] for pid in after}
    assert sum(drawn.values()) == 1, drawn


def long_match_file(n_events: int = 1500) -> dict:
    """A match file of about ``n_events`` events, cut where a frame is in play (so that taps of
    ``no_pot`` are legal after it): its súmula takes seconds to render."""
    from sinuca import Match
    from sinuca.simulate import play_match

    config = {"players": ["Ana Souza", "Bia Lima"], "frames_to_win": 30, "first_breaker": 0}
    events = play_match(config, seed=0)[:n_events]
    m, last = Match(config), 0
    for i, ev in enumerate(events):
        m.apply(ev)
        if m.state()["phase"] == "play":
            last = i + 1
    return {"config": config, "events": events[:last]}


async def test_eight_pdf_clients_cause_one_render_and_the_referee_is_answered_meanwhile(own_redis, tmp_path):
    """Issue 9, "8 PDF clients -> referee POST p50 within 1.5x of idle": each worker rendered the
    same sheet in its own render process, and renders went on back to back while the referee
    tapped. Now 8 clients asking at once for a long match's sheet (spread by the kernel over two
    workers) cause exactly one render for the deployment and get the same bytes; the referee's
    taps are answered while that render runs. The ratio of the POST medians (busy / idle) is
    printed, and bounded loosely here: on this shared 2-core machine it is a benchmark's figure
    (bench/reports_load.py), not a test's."""
    import statistics

    # workers of its own: the ratio of two medians is the test's, no other test's leftovers
    redis = own_redis
    app = App(redis.url, workers=2, env={"LOG_LEVEL": "INFO", "REPORT_RATE": "1000/m"})
    try:
        path = tmp_path / "long.json"
        path.write_text(json.dumps(long_match_file()))
        # imported and its referee's token issued in one process (Django's start costs seconds here)
        mid, token = json.loads(app.manage("shell", "-c", (
            "import io, json; from django.core.management import call_command; "
            "from scoreboard.core.models import Match, RefereeCredential; out = io.StringIO(); "
            f"call_command('importmatch', {str(path)!r}, stdout=out); "
            "mid = json.loads(out.getvalue().strip().splitlines()[-1])['match']; "
            "print(json.dumps([mid, RefereeCredential.issue(Match.objects.get(pk=mid))[1]]))")).strip().splitlines()[-1])
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=app.base, timeout=60) as tablet, \
                httpx.AsyncClient(base_url=app.base, timeout=120,
                                  limits=httpx.Limits(max_keepalive_connections=0)) as readers:
            async def taps(n: int, tag: str) -> list[tuple[float, float]]:
                out = []
                for i in range(n):
                    t = time.monotonic()
                    r = await tablet.post(f"/api/matches/{mid}/events/", headers=headers,
                                          json={"event": {"type": "no_pot"}, "key": f"{tag}-{i}"})
                    assert r.status_code == 201, r.text
                    out.append((t, time.monotonic()))
                    await asyncio.sleep(0.05)
                return out

            def ms(spans):
                return [(b - a) * 1000 for a, b in spans]

            await taps(3, "warm")
            idle = await taps(15, "idle")
            done_at: list[float] = []

            async def pdf() -> httpx.Response:
                r = await readers.get(f"/matches/{mid}/sumula.pdf")
                done_at.append(time.monotonic())
                return r

            pdfs = [asyncio.ensure_future(pdf()) for _ in range(8)]
            # the render has begun: a request holds the deployment's build lock in Redis
            import redis as redis_py

            store = redis_py.Redis.from_url(redis.url)
            await until(lambda: bool(store.keys(f"*report-lock:pdf:{mid}:*") or done_at), timeout=60)
            busy = await taps(15, "busy")
            answers = await asyncio.gather(*pdfs)
        assert [r.status_code for r in answers] == [200] * 8, [r.text[:200] for r in answers]
        assert len({r.content for r in answers}) == 1 and answers[0].content.startswith(b"%PDF")
        builds = [line for line in app.log_text().splitlines()
                  if f"report pdf of match {mid} built" in line]
        assert len(builds) == 1, builds
        during = [s for s in busy if s[1] < min(done_at)]
        i50, b50 = statistics.median(ms(idle)), statistics.median(ms(during or busy))
        print(f"referee POST p50 idle {i50:.1f} ms, while 8 PDF clients wait for the render "
              f"{b50:.1f} ms (ratio {b50 / i50:.2f}; {len(during)} of 15 taps during the render)")
        assert len(during) >= 5  # the taps were answered while every PDF request waited
        assert b50 < max(3 * i50, i50 + 100)  # loose: the 1.5x figure is the benchmark's
    finally:
        app.stop()


REDIS_OUTAGE = 20.0  # seconds: the outage, mid-frame


def competition_and_staff(app: App, password: str) -> dict:
    """A four-player knockout on two tables and a staff user ``mesa`` (one ``manage.py shell``:
    each command is a second or more of Django start-up here)."""
    code = ("import json; from django.contrib.auth import get_user_model; "
            "from scoreboard.core import competitions; "
            "c = competitions.create_competition({'name': 'Aberto', 'reds': 6, 'draw_seed': 7, "
            "'tables': ['Mesa 1', 'Mesa 2'], 'players': ['Caio', 'Duda', 'Eva', 'Fabi'], "
            "'stages': [{'format': 'knockout', 'frames_to_win': 1}]}).as_json(); "
            f"get_user_model().objects.create_superuser('mesa', 'mesa@example.org', {password!r}); "
            "print(json.dumps(c))")
    return json.loads(app.manage("shell", "-c", code).strip().splitlines()[-1])


async def staff_desk(base: str, comp: int, password: str) -> dict[str, httpx.Response]:
    """An organiser signs in, opens the desk and records a W.O. on match 1 (the desk's own
    session path: CSRF, the staff check, the competition's advance and the boards' push)."""
    async with httpx.AsyncClient(base_url=base, timeout=60, headers={"Referer": base + "/admin/login/"}) as http:
        form = await http.get("/admin/login/")
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
        login = await http.post("/admin/login/?next=/admin/", data={
            "username": "mesa", "password": password, "csrfmiddlewaretoken": csrf, "next": "/admin/"})
        desk = await http.get(f"/desk/{comp}/")
        action = await http.post(f"/desk/{comp}/action/",
                                 json={"action": "walkover", "match": 1, "absent": [1], "reason": "não compareceu"},
                                 headers={"X-CSRFToken": http.cookies["csrftoken"], "Referer": f"{base}/desk/{comp}/"})
        return {"login": login, "desk": desk, "action": action}


async def test_redis_down_mid_frame_every_endpoint_answers_and_a_restart_resets_no_limit(own_redis):
    """Issue 15, item 4: Redis stopped mid-frame answered the PIN login with HTML 500 (13 of 13)
    and the log, the export and the súmula CSV with 500, and a restart of Redis wiped every rate
    limit's counts. Now, while Redis is down for 20 s: taps are acknowledged throughout and
    stored once; the PIN login answers 401 then 429 (per-process counts); the log, export,
    súmula CSV and PDF, the statistics page, the event's hub and a player's page answer 200, and
    an organiser signs in and records a W.O. on the desk (all at once, during the outage); each
    worker logs one warning. Redis started again *empty*: the same client is still refused (its
    worker puts its count back), and every screen gets every seq in order."""
    redis = own_redis
    app = App(redis.url, workers=2, env={"PIN_RATE_PER_ADDRESS": "10/d", "REPORT_RATE": "1000/m",
                                         "TRUSTED_PROXIES": ""})
    try:
        password = "faults-" + os.urandom(6).hex()
        comp = competition_and_staff(app, password)["competition"]
        feeds = [FeedLog(app.base, app.match) for _ in range(8)]
        specs = await spectators(app, 8)
        await until(lambda: all(f.seq == 0 for f in feeds))
        ref = Referee(app.base, app.match, app.token)
        seq = await play(ref, FRAME[:8], 0)
        await until(lambda: all(f.seq == seq for f in feeds))
        login = f"/matches/{app.match}/referee/"
        right = app.created["referee_pin"]
        wrong = "000000" if right != "000000" else "111111"
        redis.kill()
        down_at = time.monotonic()

        async def taps_throughout(seq: int) -> tuple[int, list[float]]:
            """FRAME[8:16], one every 2.5 s: the referee plays on through the whole outage."""
            at = []
            for i, ev in enumerate(FRAME[8:16]):
                await asyncio.sleep(max(0.0, down_at + i * REDIS_OUTAGE / 8 - time.monotonic()))  # the schedule
                sent = time.monotonic()
                seq = await play(ref, [ev], seq)
                at.append((round(sent - down_at, 1), round(time.monotonic() - sent, 2)))
            return seq, at

        finished = {}

        async def timed(name: str, aw):
            out = await aw
            finished[name] = round(time.monotonic() - down_at, 1)
            return out

        async def reports_and_pages() -> dict[str, httpx.Response]:
            async with httpx.AsyncClient(base_url=app.base, timeout=60) as http:
                urls = (f"/matches/{app.match}/sumula.pdf", f"/matches/{app.match}/", f"/competitions/{comp}/",
                        f"/competitions/{comp}/players/1/")
                return dict(zip(urls, await asyncio.gather(*(timed(u, http.get(u)) for u in urls))))

        # one keep-alive connection: one worker, whose counts are its own while Redis is down.
        # httpx drops a connection idle for 5 s (keepalive_expiry), and the next request, after
        # the outage's wait, went to whichever worker took the new one: then half the runs failed
        # on the other worker's count, which the design does not keep (module docstring).
        async with httpx.AsyncClient(base_url=app.base, timeout=10,
                                     limits=httpx.Limits(keepalive_expiry=300)) as http:
            async def pin_tries():
                form = await http.get(login)
                assert form.status_code == 200
                csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)

                async def pin(value: str) -> httpx.Response:
                    return await http.post(login, data={"pin": value, "csrfmiddlewaretoken": csrf})

                codes = [(await pin(wrong)).status_code for _ in range(10)]
                limited = await pin(right)
                reads = {u: await http.get(u) for u in (f"/api/matches/{app.match}/events/",
                                                        f"/api/matches/{app.match}/export/",
                                                        f"/matches/{app.match}/sumula.csv")}
                sw_get, sw_head = await http.get("/matches/tablet-sw.js"), await http.head("/matches/tablet-sw.js")
                return pin, codes, limited, reads, sw_get, sw_head

            (seq, tapped_at), (pin, codes, limited, reads, sw_get, sw_head), pages, desk = await asyncio.gather(
                timed("taps", taps_throughout(seq)), timed("pin", pin_tries()), reports_and_pages(),
                timed("desk", staff_desk(app.base, comp, password)))
            print(f"during the outage: taps (sent at s, answered in s) {tapped_at}; finished at {finished}")
            assert codes == [401] * 10, codes
            assert limited.status_code == 429 and limited.headers["Retry-After"] == "60"
            assert {u: r.status_code for u, r in reads.items()} == {u: 200 for u in reads}
            assert [e["seq"] for e in reads[f"/api/matches/{app.match}/events/"].json()["events"]][-1] <= seq
            assert "Ana" in reads[f"/matches/{app.match}/sumula.csv"].text
            assert reads[f"/api/matches/{app.match}/events/"].headers["Cache-Control"] == "private, no-store"
            # HEAD through Daphne: the headers of GET, no body
            assert (sw_head.status_code, sw_head.content) == (200, b"")
            assert sw_head.headers["Content-Length"] == sw_get.headers["Content-Length"]
            assert {u: r.status_code for u, r in pages.items()} == {u: 200 for u in pages}
            pdf = pages[f"/matches/{app.match}/sumula.pdf"]
            assert pdf.content.startswith(b"%PDF") and pdf.headers["Content-Type"] == "application/pdf"
            assert "Caio" in pages[f"/competitions/{comp}/"].text
            assert (desk["login"].status_code, desk["login"].headers.get("location")) == (302, "/admin/"), desk["login"].text[:500]
            assert desk["desk"].status_code == 200 and "Caio" in desk["desk"].text
            assert (desk["action"].status_code, desk["action"].json()) == (200, {"ok": True})
            # the referee's taps came every 2.5 s until the end of the outage, each acknowledged
            assert len(tapped_at) == 8 and tapped_at[-1][0] >= REDIS_OUTAGE * 7 / 8 - 0.5
            # the outage's length: 20 s, or longer if the machine is slow, so that every request
            # above was answered while Redis was down
            await asyncio.sleep(max(0.0, down_at + REDIS_OUTAGE - time.monotonic()))
            outage = time.monotonic() - down_at
            redis.start()  # empty: no persistence
            # this worker uses Redis again at its first cache call after its retry pause
            end = time.monotonic() + 20
            while "Redis is back" not in app.log_text() and time.monotonic() < end:
                assert (await http.get(f"/api/matches/{app.match}/events/")).status_code == 200
                await asyncio.sleep(0.1)
            assert "Redis is back" in app.log_text()
            after_restart = await pin(right)
        assert after_restart.status_code == 429, "a restart of Redis reset the PIN limit"
        import redis as redis_py

        kept = redis_py.Redis.from_url(redis.url).keys("*rl:*")
        assert kept, "the worker put its PIN counts back into the empty Redis"
        w_o = httpx.get(f"{app.base}/api/competitions/{comp}/", timeout=10).json()
        assert [m["status"] for st in w_o["stages"] for m in st["matches"] if m["number"] == 1] == ["walkover"]
        seq = await play(ref, FRAME[16:24], seq)
        await until(lambda: all(f.seq == seq for f in feeds))
        await settle(specs, seq)
        assert_every_event_once_in_order(app, feeds)
        check_end(app, specs, ref)
        text = app.log_text()
        print(f"Redis down {outage:.1f} s: 8 taps acknowledged (sent at s, answered in s) {tapped_at}, "
              f"PIN {codes.count(401)}×401 then 429, reads {[r.status_code for r in reads.values()]}, "
              f"pages {[r.status_code for r in pages.values()]}, desk W.O. {desk['action'].status_code}; "
              f"finished at {finished} s")
        assert "Internal Server Error" not in text
        layer = text.count("channel layer: Redis unreachable")
        cache = text.count("Redis unreachable") - layer
        assert 1 <= cache <= 2 and layer <= 2, (cache, layer)  # one line each per worker at most
        for s in specs:
            s.stop()
        for f in feeds:
            f.stop()
    finally:
        app.stop()


async def test_the_served_app_sends_a_result_signed_once_without_the_command(app):
    """The workers send the webhooks themselves (no ``manage.py webhooks send``), one sender for
    the database however many workers: a subscriber added while the app runs gets this match's
    start and result once each, in order, on the first try, each signed over the exact body."""
    import psycopg

    from scoreboard.core import webhooks
    from test_webhooks import Receiver, wait_for

    hook = Receiver()
    mine = lambda key: key.endswith(f":{app.match}") or f":{app.match}:" in key  # noqa: E731
    try:
        with psycopg.connect(app.db, autocommit=True) as c:  # what ``webhooks add`` stores
            c.execute("insert into scoreboard_webhook (name, url, secret, kinds, active, created_at) "
                      "values ('jornal', %s, 's3cr3t', '[\"result\", \"match_started\"]', true, now())", [hook.url])
        r = httpx.post(f"{app.base}/api/matches/{app.match}/events/", timeout=10,
                       json={"event": {"type": "concede", "player": 1}, "key": "webhook-concede"},
                       headers={"Authorization": f"Bearer {app.token}"})
        assert r.status_code == 201, r.text
        seq = r.json()["seq"]
        assert r.json()["state"]["match_winner"] == 0
        result = f"result:{app.match}:{seq}"
        wait_for(lambda: any(g["key"] == result for g in hook.got))

        def delivered():
            with psycopg.connect(app.db) as c:
                return [row for row in c.execute("select key, attempts from scoreboard_webhookdelivery "
                                                 "where delivered_at is not null order by id").fetchall()
                        if mine(row[0])]
        assert wait_for(lambda: len(delivered()) == 2) and delivered() == [
            (f"match_started:{app.match}", 1), (result, 1)]  # one try each: no second sender posted them
        got = [g for g in hook.got if mine(g["key"])]
        assert [g["key"] for g in got] == [f"match_started:{app.match}", result]  # in order, once each
        for g in got:
            assert webhooks.verify("s3cr3t", g["body"], g["sig"])
        body = json.loads(got[1]["body"])
        assert body["kind"] == "result" and body["data"]["winner"] == 0 and body["data"]["players"] == ["Ana", "Bia"]
    finally:
        with psycopg.connect(app.db, autocommit=True) as c:  # the module's later tests have no subscriber
            c.execute("update scoreboard_webhook set active = false")
        hook.close()
