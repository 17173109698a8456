"""A process's caches bounded by the bytes they hold, not by how many entries they have.

A cache of 64 entries is small when each is a score and large when each holds a 3,000-event
match: what a worker can afford is bytes. :class:`ByteLRU` keeps each entry's size as its owner
measures it (:func:`text_bytes` for rendered text, an estimate the owner keeps up to date for an
object that grows, such as a fold of a log) and drops the least recently used entries while the
total is over its bound. Pure Python, no Django.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, Iterator, TypeVar

V = TypeVar("V")
_MISSING = object()


def text_bytes(*texts) -> int:
    """The memory a handful of strings (or bytes, or dicts of them) take, about: a str of ASCII is
    one byte a character, more for other characters (``sys.getsizeof``), plus its header."""
    import sys

    total = 0
    for t in texts:
        if isinstance(t, dict):
            total += sys.getsizeof(t) + text_bytes(*t.keys(), *t.values())
        elif isinstance(t, (list, tuple)):
            total += sys.getsizeof(t) + text_bytes(*t)
        else:
            total += sys.getsizeof(t)
    return total


class ByteLRU(Generic[V]):
    """A mapping of at most ``max_bytes`` (sum of the sizes given with the entries), least
    recently used first out; thread-safe.

    Args:
        max_bytes: the bound, in bytes (an entry larger than it is not kept at all), or a
            function giving it (read at each change: a setting).
        sizeof: the size of a value, for ``cache[key] = value``.
        on_evict: called as ``on_evict(key, value)`` for each entry dropped to make room, outside
            the lock.
    """

    def __init__(self, max_bytes: int | Callable[[], int], sizeof: Callable[[V], int] | None = None,
                 on_evict: Callable[[Hashable, V], None] | None = None) -> None:
        self._max = max_bytes
        self._sizeof = sizeof
        self._data: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._on_evict = on_evict

    @property
    def max_bytes(self) -> int:
        """The bound now, in bytes."""
        return int(self._max() if callable(self._max) else self._max)

    @property
    def nbytes(self) -> int:
        """The sum of the kept entries' sizes (bytes), never above ``max_bytes``."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[Hashable]:
        return iter(list(self._data))

    def __getitem__(self, key) -> V:
        hit = self.get(key, _MISSING)
        if hit is _MISSING:
            raise KeyError(key)
        return hit

    def __setitem__(self, key, value: V) -> None:
        """Keep ``value`` at the size ``sizeof`` gives it."""
        self.put(key, value, self._sizeof(value))

    def get(self, key, default=None):
        """The value of ``key`` (now the most recently used), or ``default``."""
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return default
            self._data.move_to_end(key)
            return hit[0]

    def put(self, key, value: V, nbytes: int) -> None:
        """Keep ``value`` under ``key`` as ``nbytes`` bytes, dropping the least recently used
        entries while the total is over the bound."""
        nbytes = max(0, int(nbytes))
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if nbytes <= self.max_bytes:
                self._data[key] = (value, nbytes)
                self._bytes += nbytes
            dropped = self._shrink_locked(keep=key)
        self._evicted(dropped)

    def resize(self, key, value: V, nbytes: int) -> None:
        """Say that ``key`` (if still kept and still ``value``) now takes ``nbytes``: an object
        that grew in place. Drops entries, this one last, while over the bound."""
        with self._lock:
            hit = self._data.get(key)
            if hit is None or hit[0] is not value:
                return
            self._bytes += max(0, int(nbytes)) - hit[1]
            self._data[key] = (value, max(0, int(nbytes)))
            dropped = self._shrink_locked(keep=key)
        self._evicted(dropped)

    def pop(self, key, default=None):
        """Drop ``key``; its value, or ``default``."""
        with self._lock:
            hit = self._data.pop(key, None)
            if hit is None:
                return default
            self._bytes -= hit[1]
            return hit[0]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._bytes = 0

    def _shrink_locked(self, keep) -> list:
        dropped, bound = [], self.max_bytes
        while self._bytes > bound and self._data:
            k = next(iter(self._data))
            if k == keep and len(self._data) > 1:
                self._data.move_to_end(k)
                continue
            v, n = self._data.pop(k)
            self._bytes -= n
            dropped.append((k, v))
        return dropped

    def _evicted(self, dropped: list) -> None:
        if self._on_evict is not None:
            for k, v in dropped:
                self._on_evict(k, v)
