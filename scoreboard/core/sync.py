"""The venue's sender: deliver the outbox to the federation, and pull its registry.

At least once, in outbox order (so in seq order per match), in batches of
:data:`~scoreboard.core.outbox.BATCH`, each record with its idempotency key; a record is
marked delivered only when the federation acknowledged it, so a sender killed at any point
resumes from the outbox. A refusal for a gap (the federation lacks an earlier record of a match:
its database was restored, say) puts that match's records from the expected seq back in the
queue. Errors and time-outs back off exponentially (1 s doubling to ``FEDERATION_BACKOFF_MAX``).
Nothing at the venue waits for it: taps write the outbox and return.
"""
from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from . import federation, outbox, singleton
from .models import OutboxRecord

logger = logging.getLogger(__name__)

MAX_BYTES = 200 * 1024
"""A batch's JSON stays under this (the federation takes bodies up to 256 KB)."""


class SendError(Exception):
    """The federation could not be reached or did not take the batch: ``status`` (0: no
    answer) and its body's error ``code``."""

    def __init__(self, status: int, code: str = "", message: str = "") -> None:
        super().__init__(f"{status} {code} {message}".strip())
        self.status, self.code = status, code


def _call(method: str, path: str, body: dict | None = None) -> dict:
    """One JSON request to the federation with the venue's bearer token."""
    data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
    req = urllib.request.Request(settings.FEDERATION_URL + path, data=data, method=method, headers={
        "Authorization": f"Bearer {settings.FEDERATION_TOKEN}", "Content-Type": "application/json",
        "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=settings.FEDERATION_TIMEOUT) as resp:
            return json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        try:
            answer = json.loads(e.read() or b"{}")
        except ValueError:
            answer = {}
        if e.code in (409, 422) and isinstance(answer, dict):  # a record refused: the answer says which
            answer["_status"] = e.code
            return answer
        err = answer.get("error", {}) if isinstance(answer, dict) else {}
        raise SendError(e.code, err.get("code", ""), err.get("message", "")) from e
    except (OSError, ValueError) as e:  # refused, reset, timed out, not JSON
        raise SendError(0, "unreachable", str(e)) from e


@dataclass
class Sent:
    """One batch's outcome: records ``acked``, and the ``refusal`` code that stopped it (``gap``
    requeues a match's records; ``owned_elsewhere`` and ``rejected`` are logged and set aside)."""

    acked: int = 0
    refusal: str = ""


def send_once() -> Sent:
    """Post the oldest undelivered records (one batch) and mark the acknowledged ones delivered.
    Raises :class:`SendError` when the federation is away or answers an error (401 for a wrong
    or revoked token: nothing is marked, the outbox keeps everything)."""
    size = max(1, min(outbox.BATCH, settings.FEDERATION_BATCH))
    batch = list(OutboxRecord.objects.filter(delivered_at__isnull=True).order_by("id")[:size])
    if not batch:
        return Sent()
    records = [{"key": r.key, "kind": r.kind, "match": r.match_uid, "seq": r.seq, "payload": r.payload} for r in batch]
    while len(records) > 1 and len(json.dumps(records)) > MAX_BYTES:  # the federation's body limit
        records, batch = records[:len(records) // 2], batch[:len(records) // 2]
    answer = _call("POST", "/api/federation/records/", {"records": records})
    acked = [k for k in answer.get("acked") or [] if isinstance(k, str)]
    now = timezone.now()
    done = OutboxRecord.objects.filter(key__in=acked, delivered_at__isnull=True).update(delivered_at=now)
    if answer.get("_status") not in (409, 422):
        return Sent(done)
    code = (answer.get("error") or {}).get("code", "")
    expected = answer.get("expected") or {}
    if code == "gap" and expected.get("match") is not None:
        uid, seq = str(expected["match"]), int(expected.get("seq") or 0)
        again = OutboxRecord.objects.filter(match_uid=uid, delivered_at__isnull=False)
        again = again if seq <= 1 else again.filter(seq__gte=seq)
        n = again.update(delivered_at=None)
        logger.warning("federation: gap in match %s at seq %s, %s records queued again", uid, seq, n)
    else:
        # refused for good (another venue's match, an event the federation's engine refuses):
        # set aside so the rest of the day still goes; the log says which and why
        key = answer.get("key") or (answer.get("error") or {}).get("key")
        rest = [r for r in batch if r.key not in acked]
        victim = next((r for r in rest if r.key == key), rest[0] if rest else None)
        if victim is not None:
            OutboxRecord.objects.filter(pk=victim.pk).update(delivered_at=now)
            logger.error("federation refused %s (%s): %s", victim.key, code, answer.get("error"))
    return Sent(done, code)


def sync(max_seconds: float | None = None, sleep=None, clock=None) -> int:
    """Send until the outbox is empty (``manage.py federation sync``), backing off on errors
    (``sleep`` and ``clock`` injectable for tests); stops after ``max_seconds`` if given. Returns
    the records delivered; raises the last :class:`SendError` when time ran out on one."""
    import time

    sleep, clock = sleep or time.sleep, clock or time.monotonic
    end = None if max_seconds is None else clock() + max_seconds
    total, delay = 0, 1.0
    while True:
        try:
            sent = send_once()
        except SendError:
            if end is not None and clock() + delay > end:
                raise
            sleep(delay)
            delay = min(delay * 2, settings.FEDERATION_BACKOFF_MAX)
            continue
        delay = 1.0
        total += sent.acked
        if not sent.acked and not sent.refusal:
            return total


def pull() -> federation.Pulled:
    """Pull the federation's registry and store it (``federation.apply_registry``)."""
    return federation.apply_registry(_call("GET", "/api/federation/registry/"))


_started = threading.Lock()
_thread: list[threading.Thread] = []


def _hold_sender_lock():
    """One sender per venue database: the first of its processes to take the lock file sends;
    it is released when that process dies (even by ``kill -9``), and another takes over."""
    return singleton.hold("federation-sender")


def _run(poll: float) -> None:
    import time

    lock = None
    delay = 1.0
    while True:
        if lock is None:
            lock = _hold_sender_lock()
            if lock is None:
                time.sleep(poll * 5)
                continue
        try:
            close_old_connections()
            sent = send_once()
            delay = 1.0
            if sent.acked or sent.refusal:
                continue
            outbox.wakeup.wait(poll)
            outbox.wakeup.clear()
        except SendError as e:
            logger.warning("federation: %s; next try in %.0f s", e, delay)
            time.sleep(delay)
            delay = min(delay * 2, settings.FEDERATION_BACKOFF_MAX)
        except Exception:  # the database away, say: never let the thread die
            logger.exception("federation sender")
            time.sleep(delay)
            delay = min(delay * 2, settings.FEDERATION_BACKOFF_MAX)


def start_background(poll: float = 1.0) -> bool:
    """Start the sender in a daemon thread of this process (it dies with it), once; False when
    this server is no venue of a federation."""
    if not outbox.enabled():
        return False
    with _started:
        if not _thread:
            t = threading.Thread(target=_run, args=(poll,), name="federation-sender", daemon=True)
            t.start()
            _thread.append(t)
    return True


__all__ = ["SendError", "Sent", "pull", "send_once", "start_background", "sync"]
