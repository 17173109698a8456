"""``manage.py federation sync|pull|register|register-clubs|rename-club``: a venue's link to its
federation, and the federation's registry of players and clubs."""
from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from scoreboard.core import federation, names, sync


def _rows(path: str, what: str) -> list[dict]:
    """The JSON list of objects with a ``name`` in ``path`` (``-``: standard input)."""
    if not path:
        raise CommandError("Informe o arquivo JSON / Give the JSON file")
    try:
        rows = json.load(sys.stdin if path == "-" else open(path, encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CommandError(f"Arquivo inválido: {e} / Invalid file: {e}") from e
    if not isinstance(rows, list) or not all(isinstance(r, dict) and r.get("name") for r in rows):
        raise CommandError(f"Esperada uma lista {what} / Expected a list {what}")
    return rows


class Command(BaseCommand):
    """``sync``: send the outbox until it is empty (backing off while the federation is away;
    ``--max-seconds`` gives up, status 1); prints ``{"delivered", "pending"}``.
    ``pull``: store the federation's registry (clubs and players by federation id; a local
    namesake without an id is reported as a clash, never merged); prints ``{"added", "updated",
    "clashes", "clubs_added", "clubs_updated"}``.
    ``register FILE`` (at the federation): register the players of a JSON file ``[{"name",
    "club"?, "federation_id"?}]`` (``-``: standard input), each new club with them; prints their
    federation ids. ``register-clubs FILE``: register the clubs of ``[{"name",
    "federation_id"?}]``; prints ``[{"federation_id", "name"}]``. ``rename-club ID NAME``:
    rename a registered club (its players' club follows); prints ``{"federation_id", "name"}``.
    A file with a bad row stores none of its rows (the error says why, in Portuguese and
    English)."""

    help = ("Envia a fila para a federação (sync), baixa o cadastro (pull), registra jogadores (register) ou "
            "clubes (register-clubs), renomeia um clube (rename-club) / Send the outbox to the federation (sync), "
            "pull the registry (pull), register players (register) or clubs (register-clubs), rename a club "
            "(rename-club)")

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["sync", "pull", "register", "register-clubs", "rename-club"])
        parser.add_argument("file", nargs="?",
                            help="register, register-clubs: arquivo JSON / JSON file ('-': stdin); "
                                 "rename-club: o id do clube / the club's id")
        parser.add_argument("name", nargs="?", help="rename-club: o novo nome / the new name")
        parser.add_argument("--max-seconds", type=float, default=None)

    def handle(self, *args, **opts):
        action = opts["action"]
        if action in ("register", "register-clubs", "rename-club"):
            try:
                out = self.registry(action, opts)
            except (federation.ClubRefused, names.NameRefused) as e:
                raise CommandError(str(e)) from e
            self.stdout.write(json.dumps(out, ensure_ascii=False))
            return
        if not federation.enabled():
            raise CommandError("Defina FEDERATION_URL e FEDERATION_TOKEN / Set FEDERATION_URL and FEDERATION_TOKEN")
        try:
            if action == "pull":
                got = sync.pull()
                self.stdout.write(json.dumps({"added": got.added, "updated": got.updated, "clashes": got.clashes,
                                              "clubs_added": got.clubs_added, "clubs_updated": got.clubs_updated},
                                             ensure_ascii=False))
                return
            delivered = sync.sync(max_seconds=opts["max_seconds"])
        except sync.SendError as e:
            raise CommandError(f"Federação indisponível: {e} / Federation unavailable: {e}") from e
        from scoreboard.core.models import OutboxRecord

        self.stdout.write(json.dumps({"delivered": delivered,
                                      "pending": OutboxRecord.objects.filter(delivered_at__isnull=True).count()}))

    @staticmethod
    def registry(action: str, opts: dict):
        """The registry's actions, each file in one transaction: a refusal stores nothing."""
        if action == "rename-club":
            if not opts["file"] or not opts["name"]:
                raise CommandError("Informe o id do clube e o novo nome / Give the club's id and the new name")
            club = federation.rename_club(opts["file"], opts["name"], by="cmd")
            return {"federation_id": club.federation_id, "name": club.name}
        if action == "register-clubs":
            rows = _rows(opts["file"], '[{"name", "federation_id"?}]')
            with transaction.atomic():
                made = [federation.register_club(r["name"], r.get("federation_id")) for r in rows]
            return [{"federation_id": c.federation_id, "name": c.name} for c in made]
        rows = _rows(opts["file"], '[{"name", "club"?}]')
        with transaction.atomic():
            made = [federation.register(str(r["name"]), str(r.get("club") or ""), r.get("federation_id"))
                    for r in rows]
        return [{"federation_id": p.federation_id, "name": p.name, "club": p.club} for p in made]
