"""Events of every size for the stream graphics' visual test, built with the pure tournament core
(no database, no match played): the plan, results for part of the matches, and the competition's
summary in the shape ``core.competitions.summary`` gives the graphics (``live.graphics``)."""
from __future__ import annotations

import tournament

LONG = ["Igor Martins de Albuquerque Cavalcanti Neto", "Maria Eduarda Fernandes de Oliveira Santos",
        "Christopher Alexander Wellington-Smythe III", "Ana Beatriz Nascimento dos Santos Pereira"]
FIRST = ["Antônio", "Bernardo", "Cecília", "Diogo", "Eduarda", "Felipe", "Gabriela", "Heitor", "Isadora",
         "João", "Kátia", "Lucas", "Marina", "Nicolau", "Otávio", "Paula"]


def names(n: int) -> list[str]:
    """``n`` distinct names, every third one long (a first name and a long surname)."""
    out = []
    for i in range(n):
        first = FIRST[i % len(FIRST)] + ("" if i < len(FIRST) else f" {i // len(FIRST) + 1}º")
        out.append(f"{first} {LONG[i % 4].split(' ', 1)[1]}" if i % 3 == 0 else f"{first} Souza {i + 1}")
    return out


def _stages(players: int, groups: int, qualify: int, third: bool, fmt: str) -> list[dict]:
    ko = {"format": "knockout", "frames_to_win": 3, "third_place": third}
    if not groups:
        return [ko]
    return [{"format": fmt, "groups": groups, "frames_to_win": 2, "qualify": qualify}, ko]


def build(key: str, players: int, groups: int = 0, qualify: int = 2, third: bool = False,
          fmt: str = "round_robin_groups", done: float = 0.5, double_wo: bool = False) -> dict:
    """One event: ``{"key", "plan", "state", "names": {entry: name}, "summary"}`` with the first
    ``done`` share of the matches that can be played finished (side A winning every other one),
    and with ``double_wo`` a double W.O. among them (nobody goes through: an empty slot later)."""
    spec = tournament.parse_competition({
        "name": f"Circuito Paulista de Sinuca Brasileira · Etapa {key}", "reds": 6, "draw_seed": 7,
        "players": names(players), "stages": _stages(players, groups, qualify, third, fmt)})
    plan = tournament.build(spec)
    results: dict = {}
    total = len(plan.fixtures)
    flip = 0
    while len(results) < int(total * done):
        ready = [m for m in tournament.evaluate(plan, results, ()).ready() if m.id not in results]
        if not ready:
            break
        for ms in ready[: max(1, int(total * done) - len(results))]:
            k = ms.fixture.frames_to_win
            a, b = ms.players
            if double_wo and not any(r.get("kind") == "double_walkover" for r in results.values()) \
                    and ms.fixture.stage == len(spec.stages) - 1:
                results[ms.id] = {"winner": None, "frames": [0, 0], "kind": "double_walkover"}
                continue
            flip += 1
            results[ms.id] = {"winner": a if flip % 2 else b, "frames": [k, k - 1] if flip % 2 else [k - 1, k]}
    state = tournament.evaluate(plan, results, ())
    name_of = {e.id: e.name for e in spec.entries}
    return {"key": key, "plan": plan, "state": state, "names": name_of, "spec": spec,
            "summary": summary(spec, state, name_of)}


def summary(spec, state, name_of: dict, lang: str = "pt") -> dict:
    """What ``core.competitions.summary`` answers for these results, the keys the graphics read
    (no table called, no match in play)."""
    stages = [{"index": i, "format": st.format, "frames_to_win": st.frames_to_win, "matches": []}
              for i, st in enumerate(spec.stages)]
    name = lambda e: name_of.get(e) if e is not None else None  # noqa: E731
    for n, ms in state.matches.items():
        f = ms.fixture
        status = {"walkover": "walkover", "finished": "finished", "bye": "bye", "void": "bye"}.get(ms.status, "scheduled")
        stages[f.stage]["matches"].append({
            "number": n, "match": None, "stage": f.stage, "round": f.round, "round_name": f.round_name,
            "group": f.group, "label": f.label()[lang], "players": [name(e) for e in ms.players],
            "placeholders": [p[lang] if isinstance(p, dict) else p for p in ms.placeholders],
            "table": None, "status": status, "called_at": None, "winner": name(ms.winner),
            "frames": list(ms.result.frames) if ms.result else None, "kind": ms.result.kind if ms.result else None,
            "frames_to_win": f.frames_to_win, "stream": False})
    # the marks the group card prints under a name: the first two of group A through, its last
    # withdrawn, and in group B everyone with a W.O. (a column of marks: the page holds fewer rows)
    standings = {f"{s}:{g}": [{**r, "name": name(r["entry"]), "placing": None, "ranking_points": None,
                               "qualified": g == "A" and i < 2, "withdrawn": g == "A" and i == len(rows) - 1,
                               "walkovers": max(r.get("walkovers", 0), 1 if g == "B" else 0)}
                              for i, r in enumerate(rows)]
                 for (s, g), rows in state.standings.items()}
    return {"id": 1, "name": spec.name, "reds": spec.reds, "stages": stages, "standings": standings,
            "placings": [], "champion": name(state.champion), "complete": state.complete}


# small, medium and large: 2 to 64 entrants, 1 to 8 groups; a knockout with byes and a double W.O.;
# a competition where nothing has been played
EVENTS = [
    ("ko2", dict(players=2)),
    ("g1-8", dict(players=8, groups=1, qualify=4, third=True)),
    ("g1-12", dict(players=12, groups=1, qualify=4, done=0.3)),  # one group too long for a page
    ("g2-8", dict(players=8, groups=2, fmt="double_elimination_groups")),
    ("g4-16", dict(players=16, groups=4)),
    ("g4-16-new", dict(players=16, groups=4, done=0)),  # nothing played yet
    ("g8-32", dict(players=32, groups=8)),
    ("g8-64", dict(players=64, groups=8, third=True, done=0.3)),
    ("ko27", dict(players=27, double_wo=True, done=0.2)),
    ("ko64", dict(players=64, third=True, done=0.15, double_wo=True)),
    ("ko128", dict(players=128, done=0.1)),  # the largest draw the formats take
]
