"""What the live pages show, rendered once per change and pushed as the same bytes to every socket.

A change is rendered here once per page kind and language that a socket watches, in any process
(``hub/watchers.py``; the same template partials the pages render), plus one JSON feed message;
one channel-layer group message carries all of them, and each process's hub writes the text of
each socket's kind to it (``hub/``). The cost of a change
therefore does not grow with the number of spectators, apart from the send itself.

This module also keeps each match's newest payloads (:func:`remember`), so a socket that
connects, or a tablet's answer, costs no render when nothing changed since.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from django.conf import settings
from django.core.cache import cache
from django.db.models import Min, Q
from django.template.loader import render_to_string
from django.utils import translation

from presentation import explain
from presentation.labels import undo_line, walkover_mark
from sinuca import Choice, Phase, TableWarning, free_ball_points, max_break
from sinuca.describe import score_line

from ..core import log, memory
from ..core.i18n import engine_lang
from ..core.bounded import ByteLRU, text_bytes
from ..core.limits import Busy, give_back_connection
from ..core.models import Event, Match


VIEWS = ("referee", "tv", "overlay")
RECENT = log.RECENT  # events listed on the referee tablet so the referee can check them


def payload_key(view: str, lang: str) -> str:
    """Key of one page kind's fragments in a group message (``"feed"`` for the JSON feed)."""
    return "feed" if view == "feed" else f"{view}:{lang}"


def languages() -> list[str]:
    """Language codes the pages are rendered in."""
    return [code for code, _ in settings.LANGUAGES]


def recent_events(match_id: int, upto: int) -> list[Event]:
    """The last few events up to seq ``upto``, newest first."""
    return list(Event.objects.filter(match_id=match_id, seq__lte=upto).order_by("-seq")[:RECENT])


def screen_from_log(match_id: int, seq: int, state: dict, options: dict,
                    recent: list | None = None) -> log.Screen:
    """The :class:`~scoreboard.core.log.Screen` of ``seq`` read from the database, for a render
    without a :class:`~scoreboard.core.log.Change` (a page load, a socket's first state, a
    restate): the rows ``recent`` (``Event`` rows or ``log.Row``, newest first; read when
    ``None``), the descriptions the screens name beyond them (one query, only when some are
    missing) and the clock's starts (one query). A tap's render gets the same from its
    ``Change`` and queries nothing."""
    if recent is None:
        recent = recent_events(match_id, seq)
    rows = tuple(log.Row(e.seq, e.event, e.description, e.at) for e in recent)
    # the stored state after the event before (an Event row has it; a log.Row does not)
    before = getattr(recent[1], "state", None) if len(recent) > 1 else None
    wanted = log.wanted_descriptions((r.seq for r in rows), options) - {r.seq for r in rows}
    descriptions = {}
    if wanted:
        descriptions = {n: {"pt": pt, "en": en} for n, pt, en in Event.objects.filter(
            match_id=match_id, seq__in=wanted).values_list("seq", "description_pt", "description_en")}
    started, frame_started = _starts(match_id, seq, state)
    return log.Screen(rows, before, descriptions, started, frame_started)


def screens_from_log(items) -> dict[int, log.Screen]:
    """:func:`screen_from_log` with no recent rows (a card: its score, clock and last line) of
    several matches in two queries, whatever their number: ``items`` is ``[(match_id, seq,
    state, options)]``; the answer maps each match id to its Screen. A board of 40 cards read
    two rows for each card before (its descriptions, then its clock's starts)."""
    items = [(mid, seq, state, options) for mid, seq, state, options in items]
    if not items:
        return {}
    # the first event of each match's current frame (its clock counts from it)
    in_frame = Q(pk__in=[])
    for mid, seq, state, _ in items:
        if seq:
            in_frame |= Q(match_id=mid, seq__lte=seq, state__frame_number=state["frame_number"])
    firsts = dict(Event.objects.filter(in_frame).values("match_id").annotate(first=Min("seq"))
                  .values_list("match_id", "first")) if any(seq for _, seq, _, _ in items) else {}
    # one read of the rows the screens name: seq 1, the frame's first, the wanted descriptions
    wanted = {mid: log.wanted_descriptions((), options) for mid, _, _, options in items}
    rows_q = Q(pk__in=[])
    for mid, seq, _, _ in items:
        seqs = set(wanted[mid]) | ({1, firsts[mid]} if seq and mid in firsts else {1} if seq else set())
        if seqs:
            rows_q |= Q(match_id=mid, seq__in=seqs)
    rows = {(mid, n): (at, pt, en) for mid, n, at, pt, en in Event.objects.filter(rows_q).values_list(
        "match_id", "seq", "at", "description_pt", "description_en")}
    out = {}
    for mid, seq, _, _ in items:
        descriptions = {n: {"pt": rows[(mid, n)][1], "en": rows[(mid, n)][2]}
                        for n in wanted[mid] if (mid, n) in rows}
        started = rows[(mid, 1)][0] if seq and (mid, 1) in rows else None
        frame_started = rows[(mid, firsts[mid])][0] if seq and mid in firsts and (mid, firsts[mid]) in rows else None
        out[mid] = log.Screen((), None, descriptions, started, frame_started)
    return out


def _starts(match_id: int, seq: int, state: dict) -> tuple:
    """``(at of seq 1, at of the current frame's first event)`` read from the log (``None`` at
    seq 0)."""
    if seq == 0:
        return None, None
    # One query for both starts: seq 1, then the current frame's first event (seq 1 itself in frame 1).
    rows = list(Event.objects.filter(match_id=match_id, seq__lte=seq)
                .filter(Q(seq=1) | Q(state__frame_number=state["frame_number"]))
                .order_by("seq").values_list("seq", "at", "state__frame_number")[:2])
    first = rows[0][1] if rows else None
    frame = next((at for _, at, number in rows if number == state["frame_number"]), None)
    return first, frame


def _description(match_id: int, seq: int | None, rows, descriptions: dict | None = None) -> dict | None:
    """The stored description of event ``seq``: from ``rows`` or ``descriptions`` (a Screen's)
    when it is there, else one row."""
    if seq is None:
        return None
    for e in rows:
        if e.seq == seq:
            return e.description
    if descriptions is not None and seq in descriptions:
        return descriptions[seq]
    row = Event.objects.filter(match_id=match_id, seq=seq).first()
    return row.description if row is not None else None


def undo_target(match_id: int, options: dict, recent: list, descriptions: dict | None = None) -> dict | None:
    """The description of the event an undo would take back: the newest one still in effect, as
    the engine says (``options["undo_target"]``, :meth:`sinuca.Match.undo_target`). After an
    undo, the newest event is that undo: naming it ("Último lance desfeito…") told the referee
    nothing of what the next undo takes back. ``descriptions``: a Screen's, looked in before the
    database."""
    return _description(match_id, options.get("undo_target"), recent, descriptions)


def log_lines(match_id: int, options: dict, recent: list, descriptions: dict | None = None) -> list[dict]:
    """The recent events as the screens list them: ``{"seq", "description", "undone_by",
    "undid"}``, newest first. An event taken back names the undo that took it back (struck
    through, "anulada"); an undo says what it took back, with the súmula's words. Which undo
    took back which event is the engine's answer (``options["undone"]``,
    :meth:`sinuca.Match.undone`); an event older than the window is taken from
    ``descriptions`` (a Screen's) or else read by its seq only."""
    undone = options.get("undone") or {}
    undid = {u: e for e, u in undone.items()}
    lines = []
    for e in recent:
        description = e.description
        target = undid.get(e.seq)
        if target is not None and (desc := _description(match_id, target, recent, descriptions)) is not None:
            description = undo_line(target, desc)
        lines.append({"seq": e.seq, "description": description, "undone_by": undone.get(e.seq),
                      "undid": target})
    return lines


def page_context(match: Match, seq: int, state: dict, options: dict, recent: list | None = None,
                 screen: log.Screen | None = None) -> dict:
    """Everything the three pages' live partials read. Built from the engine's answers only.

    What they show of the log (recent rows, undo targets, clock starts, the state before) comes
    from ``screen`` — a tap's ``Change.screen``, so its render queries nothing — or, without
    one, from :func:`screen_from_log` over ``recent`` (``Event`` rows newest first; read when
    ``None``).

    ``ph`` is the phase as flags named after the engine's :class:`sinuca.Phase` values
    (``ph.play``, ``ph.decision`` …), so templates name no phase string of their own.
    """
    if screen is None:
        screen = screen_from_log(match.pk, seq, state, options, recent)
    recent = list(screen.recent)
    names = match.player_names
    striker = state.get("striker")
    last = recent[0].event if recent else None
    lines = log_lines(match.pk, options, recent, screen.descriptions)
    phase = state["phase"]
    decision = phase == Phase.DECISION
    shown = explain.banners(state, options)
    people = match_people(match)
    scores = state["scores"]
    return {
        "match": match,
        "seq": seq,
        # when this was drawn (µs): of two renders of one seq the later wins (live.js), so a
        # match rendered again with no new event (a rename, a W.O.) replaces what pages show
        "rev": time.time_ns() // 1000,
        "s": state,
        "ph": {p.value: phase == p for p in Phase},
        "opts": options,
        "names": names,
        "players": [{"index": i, "name": names[i], "score": state["scores"][i],
                     # nobody is at the table once the frame is over (the marker stayed on the loser)
                     "frames": state["frames"][i],
                     "at_table": options.get("at_table") == i,
                     "highest_break": state["highest_break"][i], "warnings": state["warnings"][i],
                     "leads_by": max(0, scores[i] - scores[1 - i]), **people[i], **_members(match, state, options, i)}
                    for i in (0, 1)],
        "difference": abs(scores[0] - scores[1]),
        "break_balls": options.get("break_balls", []),
        # an undo says what it took back (presentation.labels.undo_line), as on the súmula
        "last_description": lines[0]["description"] if lines else None,
        "log_lines": lines,
        "frames_played": [{"frame": h["frame"], "scores": h["scores"], "winner": h["winner"],
                           "winner_name": names[h["winner"]] if h["winner"] is not None else "",
                           # "vence … por 57–48": the winner's score first, as every result line
                           "won_by": score_line(h["scores"], h["winner"]) if h["winner"] is not None else ""}
                          for h in state.get("history", [])],
        "match_won_by": score_line(state["frames"], state["match_winner"])
        if state.get("match_winner") is not None else "",
        "clock": clock(match, seq, state, recent, screen),
        "popups": popups(match, state, recent, options, screen),
        "overlay_ctl": {"bar": getattr(match, "overlay_bar", True),
                        "stats": getattr(match, "overlay_stats", False),
                        "words": getattr(match, "overlay_words", False),
                        "ver": getattr(match, "overlay_ver", 0)},
        "striker_name": names[striker] if striker is not None else "",
        # doubles: the striker side's player at the table ("Na mesa: Carla (Ana / Carla)")
        "striker_member": _members(match, state, options, striker)["member_at_table"]
        if striker is not None else "",
        "best_of": options.get("best_of"),
        "recent": recent,
        "undo_what": undo_target(match.pk, options, recent, screen.descriptions),
        "last_event": last,
        # The engine says whether a replay is offered or under way and whether a free ball is on
        # or offered (Art. 25, 36); reading the last event got it wrong after an undo.
        "banner_retorno": (decision and Choice.RETORNO in state["decision_options"])
        or options.get("retorno_replay", False),
        # each banner only while what it tells of is in force (the tablet's, explain.banners):
        # the engine's count of consecutive aggravated fouls (Art. 27, 44), the second the last chance
        "banner_free_ball": shown["free_ball"],
        "banner_aggravated": shown["aggravated"],
        "aggravated_fouls": shown["aggravated_fouls"],
        "banner_stalemate": shown["stalemate"],
        "banner_decider": shown["decider"],
        # Art. 7: what a free ball on adds to the points remaining
        "free_ball_points": free_ball_points(state) if "free_ball" in state else 0,
        "frame_over": phase == Phase.FRAME_OVER,
        "match_over": phase == Phase.MATCH_OVER,
        "frame_winner_name": names[state["frame_winner"]] if state["frame_winner"] is not None else "",
        "match_winner_name": names[state["match_winner"]] if state["match_winner"] is not None else "",
        # a W.O. recorded by the desk (core.operations.walkover): shown as "W.O.", never as play
        "walkover": state.get("walkover"),
        # "W.O. duplo" when both were absent, so no screen shows it as a plain W.O.
        "walkover_mark": walkover_mark(state.get("walkover"), engine_lang()),
    }


def _members(match: Match, state: dict, options: dict, side: int) -> dict:
    """Doubles (Art. 1 "em conjunto", contract section 11): the side's players, the one at the
    table and the one who plays next, as the engine says (``options["at_table_player"]`` and
    ``["next_player"]``, :meth:`sinuca.Match.at_table_player` and :meth:`sinuca.Match.next_player`:
    in a decision the beneficiary's player due is at the table and nobody is next); empty for a
    singles match."""
    sides = match.config.get("sides")
    if not sides:
        return {"members": [], "member_at_table": "", "member_next": "", "members_named": False}
    at, nxt = options.get("at_table_player"), options.get("next_player")
    members = list(sides[side])
    return {"members": members, "member_at_table": sides[side][at[1]] if at and at[0] == side else "",
            "member_next": sides[side][nxt[1]] if nxt and nxt[0] == side else "",
            # the side's name lists its players already ("Ana / Carla") unless it has its own
            "members_named": match.config["players"][side] != " / ".join(members)}


def match_people(match: Match) -> list[dict]:
    """Photo URL (the thumbnail, ``Player.photo_small_url``), club and flag of the two players,
    in engine order (player A is player 0); empty values when the match's rows have none."""
    out = []
    for player in (match.player_a, match.player_b):
        country = getattr(player, "country", None)
        # the thumbnail made at upload: a TV, an overlay or a venue card shows a face at 100-250 px
        out.append({"photo": getattr(player, "photo_small_url", ""), "club": getattr(player, "club", "") or "",
                    "flag": country.code if country else "",
                    "flag_url": country.flag if country else "",
                    "country_name": str(country.name) if country else ""})
    return out


def clock(match: Match, seq: int, state: dict, recent: list, screen: log.Screen | None = None) -> dict:
    """When the match and the current frame started (the timestamps of their first events) and,
    once the frame or match is over, when it stopped: the pages count the elapsed time from these,
    so one render serves every second that follows. ISO 8601 strings, ``""`` when unknown. The
    starts come from ``screen`` when given, else from the log (one query)."""
    if seq == 0:
        return {"match": "", "frame": "", "stopped": ""}
    first, frame = ((screen.started, screen.frame_started) if screen is not None
                    else _starts(match.pk, seq, state))
    over = state["phase"] in (Phase.FRAME_OVER, Phase.MATCH_OVER)
    stopped = recent[0].at if over and recent else None
    iso = lambda t: t.isoformat() if t else ""  # noqa: E731
    return {"match": iso(first), "frame": iso(frame or first), "stopped": iso(stopped)}


POPUP_KINDS = ("foul", "retorno", "free_ball", "aggravated", "break", "frame", "match")

POPUP_PRIORITY = ("match", "frame", "break", "aggravated", "retorno", "free_ball", "foul")
"""The overlay shows one pop-up at a time: the first of a change's kinds its URL allows, in this
order (a maximum break goes before the frame it won, see :func:`popups`)."""

POPUP_STICKY = ("retorno", "free_ball", "aggravated")
"""Pop-ups that announce something still pending (a choice to make, a free ball or a last chance
to play): they stay up until the next change, which is what settles it, instead of timing out."""


def popups(match: Match, state: dict, recent: list, options: dict | None = None,
           screen: log.Screen | None = None) -> dict:
    """What the overlay may pop up for this change, from the engine's answers: the last event's
    description and kind, the state before (``screen.before``, else the stored state of
    ``recent[1]``) and after it. Which pop-ups a page shows (and the break
    milestones) are its URL options (``live.js``); an undo or the first state pops nothing up.

    The frame-won and match-won pop-ups come after the frame's last ball: when the 6 ended the
    frame and the 7 may still be potted for the break (Art. 6.1, 50.1; ``options["bonus_seven"]``)
    they wait for that 7, so a 147 reads 147–0, not 140–0.

    Returns ``{"kinds": [...], "break_before": n, "break": n, "max": bool, "sticky": [...]}``;
    ``kinds`` in the order of :data:`POPUP_PRIORITY` (the overlay shows the first it allows).
    """
    out = {"kinds": [], "break_before": 0, "break": state["break"], "max": False, "sticky": list(POPUP_STICKY)}
    if not recent:
        return out
    ev = recent[0].event
    kind = ev.get("type")
    if kind == "undo":
        return out
    if screen is not None:
        before = screen.before
    else:
        before = recent[1].state if len(recent) > 1 else None
    kinds = set()
    phase = state["phase"]
    if kind == "foul" and state.get("last_penalty"):
        kinds.add("foul")
    if kind in ("foul", "decision"):
        if phase == Phase.DECISION and Choice.RETORNO in state["decision_options"]:
            kinds.add("retorno")
        if state["warning"] == TableWarning.AGGRAVATED_LAST_CHANCE:
            kinds.add("aggravated")
        if state["free_ball"] and not (before and before.get("free_ball")):
            kinds.add("free_ball")
    if kind == "pot":
        out["break_before"] = before["break"] if before else 0
        out["max"] = state["break"] >= max_break(match.config["reds"])
        if state["break"] > out["break_before"]:
            kinds.add("break")
    was = before["phase"] if before else None
    ended = (Phase.FRAME_OVER, Phase.MATCH_OVER)
    bonus_open = bool((options or {}).get("bonus_seven"))
    bonus_potted = kind == "pot" and was in ended  # the 7 after the 6 that ended the frame
    if phase == Phase.FRAME_OVER and (was != Phase.FRAME_OVER and not bonus_open or bonus_potted):
        kinds.add("frame")
    if phase == Phase.MATCH_OVER and (was != Phase.MATCH_OVER and not bonus_open or bonus_potted):
        kinds.add("match")
    order = ("break", *POPUP_PRIORITY) if out["max"] else POPUP_PRIORITY
    out["kinds"] = [k for k in dict.fromkeys(order) if k in kinds]
    return out


RENDERS = {"changes": 0, "views": 0}  # render_payloads calls, and page kinds rendered by them, in
# this process (shown by /api/live/)


def warm_up() -> None:
    """Compile the live templates and load each language's catalogue now, at start-up, so the
    first tap of a match does not pay for it (about 100 ms, seen as the POST p99)."""
    from django.template.loader import get_template

    for lang in languages():
        with translation.override(lang):
            for view in VIEWS:
                get_template(f"scoreboard/{view}.html#live")


def render_view(view: str, ctx: dict) -> str:
    """The live partial of one page kind, in the active language."""
    return render_to_string(f"scoreboard/{view}.html#live", ctx)


def _page_cache_bytes() -> int:
    return int(getattr(settings, "PAGE_CACHE_BYTES", 16 * 1024 * 1024))


latest: ByteLRU[tuple[int, dict[str, str]]] = ByteLRU(_page_cache_bytes, sizeof=lambda v: text_bytes(v[1]))
memory.remembered(latest.clear)
"""match id -> its newest ``(seq, payloads)`` rendered or received by this process, at most
``PAGE_CACHE_BYTES`` (the matches least recently rendered go first: a socket of one then gets
its render at delivery)."""


def remember(match_id: int, seq: int, payloads: dict[str, str]) -> None:
    """Keep a match's newest payloads (an older seq never replaces a newer one). Payloads of the
    seq already kept are added to it, the new text winning: a change renders only the kinds
    that are watched (:func:`render_change`), and a kind rendered later for a socket or a page
    (:func:`connect_payload`) joins them."""
    cur = latest.get(match_id)
    if cur is None or cur[0] < seq:
        latest[match_id] = (seq, payloads)
    elif cur[0] == seq:
        latest[match_id] = (seq, {**cur[1], **payloads})


def cached(match_id: int, seq: int) -> dict[str, str] | None:
    """The payloads of ``seq`` if this process has them, else None."""
    cur = latest.get(match_id)
    return cur[1] if cur is not None and cur[0] == seq else None


def all_keys() -> list[str]:
    """Every page kind in every language (``"tv:pt-br"``…), the feed not included."""
    return [payload_key(view, lang) for lang in languages() for view in VIEWS]


def render_change(change: log.Change, keys=None) -> dict[str, str]:
    """The payloads of an appended event, rendered once and remembered: the page kinds named by
    ``keys`` (an iterable of :func:`payload_key`; ``None``: all of them) and the feed."""
    payloads = render_payloads(change.match, change.seq, change.state, change.options,
                               change.event, change.description, change.screen, keys=keys)
    remember(change.match.pk, change.seq, payloads)
    return payloads


def payload_for(change: log.Change, key: str) -> str:
    """One page kind's text of an appended event: this process's copy when the broadcast
    rendered it (someone watches it), else rendered now and remembered (a tablet's POST answer
    when no socket of its kind listens)."""
    payloads = cached(change.match.pk, change.seq)
    if payloads is None or key not in payloads:
        payloads = render_change(change, keys=(key,))
    return payloads[key]


def render_payloads(match: Match, seq: int, state: dict, options: dict, event: dict | None = None,
                    description: dict | None = None, screen: log.Screen | None = None,
                    keys=None) -> dict[str, str]:
    """The texts a socket of this match may be sent for this seq: each page kind and language of
    ``keys`` (``None``: every one) and the JSON feed message. With ``screen`` (a tap's
    ``Change.screen``) it reads nothing from the database; without, :func:`screen_from_log`
    reads what the pages show. Nothing is rendered for a kind nobody watches: each one costs
    a template render per tap (issue 20, item 2)."""
    wanted = set(all_keys()) if keys is None else set(keys)
    RENDERS["changes"] += 1
    out = {}
    if wanted - {"feed"}:
        ctx = page_context(match, seq, state, options, screen=screen)
        for lang in languages():
            views = [view for view in VIEWS if payload_key(view, lang) in wanted]
            if not views:
                continue
            with translation.override(lang):
                for view in views:
                    out[payload_key(view, lang)] = render_view(view, ctx)
                    RENDERS["views"] += 1
    out["feed"] = feed_message(seq, state, event, description)
    return out


def feed_message(seq: int, state: dict, event: dict | None = None,
                 description: dict | None = None) -> str:
    """The JSON feed's text for one seq: ``{"seq", "state", "event", "description"}``, or
    ``{"seq", "state"}`` for a state without its event (a socket's first message)."""
    msg = {"seq": seq, "state": state}
    if event is not None:
        msg.update(event=event, description=description)
    return json.dumps(msg, separators=(",", ":"))


def feed_messages(match_id: int, first: int, last: int) -> dict[int, str]:
    """seq -> feed message of each logged event from ``first`` to ``last``, in one query, built
    from the log's rows (event, description and state after it), the same message the change
    was sent as. For a feed socket that missed some changes (see ``hub.gaps.FeedGaps.catch_up``)."""
    rows = Event.objects.filter(match_id=match_id, seq__gte=first, seq__lte=last).values_list(
        "seq", "event", "state", "description_pt", "description_en")
    return {seq: feed_message(seq, state, event, {"pt": pt, "en": en})
            for seq, event, state, pt, en in rows}


def connect_payload(match_id: int, key: str) -> tuple[int, str]:
    """``(seq, text)`` to send a socket when it connects: the current state of the match.

    The feed gets ``{"seq", "state"}``; pages get their fragments, from this process's copy of
    the latest change when it is current (no render), else rendered now. Raises
    ``Match.DoesNotExist``.
    """
    snap = log.snapshot(match_id)
    if key == "feed":
        return snap.seq, feed_message(snap.seq, snap.state)
    payloads = cached(match_id, snap.seq)
    if payloads is None or key not in payloads:
        payloads = render_payloads(snap.match, snap.seq, snap.state, snap.options, keys=(key,))
        remember(match_id, snap.seq, payloads)
    return snap.seq, payloads[key]


# (match id, payload key) -> (seq, stamp, text): the live part a page load of that kind showed
# last, and what it was drawn from (:func:`_stamp`); and the renders under way, by (match id,
# payload key, seq), each a future of ``(stamp, text)``.
_pages: ByteLRU[tuple[int, tuple, str]] = ByteLRU(_page_cache_bytes,
                                                  sizeof=lambda v: text_bytes(v[2]) + 2 * len(repr(v[1])))
memory.remembered(_pages.clear)
_drawing: dict[tuple[int, str, int], Future] = {}
_drawing_guard = threading.Lock()


def _stamp(match: Match) -> tuple:
    """Everything besides the log at the row's seq that a page's live part is drawn from: every
    column of the match row (its seq, config, overlay switches, W.O., correction, table) and of
    its players' and table's rows (a name, a photo, a club)."""
    rows = (match, match.player_a, match.player_b, match.table)
    return tuple(None if r is None else tuple(f.value_from_object(r) for f in r._meta.concrete_fields)
                 for r in rows)


def page_live(match: Match, view: str, lang: str) -> str:
    """The live part of a page of kind ``view`` in ``lang`` for ``match`` (a row read with its
    players and table, ``select_related``), the same text a socket of that kind is sent.

    Drawn once per seq, language and kind in this process, and shown to every page load of it
    while nothing it is drawn from changed (:func:`_stamp`): 150 loads of a match's TV in a
    burst were 150 renders of the same page (each a fold of the log, its queries and the
    template), CPU that the referees' taps waited behind. Loads of the same seq that
    arrive while it is being drawn wait for that render rather than draw it again, giving their
    database connection back first (the one lock order: no wait holding a connection); loads of
    another seq never wait for it. Across workers the same holds through the shared cache
    (:func:`_draw_shared`): the first worker to load a seq draws it, the others take its text.
    Raises :class:`~scoreboard.core.limits.Busy` after ``READ_WAIT`` seconds waiting for
    another's render."""
    key = payload_key(view, lang)
    stamp = _stamp(match)
    hit = _pages.get((match.pk, key))
    if hit is not None and hit[1] == stamp:
        return hit[2]
    flight = (match.pk, key, match.seq)
    with _drawing_guard:
        drawing = _drawing.get(flight)
        mine = drawing is None
        if mine:
            drawing = _drawing[flight] = Future()
    if not mine:
        give_back_connection()
        try:
            drawn_stamp, text = drawing.result(settings.READ_WAIT)  # its error too (an outage: busy)
        except FutureTimeout:
            raise Busy() from None
        if drawn_stamp == stamp:
            return text
        return _draw(match, key, stamp)[1]  # the same seq, something else changed meanwhile
    try:
        out = _draw_shared(match, key, stamp)
    except BaseException as e:
        drawing.set_exception(e)
        raise
    else:
        drawing.set_result(out)
    finally:
        with _drawing_guard:
            _drawing.pop(flight, None)
    return out[1]


def _draw(match: Match, key: str, stamp: tuple) -> tuple[tuple, str]:
    """Render the live part ``key`` of ``match`` now, remember it, return ``(stamp, text)``."""
    snap = log.snapshot_of(match)
    payloads = render_payloads(snap.match, snap.seq, snap.state, snap.options, keys=(key,))
    remember(match.pk, snap.seq, payloads)
    _keep_page(match.pk, key, snap.seq, stamp, payloads[key])
    return stamp, payloads[key]


def _keep_page(match_id: int, key: str, seq: int, stamp: tuple, text: str) -> None:
    hit = _pages.get((match_id, key))
    if hit is None or hit[0] <= seq:  # a slow render of an older seq never replaces a newer one
        _pages[(match_id, key)] = (seq, stamp, text)


PAGE_TTL = 60  # s a drawn live part is kept in the shared cache: a burst of loads, not a history
PAGE_LOCK_TTL = 10  # s: a worker killed while drawing holds the others back no longer than this


def shared_page_key(match: Match, key: str, stamp: tuple) -> str:
    """The shared cache's key of the live part ``key`` of ``match`` as drawn from ``stamp``
    (:func:`_stamp`: the row's seq, its players', table's and switches' columns, the match's
    creation time among them, so a reused id or a renamed player is another key)."""
    digest = hashlib.blake2b(repr(stamp).encode(), digest_size=16).hexdigest()
    return f"page:{match.pk}:{key}:{match.seq}:{digest}"


def _draw_shared(match: Match, key: str, stamp: tuple) -> tuple[tuple, str]:
    """:func:`_draw`, once for the deployment: the text another worker drew from the same
    stamp is taken from the shared cache (Redis with ``REDIS_URL``; this process's memory
    otherwise, or while Redis is down); else the worker that takes the key's lock there
    (``cache.add``, Redis SET NX) draws it and keeps it for ``PAGE_TTL`` s, and the others poll
    for it holding no database connection. A lock whose holder died or failed lapses or is
    released without a text: a waiter then takes it and draws. Raises ``Busy`` after
    ``READ_WAIT`` seconds without a text.

    A screen's first load at a new seq in each of N workers was N renders of the same page (a
    fold of the log, its queries and the template each); it is one now."""
    name = shared_page_key(match, key, stamp)
    lock = "lock:" + name
    deadline = time.monotonic() + settings.READ_WAIT
    pause = 0.005
    while True:
        text = cache.get(name)
        if text is not None:
            remember(match.pk, match.seq, {key: text})
            _keep_page(match.pk, key, match.seq, stamp, text)
            return stamp, text
        token = uuid.uuid4().hex
        if cache.add(lock, token, PAGE_LOCK_TTL):
            try:
                out = _draw(match, key, stamp)
                cache.set(name, out[1], PAGE_TTL)
            finally:
                if cache.get(lock) == token:
                    cache.delete(lock)
            return out
        left = deadline - time.monotonic()
        if left <= 0:
            raise Busy()
        give_back_connection()  # waiting needs no database connection
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.05)


def current_payloads(match_id: int, keys=None) -> tuple[int, dict[str, str]]:
    """``(seq, payloads)`` of a match's committed state, for a hub catching up after a lost
    message (a Redis restart, say) or a change that came without a kind its sockets watch:
    the cached payloads when current and holding ``keys`` (``None``: every kind), else those
    missing rendered now. The feed message is ``{"seq", "state"}`` (no event: it is a
    resynchronisation)."""
    snap = log.snapshot(match_id)
    wanted = set(all_keys()) if keys is None else set(keys)
    payloads = cached(match_id, snap.seq) or {}
    missing = wanted - set(payloads)
    if missing:
        fresh = render_payloads(snap.match, snap.seq, snap.state, snap.options, keys=missing)
        if "feed" in payloads:
            del fresh["feed"]  # the change's own feed message (with its event) stays
        remember(match_id, snap.seq, fresh)
        payloads = {**payloads, **fresh}
    return snap.seq, payloads


def committed_seqs(match_ids: list[int]) -> dict[int, int]:
    """The committed seq of each match, in one query."""
    return dict(Match.objects.filter(pk__in=match_ids).values_list("pk", "seq"))


def overlay_switched(match_id: int) -> tuple[int, dict[str, str]]:
    """After the overlay control endpoint switched what a match's overlays show: its current
    payloads rendered again (the row's switches are new, the seq is not) and remembered, so a
    socket connecting now gets them; the caller publishes them with ``again=("overlay",)``."""
    snap = log.snapshot(match_id)
    payloads = render_payloads(snap.match, snap.seq, snap.state, snap.options)
    remember(match_id, snap.seq, payloads)
    return snap.seq, payloads
