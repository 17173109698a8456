"""Real processes for the fault tests: a private Redis, a fresh PostgreSQL database, the app's
workers under ``scripts/serve.py``, spectators that behave like the pages (reconnect after any
close, refetch on a seq gap) and a referee that retries a tap with the same key."""
from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import aiohttp
import httpx

from sinuca.simulate import DEMO_FRAME

ROOT = pathlib.Path(__file__).resolve().parents[2]
PY = sys.executable


def settings_env() -> dict:
    """The settings of every process started here: the app's, with a fast password hasher
    (tests/web/services_settings.py; the template's PINs are hashed with it too). A benchmark
    pointed at another checkout (``ROOT``) without that module gets the app's own."""
    if (ROOT / "tests" / "web" / "services_settings.py").exists():
        return {"DJANGO_SETTINGS_MODULE": "tests.web.services_settings"}
    return {}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port}")


class PrivateRedis:
    """A redis-server of the test's own, so that it can be killed and restarted."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        assert exe, "redis-server is installed by scripts/test.sh"
        self.exe, self.port, self.proc = exe, free_port(), None
        self.dir = tempfile.mkdtemp(prefix="faults-redis-")
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen([self.exe, "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", self.dir],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.kill()


SHARED_PG_PORT = 5432
ADMIN_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
_template: str | None = None  # the migrated database of this test run, copied for each app
_template_created: list[dict] | None = None  # creatematch's answers for the template's matches
# Every app's matches: the same in every test (Ana v Bia, Ana to break), the first one the app's
# own and the others handed out by App.take_match (a test of a module-wide app takes one each;
# a ``creatematch`` process costs seconds here)
MATCHES = 12
_collected = False  # collectstatic ran in this test run


def _manage(url: str, *args: str) -> str:
    """``manage.py`` on the database at ``url`` (no pool, no Redis); its standard output."""
    env = dict(os.environ, DATABASE_URL=url, DB_POOL="0", DJANGO_DEBUG="0",
               DJANGO_SECRET_KEY="faults-" + uuid.uuid4().hex, **settings_env())
    env.pop("REDIS_URL", None)
    return subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=300).stdout


def _migrate(url: str) -> None:
    """``manage.py migrate`` on the database at ``url``."""
    _manage(url, "migrate", "--noinput")


def _migrated_template() -> str:
    """A PostgreSQL database migrated once per test run (``migrate`` takes seconds on this
    machine, ten fault tests took it each), with every app's :data:`MATCHES` matches created in
    it (a ``creatematch`` process per test was 22 s of the run's CPU; tokens and PINs are stored
    hashed, whatever the app's secret key), dropped when the run ends."""
    global _template, _template_created
    if _template is None:
        import atexit

        import psycopg
        name = f"sinuca_faults_tpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        with psycopg.connect(ADMIN_DSN, autocommit=True) as c:
            c.execute(f'create database "{name}"')
        url = f"postgres://postgres@127.0.0.1:5432/{name}"
        _migrate(url)
        _template_created = _create_matches(url)
        atexit.register(drop_database, url)
        _template = name
    return _template


def _create_matches(url: str) -> list[dict]:
    """:data:`MATCHES` matches Ana v Bia (Ana to break) in the database at ``url``, in one
    process; ``creatematch``'s answer for each."""
    code = ("import json; from scoreboard.core.matches import create_match; "
            f"print(json.dumps([create_match('Ana', 'Bia', first_breaker=0).as_json() for _ in range({MATCHES})]))")
    return json.loads(_manage(url, "shell", "-c", code).strip().splitlines()[-1])


def fresh_database(port: int = SHARED_PG_PORT) -> str:
    """A new PostgreSQL database, migrated, with the template's matches. On the machine's server
    (the default) a copy of the run's template (``CREATE DATABASE ... TEMPLATE``, a file copy,
    well under a second); on a private server (``port``) the template's dump restored (a second,
    where ``migrate`` took ten on a busy machine)."""
    import psycopg
    name = "sinuca_faults_" + uuid.uuid4().hex[:8]
    template = _migrated_template()
    if port != SHARED_PG_PORT:
        with psycopg.connect(f"host=127.0.0.1 port={port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f'create database "{name}"')
        dump = subprocess.run(["pg_dump", "-h", "127.0.0.1", "-p", str(SHARED_PG_PORT), "-U", "postgres",
                               "--no-owner", "--no-privileges", template],
                              check=True, capture_output=True, timeout=120).stdout
        subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-q",
                        "-v", "ON_ERROR_STOP=1", "-d", name], input=dump, check=True,
                       capture_output=True, timeout=120)
        return f"postgres://postgres@127.0.0.1:{port}/{name}"
    with psycopg.connect(ADMIN_DSN, autocommit=True) as c:
        c.execute(f'create database "{name}" template "{template}"')
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def collect_static_once(env: dict) -> None:
    """``collectstatic`` (it hashes Pyodide's 12 MB) once per test run: the files and their
    manifest do not change between the fault tests."""
    global _collected
    if _collected:
        return
    import fcntl

    # Under pytest-xdist the workers share STATIC_ROOT: the first collects under a lock, the
    # others see its stamp for this run (a second collectstatic would rewrite the files while the
    # first worker's servers read them).
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"
    static_root = pathlib.Path(ROOT) / "staticfiles"
    static_root.mkdir(exist_ok=True)
    stamp = static_root / ".collected-by-test-run"
    with open(static_root / ".collect.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (stamp.exists() and stamp.read_text() == run):
            subprocess.run([PY, "manage.py", "collectstatic", "--noinput"], cwd=ROOT, env=env, check=True,
                           capture_output=True, text=True, timeout=300)
            stamp.write_text(run)
    _collected = True


def drop_database(url: str) -> None:
    import psycopg
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(f"host=127.0.0.1 port={port} user=postgres dbname=postgres", autocommit=True) as c:
        c.execute(f'drop database if exists "{name}" with (force)')


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own (``initdb`` into a temporary directory, a free
    port), so that it can be restarted and killed; the machine's server is never touched."""

    def __init__(self, max_connections: int = 100) -> None:
        self.max_connections = max_connections
        for exe in ("initdb", "pg_ctl", "postgres"):
            assert shutil.which(exe), f"{exe} (PostgreSQL) must be on PATH"
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="faults-pg-")
        self.data = os.path.join(self.dir, "data")
        # PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.dir, "postgres")
        subprocess.run([*self.as_user, "initdb", "-D", self.data, "-U", "postgres", "-A", "trust",
                        "--no-sync", "-E", "UTF8", "--locale=C"], check=True, capture_output=True,
                       timeout=120)
        self.start()

    def _ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        opts = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=off "
                f"-c max_connections={self.max_connections} -c superuser_reserved_connections=0 "
                "-c shared_buffers=16MB")
        return subprocess.run([*self.as_user, "pg_ctl", "-D", self.data, "-o", opts, "-l",
                               os.path.join(self.dir, "log"), "-w", "-t", "60", *args],
                              check=check, capture_output=True, text=True, timeout=90)

    def start(self) -> None:
        self._ctl("start")

    def restart(self) -> None:
        """A fast restart (``pg_ctl restart -m fast``): every connection is terminated."""
        self._ctl("restart", "-m", "fast")

    def postmaster_pid(self) -> int:
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            return int(f.readline())

    def kill9(self) -> None:
        """``kill -9`` of the postmaster, then wait for its backends to notice and exit (they
        hold its shared memory, and a new postmaster refuses to start while they live)."""
        pid = self.postmaster_pid()
        os.kill(pid, signal.SIGKILL)
        end = time.monotonic() + 30
        while time.monotonic() < end and (self.processes() or os.path.exists(f"/proc/{pid}")):
            time.sleep(0.05)  # a zombie postmaster still "runs" for the next one's pid check

    def processes(self) -> list[int]:
        """The pids of this cluster's processes (their working directory is its data dir)."""
        here = os.path.realpath(self.data)
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if os.path.realpath(os.readlink(f"/proc/{entry}/cwd")) == here:
                        pids.append(int(entry))
                except OSError:
                    pass
        return pids

    def accepting(self) -> bool:
        import psycopg
        try:
            psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                            connect_timeout=2).close()
            return True
        except psycopg.OperationalError:
            return False

    def stop(self) -> None:
        self._ctl("stop", "-m", "immediate", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)



class App:
    """The app on PostgreSQL + a Redis, ``workers`` Daphne processes behind one port."""

    def __init__(self, redis_url: str, workers: int = 2, env: dict | None = None,
                 pg_port: int = SHARED_PG_PORT) -> None:
        self.db = fresh_database(pg_port)
        self.env = dict(os.environ, DATABASE_URL=self.db, REDIS_URL=redis_url, DJANGO_DEBUG="0",
                        DJANGO_SECRET_KEY="faults-" + uuid.uuid4().hex,
                        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost")
        self.env.update(settings_env(), **(env or {}))  # the caller's env wins, settings included
        collect_static_once(self.env)  # the database is a migrated copy (fresh_database)
        self._spare = [dict(c) for c in _template_created]  # the copy's matches, none used yet
        self._log_from = 0  # log_text() from here: the current test's part of a shared app's log
        self.take_match()
        self.port = free_port()
        self.log = open(tempfile.mktemp(prefix="faults-serve-", suffix=".log"), "w+")
        self.proc = subprocess.Popen([PY, "scripts/serve.py", "--workers", str(workers),
                                      "--bind", f"127.0.0.1:{self.port}"], cwd=ROOT, env=self.env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                if httpx.get(f"{self.base}/api/matches/{self.match}/", timeout=2).status_code == 200 \
                        and len(self.worker_pids()) == workers:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise TimeoutError("the app did not come up:\n" + self.log_text()[-2000:])

    def take_match(self) -> dict:
        """An unused match of the app's (Ana v Bia, no event yet), made the app's current one
        (``match``, ``token``, ``created``: creatematch's answer, token, PIN and referee link);
        ``log_text()`` from now on. A test of an app shared by a module starts here."""
        self.created = self.spare_match()
        self.match, self.token = self.created["match"], self.created["referee_token"]
        if hasattr(self, "log"):
            self._log_from = len(self._full_log())
        return self.created

    def spare_match(self) -> dict:
        """An unused match of the app's (Ana v Bia, no event yet): creatematch's answer."""
        return self._spare.pop(0) if self._spare else self.create_match("Ana", "Bia")

    def create_match(self, a: str = "Caio", b: str = "Duda") -> dict:
        """Another match (creatematch's answer: ``match``, ``referee_token``, …)."""
        out = self.manage("creatematch", "--player-a", a, "--player-b", b, "--first-breaker", "0")
        return json.loads(out.strip().splitlines()[-1])

    def manage(self, *args: str) -> str:
        return subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=self.env, check=True,
                              capture_output=True, text=True, timeout=300).stdout

    def _full_log(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def log_text(self) -> str:
        """What the server wrote since the current match was taken (:meth:`take_match`)."""
        return self._full_log()[self._log_from:]

    def worker_pids(self) -> dict[int, int]:
        """Worker number -> its current pid (restarted workers replace their entry)."""
        pids = {}
        for i, pid in re.findall(r"serve\.py: worker (\d+) pid (\d+)", self._full_log()):
            pids[int(i)] = int(pid)
        return pids

    def state(self) -> dict:
        return httpx.get(f"{self.base}/api/matches/{self.match}/", timeout=10).json()

    def log_events(self) -> list[dict]:
        """The whole log, page after page (``next``)."""
        events, url = [], f"/api/matches/{self.match}/events/"
        while url:
            page = httpx.get(self.base + url, timeout=10).json()
            events += page["events"]
            url = page.get("next")
        return events

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)
        drop_database(self.db)


class Spectator:
    """A screen on the JSON feed: keeps the newest state, refetches on a seq gap, and reconnects
    after any close, as the pages do."""

    def __init__(self, base: str, match: int) -> None:
        self.base, self.match = base, match
        self.seq, self.state, self.reconnects, self.gaps = -1, None, 0, 0
        self.ws = None
        self.task = asyncio.ensure_future(self._run())

    def _take(self, seq: int, state: dict) -> None:
        if seq > self.seq:
            self.seq, self.state = seq, state

    async def _run(self) -> None:
        ws_url = self.base.replace("http", "ws") + f"/ws/matches/{self.match}/feed/"
        async with aiohttp.ClientSession() as http:
            while True:
                try:
                    async with http.ws_connect(ws_url, headers={"Origin": self.base}, heartbeat=None) as ws:
                        self.ws = ws
                        async for msg in ws:
                            if msg.type != aiohttp.WSMsgType.TEXT:
                                break
                            data = json.loads(msg.data)
                            if self.seq >= 0 and data["seq"] > self.seq + 1:
                                self.gaps += 1  # a change went missing: fetch the state
                                async with http.get(f"{self.base}/api/matches/{self.match}/") as r:
                                    full = await r.json()
                                self._take(full["seq"], full["state"])
                            self._take(data["seq"], data["state"])
                except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
                    pass
                self.ws = None
                self.reconnects += 1
                await asyncio.sleep(0.1)

    async def drop(self) -> None:
        """Cut the connection the way a Wi-Fi drop would (no closing handshake)."""
        conn = self.ws._response.connection if self.ws is not None else None
        # a connection already being closed (a drop a moment ago, a reconnect under way) has no
        # transport left to cut
        if conn is not None and conn.transport is not None:
            conn.transport.abort()

    def stop(self) -> None:
        self.task.cancel()


class Referee:
    """Posts taps with keys and expected_seq; retries a tap (same key) when the server is down."""

    def __init__(self, base: str, match: int, token: str) -> None:
        self.base, self.match = base, match
        self.headers = {"Authorization": f"Bearer {token}"}
        self.acked: list[tuple[int, dict]] = []

    async def tap(self, event: dict, expected_seq: int | None = None, key: str | None = None,
                  retry_for: float = 30) -> httpx.Response:
        body = {"event": event, "key": key or uuid.uuid4().hex}
        if expected_seq is not None:
            body["expected_seq"] = expected_seq
        end = time.monotonic() + retry_for
        async with httpx.AsyncClient(base_url=self.base, timeout=10) as http:
            while True:
                try:
                    r = await http.post(f"/api/matches/{self.match}/events/", json=body, headers=self.headers)
                    if r.status_code < 500:
                        if r.status_code == 201:  # stored, or a repeated key's first answer
                            self.acked.append((r.json()["seq"], event))
                        return r
                except httpx.TransportError:
                    pass
                if time.monotonic() > end:
                    raise TimeoutError(f"tap {event} not acknowledged")
                await asyncio.sleep(0.2)


def replay(config: dict, events: list[dict]) -> dict:
    """The engine's state for a log, through the command line as an outsider would."""
    p = subprocess.run([PY, "-m", "sinuca", "replay", "-"], input=json.dumps({"config": config, "events": events}),
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout)


async def settle(spectators: list[Spectator], seq: int, timeout: float = 15) -> None:
    """Wait until every screen shows ``seq``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not all(s.seq == seq for s in spectators):
        await asyncio.sleep(0.05)


FRAME = DEMO_FRAME  # a 15-red frame: free ball, retorno, undo; ends on the 6 and the 7
