"""``manage.py replaymatch FILE [--speed X] [--table NAME] [--server URL] [--keep] [--hold S]``
(or ``replaymatch --clean``): a rehearsal.

Plays a recorded match (the contract's JSON) into a new live match at a human pace, one event at a
time through ``log.append_event``, so every TV and overlay watching it (or its table) moves as
in a real match. Set up OBS and the TVs with it before the event.

The broadcast leaves from the process that stores the event: with the in-memory channel layer of
the embedded default, pass ``--server http://HOST:PORT`` so each event is posted to the running
server's API instead (with ``REDIS_URL`` every process reaches every socket, and it is not needed).

The match is marked as a rehearsal (never an official result) and cleaned up: an earlier
rehearsal on the same table is deleted when a new one starts, and this one is deleted when it
ends (after ``--hold`` seconds showing the result) or is stopped (Ctrl-C). ``--keep`` keeps it;
``--clean`` deletes every rehearsal and exits. A stopped rehearsal used to stay "Em andamento"
forever, and each run added another.
"""
from __future__ import annotations

import json
import random
import signal
import sys
import threading
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

import sinuca

from scoreboard.core import log
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import delete_matches, new_match, rehearsals
from scoreboard.core.models import Table
from scoreboard.core.models import Match, RefereeCredential
from scoreboard.reports.exports import read_document

# Seconds a referee takes before entering each kind of event, at --speed 1.
PACE = {"lot": 6.0, "pot": 7.0, "no_pot": 11.0, "foul": 14.0, "decision": 6.0, "next_frame": 45.0,
        "undo": 4.0, "stalemate_warning": 8.0, "restart_frame": 20.0, "concede": 10.0}


def pause(event: dict, speed: float, rng: random.Random) -> float:
    """Human-paced wait before ``event``: its kind's pace, ±30 %, divided by ``speed``."""
    return PACE.get(event.get("type"), 8.0) * rng.uniform(0.7, 1.3) / speed


class Stopped(KeyboardInterrupt):
    """The rehearsal was told to stop (SIGTERM, SIGHUP): clean up as after Ctrl-C."""


def stop_on_signals() -> None:
    """Make SIGTERM and SIGHUP (a closed terminal, a service manager, ``kill``) stop the
    rehearsal like Ctrl-C, so its clean-up runs; Python's default for them exits at once."""
    if threading.current_thread() is not threading.main_thread():
        return

    def stop(signum, _frame):
        raise Stopped(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # started in the background with &
        signal.signal(signal.SIGINT, stop)


class Command(BaseCommand):
    help = "Reproduz um jogo gravado num jogo ao vivo, em ritmo humano / Replay a recorded match live"

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", help="o jogo gravado (JSON do contrato)")
        parser.add_argument("--speed", type=float, default=1.0,
                            help="multiplicador do ritmo (2 = duas vezes mais rápido)")
        parser.add_argument("--table", default="", help="mesa onde o jogo acontece (as URLs da mesa o seguem)")
        parser.add_argument("--server", default="",
                            help="envia cada evento à API deste servidor (camada de canais em memória)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--keep", action="store_true",
                            help="mantém este ensaio (e os anteriores) no banco de dados")
        parser.add_argument("--hold", type=float, default=20.0,
                            help="segundos que o resultado fica nas telas antes de o ensaio ser apagado")
        parser.add_argument("--clean", action="store_true", help="apaga todos os ensaios e sai")

    def handle(self, *args, **opts):
        if opts["clean"]:
            n = delete_matches(rehearsals(everywhere=True))
            self.stdout.write(f"{n} ensaio(s) apagado(s) / rehearsal(s) deleted")
            return
        if not opts["file"]:
            raise CommandError("Informe o arquivo do jogo / Give the match file")
        speed = opts["speed"]
        if not speed > 0:
            raise CommandError("--speed deve ser > 0 / must be > 0")
        if not opts["hold"] >= 0:
            raise CommandError("--hold deve ser >= 0 / must be >= 0")
        try:
            doc = read_document(open(opts["file"], encoding="utf-8").read())
        except (OSError, ValueError) as e:
            raise CommandError(str(e)) from e
        if not opts["keep"]:
            table = Table.objects.filter(name=opts["table"]).first() if opts["table"] else None
            if table is not None or not opts["table"]:
                gone = delete_matches(rehearsals(table))
                if gone:
                    self.stderr.write(f"{gone} ensaio(s) anterior(es) apagado(s) / earlier rehearsal(s) deleted")
        match = new_match(doc["config"], table=opts["table"], rehearsal=True,
                          competition="Ensaio / Rehearsal")
        stop_on_signals()
        try:
            self._play(match, doc, opts)
        except KeyboardInterrupt as e:  # Ctrl-C, SIGTERM, SIGHUP: clean up (below), then exit 130
            self.stderr.write(f"ensaio interrompido / rehearsal stopped ({e or 'SIGINT'})")
            raise SystemExit(130) from None
        finally:
            # Stopped (Ctrl-C, an error) or done: a rehearsal leaves nothing "in progress" behind.
            if not opts["keep"]:
                delete_matches(Match.objects.filter(pk=match.pk))
                self.stderr.write(f"ensaio #{match.pk} apagado / rehearsal #{match.pk} deleted")

    def _play(self, match, doc: dict, opts: dict) -> None:
        speed = opts["speed"]
        cred, token, pin = RefereeCredential.issue(match, label="replaymatch")
        base = opts["server"].rstrip("/") or settings.SITE_URL
        info = {"match": match.pk, "events": len(doc["events"]),
                "tv_url": base + reverse("tv", args=[match.pk]),
                "overlay_url": base + reverse("overlay", args=[match.pk]),
                "match_url": base + reverse("match", args=[match.pk]),
                "referee_url": base + login_path(cred)}
        if match.table:
            info["table_tv_url"] = base + reverse("table_tv", args=[match.table_id])
            info["table_overlay_url"] = base + reverse("table_overlay", args=[match.table_id])
        self.stdout.write(json.dumps(info, ensure_ascii=False))
        if not opts["server"] and "InMemory" in settings.CHANNEL_LAYERS["default"]["BACKEND"]:
            self.stderr.write("aviso / warning: in-memory channel layer — pages served by another process "
                              "will not move; use --server http://HOST:PORT or REDIS_URL")
        rng = random.Random(opts["seed"])
        post = self._poster(opts["server"], match.pk, token) if opts["server"] else None
        for i, ev in enumerate(doc["events"]):
            time.sleep(pause(ev, speed, rng))
            try:
                desc = post(ev, i) if post else log.append_event(
                    match.pk, ev, expected_seq=i, entered_by="replaymatch").description
            except sinuca.SinucaError as e:  # read_document replayed it: only a concurrent tap gets here
                raise CommandError(f"evento {i}: {e.code}: {e.message}") from e
            self.stdout.write(f"{i + 1:4d}  {desc.get('pt', '')}")
            sys.stdout.flush()
        if not opts["keep"] and opts["hold"]:
            time.sleep(opts["hold"])  # the result stays on the screens a moment

    @staticmethod
    def _poster(server: str, match_id: int, token: str):
        import urllib.request

        url = f"{server.rstrip('/')}/api/matches/{match_id}/events/"

        def post(ev: dict, i: int) -> dict:
            req = urllib.request.Request(url, method="POST", data=json.dumps(
                {"event": ev, "expected_seq": i, "key": f"replay-{match_id}-{i}"}).encode(),
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.load(r)["description"]

        return post
