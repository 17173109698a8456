"""``manage.py creatematch``: create a match and print its referee token and URLs as JSON."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

import sinuca

from scoreboard.core.matches import create_match
from scoreboard.core.names import NameRefused


class Command(BaseCommand):
    """Create a match; print {"match", "referee_token", "referee_url", "tv_url", "overlay_url"}."""

    help = "Cria um jogo e imprime o token do árbitro e os endereços / Create a match and print its URLs"

    def add_arguments(self, parser):
        # Given twice or more, a side of several players (doubles, Art. 1: up to 4 a side).
        parser.add_argument("--player-a", required=True, action="append",
                            help="jogador do lado A; repita para uma dupla / side A's player; repeat for doubles")
        parser.add_argument("--player-b", required=True, action="append",
                            help="jogador do lado B; repita para uma dupla / side B's player; repeat for doubles")
        parser.add_argument("--reds", type=int, default=15)
        parser.add_argument("--frames-to-win", type=int, default=1)
        parser.add_argument("--first-breaker", type=int, choices=[0, 1], default=None,
                            help="0 ou 1; sem ele o jogo começa pelo sorteio (Art. 17)")
        parser.add_argument("--no-retorno", action="store_true",
                            help="regulamento sem retorno (Art. 29)")
        parser.add_argument("--table", default="", help="mesa (criada se nova); imprime também as URLs da mesa")
        parser.add_argument("--referee", default="", help="nome do árbitro (súmula)")
        parser.add_argument("--competition", default="", help="competição (súmula)")
        parser.add_argument("--rehearsal", action="store_true",
                            help="demonstração/ensaio: nunca um resultado oficial; espera na mesa sem a ocupar e "
                                 "substitui os ensaios anteriores dela / a demo: never an official result; waits on "
                                 "the table without holding it and replaces its earlier rehearsals")
        parser.add_argument("--base-url", default=None,
                            help="prefixo dos endereços impressos, ex. http://192.168.0.10:8000")

    def handle(self, *args, **opts):
        sides = [list(opts[name]) for name in ("player_a", "player_b")]
        a, b = (side[0] if len(side) == 1 else side for side in sides)
        try:
            created = create_match(a, b,
                                   reds=opts["reds"], frames_to_win=opts["frames_to_win"],
                                   first_breaker=opts["first_breaker"], retorno=not opts["no_retorno"],
                                   table=opts["table"].strip(), base_url=opts["base_url"],
                                   referee_name=opts["referee"].strip(), competition=opts["competition"].strip(),
                                   rehearsal=opts["rehearsal"])
        except sinuca.SinucaError as e:
            raise CommandError(e.message) from e
        except NameRefused as e:  # every name is checked by create_match (core.names)
            raise CommandError(str(e)) from e
        out = created.as_json()
        if created.match.table_id:
            # The table's URLs follow it from match to match: what OBS and the venue TV keep.
            base = created.tv_url[:-len(reverse("tv", args=[created.match.pk]))]
            out.update(table=created.match.table_id,
                       table_tv_url=base + reverse("table_tv", args=[created.match.table_id]),
                       table_overlay_url=base + reverse("table_overlay", args=[created.match.table_id]))
        self.stdout.write(json.dumps(out, ensure_ascii=False))
