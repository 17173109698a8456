"""Which page kinds of a match are watched, in every process: a change is rendered only for them.

A kind (``"tv:pt-br"``, see ``render.payload_key``) is watched when a socket of this process
listens to it (the registry) or when another process has marked it in the shared cache. Each
process marks a kind when its first socket of that kind opens, before that socket reads its
first state, and renews its marks every ``RENEW`` seconds; a mark lapses ``TTL`` seconds after
its last renewal. A publisher reads the marks after its commit, so a socket that opened too late
to be seen read a state that already holds the change. Whatever slips through (a cache outage,
a mark that lapsed) is caught at delivery: a kind with sockets that a change came without is
rendered there (``Delivery.deliver``). With the in-memory channel layer there is one process and
no marks: the registry says it all.
"""
from __future__ import annotations

import logging
from typing import Iterable

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

TTL = 30  # s: a process's mark without renewal (a process that died stops costing renders)
RENEW = 10.0  # s between renewals of this process's marks


def shared() -> bool:
    """True when several processes share the channel layer (Redis), so marks are needed."""
    return "InMemory" not in settings.CHANNEL_LAYERS["default"]["BACKEND"]


def _name(match_id: int, key: str) -> str:
    return f"live.watch.{match_id}.{key}"


def mark(pairs: Iterable[tuple[int, str]]) -> None:
    """Mark ``(match id, kind)`` pairs as watched by this process for ``TTL`` seconds. A cache
    failure is logged, never raised: delivery renders what a change came without."""
    names = {_name(m, k): 1 for m, k in pairs}
    if not names or not shared():
        return
    try:
        cache.set_many(names, TTL)
    except Exception:  # noqa: BLE001 - the kinds get rendered at delivery instead
        log.warning("could not mark %d watched page kinds in the shared cache", len(names), exc_info=True)


def remote(match_id: int, keys: Iterable[str]) -> set[str] | None:
    """The kinds among ``keys`` that some process marked for ``match_id`` (one cache round
    trip); an empty set with one process; ``None`` when the cache cannot say (render all)."""
    if not shared():
        return set()
    keys = list(keys)
    try:
        got = cache.get_many([_name(match_id, k) for k in keys])
    except Exception:  # noqa: BLE001 - render every kind rather than miss one
        return None
    return {k for k in keys if _name(match_id, k) in got}
