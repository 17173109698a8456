"""One log line while the channel layer's Redis is away, one when it is back.

channels_redis's pub/sub receive task logs a traceback every second while Redis is unreachable
("Unexpected exception in receive task"), in every worker: a 20 s outage was 40 tracebacks on two
workers, and the line that matters was lost among them. :data:`OUTAGE` is a logging filter on the
layer's loggers and the hub's: the first connection error of an outage becomes one warning line
without its traceback, the next ones are dropped, and :meth:`Outage.check` (the hub's
once-a-second reconciliation) logs "back" once no error has come for ``QUIET`` seconds.
"""
from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger(__name__)

LOGGERS = ("channels_redis.pubsub", "channels_redis.core", "scoreboard.live.hub.subscription")


def _unreachable(exc: BaseException) -> bool:
    try:
        import redis
    except ImportError:  # no Redis client: no Redis outage either
        return isinstance(exc, OSError)
    return isinstance(exc, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError))


class Outage(logging.Filter):
    """A filter that turns a Redis outage's repeated connection tracebacks into one line (module
    docstring). ``QUIET``: seconds without a connection error after which Redis counts as back
    (the layer retries every second)."""

    QUIET = 3.0

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.since: float | None = None  # time.monotonic() of the outage's first error, or None
        self.last = 0.0  # of its latest

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None or not _unreachable(exc):
            return True
        with self._lock:
            now = time.monotonic()
            self.last = now
            if self.since is not None:
                return False
            self.since = now
        record.msg = "channel layer: Redis unreachable (%s: %s): live screens catch up from the database until it answers"
        record.args = (type(exc).__name__, exc)
        record.exc_info, record.exc_text = None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True

    def check(self) -> None:
        """Log "back" once, when an outage's errors have stopped for ``QUIET`` seconds."""
        with self._lock:
            if self.since is None or time.monotonic() - self.last < self.QUIET:
                return
            down = self.last - self.since
            self.since = None
        log.warning("channel layer: Redis is back (errors for %.0f s)", down)


OUTAGE = Outage()


def install() -> None:
    """Put :data:`OUTAGE` on the channel layer's loggers and the hub's (once)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if OUTAGE not in logger.filters:
            logger.addFilter(OUTAGE)
