"""``manage.py matchtoken MATCH``: print a new referee API token for any match, as JSON."""
from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from scoreboard.core.models import Match
from scoreboard.core.operations import issue_token


class Command(BaseCommand):
    """Print ``{"match", "referee_token", "events_url"}``: a new token (shown once; only its hash
    is kept), for a match made in the admin, by ``createcompetition`` or anywhere else. Older
    tokens keep working until revoked in the admin (Credenciais de árbitro)."""

    help = "Imprime um novo token de API do árbitro para um jogo / Print a new referee API token for a match"

    def add_arguments(self, parser):
        parser.add_argument("match", help="id do jogo / match id")
        parser.add_argument("--base-url", default=None, help="prefixo do endereço impresso")

    def handle(self, *args, **opts):
        raw = str(opts["match"]).strip()
        if not raw.isascii() or not raw.isdigit():
            raise CommandError(f"Id de jogo inválido: {raw!r} / Invalid match id: {raw!r}")
        match = Match.objects.filter(pk=int(raw)).first()
        if match is None:
            raise CommandError(f"Jogo {raw} não encontrado / Match {raw} not found")
        token = issue_token(match, "cmd:matchtoken")
        base = settings.SITE_URL if opts["base_url"] is None else opts["base_url"].rstrip("/")
        self.stdout.write(json.dumps({"match": match.pk, "referee_token": token,
                                      "events_url": base + reverse("api_events", args=[match.pk])},
                                     ensure_ascii=False))
