"""The shared cache (Redis) with a local fallback: Redis is a cache, never a dependency of the answer.

Django's ``RedisCache`` raises on every call while Redis is down, so a PIN login, the log, the
export and the súmula CSV (all rate-limited, the reports kept in the cache) answered 500 for the
whole outage. :class:`RedisWithLocalFallback` is that backend with this process's memory
(Django's ``LocMemCache``) behind it:

- A call that meets a connection error or timeout is answered by the local cache instead, and for
  ``RETRY_SECONDS`` after it every call goes straight to the local cache (no connection attempt
  per request); then Redis is tried again. The first failure of an outage logs one warning per
  process, the first success after it one more ("Redis is back"): never one line per request.
- Rate-limit counters (keys under ``COUNTER_PREFIX``, django-ratelimit's ``rl:``) are also
  counted locally at all times, and a count is the larger of the two. So during an outage each
  process goes on limiting at the configured rate on its own (a per-process limit: with N workers
  an address gets at most N times the rate), and when Redis comes back empty (restarted without
  persistence, or evicted) the first process that sees a counter missing puts its own count back:
  a restart of Redis cannot reset a limit to zero. What is lost is at most the other processes'
  share of a window's count (docs/operations.md, "When Redis is down").

Options (``CACHES[...]["OPTIONS"]``) other than those below go to redis-py's connection pool as
for ``RedisCache``; ``socket_connect_timeout`` and ``socket_timeout`` default to 0.5 s here, so a
Redis that hangs (not refusing, not answering) costs a request half a second, once per
``RETRY_SECONDS``, not redis-py's unbounded wait.

- ``RETRY_SECONDS`` (float, default 1.0): how long the local cache answers alone after a failure.
- ``COUNTER_PREFIX`` (str, default ``"rl:"``): keys counted locally too (``add`` then ``incr``).
- ``LOCAL_MAX_ENTRIES`` (int, default 10000): the local cache's entries at most.
- ``LOCAL_MAX_BYTES`` (int, default 64 MiB): the local cache's bytes at most
  (:class:`BoundedLocMemCache`).

Without Redis the shared cache is :class:`BoundedLocMemCache` alone: Django's ``LocMemCache``
bounds entries (300 by default), and 300 reports of a long match (its PDF, CSV and statistics
page at each seq) are hundreds of MB in one worker.
"""
from __future__ import annotations

import logging
import threading
import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)

_SOCKET_DEFAULTS = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
_OWN_OPTIONS = ("RETRY_SECONDS", "COUNTER_PREFIX", "LOCAL_MAX_ENTRIES", "LOCAL_MAX_BYTES")
_SIZES: dict[str, dict] = {}  # a BoundedLocMemCache's entries' sizes by key, per name (as LocMemCache's storage)


class BoundedLocMemCache(LocMemCache):
    """Django's ``LocMemCache`` that also keeps its values' bytes (pickled, as stored) under
    ``OPTIONS["MAX_BYTES"]`` (default 64 MiB), least recently used out first, as it keeps its
    entries under ``MAX_ENTRIES``."""

    def __init__(self, name, params):
        params = dict(params)
        options = dict(params.get("OPTIONS") or {})
        self.max_bytes = int(options.pop("MAX_BYTES", 64 * 1024 * 1024))
        params["OPTIONS"] = options
        super().__init__(name, params)
        self._sizes = _SIZES.setdefault(name, {"": 0})

    def _size(self, key, value) -> None:
        sizes = self._sizes
        sizes[""] += len(value) + len(key) - sizes.pop(key, 0)
        sizes[key] = len(value) + len(key)

    def _set(self, key, value, timeout=DEFAULT_TIMEOUT):
        super()._set(key, value, timeout)
        self._size(key, value)
        while self._sizes[""] > self.max_bytes and len(self._cache) > 1:
            old, _ = self._cache.popitem()  # the least recently used (LocMemCache keeps them last)
            self._expire_info.pop(old, None)
            self._sizes[""] -= self._sizes.pop(old, 0)

    def incr(self, key, delta=1, version=None):
        value = super().incr(key, delta, version)
        with self._lock:
            k = self.make_and_validate_key(key, version=version)
            if k in self._cache:
                self._size(k, self._cache[k])
        return value

    def _cull(self):
        super()._cull()
        self._forget_gone()

    def _delete(self, key):
        gone = super()._delete(key)
        if gone:
            self._sizes[""] -= self._sizes.pop(key, 0)
        return gone

    def clear(self):
        with self._lock:
            self._cache.clear()
            self._expire_info.clear()
            self._sizes.clear()
            self._sizes[""] = 0

    def _forget_gone(self) -> None:
        for k in [k for k in self._sizes if k and k not in self._cache]:
            self._sizes[""] -= self._sizes.pop(k)

    @property
    def nbytes(self) -> int:
        """The bytes kept now (keys and pickled values)."""
        return self._sizes[""]


class _Switch:
    """One process's view of one Redis: answering or not, and since when."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.down_until = 0.0  # time.monotonic() before which Redis is not tried again
        self.outage = False  # a warning was logged and no success has followed yet


_SWITCHES: dict[str, _Switch] = {}
_SWITCHES_LOCK = threading.Lock()


def _unreachable() -> tuple[type[BaseException], ...]:
    import redis

    # BusyLoadingError (a restarted Redis loading its data) is a ConnectionError too.
    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


class RedisWithLocalFallback(RedisCache):
    """Django's ``RedisCache``, answered from this process's memory while Redis is unreachable
    (module docstring: when, what is logged, how rate-limit counters survive)."""

    def __init__(self, server, params):
        params = dict(params)
        options = dict(params.get("OPTIONS") or {})
        own = {k: options.pop(k) for k in _OWN_OPTIONS if k in options}
        params["OPTIONS"] = {**_SOCKET_DEFAULTS, **options}
        super().__init__(server, params)
        self.retry_seconds = float(own.get("RETRY_SECONDS", 1.0))
        self.counter_prefix = str(own.get("COUNTER_PREFIX", "rl:"))
        # Django makes one backend object per thread: the local cache and the outage state are
        # kept per process and alias (LocMemCache shares its storage by name).
        name = f"redis-fallback:{server}:{params.get('KEY_PREFIX', '')}"
        self._local = BoundedLocMemCache(name, {
            "TIMEOUT": params.get("TIMEOUT", 300), "KEY_PREFIX": params.get("KEY_PREFIX", ""),
            "VERSION": params.get("VERSION", 1),
            "OPTIONS": {"MAX_ENTRIES": int(own.get("LOCAL_MAX_ENTRIES", 10000)),
                        "MAX_BYTES": int(own.get("LOCAL_MAX_BYTES", 64 * 1024 * 1024))}})
        with _SWITCHES_LOCK:
            self._switch = _SWITCHES.setdefault(name, _Switch())
        self._errors = _unreachable()

    # -- the switch ---------------------------------------------------------------------------

    @property
    def redis_down(self) -> bool:
        """Whether this process answers from its local cache now (an outage it has seen)."""
        return self._switch.outage

    def _shared(self, shared, local):
        """``shared()`` (a call to Redis), or ``local()`` when Redis is unreachable."""
        sw = self._switch
        if time.monotonic() < sw.down_until:
            return local()
        try:
            result = shared()
        except self._errors as exc:
            with sw.lock:
                sw.down_until = time.monotonic() + self.retry_seconds
                first, sw.outage = not sw.outage, True
            if first:
                logger.warning("Redis unreachable (%s: %s): the cache and the rate limits use this "
                               "process's memory until it answers again (per-process limits)",
                               type(exc).__name__, exc)
            return local()
        if sw.outage:
            with sw.lock:
                back, sw.outage = sw.outage, False
            if back:
                logger.warning("Redis is back: the shared cache and rate limits are in use again")
        return result

    def _counter(self, key) -> bool:
        return isinstance(key, str) and key.startswith(self.counter_prefix)

    # -- the cache API ------------------------------------------------------------------------

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        if not self._counter(key):
            return self._shared(lambda: super(RedisWithLocalFallback, self).add(key, value, timeout, version),
                                lambda: self._local.add(key, value, timeout, version))
        local_new = self._local.add(key, value, timeout, version)

        def shared():
            added = super(RedisWithLocalFallback, self).add(key, value, timeout, version)
            if added and not local_new:
                # Redis lost a counter this process has counted (restarted empty, or evicted):
                # put this process's count back, and let the caller's incr count on from it.
                super(RedisWithLocalFallback, self).set(
                    key, self._local.get(key, 0, version), timeout, version)
                return False
            if not added and local_new:
                # Another process began this window: the caller's incr counts this one.
                self._local.set(key, 0, timeout, version)
            return added

        return self._shared(shared, lambda: local_new)

    def incr(self, key, delta=1, version=None):
        if not self._counter(key):
            return self._shared(lambda: super(RedisWithLocalFallback, self).incr(key, delta, version),
                                lambda: self._local.incr(key, delta, version))
        try:
            mine = self._local.incr(key, delta, version)
        except ValueError:  # expired here between add and incr
            self._local.set(key, delta, DEFAULT_TIMEOUT, version)
            mine = delta

        def shared():
            try:
                return max(mine, super(RedisWithLocalFallback, self).incr(key, delta, version))
            except ValueError:  # Redis lost it between add and incr
                super(RedisWithLocalFallback, self).set(key, mine, DEFAULT_TIMEOUT, version)
                return mine

        return self._shared(shared, lambda: mine)

    def get(self, key, default=None, version=None):
        return self._shared(lambda: super(RedisWithLocalFallback, self).get(key, default, version),
                            lambda: self._local.get(key, default, version))

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._shared(lambda: super(RedisWithLocalFallback, self).set(key, value, timeout, version),
                            lambda: self._local.set(key, value, timeout, version))

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._shared(lambda: super(RedisWithLocalFallback, self).touch(key, timeout, version),
                            lambda: self._local.touch(key, timeout, version))

    def delete(self, key, version=None):
        if self._counter(key):
            self._local.delete(key, version)
        return self._shared(lambda: super(RedisWithLocalFallback, self).delete(key, version),
                            lambda: self._local.delete(key, version))

    def get_many(self, keys, version=None):
        keys = list(keys)
        return self._shared(lambda: super(RedisWithLocalFallback, self).get_many(keys, version),
                            lambda: self._local.get_many(keys, version))

    def has_key(self, key, version=None):
        return self._shared(lambda: super(RedisWithLocalFallback, self).has_key(key, version),
                            lambda: self._local.has_key(key, version))

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._shared(lambda: super(RedisWithLocalFallback, self).set_many(data, timeout, version),
                            lambda: self._local.set_many(data, timeout, version))

    def delete_many(self, keys, version=None):
        keys = list(keys)
        return self._shared(lambda: super(RedisWithLocalFallback, self).delete_many(keys, version),
                            lambda: self._local.delete_many(keys, version))

    def clear(self):
        self._local.clear()
        return self._shared(lambda: super(RedisWithLocalFallback, self).clear(), lambda: None)
