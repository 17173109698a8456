"""``api.py``: the JSON API — every status code of the contract, idempotent keys, expected_seq,
the log, the match file download."""
from __future__ import annotations

import json

import pytest

import live_server

from scoreboard.core.models import Event

pytestmark = [pytest.mark.django_db, pytest.mark.pg]


def post(client, mid, body, **headers):
    return client.post(f"/api/matches/{mid}/events/", data=json.dumps(body),
                       content_type="application/json", **headers)


def test_a_new_match_has_seq_0_and_the_engine_state(client, created):
    r = client.get(f"/api/matches/{created.match.pk}/")
    assert r.status_code == 200
    body = r.json()
    assert body["id"] == created.match.pk and body["seq"] == 0
    assert body["config"]["players"] == ["Ana Souza", "Bia Lima"]
    assert body["state"]["phase"] == "play" and body["state"]["ball_on"] == [1]
    assert body["state"]["points_remaining"] == 147


def test_it_returns_404_for_an_unknown_match(client, db):
    assert client.get("/api/matches/999/").status_code == 404
    assert client.get("/api/matches/999/events/").status_code == 404


def test_first_event_gets_seq_1_and_201(client, created, auth):
    r = post(client, created.match.pk, {"event": {"type": "pot", "balls": [1]}, "expected_seq": 0}, **auth)
    assert r.status_code == 201
    body = r.json()
    assert body["seq"] == 1
    assert body["state"]["scores"] == [1, 0] and body["state"]["break"] == 1
    assert body["description"]["pt"] and body["description"]["en"]


def test_it_returns_401_without_a_token(client, created):
    r = post(client, created.match.pk, {"event": {"type": "pot", "balls": [1]}})
    assert r.status_code == 401
    assert r["WWW-Authenticate"] == 'Bearer realm="scoreboard"'
    assert Event.objects.count() == 0


def test_it_returns_403_for_a_wrong_token_or_another_matchs_token(client, created, auth):
    from scoreboard.core.matches import create_match

    r = post(client, created.match.pk, {"event": {"type": "pot", "balls": [1]}},
             HTTP_AUTHORIZATION="Bearer nope")
    assert r.status_code == 403
    other = create_match("C", "D", first_breaker=0)
    r = post(client, other.match.pk, {"event": {"type": "pot", "balls": [1]}}, **auth)
    assert r.status_code == 403
    assert Event.objects.count() == 0


def test_it_returns_422_with_the_rule_error(client, created, auth):
    r = post(client, created.match.pk, {"event": {"type": "pot", "balls": [5]}}, **auth)
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "illegal_pot"
    assert " / " in err["message"]  # Portuguese / English
    assert Event.objects.count() == 0


@pytest.mark.parametrize("event", [{"type": "teleport"}, "pot", [1], {"type": "pot"}])
def test_it_returns_422_invalid_event_for_malformed_events(client, created, auth, event):
    r = post(client, created.match.pk, {"event": event}, **auth)
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "invalid_event"
    assert Event.objects.count() == 0


@pytest.mark.parametrize("raw", [b"{not json", b"[]", b'{"evento": {}}', b'{"event": {}, "expected_seq": "1"}',
                                 b'{"event": {}, "key": 5}'])
def test_it_returns_400_for_a_body_that_is_not_the_expected_object(client, created, auth, raw):
    r = client.post(f"/api/matches/{created.match.pk}/events/", data=raw,
                    content_type="application/json", **auth)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "bad_request"
    assert Event.objects.count() == 0


def test_it_returns_409_with_the_current_seq_for_a_stale_expected_seq(client, created, auth):
    mid = created.match.pk
    assert post(client, mid, {"event": {"type": "pot", "balls": [1]}, "expected_seq": 0}, **auth).status_code == 201
    r = post(client, mid, {"event": {"type": "pot", "balls": [7]}, "expected_seq": 0}, **auth)
    assert r.status_code == 409
    assert r.json()["seq"] == 1
    assert Event.objects.count() == 1


def test_a_repeated_key_answers_the_first_answer_and_stores_nothing(client, created, auth):
    mid = created.match.pk
    first = post(client, mid, {"event": {"type": "pot", "balls": [1]}, "expected_seq": 0, "key": "k1"}, **auth)
    # the key is looked up before expected_seq: the retry of a tap is not a conflict
    again = post(client, mid, {"event": {"type": "pot", "balls": [1]}, "expected_seq": 0, "key": "k1"}, **auth)
    assert again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Event.objects.filter(match_id=mid).count() == 1


def test_undo_is_an_event_and_nothing_is_deleted(client, created, auth):
    mid = created.match.pk
    post(client, mid, {"event": {"type": "pot", "balls": [1]}}, **auth)
    r = post(client, mid, {"event": {"type": "undo"}}, **auth)
    assert r.status_code == 201 and r.json()["seq"] == 2
    assert r.json()["state"]["scores"] == [0, 0]
    log = client.get(f"/api/matches/{mid}/events/").json()["events"]
    assert [e["seq"] for e in log] == [1, 2]
    assert [e["event"]["type"] for e in log] == ["pot", "undo"]
    assert set(log[0]) == {"seq", "event", "at", "description"}


def test_nothing_to_undo_is_422(client, created, auth):
    r = post(client, created.match.pk, {"event": {"type": "undo"}}, **auth)
    assert r.status_code == 422 and r.json()["error"]["code"] == "nothing_to_undo"


def test_get_state_follows_the_log_after_the_cache_is_dropped(client, created, auth):
    from scoreboard.core import log

    mid = created.match.pk
    for ev in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"}):
        post(client, mid, {"event": ev}, **auth)
    cached = client.get(f"/api/matches/{mid}/").json()
    log.forget(mid)  # as another worker would: rebuild from the log
    rebuilt = client.get(f"/api/matches/{mid}/").json()
    assert cached == rebuilt
    assert rebuilt["seq"] == 3 and rebuilt["state"]["scores"] == [8, 0] and rebuilt["state"]["striker"] == 1


def test_export_download_names_the_file_and_an_unknown_match_is_404(client, created):
    m = created.match
    r = client.get(f"/api/matches/{m.pk}/export/?download=1")
    assert r.status_code == 200 and r["Content-Disposition"] == f'attachment; filename="match-{m.pk}.json"'
    assert client.get("/api/matches/999/export/").status_code == 404


def test_a_key_reused_with_another_event_is_422_key_reused_and_stores_nothing(client, created, auth):
    """The same key with a different body was answered as a replay of the first (201): the client
    believed its second event stored. The same key with the same event is still a replay."""
    mid = created.match.pk
    first = post(client, mid, {"event": {"type": "pot", "balls": [1]}, "key": "k-1"}, **auth)
    assert first.status_code == 201
    r = post(client, mid, {"event": {"type": "no_pot"}, "key": "k-1"}, **auth)
    assert r.status_code == 422 and "Idempotent-Replayed" not in r
    assert r.json() == {"error": {"code": "key_reused", "message":
                                  "Esta key já foi usada para outro evento (seq 1); use uma nova / "
                                  "This key was already used for another event (seq 1); use a new one"}}
    # the same event (keys in another order) is the idempotent replay it always was
    again = post(client, mid, {"key": "k-1", "event": {"balls": [1], "type": "pot"}}, **auth)
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert [e.event for e in Event.objects.all()] == [{"type": "pot", "balls": [1]}]


@pytest.mark.parametrize("path", ["", "events/", "export/"])
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_every_api_path_answers_a_wrong_method_with_json_405_even_with_csrf_checks(created, path, method):
    """A POST to /api/matches/<id>/ answered the CSRF middleware's HTML 403 page."""
    from django.test import Client

    if (path, method) == ("events/", "post"):
        return  # the one write of the API (bearer token; tested above)
    c = Client(enforce_csrf_checks=True)
    r = getattr(c, method)(f"/api/matches/{created.match.pk}/{path}", data="{}", content_type="application/json")
    assert (r.status_code, r["Content-Type"]) == (405, "application/json")
    assert r.json() == {"error": {"code": "method_not_allowed",
                                  "message": "Método não permitido / Method not allowed"}}
    assert r["Allow"] == ("GET, POST, HEAD" if path == "events/" else "GET, HEAD")  # HEAD is GET without the body


def test_the_live_stats_path_answers_a_post_with_json_405(settings):
    from django.test import Client

    settings.LIVE_STATS = True
    r = Client(enforce_csrf_checks=True).post("/api/live/")
    assert (r.status_code, r["Content-Type"], r.json()["error"]["code"]) == (405, "application/json",
                                                                            "method_not_allowed")


# -- the log in pages; load answers 503 busy in JSON (issue findings 1 and 5) -------------------

def _taps(client, created, auth, n: int) -> None:
    for i in range(n):  # a red then the black, again and again: 15 reds give 30 legal taps
        r = post(client, created.match.pk, {"event": {"type": "pot", "balls": [1 if i % 2 == 0 else 7]},
                                            "expected_seq": i}, **auth)
        assert r.status_code == 201, r.content


def test_the_log_comes_in_pages_with_a_next_link(client, created, auth):
    _taps(client, created, auth, 7)
    mid = created.match.pk
    url, pages = f"/api/matches/{mid}/events/?limit=3", []
    while url:
        body = client.get(url).json()
        pages.append([e["seq"] for e in body["events"]])
        url = body["next"]
    assert pages == [[1, 2, 3], [4, 5, 6], [7]]
    body = client.get(f"/api/matches/{mid}/events/?after=5").json()
    assert ([e["seq"] for e in body["events"]], body["after"], body["limit"], body["next"]) == ([6, 7], 5, 1000, None)
    first = client.get(f"/api/matches/{mid}/events/?limit=3").json()
    assert first["next"] == f"/api/matches/{mid}/events/?after=3&limit=3"
    assert client.get(f"/api/matches/{mid}/events/?limit=5000").json()["limit"] == 1000


@pytest.mark.parametrize("query", ["after=x", "after=-1", "limit=0", "limit=1.5"])
def test_bad_paging_parameters_are_a_json_400(client, created, query):
    r = client.get(f"/api/matches/{created.match.pk}/events/?{query}")
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_request")


def test_reads_beyond_the_reserved_share_wait_then_answer_a_json_503(client, created, auth, settings):
    """Anonymous reads hold at most READ_SLOTS connections; the next one waits READ_WAIT, then
    503 busy — while the referee's POST, which never takes a read slot, is stored."""
    from scoreboard.core import limits

    settings.READ_SLOTS, settings.READ_WAIT = 1, 0.05
    live_server.forget_slots(limits.READS)
    with limits.READS.slot():
        r = client.get(f"/api/matches/{created.match.pk}/events/")
        assert r.status_code == 503 and r["Retry-After"] == "2"
        assert r.json() == {"error": {"code": "busy", "message":
                                      "Servidor ocupado; tente de novo em instantes / Server busy; try again shortly"}}
        assert client.get(f"/api/matches/{created.match.pk}/").status_code == 503
        assert post(client, created.match.pk, {"event": {"type": "pot", "balls": [1]}}, **auth).status_code == 201
    assert client.get(f"/api/matches/{created.match.pk}/events/").status_code == 200


def test_no_pooled_connection_is_a_json_503_not_an_html_500(created, monkeypatch):
    """What 200 taps at once met: the database refusing clients. The API answers its JSON."""
    from django.db import OperationalError
    from django.test import Client
    from psycopg_pool import PoolTimeout

    from scoreboard.core import log

    def exhausted(*a, **k):
        raise OperationalError("couldn't get a connection after 10.00 sec") from PoolTimeout("timeout")

    monkeypatch.setattr(log, "snapshot", exhausted)
    r = Client(raise_request_exception=False).get(f"/api/matches/{created.match.pk}/")
    assert (r.status_code, r["Content-Type"], r.json()["error"]["code"], r["Retry-After"]) == \
        (503, "application/json", "busy", "2")
    monkeypatch.setattr(log, "snapshot", lambda *a: (_ for _ in ()).throw(
        OperationalError('FATAL: sorry, too many clients already')))
    assert Client(raise_request_exception=False).get(f"/api/matches/{created.match.pk}/").status_code == 503


def test_an_unexpected_api_failure_is_a_json_500(created, monkeypatch):
    from django.test import Client

    from scoreboard.core import log

    monkeypatch.setattr(log, "snapshot", lambda *a: 1 / 0)
    r = Client(raise_request_exception=False).get(f"/api/matches/{created.match.pk}/")
    assert (r.status_code, r.json()) == (500, {"error": {"code": "server_error", "message":
                                                         "Erro interno do servidor / Internal server error"}})


def test_anonymous_log_reads_are_limited_per_address_but_not_the_referee(client, created, auth, settings):
    settings.REPORT_RATE = "3/d"  # a day's window: none ends between the requests
    mid = created.match.pk
    got = [client.get(f"/api/matches/{mid}/events/", REMOTE_ADDR="10.9.8.7").status_code for _ in range(4)]
    assert got == [200, 200, 200, 429]
    r = client.get(f"/api/matches/{mid}/export/", REMOTE_ADDR="10.9.8.7")
    assert (r.status_code, r.json()["error"]["code"], r["Retry-After"]) == (429, "rate_limited", "60")
    assert client.get(f"/api/matches/{mid}/events/", REMOTE_ADDR="10.9.8.8").status_code == 200
    assert post(client, mid, {"event": {"type": "pot", "balls": [1]}}, REMOTE_ADDR="10.9.8.7",
                **auth).status_code == 201


def test_the_export_is_cached_per_seq(client, created, auth, monkeypatch):
    from scoreboard.reports import exports

    calls = []
    real = exports.export_document
    monkeypatch.setattr(exports, "export_document", lambda m: calls.append(m.seq) or real(m))
    mid = created.match.pk
    a = client.get(f"/api/matches/{mid}/export/").json()
    b = client.get(f"/api/matches/{mid}/export/").json()
    _taps(client, created, auth, 1)
    c = client.get(f"/api/matches/{mid}/export/").json()
    assert (calls, a == b, a["events"], c["events"]) == ([0, 1], True, [], [{"type": "pot", "balls": [1]}])
