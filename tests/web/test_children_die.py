"""A worker that dies, even by ``kill -9``, leaves no PDF renderer behind, and the súmula lock it
held is free at once for the next request."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scoreboard.core.limits import Busy
from scoreboard.core.matches import create_match
from scoreboard.reports import cache as report_cache

ROOT = Path(__file__).resolve().parents[2]

# A worker as serve.py's: Django set up with PDF_PROCESS on, its render pool started by a job;
# it prints its pid once its render process is up, then waits to be killed.
WORKER = """
import os, sys, time
os.environ["DJANGO_SETTINGS_MODULE"] = "scoreboard.settings"
os.environ["PDF_PROCESS"] = "1"
import django
django.setup()
from scoreboard.reports import pdfproc
print(pdfproc._pool().submit(os.getpid).result(timeout=60), flush=True)
time.sleep(600)
"""


def _descendants(pid: int) -> dict[int, str]:
    """pid -> command line of every process below ``pid`` (from /proc)."""
    parents = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                parents[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = {}, [pid]
    while todo:
        p = todo.pop()
        for child, parent in parents.items():
            if parent == p and child not in found:
                found[child] = _cmdline(child)
                todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False


def test_a_worker_killed_by_9_leaves_no_render_process():
    worker = subprocess.Popen([sys.executable, "-c", WORKER], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        renderer = int(worker.stdout.readline())
        children = _descendants(worker.pid)
        assert renderer in children
        assert any("resource_tracker" in cmd for cmd in children.values())  # spawn's tracker
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(10)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [(p, cmd) for p, cmd in children.items() if _alive(p)]
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


@pytest.mark.django_db
def test_a_sheet_lock_held_by_a_dead_worker_is_free_at_once():
    """The lock names its holder; a request that finds it held by a process of this host that is
    gone builds the sheet at once (it waited for the lock to lapse: 25.8 s for a retried súmula)."""
    match = create_match("Ana Souza", "Bia Lima", first_breaker=0).match
    dead = subprocess.Popen(["true"])
    dead.wait()
    lock = report_cache._lock_key("pdf", match, "pt-br")
    from django.core.cache import cache

    cache.set(lock, f"{report_cache._HOST}:{dead.pid}:0", 20)
    began = time.monotonic()
    seq, value = report_cache.single_flight("pdf", match, match.seq, "pt-br",
                                            lambda left, done: done((match.seq, b"%PDF")), wait=5)
    assert (seq, value) == (match.seq, b"%PDF")
    assert time.monotonic() - began < 1
    # a live holder's lock is waited for
    lock = report_cache._lock_key("pdf", match, "en")
    cache.set(lock, f"{report_cache._HOST}:{os.getppid()}:0", 20)
    with pytest.raises(Busy):
        report_cache.single_flight("pdf", match, match.seq, "en", lambda left, done: done((match.seq, b"")), wait=0.3)
    cache.delete(lock)
