"""A whole event day rehearsed through the desk's and the referees' API on one database: two
competitions (an open of 16 in four CBBS double-elimination groups and a knockout of 8; a
seniors' event of 8 in two round-robin groups of 4 whose top three go on, so the two group
winners get the knockout's byes) share three players and four tables. Real life leaves the plan:
a table breaks mid-match and comes back, a player comes late, one does not come (a W.O. with its
reason), neither comes (a double W.O.), one withdraws, a result is corrected, and every match
ends far sooner than the timetable expected (the day runs early).

The clock is the test's (``django.utils.timezone.now``): matches take minutes of it and no real
time, and a player's rest ends when the test moves the clock past the competition's stored due
time and runs the due queues (``competitions.run_due``, what each worker does every second).

At every step it asserts: nobody called or in play at two tables, and no table with two;
nothing called to a table out of service; every call after the player's rest (his last match
in either competition); every "não antes de" the hub showed for a match no later than its call;
the knockout's byes held by its top seeds; every change of a match's state or of what a table's
tablet follows was pushed to the boards by the live layer (no poll: nothing reads the boards'
fingerprint here). At the end each competition's standings, placings and champion equal the
pure core's evaluation of the results the test itself recorded.

Transactional: results and calls flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import json
from datetime import timedelta
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone

import tournament
from scoreboard.core import competitions, names, operations, tables
from scoreboard.core.models import Competition, Match, Table
from scoreboard.live import boards, event
from scoreboard.live.hub import hub

pytestmark = [pytest.mark.django_db(transaction=True)]

SHARED = [{"name": "Rui Campos", "club": "Clube Tietê"}, {"name": "Lia Moraes", "club": "Clube Tietê"},
          {"name": "Teo Barros", "club": "Clube Paineiras"}]
TABLES = ["Mesa 1", "Mesa 2", "Mesa 3", "Mesa 4"]
REST = 10
OPEN = {"name": "Aberto", "reds": 6, "draw_seed": 11, "rest_minutes": REST, "wo_tolerance_minutes": 15,
        "tables": TABLES, "points": {"1": 100, "2": 75, "3": 55, "5": 35, "9": 10},
        "players": ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes", SHARED[0], "Eva Prado", "Fábio Reis",
                    "Gil Matos", SHARED[1], "Hugo Dias", "Íris Melo", "João Pinto", SHARED[2], "Kátia Luz",
                    "Léo Ramos", "Mara Vaz"],
        "stages": [{"format": "double_elimination_groups", "groups": 4, "frames_to_win": 1, "qualify": 2},
                   {"format": "knockout", "frames_to_win": 1}]}
SENIOR = {"name": "Sênior", "reds": 6, "draw_seed": 5, "rest_minutes": REST, "wo_tolerance_minutes": 15,
          "tables": TABLES, "points": {"1": 50, "2": 40, "3": 30, "5": 20},
          "players": [SHARED[2], "Nelson Reis", SHARED[0], "Otto Lins", "Paulo Sá", SHARED[1], "Quim Alves",
                      "Renato Luz"],
          "stages": [{"format": "round_robin_groups", "groups": 2, "frames_to_win": 1, "qualify": 3},
                     {"format": "knockout", "frames_to_win": 1}]}
MATCH_MINUTES = 4  # a frame of 6 reds ended by a concession: far shorter than the timetable's


class Clock:
    """The test's time: ``django.utils.timezone.now`` answers it (events' ``at``, calls, rests)."""

    def __init__(self) -> None:
        self.t = timezone.now().replace(microsecond=0)

    def __call__(self):
        return self.t

    def tick(self, minutes: float) -> None:
        self.t += timedelta(minutes=minutes)


def desk(comp: Competition, token: str, **body):
    r = Client().post(f"/api/competitions/{comp.pk}/actions/", json.dumps(body),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert r.status_code == 200, r.content
    return r


def tap(match_id: int, event_body: dict) -> None:
    m = Match.objects.get(pk=match_id)
    token = operations.issue_token(m, "test")
    r = Client().post(f"/api/matches/{match_id}/events/", json.dumps({"event": event_body}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert r.status_code == 201, r.content


def winner_of(key: str, n: int) -> int:
    """Who wins fixture ``n`` (side 0 or 1), as the test decides it (the lot's winner too)."""
    return (n * 7 + len(key)) % 2


def person(p) -> str:
    return names.identity(p["name"] if isinstance(p, dict) else p)


class Day:
    """Both competitions, the test's own record of what happened, and the checks of each step."""

    def __init__(self, clock: Clock, pushed: list) -> None:
        self.clock, self.pushed = clock, pushed
        self.comps = {}
        for spec in (OPEN, SENIOR):
            created = competitions.create_competition(spec)
            self.comps[spec["name"]] = (created.competition, created.desk_token, spec)
        self.entry = {k: {person(p): i + 1 for i, p in enumerate(spec["players"])} for k, (_c, _t, spec) in self.comps.items()}
        self.ledger = {k: {} for k in self.comps}  # fixture number -> tournament.Result, as the test made it
        self.withdrawn = {k: [] for k in self.comps}
        self.last_end: dict[str, object] = {}  # person -> when his last played match ended
        self.shown: dict = {}  # (comp, fixture) -> the latest "não antes de" shown on the hub
        self.calls: dict = {}  # (comp, fixture) -> called_at seen
        self.before = None
        self.steps = 0
        self.kept = 0  # calls that came with a "não antes de" shown before them
        self.pushes = 0  # screen changes checked against a push
        self.started = clock()
        # the timetable's projection (minutes from the start), which the day beats
        self.timetable = {k: tournament.projected_schedule(competitions.plan_of(c), competitions.spec_of(c).tables,
                                                            rest_minutes=REST)
                          for k, (c, _t, spec) in self.comps.items()}

    # -- what the screens show ---------------------------------------------------------------------
    def matches(self, key: str) -> dict:
        comp = Competition.objects.get(pk=self.comps[key][0].pk)
        s = competitions.summary(comp)
        return {m["number"]: m for st in s["stages"] for m in st["matches"]}

    def view(self) -> dict:
        """What a push must bring to the screens: each match's status, table and players, and
        each table's service state (what its tablet follows, :meth:`follow`, changes only with
        these)."""
        out = {}
        for key in self.comps:
            for n, m in self.seen[key].items():
                out[(key, n)] = (m["status"], m["table"], tuple(m["players"]), m["match"])
        for name, out_since in Table.objects.filter(name__in=TABLES).values_list("name", "out_since"):
            out[("table", name)] = out_since is not None
        return out

    def follow(self, table: str) -> dict:
        """The table's follow board: what its tablet and TV open (``boards.table_follow``)."""
        return boards.table_follow(Table.objects.get(name=table).pk)

    # -- the checks of every step ------------------------------------------------------------------
    def check(self, what: str) -> None:
        self.steps += 1
        now = self.clock()
        where: dict[str, str] = {}
        on_table: dict[str, object] = {}
        out_of_service = set(Table.objects.filter(name__in=TABLES, out_since__isnull=False).values_list("name", flat=True))
        self.seen = {key: self.matches(key) for key in self.comps}
        for key, (comp, _tok, spec) in self.comps.items():
            ms = self.seen[key]
            for n, m in ms.items():
                if m["status"] not in ("called", "in_play"):
                    continue
                assert m["table"], (what, key, n, m)
                # one match a table
                assert m["table"] not in on_table, (what, key, n, m["table"], on_table[m["table"]])
                on_table[m["table"]] = (key, n)
                # one place a person
                for p in m["players"]:
                    assert person(p) not in where, (what, p, where[person(p)], (key, n, m["table"]))
                    where[person(p)] = (key, n, m["table"])
                if m["status"] == "called":
                    assert m["table"] not in out_of_service, (what, key, n, m["table"])
                    at = Match.objects.get(pk=m["match"]).fixture.called_at
                    if (key, n) not in self.calls:
                        self.calls[(key, n)] = at
                        # rest: after his last played match, in either competition
                        for p in m["players"]:
                            end = self.last_end.get(person(p))
                            assert end is None or at >= end + timedelta(minutes=spec["rest_minutes"]), (
                                what, key, n, p, end, at)
                        # the hub's "não antes de" held: never later than the call
                        shown = self.shown.get((key, n))
                        assert shown is None or shown <= at, (what, key, n, shown, at)
                        self.kept += shown is not None
            # the hub's "não antes de" now (what its schedule prints), kept until the call
            cur = competitions.now(Competition.objects.get(pk=comp.pk))
            shown = event.not_before(comp, cur, now)
            for n, at in shown.items():
                self.shown[(key, n)] = at
            if self.steps % 20 == 1:  # what the hub prints is that (its context, read in full now and then)
                ctx = event.individual_context(Competition.objects.get(pk=comp.pk))
                assert {i["number"]: i["not_before"] for i in ctx["matches"] if i["not_before"]} == shown
            self.byes_to_top_seeds(key, cur)
        # every change on a screen was pushed by the live layer since the last step: a match's
        # state (the boards that list it), a table's service, what a table's tablet follows
        after = self.view()
        if self.before is not None:
            everything = any(ids is None for ids in self.pushed)
            ids = {i for got in self.pushed if got is not None for i in got}
            touched = set()
            for k, v in after.items():
                old = self.before.get(k)
                if old == v:
                    continue
                if k[0] == "table":
                    assert everything, (what, k, old, v, self.pushed)
                    touched.add(k[1])
                    continue
                touched |= {x[1] for x in (old, v) if x and x[1]}
                mids = {x[3] for x in (old, v) if x and x[3]}
                assert everything or not mids or mids & ids, (what, k, old, v, self.pushed)
                self.pushes += bool(mids)
            for table in touched:
                old, new = self.follows.get(table), self.follow(table)
                self.follows[table] = new
                if old is not None and old != new:
                    moved = {old[w] for w in ("tablet", "match", "last")} | {new[w] for w in ("tablet", "match", "last")}
                    assert everything or (moved - {None}) & ids, (what, table, old, new, self.pushed)
        else:
            self.follows = {t: self.follow(t) for t in TABLES}
        if self.steps % 10 == 0:
            # the boards' refresh reads every table's follow board at once: as each one alone says
            rows = list(Table.objects.filter(name__in=TABLES))
            together = tables.tables_now(rows)
            for t in rows:
                alone = tables.table_now(t)
                assert (together[t.pk].key, together[t.pk].current, together[t.pk].last, together[t.pk].next) == \
                    (alone.key, alone.current, alone.last, alone.next), (what, t.name)
        self.before = after
        self.pushed.clear()

    def byes_to_top_seeds(self, key: str, cur) -> None:
        """A knockout's players who skip its first round are its top seeds: in the seniors', the
        two group winners (from the standings as they stand)."""
        plan = cur.plan
        ko = max(f.stage for f in plan.fixtures)
        first = min(f.round for f in plan.fixtures if f.stage == ko)
        direct = [s for f in plan.fixtures if f.stage == ko and f.round > first for s in (f.a, f.b)
                  if s.kind == "position"]
        if key == "Sênior":
            assert sorted((s.group, s.position) for s in direct) == [("A", 1), ("B", 1)]
        else:
            assert direct == []  # 8 from the groups: no bye
        decided = ("finished", "walkover", "bye", "void")
        for s in direct:
            group = [f.id for f in plan.fixtures if f.stage == s.stage and f.group == s.group]
            if all(cur.state.matches[i].status in decided for i in group):
                winner = cur.state.standings[(s.stage, s.group)][0]["entry"]
                skip = {p for f in plan.fixtures if f.stage == ko and f.round > first
                        for p in cur.state.matches[f.id].players}
                first_round = {p for f in plan.fixtures if f.stage == ko and f.round == first
                               for p in cur.state.matches[f.id].players}
                assert winner in skip and winner not in first_round, (key, s.group, winner)

    # -- the people at the tables ------------------------------------------------------------------
    def live(self) -> list:
        out = []
        for key in self.comps:
            for n, m in self.seen[key].items():
                if m["status"] in ("called", "in_play"):
                    out.append((key, n, m))
        return sorted(out, key=lambda x: (x[2]["status"] != "in_play", x[2]["called_at"] or "", x[0], x[1]))

    def start(self, key: str, n: int, m: dict) -> None:
        tap(m["match"], {"type": "lot", "player": winner_of(key, n)})

    def finish(self, key: str, n: int, m: dict, winner: int, pairs: int) -> None:
        """Side ``winner`` (who won the lot or not) pots ``pairs`` red-black pairs and the other
        concedes: the match (frames_to_win 1) ends."""
        match = Match.objects.get(pk=m["match"])
        if match.seq == 0:
            tap(match.pk, {"type": "lot", "player": winner})
        for _ in range(pairs):  # the lot's winner breaks
            for ball in (1, 7):
                tap(match.pk, {"type": "pot", "balls": [ball]})
        tap(match.pk, {"type": "concede", "player": 1 - winner})
        for p in m["players"]:
            self.last_end[person(p)] = self.clock()
        e = self.entry[key]
        side = lambda v: (v, 0) if winner == 0 else (0, v)  # noqa: E731
        self.ledger[key][n] = {"winner": e[person(m["players"][winner])], "frames": side(1), "kind": "frames",
                               "points": side(8 * pairs), "highest_break": side(8 * pairs)}

    def walkover(self, key: str, n: int, m: dict, absent: list[int], reason: str) -> None:
        comp, token, _ = self.comps[key]
        desk(comp, token, action="walkover", match=n, absent=absent, reason=reason)
        e = self.entry[key]
        if len(absent) == 2:
            self.ledger[key][n] = {"winner": None, "frames": (0, 0), "kind": "double_walkover"}
        else:
            w = 1 - absent[0]
            self.ledger[key][n] = {"winner": e[person(m["players"][w])], "frames": (1, 0) if w == 0 else (0, 1),
                                   "kind": "walkover"}


def test_a_whole_event_day_with_two_competitions_sharing_players_and_tables():
    clock = Clock()
    pushed: list = []
    with mock.patch("django.utils.timezone.now", clock), \
            mock.patch.object(boards, "fingerprint", side_effect=AssertionError("a board polled")), \
            mock.patch.object(hub.publisher, "boards", lambda ids: pushed.append(None if ids is None else set(ids))), \
            mock.patch.object(hub.publisher, "publish", lambda match_id, *a, **k: pushed.append({match_id})):
        run_the_day(Day(clock, pushed))


def run_the_day(day: Day) -> None:
    """Minute by minute: every table plays at once; a called match starts a minute after its
    call (the late player nine; the no-shows are given their W.O. when the tolerance is over),
    and ends ``MATCH_MINUTES`` after it started."""
    clock = day.clock
    opened, senior = day.comps["Aberto"][0], day.comps["Sênior"][0]
    open_token = day.comps["Aberto"][1]
    day.check("created")
    # four tables, both competitions: each table called once, the shared players once
    assert len(day.live()) == 4
    done = {"late": None, "wo": None, "double": None, "broken": None, "withdrawn": False, "corrected": False}
    began: dict = {}  # (competition, fixture) -> when the test started it
    mesa3_back_at = None
    guard = 0
    while True:
        guard += 1
        assert guard < 600, "the day did not end"
        clock.tick(1)
        if competitions.run_due(clock()):
            day.check("due")
        if done["broken"] and mesa3_back_at is None:
            # the broken table's match moves to the first table freed (the queue leaves it free)
            free = [t for t in TABLES if t != "Mesa 3" and t not in {m["table"] for *_x, m in day.live()}]
            if free:
                key, n = done["broken"]
                comp, token, _ = day.comps[key]
                desk(comp, token, action="move", match=n, table=free[0])
                day.check(f"moved {key} J{n} to {free[0]}")
                mesa3_back_at = clock() + timedelta(minutes=20)
        if done["broken"] and mesa3_back_at is not None and clock() >= mesa3_back_at:
            desk(opened, open_token, action="in_service", table="Mesa 3")
            done["broken"] = None
            day.check("Mesa 3 back in service")
        live = day.live()
        if not live:
            due = [c.due_at for c in Competition.objects.filter(pk__in=[opened.pk, senior.pk]) if c.due_at]
            if due:
                clock.t = max(clock.t, min(due) - timedelta(minutes=1))
                continue
            if all(competitions.summary(Competition.objects.get(pk=c.pk))["complete"] for c in (opened, senior)):
                break
            raise AssertionError(f"nothing called, nothing due, not complete at {clock()}")
        for key, n, _m in live:
            m = day.seen[key][n]  # as the last action left it
            if m["status"] == "called":
                at = day.calls[(key, n)]
                if done["double"] in (None, (key, n)) and key == "Aberto" and m["group"] == "D" \
                        and m["round_name"] == "opening":
                    done["double"] = (key, n)
                    if clock() >= at + timedelta(minutes=16):  # nobody came within the tolerance
                        day.walkover(key, n, m, [0, 1], "nenhum dos dois compareceu no prazo")
                        day.check("double W.O.")
                    continue
                if done["wo"] in (None, (key, n)) and key == "Aberto" and m["group"] == "B" \
                        and m["round_name"] != "opening":
                    done["wo"] = (key, n)
                    if clock() >= at + timedelta(minutes=16):
                        day.walkover(key, n, m, [1], "não compareceu no prazo de 15 minutos")
                        day.check("W.O.")
                    continue
                if done["late"] in (None, (key, n)) and key == "Sênior":
                    done["late"] = (key, n)
                    if clock() < at + timedelta(minutes=9):  # late, within the tolerance
                        continue
                day.start(key, n, m)
                began[(key, n)] = clock()
                day.check(f"{key} {m['label']} started")
                continue
            if (key, n) == done["broken"]:
                continue  # waits for its move
            if key == "Aberto" and m["table"] == "Mesa 3" and done["broken"] is None and mesa3_back_at is None \
                    and m["stage"] == 0 and m["round_name"] != "opening" and clock() >= began[(key, n)] + timedelta(minutes=2):
                desk(opened, open_token, action="out_of_service", table="Mesa 3", reason="pano rasgado")
                done["broken"] = (key, n)
                day.check("Mesa 3 out of service mid-match")
                continue
            if clock() < began[(key, n)] + timedelta(minutes=MATCH_MINUTES):
                continue
            # it ends, well before the timetable said
            winner = winner_of(key, n)
            day.finish(key, n, m, winner, pairs=n % 3)
            day.check(f"{key} J{n} ended")
            if key == "Sênior" and not done["corrected"] and m["stage"] == 0:
                # the desk entered it the wrong way round: corrected before the group went on
                comp, token, _ = day.comps[key]
                w = 1 - winner
                frames = [0, 0]
                frames[w] = 1
                desk(comp, token, action="correct", match=n, result={"winner": w, "frames": frames},
                     reason="resultado anotado invertido")
                # the points and breaks stay as played
                day.ledger[key][n] = {**day.ledger[key][n], "winner": day.entry[key][person(m["players"][w])],
                                      "frames": tuple(frames), "kind": "frames"}
                done["corrected"] = True
                day.check("corrected")
            elif key == "Sênior" and done["corrected"] and not done["withdrawn"] and m["stage"] == 0:
                # a player of the group who is not shared leaves after his match
                loser = m["players"][1 - winner]
                if person(loser) not in {person(p) for p in SHARED}:
                    comp, token, _ = day.comps[key]
                    desk(comp, token, action="withdraw", player=loser, reason="lesão no punho")
                    day.withdrawn[key].append(day.entry[key][person(loser)])
                    done["withdrawn"] = True
                    day.check("withdrawal")
    assert done["double"] and done["wo"] and done["late"] and done["corrected"] and done["withdrawn"]
    assert day.ledger["Aberto"][done["double"][1]]["kind"] == "double_walkover"
    assert day.ledger["Aberto"][done["wo"][1]]["kind"] == "walkover"
    assert mesa3_back_at is not None and done["broken"] is None
    # the standings, placings and champion are the formats' own evaluation of what was played
    for key, (comp, _tok, spec) in day.comps.items():
        s = competitions.summary(Competition.objects.get(pk=comp.pk))
        plan = tournament.build(tournament.parse_competition(spec))
        got_results = competitions.now(Competition.objects.get(pk=comp.pk)).results
        ledger = {n: tournament.Result.from_dict(r) for n, r in day.ledger[key].items()}
        pure = tournament.evaluate(plan, ledger, day.withdrawn[key])
        name_of = {i + 1: (p["name"] if isinstance(p, dict) else p) for i, p in enumerate(spec["players"])}
        assert {n: r.to_dict() for n, r in got_results.items()} == {n: r.to_dict() for n, r in ledger.items()}
        assert s["complete"] and pure.complete
        assert s["champion"] == name_of[pure.champion]
        for (st, g), rows in pure.standings.items():
            assert [r["name"] for r in s["standings"][f"{st}:{g}"]] == [name_of[r["entry"]] for r in rows], (key, g)
        assert {p["name"]: p["placing"] for p in s["placings"]} == {name_of[e]: p for e, p in pure.placings.items()}
    assert day.steps > 60 and day.kept > 10 and day.pushes > 100, (day.steps, day.kept, day.pushes)
    # the day ran early: the open's final was called half an hour or more before its timetable's
    # projection (the seniors' own projection, which knows nothing of the open holding the
    # tables, is no yardstick), and every "não antes de" shown held all the same
    final = max(day.timetable["Aberto"])
    projected = day.started + timedelta(minutes=day.timetable["Aberto"][final]["start"])
    assert day.calls[("Aberto", final)] <= projected - timedelta(minutes=30), (day.calls[("Aberto", final)], projected)
