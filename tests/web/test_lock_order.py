"""Issue 15, one lock order: no request waits for a match's lock while holding a database
connection. ``log.locked`` hands the thread's connection back to the pool before it waits; the
desk's actions that run inside a transaction (a W.O., a player's rename in the admin) take no
match lock at all and are ordered with the referee's appends by the match row's lock.

Each caller is run while another thread holds the match's lock; the lock is a probe that
records, when a thread starts to wait for it, whether that thread gave its connection back.
"""
from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest
from django.db import connections

from scoreboard.core import log, operations
from scoreboard.core.models import Match, Player
from scoreboard.live import hub

pytestmark = [pytest.mark.pg]

ROOT = Path(__file__).resolve().parents[2]


class ProbeLock:
    """A match lock that records each thread that had to wait for it: whether it had just given
    its connection back (``log.give_back_connection``) and whether it still held a pooled one."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.waits: list[dict] = []
        self.waited = threading.Event()
        self.gave_back = threading.local()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if self._lock.acquire(blocking=False):
            return True
        if not blocking:
            return False
        conn = connections["default"]
        pooled = "pool" in conn.settings_dict.get("OPTIONS", {})
        self.waits.append({"gave_back": getattr(self.gave_back, "yes", False),
                           "holds_pooled_connection": pooled and conn.connection is not None})
        self.waited.set()
        return self._lock.acquire(True, timeout)

    def release(self) -> None:
        self._lock.release()

    __enter__ = acquire

    def __exit__(self, *exc) -> None:
        self.release()


@pytest.fixture
def probe(monkeypatch):
    """Install a :class:`ProbeLock` as every match's lock in this process."""
    p = ProbeLock()
    real = log.give_back_connection

    def give_back() -> None:
        p.gave_back.yes = True
        real()

    monkeypatch.setattr(log, "give_back_connection", give_back)
    monkeypatch.setattr(log, "_match_lock", lambda match_id: p)
    return p


def while_held(probe: ProbeLock, caller):
    """Run ``caller()`` in this thread while another thread holds the match lock; the holder lets
    go as soon as the caller waits for it (or the caller is done). ``caller``'s result."""
    held, done = threading.Event(), threading.Event()

    def holder() -> None:
        with log.locked(0):  # the probe is every match's lock
            held.set()
            while not (probe.waited.wait(0.05) or done.is_set()):
                pass

    t = threading.Thread(target=holder, daemon=True)
    t.start()
    assert held.wait(10)
    try:
        return caller()
    finally:
        done.set()
        t.join(10)


def assert_gave_back_before_waiting(probe: ProbeLock) -> None:
    for w in probe.waits:
        assert w["gave_back"] and not w["holds_pooled_connection"], (
            f"waited for the match lock holding a database connection: {w}")


@pytest.mark.django_db(transaction=True)  # the caller must be outside a transaction, as after a commit
def test_the_overlay_push_gives_its_connection_back_before_it_waits_for_the_match(created, probe):
    mid = created.match.pk
    assert Match.objects.get(pk=mid).seq == 0  # this thread now holds a connection, as a request does
    while_held(probe, lambda: hub.overlay_switched(mid))
    assert len(probe.waits) == 1  # it does wait: its render is ordered with the appends
    assert_gave_back_before_waiting(probe)


@pytest.mark.django_db
def test_a_walkover_never_waits_for_the_match_lock(created, probe):
    """The desk's W.O. waited for the lock holding a connection (and inside its transaction)."""
    m = Match.objects.get(pk=created.match.pk)
    done = while_held(probe, lambda: operations.walkover(m, [1], "user:desk", "não compareceu"))
    assert done.walkover == {"absent": [1], "winner": 0}
    assert_gave_back_before_waiting(probe)
    assert probe.waits == []
    assert log.snapshot(m.pk).state["match_winner"] == 0


@pytest.mark.django_db
def test_a_rename_in_the_admin_never_waits_for_the_match_lock_inside_its_transaction(
        created, probe, admin_client):
    """The admin saves a player inside a transaction, whose connection cannot be given back:
    the rename of his matches waited there for each match's lock."""
    ana = Player.objects.get(name="Ana Souza")
    r = while_held(probe, lambda: admin_client.post(
        f"/admin/scoreboard/player/{ana.pk}/change/",
        {"name": "Ana Souza Lima", "club": ana.club, "country": "", "_save": "Salvar"}))
    assert r.status_code == 302, r.content.decode()[:2000]
    assert_gave_back_before_waiting(probe)
    assert probe.waits == []
    assert Match.objects.get(pk=created.match.pk).config["players"][0] == "Ana Souza Lima"


@pytest.mark.django_db
def test_an_engine_cached_before_a_rename_is_not_used_after_it(created, auth, client):
    """With no lock around the rename, the cache is keyed on the row's config as well as its
    seq: the next tap's description names the player as he is called now, also in a worker
    whose engine was cached before the rename (no ``forget`` reaches another process)."""
    mid = created.match.pk

    def tap():
        r = client.post(f"/api/matches/{mid}/events/", data={"event": {"type": "no_pot"}},
                        content_type="application/json", **auth)
        assert r.status_code == 201
        return r.json()["description"]["pt"]

    assert tap() == "Ana Souza não encaçapa; vez de Bia Lima"
    elsewhere = log._engines[mid]  # what another worker has cached at seq 1
    ana = Player.objects.get(name="Ana Souza")
    ana.name = "Ana Souza Lima"
    ana.save()
    assert operations.player_renamed(ana, "Ana Souza", "user:admin") == [mid]
    log._engines[mid] = elsewhere
    assert tap() == "Bia Lima não encaçapa; vez de Ana Souza Lima"


def test_the_match_lock_is_taken_only_through_the_logs_helpers():
    """``log._match_lock`` (and the lock table) is used nowhere but ``core/log.py``, and there only
    by ``locked`` (which gives the connection back before waiting) and the lock-free read's
    try without waiting. A new caller taking the lock itself fails here."""
    names = {"match_lock", "_match_lock", "_locks", "_locks_guard"}
    outside = []
    for path in sorted((ROOT / "scoreboard").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(tree):
            name = (node.attr if isinstance(node, ast.Attribute) else
                    node.id if isinstance(node, ast.Name) else None)
            if name in names and rel != "scoreboard/core/log.py":
                outside.append(f"{rel}:{node.lineno} {name}")
    assert outside == []

    tree = ast.parse((ROOT / "scoreboard/core/log.py").read_text(encoding="utf-8"))
    users = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_match_lock":
                    users.add(fn.name)
    assert users == {"locked", "_snapshot_of"}
    # and the lock-free read only tries: it never waits
    snap = next(f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "_snapshot_of")
    tries = [n for n in ast.walk(snap) if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "acquire"]
    assert tries and all(any(k.arg == "blocking" and getattr(k.value, "value", True) is False for k in t.keywords)
                         for t in tries)
