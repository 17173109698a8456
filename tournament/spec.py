"""The competition spec: entries, tables and stages, as frozen dataclasses; and the parser of
the ``createcompetition`` JSON file (:func:`parse_competition`, shape in ``docs/tournament.md``).

All values are plain (str, int, bool, tuples); :meth:`Competition.to_dict` gives the JSON form
that :func:`parse_competition` reads back (``parse_competition(c.to_dict()) == c``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sinuca.rules import REDS_ALLOWED

from .errors import TournamentError
from .labels import TIE_BREAKS

FORMATS = ("round_robin_groups", "double_elimination_groups", "knockout")
DRAW_METHODS = ("pots", "snake", "random", "manual")
KINDS = ("frames", "concession", "disqualification", "walkover", "double_walkover", "withdrawal")
ASSIGNMENTS = ("next_free", "fixed", "manual", "confirm")
DEFAULT_TIE_BREAKS = ("wins", "head_to_head", "frame_difference", "points_difference",
                      "highest_break", "lot")
MAX_ENTRANTS = 128


@dataclass(frozen=True)
class Entry:
    """One player in the competition.

    ``id`` is the key used everywhere (results' ``winner``, standings rows); the parser gives
    1, 2, 3… in the file's order, which is also the seed order. ``seed`` 1 is the best; ``None``
    means unseeded (drawn after every seeded entry). ``club`` tells namesakes apart.
    """

    id: int | str
    name: str
    club: str = ""
    seed: int | None = None


@dataclass(frozen=True)
class Table:
    """A table of the venue. ``group``: the group label ("A") it is fixed to, or ``None``
    (next free); ``stream``: a streamed table, which takes only matches flagged for stream."""

    name: str
    group: str | None = None
    stream: bool = False


@dataclass(frozen=True)
class Stage:
    """One stage, in order.

    format: one of :data:`FORMATS`.
    groups: number of groups (group formats); groups are labelled A, B, C…
    frames_to_win: frames a player needs to win a match of this stage (best of 2k-1).
    frames_to_win_by_round: ``(("final", 4), …)`` overrides by round name (``final``,
        ``semi_final``, ``quarter_final``, ``round_of_16``…, ``third_place``, ``round_1``…,
        ``opening``, ``winners``, ``losers``, ``decider``).
    qualify: how many of each group go on to the next stage (group formats, not the last stage).
    third_place: the knockout plays a third-place match between the semi-final losers.
    seeded: how many of the best seeds skip the earlier stages and enter only here.
    tie_breaks: ordered criteria of the round-robin standings (:data:`DEFAULT_TIE_BREAKS`).
    draw: how the first stage is drawn, one of :data:`DRAW_METHODS`.
    manual: the manual draw: for groups, a tuple of groups of entry ids in group-seed order;
        for a knockout, the entry ids in bracket-seed order.
    stream_rounds: round names (as ``frames_to_win_by_round``) whose matches are flagged for a
        stream table (``Fixture.stream``).
    """

    format: str
    groups: int = 1
    frames_to_win: int = 2
    frames_to_win_by_round: tuple[tuple[str, int], ...] = ()
    qualify: int = 2
    third_place: bool = False
    seeded: int = 0
    tie_breaks: tuple[str, ...] = DEFAULT_TIE_BREAKS
    draw: str = "pots"
    manual: tuple = ()
    stream_rounds: tuple[str, ...] = ()

    def frames_for(self, round_name: str) -> int:
        """Frames to win in a round of this stage (the per-round override, else the stage's)."""
        return dict(self.frames_to_win_by_round).get(round_name, self.frames_to_win)


@dataclass(frozen=True)
class Competition:
    """A whole competition: what :func:`tournament.build` draws and schedules.

    reds: 6, 10 or 15 (CBBS Art. 1.2.1). draw_seed: the integer recorded for the draw and the
    lot (same seed, same draw). rest_minutes: the rest a player gets after a match before the
    queue calls him again. wo_tolerance_minutes: the W.O. tolerance clock after a call.
    points: ``((placing, points), …)`` ranking points by final placing (see
    :func:`tournament.ranking.points_for`). points_absent: the ranking points instead of those
    of his placing for an entrant who withdrew or whose last match was a double W.O.
    (:func:`tournament.ranking.absent_entries`). stream_matches: match numbers (``J5`` → 5) flagged
    for a stream table, beside each stage's ``stream_rounds``. venue: where it is played, the
    venue and city ("Clube Paulistano, São Paulo - SP"), printed on its súmulas; empty: the
    server's ``VENUE``.
    """

    name: str
    entries: tuple[Entry, ...]
    stages: tuple[Stage, ...]
    reds: int = 15
    draw_seed: int = 0
    tables: tuple[Table, ...] = ()
    assignment: str = "next_free"
    rest_minutes: int = 0
    wo_tolerance_minutes: int = 10
    points: tuple[tuple[int, int], ...] = ()
    stream_matches: tuple[int, ...] = ()
    venue: str = ""
    points_absent: int = 0

    def entry(self, entry_id) -> Entry:
        """The entry with this id (``KeyError`` if none)."""
        for e in self.entries:
            if e.id == entry_id:
                return e
        raise KeyError(entry_id)

    def to_dict(self) -> dict:
        """The JSON form (:func:`parse_competition` reads it back to an equal spec)."""
        return {
            "name": self.name, "reds": self.reds, "draw_seed": self.draw_seed,
            "players": [{"id": e.id, "name": e.name, "club": e.club, "seed": e.seed}
                        for e in self.entries],
            "tables": [{"name": t.name, "group": t.group, "stream": t.stream} for t in self.tables],
            "assignment": self.assignment, "rest_minutes": self.rest_minutes,
            "wo_tolerance_minutes": self.wo_tolerance_minutes,
            "points": {str(k): v for k, v in self.points}, "points_absent": self.points_absent,
            "stream_matches": list(self.stream_matches), "venue": self.venue,
            "stages": [{
                "format": s.format, "groups": s.groups, "frames_to_win": s.frames_to_win,
                "frames_to_win_by_round": dict(s.frames_to_win_by_round), "qualify": s.qualify,
                "third_place": s.third_place, "seeded": s.seeded,
                "tie_breaks": list(s.tie_breaks), "draw": s.draw,
                "manual": [list(g) for g in s.manual] if s.manual and isinstance(s.manual[0], tuple)
                else list(s.manual),
                "stream_rounds": list(s.stream_rounds),
            } for s in self.stages],
        }


def _bad(code: str, pt: str, en: str) -> TournamentError:
    return TournamentError(code, pt, en)


def _int(data: dict, key: str, default: int, lo: int, hi: int, where: str = "", where_en: str | None = None) -> int:
    """``data[key]`` (else ``default``), an integer in ``lo..hi``; ``where``/``where_en``: the
    message's Portuguese and English prefixes ("fase 1: " / "stage 1: ")."""
    v = data.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _bad("invalid_field", f"{where}'{key}' deve ser um inteiro entre {lo} e {hi}",
                   f"{where if where_en is None else where_en}'{key}' must be an integer from {lo} to {hi}")
    return v


def parse_head(data: Any) -> tuple[str, int, int]:
    """``(name, reds, draw_seed)`` of a competition file, individual or team alike: the file is a
    JSON object with a non-empty ``name``, ``reds`` 6, 10 or 15 (Art. 1.2.1, default 15) and an
    integer ``draw_seed`` (default 0). Raises ``TournamentError`` ``invalid_field``."""
    if not isinstance(data, dict):
        raise _bad("invalid_field", "o arquivo deve ser um objeto JSON", "the file must be a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _bad("invalid_field", "falta 'name'", "'name' missing")
    reds = data.get("reds", 15)
    if reds not in REDS_ALLOWED or isinstance(reds, bool):
        raise _bad("invalid_field", "'reds' deve ser 6, 10 ou 15 (Art. 1.2.1)",
                   "'reds' must be 6, 10 or 15 (Art. 1.2.1)")
    seed = data.get("draw_seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise _bad("invalid_field", "'draw_seed' deve ser um inteiro", "'draw_seed' must be an integer")
    return name.strip(), reds, seed


def table_names(raw: Any) -> list[dict]:
    """The file's ``tables`` (a name, or ``{"name", …}``) as dicts with their names trimmed, in
    the file's order. Raises ``TournamentError``: ``invalid_field`` (a table without a name),
    ``duplicate_table``."""
    out = []
    for t in raw or []:
        if isinstance(t, str):
            t = {"name": t}
        if not isinstance(t, dict) or not isinstance(t.get("name"), str) or not t["name"].strip():
            raise _bad("invalid_field", "mesa sem nome", "table without a name")
        out.append({**t, "name": t["name"].strip()})
    twice = repeated(t["name"] for t in out)
    if twice:
        raise _bad("duplicate_table", f"mesa repetida: {twice}", f"table listed twice: {twice}")
    return out


def repeated(names) -> str | None:
    """The first of ``names`` (table names) that repeats an earlier one ignoring case
    (``str.casefold``), or None. Names reach the core normalised (NFC, trimmed, single spaces:
    the app's ``core.names``), so "mesa 1 " and "Mesa 1" are one table here."""
    seen: set = set()
    for n in names:
        if n.casefold() in seen:
            return n
        seen.add(n.casefold())
    return None


def group_label(i: int) -> str:
    """Group 0 → ``"A"``, 25 → ``"Z"``, 26 → ``"AA"``."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def _entries(players: Any) -> tuple[Entry, ...]:
    if not isinstance(players, list):
        raise _bad("invalid_field", "'players' deve ser uma lista", "'players' must be a list")
    out: list[Entry] = []
    seen: set = set()
    ids: set = set()
    for i, p in enumerate(players, start=1):
        if isinstance(p, str):
            p = {"name": p}
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip():
            raise _bad("invalid_field", f"jogador {i}: falta o nome", f"player {i}: name missing")
        name, club = p["name"].strip(), str(p.get("club") or "").strip()
        if "/" in name:
            raise _bad("invalid_field",
                       f"jogador {i}: o nome não pode ter “/” ({name}): é o que separa os jogadores de uma dupla",
                       f"player {i}: a name cannot hold “/” ({name}): it separates the players of a doubles side")
        eid = p.get("id", i)
        seed = p.get("seed", i)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 1):
            raise _bad("invalid_field", f"jogador {i}: 'seed' inválido", f"player {i}: bad 'seed'")
        key = (name.casefold(), club.casefold())
        if key in seen or eid in ids:
            who = f"{name} ({club})" if club else name
            raise _bad("duplicate_entrant", f"Jogador inscrito duas vezes: {who}",
                       f"Player entered twice: {who}")
        seen.add(key)
        ids.add(eid)
        out.append(Entry(id=eid, name=name, club=club, seed=seed))
    return tuple(out)


def _round_name_ok(name: Any, fmt: str) -> bool:
    if not isinstance(name, str):
        return False
    if fmt == "knockout":
        if name in ("final", "semi_final", "quarter_final", "third_place"):
            return True
        n = name.removeprefix("round_of_")
        return name.startswith("round_of_") and n.isdigit() and int(n) in (16, 32, 64, 128)
    if fmt == "double_elimination_groups":
        return name in ("opening", "winners", "losers", "decider")
    n = name.removeprefix("round_")
    return name.startswith("round_") and n.isdigit() and int(n) >= 1


STAGE_KEYS = ("format", "groups", "frames_to_win", "frames_to_win_by_round", "qualify", "third_place",
              "seeded", "tie_breaks", "draw", "manual", "stream_rounds")
"""A stage's fields; any other is refused (a misspelt "frames_to_wim" was ignored, and the
stage played with the default)."""


def _stage(i: int, s: Any, last: bool) -> Stage:
    where = f"fase {i + 1}: "
    where_en = f"stage {i + 1}: "
    if not isinstance(s, dict):
        raise _bad("invalid_field", where + "deve ser um objeto", where_en + "must be an object")
    unknown = sorted(str(k) for k in s if k not in STAGE_KEYS)
    if unknown:
        raise _bad("invalid_field", f"{where}campo desconhecido {unknown[0]!r} (os campos: {', '.join(STAGE_KEYS)})",
                   f"{where_en}unknown field {unknown[0]!r} (the fields: {', '.join(STAGE_KEYS)})")
    fmt = s.get("format")
    if fmt not in FORMATS:
        raise _bad("unknown_format", f"{where}formato desconhecido {fmt!r} (use {', '.join(FORMATS)})",
                   f"{where_en}unknown format {fmt!r} (use {', '.join(FORMATS)})")
    groups = _int(s, "groups", 1, 1, 64, where, where_en) if fmt != "knockout" else 1
    ftw = _int(s, "frames_to_win", 2, 1, 30, where, where_en)
    by_round = s.get("frames_to_win_by_round") or {}
    if not isinstance(by_round, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 30 for v in by_round.values()):
        raise _bad("invalid_field", where + "'frames_to_win_by_round' deve mapear rodada → 1..30",
                   where_en + "'frames_to_win_by_round' must map round → 1..30")
    bad_round = [r for r in by_round if not _round_name_ok(r, fmt)]
    if bad_round:
        raise _bad("invalid_field", f"{where}rodada desconhecida {bad_round[0]!r} em 'frames_to_win_by_round'",
                   f"{where_en}unknown round {bad_round[0]!r} in 'frames_to_win_by_round'")
    stream_rounds = s.get("stream_rounds") or []
    if not isinstance(stream_rounds, list):
        raise _bad("invalid_field", where + "'stream_rounds' deve ser uma lista de rodadas",
                   where_en + "'stream_rounds' must be a list of rounds")
    bad_round = [r for r in stream_rounds if not _round_name_ok(r, fmt)]
    if bad_round:
        raise _bad("invalid_field", f"{where}rodada desconhecida {bad_round[0]!r} em 'stream_rounds'",
                   f"{where_en}unknown round {bad_round[0]!r} in 'stream_rounds'")
    qualify = _int(s, "qualify", 2 if not last else 1, 1, 64, where, where_en) if fmt != "knockout" else 1
    tbs = tuple(s.get("tie_breaks") or DEFAULT_TIE_BREAKS)
    bad_tb = [t for t in tbs if t not in TIE_BREAKS]
    if bad_tb:
        raise _bad("invalid_field", f"{where}critério de desempate desconhecido {bad_tb[0]!r}",
                   f"{where_en}unknown tie-break {bad_tb[0]!r}")
    draw = s.get("draw", "pots")
    if draw not in DRAW_METHODS:
        raise _bad("invalid_field", f"{where}sorteio desconhecido {draw!r}",
                   f"{where_en}unknown draw method {draw!r}")
    manual = ()
    if draw == "manual":
        manual = s.get("manual") or []
        if not isinstance(manual, list):
            raise _bad("invalid_field", where + "'manual' deve ser uma lista",
                       where_en + "'manual' must be a list")
        if fmt == "knockout":
            manual = tuple(manual)
        else:
            if not all(isinstance(g, list) for g in manual):
                raise _bad("invalid_field", where + "'manual' deve ser uma lista de grupos",
                           where_en + "'manual' must be a list of groups")
            manual = tuple(tuple(g) for g in manual)
    return Stage(format=fmt, groups=groups, frames_to_win=ftw,
                 frames_to_win_by_round=tuple(sorted(by_round.items())), qualify=qualify,
                 third_place=bool(s.get("third_place", False)),
                 seeded=_int(s, "seeded", 0, 0, MAX_ENTRANTS, where, where_en) if i else 0,
                 tie_breaks=tbs, draw=draw, manual=manual, stream_rounds=tuple(dict.fromkeys(stream_rounds)))


def parse_competition(data: Any) -> Competition:
    """Validate the ``createcompetition`` JSON (already ``json.load``-ed) into a :class:`Competition`.

    Shape: ``{"name", "reds", "draw_seed", "players": [name | {"name", "club", "seed", "id"}],
    "tables": [name | {"name", "group", "stream"}], "stages": [{"format", "groups",
    "frames_to_win", "qualify", "third_place", …}], "assignment", "rest_minutes",
    "wo_tolerance_minutes", "points": {"1": 100, …}, "points_absent": 0, "stream_matches": [5, …],
    "venue"}`` (a stage may
    have ``"stream_rounds": ["final", …]``; ``docs/tournament.md``).
    Also checks that the stages fit the entrants (:func:`check_fit`).

    Raises:
        TournamentError: ``invalid_field``, ``unknown_format``, ``duplicate_entrant``,
        ``too_few_entrants``, ``too_many_entrants``, ``knockout_not_last``, …
    """
    name, reds, seed = parse_head(data)
    stages_raw = data.get("stages")
    if not isinstance(stages_raw, list) or not stages_raw:
        raise _bad("invalid_field", "'stages' deve ser uma lista não vazia", "'stages' must be a non-empty list")
    stages = tuple(_stage(i, s, i == len(stages_raw) - 1) for i, s in enumerate(stages_raw))
    tables = [Table(name=t["name"], group=t.get("group"), stream=bool(t.get("stream")))
              for t in table_names(data.get("tables"))]
    assignment = data.get("assignment", "next_free")
    if assignment not in ASSIGNMENTS:
        raise _bad("invalid_field", f"'assignment' deve ser um de {ASSIGNMENTS}",
                   f"'assignment' must be one of {ASSIGNMENTS}")
    stream_matches = data.get("stream_matches") or []
    if not isinstance(stream_matches, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in stream_matches):
        raise _bad("invalid_field", "'stream_matches' deve ser uma lista de números de jogo (J5 → 5)",
                   "'stream_matches' must be a list of match numbers (M5 → 5)")
    points = data.get("points") or {}
    try:
        pts = tuple(sorted((int(k), int(v)) for k, v in points.items()))
    except (AttributeError, TypeError, ValueError):
        raise _bad("invalid_field", "'points' deve mapear colocação → pontos",
                   "'points' must map placing → points") from None
    venue = data.get("venue", "")
    if not isinstance(venue, str) or len(venue.strip()) > 120:
        raise _bad("invalid_field", "'venue' deve ser um texto de até 120 caracteres (local e cidade)",
                   "'venue' must be a text of up to 120 characters (venue and city)")
    comp = Competition(
        name=name, entries=_entries(data.get("players")), stages=stages, reds=reds,
        draw_seed=seed, tables=tuple(tables), assignment=assignment,
        rest_minutes=_int(data, "rest_minutes", 0, 0, 240),
        wo_tolerance_minutes=_int(data, "wo_tolerance_minutes", 10, 0, 120), points=pts,
        stream_matches=tuple(sorted(set(stream_matches))), venue=venue.strip(),
        points_absent=_int(data, "points_absent", 0, 0, 10000))
    check_fit(comp)
    return comp


# --- sizes -------------------------------------------------------------------------------------

def _too_few(i: int, need: int, have: int, fmt: str) -> TournamentError:
    return TournamentError(
        "too_few_entrants",
        f"fase {i + 1} ({fmt}): {have} participantes, o formato precisa de pelo menos {need}",
        f"stage {i + 1} ({fmt}): {have} entrants, the format needs at least {need}")


def stage_sizes(comp: Competition) -> list[int]:
    """How many entrants each stage has: stage 0 gets every entry but the later stages'
    ``seeded``; stage i > 0 gets ``groups × qualify`` of stage i-1 plus its own ``seeded``."""
    direct = sum(s.seeded for s in comp.stages[1:])
    sizes = [len(comp.entries) - direct]
    for prev, st in zip(comp.stages, comp.stages[1:]):
        sizes.append(prev.groups * prev.qualify + st.seeded)
    return sizes


def check_fit(comp: Competition) -> None:
    """Raise :class:`TournamentError` unless every stage's format fits its entrants.

    Codes: ``duplicate_entrant``, ``unknown_format``, ``too_few_entrants`` (group formats: 2 per
    round-robin group, 3 per double-elimination group; knockout: 2), ``too_many_entrants`` (over
    128, or over 4 per double-elimination group), ``qualify_too_many`` (more qualifiers than the
    smallest group), ``knockout_not_last``, ``no_champion`` (the last stage must be a knockout
    or a single group).
    """
    ids = [e.id for e in comp.entries]
    names = [(e.name.casefold(), e.club.casefold()) for e in comp.entries]
    for seq, what in ((ids, "id"), (names, "name")):
        if len(set(seq)) != len(seq):
            dup = next(x for x in seq if seq.count(x) > 1)
            raise TournamentError("duplicate_entrant", f"Jogador inscrito duas vezes: {dup}",
                                  f"Player entered twice: {dup}")
    if len(comp.entries) > MAX_ENTRANTS:
        raise TournamentError("too_many_entrants", f"no máximo {MAX_ENTRANTS} jogadores",
                              f"at most {MAX_ENTRANTS} players")
    sizes = stage_sizes(comp)
    last = len(comp.stages) - 1
    for i, (st, n) in enumerate(zip(comp.stages, sizes)):
        fmt = st.format
        if fmt == "knockout":
            if i != last:
                raise TournamentError("knockout_not_last", "o mata-mata deve ser a última fase",
                                      "the knockout must be the last stage")
            if n < 2:
                raise _too_few(i, 2, n, fmt)
            if n > MAX_ENTRANTS:
                raise TournamentError("too_many_entrants", f"mata-mata com {n} (máximo 128)",
                                      f"knockout of {n} (at most 128)")
            if st.third_place and n < 4:
                raise TournamentError("too_few_entrants",
                                      "disputa de 3º lugar precisa de pelo menos 4 participantes",
                                      "a third-place match needs at least 4 entrants")
        elif fmt in ("round_robin_groups", "double_elimination_groups"):
            per = 2 if fmt == "round_robin_groups" else 3
            if n < per * st.groups:
                raise _too_few(i, per * st.groups, n, fmt)
            if fmt == "double_elimination_groups" and n > 4 * st.groups:
                raise TournamentError(
                    "too_many_entrants",
                    f"fase {i + 1}: {n} jogadores em {st.groups} grupo(s) de dupla eliminação (máximo 4 por grupo)",
                    f"stage {i + 1}: {n} players in {st.groups} double-elimination group(s) (at most 4 a group)")
            smallest = n // st.groups
            if i != last and st.qualify > smallest:
                raise TournamentError(
                    "qualify_too_many",
                    f"fase {i + 1}: classificam {st.qualify} por grupo, mas há grupos de {smallest}",
                    f"stage {i + 1}: {st.qualify} qualify per group but some groups have {smallest}")
            if i == last and st.groups != 1:
                raise TournamentError("no_champion",
                                      "a última fase deve ser um mata-mata ou um grupo único",
                                      "the last stage must be a knockout or a single group")
        else:
            raise TournamentError("unknown_format", f"formato desconhecido {fmt!r}",
                                  f"unknown format {fmt!r}")
        if i > 0 and st.draw == "manual":
            raise TournamentError("invalid_field", "só a primeira fase tem sorteio manual",
                                  "only the first stage has a manual draw")
