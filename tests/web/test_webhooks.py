"""Webhooks (``core.webhooks``): a local HTTP receiver gets a match's start and its result,
each signed with HMAC-SHA256 over the exact body, in seq order, each with its idempotency key;
a 500 is retried after the backoff with nothing delivered out of order, the same news is never
stored (so never sent) twice, and ``resend`` replays from a seq with the same keys. A season's
new ranking is news once. The served app sends them itself (one sender per database however
many workers: tests/web/test_faults.py, on its shared app); ``manage.py webhooks send`` waits
while another process holds the sender's lock."""
from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.management import call_command
from django.utils import timezone

from scoreboard.core import log, singleton, webhooks
from scoreboard.core.matches import match_config, new_match
from scoreboard.core.models import Player, Webhook, WebhookDelivery

pytestmark = [pytest.mark.django_db(transaction=True)]


class Receiver:
    """A subscriber on 127.0.0.1: records every POST; answers 500 to the first ``fail`` ones."""

    def __init__(self, fail: int = 0):
        self.got: list[dict] = []
        self.fail = fail
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.got.append({"body": body, "sig": self.headers["X-Sinuca-Signature"],
                                  "key": self.headers["Idempotency-Key"], "seq": int(self.headers["X-Sinuca-Seq"])})
                status = 500 if outer.fail > 0 else 204
                outer.fail -= 1
                self.send_response(status)
                self.end_headers()

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver(fail=1)
    yield r
    r.close()


def test_signed_in_order_retried_after_500_never_twice(receiver, capsys):
    call_command("webhooks", "add", "jornal", receiver.url, "--kinds", "result,match_started", "--secret", "s3cr3t")
    assert json.loads(capsys.readouterr().out)["secret"] == "s3cr3t"
    a, b = Player.objects.create(name="Ana"), Player.objects.create(name="Bia")
    m = new_match(match_config(["Ana", "Bia"], reds=6), players=(a, b))
    log.append_event(m.pk, {"type": "lot", "player": 0})
    log.append_event(m.pk, {"type": "concede", "player": 1})
    keys = list(WebhookDelivery.objects.order_by("pk").values_list("key", flat=True))
    assert keys == [f"match_started:{m.pk}", f"result:{m.pk}:2"]
    # the same news again stores nothing
    assert webhooks.enqueue("result", f"result:{m.pk}:2", {"again": True}) == 0

    now = timezone.now()
    assert webhooks.deliver_due(now) == {"sent": 0, "failed": 1}  # the receiver's 500
    assert webhooks.deliver_due(now) == {"sent": 0, "failed": 0}  # not due before its backoff
    assert len(receiver.got) == 1
    assert webhooks.deliver_due(now + timedelta(seconds=1.5)) == {"sent": 2, "failed": 0}
    assert webhooks.deliver_due(now + timedelta(seconds=5)) == {"sent": 0, "failed": 0}
    got = receiver.got
    assert [g["key"] for g in got] == [f"match_started:{m.pk}", f"match_started:{m.pk}", f"result:{m.pk}:2"]
    seqs = [g["seq"] for g in got]
    assert seqs[1] < seqs[2] and seqs[0] == seqs[1]
    for g in got:
        assert webhooks.verify("s3cr3t", g["body"], g["sig"])
        assert not webhooks.verify("other", g["body"], g["sig"])
        assert json.loads(g["body"])["key"] == g["key"]
    result = json.loads(got[2]["body"])
    assert result["kind"] == "result" and result["data"]["winner"] == 0 and result["data"]["frames"] == [1, 0]
    assert result["data"]["players"] == ["Ana", "Bia"]
    # delivered once each: a second sender pass sends nothing; resend from a seq replays in order
    call_command("webhooks", "resend", "jornal", "--from-seq", str(seqs[2]))
    assert webhooks.deliver_due(now + timedelta(seconds=10))["sent"] == 1
    assert receiver.got[-1]["key"] == f"result:{m.pk}:2"
    assert WebhookDelivery.objects.filter(delivered_at__isnull=True).count() == 0


def test_backoff_doubles_up_to_a_minute():
    assert [webhooks.backoff(n) for n in (1, 2, 3, 4, 7, 8, 20)] == [1, 2, 4, 8, 60, 60, 60]


def test_the_command_waits_while_another_process_holds_the_senders_lock(receiver):
    Webhook.objects.create(name="jornal", url=receiver.url, secret="s", kinds=["result"])
    webhooks.enqueue("result", "result:1:9", {"match": 1})
    held = singleton.hold(webhooks.LOCK)
    assert held is not None and singleton.hold(webhooks.LOCK) is None  # one holder at a time
    tries = []
    try:
        webhooks.run(stop=lambda: tries.append(1) or len(tries) > 3, idle=0.001)
    finally:
        held.close()
    assert receiver.got == [] and WebhookDelivery.objects.get().attempts == 0  # it waited, sent nothing
    again = singleton.hold(webhooks.LOCK)  # released by the holder: the next takes it
    assert again is not None
    again.close()


def wait_for(what, timeout: float = 30.0):
    """``what()``'s first truthy answer within ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(0.05)
    raise TimeoutError(getattr(what, "__name__", "condition"))
