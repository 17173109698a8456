"""Every page kind under its Content-Security-Policy in Chromium: no `securitypolicyviolation`
event and no CSP console error, and the page's scripts ran (its live socket opened, the TV's,
overlay's and tablet's connection up, the tablet's engine ready: Pyodide's WebAssembly in a
worker started from a blob: URL, under the page's policy; the rules page's anchor check ran)."""
from __future__ import annotations

import pytest
from channels.testing import ChannelsLiveServerTestCase

from scoreboard.core.credentials import login_path
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, ENGINE_READY, require_chromium
from test_browser_tablet_engine import PYODIDE, STATIC
from test_csp import page_kinds

# Installed before any page script: every violation the page's document sees
RECORD = """window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sourceFile || '') + ':' + e.lineNumber + ' ' + location.href + ' ' + e.sample));"""
CONN_UP = "() => document.getElementById('conn').classList.contains('up')"
# the pages whose scripts open a live socket as they start (an idle table's TV and overlay wait for a
# match; the rules, the admin and the display guide have none of their own)
SOCKET = {"venue", "match", "fixture match", "hub", "player", "tv", "overlay", "jumbotron", "graphics",
          "desk", "referee"}


@pytest.mark.browser
@STATIC
class PolicyTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        if not PYODIDE.exists():
            pytest.fail(f"{PYODIDE} is missing: bash -c 'source scripts/lib.sh; ensure_pyodide'")

    def test_no_page_kind_violates_its_policy_and_every_script_runs(self):
        from django.conf import settings
        from django.test import Client
        from playwright.sync_api import sync_playwright

        referee = Client()
        kinds, staff = page_kinds(referee)
        base = self.live_server_url
        cookies = [{"name": settings.SESSION_COOKIE_NAME, "value": c.cookies[settings.SESSION_COOKIE_NAME].value,
                    "domain": "127.0.0.1", "path": "/"} for c in (referee, staff)]
        console = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            contexts = []
            for cookie in cookies:
                ctx = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True, locale="pt-BR")
                ctx.add_cookies([cookie])
                ctx.add_init_script(RECORD)
                contexts.append(ctx)
            pages = [ctx.new_page() for ctx in contexts]
            for page in pages:
                page.on("console", lambda m: console.append(m.text) if "Content Security Policy" in m.text
                        or "Content-Security-Policy" in m.text else None)
            seen = {}
            for kind, (url, _) in kinds.items():
                if kind == "engine worker":
                    continue
                page = pages[1] if kind in ("desk", "admin") else pages[0]
                target = base + (url + "#art-999" if kind == "rules" else url)
                if kind in SOCKET:
                    with page.expect_websocket(timeout=30000) as ws:
                        response = page.goto(target, wait_until="load")
                    assert ws.value.url.startswith(base.replace("http", "ws") + "/ws/"), (kind, ws.value.url)
                else:
                    response = page.goto(target, wait_until="load")
                assert "script-src 'self' 'wasm-unsafe-eval'" in response.headers.get("content-security-policy", ""), kind
                if kind in ("tv", "overlay", "referee"):
                    page.wait_for_function(CONN_UP, timeout=30000)
                if kind == "referee":
                    page.wait_for_function(ENGINE_READY, timeout=90000)
                    assert page.evaluate("() => sinucaEngine.failed") is None
                    assert page.inner_text("#engine-status") == "Regras no tablet: prontas"
                if kind == "rules":
                    page.wait_for_function("() => getComputedStyle(document.getElementById('bad-anchor')).display === 'block'",
                                           timeout=15000)
                seen[kind] = page.evaluate("() => window.__csp")
            # the policy is enforced: an injected inline script does not run, and is reported
            page = pages[0]
            page.evaluate("() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1';"
                          " document.body.append(s); }")
            page.wait_for_function("() => window.__csp.length > 0", timeout=5000)
            assert page.evaluate("() => [window.__ran, window.__csp[0].split(' ')[0]]") == [None, "script-src-elem"]
            console[:] = [m for m in console if "inline script" not in m]
            browser.close()
        assert {k: v for k, v in seen.items() if v} == {}
        assert console == []
