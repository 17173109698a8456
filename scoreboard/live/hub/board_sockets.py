"""The venue's board sockets (the venue, the jumbotron, a competition's desk): each board kind
and language is rendered once per burst of changes and sent whole to its sockets
(``live.boards`` renders them)."""
from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async

from .. import boards
from .registry import Sink
from .wire import frame_text

log = logging.getLogger(__name__)

BOARD_SETTLE = 0.05  # seconds a board refresh waits, so a burst of taps costs one render


class BoardSockets:
    """This process's board sockets, by ``"<kind>:<lang>"``, and their refreshes. Board messages
    carry a version, one counter per process, in place of a seq."""

    def __init__(self, stats: dict) -> None:
        self.stats = stats
        self._boards: dict[str, set[Sink]] = {}  # "venue:pt-br" -> its sockets in this process
        self._version = 0
        self._task: asyncio.Task | None = None
        self._print: tuple | None = None  # boards.fingerprint() of the last refresh

    async def open(self, sink: Sink) -> None:
        """Register a board socket (``sink.key`` is ``"<kind>:<lang>"``) and send it the board
        as it is now. A refresh that runs meanwhile sends a newer version, which this first one
        never overwrites (versions only grow)."""
        self._boards.setdefault(sink.key, set()).add(sink)
        version = self._version
        if self._print is None:
            self._print = await database_sync_to_async(boards.fingerprint)()
        kind, lang = sink.key.split(":", 1)
        text = await database_sync_to_async(boards.render_board)(kind, lang)
        await sink.push(version, text)

    def close(self, sink: Sink) -> None:
        """Forget a board socket that closed."""
        sinks = self._boards.get(sink.key)
        if sinks is not None:
            sinks.discard(sink)
            if not sinks:
                del self._boards[sink.key]

    def changed(self) -> None:
        """A change arrived: refresh this process's boards soon (once for a burst of changes)."""
        if self._boards and (self._task is None or self._task.done()):
            self._task = asyncio.ensure_future(self.refresh(BOARD_SETTLE))

    async def refresh(self, settle: float = 0.0) -> None:
        """Render each open board kind and language once, and send it to its sockets."""
        if settle:
            await asyncio.sleep(settle)
        try:
            self._print = await database_sync_to_async(boards.fingerprint)()
            self._version += 1
            version = self._version
            for key in list(self._boards):
                kind, lang = key.split(":", 1)
                text = await database_sync_to_async(boards.render_board)(kind, lang)
                frame = None  # built once for every Daphne socket of this board
                for sink in list(self._boards.get(key, ())):
                    if sink.proto is not None and frame is None:
                        frame = frame_text(text)
                    await sink.push(version, text, frame)
            self.stats["board_renders"] = self.stats.get("board_renders", 0) + 1
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the reconciler tries again in a second
            log.exception("board refresh failed")

    async def reconcile(self) -> None:
        """Refresh the boards when the database says something changed that no message brought
        (a match scheduled or a table assigned in the admin, a lost change)."""
        if not self._boards or (self._task is not None and not self._task.done()):
            return
        now = await database_sync_to_async(boards.fingerprint)()
        if now != self._print:
            self._task = asyncio.ensure_future(self.refresh())
