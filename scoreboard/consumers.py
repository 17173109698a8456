"""Websocket consumers: read-only live streams of one match.

``/ws/matches/<id>/?view=tv|overlay|referee&lang=pt-br|en`` sends htmx out-of-band fragments;
``/ws/matches/<id>/feed/`` sends JSON. Both send the current state on connect and then forward,
unchanged, the text pre-rendered for their kind in each group message.
"""
from __future__ import annotations

from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from . import live
from .auth import session_may_referee
from .models import Match

CLOSE_NOT_FOUND = 4404
CLOSE_FORBIDDEN = 4403
CLOSE_READ_ONLY = 4400


class MatchStreamConsumer(AsyncWebsocketConsumer):
    """One socket watching one match. Clients cannot change anything through it."""

    feed = False  # set by the route of the JSON feed

    async def connect(self) -> None:
        """Join the match's group, then send the current state (so nothing falls between)."""
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.last_seq = -1
        qs = parse_qs(self.scope.get("query_string", b"").decode())
        view = "feed" if self.feed else qs.get("view", ["tv"])[0]
        lang = qs.get("lang", ["pt-br"])[0].lower()
        if view not in (*live.VIEWS, "feed"):
            view = "tv"
        if lang not in live.languages():
            lang = "pt-br"
        self.key = live.payload_key(view, lang)
        if view == "referee" and not await database_sync_to_async(session_may_referee)(
                self.scope.get("session"), self.scope.get("user"), self.match_id):
            await self.close(CLOSE_FORBIDDEN)
            return
        await self.accept()
        self.group = live.group_name(self.match_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        try:
            seq, text = await database_sync_to_async(live.connect_payload)(self.match_id, self.key)
        except Match.DoesNotExist:
            await self.close(CLOSE_NOT_FOUND)
            return
        self.last_seq = seq
        await self.send(text_data=text)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Spectators and pages only listen: any message closes the socket."""
        await self.close(CLOSE_READ_ONLY)

    async def match_update(self, message: dict) -> None:
        """Forward the pre-rendered text of this socket's kind; skip what it already has."""
        if message["seq"] <= self.last_seq:
            return
        self.last_seq = message["seq"]
        await self.send(text_data=message["payloads"][self.key])

    async def disconnect(self, code: int) -> None:
        """Leave the group."""
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)


class MatchFeedConsumer(MatchStreamConsumer):
    """The JSON feed: ``{"seq", "state"}`` on connect, ``{"seq", "state", "event", "description"}``
    on every change."""

    feed = True
