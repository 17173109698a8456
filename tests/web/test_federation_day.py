"""A federation's day end to end: a federation (PostgreSQL, Redis, ``scripts/serve.py``) and two
venues (each a ``serve.py`` on its own embedded SQLite, a venue of that federation). 24 players
are registered at the federation and pulled to both venues; each venue runs a 4-player knockout
(6 reds, one frame; the two share two players) through the API; the federation is stopped for
the middle of the day and venue A is killed (``kill -9``) mid-backlog and started again. At the
end the federation holds every event of every match exactly once and in order, on the registered
players; a season of the two etapas ranks as the formats' own evaluation of the venues' results,
and each player's career and every head-to-head there are what the venues' matches say."""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import psycopg
import pytest

import sinuca
import tournament
from live_harness import PY, ROOT, App, PrivateRedis, free_port
from tournament.ranking import season_ranking

pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]

FRAME = [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"},
         {"type": "concede", "player": 0}]  # the side breaking concedes its only frame: B wins
PLAYERS = [{"name": f"Jogador {i:02d}", "club": f"Clube {i % 4}"} for i in range(1, 25)]


def wait_for(what, timeout: float = 90, step: float = 0.2):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(step)
    raise TimeoutError(getattr(what, "__name__", "condition"))


class Venue:
    """A venue server on its embedded SQLite (one worker), a venue of the federation at ``fed``."""

    def __init__(self, name: str, db_file: str, fed_url: str, token: str, batch: int) -> None:
        self.name, self.db_file = name, db_file
        self.env = dict(os.environ, DATABASE_URL=f"sqlite:///{db_file}", DJANGO_DEBUG="0",
                        DJANGO_SECRET_KEY="fed-" + uuid.uuid4().hex, DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
                        FEDERATION_URL=fed_url, FEDERATION_TOKEN=token, FEDERATION_BACKOFF_MAX="1",
                        FEDERATION_TIMEOUT="3", FEDERATION_BATCH=str(batch))
        self.env.pop("REDIS_URL", None)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.tokens: dict[int, str] = {}

    def start(self) -> None:
        self.log = open(tempfile.mktemp(prefix=f"venue-{self.name}-", suffix=".log"), "w+")
        self.proc = subprocess.Popen([PY, "scripts/serve.py", "--workers", "1", "--bind", f"127.0.0.1:{self.port}"],
                                     cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        wait_for(lambda: self._up(), 60)

    def _up(self) -> bool:
        try:
            return httpx.get(f"{self.base}/api/rules/1/", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def kill9(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)

    def manage(self, *args: str, stdin: str | None = None) -> str:
        return subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=self.env, check=True, input=stdin,
                              capture_output=True, text=True, timeout=300).stdout

    def sql(self, query: str, *params):
        with sqlite3.connect(self.db_file, timeout=20) as db:
            return db.execute(query, params).fetchall()

    def pending(self) -> int:
        return self.sql("SELECT count(*) FROM scoreboard_outboxrecord WHERE delivered_at IS NULL")[0][0]

    def summary(self, comp: int) -> dict:
        return httpx.get(f"{self.base}/api/competitions/{comp}/", timeout=10).json()

    def desk(self, comp: int, token: str, body: dict) -> None:
        r = httpx.post(f"{self.base}/api/competitions/{comp}/actions/", json=body, timeout=20,
                       headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text

    def play(self, comp: int, desk_token: str, number: int) -> None:
        """Start fixture ``number`` (its lot to side 0) and play its one frame through the API."""
        self.desk(comp, desk_token, {"action": "start", "match": number, "lot": 0})
        fixtures = self.fixtures(comp)
        match = next(m["match"] for m in fixtures if m["number"] == number)
        if match not in self.tokens:  # every match made so far at once: a command costs seconds here
            made = [m["match"] for m in fixtures if m["match"] and m["match"] not in self.tokens]
            self.tokens.update({int(k): t for k, t in json.loads(self.manage("shell", "-c", (
                "import json; from scoreboard.core.models import Match; from scoreboard.core.operations import issue_token;"
                f"print(json.dumps({{m.pk: issue_token(m, 'cmd:test') for m in Match.objects.filter(pk__in={made})}}))"
            )).strip().splitlines()[-1]).items()})
        token = self.tokens[match]
        seq = httpx.get(f"{self.base}/api/matches/{match}/", timeout=10).json()["seq"]
        for i, event in enumerate(FRAME):
            r = httpx.post(f"{self.base}/api/matches/{match}/events/", timeout=20,
                           json={"event": event, "expected_seq": seq + i, "key": f"{self.name}-{match}-{i}"},
                           headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 201, r.text

    def fixtures(self, comp: int) -> list[dict]:
        return [m for s in self.summary(comp)["stages"] for m in s["matches"]]


@pytest.fixture(scope="module")
def federation_day():
    redis = PrivateRedis()
    redis.start()
    fed = App(redis.url, workers=1)
    venues = []
    tmp = tempfile.mkdtemp(prefix="fed-day-")
    try:
        yield fed, venues, tmp
    finally:
        for v in venues:
            v.stop()
        fed.stop()
        redis.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def fed_rows(fed: App, query: str, *params):
    with psycopg.connect(fed.db) as db:
        return db.execute(query, params).fetchall()


def restart_federation(fed: App) -> None:
    """Start the federation's server again on its port and database (``App`` after a stop)."""
    fed.proc = subprocess.Popen([PY, "scripts/serve.py", "--workers", "1", "--bind", f"127.0.0.1:{fed.port}"],
                                cwd=ROOT, env=fed.env, stdout=fed.log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def up():
        try:
            return httpx.get(f"{fed.base}/api/rules/1/", timeout=2).status_code == 200
        except httpx.TransportError:
            return False
    wait_for(up, 60)


def test_the_federation_holds_every_event_once_and_in_order(federation_day):
    fed, venues, tmp = federation_day
    t0 = time.monotonic()
    _write(os.path.join(tmp, "players.json"), PLAYERS)
    first = os.path.join(tmp, "A.sqlite3")
    with ThreadPoolExecutor(4) as pool:  # commands cost seconds each on this machine: side by side
        registered = pool.submit(fed.manage, "federation", "register", os.path.join(tmp, "players.json"))
        issued = {n: pool.submit(fed.manage, "venuetoken", f"Clube {n}") for n in "AB"}
        # one migrated SQLite, copied for both venues
        migrated = pool.submit(Venue("A", first, "", "", 1).manage, "migrate", "--noinput")
        assert len({p["federation_id"] for p in json.loads(registered.result())}) == 24
        tokens = {n: json.loads(f.result())["token"] for n, f in issued.items()}
        migrated.result()
    a = Venue("A", first, fed.base, tokens["A"], batch=2)
    shutil.copy(first, os.path.join(tmp, "B.sqlite3"))
    b = Venue("B", os.path.join(tmp, "B.sqlite3"), fed.base, tokens["B"], batch=200)
    venues += [a, b]
    comps, files = {}, {}
    people = {"A": PLAYERS[0:4], "B": PLAYERS[2:6]}  # Jogador 03 and 04 play at both

    def morning(v: Venue) -> None:  # the two venues side by side, as in life (and in half the time)
        assert json.loads(v.manage("federation", "pull"))["added"] == 24
        files[v.name] = {"name": f"Etapa {v.name}", "reds": 6, "draw_seed": 7, "players": people[v.name],
                         "tables": ["Mesa 1", "Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}]}
        made = json.loads(v.manage("createcompetition", "-", stdin=json.dumps(files[v.name])).splitlines()[-1])
        comps[v.name] = (made["competition"], made["desk_token"])
        v.start()
        v.play(*comps[v.name], 1)  # the first third of the day online: each venue's first semi-final

    both(morning, venues)
    wait_for(lambda: a.pending() == 0 and b.pending() == 0, 60)
    # the federation away for the second third: the other semi-final and the final
    os.killpg(fed.proc.pid, signal.SIGTERM)
    fed.proc.wait(15)
    def afternoon(v: Venue) -> None:
        v.play(*comps[v.name], 2)
        final = wait_for(lambda: next((m["number"] for m in v.fixtures(comps[v.name][0])
                                       if m["match"] and m["status"] != "finished" and m["number"] > 2), None), 30)
        v.play(*comps[v.name], final)

    both(afternoon, venues)
    backlog_a = a.pending()
    assert backlog_a >= 9 and b.pending() >= 9  # two matches' records each, kept while the federation is away
    # the federation back: venue A is killed mid-backlog (it sends two records a time) and started again
    restart_federation(fed)
    wait_for(lambda: 0 < a.pending() < backlog_a, 60, step=0.02)
    a.kill9()
    left = a.pending()
    assert left > 0
    a.start()
    wait_for(lambda: a.pending() == 0 and b.pending() == 0, 90)
    # every match of each venue: the same events at the federation, once each, seq 1..n in order
    for v in venues:
        for (pk, seq, fid_a, fid_b) in v.sql(
                "SELECT m.id, m.seq, pa.federation_id, pb.federation_id FROM scoreboard_match m "
                "JOIN scoreboard_player pa ON pa.id = m.player_a_id JOIN scoreboard_player pb ON pb.id = m.player_b_id"):
            ours = [(s, json.loads(e)) for s, e in v.sql(
                "SELECT seq, event FROM scoreboard_event WHERE match_id = ? ORDER BY seq", pk)]
            theirs = fed_rows(fed, "SELECT e.seq, e.event, m.seq, pa.federation_id, pb.federation_id "
                                   "FROM scoreboard_match m JOIN scoreboard_venue ve ON ve.id = m.origin_venue_id "
                                   "JOIN scoreboard_player pa ON pa.id = m.player_a_id "
                                   "JOIN scoreboard_player pb ON pb.id = m.player_b_id "
                                   "LEFT JOIN scoreboard_event e ON e.match_id = m.id "
                                   "WHERE ve.name = %s AND m.origin_uid = %s ORDER BY e.seq",
                             f"Clube {v.name}", str(pk))
            assert theirs, (v.name, pk)
            assert [(s, e) for s, e, *_ in theirs if s is not None] == ours, (v.name, pk)
            assert theirs[0][2] == seq == len(ours) and (theirs[0][3], theirs[0][4]) == (fid_a, fid_b)
            assert fid_a and fid_b  # the pulled registry's players, not provisional ones
    played = fed_rows(fed, "SELECT count(*) FROM scoreboard_event e JOIN scoreboard_match m ON m.id = e.match_id "
                           "WHERE m.origin_venue_id IS NOT NULL")[0][0]
    at_venues = sum(v.sql("SELECT count(*) FROM scoreboard_event")[0][0] for v in venues)
    assert played == at_venues == 6 * (len(FRAME) + 1)  # three matches a venue (the lot and the frame), nothing twice
    # the competitions too, each fixture on its match, and the shared players are one person
    for v in venues:
        comp = fed_rows(fed, "SELECT c.id FROM scoreboard_competition c JOIN scoreboard_venue ve "
                             "ON ve.id = c.origin_venue_id WHERE ve.name = %s", f"Clube {v.name}")
        assert len(comp) == 1
        linked = fed_rows(fed, "SELECT count(*) FROM scoreboard_fixture WHERE competition_id = %s "
                               "AND match_id IS NOT NULL", comp[0][0])[0][0]
        assert linked == 3
    shared = fed_rows(fed, "SELECT count(DISTINCT m.origin_venue_id) FROM scoreboard_match m "
                           "JOIN scoreboard_player p ON p.id IN (m.player_a_id, m.player_b_id) "
                           "WHERE p.name IN ('Jogador 03', 'Jogador 04')")[0][0]
    assert shared == 2
    # a season at the federation of the two etapas (weights 1 and 2): its ranking is the formats'
    # own evaluation of each venue's results, weighted (tournament.evaluate, season_ranking)
    etapas = []
    with psycopg.connect(fed.db, autocommit=True) as c:  # what the admin's season form stores
        season = c.execute("INSERT INTO scoreboard_season (name, created_at) VALUES ('Temporada 2026', now()) "
                           "RETURNING id").fetchone()[0]
        for weight, v in zip((1, 2), venues):
            comp = fed_rows(fed, "SELECT c.id FROM scoreboard_competition c JOIN scoreboard_venue ve "
                                 "ON ve.id = c.origin_venue_id WHERE ve.name = %s", f"Clube {v.name}")[0][0]
            c.execute("INSERT INTO scoreboard_seasonetapa (season_id, competition_id, weight) VALUES (%s, %s, %s)",
                      [season, comp, weight])
            fid = dict(v.sql("SELECT name, federation_id FROM scoreboard_player"))
            spec = tournament.parse_competition(files[v.name])
            entry = {e.name: e.id for e in spec.entries}
            results = {m["number"]: {"winner": entry[m["winner"]], "frames": m["frames"]}
                       for st in v.summary(comps[v.name][0])["stages"] for m in st["matches"] if m["winner"]}
            state = tournament.evaluate(tournament.build(spec), results)
            assert state.complete, v.name
            names = {e.id: e.name for e in spec.entries}
            etapas.append({"placings": {fid[names[e]]: p for e, p in state.placings.items()}, "weight": weight})
    want = [(r["player"], r["points"], r["position"]) for r in season_ranking(etapas)]
    got = httpx.get(f"{fed.base}/api/seasons/{season}/ranking/", timeout=20).json()["ranking"]
    assert [(r["player"], r["points"], r["position"]) for r in got] == want and len(want) == 6, (got, want)
    # each player's career and every head-to-head at the federation are what the venues' matches
    # say (their logs replayed by the engine here)
    line = {}  # federation id -> [matches, won, lost, frames won, frames lost]
    meetings = {}  # (fid, fid) in order -> [won by the first, won by the second, frames of each]
    for v in venues:
        for pk, config, fa, fb in v.sql(
                "SELECT m.id, m.config, pa.federation_id, pb.federation_id FROM scoreboard_match m "
                "JOIN scoreboard_player pa ON pa.id = m.player_a_id JOIN scoreboard_player pb ON pb.id = m.player_b_id"):
            events = [json.loads(e) for (e,) in v.sql("SELECT event FROM scoreboard_event WHERE match_id = ? "
                                                      "ORDER BY seq", pk)]
            state = sinuca.Match.replay(json.loads(config), events).state()
            winner, frames = state["match_winner"], state["frames"]
            assert winner in (0, 1), (v.name, pk, state["phase"])
            for side, fid in enumerate((fa, fb)):
                row = line.setdefault(fid, [0, 0, 0, 0, 0])
                row[0] += 1
                row[1 if side == winner else 2] += 1
                row[3] += frames[side]
                row[4] += frames[1 - side]
            key, flip = ((fa, fb), False) if fa < fb else ((fb, fa), True)
            meet = meetings.setdefault(key, [0, 0, 0, 0])
            meet[(1 - winner) if flip else winner] += 1
            meet[2] += frames[1] if flip else frames[0]
            meet[3] += frames[0] if flip else frames[1]
    assert len(line) == 6 and len(meetings) == 6
    for fid, (n, won, lost, fw, fl) in line.items():
        total = httpx.get(f"{fed.base}/api/players/{fid}/career/", timeout=20).json()["total"]
        assert (total["matches"], total["won"], total["lost"], total["frames_won"], total["frames_lost"]) == (
            n, won, lost, fw, fl), fid
    for (x, y), (wx, wy, fx, fy) in meetings.items():
        h2h = httpx.get(f"{fed.base}/api/players/{x}/h2h/{y}/", timeout=20).json()
        assert (h2h["a"]["id"], h2h["b"]["id"], h2h["played"], h2h["won"], h2h["frames"]) == (
            x, y, wx + wy, [wx, wy], [fx, fy]), (x, y, h2h)
    print(f"federation day: {time.monotonic() - t0:.1f} s, venue A killed with {left} of {backlog_a} records left")


def both(fn, venues) -> None:
    """``fn(venue)`` for each venue at once; the first failure raised."""
    with ThreadPoolExecutor(len(venues)) as pool:
        for f in [pool.submit(fn, v) for v in venues]:
            f.result()


def _write(path: str, data) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
