"""``manage.py desktoken COMPETITION``: print a new desk API token for a competition, as JSON."""
from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from scoreboard.core.competitions import new_desk_token
from scoreboard.core.models import Competition


class Command(BaseCommand):
    """Print ``{"competition", "name", "desk_token", "api_url", "desk_url"}``: a new token for
    the competition's desk API (shown once; only its hash is kept). The previous token stops
    working: ``createcompetition`` showed it once, and a lost or leaked one is replaced here."""

    help = ("Imprime um novo token da mesa de controle de uma competição (o anterior deixa de valer) / "
            "Print a new desk token for a competition (the previous one stops working)")

    def add_arguments(self, parser):
        parser.add_argument("competition", help="id da competição / competition id")
        parser.add_argument("--base-url", default=None, help="prefixo do endereço impresso")

    def handle(self, *args, **opts):
        raw = str(opts["competition"]).strip()
        if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
            raise CommandError(f"Id de competição inválido: {raw!r} / Invalid competition id: {raw!r}")
        comp = Competition.objects.filter(pk=int(raw)).first()
        if comp is None:
            raise CommandError(f"Competição {raw} não encontrada / Competition {raw} not found")
        token = new_desk_token(comp, "cmd:desktoken")
        base = settings.SITE_URL if opts["base_url"] is None else opts["base_url"].rstrip("/")
        self.stdout.write(json.dumps({"competition": comp.pk, "name": comp.name, "desk_token": token,
                                      "api_url": f"{base}/api/competitions/{comp.pk}/",
                                      "desk_url": f"{base}/desk/{comp.pk}/"}, ensure_ascii=False))
