"""``manage.py importmatch FILE [--table NAME]``: store a match file as a new match."""
from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

import sinuca

from scoreboard.reports.exports import MAX_FILE, import_document, read_document


class Command(BaseCommand):
    help = ("Importa um jogo do JSON do contrato ({\"config\", \"events\"}) / "
            "Import a match from the contract's JSON")

    def add_arguments(self, parser):
        parser.add_argument("file", help="arquivo JSON, ou - para a entrada padrão")
        parser.add_argument("--table", default="", help="mesa do jogo importado")

    def handle(self, *args, **opts):
        try:
            text = sys.stdin.read(MAX_FILE + 1) if opts["file"] == "-" else open(opts["file"], encoding="utf-8").read(MAX_FILE + 1)
            doc = read_document(text)
            match = import_document(doc, table=opts["table"], entered_by="import")
        except OSError as e:
            raise CommandError(str(e)) from e
        except sinuca.SinucaError as e:
            raise CommandError(f"evento {getattr(e, 'index', -1)}: {e.code}: {e.message}") from e
        except (ValueError, UnicodeDecodeError) as e:
            raise CommandError(str(e)) from e
        self.stdout.write(json.dumps({"match": match.pk, "events": match.seq}))
