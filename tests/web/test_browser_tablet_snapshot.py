"""Issue 20, item 4: the tablet's engine boots a warm load from a memory snapshot of the
interpreter (taken after importing sinuca/ and presentation/ on the first load, kept in Cache
Storage under the Pyodide build + stdlib + engine zip digest), answers exactly as the server's
engine, never boots a snapshot kept under another key, and loads as before when its snapshot is
broken. In Debian's chromium.
"""
from __future__ import annotations

import json

import pytest

from presentation.tablet import TabletEngine
from scoreboard.core.models import Match
from scoreboard.pages import tablet
from scoreboard.pages.referee import tablet_urls

from browser import ARGS, CHROMIUM, settled
from test_browser_tablet_engine import SEQ, EngineCase

SNAP = """async () => {
  const c = await caches.open('sinuca-engine-snapshot');
  return (await c.keys()).map(r => decodeURIComponent(new URL(r.url).pathname.split('/').pop()));
}"""
STALE = """async ([from, to]) => {  // the kept snapshot moved under another (an old engine's) key
  const c = await caches.open('sinuca-engine-snapshot');
  const url = k => location.origin + '/tablet/engine/snapshot/' + encodeURIComponent(k);
  const r = await c.match(url(from));
  await c.put(url(to), new Response(await r.arrayBuffer()));
  await c.delete(url(from));
}"""
BROKEN = """async (key) => {
  const c = await caches.open('sinuca-engine-snapshot');
  await c.put(location.origin + '/tablet/engine/snapshot/' + encodeURIComponent(key),
              new Response(new Uint8Array(4096)));
}"""


def test_the_snapshot_key_changes_with_the_engine_zip(monkeypatch):
    """A new engine (its zip's digest) is a new key: its tablets never boot the old snapshot."""
    key = tablet.snapshot_key()
    assert key.endswith("-" + tablet.engine_zip()[0])
    monkeypatch.setattr(tablet, "engine_zip", lambda: ("0123456789abcdef", b""))
    assert tablet.snapshot_key() != key and tablet.snapshot_key().endswith("-0123456789abcdef")


@pytest.mark.browser
@pytest.mark.cold_engine  # its first load makes the snapshot it then boots
class SnapshotTest(EngineCase):
    def host_view(self, n_events: int) -> str:
        """The server's engine on the server's log: the tablet's HTML as it must be."""
        match = Match.objects.get(pk=self.mid)
        events = [e["event"] for e in self.log()]
        assert len(events) == n_events
        return json.loads(TabletEngine(match.config, events, "pt", tablet_urls(match)).answer(
            json.dumps({"op": "view"})))["html"]

    def loaded(self, page) -> dict:
        self.engine_ready(page)
        page.wait_for_function("() => sinucaEngine.timings.replay_ms", timeout=60000)
        return page.evaluate("() => ({snapshot: sinucaEngine.snapshot, error: sinucaEngine.snapshotError})")

    def test_a_warm_load_boots_the_snapshot_answers_as_the_server_and_never_an_old_or_broken_one(self):
        from playwright.sync_api import sync_playwright

        key = tablet.snapshot_key()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser)
            assert self.loaded(page) == {"snapshot": False, "error": None}  # cold: nothing kept
            # what the worker fetched: Pyodide's core, the engine's stdlib and zip, no lock file
            # (Pyodide is handed one of no packages)
            files = page.evaluate("() => Object.keys(sinucaEngine.stages.files)")
            assert {"pyodide.asm.wasm", "python_stdlib_engine.zip", tablet.engine_zip_url().rsplit("/", 1)[1]} <= set(files)
            assert "pyodide-lock.json" not in files, files
            page.wait_for_function("() => sinucaEngine.snapshotStored === true", timeout=60000)
            assert page.evaluate(SNAP) == [key]
            self.tap_ball(page, 1)
            page.wait_for_function(f"() => ({SEQ})() === 1 && refereeQueue.length() === 0", timeout=30000)

            # warm: the snapshot boots, and the engine answers as the server's
            page.reload()
            assert self.loaded(page) == {"snapshot": True, "error": None}
            view = page.evaluate("() => sinucaEngine.call({op: 'view'})")
            assert view["count"] == 1 and view["html"] == self.host_view(1)
            # a tap offline: drawn by the snapshot-booted engine, as the server's engine draws it
            ctx.set_offline(True)
            page.wait_for_function("() => navigator.onLine === false", timeout=30000)
            self.tap_ball(page, 7)
            page.wait_for_function("() => refereeQueue.length() === 1", timeout=30000)
            assert self.scores(page) == ["8", "0"]
            ctx.set_offline(False)
            page.wait_for_function(f"() => ({SEQ})() === 2 && refereeQueue.length() === 0", timeout=30000)
            settled(page)
            view = page.evaluate("() => sinucaEngine.call({op: 'view'})")
            assert view["count"] == 2 and view["html"] == self.host_view(2)

            # a snapshot under another key (an older engine zip) is not booted, and is replaced
            page.evaluate(STALE, [key, "old-" + key])
            page.reload()
            assert self.loaded(page) == {"snapshot": False, "error": None}
            page.wait_for_function("() => sinucaEngine.snapshotStored === true", timeout=60000)
            assert page.evaluate(SNAP) == [key]
            assert page.evaluate("() => sinucaEngine.call({op: 'view'})")["html"] == self.host_view(2)

            # a broken snapshot: dropped, the engine loads as without it
            page.evaluate(BROKEN, key)
            page.reload()
            info = self.loaded(page)
            assert info["snapshot"] is False and "snapshot refused" in info["error"], info
            assert page.evaluate("() => sinucaEngine.call({op: 'view'})")["html"] == self.host_view(2)
            browser.close()
