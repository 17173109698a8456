"""What a table's stream graphics show (``/tables/<id>/graphics/``), rendered whole as a board.

The graphics page rides the venue boards' push (``boards.py``, ``hub.board_sockets.BoardSockets.refresh``): its
board kind is ``graphics-<table id>``, so a change anywhere (an event on another table for the
ticker, a switch from the control endpoint, a sponsor uploaded) re-renders it once per process and
language and sends the same text to every open graphics page of that table. Only the graphics
switched on are built (a hidden card costs nothing). Everything is read from what is stored:
names, clubs and flags from the players, records and head-to-head from the finished matches in the
database (the log's last states), bracket and groups from the competition (``core.competitions``).
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone, translation

from ..core import competitions, graphics, log, tables
from ..core.i18n import engine_lang
from ..core.models import Competition, Fixture, Match, Player, Sponsor, Table

KIND = re.compile(r"^graphics-(\d{1,9})$")
TICKER_MAX = 24  # other tables in the ticker
RESULTS_MAX = 8  # results of the day on the holding card
MEETINGS_MAX = 5  # last meetings listed on the head-to-head card


def person(player: Player | None) -> dict:
    """Name, photo URL, club and flag of a player row (empty values for what it lacks)."""
    if player is None:
        return {"name": "—", "photo": "", "club": "", "flag_url": "", "country_name": "", "pk": None}
    country = getattr(player, "country", None)
    return {"pk": player.pk, "name": player.name, "photo": player.photo.url if player.photo else "",
            "club": player.club or "", "flag_url": country.flag if country else "",
            "country_name": str(country.name) if country else ""}


def _finished_with(q: Q) -> list[Match]:
    return list(tables.finished().filter(q, rehearsal=False))


def _outcome(m: Match, state: dict | None) -> tuple[int | None, list[int], int, int]:
    """``(winner 0/1/None, frames [a, b], highest break a, b)`` of a finished match."""
    if m.walkover:
        w = m.walkover.get("winner")
        k = m.config["frames_to_win"]
        return w, ([k, 0] if w == 0 else [0, k] if w == 1 else [0, 0]), 0, 0
    s = state or {}
    hb = s.get("highest_break") or [0, 0]
    return s.get("match_winner"), list(s.get("frames") or [0, 0]), hb[0], hb[1]


def record(player: Player) -> dict:
    """A player's record over every finished match in the database (rehearsals aside):
    matches won and lost, frames won and lost, W.O.s, the highest break."""
    ms = _finished_with(Q(player_a=player) | Q(player_b=player))
    states = competitions.last_states([m.pk for m in ms if not m.walkover])
    out = {"played": 0, "won": 0, "lost": 0, "frames_won": 0, "frames_lost": 0, "highest_break": 0}
    for m in ms:
        side = 0 if m.player_a_id == player.pk else 1
        w, frames, hb0, hb1 = _outcome(m, states.get(m.pk))
        out["played"] += 1
        out["won"] += w == side
        out["lost"] += w is not None and w != side
        out["frames_won"] += frames[side]
        out["frames_lost"] += frames[1 - side]
        out["highest_break"] = max(out["highest_break"], hb0 if side == 0 else hb1)
    return out


def head_to_head(a: Player, b: Player) -> dict:
    """Every finished match between ``a`` and ``b`` in the database: wins and frames of each, and
    the last :data:`MEETINGS_MAX` meetings (date, frames in a-b order, winner's name)."""
    ms = _finished_with((Q(player_a=a) & Q(player_b=b)) | (Q(player_a=b) & Q(player_b=a)))
    states = competitions.last_states([m.pk for m in ms if not m.walkover])
    out = {"wins": [0, 0], "frames": [0, 0], "meetings": [], "played": len(ms)}
    for m in ms:
        w, frames, _h0, _h1 = _outcome(m, states.get(m.pk))
        flip = m.player_a_id != a.pk  # a-b order, whoever was player A of that match
        fr = [frames[1], frames[0]] if flip else frames
        win = None if w is None else (1 - w if flip else w)
        out["frames"] = [out["frames"][0] + fr[0], out["frames"][1] + fr[1]]
        if win is not None:
            out["wins"][win] += 1
        if len(out["meetings"]) < MEETINGS_MAX:
            out["meetings"].append({"date": timezone.localtime(m.ended_at), "frames": fr,
                                    "walkover": bool(m.walkover), "winner": (a, b)[win].name if win is not None else "",
                                    "competition": _competition_name(m)})
    return out


def _competition_name(m: Match) -> str:
    comp = _competition(m)
    return comp.name if comp is not None else (m.competition or "")


def _fixture(m: Match | None) -> Fixture | None:
    if m is None:
        return None
    try:
        return m.fixture
    except Fixture.DoesNotExist:
        return None


def _competition(m: Match | None) -> Competition | None:
    fx = _fixture(m)
    return fx.competition if fx is not None else None


def _label(m: Match | None, summary: dict | None) -> str:
    """The round or group of a competition match ("J3 · Grupo A · Rodada 1"), "" otherwise."""
    fx = _fixture(m)
    if fx is None or summary is None:
        return ""
    for st in summary["stages"]:
        for row in st["matches"]:
            if row["number"] == fx.number:
                return row["label"]
    return ""


def side(m: Match, ctx_summary: dict | None = None) -> dict:
    """A match as the cards show it: both players, the label, the scheduled time, the score."""
    snap = log.snapshot(m.pk)
    s = snap.state
    return {"match": m, "players": [person(m.player_a), person(m.player_b)], "label": _label(m, ctx_summary),
            "frames": s["frames"], "scores": s["scores"], "at": m.scheduled_at, "walkover": bool(m.walkover),
            "over": s["phase"] == "match_over", "winner": s.get("match_winner"), "table": m.table}


def ticker(table: Table) -> list[dict]:
    """The other tables, each with what it shows: the match on it (names, frames, score), else
    its next match, else its last result."""
    out = []
    for t in Table.objects.exclude(pk=table.pk)[:TICKER_MAX]:
        now = tables.table_now(t)
        m = now.current or now.next or now.last
        state = "live" if now.current else "next" if now.next else "last" if now.last else "free"
        out.append({"table": t, "state": state, "item": side(m) if m is not None else None})
    return out


def day_results() -> list[dict]:
    """The day's finished matches (local date), the newest first, at most :data:`RESULTS_MAX`."""
    start = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    return [side(m) for m in tables.finished().filter(ended_at__gte=start, rehearsal=False)[:RESULTS_MAX]]


def countdown_at(hhmm: str) -> datetime | None:
    """The next local time ``HH:MM`` (today, or tomorrow when it has passed more than an hour ago:
    a countdown to 00:30 set at 23:50 counts to tomorrow's)."""
    if not hhmm:
        return None
    h, m = (int(x) for x in hhmm.split(":"))
    now = timezone.localtime()
    at = now.replace(hour=h, minute=m, second=0, microsecond=0)
    if at < now - timedelta(hours=1):
        at += timedelta(days=1)
    return at


def bracket(summary: dict, fx: Fixture | None) -> dict | None:
    """The knockout stage to draw: the one of the table's match when it is a knockout, else the
    competition's last knockout stage. ``{"stage", "rounds": [{"name", "matches"}]}``, each match
    with its ``code`` (``J11``), its ``sides`` and whether it is the table's (``here``)."""
    stages = [st for st in summary["stages"] if st["format"] == "knockout"]
    if not stages:
        return None
    mine = next((st for st in stages for r in st["matches"] if fx is not None and r["number"] == fx.number), None)
    st = mine or stages[-1]
    rounds: dict[int, dict] = {}
    for r in st["matches"]:
        rounds.setdefault(r["round"], {"name": r["label"].split(" · ")[-1], "matches": []})["matches"].append(
            {**r, "sides": [r["players"][i] or r["placeholders"][i] or "—" for i in (0, 1)],
             # "J11": what the later rounds' "Vencedor J11" points at
             "code": r["label"].split(" · ")[0],
             "here": fx is not None and r["number"] == fx.number})
    return {"stage": st["index"], "rounds": [rounds[k] for k in sorted(rounds)]}


def groups(summary: dict, fx: Fixture | None) -> list[dict]:
    """The group standings to draw: the group of the table's match when it is in one, else every
    group of the first stage that has groups (at most four)."""
    mine = None
    for st in summary["stages"]:
        for r in st["matches"]:
            if fx is not None and r["number"] == fx.number and r["group"]:
                mine = f"{st['index']}:{r['group']}"
    keys = [mine] if mine and mine in summary["standings"] else []
    if not keys:
        first = next((k for k in summary["standings"]), None)
        if first is not None:
            stage = first.split(":", 1)[0]
            keys = [k for k in summary["standings"] if k.split(":", 1)[0] == stage][:4]
    return [{"key": k, "group": k.split(":", 1)[1], "rows": summary["standings"][k]} for k in keys]


def sponsors(table: Table, comp: Competition | None) -> list[Sponsor]:
    """The active sponsors of the table, of its competition and of the whole venue, in order."""
    q = Q(table=table) | Q(table__isnull=True, competition__isnull=True)
    if comp is not None:
        q |= Q(competition=comp, table__isnull=True)
    return [s for s in Sponsor.objects.filter(q, active=True).order_by("order", "pk") if s.image]


def context(table_id: int) -> dict:
    """Everything the graphics board of table ``table_id`` shows, for the graphics switched on."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return {"table": None, "g": dict(graphics.DEFAULTS)}
    g = graphics.current(table)
    now = tables.table_now(table)
    here = now.current or now.next or now.last
    upcoming = tables.scheduled().filter(table=table).first()
    comp = _competition(here) or _competition(upcoming)
    summary = competitions.summary(comp, engine_lang()) if comp is not None and (
        g["bracket"] or g["group"] or g["next"] or g["intro"] or g["h2h"]) else None
    ctx = {"table": table, "g": g, "comp": comp, "lang": engine_lang(), "ver": table.graphics_ver}
    if g["ticker"]:
        ctx["ticker"] = ticker(table)
    if g["next"]:
        ctx["next"] = side(upcoming, summary) if upcoming is not None else None
        if upcoming is None:
            # why there is none: a competition's queue calls its next match onto whichever table
            # is free, so this table's is not known yet; else nothing more is scheduled here (a
            # tryout read "Nenhum jogo marcado nesta mesa" beside the match in play on it)
            queued = comp is not None and tables.scheduled().filter(
                table__isnull=True, fixture__competition=comp).exists()
            ctx["next_none"] = "queue" if queued else "after" if now.current is not None else "none"
    if g["next"] or g["holding"]:
        ctx["countdown"] = countdown_at(g["countdown"])
    if g["holding"]:
        ctx["results"] = day_results()
    if (g["intro"] or g["h2h"]) and here is not None:
        a, b = here.player_a, here.player_b
        ctx["pair"] = side(here, summary)
        if g["intro"]:
            p = a if g["player"] == "a" else b
            ctx["intro"] = {"p": person(p), "record": record(p)}
        if g["h2h"]:
            ctx["h2h"] = {"a": person(a), "b": person(b), **head_to_head(a, b)}
    if summary is not None and g["bracket"]:
        ctx["bracket"] = bracket(summary, _fixture(here))
    if summary is not None and g["group"]:
        ctx["groups"] = groups(summary, _fixture(here))
    if g["sponsors"]:
        ctx["sponsors"] = sponsors(table, comp)
    return ctx


def render(table_id: int, lang: str) -> str:
    """The graphics board element (``#gfx-stage``) of a table as it is now, in ``lang``."""
    with translation.override(lang):
        return render_to_string("scoreboard/graphics.html#stage", context(table_id))
