"""Rendered reports kept in the shared cache, one per (kind, match, seq, language).

A report of a given seq never changes (the log is append-only), so a PDF, CSV or export is built
once per change and then served from the cache (Redis with ``REDIS_URL``, so every worker shares
it). The key carries the match's creation time too: a test database or a restored one may reuse
match ids, and must never be served another match's report.
"""
from __future__ import annotations

from typing import Callable

from django.core.cache import cache

from ..core.models import Match

TTL = 24 * 3600  # a finished match's sheet is asked for again the next day at most


def key(kind: str, match: Match, seq: int, lang: str = "") -> str:
    """The cache key of one report of ``match`` at ``seq`` in ``lang``."""
    born = int(match.created_at.timestamp() * 1_000_000) if match.created_at else 0
    return f"report:{kind}:{match.pk}:{born}:{seq}:{lang}"


def get(kind: str, match: Match, seq: int, lang: str = ""):
    """The cached report, or None."""
    return cache.get(key(kind, match, seq, lang))


def put(kind: str, match: Match, seq: int, lang: str, value) -> None:
    """Keep a report built at ``seq``."""
    cache.set(key(kind, match, seq, lang), value, TTL)


def cached(kind: str, match: Match, lang: str, build: Callable[[], tuple[int, object]]):
    """The report at the match's current seq (``match.seq`` as read by the caller), built by
    ``build() -> (seq it was built at, value)`` on a miss and kept under that seq."""
    value = get(kind, match, match.seq, lang)
    if value is None:
        seq, value = build()
        put(kind, match, seq, lang, value)
    return value
