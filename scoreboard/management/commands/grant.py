"""``manage.py grant ROLE USER --competition ID | --table NAME | --match ID [--revoke]``: give (or
take) a user's role on one object, audited; ``manage.py grant federation USER`` on none."""
from __future__ import annotations

import getpass
import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from scoreboard.core import access
from scoreboard.core.models import Competition, Match, Role, Table


def _id(raw: str, what_pt: str, what_en: str) -> int:
    raw = str(raw).strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
        raise CommandError(f"Id de {what_pt} inválido: {raw!r} / Invalid {what_en} id: {raw!r}")
    return int(raw)


class Command(BaseCommand):
    """Give ``ROLE`` (organiser of a competition, referee of a table or a match, streamer of a
    table, federation staff on none) to ``USER``; ``--revoke`` takes it. Prints ``{"user", "role", <scope>: id,
    "granted"|"revoked"}``. Audited (``MatchRecord`` ``grant``/``revoke``) as
    ``cmd:<login of who ran it>``."""

    help = ("Dá (ou com --revoke retira) um papel a um usuário: organiser --competition ID, referee "
            "--table NOME | --match ID, streamer --table NOME / Give (or with --revoke take) a user's role")

    def add_arguments(self, parser):
        parser.add_argument("role", choices=[k for k, _ in Role.KINDS])
        parser.add_argument("user", help="nome de usuário / username")
        where = parser.add_mutually_exclusive_group()
        where.add_argument("--competition", help="id da competição / competition id")
        where.add_argument("--table", help="nome da mesa / table name")
        where.add_argument("--match", help="id do jogo / match id")
        parser.add_argument("--revoke", action="store_true", help="retira o papel / take the role")

    def handle(self, *args, **opts):
        user = get_user_model().objects.filter(username=opts["user"]).first()
        if user is None:
            raise CommandError(f"Usuário {opts['user']!r} não encontrado / User {opts['user']!r} not found")
        scope: dict = {}
        if opts["competition"] is not None:
            pk = _id(opts["competition"], "competição", "competition")
            scope["competition"] = Competition.objects.filter(pk=pk).first()
            if scope["competition"] is None:
                raise CommandError(f"Competição {pk} não encontrada / Competition {pk} not found")
        elif opts["table"] is not None:
            scope["table"] = Table.objects.filter(name=opts["table"].strip()).first()
            if scope["table"] is None:
                raise CommandError(f"Mesa {opts['table']!r} não encontrada / Table {opts['table']!r} not found")
        elif opts["match"] is not None:
            pk = _id(opts["match"], "jogo", "match")
            scope["match"] = Match.objects.filter(pk=pk).first()
            if scope["match"] is None:
                raise CommandError(f"Jogo {pk} não encontrado / Match {pk} not found")
        try:
            login = getpass.getuser()
        except (KeyError, OSError):  # no login name for this uid (a container)
            login = "?"
        by = f"cmd:{login}"
        try:
            if opts["revoke"]:
                n = access.revoke(user, opts["role"], by, **scope)
                result = {"revoked": n}
            else:
                access.grant(user, opts["role"], by, **scope)
                result = {"granted": True}
        except access.RoleError as e:
            raise CommandError(str(e)) from e
        where = {name: obj.pk for name, obj in scope.items()}
        self.stdout.write(json.dumps({"user": user.get_username(), "role": opts["role"], **where, **result},
                                     ensure_ascii=False))
