"""``manage.py createcompetition FILE.json``: create a competition, draw it, make its first
matches and call its tables; print ``{"competition": id, …}`` (with the desk's API token, shown
once). The file's shape is in ``docs/tournament.md``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from tournament import TournamentError

from scoreboard.core.seasons import create_seeded
from scoreboard.management import jsonfile

MAX_FILE = 1024 * 1024  # 128 players and their stages are a few KB


class Command(BaseCommand):
    """Create a competition from a JSON file; print its id, desk token, draw and first matches."""

    help = "Cria uma competição a partir de um arquivo JSON / Create a competition from a JSON file"

    def add_arguments(self, parser):
        parser.add_argument("file", help="arquivo JSON / JSON file ('-' lê da entrada padrão)")

    def handle(self, *args, **opts):
        data = jsonfile.read(opts["file"], MAX_FILE)
        try:
            created = create_seeded(data, by="cmd:createcompetition")
        except TournamentError as e:
            raise CommandError(e.message) from e
        self.stdout.write(json.dumps(created.as_json(), ensure_ascii=False))
