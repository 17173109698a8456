"""``manage.py createcompetition FILE.json``: create a competition, draw it, make its first
matches and call its tables; print ``{"competition": id, …}`` (with the desk's API token, shown
once). The file's shape is in ``docs/tournament.md``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from tournament import TournamentError

from scoreboard.core.seasons import create_seeded

MAX_FILE = 1024 * 1024  # 128 players and their stages are a few KB


class Command(BaseCommand):
    """Create a competition from a JSON file; print its id, desk token, draw and first matches."""

    help = "Cria uma competição a partir de um arquivo JSON / Create a competition from a JSON file"

    def add_arguments(self, parser):
        parser.add_argument("file", help="arquivo JSON / JSON file ('-' lê da entrada padrão)")

    def handle(self, *args, **opts):
        path = opts["file"]
        try:
            if path == "-":
                import sys

                text = sys.stdin.read(MAX_FILE + 1)
            else:
                with open(path, encoding="utf-8") as f:
                    text = f.read(MAX_FILE + 1)
        except UnicodeDecodeError as e:
            raise CommandError(f"{path} não está em UTF-8 (byte {e.start}): salve o arquivo como UTF-8 / "
                               f"{path} is not UTF-8 (byte {e.start}): save the file as UTF-8") from e
        except OSError as e:
            raise CommandError(f"Não foi possível ler {path}: {e.strerror or e} / Could not read {path}: {e.strerror or e}") from e
        # Windows editors (Notepad, Excel's "UTF-8") save a byte-order mark before the JSON
        text = text.removeprefix("\ufeff")
        if len(text) > MAX_FILE:
            raise CommandError(f"Arquivo grande demais (máximo {MAX_FILE} bytes) / File too large (at most {MAX_FILE} bytes)")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise CommandError(f"JSON inválido na linha {e.lineno}, coluna {e.colno} / "
                               f"Malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}") from e
        try:
            created = create_seeded(data, by="cmd:createcompetition")
        except TournamentError as e:
            raise CommandError(e.message) from e
        self.stdout.write(json.dumps(created.as_json(), ensure_ascii=False))
