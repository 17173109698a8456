"""The table queue as a pure function: which match to call on a table that has just freed.

Inputs are plain values so the Django side can pass what it has: tables as
:class:`~tournament.spec.Table` (or ``{"name", "group", "stream"}``), ready matches as
:class:`~tournament.progress.MatchState` (or ``{"id", "group", "players", "stream"}``) in
schedule order, ``busy``: entry ids in a match now (called or in play), ``last_finish``:
``{entry id: seconds}`` when each player's last match ended, ``now`` in seconds, ``rest_minutes``.

Stream tables (RackEmApp's rule): a stream table takes the matches flagged for stream (a
``MatchState``'s ``fixture.stream``, or a dict's ``"stream"``: the Django side passes the flag the
desk may have changed) first, and a flagged match waits for a stream table when the venue has
one. While no flagged match is ready, a free stream table takes the next match of the queue like
any table (a stream table idle at the start while five matches queued was a table lost).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from .errors import TournamentError


def _get(x: Any, k: str, default=None):
    return x.get(k, default) if isinstance(x, dict) else getattr(x, k, default)


def _match_view(m: Any) -> dict:
    if isinstance(m, dict):
        return {"id": m["id"], "group": m.get("group"), "players": list(m.get("players") or ()),
                "stream": bool(m.get("stream"))}
    return {"id": m.id, "group": m.fixture.group, "players": list(m.players),
            "stream": bool(getattr(m, "stream", getattr(getattr(m, "fixture", None), "stream", False)))}


class _Ctx:
    """What the rules need to know about the venue, computed once per call."""

    def __init__(self, tables, busy, last_finish, now, rest_minutes, flagged_ready=True):
        tables = list(tables)
        self.flagged_ready = flagged_ready  # a flagged match is ready: stream tables keep to them
        self.fixed_groups = {_get(t, "group") for t in tables if _get(t, "group")}
        self.has_stream = any(_get(t, "stream") for t in tables)
        self.busy = set(busy)
        self.last_finish = last_finish or {}
        self.now = now
        self.rest = rest_minutes * 60


def _reasons(m: dict, table: Any, ctx: _Ctx) -> list[dict]:
    out = []
    tg = _get(table, "group")
    if tg is not None and m["group"] is not None and m["group"] != tg:
        out.append({"code": "group_table", "pt": f"mesa do Grupo {tg}", "en": f"table of Group {tg}"})
    elif tg is None and m["group"] in ctx.fixed_groups:
        out.append({"code": "group_table", "pt": f"o Grupo {m['group']} tem mesa fixa",
                    "en": f"Group {m['group']} has its own table"})
    stream = _get(table, "stream")
    if stream and not m["stream"] and ctx.flagged_ready:
        out.append({"code": "stream_table", "pt": "mesa de transmissão: só jogos marcados",
                    "en": "stream table: flagged matches only"})
    elif not stream and m["stream"] and ctx.has_stream:
        out.append({"code": "stream_table", "pt": "aguarda a mesa de transmissão",
                    "en": "waits for the stream table"})
    for p in m["players"]:
        if p in ctx.busy:
            out.append({"code": "busy", "pt": "jogador em outro jogo",
                        "en": "player in another match", "entry": p})
    for p in m["players"]:
        t = ctx.last_finish.get(p)
        if t is not None and ctx.now < t + ctx.rest:
            out.append({"code": "resting", "pt": "jogador em descanso", "en": "player resting",
                        "entry": p, "until": t + ctx.rest})
    return out


def waiting_reasons(match: Any, table: Any, tables: Iterable, busy: Iterable = (),
                    last_finish: Mapping | None = None, now: float = 0.0,
                    rest_minutes: float = 0, ready: Iterable | None = None) -> list[dict]:
    """Why ``match`` cannot be called on ``table`` now: a list of
    ``{"code", "pt", "en"}`` (empty: it can). Codes: ``group_table`` (the table is fixed to
    another group, or the match's group has its own table), ``stream_table`` (a streamed table
    takes only matches flagged for stream, and a flagged match waits for one), ``busy`` (a player
    is in another match; ``entry``), ``resting`` (a player finished less than ``rest_minutes``
    ago; ``entry``, ``until`` in seconds). ``ready``: the whole queue, when given: a stream
    table refuses an unflagged match only while a flagged one is in it (else always)."""
    flagged = True if ready is None else any(_match_view(m)["stream"] for m in ready)
    return _reasons(_match_view(match), table, _Ctx(tables, busy, last_finish, now, rest_minutes, flagged))


def next_call(table: Any, ready: Iterable, tables: Iterable = (), busy: Iterable = (),
              last_finish: Mapping | None = None, now: float = 0.0,
              rest_minutes: float = 0) -> Any | None:
    """The first of ``ready`` (schedule order) that may be called on the freed ``table``, or
    ``None``. A table fixed to a group takes its group's matches first, then ungrouped ones
    (knockout); a next-free table takes any match whose group has no fixed table. See
    :func:`waiting_reasons` for the rest and the stream rule (a stream table takes an unflagged
    match only while none of ``ready`` is flagged). Returns the match as given."""
    ready = list(ready)
    flagged = any(_match_view(m)["stream"] for m in ready)
    ctx = _Ctx(list(tables) or [table], busy, last_finish, now, rest_minutes, flagged)
    tg = _get(table, "group")
    first = None
    for m in ready:
        v = _match_view(m)
        if _reasons(v, table, ctx):
            continue
        if tg is None or v["group"] == tg:
            return m
        if first is None:
            first = m
    return first


def assign(free_tables: Iterable, ready: Iterable, tables: Iterable = (), busy: Iterable = (),
           last_finish: Mapping | None = None, now: float = 0.0,
           rest_minutes: float = 0) -> list[tuple[Any, Any]]:
    """Call matches on several free tables at once (the start of a session): ``[(table, match)]``
    in the tables' order, no player called twice."""
    busy = set(busy)
    ready = list(ready)
    out = []
    for t in free_tables:
        m = next_call(t, ready, tables, busy, last_finish, now, rest_minutes)
        if m is None:
            continue
        out.append((t, m))
        ready.remove(m)
        busy |= {p for p in _match_view(m)["players"] if p is not None}
    return out


def check_table_free(table_name: str, in_play: Mapping, match_id: int | None = None) -> None:
    """Refuse a second match on a busy table: ``in_play`` maps table name → the id of the match
    in progress there. Raises TournamentError ``table_busy`` unless the table is free (or holds
    ``match_id`` itself)."""
    current = in_play.get(table_name)
    if current is not None and current != match_id:
        raise TournamentError(
            "table_busy",
            f"A {table_name} já tem um jogo em andamento (J{current}); termine-o ou mude-o de mesa",
            f"{table_name} already has a match in progress (M{current}); finish or move it first")


def overdue(called: Mapping, now: float, tolerance_minutes: float) -> list:
    """Matches whose W.O. tolerance has run out: ``called`` maps match id → the time (seconds)
    it was called; returns their ids, longest waiting first. The desk is prompted; nothing here
    (or anywhere) turns a late player into a W.O. by itself."""
    limit = tolerance_minutes * 60
    late = [(t, m) for m, t in called.items() if now - t >= limit]
    return [m for t, m in sorted(late, key=lambda x: (x[0], repr(x[1])))]
