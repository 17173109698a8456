"""Shared by the Playwright tests: Debian's chromium, headless, as this machine needs it
(Playwright's own browser download does not work here; see stack-notes)."""
from __future__ import annotations

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Fail, never skip, when the browser is missing (scripts/test.sh installs it)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    # Playwright's sync API keeps an event loop in the test's thread; the ORM calls the tests
    # make there are plain synchronous set-up, not async code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
