"""The venue's boards: the list of matches (``/``) and the jumbotron (``/tv/``), rendered whole.

A board shows many matches, so it is not a per-match message: each process whose hub holds board
sockets renders a board once per burst of changes (and once per language and kind), then sends the
same text to every board socket (``hub.board_sockets.BoardSockets.refresh``). The pages render their first view
with the same functions, so a pushed board is byte for byte what a reload would show.
"""
from __future__ import annotations

import json
import re

from django.db.models import Count, Max, Q, Sum
from django.template.loader import render_to_string
from django.utils import translation

from presentation import labels

from ..core import calls, log, tables
from ..core import tablets
from ..core.models import Event, Fixture, Match, MatchRecord, Sponsor, Table
from . import graphics
from . import render as live

DIGEST = re.compile(r"^[0-9a-f]{16}$")


def digest(text: str) -> str:
    """A board's text as 16 hex digits of its SHA-256: a page prints a board and puts its digest
    in its socket's address (``&have=``), and the socket skips its first send when the board is
    still that one (``hub.board_sockets.BoardSockets.open``)."""
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()[:16]


EXTRA: list[tuple] = []
"""Boards the layers above draw (``register``): (pattern, render, players), in order."""


def register(pattern: str, render, players=None) -> None:
    """Add a board kind drawn above this layer (the public site's pages): ``render(m, lang)``
    returns its element for the kind's match ``m`` of ``pattern``; ``players(m)``, when given,
    is the set of player rows the board shows, so a change of a match of none of them does not
    render it again (``hub.board_sockets``). Registering a pattern again replaces it."""
    import re as _re

    rx = _re.compile(pattern)
    EXTRA[:] = [e for e in EXTRA if e[0].pattern != pattern]
    EXTRA.append((rx, render, players))


def registered(kind: str):
    """``(match, render, players)`` of a registered board kind, or None."""
    for rx, render, players in EXTRA:
        m = rx.match(kind)
        if m:
            return m, render, players
    return None


KINDS = {"venue": ("scoreboard/venue.html#board", "venue-board"),
         "jumbotron": ("scoreboard/jumbotron.html#grid", "jumbo-grid")}
"""Board kind -> (its partial, the id of the element the page replaces)."""


def card(match: Match, label: str | None = None, *, snap: log.Snapshot | None = None,
         screen: log.Screen | None = None) -> dict:
    """What a list shows of a match: the live partials' context, from the engine's state.

    ``match`` is a row just read with its players and table (``core.tables``' querysets): the
    card reads neither again. A board's :func:`cards` hands in what it read for all its cards
    at once: ``label`` ("J3 · Grupo A · Rodada 1"), the match's ``snap`` and its ``screen`` (the
    clock's starts and the descriptions named); what is not given is read here."""
    snap = snap or log.snapshot_of(match)
    ctx = live.page_context(snap.match, snap.seq, snap.state, snap.options, [], screen)
    ctx["seq"] = snap.seq
    if label is None:
        from .event import stage_label

        label = stage_label(snap.match)
    ctx["stage_label"] = label  # on every card
    return ctx


def cards(matches, labels: dict[int, str] | None = None) -> list[dict]:
    """:func:`card` of each of ``matches`` (rows just read with their players and table): their
    stage labels (unless given), then the log rows every card names, each in one query."""
    from .event import stage_labels

    matches = list(matches)
    labels = stage_labels(matches) if labels is None else labels
    snaps = [log.snapshot_of(m) for m in matches]
    screens = live.screens_from_log([(s.match.pk, s.seq, s.state, s.options) for s in snaps])
    return [card(m, labels[m.pk], snap=s, screen=screens[m.pk]) for m, s in zip(matches, snaps)]


def table_rows(names: list[str] | None = None) -> list[dict]:
    """Each table (of ``names``, in that order; default every table) with what it shows now:
    the match on it, else its last result and next match."""
    rows = []
    qs = Table.objects.all()
    if names is not None:
        by_name = {t.name: t for t in qs.filter(name__in=names)}
        qs = [by_name[n] for n in names if n in by_name]
    from .event import stage_labels

    qs = list(qs)
    together = tables.tables_now(qs)  # three queries for every table, not three a table
    nows = [together[t.pk] for t in qs]
    shown = [m for now in nows for m in (now.current, now.last, now.next) if m is not None]
    labels = stage_labels(shown)  # one query for every table's cards and next matches
    drawn = iter(cards([m for now in nows for m in (now.current, now.last) if m is not None], labels))
    for t, now in zip(qs, nows):
        rows.append({"table": t, "now": now,
                     "card": next(drawn) if now.current else None,
                     "last": next(drawn) if now.last else None, "next": now.next,
                     # "J2 · Grupo A" beside the next match, as on the cards in play
                     "next_label": labels[now.next.pk] if now.next else ""})
    return rows


RESULTS_PAGE = 24  # result cards per page of the venue


def day_results(page: int = 1):
    """The day's finished matches (local date of the venue), the most recent first, as a
    Django ``Page`` of :data:`RESULTS_PAGE` (a page number past the end gives the last page)."""
    from django.core.paginator import Paginator
    from django.utils import timezone

    start = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    qs = tables.finished().filter(ended_at__gte=start)
    return Paginator(qs, RESULTS_PAGE).get_page(page)


def upcoming(limit: int = 20) -> list[dict]:
    """Competition matches whose players are not known yet, with their placeholders
    ("Vencedor J3 × Vencedor J4"), so the venue shows the rest of the day's bracket."""
    from ..core import competitions
    from ..core.i18n import engine_lang
    from ..core.models import Competition

    out = []
    lang = engine_lang()
    for comp in Competition.objects.filter(fixtures__match__isnull=True).distinct()[:5]:
        # a tie's later rubbers are not placeholders: a team event shows the tie whole
        out.extend(competitions.format_of(comp).waiting(comp, lang))
        if len(out) >= limit:
            return out[:limit]
    return out


def venue_context(page: int = 1) -> dict:
    """``/``: every match in progress (with or without a table), what is next, and all of the
    day's results, paged (``page``; the pushed board is page 1, the newest)."""
    from django.core.exceptions import ObjectDoesNotExist

    from .event import fixture_label

    results = day_results(page)
    nxt = list(tables.scheduled().select_related("fixture", "fixture__competition")[:20])
    for m in nxt:  # "J2 · Grupo A", as the placeholders' rows below and the cards say
        try:
            m.stage_label = fixture_label(m.fixture)
        except ObjectDoesNotExist:  # a match of no competition
            m.stage_label = ""
    return {
        "live": cards(tables.in_progress()[:60]),
        "next": nxt,
        "upcoming": upcoming(),
        "results": cards(results.object_list),
        "results_page": results,
        "tables": list(Table.objects.all()),
    }


JUMBO_VIEWS = ("tables", "bracket", "standings", "called")
"""The jumbotron's views (``/tv/?view=`` or ``?rotate=tables,bracket&every=20``)."""


def jumbotron_context(comp_id: int | None = None) -> dict:
    """``/tv/``: every table at once, and matches in progress on no table; with a competition
    (``comp_id``, else the newest), its bracket, standings and called matches as the hub's own
    fragments (``event.fragment``), for the rotation."""
    from ..core.models import Competition
    from . import event

    comp = (Competition.objects.filter(pk=comp_id).first() if comp_id is not None
            else event.current_competition())
    # following one competition (``?comp=``): its own tables, not the demo's or another event's
    names = None
    if comp_id is not None and comp is not None and (comp.spec or {}).get("tables"):
        names = [t["name"] if isinstance(t, dict) else t for t in comp.spec["tables"]]
    ctx = {"rows": table_rows(names),
           "loose": cards(tables.in_progress().filter(table__isnull=True)[:12]) if names is None else []}
    ctx["count"] = min(len(ctx["rows"]) + len(ctx["loose"]), 9)
    ctx["comp"] = comp
    if comp is not None:
        ev = event.event_context(comp)
        standings = (event.fragment("team_groups", ev) if ev.get("is_team")
                     else event.fragment("groups", ev) if ev["groups"] else "")
        ctx["views"] = {"bracket": event.fragment("bracket", ev) if ev["bracket"] else "",
                        "standings": standings, "called": event.fragment("called", ev)}
        # views with nothing to show, which a rotation skips: the call screen with no match
        # called still says so when chosen (``?view=called``), but held a rotation's slot with
        # "Nenhum jogo chamado agora." (a tryout)
        ctx["empty"] = [name for name, html in ctx["views"].items()
                        if not html or (name == "called" and not ev.get("called"))]
    return ctx


CONTEXTS = {"venue": venue_context, "jumbotron": jumbotron_context}


def render_board(kind: str, lang: str) -> str:
    """The board's element (``#venue-board`` / ``#jumbo-grid`` / ``#desk-board`` of a
    competition's desk, kind ``desk-<id>``; ``#gfx-stage`` of a table's stream graphics, kind
    ``graphics-<id>``; the event hub ``#hub-board``, kind ``hub-<id>``; a player's page
    ``#player-board``, kind ``player-<id>-<n>``; the jumbotron following one competition, kind
    ``jumbotron-<id>``; a table's follow board, kind ``table-<id>``, JSON of :func:`table_follow`)
    as it is now, in ``lang``."""
    from . import event

    extra = registered(kind)
    if extra:
        return extra[1](extra[0], lang)
    desk = DESK.match(kind)
    if desk:
        return render_desk(int(desk.group(1)), lang)
    table = TABLE.match(kind)
    if table:
        return json.dumps(table_follow(int(table.group(1))), sort_keys=True)
    gfx = graphics.KIND.match(kind)
    if gfx:
        return graphics.render(int(gfx.group(1)), lang)
    pub = PUBLIC.match(kind)
    if pub:
        what, comp, entry = pub.groups()
        if what == "hub":
            return event.render_hub(int(comp), lang)
        if what == "player":
            return event.render_player(int(comp), int(entry), lang)
        with translation.override(lang):
            return render_to_string(KINDS["jumbotron"][0], jumbotron_context(int(comp)))
    with translation.override(lang):
        return render_to_string(KINDS[kind][0], CONTEXTS[kind]())


TABLE = re.compile(r"^table-(\d{1,9})$")
"""A table's follow board: what its screens and its tablet show now, as JSON (:func:`table_follow`)."""


def table_follow(table_id: int) -> dict:
    """``{"key", "match", "tablet", "last"}``: what table ``table_id`` shows now (``key`` moves
    whenever that changes; ``match`` the match in progress there), ``tablet`` the match its
    tablet scores now (the current one, else the next called there), ``last`` its last result;
    every value None for a table that does not exist. The table's pages follow it over their
    board socket (``static/scoreboard/follow.js``), pushed on every change of the table's
    matches, and ``/tables/<id>/now/`` answers the same."""
    return table_follows([table_id])[table_id]


def table_follows(table_ids) -> dict[int, dict]:
    """table id -> :func:`table_follow` of each, read together (``tables.tables_now``: a board
    refresh renders every table's follow board of the venue at once)."""
    found = tables.tables_now(Table.objects.filter(pk__in=list(table_ids)))
    out = {}
    for pk in table_ids:
        now = found.get(pk)
        if now is None:
            out[pk] = {"key": None, "match": None, "tablet": None, "last": None}
            continue
        tablet = now.current or now.next
        out[pk] = {"key": now.key, "match": now.current.pk if now.current else None,
                   "tablet": tablet.pk if tablet else None, "last": now.last.pk if now.last else None}
    return out


def render_tables(kinds) -> dict[str, str]:
    """kind -> :func:`render_board` of each table follow board kind (``table-<id>``) among
    ``kinds``, read together (:func:`table_follows`); the other kinds are left out."""
    ids = {k: int(m.group(1)) for k in kinds if (m := TABLE.match(k))}
    if not ids:
        return {}
    found = table_follows(list(ids.values()))
    return {k: json.dumps(found[pk], sort_keys=True) for k, pk in ids.items()}


def fingerprint() -> tuple:
    """Changes whenever a board may show something else: an event stored, a match added,
    removed, started or moved to another table in the admin, a table added. One
    query per call; the hubs' reconciler asks it every second while boards are open."""
    ev = Event.objects.aggregate(last=Max("pk"))["last"]
    m = Match.objects.aggregate(n=Count("pk"), last=Max("pk"), started=Count("pk", filter=Q(started_at__isnull=False)),
                                tables=Sum("table_id"), at=Max("started_at"))
    # a stream graphics switch (``Table.graphics_ver``) or a sponsor added, changed or removed
    t = Table.objects.aggregate(n=Count("pk"), last=Max("pk"), gfx=Sum("graphics_ver"))
    sp = Sponsor.objects.aggregate(n=Count("pk"), at=Max("updated_at"))
    # every desk action (call, move, W.O., correction, postpone) leaves a record
    rec = MatchRecord.objects.aggregate(last=Max("pk"))["last"]
    fx = Fixture.objects.aggregate(called=Max("called_at"), n=Count("pk"),
                                   streamed=Count("pk", filter=Q(stream=True)))
    return ev, *m.values(), *t.values(), *sp.values(), rec, *fx.values(), tablets.version()


# -- the desk of a competition (staff only) ---------------------------------------------------

DESK = re.compile(r"^desk-(\d{1,9})$")
PUBLIC = re.compile(r"^(hub|player|jumbotron)-(\d{1,9})(?:-(\d{1,4}))?$")
"""Public board kinds of one competition: its hub, a player's page (``player-<id>-<n>``) and the
jumbotron following it."""


def desk_context(comp_id: int) -> dict:
    """The desk of competition ``comp_id``: every table of the competition (free; called, with
    the W.O. tolerance deadline; in play, with score and frame; its tablet's last report), the
    queue (ready, not called), late calls (tolerance run out: the desk decides, never an
    automatic W.O.), matches waiting for their players, results, standings and the champion."""
    from ..core import competitions
    from ..core.models import Competition

    comp = Competition.objects.filter(pk=comp_id).first()
    if comp is None:
        return {"comp": None}
    return DESKS[competitions.format_of(comp).kind](comp)


def _desk_individual(comp) -> dict:
    """:func:`desk_context` of an individual competition."""
    from datetime import timedelta

    from django.utils import timezone

    import tournament

    from ..core import competitions
    from ..core.i18n import engine_lang

    lang = engine_lang()
    cur = competitions.now(comp)
    tolerance = timedelta(minutes=cur.spec.wo_tolerance_minutes)
    players = competitions._names(comp)
    name = lambda e: players[e].name if e in players else None  # noqa: E731
    now = timezone.now()
    rows, queue, late, waiting, done = [], [], [], [], []
    started_set = competitions.started(cur.fixtures)
    by_match, by_number = {}, {}
    for n, ms in cur.state.matches.items():
        fx = cur.fixtures[n]
        sides = [name(e) if e is not None else (p.get(lang, "—") if isinstance(p, dict) else "—")
                 for e, p in zip(ms.players, ms.placeholders)]
        item = {"number": n, "fixture": fx, "ms": ms, "label": ms.fixture.label()[lang], "sides": sides,
                "short": f"J{n}" if lang == "pt" else f"M{n}",
                "status": competitions.status_of(ms, fx), "match": fx.match,
                "names": [name(e) if e is not None else None for e in ms.players],
                "placeholders": ms.placeholders, "winner": name(ms.winner) if ms.winner is not None else None,
                "frames": list(ms.result.frames) if ms.result else None,
                "kind": ms.result.kind if ms.result else None, "stream": fx.stream,
                "mark": labels.result_mark(ms.result.kind if ms.result else None, lang, withdrawn=ms.auto)}
        if fx.called_at:
            item["deadline"] = fx.called_at + tolerance
            item["late"] = now >= item["deadline"]
        by_number[n] = item
        if fx.match_id:
            by_match[fx.match_id] = item
        if item["status"] == "scheduled" and fx.match_id and not fx.match.table_id:
            queue.append(item)
        elif item["status"] == "scheduled":
            waiting.append(item)
        elif item["status"] == "called" and item.get("late"):
            late.append(item)
        elif item["status"] in ("finished", "walkover", "bye"):
            # a W.O. is corrected like any result (the API allowed it; the desk had no button),
            # not one the core made for a withdrawn player (no match was ever made)
            if item["status"] == "finished" or (item["status"] == "walkover" and fx.match_id):
                ok, why = tournament.can_correct(cur.plan, cur.results, n, started_set)
                item["correctable"], item["why_not"] = ok, (why or {}).get(lang, "")
            done.append(item)
    table_rows = {t.name: t for t in Table.objects.filter(name__in=[t.name for t in cur.spec.tables])}
    suggest = {}
    if cur.spec.assignment == "confirm":
        # the queue's pick for each free table, for the desk to confirm (nothing is called by
        # itself); a table held back only by a player's rest gets the pick with the rest ignored,
        # said so: the desk decides
        picks = competitions.queue_picks(comp, cur)[0]
        suggest = {t.pk: (fx, False) for t, fx in picks}
        for t, fx in competitions.queue_picks(comp, cur, rest=False)[0]:
            if t.pk not in suggest and fx.number not in {f.number for f, _r in suggest.values()}:
                suggest[t.pk] = (fx, True)
    # each table's match in progress and next match, as ``tables.table_now`` says them, read for
    # all the tables at once (two queries; per table it was three, one of them every result
    # the table ever had: most of the desk's time)
    pks = [t.pk for t in table_rows.values()]
    current, following = {}, {}
    for m in tables.in_progress().filter(table__in=pks).order_by("-started_at", "-seq", "-pk"):
        current.setdefault(m.table_id, m)
    for m in tables.scheduled().filter(table__in=pks):
        following.setdefault(m.table_id, m)
    for st in cur.spec.tables:
        t = table_rows.get(st.name)
        if t is None:
            continue
        now_t = tables.TableNow(t, current.get(t.pk), None, None if t.pk in current else following.get(t.pk))
        m = now_t.current or now_t.next
        item = by_match.get(m.pk) if m is not None else None
        state = "free"
        if m is not None and item is None and (now_t.current is not None or calls.table_busy(t) is not None):
            # held by a match of another competition or none (a friendly, another event's
            # call): not free for this one, and the desk is told which (a tester saw "livre")
            state = "other"
        elif now_t.current is not None:
            state = "in_play"
        elif item is not None and item["status"] == "called":
            state = "called"
        pick = suggest.get(t.pk) if state == "free" else None
        if pick is not None:
            pick = {"item": by_number[pick[0].number], "resting": pick[1],
                    "act": json.dumps({"action": "call", "match": pick[0].number, "table": t.name})}
        rows.append({"table": t, "spec": st, "state": state, "item": item, "match": m, "suggest": pick,
                     # a free stream table with nothing flagged ready: it waits for a flagged match
                     "stream_idle": state == "free" and st.stream and pick is None and any(i["stream"] for i in queue),
                     "out_act": json.dumps({"action": "out_of_service", "table": t.name}),
                     "in_service_act": json.dumps({"action": "in_service", "table": t.name}),
                     "card": card(now_t.current) if now_t.current is not None else None,
                     "tablet": (tablets.status(m.pk) if m is not None else None) or tablets.of_table(t.pk)})
    standings = []
    through = competitions.qualifiers(cur)
    for (s, g), srows in cur.state.standings.items():
        standings.append({"stage": s, "group": g,
                          "rows": [{**r, "name": name(r["entry"]),
                                    "tie": (r["tie_break"] or {}).get(lang, "") if isinstance(r["tie_break"], dict) else "",
                                    # classificado / abandonou / W.O., as the hub's group table
                                    "marks": labels.standing_marks(r["entry"] in through,
                                                                   r["entry"] in cur.state.withdrawn,
                                                                   r["walkovers"], lang)}
                                   for r in srows]})
    return {"comp": comp, "spec": cur.spec, "tables": rows, "queue": queue, "late": late,
            "waiting": waiting, "done": done, "standings": standings,
            "champion": name(cur.state.champion) if cur.state.champion is not None else None,
            "all_tables": [r["table"] for r in rows], "now": now,
            # where a match in play on a table out of service can go in one step
            "free_tables": [r["table"] for r in rows if r["state"] == "free" and not r["table"].out_of_service],
            "has_stream": any(st.stream for st in cur.spec.tables), "confirm": cur.spec.assignment == "confirm",
            "redraw": None if started_set else _redraw_form(comp)}


def _desk_team(comp) -> dict:
    from ..core import teams

    return teams.desk_context(comp)


DESKS = {"individual": _desk_individual, "team": _desk_team}
"""The desk's context of each competition format (``competitions.Format.kind``)."""


def _redraw_form(comp) -> dict:
    """The desk's redraw control (shown until the first match starts): the methods in words,
    the recorded draw's method and seed, and its groups or order as the manual field's start."""
    from django.utils.translation import gettext as _

    draw = comp.draw or {}
    methods = [("pots", _("potes de cabeças de chave")), ("snake", _("serpentina (por cabeça de chave)")),
               ("random", _("aleatório")), ("manual", _("manual"))]
    return {"method": draw.get("method"), "seed": draw.get("seed"), "methods": methods,
            "method_label": dict(methods).get(draw.get("method"), draw.get("method")),
            "manual": json.dumps(draw.get("groups") or draw.get("order") or [])}


def render_desk(comp_id: int, lang: str) -> str:
    """The desk's board element (``#desk-board``) as it is now, in ``lang``."""
    with translation.override(lang):
        return render_to_string("scoreboard/desk.html#board", desk_context(comp_id))
