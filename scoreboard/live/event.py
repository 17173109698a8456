"""The event hub (``/competitions/<id>/``) and the jumbotron's event views, fragment by fragment.

Each fragment of a competition (tables now, the schedule with its calls, the day's results, the
groups' standings, the bracket by round, the called matches, a player's page) is rendered by
:func:`fragment` from one context (:func:`event_context`, built from ``competitions.now``), and
only there: the hub page, its pushed board (``boards.render_board`` kind ``hub-<id>``) and the
jumbotron's bracket, standings and called views all take the same text, so a pushed view is byte
for byte what a reload shows. Spectators only listen: these are boards of the existing board
socket (``/ws/boards/``), refreshed by each process's hub when anything changes.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone, translation

import tournament
from presentation import labels
from sinuca import Phase
from tournament.labels import ordinal_en, round_label

from ..core import calls, competitions, log, tables
from ..core.i18n import engine_lang
from ..core.models import Competition, Fixture, Match, Table
from . import render as live

FRAGMENTS = ("tables", "schedule", "results", "groups", "bracket")
"""The hub's views, in the order of its tabs (``?view=``)."""

TEMPLATE = "scoreboard/_event.html"
ROUND_MINUTES = 5  # "não antes de ~14:05": a lower bound, so rounded down


def person(player) -> dict:
    """What the hub shows of a player row: name, club, photo and flag (empty when absent)."""
    if player is None:
        return {"name": "", "club": "", "photo": "", "flag_url": "", "country_name": ""}
    country = getattr(player, "country", None)
    # the thumbnail made at upload (a phone shows a face at 96 px), not the upload of up to 2 MB
    return {"name": player.name, "club": player.club or "", "photo": getattr(player, "photo_small_url", ""),
            "flag_url": country.flag if country else "", "country_name": str(country.name) if country else ""}


def stage_label(match: Match) -> str:
    """``"J3 · Grupo A · Rodada 1"`` / ``"M5 · Semi-final"`` of a competition's match in the
    active language, or "" for a match of no competition (the venue cards and the jumbotron
    print it)."""
    return fixture_label(Fixture.objects.filter(match_id=match.pk).select_related("competition").first())


def stage_labels(matches) -> dict[int, str]:
    """:func:`stage_label` of several matches in one query: match pk -> label ("" for a match
    of no competition). A board of many cards read each card's fixture on its own."""
    pks = [m.pk for m in matches]
    found = {fx.match_id: fixture_label(fx)
             for fx in Fixture.objects.filter(match_id__in=pks).select_related("competition")} if pks else {}
    return {pk: found.get(pk, "") for pk in pks}


def fixture_label(fx: Fixture | None) -> str:
    """:func:`stage_label` of a fixture row read already (with its competition), or "" for none."""
    plan = competitions.format_of(fx.competition).bracket(fx.competition) if fx is not None else None
    if plan is None:
        return ""  # a team competition's rubbers are labelled by their tie (core.teams)
    f = next((f for f in plan.fixtures if f.id == fx.number), None)
    return f.label()[engine_lang()] if f is not None else ""


def lang_query() -> str:
    """``"?lang=en"`` / ``"?lang=pt-br"``: what the hub's links carry, so a player's page or a
    match opened from an English hub stays English (a ``?lang=`` sets no cookie)."""
    return f"?lang={translation.get_language() or 'pt-br'}"


def current_competition() -> Competition | None:
    """The competition the venue's screens follow by default (``?comp=`` picks another): the
    newest."""
    return Competition.objects.order_by("-pk").first()


def not_before(comp: Competition, cur: competitions.Now, now: datetime) -> dict[int, datetime]:
    """fixture number -> the "não antes de" time of each match not started whose earliest call
    is still ahead: ``tournament.earliest_calls`` from the feeders' state and the rest (a true
    lower bound: the queue never calls it earlier; a match may end at any moment, so when the
    day runs early the time moves earlier), rounded down to :data:`ROUND_MINUTES`. A match left
    out can be called at any moment."""
    from django.db.models import Max

    started = {n for n, fx in cur.fixtures.items() if fx.match is not None
               and (fx.match.started_at is not None or fx.match.seq > 0)}
    in_play = {n for n in started if n not in cur.results}
    # when each player's last played match ended, as the queue's rest reads it (a W.O. without
    # play gives none)
    played = {fx.match_id: n for n, fx in cur.fixtures.items()
              if n in cur.results and fx.match is not None and fx.match.seq > 0}
    last_finish: dict = {}
    if played and cur.spec.rest_minutes:
        for pk, end in (Match.objects.filter(pk__in=list(played)).annotate(end=Max("events__at"))
                        .values_list("pk", "end")):
            if end is not None:
                for p in cur.state.matches[played[pk]].players:
                    if p is not None:
                        last_finish[p] = max(last_finish.get(p, 0.0), end.timestamp())
    t = now.timestamp()
    out = {}
    for n, at in tournament.earliest_calls(cur.state, t, cur.spec.rest_minutes, in_play=in_play,
                                           last_finish=last_finish).items():
        if n in started or at <= t:
            continue
        when = timezone.localtime(datetime.fromtimestamp(at, tz=dt_timezone.utc))
        when = when.replace(minute=when.minute - when.minute % ROUND_MINUTES, second=0, microsecond=0)
        if when > now:
            out[n] = when
    return out


TEAM_FRAGMENTS = ("tables", "schedule", "results", "groups")
"""A team competition's hub views (no bracket: its ties are a round robin)."""


def team_context(comp: Competition) -> dict:
    """What a team competition's hub fragments read (``core.teams.desk_context`` without the
    desk's forms): ``team`` (ties with score and rubbers, the rubber in play with its live
    frames and score, the standings, up/down), ``in_play`` (ties being played), ``ahead``
    (ties not finished, by round), ``done`` (finished ties), ``called`` (rubbers called to a
    table, not started), ``champion``; the fragments of the other kind read empty lists."""
    ctx = competitions.teams.desk_context(comp)
    team = ctx["team"]
    ties = team["ties"]
    for t in ties:
        for r in t["rubbers"]:  # the fragments print "Mesa <short name>"
            r["table"] = Table(name=r["table"]).short_name if r["table"] else None
    called = [{"table": r["table"], "label": f'{t["label"]} · {r["label"]}', "deadline": None,
               "sides": [{"name": r["sides"][0]}, {"name": r["sides"][1]}]}
              for t in ties for r in t["rubbers"] if r["status"] == "called"]
    return {"comp": comp, "team": team, "is_team": True, "lang_q": lang_query(),
            "in_play": [t for t in ties if t["status"] == "in_play"],
            "ahead": [t for t in ties if t["status"] != "finished"],
            "done": [t for t in ties if t["status"] == "finished"],
            "called": called, "champion": {"name": team["champion"]} if team["champion"] else None,
            "bracket": [], "groups": [], "tables": [], "schedule": [], "results": [], "matches": []}



def views_of(ctx: dict) -> tuple:
    """The hub's tabs for this context: a team competition has no bracket."""
    return TEAM_FRAGMENTS if ctx.get("is_team") else FRAGMENTS


def event_context(comp: Competition) -> dict:
    """Everything the hub's fragments read, in the active language (a team competition:
    :func:`team_context`): ``matches`` (every fixture:
    number, label, round, group, status, sides with names or placeholders, frames, winner side,
    table, call deadline, "not before" time, live card), ``tables`` (each of the competition's
    tables: free / called / in play with its card), ``schedule``, ``results`` (newest first),
    ``groups`` (standings with names), ``bracket`` (knockout stages, round by round),
    ``called`` and ``champion``."""
    return CONTEXTS[competitions.format_of(comp).kind](comp)


def individual_context(comp: Competition) -> dict:
    """:func:`event_context` of an individual competition."""
    lang = engine_lang()
    cur = competitions.now(comp)
    players = competitions._names(comp, cur.spec)
    now = timezone.now()
    tolerance = timedelta(minutes=cur.spec.wo_tolerance_minutes)
    times = not_before(comp, cur, now)
    cards = {}
    for m in tables.in_progress().filter(fixture__competition=comp):
        cards[m.pk] = _card(m)
    ended = dict(tables.finished().filter(fixture__competition=comp).values_list("pk", "ended_at"))
    number_of = {e: k for k, e in enumerate(competitions._entry_ids(cur.spec), start=1)}
    items = {}
    for n, ms in cur.state.matches.items():
        fx, f = cur.fixtures[n], ms.fixture
        m = fx.match
        status = competitions.status_of(ms, fx)
        sides = []
        card = cards.get(fx.match_id)
        for i, (e, ph) in enumerate(zip(ms.players, ms.placeholders)):
            pl = players.get(e) if e is not None else None
            sides.append({"entry": e, "n": number_of.get(e), "name": pl.name if pl else "",
                          "club": (pl.club if pl else "") or "",
                          "live": card["players"][i]["frames"] if card else None,
                          "placeholder": ph.get(lang, "—") if isinstance(ph, dict) else "—",
                          "frames": ms.result.frames[i] if ms.result else None,
                          "winner": ms.winner is not None and ms.winner == e})
        label = f.label()[lang]
        items[n] = {
            "number": n, "code": ("M" if lang == "en" else "J") + str(n), "label": label,
            "round": round_label(f.round_name)[lang], "round_name": f.round_name, "group": f.group,
            "stage": f.stage, "status": status, "sides": sides, "kind": ms.result.kind if ms.result else None,
            "walkover": bool(ms.result and ms.result.kind in ("walkover", "double_walkover")),
            "mark": labels.result_mark(ms.result.kind if ms.result else None, lang, withdrawn=ms.auto),
            "match_id": fx.match_id, "table": m.table.short_name if m is not None and m.table_id else "",
            "deadline": timezone.localtime(fx.called_at + tolerance) if fx.called_at else None,
            "not_before": times.get(n), "card": cards.get(fx.match_id),
            "ended_at": ended.get(fx.match_id), "frames_to_win": f.frames_to_win}
    ordered = [items[n] for n in sorted(items)]
    table_rows = []
    spec_tables = [t.name for t in cur.spec.tables]
    rows = {t.name: t for t in Table.objects.filter(name__in=spec_tables)}
    by_match = {i["match_id"]: i for i in ordered if i["match_id"]}
    nows = tables.tables_now(rows.values())  # three queries for every table, not three a table
    for name in spec_tables:
        t = rows.get(name)
        if t is None:
            continue
        tn = nows[t.pk]
        m = tn.current or tn.next
        item = by_match.get(m.pk) if m is not None else None
        state = "in_play" if tn.current is not None else "called" if item and item["status"] == "called" else "free"
        if state == "in_play" and item is None:
            state = "other"  # another competition's match in play: the hub shows only its own
        if state == "free" and m is not None and item is None and calls.table_busy(t) is not None:
            state = "other"  # another event's match is called to it: not free (a tester saw "Mesa livre")
        if state == "free" and t.out_of_service:
            state = "out"
        card = (cards.get(tn.current.pk) or _card(tn.current)) if state == "in_play" else None
        # each side of the card with its entrant's number, for the link to the player's page
        sides = item["sides"] if item else []
        live_players = [{**p, "n": sides[i]["n"] if i < len(sides) else None}
                        for i, p in enumerate(card["players"])] if card else []
        table_rows.append({"table": t, "state": state, "item": item, "card": card, "players": live_players})
    groups = []
    through = competitions.qualifiers(cur)
    for (s, g), srows in cur.state.standings.items():
        groups.append({"stage": s, "group": g,
                       "rows": [{**r, "n": number_of.get(r["entry"]), "person": person(players.get(r["entry"])),
                                 "tie": (r["tie_break"] or {}).get(lang, "") if isinstance(r["tie_break"], dict) else "",
                                 "marks": labels.standing_marks(r["entry"] in through, r["entry"] in cur.state.withdrawn,
                                                                r["walkovers"], lang)}
                                for r in srows],
                       "matches": [i for i in ordered if i["stage"] == s and i["group"] == g]})
    bracket = []
    for si, st in enumerate(cur.spec.stages):
        if st.format != "knockout":
            continue
        rounds: dict[str, list] = {}
        for i in ordered:
            if i["stage"] == si and i["status"] != "bye":
                rounds.setdefault(i["round_name"], []).append(i)
        bracket.append({"stage": si, "rounds": [{"name": rn, "label": ms[0]["round"], "matches": ms}
                                                for rn, ms in rounds.items()]})
    results = sorted((i for i in ordered if i["status"] in ("finished", "walkover")),
                     key=lambda i: (i["ended_at"] or now, i["number"]), reverse=True)
    champion = players.get(cur.state.champion) if cur.state.champion is not None else None
    return {"comp": comp, "lang": lang, "lang_q": lang_query(), "matches": ordered, "tables": table_rows,
            "schedule": [i for i in ordered if i["status"] in ("scheduled", "called")],
            "results": results, "groups": groups, "bracket": bracket,
            "called": [i for i in ordered if i["status"] == "called"],
            "in_play": [i for i in ordered if i["status"] == "in_play"],
            "champion": person(champion) if champion else None,
            "placings": _placings(cur, players, lang), "now": now, "cur": cur, "players": players}


CONTEXTS = {"individual": individual_context, "team": team_context}
"""The hub's context of each competition format (``competitions.Format.kind``)."""


def _placings(cur, players, lang) -> list[dict]:
    out = []
    for e, p in sorted(cur.state.placings.items(), key=lambda kv: kv[1]):
        out.append({"placing": ordinal_en(p) if lang == "en" else f"{p}º", "person": person(players.get(e))})
    return out


def _card(match: Match) -> dict:
    """A match in play as the hub shows it: the live partials' context (names, scores, frames,
    who is at the table, the break) from the engine's state."""
    snap = log.snapshot(match.pk)
    return live.page_context(snap.match, snap.seq, snap.state, snap.options, [])


def fragment(name: str, ctx: dict) -> str:
    """The one renderer of a hub fragment (``tables``, ``schedule``, ``results``, ``groups``,
    ``bracket``, ``called``, ``player``): the hub page, its pushed board and the jumbotron's
    views all print what this returns."""
    return render_to_string(f"{TEMPLATE}#{name}", ctx)


def render_hub(comp_id: int, lang: str) -> str:
    """The hub's board element (``#hub-board``: every fragment) as it is now, in ``lang``."""
    with translation.override(lang):
        comp = Competition.objects.filter(pk=comp_id).first()
        if comp is None:
            return '<main id="hub-board"></main>'
        return hub_html(event_context(comp))


def hub_html(ctx: dict) -> str:
    """``#hub-board`` from an :func:`event_context`: each fragment once, in tab order."""
    if ctx.get("is_team"):
        body = "".join(fragment(f"team_{n}", ctx) for n in TEAM_FRAGMENTS)
    else:
        body = "".join(fragment(n, ctx) for n in FRAGMENTS)
    return f'<main id="hub-board" class="hub-board">{body}</main>'


# -- a player's page ---------------------------------------------------------------------------

def player_context(comp: Competition, entry: int) -> dict | None:
    """A player of ``comp`` (entry number ``entry``, 1-based as the file's order): photo, club,
    flag, their matches of the competition (with calls and results), the highest breaks, and the
    record against each opponent from every match in the database (wins and losses). None for
    an unknown entry."""
    row = comp.entries.select_related("player").filter(number=entry).first()
    if row is None or not competitions.format_of(comp).entrants_are_players:
        return None  # a team competition's players are its teams' rosters: no entry pages
    ctx = event_context(comp)
    ids = competitions._entry_ids(ctx["cur"].spec)
    eid = ids[entry - 1]
    mine = [i for i in ctx["matches"] if any(s["entry"] == eid for s in i["sides"])]
    cur_results = ctx["cur"].results
    breaks = []
    for i in mine:
        r = cur_results.get(i["number"])
        if r is None or not r.highest_break:
            continue
        side = next(k for k, s in enumerate(i["sides"]) if s["entry"] == eid)
        if r.highest_break[side]:
            breaks.append({"value": r.highest_break[side], "item": i})
    breaks.sort(key=lambda b: -b["value"])
    me = row.player
    opponents = {}
    for i in mine:
        for s in i["sides"]:
            if s["entry"] is not None and s["entry"] != eid:
                opponents[s["entry"]] = s
    entry_numbers = {e: n for n, e in enumerate(ids, start=1)}
    players = ctx["players"]
    records = [{"opponent": person(players.get(e)), "n": entry_numbers.get(e),
                **head_to_head(me.pk, players[e].pk)} for e in opponents if e in players]
    return {**ctx, "entry": entry, "me": person(me), "mine": mine, "breaks": breaks[:5],
            "records": records, "eid": eid,
            "wins": sum(1 for i in mine if any(s["entry"] == eid and s["winner"] for s in i["sides"])),
            "losses": sum(1 for i in mine if i["status"] in ("finished", "walkover")
                          and not any(s["entry"] == eid and s["winner"] for s in i["sides"])
                          and any(s["winner"] for s in i["sides"]))}


def head_to_head(a: int, b: int) -> dict:
    """``{"wins", "losses", "played"}`` of player row ``a`` against ``b`` over every finished
    match between them in the database (the engine's winner as the log stored it, or a W.O.)."""
    ms = list(Match.objects.filter(Q(player_a_id=a, player_b_id=b) | Q(player_a_id=b, player_b_id=a))
              .values("pk", "player_a_id", "walkover", "seq"))
    states = competitions.last_states([m["pk"] for m in ms if m["seq"] and not m["walkover"]])
    wins = losses = 0
    for m in ms:
        if m["walkover"]:
            w = m["walkover"].get("winner")
        else:
            st = states.get(m["pk"]) or {}
            w = st.get("match_winner") if st.get("phase") == Phase.MATCH_OVER else None
        if w is None:
            continue
        winner_pk = m["player_a_id"] if w == 0 else (b if m["player_a_id"] == a else a)
        if winner_pk == a:
            wins += 1
        else:
            losses += 1
    return {"wins": wins, "losses": losses, "played": wins + losses}


def render_player(comp_id: int, entry: int, lang: str) -> str:
    """A player page's board element (``#player-board``) as it is now, in ``lang``."""
    with translation.override(lang):
        comp = Competition.objects.filter(pk=comp_id).first()
        ctx = player_context(comp, entry) if comp is not None else None
        if ctx is None:
            return '<main id="player-board"></main>'
        return fragment("player", ctx).strip()

