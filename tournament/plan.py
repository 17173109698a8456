"""The draw and the formats: from a :class:`~tournament.spec.Competition` to every match of
every stage, each with two :class:`Slot` s that say who will play it (a drawn entry, the winner
or loser of an earlier match, a position in an earlier stage's group, or nobody).

Formats (CBBS practice; issue 17):

* ``round_robin_groups``: snake seeding into groups; each group by the circle method, so round
  *r* of a stage has every player at most once.
* ``double_elimination_groups``: the CBBS group of 4: ``1×4`` and ``2×3`` (group seeds),
  winners' match (its winner is 1st), losers' match (its loser 4th), decider between the
  losers'-match winner and the winners'-match loser (winner 2nd, loser 3rd). A group of 3 gives
  seed 1 a bye.
* ``knockout``: 2–128 entrants in the standard bracket (seed 1 meets seed 2 only in the final),
  byes to the top seeds (a bye is no match: the player's slot goes straight to the next round),
  optional third-place match. Entrants from a group stage come by position, group winners
  kept apart (``1º Grupo A × 2º Grupo B``, ``1º Grupo B × 2º Grupo A``), after the seeds that
  enter only at this stage.

Match numbers (``Fixture.id``) are 1, 2, 3… in schedule order (stage, round, group) and do not
depend on the draw: a redraw changes only who is in the slots.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .errors import TournamentError
from .labels import ordinal_en, round_label
from .spec import DRAW_METHODS, Competition, Stage, check_fit, group_label


@dataclass(frozen=True)
class Slot:
    """Who plays one side of a match.

    kind: ``"entry"`` (``entry`` is the entry id), ``"winner"`` / ``"loser"`` (of match
    ``match``), ``"position"`` (``position``-th of group ``group`` of stage index ``stage``), or
    ``"empty"`` (nobody: a bye, or a double W.O. upstream).
    """

    kind: str
    entry: int | str | None = None
    match: int | None = None
    stage: int | None = None
    group: str | None = None
    position: int | None = None

    def placeholder(self) -> dict:
        """The label shown while the player is not known: ``{"pt": "Vencedor J3", "en": "Winner M3"}``,
        ``{"pt": "1º Grupo A", "en": "1st Group A"}``, ``{"pt": "Isento", "en": "Bye"}``."""
        if self.kind == "winner":
            return {"pt": f"Vencedor J{self.match}", "en": f"Winner M{self.match}"}
        if self.kind == "loser":
            return {"pt": f"Perdedor J{self.match}", "en": f"Loser M{self.match}"}
        if self.kind == "position":
            return {"pt": f"{self.position}º Grupo {self.group}",
                    "en": f"{ordinal_en(self.position)} Group {self.group}"}
        if self.kind == "empty":
            return {"pt": "Isento", "en": "Bye"}
        return {"pt": str(self.entry), "en": str(self.entry)}

    def to_dict(self) -> dict:
        """JSON form: ``{"kind", …the fields that apply…, "placeholder": {"pt", "en"}}``."""
        d: dict = {"kind": self.kind}
        for k in ("entry", "match", "stage", "group", "position"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.kind != "entry":
            d["placeholder"] = self.placeholder()
        return d


EMPTY = Slot("empty")


@dataclass(frozen=True)
class Fixture:
    """One match of the plan, before or after its players are known.

    id: match number in schedule order (label ``J{id}`` / ``M{id}``). stage: stage index (0-based).
    round: schedule round within the stage (1-based; nobody plays twice in one round).
    round_name: ``round_1``… (round robin), ``opening``/``winners``/``losers``/``decider``
    (double elimination), ``round_of_16``…``final``/``third_place`` (knockout).
    group: group label or ``None`` (knockout). a, b: the two :class:`Slot` s (a is listed first).
    frames_to_win: for this match (the stage's, or its per-round override).
    stream: flagged for a stream table (its stage's ``stream_rounds`` or the competition's
    ``stream_matches``): the queue calls it only to a stream table, and a stream table takes
    only flagged matches (:mod:`tournament.tables`).
    """

    id: int
    stage: int
    round: int
    round_name: str
    group: str | None
    a: Slot
    b: Slot
    frames_to_win: int
    stream: bool = False

    def label(self) -> dict:
        """``{"pt": "J3 · Semifinal", "en": "M3 · Semi-final"}`` (with ``Grupo A`` when grouped)."""
        r = round_label(self.round_name)
        g_pt = f" · Grupo {self.group}" if self.group else ""
        g_en = f" · Group {self.group}" if self.group else ""
        return {"pt": f"J{self.id}{g_pt} · {r['pt']}", "en": f"M{self.id}{g_en} · {r['en']}"}

    def to_dict(self) -> dict:
        """JSON form of the fixture (slots as :meth:`Slot.to_dict`)."""
        return {"id": self.id, "stage": self.stage, "round": self.round,
                "round_name": self.round_name, "round_label": round_label(self.round_name),
                "group": self.group, "a": self.a.to_dict(), "b": self.b.to_dict(),
                "frames_to_win": self.frames_to_win, "stream": self.stream, "label": self.label()}


@dataclass(frozen=True)
class Draw:
    """The recorded draw of the first stage: ``method``, ``seed``, and either ``groups`` (a tuple
    per group of entry ids in group-seed order) or ``order`` (knockout: entry ids in bracket-seed
    order). Same competition + same seed → equal draws."""

    method: str
    seed: int
    groups: tuple[tuple, ...] = ()
    order: tuple = ()

    def to_dict(self) -> dict:
        """JSON form: ``{"method", "seed", "groups": {"A": [ids], …}, "order": [ids]}``."""
        return {"method": self.method, "seed": self.seed,
                "groups": {group_label(i): list(g) for i, g in enumerate(self.groups)},
                "order": list(self.order)}


@dataclass(frozen=True)
class Plan:
    """A drawn, scheduled competition: every :class:`Fixture` in schedule order.

    groups: ``{(stage, "A"): (Slot, …)}`` the members of each group in group-seed order.
    de_positions: ``{(stage, "A"): (slot of 1st, 2nd, 3rd, 4th)}`` for double-elimination
    groups (who ends in each place, as the winner/loser of a group match).
    entrants: per stage, the ordered entrant slots (seed order of that stage).
    lot: entry ids in lot order (earlier wins a tie left after every other criterion).
    """

    competition: Competition
    draw: Draw
    fixtures: tuple[Fixture, ...]
    groups: dict = field(default_factory=dict)
    de_positions: dict = field(default_factory=dict)
    entrants: tuple = ()
    lot: tuple = ()
    # derived indexes (groups' matches, ancestors), filled on first use; not part of the value
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    def fixture(self, match_id: int) -> Fixture:
        """The fixture numbered ``match_id`` (``TournamentError("unknown_match")`` if none)."""
        if isinstance(match_id, int) and 1 <= match_id <= len(self.fixtures):
            return self.fixtures[match_id - 1]
        raise TournamentError("unknown_match", f"Jogo inexistente: {match_id}",
                              f"No such match: {match_id}")

    def to_dict(self) -> dict:
        """JSON form: ``{"competition", "draw", "fixtures": […], "groups": {"1:A": [slots]}}``."""
        return {"competition": self.competition.to_dict(), "draw": self.draw.to_dict(),
                "fixtures": [f.to_dict() for f in self.fixtures],
                "groups": {f"{s + 1}:{g}": [x.to_dict() for x in m]
                           for (s, g), m in self.groups.items()}}


# --- the draw ----------------------------------------------------------------------------------

def _seed_order(entries) -> list:
    """Entries best seed first (unseeded last, in entry order)."""
    idx = {e.id: i for i, e in enumerate(entries)}
    return sorted(entries, key=lambda e: (e.seed is None, e.seed or 0, idx[e.id]))


def _split(comp: Competition) -> tuple[list, list[list]]:
    """(stage 0 entrants, [direct seeds entering at stage i] per stage): the best seeds go to
    the latest stage that takes seeds."""
    order = [e.id for e in _seed_order(comp.entries)]
    direct: list[list] = [[] for _ in comp.stages]
    for i in range(len(comp.stages) - 1, 0, -1):
        k = comp.stages[i].seeded
        direct[i], order = order[:k], order[k:]
    return order, direct


def snake(n_items: int, groups: int) -> list[list[int]]:
    """Snake seeding: indexes 0..n-1 (seed order) dealt A, B, …, B, A, A, B, …; each group's list
    is in group-seed order. ``snake(8, 2) == [[0, 3, 4, 7], [1, 2, 5, 6]]``."""
    out: list[list[int]] = [[] for _ in range(groups)]
    for k in range(n_items):
        row, col = divmod(k, groups)
        out[col if row % 2 == 0 else groups - 1 - col].append(k)
    return out


def _shuffle_apart(order: list, lo: int, hi: int, byes: int, rng: random.Random) -> None:
    """Shuffle ``order[lo:hi]`` in place, the part before index ``byes`` (the seeds with a bye)
    and the part from it separately, so a bye never changes hands."""
    for a, b in ((lo, min(hi, byes)), (max(lo, byes), hi)):
        if b - a > 1:
            part = order[a:b]
            rng.shuffle(part)
            order[a:b] = part


def make_draw(comp: Competition, seed: int | None = None, method: str | None = None,
              manual=None) -> Draw:
    """Draw the first stage.

    method (default: the first stage's ``draw``): ``"snake"`` (by seed, no chance), ``"pots"``
    (pot 1 = the best seeds, one per group by seed; each later pot of as many seeds shuffled into
    the groups; knockout: seeds 1–2 fixed, 3–4, 5–8, 9–16… each shuffled among their bracket
    lines), ``"random"`` (all shuffled), ``"manual"`` (``manual``: groups of entry ids, or the
    knockout order, whose first entries take the byes). A knockout's byes always go to the top
    seeds (seeds 1…size−n for n entrants in a bracket of size lines): ``pots`` and ``random``
    shuffle the seeds with a bye and those without apart. seed (default ``comp.draw_seed``) feeds ``random.Random(seed)``.

    Raises TournamentError ``invalid_draw`` for a manual draw that does not hold each stage-1
    entrant exactly once in the right number of groups.
    """
    seed = comp.draw_seed if seed is None else seed
    st = comp.stages[0]
    method = method or st.draw
    if method not in DRAW_METHODS:
        raise TournamentError("invalid_field", f"sorteio desconhecido {method!r} (use {', '.join(DRAW_METHODS)})",
                              f"unknown draw method {method!r} (use {', '.join(DRAW_METHODS)})")
    if method == "manual" and manual is not None and (
            not isinstance(manual, (list, tuple))
            or (st.format != "knockout" and not all(isinstance(grp, (list, tuple)) for grp in manual))):
        raise TournamentError("invalid_draw",
                              "o sorteio manual deve ser uma lista de grupos (listas de números de inscrição)"
                              if st.format != "knockout" else
                              "o sorteio manual deve ser a lista dos números de inscrição, na ordem da chave",
                              "the manual draw must be a list of groups (lists of entry numbers)"
                              if st.format != "knockout" else
                              "the manual draw must be the list of entry numbers in bracket order")
    rng = random.Random(seed)
    ids, _ = _split(comp)
    n = len(ids)
    if st.format == "knockout":
        if method == "manual":
            order = tuple(manual if manual is not None else st.manual)
            if sorted(map(repr, order)) != sorted(map(repr, ids)) or len(set(order)) != n:
                raise TournamentError("invalid_draw",
                                      "o sorteio manual deve listar cada jogador uma vez",
                                      "the manual draw must list every player once")
            return Draw(method, seed, order=order)
        order = list(ids)
        # The first size-n bracket seeds meet an empty line (bracket_order): those are the byes,
        # so chance moves a player only among those who share his lot, bye or no bye.
        byes = (1 << (n - 1).bit_length()) - n if n > 1 else 0
        if method == "random":
            _shuffle_apart(order, 0, n, byes, rng)
        elif method == "pots":
            lo = 2
            while lo < n:
                _shuffle_apart(order, lo, 2 * lo, byes, rng)
                lo *= 2
        return Draw(method, seed, order=tuple(order))
    g = st.groups
    if method == "manual":
        groups = tuple(tuple(x) for x in (manual if manual is not None else st.manual))
        flat = [x for grp in groups for x in grp]
        if len(groups) != g or len(flat) != n or set(map(repr, flat)) != set(map(repr, ids)):
            raise TournamentError(
                "invalid_draw",
                f"o sorteio manual deve ter {g} grupo(s) com cada jogador uma vez",
                f"the manual draw must have {g} group(s) holding every player once")
        return Draw(method, seed, groups=groups)
    if method == "snake":
        groups = [[ids[k] for k in grp] for grp in snake(n, g)]
    elif method == "random":
        order = list(ids)
        rng.shuffle(order)
        groups = [[ids_ for ids_ in order[k::g]] for k in range(g)]
    else:  # pots
        groups = [[] for _ in range(g)]
        for p in range(0, n, g):
            pot = ids[p:p + g]
            if p:
                rng.shuffle(pot)
            targets = list(range(g))
            if len(pot) < g:
                rng.shuffle(targets)
            for x, t in zip(pot, targets):
                groups[t].append(x)
    return Draw(method, seed, groups=tuple(tuple(grp) for grp in groups))


# --- the formats -------------------------------------------------------------------------------

def circle_rounds(members: list) -> list[list[tuple[int, int]]]:
    """Round-robin rounds by the circle method: ``n`` members (indexes) → ``n-1`` rounds (``n``
    if odd, one sits out each round), each a list of index pairs; every pair meets once and no
    index appears twice in a round. The fixed member alternates sides."""
    n = len(members)
    idx = list(range(n)) + ([None] if n % 2 else [])
    m = len(idx)
    rounds = []
    for r in range(m - 1):
        pairs = []
        for i in range(m // 2):
            x, y = idx[i], idx[m - 1 - i]
            if x is None or y is None:
                continue
            if i == 0 and r % 2:
                x, y = y, x
            pairs.append((x, y))
        rounds.append(pairs)
        idx = [idx[0], idx[-1]] + idx[1:-1]
    return rounds


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket line order for a power-of-two ``size``:
    ``bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]``; seeds 1 and 2 are in opposite halves, and
    seed s meets seed ``size + 1 - s`` in the first round."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


KO_ROUND_NAMES = {2: "final", 4: "semi_final", 8: "quarter_final"}


def _ko_round_name(lines: int) -> str:
    return KO_ROUND_NAMES.get(lines, f"round_of_{lines}")


class _Builder:
    def __init__(self, comp: Competition):
        self.comp = comp
        self.fixtures: list[Fixture] = []

    def add(self, stage: int, st: Stage, rnd: int, name: str, group, a: Slot, b: Slot):
        """A match between a and b, or none when one side is empty at build time (a bye):
        returns (winner slot, loser slot)."""
        if a.kind == "empty" or b.kind == "empty":
            return (b if a.kind == "empty" else a), EMPTY
        n = len(self.fixtures) + 1
        f = Fixture(n, stage, rnd, name, group, a, b, st.frames_for(name),
                    name in st.stream_rounds or n in self.comp.stream_matches)
        self.fixtures.append(f)
        return Slot("winner", match=f.id), Slot("loser", match=f.id)


def _ko_entrant_order(prev: Stage | None, stage_idx: int, direct: list) -> list[Slot]:
    slots = [Slot("entry", entry=e) for e in direct]
    if prev is None:
        return slots
    g, q = prev.groups, prev.qualify
    labels = [group_label(i) for i in range(g)]
    if q == 2 and g % 2 == 0 and not direct:
        # Runner-up of group i meets the winner of its partner group (A↔B, C↔D…), so the two of
        # a group sit in opposite halves and group winners never meet in the first round.
        winners = [Slot("position", stage=stage_idx - 1, group=lab, position=1) for lab in labels]
        seconds: list = [None] * g
        for i in range(g):
            seconds[g - 1 - i] = Slot("position", stage=stage_idx - 1, group=labels[i ^ 1], position=2)
        return winners + seconds
    for p in range(1, q + 1):
        slots += [Slot("position", stage=stage_idx - 1, group=lab, position=p) for lab in labels]
    return slots


def build(comp: Competition, draw: Draw | None = None) -> Plan:
    """Draw (unless ``draw`` is given) and schedule every stage: the :class:`Plan`.

    Raises TournamentError from :func:`check_fit` or :func:`make_draw`.
    """
    check_fit(comp)
    draw = draw or make_draw(comp)
    b = _Builder(comp)
    groups: dict = {}
    de_positions: dict = {}
    entrants = []
    _, direct = _split(comp)
    for si, st in enumerate(comp.stages):
        prev = comp.stages[si - 1] if si else None
        if si == 0:
            if st.format == "knockout":
                order = [Slot("entry", entry=e) for e in draw.order]
            else:
                members = [[Slot("entry", entry=e) for e in grp] for grp in draw.groups]
                order = [Slot("entry", entry=e) for grp in draw.groups for e in grp]
        else:
            order = _ko_entrant_order(prev, si, direct[si])
            if st.format != "knockout":
                members = [[order[k] for k in grp] for grp in snake(len(order), st.groups)]
        entrants.append(tuple(order))
        if st.format == "knockout":
            _knockout(b, si, st, order)
            continue
        labels = [group_label(i) for i in range(st.groups)]
        for lab, mem in zip(labels, members):
            groups[(si, lab)] = tuple(mem)
        if st.format == "round_robin_groups":
            per_group = [circle_rounds(m) for m in members]
            for r in range(max(len(x) for x in per_group)):
                for lab, mem, rounds in zip(labels, members, per_group):
                    for x, y in rounds[r] if r < len(rounds) else ():
                        b.add(si, st, r + 1, f"round_{r + 1}", lab, mem[x], mem[y])
        else:
            padded = [list(m) + [EMPTY] * (4 - len(m)) for m in members]
            outs = {}
            for lab, m in zip(labels, padded):
                outs[lab] = [b.add(si, st, 1, "opening", lab, m[0], m[3]),
                             b.add(si, st, 1, "opening", lab, m[1], m[2])]
            for lab in labels:
                (w1, l1), (w2, l2) = outs[lab]
                outs[lab] += [b.add(si, st, 2, "winners", lab, w1, w2),
                              b.add(si, st, 2, "losers", lab, l1, l2)]
            for lab in labels:
                wm, lm = outs[lab][2], outs[lab][3]
                wd, ld = b.add(si, st, 3, "decider", lab, lm[0], wm[1])
                de_positions[(si, lab)] = (wm[0], wd, ld, lm[1])
    beyond = [n for n in comp.stream_matches if n > len(b.fixtures)]
    if beyond:
        raise TournamentError("invalid_field",
                              f"'stream_matches': não há jogo J{beyond[0]} (a competição tem {len(b.fixtures)} jogos)",
                              f"'stream_matches': there is no match M{beyond[0]} (the competition has "
                              f"{len(b.fixtures)} matches)")
    rng = random.Random(f"lot:{draw.seed}")
    lot = [e.id for e in comp.entries]
    rng.shuffle(lot)
    return Plan(comp, draw, tuple(b.fixtures), groups, de_positions, tuple(entrants), tuple(lot))


def _knockout(b: _Builder, si: int, st: Stage, order: list[Slot]) -> None:
    n = len(order)
    size = 1
    while size < n:
        size *= 2
    line = [order[s - 1] if s <= n else EMPTY for s in bracket_order(size)]
    rnd = 1
    while len(line) > 1:
        name = _ko_round_name(len(line))
        if len(line) == 2 and st.third_place:
            semis = [f for f in b.fixtures if f.stage == si and f.round_name == "semi_final"]
            b.add(si, st, rnd, "third_place", None,
                  Slot("loser", match=semis[0].id), Slot("loser", match=semis[1].id))
        nxt = []
        for i in range(0, len(line), 2):
            nxt.append(b.add(si, st, rnd, name, None, line[i], line[i + 1])[0])
        # a round with only byes (none here: byes never meet) would not count as a round
        if any(f.stage == si and f.round == rnd for f in b.fixtures):
            rnd += 1
        line = nxt
