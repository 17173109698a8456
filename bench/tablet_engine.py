"""Benchmark: the referee tablet's in-browser engine (Pyodide running sinuca/ and presentation/) in
Debian's chromium.

Prints, for a tablet at 1280×800 with touch:
  - tap → updated screen: from the tap's handler to the engine's result in the DOM (online, with
    the server 200 ms away, offline), next to tap → the server's own answer on screen;
  - engine load time: cold (nothing cached), warm (service worker cache, reload), warm offline;
    in a Web Worker and on the page's thread, with the longest task that blocked the page meanwhile;
  - memory: the page's JS heap and the engine's wasm memory;
  - the size of what a tablet downloads for the engine (raw, and brotli'd as it is served).
Target (issue 10): the result on screen within one frame (≤ 16 ms) after the tap's handler starts.

Issue 20: `--stages` prints where a load's time goes, cold (a new browser profile: nothing cached)
and warm (a reload: the service worker's cache and the engine's memory snapshot), each run and as
ranges over `--cold-runs`/`--warm-runs`, with the bytes on the wire as the browser reports them;
`--throttle 10` puts the server behind a 10 Mbit/s link (a proxy: page, worker and service worker
alike; `--throttle-cdp 10` is CDP's Network.emulateNetworkConditions, which holds back the page only).
`--no-snapshot` loads without the snapshot, `--before` also with Pyodide's whole stdlib (as before
issue 20, for a before/after on the same machine).

It starts its own server (Daphne, SQLite in a temporary folder, 127.0.0.1, a free port) and stops
it at the end. Run: .venv/bin/python bench/tablet_engine.py [--taps 16] [--warm-runs 3] [--main-runs 2]
  or: .venv/bin/python bench/tablet_engine.py --stages [--throttle 10] [--cold-runs 3] [--warm-runs 3]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
PY = sys.executable
sys.path.insert(0, str(ROOT / "tests" / "web"))
from browser import ARGS, CHROMIUM  # noqa: E402

DELAY_POSTS = """(() => {
  const f = window.fetch;
  window.fetch = (u, o) => (o && o.method === 'POST') ? new Promise(r => setTimeout(r, 200)).then(() => f(u, o)) : f(u, o);
})()"""
# When each tap's handler started and when the server's answer (or socket message) was on screen.
PROBE = """(() => {
  window.__tapStart = []; window.__served = []; window.__longest = 0;
  window.addEventListener('htmx:configRequest', () => window.__tapStart.push(performance.now()), true);
  document.addEventListener('live:applied', () => window.__served.push(performance.now()));
  try { new PerformanceObserver(l => l.getEntries().forEach(e => { window.__longest = Math.max(window.__longest, e.duration); }))
        .observe({entryTypes: ['longtask']}); } catch (e) {}
})()"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else float("nan")


def download_sizes() -> list[tuple[str, int, int]]:
    """(file, bytes, brotli bytes) of what the service worker keeps for the engine."""
    import brotli
    out = []
    vendor = ROOT / "static" / "vendor" / "pyodide"
    for f in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib_engine.zip", "engine_pyc.zip"):
        data = (vendor / f).read_bytes()
        br = vendor / (f + ".br")
        out.append((f, len(data), len(br.read_bytes()) if br.exists() else len(brotli.compress(data, quality=11))))
    for f in ("engine.js", "engine-worker.js", "referee.js"):
        data = (ROOT / "static" / "scoreboard" / f).read_bytes()
        out.append((f, len(data), len(brotli.compress(data, quality=11))))
    return out


STAGE_NAMES = [
    ("worker_start", "page start → worker's init"),
    ("loader", "import pyodide.mjs"),
    ("wasm_download", "wasm download"),
    ("compile", "wasm compile (after its download)"),
    ("interpreter", "interpreter start / snapshot restore"),
    ("imports", "import sinuca/presentation"),
    ("snapshot_make", "make the snapshot"),
    ("engine", "TabletEngine"),
    ("sync", "back to the page + the log"),
    ("replay", "replay the log"),
    ("ready", "READY (page start → replayed)"),
]


def stages(info: dict) -> dict:
    """Where one load's time went, in ms (see engine-worker.js's marks)."""
    st, w = info["stages"], info["stages"]["worker"]
    shift = st["worker_shift"] - st["page_start"]
    wasm = st["files"].get("pyodide.asm.wasm", {})
    out = {"worker_start": shift + w["start"], "loader": w["loader"] - w["start"]}
    if wasm and w.get("compile_start") is not None:
        out["wasm_download"] = max(0, wasm["end"] - wasm["start"])
        out["compile"] = w["compile_end"] - max(w["compile_start"], wasm["end"])
    out["interpreter"] = w["interpreter"] - max(w.get("compile_end", w["boot_start"]), w["boot_start"])
    out["imports"] = w["imported"] - w["interpreter"]
    out["snapshot_make"] = (w["snapshot_made"] - w["imported"]) if "snapshot_made" in w else 0
    out["engine"] = w["engine"] - w.get("snapshot_made", w["imported"])
    out["sync"] = info["t"]["load_ms"] - (shift + w["engine"])
    out["replay"] = info["t"].get("replay_ms") or 0
    out["ready"] = info["t"].get("ready_replayed_ms") or info["t"]["load_ms"]
    return {k: round(v) for k, v in out.items()}


def wire_bytes(page) -> tuple[int, dict]:
    """Bytes on the wire for this page load, as the browser reports them (Resource Timing's
    transferSize: the page's and the engine worker's; 0 for what came from a cache)."""
    files = page.evaluate("""() => {
      const out = {};
      for (const e of performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')))
        out[e.name.split('?')[0].split('/').pop() || e.name] = e.transferSize;
      for (const [k, v] of Object.entries((sinucaEngine.stages || {}).files || {})) out[k] = v.transfer;
      return out;
    }""")
    return sum(files.values()), files


class Link:
    """A TCP proxy in front of the server that lets ``mbit`` Mbit/s through each way, shared by
    all its connections: the tablet's link. (CDP's Network.emulateNetworkConditions, --throttle-cdp,
    holds back the page only: this Chromium's service worker fetched the 2.7 MB wasm in 0.4 s
    under a 10 Mbit/s emulation, and the engine's worker then took it from the cache.)"""

    def __init__(self, target_port: int, mbit: float) -> None:
        import asyncio
        import threading
        self.rate = mbit * 1e6 / 8
        self.port = free_port()
        self.target = target_port
        self.loop = asyncio.new_event_loop()
        self.next_free = {"down": 0.0, "up": 0.0}
        ready = threading.Event()

        def serve():
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(asyncio.start_server(self.handle, "127.0.0.1", self.port))
            ready.set()
            self.loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        ready.wait(10)

    async def pump(self, reader, writer, way):
        import asyncio
        try:
            while data := await reader.read(16384):
                now = self.loop.time()
                start = max(now, self.next_free[way])
                self.next_free[way] = start + len(data) / self.rate
                await asyncio.sleep(self.next_free[way] - now)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def handle(self, reader, writer):
        import asyncio
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self.pump(reader, up_w, "up"), self.pump(up_r, writer, "down"))


def throttle(ctx, page, mbit: float | None) -> None:
    """Limit the page's link to ``mbit`` Mbit/s down and up, 20 ms latency (CDP emulation)."""
    if not mbit:
        return
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    rate = mbit * 1e6 / 8
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 20,
                                                   "downloadThroughput": rate, "uploadThroughput": rate})


def run_stages(browser, new_match, args) -> None:
    """Cold and warm loads, each stage printed per run, then the ranges."""
    results: dict[str, list[dict]] = {"cold": [], "warm": []}
    wire: list[int] = []

    def one(page, label):
        page.wait_for_function("() => window.sinucaEngine && (sinucaEngine.loaded || sinucaEngine.failed)"
                               " && sinucaEngine.timings.replay_ms", timeout=120000)
        info = page.evaluate("() => ({failed: sinucaEngine.failed, t: sinucaEngine.timings, stages: sinucaEngine.stages,"
                             " snapshot: sinucaEngine.snapshot, err: sinucaEngine.snapshotError})")
        if info["failed"]:
            raise SystemExit(f"{label}: the engine did not load: {info['failed']}")
        row = stages(info)
        total, files = wire_bytes(page)
        print(f"  {label:10} snapshot={str(info['snapshot']):5} " + "  ".join(f"{k}={v}" for k, v in row.items())
              + (f"  [snapshot error: {info['err']}]" if info["err"] else ""))
        return row, total, files

    for i in range(args.cold_runs):
        ctx = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True, locale="pt-BR")
        if args.no_snapshot or args.before:
            ctx.add_init_script("localStorage.setItem('sinuca.engineSnapshot', 'off')")
        if args.before:
            ctx.add_init_script("localStorage.setItem('sinuca.engineStdlib', 'full')")
        reqs = []
        ctx.on("requestfinished", lambda r: reqs.append(r))  # the page's, its worker's and the service worker's
        page = ctx.new_page()
        throttle(ctx, page, args.throttle_cdp)
        page.goto(new_match()["referee_url"])  # a referee link logs in once: a match per profile
        row, total, files = one(page, f"cold #{i + 1}")
        page.wait_for_function("() => sinucaEngine.serviceWorker === true", timeout=60000)
        page.wait_for_timeout(1000)
        by = {}
        for r in reqs:
            sz = r.sizes()
            name = r.url.split("?")[0].rstrip("/").split("/")[-1]
            who = "sw" if r.service_worker else "page"
            by[f"{name}({who})"] = by.get(f"{name}({who})", 0) + sz["responseBodySize"] + sz["responseHeadersSize"]
        total = sum(by.values())
        files = by
        print(f"    bytes on the wire (Playwright, every request of the profile): {total / 1e6:.2f} MB")
        results["cold"].append(row)
        wire.append(total)
        if args.verbose:
            print("    worker's files:", json.dumps(page.evaluate("() => sinucaEngine.stages.files")))
        if i == 0:
            big = sorted(files.items(), key=lambda kv: -kv[1])
            print("    on the wire (bytes, body + headers): " + ", ".join(f"{k} {v}" for k, v in big))
        if i == args.cold_runs - 1:
            page.wait_for_function("() => sinucaEngine.serviceWorker === true", timeout=60000)
            if not (args.no_snapshot or args.before):
                page.wait_for_function("() => sinucaEngine.snapshotStored !== undefined", timeout=60000)
            page.wait_for_timeout(1500)  # the service worker finishes storing the page
            for j in range(args.warm_runs):
                page.reload()
                throttle(ctx, page, args.throttle_cdp)
                results["warm"].append(one(page, f"warm #{j + 1}")[0])
        ctx.close()
    print(f"stages, ms (ranges over runs; link {args.throttle or args.throttle_cdp or 'unlimited'} Mbit/s"
          f"{', snapshot off' if args.no_snapshot else ''}{', as before issue 20 (no snapshot, whole stdlib)' if args.before else ''}):")
    print(f"  {'stage':40} {'cold':>13} {'warm':>13}")
    for key, name in STAGE_NAMES:
        cells = []
        for kind in ("cold", "warm"):
            vals = [r[key] for r in results[kind] if key in r]
            cells.append(f"{min(vals)}–{max(vals)}" if vals else "—")
        print(f"  {name:40} {cells[0]:>13} {cells[1]:>13}")
    print(f"  cold download on the wire: {min(wire) / 1e6:.2f}–{max(wire) / 1e6:.2f} MB (target ≤ 3 MB)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--taps", type=int, default=16, help="taps per phase (at most 20: 15 reds)")
    ap.add_argument("--main-runs", type=int, default=2)
    ap.add_argument("--warm-runs", type=int, default=3)
    ap.add_argument("--cold-runs", type=int, default=3)
    ap.add_argument("--stages", action="store_true", help="only the load's stages, cold and warm")
    ap.add_argument("--throttle", type=float, default=None, help="Mbit/s: the link, a proxy in front of the server")
    ap.add_argument("--throttle-cdp", type=float, default=None, help="Mbit/s by CDP network emulation (the page only)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--compare", action="store_true", help="--stages as --before, then as now, same run")
    ap.add_argument("--before", action="store_true",
                    help="as before issue 20: no snapshot, Pyodide's whole stdlib (the wasm is still brotli'd)")
    ap.add_argument("--no-snapshot", action="store_true", help="load without the memory snapshot")
    ap.add_argument("--debug", action="store_true",
                    help="serve under DEBUG (static files uncompressed) instead of as deployed (collectstatic)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = tempfile.mkdtemp(prefix="tablet-bench-")
    # as deployed (scripts/run.sh): DEBUG off, the collected static files, hashed and compressed;
    # --debug serves them as under DEBUG (uncompressed, but Pyodide's own .br copies)
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp}/db.sqlite3", DJANGO_DEBUG="1" if args.debug else "0")
    env.pop("REDIS_URL", None)
    run = lambda *a: subprocess.run([PY, "manage.py", *a], cwd=ROOT, env=env, check=True,  # noqa: E731
                                    capture_output=True, text=True)
    run("migrate", "--noinput")
    if not args.debug:
        run("collectstatic", "--noinput")
    port = free_port()
    link = Link(port, args.throttle) if args.throttle else None

    def new_match():
        base = f"http://127.0.0.1:{link.port if link else port}"
        return json.loads(run("creatematch", "--player-a", "Ana Souza", "--player-b", "Bia Lima",
                              "--first-breaker", "0", "--base-url", base).stdout)
    match = new_match()
    server = subprocess.Popen([PY, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "scoreboard.asgi:application"],
                              cwd=ROOT, env=env, stdout=open(f"{tmp}/daphne.log", "w"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            if args.stages or args.compare:
                for before in ((True, False) if args.compare else (args.before,)):
                    args.before = before
                    run_stages(browser, new_match, args)
                browser.close()
                return
            ctx = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True, locale="pt-BR")
            ctx.add_init_script(PROBE)
            page = ctx.new_page()

            def load(label):
                page.wait_for_function("() => window.sinucaEngine && (sinucaEngine.loaded || sinucaEngine.failed)",
                                       timeout=120000)
                info = page.evaluate("""() => ({failed: sinucaEngine.failed, t: sinucaEngine.timings, mode: sinucaEngine.mode,
                    longest: window.__longest, heap: performance.memory ? performance.memory.usedJSHeapSize : null,
                    wasm: sinucaEngine.wasmMemory, sw: !!navigator.serviceWorker.controller})""")
                if info["failed"]:
                    raise SystemExit(f"{label}: the engine did not load: {info['failed']}")
                print(f"  {label:34} {info['t']['load_ms']:6.0f} ms (Pyodide {info['t']['pyodide_ms']} ms)"
                      f"  longest page task {info['longest']:5.0f} ms  [{info['mode']}, sw={info['sw']}]")
                return info

            print("engine load (page start → engine ready with the log replayed):")
            page.goto(match["referee_url"])
            first = load("cold (nothing cached), worker")
            page.wait_for_function("() => sinucaEngine.serviceWorker === true", timeout=60000)
            page.wait_for_timeout(1500)  # the service worker finishes storing the page
            warm = []
            for i in range(args.warm_runs):
                page.reload()
                warm.append(load(f"warm (service worker) #{i + 1}, worker"))
            ctx.set_offline(True)
            page.reload()
            load("warm offline, worker")
            ctx.set_offline(False)
            page.evaluate("() => localStorage.setItem('sinuca.engineMode', 'main')")
            main_runs = []
            for i in range(args.main_runs):
                page.reload()
                main_runs.append(load(f"warm, page's thread #{i + 1}"))
            page.evaluate("() => localStorage.removeItem('sinuca.engineMode')")
            page.reload()
            info = load("warm, worker (again)")
            print(f"memory: page JS heap {info['heap'] / 1e6:.1f} MB; engine wasm memory "
                  f"{(info['wasm'] or 0) / 1e6:.1f} MB (worker)")

            def taps(label, n):
                page.evaluate("() => { window.__tapStart = []; window.__served = []; }")
                before = len(page.evaluate("() => refereeQueue.timings()"))
                for i in range(n):
                    # red, black, a miss, a safety: one red every 4 taps, so the 15 reds last 3 × 16 taps
                    # (two different buttons: the same one twice within 0.5 s is dropped as a double tap)
                    if i % 4 < 2:
                        ball = 1 if i % 4 == 0 else 7
                        page.locator(f"#ref-live .row.balls button.ball-{ball}:not([disabled]):not(.multi)").first.tap()
                    else:
                        text = "Sem ponto" if i % 4 == 2 else "Defesa"
                        page.locator("#ref-live button:not([disabled])").filter(has_text=text).first.tap()
                    page.wait_for_function(f"() => refereeQueue.timings().length >= {before + i + 1}", timeout=5000)
                    if label != "offline":
                        page.wait_for_function("() => refereeQueue.length() === 0", timeout=10000)
                t = page.evaluate("() => refereeQueue.timings()")[before:]
                served = page.evaluate("() => window.__served.map((s, i) => s - (window.__tapStart[i] || s))")
                slow = page.evaluate("() => sinucaEngine.slowAnswers")
                line = (f"  {label:26} p50 {statistics.median(t):5.1f} ms  p95 {pct(t, .95):5.1f}  max {max(t):5.1f}"
                        f"  (answers by message so far: {slow})")
                if label != "offline" and served:
                    line += f"   | server's answer on screen p50 {statistics.median(served):6.1f} ms"
                print(line)

            print(f"tap → the engine's result on screen ({args.taps} taps each; target ≤ 16 ms):")
            taps("online", args.taps)
            ctx.add_init_script(DELAY_POSTS)
            page.reload()
            page.wait_for_function("() => window.sinucaEngine && sinucaEngine.loaded", timeout=120000)
            try:
                taps("server 200 ms away", args.taps)
            except Exception:
                page.screenshot(path="/tmp/te/bench-fail.png")
                print(page.evaluate("() => [refereeQueue.state(), refereeQueue.length(), document.getElementById('ref-msg').textContent, document.getElementById('live-seq').dataset.seq]"))
                raise
            ctx.set_offline(True)
            page.wait_for_function("() => navigator.onLine === false", timeout=3000)
            taps("offline", args.taps)
            ctx.set_offline(False)
            page.wait_for_function("() => refereeQueue.length() === 0", timeout=30000)
            browser.close()
            print(f"worker vs page's thread, warm load: {statistics.median(w['t']['load_ms'] for w in warm):.0f} vs "
                  f"{statistics.median(m['t']['load_ms'] for m in main_runs):.0f} ms; longest page task "
                  f"{max(w['longest'] for w in warm):.0f} vs {max(m['longest'] for m in main_runs):.0f} ms")
            del first
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)
    print("download (what the service worker keeps for the engine):")
    total = total_gz = 0
    for name, raw, gz in download_sizes():
        total += raw
        total_gz += gz
        print(f"  {name:24} {raw / 1024:9.1f} KB   brotli {gz / 1024:8.1f} KB")
    print(f"  {'total':24} {total / 1e6:9.2f} MB   brotli {total_gz / 1e6:8.2f} MB")


if __name__ == "__main__":
    main()
