"""Fixtures of the web tests: a match with its referee's secrets, clients logged in or not; one
live server and one Chromium for the whole run (``live_server.py``, ``browser.py``)."""
from __future__ import annotations

import asyncio
import inspect
import os
import threading
import time

import pytest
from django.test import Client

import browser
import live_server
from scoreboard.core.matches import create_match

# Before the test modules import them: every ChannelsLiveServerTestCase shares one Daphne, every
# sync_playwright() one Chromium.
live_server.install()
browser.install()


def _engine_seed_may_connect() -> None:
    """The tablet pages fetch the run's engine snapshot from this process's own server
    (``browser.SEED_SNAPSHOT``), another origin: the Content-Security-Policy's connect-src lets
    that one origin in for the test run (the forked live servers inherit it), or every tablet
    would boot its engine cold."""
    from django.conf import settings

    policy = getattr(settings, "CONTENT_SECURITY_POLICY", {}).get("DIRECTIVES")
    if policy:
        policy["connect-src"] = [*policy["connect-src"], browser.seed_origin()]


_engine_seed_may_connect()


def _commits_without_fsync() -> None:
    """The test database on SQLite commits without waiting for the disk (WAL with
    synchronous=NORMAL: a commit survives a crash of the process, not a power cut, which a test
    database never needs). The app's synchronous=FULL costs an fsync per commit, 3.4 ms measured
    on this machine's disk (0.07 ms without), and more when other work shares the disk: the test
    database's migrations, every flush and every tap of the live-server tests pay it."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.sqlite3":
        db.setdefault("OPTIONS", {})["init_command"] = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
    elif "postgresql" in db["ENGINE"]:
        # The same on PostgreSQL (pass 2): a commit returns before its WAL is flushed; every
        # transactional test's flush (a TRUNCATE of every table) is a commit.
        opts = db.setdefault("OPTIONS", {})
        opts["options"] = (opts.get("options", "") + " -c synchronous_commit=off").strip()


_commits_without_fsync()  # before the first connection (and the live server's fork) is made


def _flush_by_delete_on_postgresql() -> None:
    """A transactional test's flush on PostgreSQL (pass 2) deletes the rows instead of
    ``TRUNCATE``-ing every table: TRUNCATE makes new files for each of the ~50 tables and their
    indexes, about a second per test, most of pass 2's time beside pass 1; a DELETE of the few
    rows a test made takes milliseconds. Django's foreign keys on PostgreSQL are DEFERRABLE
    INITIALLY DEFERRED, so the order does not matter inside the flush's transaction. With
    ``reset_sequences`` (no test here asks it) Django's own TRUNCATE is kept."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or not tables:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return ["SET CONSTRAINTS ALL DEFERRED"] + [f"DELETE FROM {self.quote_name(t)}" for t in tables]

    DatabaseOperations.sql_flush = sql_flush


_flush_by_delete_on_postgresql()


def _fast_test_hashing() -> None:
    """Credentials are hashed with MD5 in the test process (Django's advice for tests; PBKDF2 is
    kept second, so a hash made otherwise still checks): PBKDF2's 0.26 s per ``create_match``
    was 40 % of the API tests' time in pass 2. The fault tests' workers keep the real hashers."""
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher",
                                 *[h for h in settings.PASSWORD_HASHERS if "MD5" not in h]]


def _whitenoise_scans_once() -> None:
    """Each Django test ``Client`` builds the middleware chain, and WhiteNoise's builds its table
    of STATIC_ROOT's files (1,700 files, os.stat and headers for each): 0.21 s per client, a third
    of the API tests' time. The table is the same until ``collectstatic`` rewrites the manifest
    (the fault tests run it once), so this process computes it once per manifest."""
    from whitenoise.base import WhiteNoise

    original = WhiteNoise.update_files_dictionary
    tables: dict = {}

    def update_files_dictionary(self, root, prefix):
        manifest = os.path.join(root, "staticfiles.json")
        stamp = os.stat(manifest).st_mtime_ns if os.path.exists(manifest) else None
        from django.conf import settings

        def fn(f):  # a bound method is a new object per middleware: key on its function
            return getattr(f, "__func__", f)

        # which files are immutable depends on the storage (hashed names or not)
        key = (root, prefix, stamp, self.max_age, self.allow_all_origins, self.charset,
               fn(self.add_headers_function), fn(self.immutable_file_test),
               settings.STORAGES["staticfiles"]["BACKEND"])
        if key not in tables:
            before = dict(self.files)
            original(self, root, prefix)
            tables[key] = {u: f for u, f in self.files.items() if before.get(u) is not f}
        self.files.update(tables[key])

    WhiteNoise.update_files_dictionary = update_files_dictionary


_fast_test_hashing()
_whitenoise_scans_once()


def _own_redis_per_worker() -> None:
    """Under pytest-xdist (``scripts/test.sh`` runs two workers) each worker takes its own Redis
    database and channel prefix. The tests clear the cache before and after each test, and the
    cache's ``clear()`` is a FLUSHDB: on a shared database one worker's clear wiped the other's
    rate-limit counts in the middle of a test; pub/sub channels ignore the database number, so the
    prefix keeps two workers' match groups (same ids in both test databases) apart too. Set
    before any cache or layer is used; ``os.environ`` for the subprocesses the tests start."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    redis_url = os.environ.get("REDIS_URL")
    if not (worker.startswith("gw") and redis_url):
        return
    from django.conf import settings

    n = int(worker[2:]) + 1  # database 0 stays the serial run's
    base, _, tail = redis_url.rpartition("/")
    own = f"{base}/{n}" if tail.isdigit() else f"{redis_url.rstrip('/')}/{n}"
    prefix = f"{settings.CHANNEL_PREFIX}-{worker}"
    os.environ.update(REDIS_URL=own, CHANNEL_PREFIX=prefix)
    for cache in settings.CACHES.values():
        if cache.get("LOCATION") == redis_url:
            cache.update(LOCATION=own, KEY_PREFIX=prefix)
    for layer in settings.CHANNEL_LAYERS.values():
        config = layer.get("CONFIG", {})
        if "hosts" in config:
            config["hosts"] = [dict(h, address=own) if isinstance(h, dict) else own for h in config["hosts"]]
            config["prefix"] = prefix


_own_redis_per_worker()


@pytest.fixture
def created(db):
    """A new 15-red, one-frame match, Ana breaking: the Created record with token and URLs."""
    return create_match("Ana Souza", "Bia Lima", first_breaker=0)


@pytest.fixture
def referee_client(created) -> Client:
    """A client logged in as the match's referee through its signed link."""
    client = Client()
    resp = client.get(created.referee_url)
    assert resp.status_code == 302
    return client


@pytest.fixture
def auth(created) -> dict:
    """The bearer-token header of the match's referee."""
    return {"HTTP_AUTHORIZATION": f"Bearer {created.token}"}


@pytest.fixture(autouse=True)
def fresh_process_memories():
    """Each test starts and ends with this process's memories forgotten (``core.memory.forget``:
    the log's engines, the rendered pages, the trusted senders, the competitions' plans, a hub
    whose loop is gone) and the cache cleared: Django's SQLite ids never come back after a
    delete, but a rolled-back test's do, and the next test then saw the previous match's board;
    a table's PIN tries of one test refused the next test's login with a 429."""
    from django.core.cache import cache

    from scoreboard.core import memory

    memory.forget()
    cache.clear()
    yield
    memory.forget()
    cache.clear()


@pytest.fixture
async def _hub_stopped_in_its_loop():
    """End every task the test left on its event loop, and close the channel layer's
    connections, while that loop still runs. Left to the loop's close (``asyncio.Runner``
    cancels every task at once, then channels_redis flushes the layer from ``loop.close``), the
    hub's listener, the publisher's sender, a socket the test never disconnected and the layer's
    own reader were all cancelled in one sweep, and the ones that clean up by awaiting the layer
    (an UNSUBSCRIBE under the shard's lock, a socket's last database call) waited on what the
    sweep had just cancelled: now and then the close never ended, every thread idle (pass 2's
    time-outs at a socket test's teardown, which scripts/test.sh used to retry). Here they are
    cancelled first, the layer's reader still running, and one that does not end within 20 s
    fails the test with its stack instead of hanging."""
    yield
    from channels.layers import get_channel_layer

    from scoreboard.live.hub import hub

    me = asyncio.current_task()
    # the hub's tasks first (its listener unsubscribes through the layer), then everything else
    # the test started: the publisher's sender, sockets never disconnected, catch-ups
    first = [t for t in (hub.subscription._task, hub.subscription._reconciler, hub.boards._task)
             if t is not None and not t.done()]
    for round_ in (first, [t for t in asyncio.all_tasks() if t is not me and not t.done()
                           and "_do_receiving" not in repr(t.get_coro())]):
        for task in round_:
            task.cancel()
        if round_:
            _, stuck = await asyncio.wait(round_, timeout=5)
            if stuck:
                # channels_redis's pub/sub receive, cancelled, unsubscribes its channel and can
                # wait there on the shard's lock (a pass-2 teardown failed so once): a second
                # cancel ends that clean-up (it logs it), which the closing layer makes moot
                for task in stuck:
                    task.cancel()
                _, stuck = await asyncio.wait(stuck, timeout=15)
            if stuck:
                import io

                out = io.StringIO()
                for task in stuck:
                    task.print_stack(file=out)
                pytest.fail(f"{len(stuck)} task(s) of the test did not end when cancelled:\n{out.getvalue()}")
    layer = get_channel_layer()
    close = getattr(layer, "close_pools", None) or getattr(layer, "flush", None)
    if close is not None and type(layer).__name__ != "InMemoryChannelLayer":
        await asyncio.wait_for(close(), timeout=20)  # the layer's reader and connections


@pytest.fixture(autouse=True)
def the_default_language():
    """Each test starts in the site's default language (pt-br), whatever an earlier test in its
    process left active: a request through LocaleMiddleware activates its language in the thread
    and nothing resets it, so a Portuguese message test passed in the full run and failed alone."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def hub_stopped_before_the_loop_closes(request):
    """An async test's hub is stopped in its own loop (see ``_hub_stopped_in_its_loop``)."""
    if inspect.iscoroutinefunction(getattr(request.node, "obj", None)):
        request.getfixturevalue("_hub_stopped_in_its_loop")
    yield


@pytest.fixture(autouse=True)
def warm_tablet_engine(request):
    """Tablet pages boot their engine from the run's snapshot (``browser.SEED_SNAPSHOT``) unless
    the test is marked ``cold_engine`` (the snapshot's own tests start from nothing)."""
    browser.WARM_ENGINE = request.node.get_closest_marker("cold_engine") is None
    yield
    browser.WARM_ENGINE = True


@pytest.fixture(autouse=True)
def plain_static_storage(settings):
    """Serve static files from the finders: tests must not depend on a prior collectstatic."""
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}


@pytest.fixture(autouse=True)
def no_report_rate_limit(settings):
    """The report endpoints' per-address limit is off unless a test sets ``REPORT_RATE``: the
    suite asks from one address, and with Redis the counts outlive a test. PDFs render in the
    test's process."""
    settings.REPORT_RATE = None
    settings.PDF_PROCESS = False  # a render process would not see the test database
    from scoreboard.core import limits

    live_server.forget_slots(limits.READS)
    live_server.forget_slots(limits.PDFS)
    yield
    live_server.forget_slots(limits.READS)
    live_server.forget_slots(limits.PDFS)


def _fresh_sync_executor_in_a_forked_child() -> None:
    """A live-server test forks its Daphne process from this one. asgiref's thread-sensitive
    executor keeps its one worker thread in the parent once any earlier test used it (every async
    test does), so in the child the ORM calls of database_sync_to_async never ran and the sockets
    closed at once: every browser test after the websocket tests (now test_live_*) failed. The child
    gets a new executor."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    from scoreboard.live.hub import hub

    hub.__init__()  # its tasks belong to the parent's loops


os.register_at_fork(after_in_child=_fresh_sync_executor_in_a_forked_child)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests (marker ``browser``: a live Daphne server forked from this process)
    before every other test, whatever their file names, then the ``services`` tests.

    An in-process async websocket test (``WebsocketCommunicator``: test_live_*, test_bad_input,
    test_security) leaves state in this process that a later forked live server inherits, and
    its pushes then never reached the pages (commit 1964d3a renamed a file to run first for it;
    the fork hook above mends the one cause found). File names no longer decide it: this runs
    after pytest-django's own reordering (trylast) and moves the browser tests to the front,
    keeping the order of both groups. The live-server test case flushes the database when it
    ends, so the tests after it start from an empty database as they expect."""
    browser = [item for item in items if item.get_closest_marker("browser")]
    # then the tests that start their own processes (marker ``services``, tens of seconds each):
    # the two workers then end the run on the many short tests, not one of them on a long test
    # while the other is idle
    services = [item for item in items if item.get_closest_marker("services")
                and not item.get_closest_marker("browser")]
    if browser or services:
        first = {id(item) for item in browser + services}
        items[:] = browser + services + [item for item in items if id(item) not in first]




def pytest_sessionfinish(session: pytest.Session) -> None:
    browser.stop()
    live_server.stop_all()


@pytest.fixture(scope="session", autouse=True)
def _no_connection_left_when_the_test_database_is_dropped(django_db_setup, django_db_blocker):
    """On PostgreSQL, end every other session on the test database just before it is dropped.
    Threads of the run (the async tests' executor, a competition's wake timer) keep connections
    of their own, which this thread cannot close; the drop then failed with "database test_test
    is being accessed by other users" after waiting 5 s. Finalized before ``django_db_setup``,
    whose teardown drops the database."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cur:
        cur.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()")


def _checked_out() -> int | None:
    """Connections of this process's database pool handed out and not given back; None when the
    run has no pool (SQLite, or DB_POOL=0)."""
    from django.db import connection

    pool = getattr(connection, "pool", None) if connection.vendor == "postgresql" else None
    if pool is None or pool.closed:  # a closed pool's figures are its last ones
        return None
    stats = pool.get_stats()
    return stats.get("pool_size", 0) - stats.get("pool_available", 0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    item._pool_out_before = _checked_out()  # before the test's fixtures, as measured after them
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """After the test's own teardown:

    After the last browser test (they run first, see above): stop the shared Chromium and live
    server, so nothing of Playwright's event loop or the server's process outlives them.

    A test whose threads keep pooled connections fails here, by name.

    A thread that used the ORM keeps its connection until it calls ``connection.close()`` (a
    request's end does it for request threads). A test that forgot it (16 PDF renders in threads)
    left 15 of the pool's 20 checked out, and tests much later in the PostgreSQL pass waited for
    a connection and answered 503 (CI failed four tests of other files). Threads still ending
    are given a few seconds. One more is let pass: a thread that lives on (the async tests'
    executor) may hold one between its calls, which is bounded and not what starves a pool."""
    yield
    if item.get_closest_marker("browser") and (nextitem is None or not nextitem.get_closest_marker("browser")):
        browser.stop()
        live_server.stop_all()
    before = getattr(item, "_pool_out_before", None)
    if before is None:
        return
    deadline = time.monotonic() + 5
    while (now := _checked_out()) is not None and now > before + 1 and time.monotonic() < deadline:
        time.sleep(0.05)  # polling a counter another thread changes: no event to wait on
    if now is not None and now > before + 1:
        raise AssertionError(
            f"{item.nodeid} left {now - before} pooled database connection(s) checked out: a "
            "thread it started used the ORM without connection.close() at its end; threads now: "
            + ", ".join(t.name for t in threading.enumerate()))
