"""``manage.py webhooks``: the federation's subscribers (``core.webhooks``).

    webhooks add NAME URL [--kinds result,ranking,match_started] [--secret S]   prints the secret
    webhooks list
    webhooks remove NAME
    webhooks send [--once]           the sender: in seq order, retried with backoff
    webhooks resend NAME --from-seq N
"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from scoreboard.core import webhooks
from scoreboard.core.models import Webhook


class Command(BaseCommand):
    help = "Assinantes de webhooks: add, list, remove, send, resend / Webhook subscribers"

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add")
        add.add_argument("name")
        add.add_argument("url")
        add.add_argument("--kinds", default="", help="result,ranking,match_started (default: all)")
        add.add_argument("--secret", default="")
        sub.add_parser("list")
        rm = sub.add_parser("remove")
        rm.add_argument("name")
        send = sub.add_parser("send")
        send.add_argument("--once", action="store_true")
        again = sub.add_parser("resend")
        again.add_argument("name")
        again.add_argument("--from-seq", type=int, required=True)

    def handle(self, *args, action, **opts):
        if action == "add":
            kinds = [k for k in opts["kinds"].split(",") if k]
            bad = [k for k in kinds if k not in webhooks.KINDS]
            if bad:
                raise CommandError(f"tipo desconhecido / unknown kind: {', '.join(bad)} "
                                   f"({', '.join(webhooks.KINDS)})")
            if Webhook.objects.filter(name=opts["name"]).exists():
                raise CommandError(f"já existe / already exists: {opts['name']}")
            secret = opts["secret"] or webhooks.new_secret()
            hook = Webhook.objects.create(name=opts["name"], url=opts["url"], secret=secret, kinds=kinds)
            self.stdout.write(json.dumps({"name": hook.name, "url": hook.url, "kinds": kinds, "secret": secret}))
        elif action == "list":
            for h in Webhook.objects.all():
                pending = h.deliveries.filter(delivered_at__isnull=True).count()
                self.stdout.write(json.dumps({"name": h.name, "url": h.url, "kinds": h.kinds,
                                              "active": h.active, "pending": pending}))
        elif action == "remove":
            n, _ = Webhook.objects.filter(name=opts["name"]).delete()
            if not n:
                raise CommandError(f"não encontrado / not found: {opts['name']}")
        elif action == "send":
            if opts["once"]:
                webhooks.check_rankings()
                self.stdout.write(json.dumps(webhooks.deliver_due()))
            else:
                webhooks.run()
        elif action == "resend":
            hook = Webhook.objects.filter(name=opts["name"]).first()
            if hook is None:
                raise CommandError(f"não encontrado / not found: {opts['name']}")
            self.stdout.write(json.dumps({"resend": webhooks.resend(hook, opts["from_seq"])}))
