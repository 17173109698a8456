"""``core/log.py``: the one writer of a match's log under concurrency — a referee's tap waits for
another writer and is stored, never a 500."""
import threading
import time

import pytest
from django.db import connection, transaction

from scoreboard.core import log
from scoreboard.core.matches import create_match
from scoreboard.core.models import Player


pytestmark = pytest.mark.pg


@pytest.mark.django_db(transaction=True)
def test_a_tap_waits_for_another_writer_instead_of_failing():
    match = create_match("Ana Souza", "Bia Lima", first_breaker=0).match
    holding = threading.Event()

    def organiser_creating_a_player():
        with transaction.atomic():
            Player.objects.create(name="Caio Prado")  # takes the database's write lock
            holding.set()
            time.sleep(0.5)
        connection.close()

    t = threading.Thread(target=organiser_creating_a_player)
    t.start()
    assert holding.wait(5)
    answer = log.append_event(match.pk, {"type": "pot", "balls": [1]}, expected_seq=0)
    t.join()
    assert answer.seq == 1 and answer.state["scores"] == [1, 0]
    assert [e.seq for e in log.events_of(match.pk)] == [1]


@pytest.mark.django_db(transaction=True)
def test_the_change_carries_the_matchs_table_so_the_after_commit_render_needs_no_query_for_it(
        django_assert_num_queries):
    """The screens show the table's name; read lazily after commit, a PostgreSQL that died just
    after the commit made the render raise (``AdminShutdown`` on ``match.table``) and the tap's
    broadcast was dropped. The match is read with its table under the lock."""
    from scoreboard.core.models import Table

    match = create_match("Ana Souza", "Bia Lima", first_breaker=0).match
    match.table = Table.objects.create(name="Mesa 7")
    match.save(update_fields=["table"])
    seen = []

    def first_subscriber(change):  # before the live layer's render, which would load it lazily
        seen.append((change.seq, type(change.match).table.is_cached(change.match)))

    log._subscribers.insert(0, first_subscriber)
    try:
        answer = log.append_event(match.pk, {"type": "pot", "balls": [1]}, expected_seq=0)
    finally:
        log._subscribers.remove(first_subscriber)
    assert seen == [(1, True)]
    with django_assert_num_queries(0):
        assert answer.match.table.name == "Mesa 7"
        assert answer.match.player_names == ["Ana Souza", "Bia Lima"]
