"""The table queue as a pure function: which match to call on a table that has just freed.

Inputs are plain values so the Django side can pass what it has: tables as
:class:`~tournament.spec.Table` (or ``{"name", "group", "stream"}``), ready matches as
:class:`~tournament.progress.MatchState` (or ``{"id", "group", "players", "stream"}``) in
schedule order, ``busy``: entry ids in a match now (called or in play), ``last_finish``:
``{entry id: seconds}`` when each player's last match ended, ``now`` in seconds, ``rest_minutes``.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping


def _get(x: Any, k: str, default=None):
    return x.get(k, default) if isinstance(x, Mapping) else getattr(x, k, default)


def _match_view(m: Any) -> dict:
    if isinstance(m, Mapping):
        return {"id": m["id"], "group": m.get("group"), "players": list(m.get("players") or ()),
                "stream": bool(m.get("stream"))}
    return {"id": m.id, "group": m.fixture.group, "players": list(m.players),
            "stream": bool(getattr(m, "stream", False))}


def waiting_reasons(match: Any, table: Any, tables: Iterable, busy: Iterable = (),
                    last_finish: Mapping | None = None, now: float = 0.0,
                    rest_minutes: float = 0) -> list[dict]:
    """Why ``match`` cannot be called on ``table`` now: a list of
    ``{"code", "pt", "en"}`` (empty: it can). Codes: ``group_table`` (the table is fixed to
    another group, or the match's group has its own table), ``stream_table`` (a streamed table
    takes only matches flagged for stream, and a flagged match waits for one), ``busy`` (a player
    is in another match), ``resting`` (a player finished less than ``rest_minutes`` ago)."""
    m = _match_view(match)
    tables = list(tables)
    out = []
    tg = _get(table, "group")
    fixed_groups = {_get(t, "group") for t in tables if _get(t, "group")}
    if tg is not None and m["group"] is not None and m["group"] != tg:
        out.append({"code": "group_table", "pt": f"mesa do Grupo {tg}", "en": f"table of Group {tg}"})
    elif tg is None and m["group"] in fixed_groups:
        out.append({"code": "group_table", "pt": f"o Grupo {m['group']} tem mesa fixa",
                    "en": f"Group {m['group']} has its own table"})
    has_stream = any(_get(t, "stream") for t in tables)
    if _get(table, "stream") and not m["stream"]:
        out.append({"code": "stream_table", "pt": "mesa de transmissão: só jogos marcados",
                    "en": "stream table: flagged matches only"})
    elif not _get(table, "stream") and m["stream"] and has_stream:
        out.append({"code": "stream_table", "pt": "aguarda a mesa de transmissão",
                    "en": "waits for the stream table"})
    busy = set(busy)
    for p in m["players"]:
        if p in busy:
            out.append({"code": "busy", "pt": "jogador em outro jogo", "en": "player in another match",
                        "entry": p})
    lf = last_finish or {}
    for p in m["players"]:
        t = lf.get(p)
        if t is not None and now < t + rest_minutes * 60:
            until = t + rest_minutes * 60
            out.append({"code": "resting", "pt": "jogador em descanso", "en": "player resting",
                        "entry": p, "until": until})
    return out


def next_call(table: Any, ready: Iterable, tables: Iterable = (), busy: Iterable = (),
              last_finish: Mapping | None = None, now: float = 0.0,
              rest_minutes: float = 0) -> Any | None:
    """The first of ``ready`` (schedule order) that may be called on the freed ``table``, or
    ``None``. A table fixed to a group takes its group's matches first, then ungrouped ones
    (knockout); a next-free table takes any match whose group has no fixed table. See
    :func:`waiting_reasons` for the rest and the stream rule. Returns the match as given."""
    tables = list(tables) or [table]
    ready = list(ready)
    ok = [m for m in ready if not waiting_reasons(m, table, tables, busy, last_finish, now,
                                                  rest_minutes)]
    if not ok:
        return None
    tg = _get(table, "group")
    if tg is not None:
        own = [m for m in ok if _match_view(m)["group"] == tg]
        if own:
            return own[0]
    return ok[0]


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
