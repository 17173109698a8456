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
