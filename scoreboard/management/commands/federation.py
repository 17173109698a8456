"""``manage.py federation sync|pull|register|register-clubs|rename-club``: a venue's link to its
federation, and the federation's registry of players and clubs."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from scoreboard.core import clubs, federation, names, sync
from scoreboard.management import jsonfile

MAX_FILE = 16 * 1024 * 1024  # a registry of tens of thousands of players


def _rows(path: str, what: str) -> list[dict]:
    """The JSON list of objects in ``path`` (``-``: standard input; UTF-8, a byte-order mark
    allowed: ``jsonfile.read``); each object's fields are checked as it is stored."""
    if not path:
        raise CommandError("Informe o arquivo JSON / Give the JSON file")
    rows = jsonfile.read(path, MAX_FILE)
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise CommandError(f"Esperada uma lista {what} / Expected a list {what}")
    return rows


def _refused(i: int, pt: str, en: str) -> CommandError:
    """The refusal of item ``i`` (from 1) of a file, naming it."""
    return CommandError(f"item {i} do arquivo: {pt} / item {i} of the file: {en}")


def _name(row: dict):
    """A row's ``name``, "" when it has none (refused as empty, not as a missing field)."""
    name = row.get("name")
    return "" if name is None else name


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
    A file (UTF-8, a byte-order mark allowed) with a bad item stores none of its items: the
    error names the item ("item 2 do arquivo: nome do clube: vazio / item 2 of the file: club
    name: empty"); names must be text (``names.clean``), a club named twice in one file or an id
    given twice is refused."""

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
            made, seen_names, seen_ids = [], {}, {}
            with transaction.atomic():
                for i, r in enumerate(rows, 1):
                    try:
                        name, fid = clubs.clean_name(_name(r)), clubs.clean_id(r.get("federation_id"))
                        # a repeat within the file, named by its first item: the error of
                        # register_club would quote that item's id, which the refusal rolls back
                        first = seen_names.setdefault(names.identity(name), i)
                        if first != i:
                            raise federation.ClubRefused(f"o clube {name} é o mesmo do item {first}",
                                                         f"the club {name} is the one of item {first}")
                        first = seen_ids.setdefault(fid, i) if fid else i
                        if first != i:
                            raise federation.ClubRefused(f"o id {fid} é o do item {first}",
                                                         f"the id {fid} is the one of item {first}")
                        made.append(federation.register_club(name, fid))
                    except (federation.ClubRefused, names.NameRefused) as e:
                        raise _refused(i, e.pt, e.en) from e
            return [{"federation_id": c.federation_id, "name": c.name} for c in made]
        rows = _rows(opts["file"], '[{"name", "club"?, "federation_id"?}]')
        made = []
        with transaction.atomic():
            for i, r in enumerate(rows, 1):
                try:
                    made.append(federation.register(_name(r), r.get("club"), r.get("federation_id")))
                except (federation.ClubRefused, names.NameRefused) as e:
                    raise _refused(i, e.pt, e.en) from e
        return [{"federation_id": p.federation_id, "name": p.name, "club": p.club} for p in made]
