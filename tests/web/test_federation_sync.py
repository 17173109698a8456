"""A venue and its federation (``core.federation``, ``core.sync``): the outbox written with each
fact, the registry, the ingest's rules (duplicate, gap, owned elsewhere, revoked token, order by
seq whatever the clocks say) and the sender's requeue and back-off. Both roles share one test
database here: the federation's copies are the rows with an ``origin_venue``."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

import sinuca

from scoreboard.core import federation, log, operations, sync
from scoreboard.core.matches import create_match
from scoreboard.core.models import Club, Event, Match, MatchMember, MatchRecord, OutboxRecord, Player, Venue, hash_token

pytestmark = [pytest.mark.django_db]

FRAME = [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"},
         {"type": "concede", "player": 0}]  # B wins the only frame: 8-0 to A, then A concedes


@pytest.fixture
def venue_role(settings):
    settings.FEDERATION_URL = "http://federation.invalid"
    settings.FEDERATION_TOKEN = "t"
    return settings


@pytest.fixture
def token(db):
    return federation.issue_venue_token("Clube Centro")


def post(client: Client, token: str, records) -> tuple[int, dict]:
    r = client.post("/api/federation/records/", data=json.dumps({"records": records}),
                    content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    return r.status_code, r.json()


def outbox() -> list[dict]:
    return [{"key": r.key, "kind": r.kind, "match": r.match_uid, "seq": r.seq, "payload": r.payload}
            for r in OutboxRecord.objects.order_by("id")]


def played(reds: int = 6) -> Match:
    m = create_match("Ana Souza", "Bia Lima", first_breaker=0, reds=reds).match
    for i, e in enumerate(FRAME):
        log.append_event(m.pk, e, expected_seq=i)
    return m


def copy_of(venue_match: Match) -> Match:
    return Match.objects.get(origin_venue__name="Clube Centro", origin_uid=str(venue_match.pk))


def test_a_plain_server_writes_no_outbox(db):
    played()
    assert OutboxRecord.objects.count() == 0


def test_the_outbox_holds_the_match_and_each_event_in_order_and_nothing_refused(venue_role):
    m = played()
    with pytest.raises(log.SinucaError):
        log.append_event(m.pk, {"type": "pot", "balls": [1]})  # the match is over: refused, not recorded
    recs = outbox()
    assert [r["key"] for r in recs] == [f"match:{m.pk}"] + [f"event:{m.pk}:{s}" for s in range(1, 5)]
    assert [r["seq"] for r in recs] == [0, 1, 2, 3, 4]
    assert recs[1]["payload"]["event"] == FRAME[0] and recs[1]["payload"]["header"]["config"]["reds"] == 6
    assert recs[0]["payload"]["header"]["players"][0] == {"name": "Ana Souza", "club": "",
                                                          "provisional": m.player_a_id}
    assert "header" not in recs[2]["payload"]


def test_a_walkover_goes_to_the_outbox_with_its_reason(venue_role):
    m = create_match("Caio", "Duda", first_breaker=0).match
    operations.walkover(m, [1], "cmd", "não compareceu")
    rec = OutboxRecord.objects.get(kind="walkover")
    assert rec.key == f"walkover:{m.pk}" and rec.payload["walkover"] == {"absent": [1], "winner": 0}
    assert rec.payload["reason"] == "não compareceu"


def test_venuetoken_is_shown_once_stored_hashed_and_revocable(db, capsys):
    call_command("venuetoken", "Clube Norte")
    shown = json.loads(capsys.readouterr().out)
    v = Venue.objects.get(name="Clube Norte")
    assert v.token_hash == hash_token(shown["token"]) and shown["token"] not in v.token_hash
    assert federation.venue_of_token(shown["token"]) == v
    call_command("venuetoken", "Clube Norte", "--revoke")
    assert federation.venue_of_token(shown["token"]) is None


def test_records_are_stored_as_ordinary_rows_once_whatever_the_replays(venue_role, token, client):
    m = played()
    recs = outbox()
    assert post(client, token, recs) == (200, {"acked": [r["key"] for r in recs]})
    assert post(client, token, recs) == (200, {"acked": [r["key"] for r in recs]})  # replayed: acked, nothing new
    assert post(client, token, recs[2:4])[0] == 200
    fm = copy_of(m)
    assert fm.seq == 4 and fm.config == m.config and fm.origin_venue.name == "Clube Centro"
    assert [e.event for e in Event.objects.filter(match=fm).order_by("seq")] == FRAME
    assert log.snapshot(fm.pk).state["phase"] == "match_over"  # the engine folded it
    assert fm.player_a.provisional_key == f"Clube Centro:{m.player_a_id}" and fm.player_a.federation_id is None


def test_a_gap_is_refused_with_the_expected_seq_and_the_acks_before_it(venue_role, token, client):
    m = played()
    recs = outbox()
    status, body = post(client, token, recs[:2] + recs[3:])
    assert status == 409 and body["error"]["code"] == "gap" and " / " in body["error"]["message"]
    assert body["expected"] == {"match": str(m.pk), "seq": 2}
    assert body["acked"] == [recs[0]["key"], recs[1]["key"]]
    assert copy_of(m).seq == 1


def test_a_batch_stores_each_matchs_run_at_once_and_answers_record_by_record(
        venue_role, token, client, monkeypatch, django_capture_on_commit_callbacks):
    """Two matches' events interleaved, one replayed in the middle, a gap in the second match; then
    an event the engine refuses after a good one, another venue's record, and the resend."""
    published, settled = [], []
    monkeypatch.setattr(log, "_subscribers", [lambda c: published.append((c.match.origin_uid, c.seq, c.state))])
    monkeypatch.setattr(log, "_settlers", [lambda c: settled.append((c.match.origin_uid, c.seq))])
    m1, m2 = played(), played()

    def send(records):  # committed as a request's transaction is: the screens and settlers are told
        with django_capture_on_commit_callbacks(execute=True):
            return post(client, token, records)

    by = {(r["match"], r["seq"]): r for r in outbox()}
    u1, u2 = str(m1.pk), str(m2.pk)
    batch = [by[u1, 0], by[u2, 0], by[u1, 1], by[u2, 1], by[u1, 2], by[u1, 1], by[u2, 2], by[u1, 3],
             by[u2, 4], by[u1, 4]]
    status, body = send(batch)
    assert status == 409 and body["error"]["code"] == "gap"
    assert body["expected"] == {"match": u2, "seq": 3} and body["key"] == by[u2, 4]["key"]
    assert body["acked"] == [by[k]["key"] for k in ((u1, 0), (u2, 0), (u1, 1), (u1, 2), (u1, 1), (u1, 3), (u1, 4),
                                                     (u2, 1), (u2, 2))]
    f1, f2 = copy_of(m1), copy_of(m2)
    assert (f1.seq, f2.seq) == (4, 2)
    assert list(Event.objects.filter(match=f1).order_by("seq").values_list("event", "key")) == [
        (e, by[u1, s]["key"]) for s, e in enumerate(FRAME, 1)]
    assert [e.event for e in Event.objects.filter(match=f2).order_by("seq")] == FRAME[:2]
    # one change a match for the screens, the latest, equal to a replay of what is stored
    assert [(u, s) for u, s, _ in published] == [(u1, 4), (u2, 2)]
    assert published[0][2] == log.snapshot(f1.pk).state == sinuca.Match.replay(f1.config, FRAME).state()
    assert settled == [(u1, 1), (u1, 4), (u2, 1), (u2, 2)]  # the start, the end, and each run's last
    bad = {**by[u2, 4], "payload": {**by[u2, 4]["payload"], "event": {"type": "pot", "balls": [99]}}}
    status, body = send([by[u2, 3], bad])
    assert status == 422 and body["error"]["code"] == "rejected" and body["key"] == bad["key"]
    assert body["acked"] == [by[u2, 3]["key"]] and copy_of(m2).seq == 3  # the good one before it is stored
    elsewhere = {**by[u2, 4], "payload": {**by[u2, 4]["payload"], "origin": "Clube Sul"}}
    status, body = send([by[u2, 2], elsewhere])
    assert status == 409 and body["error"]["code"] == "owned_elsewhere" and body["key"] == elsewhere["key"]
    assert body["acked"] == [by[u2, 2]["key"]] and copy_of(m2).seq == 3
    assert send([by[u2, 3], by[u2, 4]]) == (200, {"acked": [by[u2, 3]["key"], by[u2, 4]["key"]]})
    assert [e.event for e in Event.objects.filter(match=copy_of(m2)).order_by("seq")] == FRAME
    assert [(u, s) for u, s, _ in published][2:] == [(u2, 3), (u2, 4)]


def test_a_match_owned_by_another_venue_is_refused(venue_role, token, client):
    m = played()
    recs = outbox()
    recs[0]["payload"]["origin"] = "Clube Sul"
    status, body = post(client, token, recs)
    assert status == 409 and body["error"]["code"] == "owned_elsewhere" and body["acked"] == []
    assert not Match.objects.filter(origin_uid=str(m.pk)).exists()


def test_a_wrong_or_revoked_token_stores_nothing(venue_role, token, client):
    played()
    recs = outbox()
    status, body = post(client, "not-a-token", recs)
    assert status == 401 and body["error"]["code"] == "unauthorized"
    federation.revoke_venue_token("Clube Centro")
    assert post(client, token, recs)[0] == 401
    assert client.get("/api/federation/registry/", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 401
    assert not Match.objects.filter(origin_venue__isnull=False).exists()


def test_order_is_by_seq_not_by_the_venues_clock(venue_role, token, client):
    m = played()
    recs = outbox()
    skewed = datetime(2030, 1, 1, tzinfo=timezone.utc)
    for i, r in enumerate(recs[1:]):  # the venue's clock ran backwards through the frame
        r["payload"]["at"] = (skewed - timedelta(minutes=i)).isoformat()
    assert post(client, token, recs)[0] == 200
    stored = list(Event.objects.filter(match=copy_of(m)).order_by("at", "pk"))
    assert [e.seq for e in stored] == [1, 2, 3, 4] and [e.event for e in stored] == FRAME


def test_registry_pull_upserts_by_federation_id_and_reports_a_clash(db):
    federation.register("Ana Souza", "Centro")
    fed = federation.registry()
    club = Club.objects.get(name="Centro")
    assert fed["players"] == [{"federation_id": Player.objects.get(name="Ana Souza").federation_id,
                               "name": "Ana Souza", "club": "Centro", "club_id": club.federation_id}]
    assert fed["clubs"] == [{"federation_id": f"C{club.pk:06d}", "name": "Centro"}]
    # a venue with an unregistered namesake of another player in the registry
    fed["players"].append({"federation_id": "F999999", "name": "Caio Reis", "club": "Sul"})
    local = Player.objects.create(name="Caio Reis", club="Sul")
    got = federation.apply_registry(fed)
    assert got.added == 1 and got.clashes == [{"player": local.pk, "name": "Caio Reis", "club": "Sul",
                                               "federation_id": "F999999"}]
    local.refresh_from_db()
    assert local.federation_id is None  # never merged silently
    fed["players"][1]["name"] = "Caio R. Reis"
    assert federation.apply_registry(fed).updated == 1
    assert Player.objects.get(federation_id="F999999").name == "Caio R. Reis"


def test_a_pull_reports_a_clash_whatever_the_case_spaces_or_unicode_form_of_name_and_club(db):
    for name in ("Nina Alves", "Otto Lima", "Paulo Reis"):
        federation.register(name, "Esquina Snooker Clube")
    fed = federation.registry()
    Player.objects.all().delete()  # the venue: its own players, none registered
    Club.objects.all().delete()
    nina = Player.objects.create(name="Nina Alves", club="x")
    otto = Player.objects.create(name="Otto Lima", club="x")
    paulo = Player.objects.create(name="Paulo Reis", club="Outro Clube")  # another club: no clash
    # as a row may hold them (an update or an older version stored the text unnormalised)
    Player.objects.filter(pk=nina.pk).update(club="esquina  snooker clube")
    Player.objects.filter(pk=otto.pk).update(name=" OTTO  LIMA", club="Esquina Snooker Clube\u00a0")
    with CaptureQueriesContext(connection) as queries:
        got = federation.apply_registry(fed)
    assert got.added == 3
    assert sorted((c["player"], c["name"], c["club"]) for c in got.clashes) == [
        (nina.pk, "Nina Alves", "Esquina Snooker Clube"), (otto.pk, "Otto Lima", "Esquina Snooker Clube")]
    assert Player.objects.filter(pk__in=[nina.pk, otto.pk, paulo.pk], federation_id__isnull=True).count() == 3
    # the local players are read once, not once per pulled player
    assert sum('"federation_id" IS NULL' in q["sql"] for q in queries.captured_queries) == 1


def test_a_provisional_player_is_matched_by_a_person_and_later_records_follow(venue_role, token, client):
    reg = federation.register("Bia Lima", "Centro")  # the venue's clubless Bia is another row
    m = played()
    assert post(client, token, outbox())[0] == 200
    prov = Player.objects.get(provisional_key=f"Clube Centro:{m.player_b_id}")
    assert prov.pk != reg.pk and copy_of(m).player_b_id == prov.pk  # a namesake is not merged
    with pytest.raises(federation.MatchRefused):
        federation.match_player(reg, prov, "user:x")  # the other way round
    federation.match_player(prov, reg, "user:x")
    assert copy_of(m).player_b_id == reg.pk
    assert MatchRecord.objects.filter(kind="rename", data__registered=reg.federation_id).exists()
    OutboxRecord.objects.all().delete()
    m2 = played()  # the same venue player again: lands on the registered one
    assert post(client, token, outbox())[0] == 200
    assert copy_of(m2).player_b_id == reg.pk


def test_the_sender_requeues_a_gap_and_marks_only_acks(venue_role, token, client, monkeypatch):
    m = played()
    calls = []

    def call(method, path, body=None):
        calls.append([r["key"] for r in body["records"]])
        assert len(calls) < 8, calls  # a sender that never settles fails here, not at the time-out
        status, answer = post(client, token, body["records"])
        if status in (409, 422):
            answer["_status"] = status
        return answer

    monkeypatch.setattr(sync, "_call", call)
    assert sync.sync(sleep=lambda s: None) == 5
    assert OutboxRecord.objects.filter(delivered_at__isnull=True).count() == 0
    # the federation lost the last two events (restored from a backup): the gap requeues them
    fm = copy_of(m)
    Event.objects.filter(match=fm, seq__gt=2).delete()
    Match.objects.filter(pk=fm.pk).update(seq=2)
    log.forget(fm.pk)
    m.refresh_from_db()
    log.append_event(m.pk, {"type": "undo"}, expected_seq=4)  # a new event after the lost ones
    calls.clear()
    assert sync.sync(sleep=lambda s: None) == 3
    assert calls[0] == [f"event:{m.pk}:5"] and calls[1] == [f"event:{m.pk}:{s}" for s in (3, 4, 5)]
    assert copy_of(m).seq == 5


def test_the_sender_backs_off_doubling_to_the_limit_and_keeps_the_outbox(venue_role, monkeypatch):
    played()
    slept = []

    def down(*a, **k):
        raise sync.SendError(0, "unreachable")

    monkeypatch.setattr(sync, "_call", down)
    with pytest.raises(sync.SendError):
        sync.sync(max_seconds=300, sleep=slept.append, clock=lambda: sum(slept))
    assert slept[:8] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert OutboxRecord.objects.filter(delivered_at__isnull=True).count() == 5


def test_a_competition_is_stored_with_its_entries_and_fixtures_linked(venue_role, token, client):
    from scoreboard.core.competitions import create_competition

    comp = create_competition({"name": "Etapa 1", "reds": 6, "draw_seed": 1,
                               "players": ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"],
                               "tables": ["Mesa 1", "Mesa 2"],
                               "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    recs = outbox()
    assert post(client, token, recs)[0] == 200
    fc = comp.__class__.objects.get(origin_venue__name="Clube Centro", origin_uid=str(comp.pk))
    assert fc.spec == comp.spec and fc.entries.count() == 4
    linked = {f.number: f.match.origin_uid for f in fc.fixtures.select_related("match") if f.match_id}
    assert linked and linked == {f.number: str(f.match_id) for f in comp.fixtures.all() if f.match_id}
    assert MatchMember.objects.count() == 0  # singles: no members


def test_the_admin_matches_a_provisional_player_only_when_asked_with_both(venue_role, token, client, admin_client):
    reg = federation.register("Bia Lima", "Centro")
    m = played()
    assert post(client, token, outbox())[0] == 200
    prov = Player.objects.get(provisional_key=f"Clube Centro:{m.player_b_id}")
    url = "/admin/scoreboard/player/"
    page = admin_client.post(url, {"action": "match_to_registered", "_selected_action": [prov.pk]}, follow=True)
    assert "Selecione dois jogadores" in page.content.decode() and copy_of(m).player_b_id == prov.pk
    page = admin_client.post(url, {"action": "match_to_registered", "_selected_action": [prov.pk, reg.pk]}, follow=True)
    assert f"identificado como Bia Lima ({reg.federation_id})" in page.content.decode()
    assert copy_of(m).player_b_id == reg.pk and Player.objects.get(pk=prov.pk).matched_to_id == reg.pk


def test_a_federation_answering_500_or_too_slowly_loses_nothing(venue_role):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    release = threading.Event()

    class Broken(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            if self.path.startswith("/slow"):
                release.wait(5)  # past the sender's time-out
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"<h1>Server Error</h1>")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Broken)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        played()
        venue_role.FEDERATION_URL = f"http://127.0.0.1:{server.server_port}"
        with pytest.raises(sync.SendError) as e:
            sync.send_once()
        assert e.value.status == 500
        venue_role.FEDERATION_URL += "/slow"
        venue_role.FEDERATION_TIMEOUT = 0.3
        with pytest.raises(sync.SendError) as e:
            sync.send_once()
        assert e.value.status == 0
        assert OutboxRecord.objects.filter(delivered_at__isnull=True).count() == 5
    finally:
        release.set()
        server.shutdown()


def test_a_pulled_seasons_ranking_seeds_the_venues_draw(db):
    from scoreboard.core import seasons

    registry = {"players": [{"federation_id": f"F{i}", "name": f"P{i}", "club": "C"} for i in range(1, 5)],
                "seasons": [{"id": 7, "name": "Temporada 2026", "ranking": [
                    {"federation_id": "F3", "position": 1}, {"federation_id": "F9", "position": 2},
                    {"federation_id": "F1", "position": 3}]}]}
    federation.apply_registry(registry)
    Player.objects.create(name="P3", club="C")  # an unregistered namesake: the registered one is ranked
    data = {"name": "Etapa", "players": [{"name": f"P{i}", "club": "C"} for i in (1, 2, 3, 4)],
            "seed_by_federation_season": 7}
    seeded = seasons.seed_players(data)
    assert [p["name"] for p in seeded["players"]] == ["P3", "P1", "P2", "P4"]
    assert "seed_by_federation_season" not in seeded
    with pytest.raises(seasons.TournamentError) as e:
        seasons.seed_players({**data, "seed_by_federation_season": 8})
    assert e.value.code == "unknown_season" and "federation pull" in e.value.en


def test_a_walkover_and_a_correction_reach_the_federations_copy(venue_role, token, client):
    from scoreboard.core import competitions

    wo = create_match("Caio", "Duda", first_breaker=0).match
    operations.walkover(wo, [0], "cmd", "não compareceu")
    comp = competitions.create_competition({"name": "Etapa 2", "reds": 6, "draw_seed": 1,
                                            "players": ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"],
                                            "tables": ["Mesa 1", "Mesa 2"],
                                            "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    fx = comp.fixtures.get(number=1)
    operations.start_match(fx.match, 0, "cmd")
    for e in FRAME:
        log.append_event(fx.match_id, e)
    competitions.correct(comp, 1, {"winner": 0, "frames": [1, 0]}, "súmula errada", "cmd")
    assert post(client, token, outbox()) == (200, {"acked": [r["key"] for r in outbox()]})
    fwo = copy_of(wo)
    assert fwo.walkover == {"absent": [0], "winner": 1}
    assert MatchRecord.objects.get(match=fwo, kind="walkover").reason == "não compareceu"
    fm = copy_of(fx.match)
    assert fm.correction["winner"] == 0 and fm.correction["frames"] == [1, 0]
    assert fm.seq == fx.match.__class__.objects.get(pk=fx.match_id).seq
    ffx = comp.__class__.objects.get(origin_uid=str(comp.pk)).fixtures.get(number=1)
    assert ffx.match_id == fm.pk and ffx.correction == comp.fixtures.get(number=1).correction
