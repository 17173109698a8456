"""A player's career and the head-to-head of two players, from their matches' records.

Pure: the app loads the rows and hands over plain records; nothing here reads a database or
knows a rule (the frames and breaks are the engine's, already folded by the caller).

A record (one match, ``dict``)::

    {"id": 17,                      # any hashable id (a federation's "venue:uid" too)
     "when": "2026-05-01T14:00",    # ISO text, sorts in time order; None sorts first
     "season": 3,                   # or None
     "competition": "Etapa 1",      # label, or ""
     "sides": [[1], [2]],           # player ids of each side (2 or more in doubles)
     "frames": [2, 1],              # frames won by side 0 and side 1
     "frame_scores": [[64, 12], ...],
     "winner": 0,                   # 0, 1, or None while unfinished
     "walkover": False,             # a W.O.: no frame played (Art. 54)
     "breaks": [{"player": 1, "points": 57}, ...]}  # scoring visits, by the person who made them

A match still in play (``winner`` None) is listed but counted nowhere; a W.O. counts as won or
lost by W.O. (``wo_won``/``wo_lost``), never as a match played, so its frames and the win rate
stay those of matches actually played; a double W.O. (no winner, ``walkover``) counts nowhere.
Errors: :class:`ValueError` for a record that is not of this shape (a side without players, a
winner outside 0/1, a player on both sides).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Hashable, Iterable, Mapping

BREAK_MARKS = (30, 50, 100)  # the breaks a career counts (the broadcasters' 50+ and centuries)
LAST = 10  # last results shown on a player's page


def _check(rec: Mapping) -> None:
    sides = rec.get("sides")
    if not isinstance(sides, (list, tuple)) or len(sides) != 2 or not all(sides):
        raise ValueError(f"match {rec.get('id')!r}: two sides with players are needed")
    if set(sides[0]) & set(sides[1]):
        raise ValueError(f"match {rec.get('id')!r}: a player on both sides")
    if rec.get("winner") not in (0, 1, None):
        raise ValueError(f"match {rec.get('id')!r}: winner must be 0, 1 or None")


def _side_of(rec: Mapping, player: Hashable) -> int | None:
    for i, side in enumerate(rec["sides"]):
        if player in side:
            return i
    return None


def _order(records: Iterable[Mapping]) -> list[Mapping]:
    return sorted(records, key=lambda r: ((r.get("when") or ""), str(r.get("id"))))


def _blank() -> dict:
    return {"matches": 0, "won": 0, "lost": 0, "wo_won": 0, "wo_lost": 0, "frames_won": 0,
            "frames_lost": 0, "win_pct": None, "highest_break": 0,
            **{f"breaks_{m}": 0 for m in BREAK_MARKS}}


def _count(line: dict, rec: Mapping, side: int, player: Hashable) -> None:
    winner = rec.get("winner")
    if winner is None:
        return
    if rec.get("walkover"):
        line["wo_won" if winner == side else "wo_lost"] += 1
        return
    line["matches"] += 1
    line["won" if winner == side else "lost"] += 1
    frames = rec.get("frames") or [0, 0]
    line["frames_won"] += int(frames[side])
    line["frames_lost"] += int(frames[1 - side])
    for b in rec.get("breaks") or ():
        if b.get("player") == player:
            pts = int(b.get("points", 0))
            line["highest_break"] = max(line["highest_break"], pts)
            for m in BREAK_MARKS:
                if pts >= m:
                    line[f"breaks_{m}"] += 1


def _rate(line: dict) -> dict:
    line["win_pct"] = round(100 * line["won"] / line["matches"], 1) if line["matches"] else None
    return line


def _result(rec: Mapping, side: int) -> dict:
    winner = rec.get("winner")
    frames = rec.get("frames") or [0, 0]
    return {"id": rec.get("id"), "when": rec.get("when"), "competition": rec.get("competition", ""),
            "season": rec.get("season"),
            "opponents": list(rec["sides"][1 - side]), "partners": [p for p in rec["sides"][side]],
            "frames": [int(frames[side]), int(frames[1 - side])],
            "outcome": ("in_play" if winner is None and not rec.get("walkover") else
                        "double_walkover" if winner is None else
                        ("won" if winner == side else "lost") + ("_walkover" if rec.get("walkover") else ""))}


def career(player: Hashable, records: Iterable[Mapping], last: int = LAST) -> dict:
    """``player``'s career over ``records`` (the module's record shape; others are ignored).

    Returns ``{"player", "total": line, "by_season": {season: line}, "last": [result...]}``
    where a line is ``{"matches", "won", "lost", "wo_won", "wo_lost", "frames_won",
    "frames_lost", "win_pct" (0–100, one decimal, None without a match), "highest_break",
    "breaks_30", "breaks_50", "breaks_100"}`` and a result is ``{"id", "when", "competition",
    "season", "opponents", "partners", "frames": [own, theirs], "outcome"}`` (``won``, ``lost``,
    ``won_walkover``, ``lost_walkover``, ``double_walkover``, ``in_play``), newest first.
    Raises :class:`ValueError` for a malformed record of this player."""
    total, seasons, mine = _blank(), defaultdict(_blank), []
    for rec in _order(records):
        _check(rec)
        side = _side_of(rec, player)
        if side is None:
            continue
        _count(total, rec, side, player)
        _count(seasons[rec.get("season")], rec, side, player)
        mine.append(_result(rec, side))
    return {"player": player, "total": _rate(total),
            "by_season": {k: _rate(v) for k, v in seasons.items()},
            "last": list(reversed(mine))[:last]}


def head_to_head(a: Hashable, b: Hashable, records: Iterable[Mapping]) -> dict:
    """Every match with ``a`` and ``b`` on opposite sides, oldest first, and the tally.

    Returns ``{"a", "b", "played", "won": [a's, b's], "walkovers": [a's, b's], "frames": [a's,
    b's], "matches": [{"id", "when", "competition", "frames": [a's, b's], "frame_scores": [[a's,
    b's]...], "winner": "a" | "b" | None, "walkover"}]}``; ``played`` counts finished matches
    that were played (not W.O.s). Raises :class:`ValueError` when ``a == b`` or for a malformed
    record of theirs."""
    if a == b:
        raise ValueError("head-to-head needs two different players")
    out: dict[str, Any] = {"a": a, "b": b, "played": 0, "won": [0, 0], "walkovers": [0, 0],
                           "frames": [0, 0], "matches": []}
    for rec in _order(records):
        _check(rec)
        sa, sb = _side_of(rec, a), _side_of(rec, b)
        if sa is None or sb is None or sa == sb:
            continue
        frames = rec.get("frames") or [0, 0]
        winner = rec.get("winner")
        who = None if winner is None else ("a" if winner == sa else "b")
        out["matches"].append({
            "id": rec.get("id"), "when": rec.get("when"), "competition": rec.get("competition", ""),
            "frames": [int(frames[sa]), int(frames[sb])],
            "frame_scores": [[int(s[sa]), int(s[sb])] for s in rec.get("frame_scores") or ()],
            "winner": who, "walkover": bool(rec.get("walkover"))})
        if who is None:
            continue
        k = 0 if who == "a" else 1
        if rec.get("walkover"):
            out["walkovers"][k] += 1
            continue
        out["played"] += 1
        out["won"][k] += 1
        out["frames"][0] += int(frames[sa])
        out["frames"][1] += int(frames[sb])
    return out
