"""``core/overlay.py``: the overlay's show/hide switch is written through the core and published
only once it has committed, like every other write (it used to be pushed from the endpoint
whatever became of the transaction)."""
from __future__ import annotations

import pytest
from django.db import transaction
from django.test import Client

from scoreboard.core.models import Match
from scoreboard.live.hub import hub

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """What the hub publishes: (match, seq, again) per message."""
    out = []
    monkeypatch.setattr(hub.publisher, "publish",
                        lambda m, seq, payloads, again=(), **kw: out.append((m, seq, tuple(again))))
    # the boards' refresh (every process's boards, or those showing some matches)
    monkeypatch.setattr(hub.publisher, "boards", lambda match_ids: out.append(("boards", match_ids)))
    return out


def test_the_endpoints_switch_is_published_after_commit_not_before(created, sent, django_capture_on_commit_callbacks):
    mid = created.match.pk
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        r = Client().post(f"/api/matches/{mid}/overlay/", {"bar": "hide"},
                          HTTP_AUTHORIZATION=f"Bearer {created.token}")
        assert r.status_code == 200 and r.json() == {"match": mid, "bar": False, "stats": False, "words": False, "ver": 1}
        assert sent == []  # stored in the open transaction: nothing shown yet
    assert len(callbacks) == 1
    callbacks[0]()
    assert sent == [(mid, 0, ("overlay",))]


def test_a_switch_rolled_back_is_never_published(created, sent, django_capture_on_commit_callbacks):
    from scoreboard.core import overlay

    mid = created.match.pk
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError):
            with transaction.atomic():
                assert overlay.switch(created.match, {"stats": True}) == [mid]
                raise RuntimeError("rolled back")
    assert sent == []
    row = Match.objects.get(pk=mid)
    assert (row.overlay_stats, row.overlay_ver) == (False, 0)


def test_a_switch_that_changes_nothing_writes_and_sends_nothing(created, sent, django_capture_on_commit_callbacks):
    from scoreboard.core import overlay

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert overlay.switch(created.match, {"bar": True, "stats": False}) == []
    assert callbacks == [] and sent == []
    assert Match.objects.get(pk=created.match.pk).overlay_ver == 0


def test_a_committed_switch_reaches_every_match_written_in_id_order(created, sent, django_capture_on_commit_callbacks):
    from scoreboard.core import overlay

    from scoreboard.core.matches import create_match
    from scoreboard.core.models import Table

    table = Table.objects.create(name="Mesa 9")
    first = created.match
    Match.objects.filter(pk=first.pk).update(table=table, started_at=None)  # the table's next match
    first.refresh_from_db()
    second = create_match("Cris Reis", "Dani Melo", first_breaker=0, table="Mesa 9").match
    with django_capture_on_commit_callbacks(execute=True):
        assert overlay.switch(first, {"bar": False}, table=table) == sorted([first.pk, second.pk])
    assert sent == [(first.pk, 0, ("overlay",)), (second.pk, 0, ("overlay",))]
    assert list(Match.objects.filter(table=table).values_list("overlay_bar", flat=True)) == [False, False]


def test_a_graphics_switch_is_published_by_the_core_after_commit(sent, django_capture_on_commit_callbacks):
    """Audit: the stream graphics' switch was published from the endpoint (``api.py``), not by
    the core service that stores it; now ``core.graphics.apply`` publishes once its transaction
    has committed, and a switch rolled back is never published."""
    from scoreboard.core import graphics
    from scoreboard.core.models import Table

    table = Table.objects.create(name="Mesa 8")
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError):
            with transaction.atomic():
                graphics.apply(table, {"ticker": True})
                raise RuntimeError("rolled back")
    assert sent == [] and Table.objects.get(pk=table.pk).graphics == {}
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert graphics.apply(table, {"ticker": True})["ticker"] is True
        assert sent == []  # stored, not committed: nothing shown yet
    for fn in callbacks:
        fn()
    assert sent == [("boards", None)]  # the boards of every process (the graphics pages) refresh
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        graphics.apply(table, {})
    assert callbacks == [] and sent == [("boards", None)]  # nothing changed: nothing sent
