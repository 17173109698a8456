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

from presentation.labels import standing_marks, walkover_mark

from ..core import competitions, graphics, log, tables
from ..core.i18n import engine_lang
from ..core.models import Competition, Fixture, Match, Player, Sponsor, Table

KIND = re.compile(r"^graphics-(\d{1,9})$")
TICKER_MAX = 24  # other tables in the ticker
RESULTS_MAX = 8  # results of the day on the holding card
MEETINGS_MAX = 5  # last meetings listed on the head-to-head card
# what one page of a card holds at a size read on air (names >= 26 px at 1920x1080); more turn
# by the clock as the ticker's pages do
BRACKET_LEVELS = 3  # rounds on a bracket page: 4, 2 and 1 boxes
GROUPS_PER_PAGE = 2  # small groups side by side
GROUP_PAIR_MAX = 4  # players of a group that shares its page
GROUP_ROWS_MAX = 8  # rows of a group on one page
GROUP_LINES_MAX = 12  # and lines: a row's marks ("classificado", "W.O.") take one under its name


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
                                    "walkover": bool(m.walkover), "mark": walkover_mark(m.walkover, engine_lang()),
                                    "winner": (a, b)[win].name if win is not None else "",
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
            "mark": walkover_mark(m.walkover, engine_lang()),
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


def _round_name(row: dict) -> str:
    return row["label"].split(" · ")[-1]


def _box(row: dict, here: int | None) -> dict:
    """A bracket box: the match row with its ``code`` (``J11``: what a later round's "Vencedor
    J11" points at), its two ``sides`` (a name, a placeholder, or "" for nobody: a bye or a
    double W.O. upstream draws no name) and whether it is the table's match (``here``)."""
    return {**row, "sides": [row["players"][i] or row["placeholders"][i] or "" for i in (0, 1)],
            "code": row["label"].split(" · ")[0], "round_label": _round_name(row),
            "here": here is not None and row["number"] == here}


def bracket(summary: dict, fx: Fixture | None, sources: dict | None = None, first_round: int | None = None) -> dict | None:
    """The knockout stage to draw, in pages of at most :data:`BRACKET_LEVELS` rounds whose first
    column holds at most ``2 ** (BRACKET_LEVELS - 1)`` boxes: a bracket of 64 does not fit one
    card at a size read on air, so each page is a section of the tree (four matches, the two they
    feed and the one those feed), the pages following each other up to the final.

    The stage is the one of the table's match when it is a knockout, else the competition's last.
    The pages start at ``first_round`` (1 = the stage's first round) when given; else the table's
    match picks its own page (one page, the section where its round comes first); else they start
    at the current round (the first with a match not over). The last page always shows the final
    with the two rounds before it (and the third-place match, when there is one).

    ``sources`` maps a match number to the numbers of the two matches whose winners play it
    (``None`` for a player who comes straight in, after a bye or from a group); without it each
    round's match ``i`` is fed by matches ``2i`` and ``2i + 1`` of the round before.

    Returns ``None`` without a knockout stage, ``{"missing": n}`` when ``first_round`` names a
    round the stage does not have, else ``{"stage", "pages": [{"cols": [{"name", "n", "slots":
    [{"m": box, "row", "span"}]}], "rows", "third": box or None}]}``: column ``n`` (1, 2…) of
    the page's grid, its boxes at grid row ``row`` spanning ``span`` of the page's ``rows`` (row
    1 holds the rounds' names); a slot with no match (a bye) has no box: nothing is drawn."""
    stages = [st for st in summary["stages"] if st["format"] == "knockout"]
    if not stages:
        return None
    here = fx.number if fx is not None else None
    mine = next((st for st in stages for r in st["matches"] if r["number"] == here), None)
    st = mine or stages[-1]
    rows = [r for r in st["matches"] if r["round_name"] != "third_place"]
    third = next((_box(r, here) for r in st["matches"] if r["round_name"] == "third_place"), None)
    rounds: dict[int, list[dict]] = {}
    for r in sorted(rows, key=lambda r: (r["round"], r["number"])):
        rounds.setdefault(r["round"], []).append(_box(r, here))
    if not rounds:
        return None
    last = max(rounds)
    by_number = {b["number"]: b for bs in rounds.values() for b in bs}

    def children(box: dict | None) -> list:
        if box is None or box["round"] == min(rounds):
            return [None, None]
        if sources is not None and box["number"] in sources:
            return [by_number.get(n) if n is not None else None for n in sources[box["number"]]]
        before = rounds.get(box["round"] - 1, [])
        i = rounds[box["round"]].index(box)
        return [before[2 * i + k] if len(before) == 2 * len(rounds[box["round"]]) else None for k in (0, 1)]

    if first_round is not None:
        if first_round not in rounds:
            return {"stage": st["index"], "missing": first_round, "pages": []}
        start = first_round
    elif here in by_number or (third is not None and third["number"] == here):
        start = by_number[here]["round"] if here in by_number else last
    else:
        open_ = [r for r, bs in rounds.items() if any(b["status"] not in ("finished", "walkover", "bye") for b in bs)]
        start = min(open_) if open_ else last
    start = max(min(start, last - BRACKET_LEVELS + 1), min(rounds))
    pages = []
    while True:
        top = min(start + BRACKET_LEVELS - 1, last)
        for root in rounds[top]:
            cols = [[root]]
            for _ in range(top - start):
                cols.insert(0, [c for b in cols[0] for c in children(b)])
            n = len(cols[0])
            pages.append({"cols": [{"name": _round_name(rounds[start + j][0]), "n": j + 1,
                                    "slots": [{"m": b, "row": 2 + k * (n // len(c)), "span": n // len(c)}
                                              for k, b in enumerate(c) if b is not None]}
                                   for j, c in enumerate(cols)],
                          "rows": n, "third": third if top == last else None})
        if top == last:
            break
        # the next pages go on from the round these end with, the last one the final and the
        # two rounds before it
        start = max(min(top, last - BRACKET_LEVELS + 1), min(rounds))
    if first_round is None and here is not None:
        # the table's match: the page where it stands furthest left (its round and the next two)
        def column(p):
            return next((j for j, c in enumerate(p["cols"]) for b in c["slots"] if b["m"]["here"]),
                        len(p["cols"]) if p["third"] is not None and p["third"]["here"] else None)
        mine_pages = [p for p in pages if column(p) is not None]
        if mine_pages:
            pages = [min(mine_pages, key=column)]
    return {"stage": st["index"], "pages": pages}


def bracket_sources(plan) -> dict:
    """Match number -> the numbers of the two matches whose winners play it (``None`` for a side
    that is an entrant, a group position or a loser), from a ``tournament.Plan``."""
    return {f.id: [s.match if s.kind == "winner" else None for s in (f.a, f.b)] for f in plan.fixtures}


def groups(summary: dict, fx: Fixture | None, letter: str = "") -> dict:
    """The group standings to draw, in pages: ``{"pages": [[{"group", "rows", "part"}]],
    "missing": letter or ""}``.

    Which groups: ``letter``'s when given (of the table's stage, else of the current one; none:
    ``missing``); else the group of the table's match when it is in one; else every group of the
    current group stage (the last one where a match has begun, else the first). A page holds two
    groups of up to :data:`GROUP_PAIR_MAX` players side by side, or one larger group alone, at
    most :data:`GROUP_ROWS_MAX` rows and :data:`GROUP_LINES_MAX` lines with their marks (a longer
    group goes on over more pages, ``part`` 1, 2…):
    names keep their size on air whatever the number of groups, the pages turn by the clock."""
    standings = summary["standings"]
    if not isinstance(standings, dict):
        standings = {}  # a team competition's league table: no groups
    stage_of = {}
    mine = None
    for st in summary["stages"]:
        for r in st["matches"]:
            if r["group"]:
                stage_of.setdefault(st["index"], []).append(r)
            if fx is not None and r["number"] == fx.number and r["group"]:
                mine = f"{st['index']}:{r['group']}"
    if not standings:
        return {"pages": [], "missing": letter}
    begun = [s for s, rs in stage_of.items() if any(r["status"] not in ("scheduled", "waiting") for r in rs)]
    current = mine.split(":", 1)[0] if mine else str(max(begun)) if begun else next(iter(standings)).split(":", 1)[0]
    if letter:
        keys = [k for k in standings if k.split(":", 1)[1] == letter]
        keys = [k for k in keys if k.split(":", 1)[0] == current] or keys[:1]
        if not keys:
            return {"pages": [], "missing": letter}
    elif mine and mine in standings:
        keys = [mine]
    else:
        keys = [k for k in standings if k.split(":", 1)[0] == current]
    pages: list[list[dict]] = []
    lang = engine_lang()
    for k in keys:
        # classificado / abandonou / W.O. beside a name, as the hub's and the desk's group tables
        rows = [{**r, "marks": standing_marks(r.get("qualified", False), r.get("withdrawn", False),
                                              r.get("walkovers", 0), lang)} for r in standings[k]]
        name = k.split(":", 1)[1]
        if len(rows) <= GROUP_PAIR_MAX:
            if pages and len(pages[-1]) < GROUPS_PER_PAGE and all(len(b["rows"]) <= GROUP_PAIR_MAX and not b["part"] for b in pages[-1]):
                pages[-1].append({"group": name, "rows": rows, "part": 0})
            else:
                pages.append([{"group": name, "rows": rows, "part": 0}])
            continue
        parts: list[list[dict]] = [[]]
        for r in rows:  # a row's marks take a line of their own under the name
            lines = sum(1 + bool(x["marks"]) for x in parts[-1])
            if parts[-1] and (len(parts[-1]) == GROUP_ROWS_MAX or lines + 1 + bool(r["marks"]) > GROUP_LINES_MAX):
                parts.append([])
            parts[-1].append(r)
        for i, part in enumerate(parts):
            pages.append([{"group": name, "rows": part, "part": i + 1 if len(parts) > 1 else 0}])
    return {"pages": pages, "missing": ""}


def _sources(comp: Competition) -> dict | None:
    plan = competitions.format_of(comp).bracket(comp)
    # a team competition's rubbers (no bracket): each round's match i fed by 2i and 2i + 1
    return None if plan is None else bracket_sources(plan)


def sponsors(table: Table, comp: Competition | None) -> list[Sponsor]:
    """The active sponsors of the table, of its competition and of the whole venue, in order."""
    q = Q(table=table) | Q(table__isnull=True, competition__isnull=True)
    if comp is not None:
        q |= Q(competition=comp, table__isnull=True)
    return [s for s in Sponsor.objects.filter(q, active=True).order_by("order", "pk") if s.image]


def check_choice(table: Table, new: dict) -> None:
    """Refuse a ``group_letter`` or ``bracket_round`` among ``new`` (from ``core.graphics.parse``)
    that the competition on the table does not have, naming those it has: raises
    ``core.graphics.GraphicsError`` (pt and en). The switches outlive the competition, so the card
    also says so when a later one lacks what was chosen."""
    letter, rnd = new.get("group_letter"), new.get("bracket_round")
    if not letter and not rnd:
        return
    now = tables.table_now(table)
    here = now.current or now.next or now.last
    comp = _competition(here) or _competition(tables.scheduled().filter(table=table).first())
    if comp is None:
        raise graphics.GraphicsError("Não há jogo de competição nesta mesa: não há grupos nem chave para escolher",
                                     "There is no competition match on this table: no group or round to choose")
    summary = competitions.summary(comp, engine_lang())
    if letter:
        groups_of = summary["standings"] if isinstance(summary["standings"], dict) else {}
        have = sorted({k.split(":", 1)[1] for k in groups_of}, key=lambda g: (len(g), g))
        if letter not in have:
            raise graphics.GraphicsError(
                f"Não há grupo {letter} em {comp.name} (grupos: {', '.join(have) or 'nenhum'})",
                f"There is no group {letter} in {comp.name} (groups: {', '.join(have) or 'none'})")
    if rnd:
        st = next((st for st in reversed(summary["stages"]) if st["format"] == "knockout"), None)
        have = sorted({r["round"] for r in st["matches"]}) if st is not None else []
        if int(rnd) not in have:
            raise graphics.GraphicsError(
                f"Não há rodada {rnd} no mata-mata de {comp.name} (rodadas: {', '.join(map(str, have)) or 'nenhuma'})",
                f"There is no round {rnd} in the knockout of {comp.name} (rounds: {', '.join(map(str, have)) or 'none'})")


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
        ctx["bracket"] = bracket(summary, _fixture(here), _sources(comp),
                                 int(g["bracket_round"]) if g["bracket_round"] else None)
    if summary is not None and g["group"]:
        ctx["groups"] = groups(summary, _fixture(here), g["group_letter"])
    if g["sponsors"]:
        ctx["sponsors"] = sponsors(table, comp)
    return ctx


def render(table_id: int, lang: str) -> str:
    """The graphics board element (``#gfx-stage``) of a table as it is now, in ``lang``."""
    with translation.override(lang):
        return render_to_string("scoreboard/graphics.html#stage", context(table_id))
