"""Webhooks: the federation tells its subscribers (a newspaper's site, a club's app, a TV
graphics feed) when a match starts, when a result is in and when a season's ranking changes.

Each message is a :class:`~scoreboard.core.models.WebhookDelivery` row per subscriber, stored
before it is sent, in ``seq`` order (the row's id) and under an idempotency ``key``
(``result:<match>:<seq>``, ``match_started:<match>``, ``ranking:<season>:<digest>``) that is
unique per subscriber: the same news is never stored, so never sent, twice. The body is JSON
``{"seq", "key", "kind", "at", "data"}``; the headers carry ``X-Sinuca-Signature:
sha256=<hex HMAC-SHA256 of the body under the subscriber's secret>``, ``X-Sinuca-Seq`` and
``Idempotency-Key``. :func:`deliver_due` posts each subscriber's
undelivered rows in seq order, stops at the first failure (a 5xx, a timeout, a refused
connection) and tries it again after 1, 2, 4… up to 60 seconds, so a subscriber never gets seq
n+1 before n; after a restart it resumes from the first undelivered seq, and ``manage.py
webhooks resend NAME --from-seq N`` sends again from seq ``N`` for a subscriber that lost its
copy (the same keys: a subscriber that kept them drops the repeats).

A match's start and end are noted in their event's own transaction (``log.on_notable``: stored
with the event or not at all, one query when nobody subscribes, and only for those two events;
the referee's other taps cost nothing); a ranking is compared by the sender, after results, off
the referee's path.

The sender runs in the served app (:func:`start_background`, from ``scoreboard.asgi``): a daemon
thread of each serving process, of which the one holding the database's lock file sends (one
sender per database, so never two posts of one row at once); it wakes when a news is stored in
its process, else every second, and costs one query per 5 seconds while the server has no
subscriber. ``manage.py webhooks send`` is the same loop in a process of its own, for a server
whose app is not running; it takes the same lock, so it waits while a served app sends.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta
from typing import Callable

from django.db import IntegrityError, close_old_connections, transaction
from django.utils import timezone

from sinuca import Phase

from . import singleton
from .models import Webhook, WebhookDelivery

log = logging.getLogger(__name__)

KINDS = ("result", "ranking", "match_started")
BACKOFF_MAX = 60.0  # seconds between two tries of a subscriber that keeps failing
TIMEOUT = 10.0  # seconds a subscriber has to answer one delivery
NO_SUBSCRIBER_POLL = 5.0  # seconds between two looks for a subscriber while there is none
LOCK = "webhooks-sender"

wakeup = threading.Event()
"""Set after a news is stored in this process: its sender need not wait out its poll."""


def new_secret() -> str:
    """A fresh signing secret (256 bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


def sign(secret: str, body: bytes) -> str:
    """``"sha256=<hex>"``: the HMAC-SHA256 of ``body`` under ``secret``, as the header carries it."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    """Whether ``header`` is ``body``'s signature under ``secret`` (constant time): what a
    subscriber runs on each delivery."""
    return hmac.compare_digest(sign(secret, body), header or "")


def enqueue(kind: str, key: str, data: dict) -> int:
    """Store the news ``kind`` (one of :data:`KINDS`) under idempotency ``key`` for every active
    subscriber of that kind that does not have it yet; returns how many rows were stored."""
    stored = 0
    for hook in Webhook.objects.filter(active=True):
        if hook.kinds and kind not in hook.kinds:
            continue
        try:
            with transaction.atomic():
                WebhookDelivery.objects.create(webhook=hook, key=key, kind=kind, payload=data)
            stored += 1
        except IntegrityError:
            pass  # already stored for this subscriber: the news is not sent twice
    if stored:
        transaction.on_commit(wakeup.set)
    return stored


def on_change(change) -> None:
    """A match's first event (it started) or an event that ended it (its result): noted for the
    subscribers, in the event's transaction. Subscribed to ``log.on_notable`` at start-up; other
    events cost nothing."""
    state = change.state or {}
    over = state.get("phase") == Phase.MATCH_OVER.value
    if change.seq != 1 and not over:
        return
    if not Webhook.objects.filter(active=True).exists():
        return
    m = change.match
    if m.rehearsal:
        return
    if change.seq == 1:
        enqueue("match_started", f"match_started:{m.pk}", {"match": m.pk, "players": m.player_names})
    if over:
        enqueue("result", f"result:{m.pk}:{change.seq}", result_data(m, state))


def result_data(match, state: dict) -> dict:
    """A result as the subscribers get it: ``{"match", "players", "frames", "winner" (0, 1 or
    None), "competition"}``."""
    from .models import Fixture

    fx = Fixture.objects.filter(match_id=match.pk).values_list("competition_id", flat=True).first()
    return {"match": match.pk, "players": match.player_names, "frames": list(state.get("frames") or []),
            "winner": state.get("match_winner"), "competition": fx}


def overruled(rec) -> None:
    """Store the news of a protest's overruling (``core.overrulings``: a ``MatchRecord`` of kind
    ``overruling`` with ``data`` ``{"winner", "frames"}`` and ``reason``) for every subscriber:
    a ``result`` keyed ``overruling:<match>:<record>``, its data with ``overruled``: the reason.
    After the record commits."""
    match = rec.match
    news = {**result_data(match, {"frames": rec.data["frames"], "match_winner": rec.data["winner"]}),
            "overruled": rec.reason}
    transaction.on_commit(lambda: enqueue("result", f"overruling:{match.pk}:{rec.pk}", news))


def connect() -> None:
    """Subscribe :func:`on_change` to the log (once, from ``AppConfig.ready``)."""
    from . import log as event_log

    event_log.on_notable(on_change)


def check_rankings() -> int:
    """Compare each season's ranking with what the subscribers were last told: a new ranking
    is stored as news ``ranking:<season>:<digest>`` (the same ranking is the same key: never
    twice). Returns how many rows were stored."""
    from . import seasons
    from .models import Season

    if not Webhook.objects.filter(active=True).exists():
        return 0
    stored = 0
    for season in Season.objects.all():
        rows = seasons.ranking(season)
        if not rows:
            continue
        text = json.dumps(rows, sort_keys=True, default=str)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        stored += enqueue("ranking", f"ranking:{season.pk}:{digest}",
                          {"season": season.pk, "name": season.name, "ranking": rows})
    return stored


def body_of(d: WebhookDelivery) -> bytes:
    """The exact bytes sent (and signed) for delivery ``d``."""
    return json.dumps({"seq": d.pk, "key": d.key, "kind": d.kind, "at": d.created_at.isoformat(),
                       "data": d.payload}, sort_keys=True, separators=(",", ":")).encode()


def _post(url: str, body: bytes, headers: dict) -> int:
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:  # noqa: S310 - a configured https/http URL
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code


def backoff(attempts: int) -> float:
    """Seconds before try number ``attempts + 1``: 1, 2, 4… capped at :data:`BACKOFF_MAX`."""
    return min(BACKOFF_MAX, 2.0 ** max(0, attempts - 1))


def deliver_due(now: datetime | None = None, post: Callable[[str, bytes, dict], int] = _post) -> dict:
    """Send each active subscriber's undelivered rows in seq order, until one fails or is not
    due yet (its ``next_try_at``). Returns ``{"sent", "failed"}``. A 2xx answer marks the row
    delivered; anything else (or an exception) counts a try and schedules the next by
    :func:`backoff`, and that subscriber's later rows wait behind it."""
    now = now or timezone.now()
    sent = failed = 0
    for hook in Webhook.objects.filter(active=True):
        for d in WebhookDelivery.objects.filter(webhook=hook, delivered_at__isnull=True).order_by("pk"):
            if d.next_try_at and d.next_try_at > now:
                break
            body = body_of(d)
            headers = {"Content-Type": "application/json", "User-Agent": "sinuca-webhooks",
                       "X-Sinuca-Signature": sign(hook.secret, body), "X-Sinuca-Seq": str(d.pk),
                       "X-Sinuca-Kind": d.kind, "Idempotency-Key": d.key}
            try:
                status = post(hook.url, body, headers)
                error = "" if 200 <= status < 300 else f"HTTP {status}"
            except Exception as e:  # noqa: BLE001 - a subscriber's fault never stops the others
                error = f"{type(e).__name__}: {e}"[:300]
            d.attempts += 1
            if not error:
                d.delivered_at, d.last_error, d.next_try_at = timezone.now(), "", None
                d.save(update_fields=["attempts", "delivered_at", "last_error", "next_try_at"])
                sent += 1
                continue
            d.last_error = error
            d.next_try_at = now + timedelta(seconds=backoff(d.attempts))
            d.save(update_fields=["attempts", "last_error", "next_try_at"])
            failed += 1
            break  # order: the next waits for this one
    return {"sent": sent, "failed": failed}


def resend(hook: Webhook, from_seq: int) -> int:
    """Mark ``hook``'s rows from seq ``from_seq`` on as undelivered, to be sent again in order
    (same keys and bodies); returns how many."""
    return WebhookDelivery.objects.filter(webhook=hook, pk__gte=from_seq).update(
        delivered_at=None, next_try_at=None, attempts=0, last_error="")


class Sender:
    """One pass after another of the sender: the rankings compared when a result was stored
    since the last pass, then the due rows sent (:func:`deliver_due`)."""

    def __init__(self) -> None:
        self.seen_result: int | None = None

    def step(self) -> dict:
        """One pass; returns :func:`deliver_due`'s counts. A ranking that cannot be read is
        logged and the rows are sent regardless."""
        last = WebhookDelivery.objects.filter(kind="result").order_by("-pk").values_list("pk", flat=True).first()
        if last != self.seen_result:
            self.seen_result = last
            try:
                check_rankings()
            except Exception:  # noqa: BLE001 - a season the core cannot read: the rest goes on
                log.exception("ranking check failed")
        return deliver_due()


def _hold(stop: Callable[[], bool], wait: float):
    """The database's sender lock, waited for (``wait`` seconds between tries) until ``stop()``;
    None when stopped first."""
    while not stop():
        lock = singleton.hold(LOCK)
        if lock is not None:
            return lock
        time.sleep(wait)
    return None


def run(stop: Callable[[], bool] = lambda: False, idle: float = 1.0) -> None:
    """The sender's loop in a process of its own (``manage.py webhooks send``): once it holds
    the database's sender lock (while a served app sends, it waits), a pass
    (:class:`Sender`), then a short sleep; until ``stop()``."""
    lock = _hold(stop, idle * 5)
    sender = Sender()
    try:
        while not stop():
            sender.step()
            time.sleep(idle)
    finally:
        if lock is not None:
            lock.close()


def _serve(poll: float) -> None:
    """The served app's sender thread: never raises (a failure is logged and tried again after
    1, 2, 4… up to :data:`BACKOFF_MAX` seconds), ends with the process."""
    lock = _hold(lambda: False, poll * 5)  # noqa: F841 - held for the process's life
    sender, delay = Sender(), 1.0
    while True:
        try:
            close_old_connections()
            if not Webhook.objects.filter(active=True).exists():
                wakeup.wait(NO_SUBSCRIBER_POLL)
                wakeup.clear()
                continue
            sender.step()
            delay = 1.0
            wakeup.wait(poll)
            wakeup.clear()
        except Exception:  # noqa: BLE001 - the database away, say: the thread never dies
            log.exception("webhooks sender")
            time.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)


_started = threading.Lock()
_thread: list[threading.Thread] = []


def start_background(poll: float = 1.0) -> bool:
    """Start the served app's sender in a daemon thread of this process (it dies with it),
    once; True when it runs. Called by ``scoreboard.asgi`` in a serving process only, never on
    a request's path."""
    with _started:
        if not _thread:
            t = threading.Thread(target=_serve, args=(poll,), name="webhooks-sender", daemon=True)
            t.start()
            _thread.append(t)
    return True
