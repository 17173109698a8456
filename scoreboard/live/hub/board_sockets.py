"""The venue's board sockets (the venue, the jumbotron, a competition's desk, its hub and its
players' pages): each board kind and language is rendered once per burst of changes and sent
whole to its sockets (``live.boards`` renders them). A player's page is rendered again only when
the burst touched a match of his competition (or the database changed under it), and a board
whose text came out the same as last sent is not sent again."""
from __future__ import annotations

import asyncio
import logging
import re

from channels.db import database_sync_to_async

from .. import boards
from .registry import Sink
from .wire import frame_text

log = logging.getLogger(__name__)

BOARD_SETTLE = 0.05  # seconds a board refresh waits, so a burst of taps costs one render
SCOPED = re.compile(r"^player-(\d+)-\d+$")
"""Board kinds that show one competition's matches only (a player's page): its competition id."""


def competitions_of(match_ids: set[int]) -> set[int]:
    """The competitions whose fixtures are these matches (one query)."""
    from ...core.models import Fixture

    return set(Fixture.objects.filter(match_id__in=match_ids).values_list("competition_id", flat=True))


def players_of(match_ids: set[int]) -> set[int]:
    """The player rows of these matches' sides (two queries)."""
    from ...core.models import Match, MatchMember

    out: set[int] = set()
    for a, b in Match.objects.filter(pk__in=match_ids).values_list("player_a_id", "player_b_id"):
        out.update((a, b))
    out.update(MatchMember.objects.filter(match_id__in=match_ids).values_list("player_id", flat=True))
    return out


def _players_scope(kind: str) -> set[int] | None:
    """The players a registered board shows (``boards.register``), None when unscoped."""
    extra = boards.registered(kind)
    if extra is None or extra[2] is None:
        return None
    return extra[2](extra[0])


class BoardSockets:
    """This process's board sockets, by ``"<kind>:<lang>"``, and their refreshes. Board messages
    carry a version, one counter per process, in place of a seq."""

    def __init__(self, stats: dict) -> None:
        self.stats = stats
        self._boards: dict[str, set[Sink]] = {}  # "venue:pt-br" -> its sockets in this process
        self._version = 0
        self._task: asyncio.Task | None = None
        self._print: tuple | None = None  # boards.fingerprint() of the last refresh
        self._dirty: set[int] = set()  # matches changed since the last refresh began
        self._everything = False  # a change of unknown scope (the database's fingerprint)
        self._sent: dict[str, str] = {}  # "<kind>:<lang>" -> the text last sent to its sockets

    async def open(self, sink: Sink, have: str = "") -> None:
        """Register a board socket (``sink.key`` is ``"<kind>:<lang>"``) and send it the board
        as it is now, unless ``have`` is that board's digest (``boards.digest``: the page that
        opened the socket printed this very board, so sending it again would only cost the
        bytes). A refresh that runs meanwhile sends a newer version, which this first one never
        overwrites (versions only grow)."""
        self._boards.setdefault(sink.key, set()).add(sink)
        version = self._version
        if self._print is None:
            self._print = await database_sync_to_async(boards.fingerprint)()
        kind, lang = sink.key.split(":", 1)
        text = await database_sync_to_async(boards.render_board)(kind, lang)
        if self._boards.get(sink.key) == {sink}:
            # the board's only socket: the next refresh need not send this text again (with
            # others, they may hold an older text, which the next refresh must replace)
            self._sent[sink.key] = text
        if have and have == boards.digest(text):
            sink.last_seq = max(sink.last_seq, version)  # as if sent: an older refresh is not either
            self.stats["board_first_skipped"] = self.stats.get("board_first_skipped", 0) + 1
            return
        await sink.push(version, text)

    def close(self, sink: Sink) -> None:
        """Forget a board socket that closed."""
        sinks = self._boards.get(sink.key)
        if sinks is not None:
            sinks.discard(sink)
            if not sinks:
                del self._boards[sink.key]
                self._sent.pop(sink.key, None)

    def changed(self, match_id: int | None = None) -> None:
        """A change of match ``match_id`` (None: of anything) arrived: refresh this process's
        boards soon, once for a burst of changes; a change arriving during a refresh gets a
        refresh of its own after it."""
        if not self._boards:
            return
        if match_id is None:
            self._everything = True
        else:
            self._dirty.add(match_id)
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self.refresh(BOARD_SETTLE))

    async def refresh(self, settle: float = 0.0, everything: bool = False) -> None:
        """Render each open board kind and language once (a player's page only when a changed
        match is of its competition), and send it to its sockets unless it is the text they
        were last sent."""
        if settle:
            await asyncio.sleep(settle)
        dirty, self._dirty = self._dirty, set()
        everything, self._everything = everything or self._everything, False
        try:
            self._print = await database_sync_to_async(boards.fingerprint)()
            scoped = [k for k in self._boards if SCOPED.match(k.split(":", 1)[0])]
            touched = (await database_sync_to_async(competitions_of)(dirty)
                       if scoped and dirty and not everything else set())
            # a player's career or head-to-head: only when a changed match is one of theirs
            by_player = {k: _players_scope(k.split(":", 1)[0]) for k in self._boards}
            by_player = {k: v for k, v in by_player.items() if v is not None}
            moved = (await database_sync_to_async(players_of)(dirty)
                     if by_player and dirty and not everything else set())
            self._version += 1
            version = self._version
            # every table's follow board at once: three queries, not three a table
            follows = await database_sync_to_async(boards.render_tables)({k.split(":", 1)[0] for k in self._boards})
            for key in list(self._boards):
                kind, lang = key.split(":", 1)
                scope = SCOPED.match(kind)
                if scope and not everything and int(scope.group(1)) not in touched:
                    continue
                if key in by_player and not everything and not (by_player[key] & moved):
                    continue
                text = follows.get(kind)
                if text is None:
                    text = await database_sync_to_async(boards.render_board)(kind, lang)
                self.stats["board_kind_renders"] = self.stats.get("board_kind_renders", 0) + 1
                if self._sent.get(key) == text:
                    continue
                self._sent[key] = text
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
            self._print = None  # so the reconciler (every second) renders everything again
        if self._dirty or self._everything:
            self._task = asyncio.ensure_future(self.refresh(BOARD_SETTLE))

    async def reconcile(self) -> None:
        """Refresh the boards when the database says something changed that no message brought
        (a match scheduled or a table assigned in the admin, a lost change)."""
        if not self._boards or (self._task is not None and not self._task.done()):
            return
        now = await database_sync_to_async(boards.fingerprint)()
        if now != self._print:
            self._task = asyncio.ensure_future(self.refresh(everything=True))
