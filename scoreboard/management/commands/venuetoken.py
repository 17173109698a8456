"""``manage.py venuetoken NAME``: issue a venue's token at the federation (``--revoke`` it)."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from scoreboard.core import federation


class Command(BaseCommand):
    """Print ``{"venue", "token"}``: a new token for the venue ``NAME`` (made when new), shown
    once, only its hash kept; the venue's previous token stops working. With ``--revoke`` the
    venue's token is refused from now on (401: nothing it sends is stored; it keeps its outbox)."""

    help = ("Emite o token de um clube nesta federação (mostrado uma vez) ou o revoga / "
            "Issue a venue's token at this federation (shown once) or revoke it")

    def add_arguments(self, parser):
        parser.add_argument("name", help="nome do clube / venue name")
        parser.add_argument("--revoke", action="store_true", help="revoga o token / revoke the token")

    def handle(self, *args, **opts):
        try:
            if opts["revoke"]:
                federation.revoke_venue_token(opts["name"])
                self.stdout.write(json.dumps({"venue": opts["name"], "revoked": True}, ensure_ascii=False))
                return
            token = federation.issue_venue_token(opts["name"])
        except federation.VenueError as e:
            raise CommandError(str(e)) from e
        self.stdout.write(json.dumps({"venue": " ".join(opts["name"].split()), "token": token}, ensure_ascii=False))
