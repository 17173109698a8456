"""Fixtures of the web tests: a match with its referee's secrets, clients logged in or not."""
from __future__ import annotations

import pytest
from django.test import Client

from scoreboard.matches import create_match


@pytest.fixture
def created(db):
    """A new 15-red, one-frame match, Ana breaking: the Created record with token and URLs."""
    return create_match("Ana Souza", "Bia Lima", first_breaker=0)


@pytest.fixture
def referee_client(created) -> Client:
    """A client logged in as the match's referee through its signed link."""
    client = Client()
    resp = client.get(created.referee_url)
    assert resp.status_code == 302
    return client


@pytest.fixture
def auth(created) -> dict:
    """The bearer-token header of the match's referee."""
    return {"HTTP_AUTHORIZATION": f"Bearer {created.token}"}


@pytest.fixture(autouse=True)
def plain_static_storage(settings):
    """Serve static files from the finders: tests must not depend on a prior collectstatic."""
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
