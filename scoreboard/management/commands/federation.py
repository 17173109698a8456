"""``manage.py federation sync|pull|register``: a venue's link to its federation."""
from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from scoreboard.core import federation, sync


class Command(BaseCommand):
    """``sync``: send the outbox until it is empty (backing off while the federation is away;
    ``--max-seconds`` gives up, status 1); prints ``{"delivered", "pending"}``.
    ``pull``: store the federation's registry (players by federation id; a local namesake without
    an id is reported as a clash, never merged); prints ``{"added", "updated", "clashes"}``.
    ``register FILE`` (at the federation): register the players of a JSON file ``[{"name",
    "club"?, "federation_id"?}]`` (``-``: standard input); prints their federation ids."""

    help = ("Envia a fila para a federação (sync), baixa o cadastro (pull) ou registra jogadores (register) / "
            "Send the outbox to the federation (sync), pull the registry (pull) or register players (register)")

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["sync", "pull", "register"])
        parser.add_argument("file", nargs="?", help="register: arquivo JSON / JSON file ('-': stdin)")
        parser.add_argument("--max-seconds", type=float, default=None)

    def handle(self, *args, **opts):
        action = opts["action"]
        if action == "register":
            if not opts["file"]:
                raise CommandError("Informe o arquivo JSON / Give the JSON file")
            try:
                rows = json.load(sys.stdin if opts["file"] == "-" else open(opts["file"], encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise CommandError(f"Arquivo inválido: {e} / Invalid file: {e}") from e
            if not isinstance(rows, list) or not all(isinstance(r, dict) and r.get("name") for r in rows):
                raise CommandError('Esperada uma lista [{"name", "club"?}] / Expected a list [{"name", "club"?}]')
            out = [{"federation_id": p.federation_id, "name": p.name, "club": p.club}
                   for p in (federation.register(str(r["name"]), str(r.get("club") or ""), r.get("federation_id"))
                             for r in rows)]
            self.stdout.write(json.dumps(out, ensure_ascii=False))
            return
        if not federation.enabled():
            raise CommandError("Defina FEDERATION_URL e FEDERATION_TOKEN / Set FEDERATION_URL and FEDERATION_TOKEN")
        try:
            if action == "pull":
                got = sync.pull()
                self.stdout.write(json.dumps({"added": got.added, "updated": got.updated, "clashes": got.clashes},
                                             ensure_ascii=False))
                return
            delivered = sync.sync(max_seconds=opts["max_seconds"])
        except sync.SendError as e:
            raise CommandError(f"Federação indisponível: {e} / Federation unavailable: {e}") from e
        from scoreboard.core.models import OutboxRecord

        self.stdout.write(json.dumps({"delivered": delivered,
                                      "pending": OutboxRecord.objects.filter(delivered_at__isnull=True).count()}))
