"""Shared by the Playwright tests: Debian's chromium, headless, as this machine needs it
(Playwright's own browser download does not work on these machines).

One Chromium for the whole test run. A test writes the usual Playwright code::

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(viewport=..., has_touch=True, locale="pt-BR").new_page()
        ...
        browser.close()

and ``conftest.py`` makes ``playwright.sync_api.sync_playwright`` hand out a *lease* on the
run's one browser (:func:`shared_sync_playwright`): ``launch`` starts Chromium only the first
time (22 launches a run before); the lease's contexts are the test's own — fresh cookies,
storage, service workers and cache, as with a new browser — and closing the lease (``close()``,
``stop()`` or the end of the ``with``) closes them, never the browser. :func:`stop` ends the
browser after the last browser test.
"""
from __future__ import annotations

import asyncio
import os
import pathlib
import threading
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
# The screenshots the browser tests write into shots/ for a person to look at (the pages at
# each size a change was checked at) are taken when SINUCA_SHOTS=1: encoding them was 60 of the
# browser tests' 480 CPU-seconds, on every run, for files nobody opens then. A screenshot a test
# reads (no ``path``: a transparency check) is always taken.
SHOTS_ON = os.environ.get("SINUCA_SHOTS", "") not in ("", "0")

# Chromium's new headless mode opens a real browser window per context, and with it the address
# bar's pop-up, drawn as WebUI in a renderer process of its own (chrome://omnibox-popup.top-chrome/,
# two documents): per context about 0.7 CPU-seconds that no test looks at (15 contexts took 19
# CPU-seconds of Chromium with it, 8.6 without). Chromium reads only the last --disable-features,
# so the features Playwright disables (its own switch, earlier on the line) are repeated here.
# Playwright 1.65's list; a newer driver's list is read from its bundle when it can be.
_PLAYWRIGHT_DISABLED = [
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin",
    "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch"]
NO_OMNIBOX_POPUP = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup"]


def _playwright_disabled_features() -> list[str]:
    """The features Playwright's driver disables in Chromium (its ``chromiumSwitches``)."""
    import re

    try:
        import playwright

        bundle = pathlib.Path(playwright.__file__).parent / "driver/package/lib/coreBundle.js"
        found = re.search(r"disabledFeatures = \[(.*?)\]\.filter", bundle.read_text("utf-8"), re.S)
        names = re.findall(r'"([A-Za-z0-9]+)"', re.sub(r"//[^\n]*", "", found[1]))
        return names or _PLAYWRIGHT_DISABLED
    except Exception:  # noqa: BLE001 - another driver layout: the list of the version we know
        return _PLAYWRIGHT_DISABLED


ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-features=" + ",".join(dict.fromkeys(_playwright_disabled_features() + NO_OMNIBOX_POPUP))]


def require_chromium() -> None:
    """Fail, never skip, when the browser is missing (scripts/test.sh installs it)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    # Playwright's sync API keeps an event loop in the test's thread; the ORM calls the tests
    # make there are plain synchronous set-up, not async code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"


# Every page of a lease counts its HTTP requests in flight (fetch and XHR), so that a test can
# wait until a tap has had its answer (settled) instead of sleeping.
COUNT_REQUESTS = """(() => {
  if (window.__inflight !== undefined) return;
  window.__inflight = 0;
  const f = window.fetch;
  if (f) window.fetch = function () {
    window.__inflight++;
    return f.apply(this, arguments).finally(() => { window.__inflight--; });
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () {
    window.__inflight++;
    this.addEventListener('loadend', () => { window.__inflight--; }, {once: true});
    return send.apply(this, arguments);
  };
})()"""
# True once the page has been calm for three animation frames in a row: no request in flight, the
# referee's tap queue (when the page has one) not sending nor holding a tap it is about to send.
CALM = """() => {
  const q = window.refereeQueue;
  const busy = (window.__inflight || 0) > 0
    || (q && (q.state() === 'sending' || (q.state() === 'idle' && q.length() > 0)));
  window.__calm = busy ? 0 : (window.__calm || 0) + 1;
  return window.__calm >= 3;
}"""


def settled(page, timeout: float = 30000) -> None:
    """Wait until everything a tap started on ``page`` is over: its request answered (or failed,
    offline), the answer drawn. For checks that something did *not* happen ("one tap records
    nothing"): they hold once the page is settled, however slow the machine."""
    page.evaluate("() => { window.__calm = 0; }")
    page.wait_for_function(CALM, polling="raf", timeout=timeout)


# wait_for_function takes an async predicate's Promise as a true value at once (it waits for
# nothing): until_async runs the async check in the page again and again, one at a time, and is
# done when one resolves to exactly ``want``.


def until_async(page, fn: str, arg=None, want=True, timeout: float = 30000) -> None:
    """Wait until the async function ``fn`` (source text, called with ``arg``) resolves to
    ``want`` in ``page`` (a cache filled, say): ``wait_for_function`` would not wait for it.
    Each try is one ``evaluate`` (which awaits the promise), never an ``eval`` inside the page,
    which the pages' Content-Security-Policy refuses."""
    deadline = time.monotonic() + timeout / 1000
    while page.evaluate(fn, arg) != want:
        if time.monotonic() > deadline:
            raise AssertionError(f"still not {want!r} after {timeout / 1000} s: {fn}")
        frames(page, 1)


def until(page, check, timeout: float = 30) -> None:
    """Wait until ``check()``, a condition on the test's side (a request a route holds, say), is
    true: Playwright delivers its events (routes, requests) to the test while the test is in one
    of its calls, so between two checks the page draws a frame."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout} s: {getattr(check, '__doc__', None) or check}")
        frames(page, 1)


def frames(page, n: int = 2) -> None:
    """Wait until the page has drawn ``n`` more frames (a style or a pushed fragment laid out)."""
    page.evaluate("n => new Promise(done => { const f = k => k ? requestAnimationFrame(() => f(k - 1)) : done(); f(n); })", n)


_real_sync_playwright = None
_manager = None  # Playwright's context manager of the run's driver (its process, to end it)
_playwright = None  # the run's one Playwright driver
_browsers: dict[tuple, object] = {}  # launch options -> the running Browser


def _browser(**launch):
    """The run's browser for these launch options, launched on first use."""
    _driver()
    key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in launch.items()))
    browser = _browsers.get(key)
    if browser is None or not browser.is_connected():
        browser = _browsers[key] = _driver().chromium.launch(**launch)
    return browser


# -- the tablet's engine warm in every context ------------------------------------------------
# The tablet's engine boots from a memory snapshot of its interpreter when its Cache Storage has
# one (engine-worker.js: seconds less than starting Pyodide and importing the rules). A new
# context's Cache Storage is empty, so every tablet test booted cold. The run keeps the first
# snapshot a tablet stores (its page hands it to a small server of this process) and puts it
# into each new context's Cache Storage before the engine starts: the page's fetch of the
# engine's worker script waits for that. Everything else of a context stays its own (cookies,
# localStorage, its service worker and that worker's caches): only what a tablet keeps after its
# first load is there. A test marked ``cold_engine`` (conftest.py) gets no snapshot.
WARM_ENGINE = True
_snapshot: dict = {"key": None, "bytes": None}
_seed_server = None

SEED_SNAPSHOT = r"""(() => {
  const SEED = '__SEED__', f = window.fetch;
  if (!f || window.__seedSnapshot) return;
  window.__seedSnapshot = true;
  let seeded = null;
  function key() {
    try { return JSON.parse(document.getElementById('tablet-engine').textContent).snapshot_key; } catch (e) { return null; }
  }
  function snapUrl(k) { return location.origin + '/tablet/engine/snapshot/' + encodeURIComponent(k); }
  // once this tablet has stored its own snapshot, the run keeps it for the next contexts
  function handOver(k) {
    const t = setInterval(() => {
      if (!window.sinucaEngine || sinucaEngine.snapshotStored === undefined) return;
      clearInterval(t);
      if (sinucaEngine.snapshotStored !== true) return;
      caches.open('sinuca-engine-snapshot').then(c => c.match(snapUrl(k))).then(r => r && r.blob())
        .then(b => b && f(SEED + '/' + encodeURIComponent(k), {method: 'POST', body: new Blob([b]), mode: 'no-cors'}))
        .catch(() => null);
    }, 500);
  }
  function seed() {
    if (seeded) return seeded;
    const k = key();
    if (!k || typeof caches === 'undefined') return (seeded = Promise.resolve());
    seeded = caches.open('sinuca-engine-snapshot').then(c => c.match(snapUrl(k)).then(hit => {
      if (hit) return null;
      return f(SEED + '/' + encodeURIComponent(k)).then(r => {
        if (r.ok) return c.put(snapUrl(k), new Response(r.body, {headers: {'Content-Type': 'application/octet-stream'}}));
        handOver(k);
        return null;
      });
    })).catch(() => null);
    return seeded;
  }
  window.fetch = function (input, init) {
    const url = String(input && input.url || input), args = arguments, self = this;
    if (/\/engine-worker[^/]*\.js/.test(url)) return seed().then(() => f.apply(self, args));
    return f.apply(this, arguments);
  };
})()"""


def seed_origin() -> str:
    """The origin of the run's snapshot server (the tablet pages' connect-src lets it in)."""
    return _seed_url()


def _seed_url() -> str:
    """The address of this process's snapshot server (started on first use): GET /<key> answers
    the run's snapshot (404 until a tablet handed one over), POST /<key> hands one over."""
    global _seed_server
    if _seed_server is None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import unquote

        class Handler(BaseHTTPRequestHandler):
            def _headers(self, status: int, length: int = 0) -> None:
                self.send_response(status)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(length))
                self.end_headers()

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                key, data = unquote(self.path.lstrip("/")), _snapshot["bytes"]
                if data is None or key != _snapshot["key"]:
                    self._headers(404)
                    return
                self._headers(200, len(data))
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if _snapshot["bytes"] is None and len(data) > 65536:
                    _snapshot.update(key=unquote(self.path.lstrip("/")), bytes=data)
                self._headers(204)

            def log_message(self, *args) -> None:
                pass

        _seed_server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        _seed_server.daemon_threads = True
        threading.Thread(target=_seed_server.serve_forever, daemon=True, name="engine-snapshot").start()
    return f"http://127.0.0.1:{_seed_server.server_address[1]}"


class BrowserLease:
    """A test's view of the shared browser: what it opens, it closes; the browser stays."""

    def __init__(self, browser) -> None:
        self._browser = browser
        self._contexts: list = []

    def new_context(self, **options):
        ctx = self._browser.new_context(**options)
        ctx.add_init_script(COUNT_REQUESTS)  # for settled()
        if WARM_ENGINE:
            ctx.add_init_script(SEED_SNAPSHOT.replace("__SEED__", _seed_url()))
        self._contexts.append(ctx)
        return ctx

    def new_page(self, **options):
        """As ``Browser.new_page``: a page in a context of its own (closed with the lease)."""
        return self.new_context(**options).new_page()

    @property
    def contexts(self) -> list:
        return list(self._contexts)

    def is_connected(self) -> bool:
        return self._browser.is_connected()

    def _hand_over_snapshot(self) -> None:
        """Until the run has an engine snapshot: let a page whose engine made one store it and
        hand it over (``SEED_SNAPSHOT``) before its context closes (once per run)."""
        if _snapshot["bytes"] is not None or not WARM_ENGINE or not self._browser.is_connected():
            return
        for ctx in self._contexts:
            for page in ctx.pages:
                try:
                    if not page.evaluate("() => !!(window.sinucaEngine && sinucaEngine.snapshotBytes"
                                         " && window.__seedSnapshot)"):
                        continue
                    page.wait_for_function("() => sinucaEngine.snapshotStored !== undefined", timeout=15000)
                    if page.evaluate("() => sinucaEngine.snapshotStored") is True:
                        until(page, lambda: _snapshot["bytes"] is not None, timeout=15)
                    return
                except Exception:  # noqa: BLE001 - a page closed or gone: the next test hands one over
                    continue

    def close(self, **_ignored) -> None:
        self._hand_over_snapshot()
        while self._contexts:
            ctx = self._contexts.pop()
            if _playwright is not None and self._browser.is_connected():
                _within(60, ctx.close)

    def __getattr__(self, name):
        return getattr(self._browser, name)


class _Chromium:
    def __init__(self, owner: "SharedPlaywright") -> None:
        self._owner = owner

    def launch(self, **options) -> BrowserLease:
        lease = BrowserLease(_browser(**options))
        self._owner.leases.append(lease)
        return lease

    def __getattr__(self, name):
        return getattr(_driver().chromium, name)


def _driver():
    """The run's Playwright driver, its event loop marked as running in this thread as
    Playwright's sync API expects between its calls."""
    global _manager, _playwright
    if _playwright is None:
        _manager = _real_sync_playwright()
        _playwright = _manager.start()
    asyncio._set_running_loop(_playwright._loop)
    return _playwright


def _within(seconds: float, call) -> None:
    """Run a closing call of Playwright's (they have no time-out); past ``seconds`` (a browser
    that crashed leaves it waiting for ever: a whole run hung in one) end the driver, which ends
    its browsers and the wait, and start afresh at the next test."""
    global _manager, _playwright, _browsers
    proc = getattr(getattr(getattr(_manager, "_client", None), "_transport", None), "_proc", None)
    killed = []

    def end_driver() -> None:
        if proc is not None and proc.returncode is None:
            killed.append(True)
            proc.kill()

    timer = threading.Timer(seconds, end_driver)
    timer.daemon = True
    timer.start()
    try:
        call()
    except Exception:  # noqa: BLE001 - the driver was ended, or went away by itself
        pass
    finally:
        timer.cancel()
    if killed:
        _manager = _playwright = None
        _browsers = {}


def _outside() -> None:
    """Leave Playwright's code: its event loop no longer marked as running in this thread. A
    test's code after its ``with sync_playwright()`` block (``async_to_sync`` of a log append,
    say) then runs as it did when the block ended the driver."""
    asyncio._set_running_loop(None)


class SharedPlaywright:
    """What ``sync_playwright()`` returns in the tests: usable as ``with`` or ``start()/stop()``."""

    def __init__(self) -> None:
        self.leases: list[BrowserLease] = []
        self.chromium = _Chromium(self)

    def start(self) -> "SharedPlaywright":
        _driver()
        return self

    def stop(self) -> None:
        if _playwright is not None:
            _driver()
        while self.leases:
            self.leases.pop().close()
        _outside()

    def __enter__(self) -> "SharedPlaywright":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __getattr__(self, name):  # devices, selectors, request...
        return getattr(_driver(), name)


def shared_sync_playwright() -> SharedPlaywright:
    return SharedPlaywright()


def install() -> None:
    """Route ``playwright.sync_api.sync_playwright`` to the shared browser, and make a
    ``Page.screenshot`` with a ``path`` write nothing unless :data:`SHOTS_ON` (conftest.py, before
    the test modules import it)."""
    global _real_sync_playwright
    import playwright.sync_api as api

    if _real_sync_playwright is None:
        _real_sync_playwright = api.sync_playwright
        api.sync_playwright = shared_sync_playwright
        _real_screenshot = api.Page.screenshot

        def screenshot(self, *args, **kw):
            if kw.get("path") is not None and not SHOTS_ON:
                return b""
            return _real_screenshot(self, *args, **kw)
        screenshot.__doc__ = _real_screenshot.__doc__
        api.Page.screenshot = screenshot


def stop() -> None:
    """Close the browser and the Playwright driver (after the last browser test)."""
    global _manager, _playwright
    if _playwright is None:
        return
    _driver()
    _browsers.clear()  # the driver closes the browsers it launched as it stops
    try:
        # 0.1 s alone; after the browser tests it never returned and was ended at its limit
        # (10 s of a worker's time): past 2 s the driver is ended, which ends its browsers
        _within(2, _playwright.stop)
    finally:
        _manager = _playwright = None
        _outside()


# The tablet's engine is ready for taps: loaded and, on a referee page, caught up with the log
# (referee.js takes taps through it only then), or failed for good.
ENGINE_READY = ("() => window.sinucaEngine && (sinucaEngine.failed || (sinucaEngine.loaded"
                " && (!window.refereeQueue || refereeQueue.engineOn())))")
