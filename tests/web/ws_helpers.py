"""Shared by the in-process websocket tests of the live layer: a socket of the ASGI app with an
allowed Origin, and a fresh match to watch."""
from __future__ import annotations

import re

import pytest
from channels.testing import WebsocketCommunicator

from scoreboard.asgi import application
from scoreboard.core.matches import create_match

ORIGIN = [(b"origin", b"http://127.0.0.1")]


async def connect(path, headers=ORIGIN):
    """``(communicator, connected, close code or subprotocol)`` of a socket to ``path``."""
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await comm.connect(timeout=5)
    return comm, connected, code


@pytest.fixture
def match_id(db):
    return create_match("Ana Souza", "Bia Lima", first_breaker=0).match.pk


def undrawn(text: str) -> str:
    """A page fragment without the time it was drawn (``data-rev``, which live.js compares), so
    two renders of the same state compare equal."""
    return re.sub(r' data-rev="\d+"', "", text)
