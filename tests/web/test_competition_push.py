"""A competition's changes are pushed like a match's events, and its reaction to a result runs
after the match's locks are released: a call reaches the table's tablet, the desk and the boards
over their sockets with no poll and no fingerprint; the last tap's POST does not carry the
competition's work under the match's lock."""
from __future__ import annotations

import asyncio
import json
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from scoreboard.core import competitions, log
from scoreboard.core.models import Competition, Match, Table
from scoreboard.live import boards
from scoreboard.live.hub import hub
from test_competition_event import by_number, create, score, summary
from ws_helpers import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]

FOUR = {"name": "Copa", "reds": 6, "players": ["Ana", "Bia", "Caio", "Davi"], "tables": ["Mesa 1"], "draw_seed": 1,
        "stages": [{"format": "knockout", "frames_to_win": 1}]}


async def next_json(comm, want, timeout: float = 5.0) -> dict:
    """The next message of a table's follow board for which ``want(message)`` holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        d = json.loads(await comm.receive_from(timeout=max(0.1, end - loop.time())))
        if want(d):
            return d


async def test_a_call_move_and_result_reach_the_tables_and_desk_sockets_without_polling():
    """The desk's call, the queue's call after a result and a move are each pushed to the
    table's follow board (what its tablet and TV follow) and to the desk's board at once: the
    boards' fingerprint, the safety net, is frozen here, so only the push can bring them."""
    out = await sync_to_async(create)({**FOUR, "assignment": "manual"})
    cid = out["competition"]
    t1 = await sync_to_async(Table.objects.get)(name="Mesa 1")
    t2 = await sync_to_async(Table.objects.create)(name="Mesa 2")
    with mock.patch.object(boards, "fingerprint", return_value=("frozen",)):
        table, ok, _ = await connect(f"/ws/boards/?view=table-{t1.pk}")
        other, ok2, _ = await connect(f"/ws/boards/?view=table-{t2.pk}")
        assert ok and ok2
        first = json.loads(await table.receive_from(timeout=5))
        assert first == {"key": "idle:0:0", "match": None, "tablet": None, "last": None}
        await other.receive_from(timeout=5)
        ms = by_number(await sync_to_async(summary)(cid))
        j1 = ms[1]
        # the desk calls J1 to Mesa 1: its tablet is told which match to open
        await sync_to_async(competitions.perform)(await sync_to_async(Competition.objects.get)(pk=cid),
                                                  {"action": "call", "match": 1, "table": "Mesa 1"}, "desk")
        got = await next_json(table, lambda d: d["tablet"] is not None)
        assert got["tablet"] == j1["match"] and got["key"] == f"idle:0:{j1['match']}"
        # moved to Mesa 2: Mesa 1's tablet lets go of it, Mesa 2's takes it
        await sync_to_async(competitions.perform)(await sync_to_async(Competition.objects.get)(pk=cid),
                                                  {"action": "move", "match": 1, "table": "Mesa 2"}, "desk")
        assert (await next_json(table, lambda d: d["tablet"] is None))["key"] == "idle:0:0"
        assert (await next_json(other, lambda d: d["tablet"] is not None))["tablet"] == j1["match"]
        await table.disconnect()
        await other.disconnect()


async def test_the_queue_s_call_after_a_result_reaches_the_table_s_tablet_without_polling():
    """A result's effect (the next match called to the freed table) is pushed to the table's
    tablet: the finished match's tablet is told to go on to the next one."""
    out = await sync_to_async(create)(FOUR)
    cid = out["competition"]
    t1 = await sync_to_async(Table.objects.get)(name="Mesa 1")
    with mock.patch.object(boards, "fingerprint", return_value=("frozen",)):
        table, ok, _ = await connect(f"/ws/boards/?view=table-{t1.pk}")
        assert ok
        first = json.loads(await table.receive_from(timeout=5))
        called = first["tablet"]
        assert called is not None
        m = await sync_to_async(Match.objects.get)(pk=called)
        await sync_to_async(score)(m.pk, 0, 0)
        got = await next_json(table, lambda d: d["tablet"] not in (None, called), timeout=30)
        assert got["last"] == called and got["match"] is None
        status = by_number(await sync_to_async(summary)(cid))
        assert [n for n, s in status.items() if s["status"] == "called"] and got["tablet"] in {
            s["match"] for s in status.values() if s["status"] == "called"}
        await table.disconnect()


def test_a_competitions_reaction_to_a_result_runs_after_the_match_s_locks_are_released():
    """The results flow (``advance``) ran inside the log's after-commit hook, under the match's
    lock, in the referee's request: the match's next tap (and every read that needed its lock)
    waited for the whole competition's work."""
    out = create(FOUR)
    cid = out["competition"]
    (m,) = [s for s in by_number(summary(cid)).values() if s["status"] == "called"]
    seen = []
    real = competitions.advance

    def advance(comp):
        from django.db import connection

        # neither this process's lock of the match nor a transaction (its row lock) is held
        seen.append((log._match_lock(m["match"])._is_owned(), connection.in_atomic_block))
        return real(comp)

    with mock.patch.object(competitions, "advance", advance):
        score(m["match"], 0, 0)
    assert seen and seen[0] == (False, 0)
    # and it ran: the next match is called to the table that was freed
    after = by_number(summary(cid))
    assert after[m["number"]]["status"] == "finished"
    assert any(s["status"] == "called" and s["table"] == "Mesa 1" for s in after.values())


async def test_with_the_hub_running_the_result_flows_in_the_background_and_is_stored_as_due():
    """In a serving process the result's effect is handed to the hub's loop: the tap's request
    only marks the competition due (so a worker that dies before the work runs leaves it to the
    next due check) and returns; the hub runs it at once and the next match is called."""
    out = await sync_to_async(create)(FOUR)
    cid = out["competition"]
    t1 = await sync_to_async(Table.objects.get)(name="Mesa 1")
    table, ok, _ = await connect(f"/ws/boards/?view=table-{t1.pk}")  # starts this process's hub
    first = json.loads(await table.receive_from(timeout=5))
    ran_in = []
    real = competitions._advance_match

    def advance_match(match_id, freed=None):
        ran_in.append(hub.subscription._loop is not None)
        return real(match_id, freed)

    with mock.patch.object(competitions, "_advance_match", advance_match):
        await sync_to_async(score)(first["tablet"], 0, 0)
        await next_json(table, lambda d: d["tablet"] not in (None, first["tablet"]), timeout=30)
    assert ran_in == [True], ran_in
    assert (await sync_to_async(Competition.objects.get)(pk=cid)).due_at is None  # done: nothing left due
    await table.disconnect()


def test_the_table_s_follow_board_and_now_answer_agree_and_an_unknown_table_is_empty():
    t = Table.objects.create(name="Mesa 7")
    assert json.loads(boards.render_board(f"table-{t.pk}", "pt-br")) == Client().get(f"/tables/{t.pk}/now/").json()
    assert boards.table_follow(987654) == {"key": None, "match": None, "tablet": None, "last": None}
    # a refresh renders every table's follow board at once, as each alone
    assert boards.render_tables({f"table-{t.pk}", "table-987654", "venue"}) == {
        f"table-{t.pk}": boards.render_board(f"table-{t.pk}", "pt-br"), "table-987654": json.dumps(
            boards.table_follow(987654), sort_keys=True)}


def test_the_ending_tap_stores_its_due_mark_and_news_with_the_event_and_sends_no_sql_after_it():
    """The tap that ends a match stores what must survive it (the match marked ``results_due``
    in its seq's own UPDATE, a subscriber's result news) in the event's own transaction: its
    request sends no SQL after that commit (each statement after it was a commit of its own,
    the tap's p99 1.3-1.5x a mid-frame tap's) and locks no competition row (a desk action that
    holds it and waits for the match's lock would deadlock with it), and a worker that dies
    before the background work runs leaves it to the due check."""
    from django.db import connection

    from scoreboard.core import operations
    from scoreboard.core.models import Webhook, WebhookDelivery
    from test_competition_event import post

    Webhook.objects.create(name="Jornal", url="http://127.0.0.1:9/hook", secret="s", kinds=["result"])
    out = create(FOUR)
    cid = out["competition"]
    (m,) = [s for s in by_number(summary(cid)).values() if s["status"] == "called"]
    token = operations.issue_token(Match.objects.get(pk=m["match"]), "test")
    assert post(m["match"], token, {"type": "lot", "player": 0}).status_code == 201
    jobs, sql = [], []

    def record(execute, text, params, many, context):
        sql.append((text.split()[0].upper(), text, connection.in_atomic_block))
        return execute(text, params, many, context)

    with mock.patch.object(competitions, "_background", [lambda job: jobs.append(job) or True]), \
            connection.execute_wrapper(record):
        assert post(m["match"], token, {"type": "concede", "player": 1}).status_code == 201
    inserts = [i for i, (verb, text, _) in enumerate(sql) if verb == "INSERT" and "scoreboard_event" in text]
    assert inserts, sql
    after_commit = [text for _, text, atomic in sql[inserts[0]:] if not atomic]
    assert after_commit == [], after_commit
    assert not [text for _, text, _ in sql if "scoreboard_competition" in text.split(" WHERE ")[0]
                and text.split()[0].upper() in ("UPDATE", "INSERT", "DELETE")], sql
    # both stored with the event: the match's result due, the subscriber's news
    assert Match.objects.get(pk=m["match"]).results_due is True
    assert Competition.objects.get(pk=cid).due_at is None
    news = list(WebhookDelivery.objects.values_list("kind", "key"))
    assert news == [("result", f"result:{m['match']}:{Match.objects.get(pk=m['match']).seq}")]
    # the background work never ran (the worker died): the due check runs it
    assert len(jobs) == 1
    assert competitions.run_due() == [cid]
    assert Match.objects.get(pk=m["match"]).results_due is False
    assert competitions.run_due() == []  # reacted to: nothing due any more
    assert by_number(summary(cid))[m["number"]]["status"] == "finished"
    assert [s["number"] for s in by_number(summary(cid)).values() if s["status"] == "called"] != [m["number"]]


async def asgi_tap(match_id: int, token: str, event: dict, order: list) -> None:
    """POST ``event`` to the whole ASGI application (the tap's gate included), noting each
    message sent in ``order`` as ``(type, status)``."""
    from scoreboard.asgi import application

    body = json.dumps({"event": event}).encode()
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": f"/api/matches/{match_id}/events/", "raw_path": b"", "query_string": b"", "root_path": "",
             "headers": [(b"host", b"localhost"), (b"content-type", b"application/json"),
                         (b"authorization", f"Bearer {token}".encode())],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)}
    sent = asyncio.Event()
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        if messages:
            return messages.pop(0)
        await sent.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        order.append((message["type"], message.get("status")))
        if message["type"] == "http.response.body" and not message.get("more_body"):
            sent.set()

    await application(scope, receive, send)


async def test_the_ending_tap_hands_the_result_s_work_on_only_once_its_answer_is_sent():
    """Handed to the hub's loop at once, a result's effect shared the interpreter with the tap's
    own last steps (the answer's middleware and its writing), and the referee waited for it: the
    tap's gate holds the hand-over until the answer's last byte is sent. In a process whose hub
    is not running (no socket yet) nothing is held: the effect runs before the answer."""
    from scoreboard.core import operations
    from test_competition_event import post

    out = await sync_to_async(create)({**FOUR, "tables": ["Mesa 1", "Mesa 2"]})
    cid = out["competition"]
    semis = [s for s in by_number(await sync_to_async(summary)(cid)).values() if s["status"] == "called"]
    assert len(semis) == 2
    tokens = {}
    for m in semis:
        tokens[m["match"]] = await sync_to_async(operations.issue_token)(
            await sync_to_async(Match.objects.get)(pk=m["match"]), "t")
        assert (await sync_to_async(post)(m["match"], tokens[m["match"]], {"type": "lot", "player": 0})).status_code == 201
    # no hub in this process yet: the first semi's effect runs in the request, before its answer
    order = []
    first, second = semis
    await asgi_tap(first["match"], tokens[first["match"]], {"type": "concede", "player": 1}, order)
    assert order == [("http.response.start", 201), ("http.response.body", None)]
    assert (await sync_to_async(Competition.objects.get)(pk=cid)).due_at is None
    assert by_number(await sync_to_async(summary)(cid))[first["number"]]["status"] == "finished"
    # the hub running (a table's socket): the second semi's effect is handed on after the answer
    t1 = await sync_to_async(Table.objects.get)(name="Mesa 1")
    table, ok, _ = await connect(f"/ws/boards/?view=table-{t1.pk}")
    assert ok
    order = []
    with mock.patch.object(hub, "later", lambda job: order.append(("handed", None)) or True):
        await asgi_tap(second["match"], tokens[second["match"]], {"type": "concede", "player": 1}, order)
        assert order == [("http.response.start", 201), ("http.response.body", None), ("handed", None)], order
        # outside a tap's request nothing is held: the hand-over is at once
        await sync_to_async(competitions._flow)(second["match"])
        assert order[-1] == ("handed", None) and len(order) == 4
    await table.disconnect()


def test_a_friendly_s_result_mark_is_cleared_by_the_due_check():
    """A match of no competition is marked too when it ends (the log does not know who
    reacts); the due check clears it, so it is not read again every second."""
    from scoreboard.core.matches import new_match

    m = new_match({"players": ["Edu", "Fabi"], "reds": 6, "frames_to_win": 1})
    log.append_event(m.pk, {"type": "lot", "player": 0})
    log.append_event(m.pk, {"type": "concede", "player": 1})
    Match.objects.filter(pk=m.pk).update(results_due=True)  # as a process that died left it
    assert competitions.run_due() == []
    assert Match.objects.get(pk=m.pk).results_due is False
