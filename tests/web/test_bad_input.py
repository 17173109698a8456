"""Bad input: every malformed API request gets its exact 4xx (a JSON error in Portuguese and
English) and stores nothing; the tablet's forms get their exact answer (a 400 message fragment, the
engine's 422, or the foul its readable fields describe); a spectator's websocket message closes it;
fuzzers over the API never see a 5xx and the log only grows on 201."""
from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from hypothesis import HealthCheck, event, given, settings as hsettings, strategies as st

import sinuca
from scoreboard.core import log
from scoreboard.api import MAX_BODY
from scoreboard.core.matches import create_match
from scoreboard.core.models import Event

pytestmark = pytest.mark.django_db

RED = {"type": "pot", "balls": [1]}


def events_url(mid: int) -> str:
    return f"/api/matches/{mid}/events/"


def post_raw(client, mid, raw, content_type="application/json", **headers):
    return client.post(events_url(mid), data=raw, content_type=content_type, **headers)


def assert_error(resp, status: int, code: str) -> dict:
    """A JSON error body ``{"error": {"code", "message"}}`` with "pt / en" in the message."""
    assert resp.status_code == status, (resp.status_code, resp.content[:300])
    assert resp["Content-Type"] == "application/json"
    err = resp.json()["error"]
    assert set(err) == {"code", "message"} and " / " in err["message"]
    assert err["code"] == code
    return err


@pytest.mark.parametrize("raw", [
    b"{not json", b'{"event": ', b"\xff\xfe\x00", b"", b"NaN-ish", b'{"event": {"type": "pot"}',
])
def test_malformed_json_is_400_and_stores_nothing(client, created, auth, raw):
    assert_error(post_raw(client, created.match.pk, raw, **auth), 400, "bad_request")
    assert Event.objects.count() == 0


@pytest.mark.parametrize("body", [[], [RED], "pot", 1, 1.5, True, None, {"evento": RED}, {}])
def test_a_body_that_is_not_an_object_with_event_is_400(client, created, auth, body):
    assert_error(post_raw(client, created.match.pk, json.dumps(body), **auth), 400, "bad_request")
    assert Event.objects.count() == 0


@pytest.mark.parametrize("extra", [
    {"expected_seq": "0"}, {"expected_seq": 0.0}, {"expected_seq": -1}, {"expected_seq": True},
    {"expected_seq": [0]}, {"key": 5}, {"key": ""}, {"key": "x" * 101}, {"key": ["k"]},
    {"key": "nul\x00byte"}, {"key": "line\nbreak"},
])
def test_wrong_types_of_expected_seq_or_key_are_400(client, created, auth, extra):
    assert_error(post_raw(client, created.match.pk, json.dumps({"event": RED, **extra}), **auth),
                 400, "bad_request")
    assert Event.objects.count() == 0


@pytest.mark.parametrize("event", [
    {"type": "teleport"}, {"type": "pot", "balls": ["1"]}, {"type": "pot", "balls": [1.0]},
    {"type": "pot", "balls": [True]}, {"type": "pot", "balls": 1}, {"type": "pot", "balls": [8]},
    {"type": "pot", "balls": [1], "note": "extra field"}, {"type": "no_pot", "safety": "yes"},
    {"type": "foul", "kind": "nonsense"}, {"type": "decision", "choice": "run"},
    {"type": None}, {"type": ["pot"]}, {"type": "x\x00"}, "pot", [1], 7, None, {},
])
def test_unknown_or_ill_typed_events_are_422_invalid_event(client, created, auth, event):
    assert_error(post_raw(client, created.match.pk, json.dumps({"event": event}), **auth), 422, "invalid_event")
    assert Event.objects.count() == 0


def test_deeply_nested_json_is_400_not_a_crash(client, created, auth):
    raw = b'{"event": ' + b"[" * 20000 + b"]" * 20000 + b"}"
    assert len(raw) < MAX_BODY
    assert_error(post_raw(client, created.match.pk, raw, **auth), 400, "bad_request")
    assert Event.objects.count() == 0


def test_a_huge_body_is_413_and_stores_nothing(client, created, auth):
    raw = json.dumps({"event": RED, "pad": "x" * (MAX_BODY + 10)}).encode()
    assert_error(post_raw(client, created.match.pk, raw, **auth), 413, "too_large")
    # beyond Django's own cap (DATA_UPLOAD_MAX_MEMORY_SIZE) it is still a JSON 413
    raw = b'{"event": {"type": "pot", "balls": [1]}, "pad": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    assert_error(post_raw(client, created.match.pk, raw, **auth), 413, "too_large")
    assert Event.objects.count() == 0


def test_the_size_cap_does_not_need_a_token(client, created):
    """An anonymous flood is refused before its body is read or parsed: 413, not 401."""
    raw = b"x" * (MAX_BODY + 1)
    assert_error(post_raw(client, created.match.pk, raw), 413, "too_large")
    assert Event.objects.count() == 0


def test_events_for_another_match_are_403(client, created, auth):
    other = create_match("C", "D", first_breaker=0)
    assert_error(post_raw(client, other.match.pk, json.dumps({"event": RED}), **auth), 403, "forbidden")
    assert Event.objects.count() == 0


def test_a_tablet_session_of_one_match_cannot_tap_on_another(referee_client, created):
    other = create_match("C", "D", first_breaker=0)
    r = referee_client.post(f"/matches/{other.match.pk}/referee/event/", {"event": json.dumps(RED)})
    assert r.status_code == 403
    r = referee_client.post(f"/matches/{other.match.pk}/referee/foul/submit/", {"ball": "1"})
    assert r.status_code == 403
    assert Event.objects.count() == 0


def test_unknown_match_and_wrong_methods_are_json_4xx(client, created, auth):
    mid = created.match.pk
    assert_error(client.get("/api/matches/999999/"), 404, "not_found")
    assert_error(client.get("/api/matches/999999/events/"), 404, "not_found")
    assert_error(post_raw(client, 999999, json.dumps({"event": RED}), **auth), 404, "not_found")
    assert_error(client.get(f"/api/matches/{10**30}/"), 404, "not_found")  # beyond any integer column
    assert_error(client.delete(events_url(mid), **auth), 405, "method_not_allowed")
    assert_error(client.put(events_url(mid), data="{}", content_type="application/json", **auth),
                 405, "method_not_allowed")
    assert_error(client.post(f"/api/matches/{mid}/"), 405, "method_not_allowed")
    assert Event.objects.count() == 0


@pytest.mark.parametrize("path", ["tv", "overlay", "referee", "live/tv"])
def test_pages_of_an_out_of_range_match_id_are_404(client, db, path):
    assert client.get(f"/matches/{10**30}/{path}/").status_code == 404


@pytest.mark.parametrize("path", ["/competitions/999/", "/competitions/999/players/99/", "/matches/999/",
                                  "/tables/99/tv/", "/tables/99/overlay/", "/tables/99/graphics/",
                                  "/no/such/page/"])
def test_a_public_page_not_found_says_so_in_portuguese_and_english(client, db, path):
    """Found by a tryout: these answered Django's "Not Found. The requested resource was not
    found on this server." in English only, whatever the language asked for."""
    r = client.get(path, HTTP_ACCEPT_LANGUAGE="pt-BR")
    page = r.content.decode()
    assert r.status_code == 404 and r["Content-Type"].startswith("text/html")
    assert "Página não encontrada / <span lang=\"en\">Page not found</span>" in page
    assert "o jogo, a mesa, a competição ou o jogador pode ter outro número" in page
    assert "the match, table, competition or player may have another number" in page
    assert '<a href="/">' in page and "The requested resource" not in page


BAD_TAP = "Toque inválido / Invalid tap"


@pytest.mark.parametrize("fields, message", [
    pytest.param({"event": "[" * 5000 + "]" * 5000}, "Evento inválido / Invalid event", id="deeply-nested-event"),
    pytest.param({"event": "{}", "expected_seq": "²"}, BAD_TAP, id="superscript-seq"),
    pytest.param({"event": "{}", "expected_seq": "-1"}, BAD_TAP, id="negative-seq"),
    pytest.param({"event": json.dumps(RED), "key": "a\x00b"}, BAD_TAP, id="nul-in-key"),
    pytest.param({"event": json.dumps(RED), "expected_seq": "9" * 40}, BAD_TAP, id="40-digit-seq"),
])
def test_bad_tablet_form_fields_are_400_and_store_nothing(referee_client, created, fields, message):
    """The tablet gets its message fragment (HTML for htmx), not JSON."""
    r = referee_client.post(f"/matches/{created.match.pk}/referee/event/", fields)
    assert r.status_code == 400, r.status_code
    assert r["Content-Type"] == "text/html; charset=utf-8"
    assert r.content.decode() == f'<div id="ref-msg" class="msg msg-error" role="status">{message}</div>'
    assert Event.objects.count() == 0


def bad_field(name: str) -> str:
    return (f'<div id="ref-msg" class="msg msg-error" role="status">Campo inválido no formulário de '
            f"falta: {name} (número de 0 a 999999999) / Invalid field in the foul form: {name} "
            f"(a number from 0 to 999999999)</div>")


@pytest.mark.parametrize("fields, name", [
    # a number in other digits than ASCII is not read as absent any more (ball=4² stored a plain
    # 4-point foul): the tablet is told which field is wrong, in Portuguese and English
    pytest.param({"ball": "4²"}, "ball", id="4-superscript-2-ball"),
    pytest.param({"ball": "²"}, "ball", id="superscript-ball"),
    pytest.param({"potted": ["٣"]}, "potted", id="arabic-indic-potted"),
    pytest.param({"potted": ["2", "x"]}, "potted", id="letter-in-potted"),
    pytest.param({"potted_reds": "¹"}, "potted_reds", id="superscript-reds"),
    pytest.param({"nominated": "-1"}, "nominated", id="negative-nominated"),
    pytest.param({"free_ball": "1e3"}, "free_ball", id="exponent-free-ball"),
    pytest.param({"player": "0x1"}, "player", id="hex-player"),
])
def test_invalid_foul_dialog_fields_are_400_with_the_field_and_store_nothing(referee_client, created,
                                                                             fields, name):
    mid = created.match.pk
    for path in ("preview", "submit"):
        r = referee_client.post(f"/matches/{mid}/referee/foul/{path}/", fields)
        assert (r.status_code, r.content.decode()) == (400, bad_field(name)), path
    assert Event.objects.count() == 0


@pytest.mark.parametrize("fields, submitted, stored", [
    # empty number fields are absent: the plain foul
    pytest.param({"ball": "", "potted_reds": " ", "potted": [""]}, 200, [{"type": "foul"}], id="empty-fields"),
    pytest.param({"ball": " 5 "}, 200, [{"type": "foul", "ball": 5}], id="spaces-around-5"),
    # values the engine refuses: 422 with its reason, nothing stored
    pytest.param({"player": "7"}, 422, [], id="player-7"),
    pytest.param({"potted_reds": "999999999"}, 422, [], id="more-reds-than-the-table"),
    pytest.param({"kind": "x" * 5000}, 422, [], id="unknown-5000-char-kind"),
])
def test_foul_dialog_fields_empty_are_absent_and_refused_values_get_the_engines_reason(referee_client, created, fields, submitted, stored):
    """The preview always answers (200, with the engine's reason as its text when refused); the
    submit either records the foul the readable fields describe or is refused; never a 5xx."""
    mid = created.match.pk
    r = referee_client.post(f"/matches/{mid}/referee/foul/preview/", fields)
    assert r.status_code == 200
    r = referee_client.post(f"/matches/{mid}/referee/foul/submit/", fields)
    assert r.status_code == submitted
    assert list(Event.objects.values_list("event", flat=True)) == stored


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["feed/", "?view=tv", "?view=overlay"])
@pytest.mark.pg
async def test_a_websocket_message_from_a_spectator_closes_it_and_stores_nothing(path):
    from scoreboard.asgi import application

    mid = (await sync_to_async(create_match)("Ana", "Bia", first_breaker=0)).match.pk
    for payload in (json.dumps({"event": RED, "expected_seq": 0}), "garbage", b"\x00\x01"):
        comm = WebsocketCommunicator(application, f"/ws/matches/{mid}/{path}",
                                     headers=[(b"origin", b"http://127.0.0.1")])
        ok, _ = await comm.connect(timeout=5)
        assert ok
        await comm.receive_output(timeout=5)  # the state on connect
        if isinstance(payload, bytes):
            await comm.send_to(bytes_data=payload)
        else:
            await comm.send_to(text_data=payload)
        out = await comm.receive_output(timeout=5)
        assert out["type"] == "websocket.close" and out["code"] == 4400
        await comm.wait()
    assert await sync_to_async(Event.objects.filter(match_id=mid).count)() == 0


# ---- the fuzzer ------------------------------------------------------------------------------

JSON_LEAF = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=20)
ANY_JSON = st.recursive(JSON_LEAF, lambda kids: st.lists(kids, max_size=4)
                        | st.dictionaries(st.text(max_size=10), kids, max_size=4), max_leaves=12)
BALLS = st.lists(st.integers(0, 8), min_size=0, max_size=4)
PLAUSIBLE_EVENT = st.one_of(
    st.builds(lambda b: {"type": "pot", "balls": b}, BALLS),
    st.builds(lambda b, fb: {"type": "pot", "balls": [fb], "free_ball": fb}, BALLS, st.integers(1, 7)),
    st.just({"type": "no_pot"}), st.just({"type": "no_pot", "safety": True}), st.just({"type": "undo"}),
    st.builds(lambda c: {"type": "decision", "choice": c}, st.sampled_from(["play", "pass", "retorno", "x"])),
    st.builds(lambda ball, snk, ret, pl: {"type": "foul", "ball": ball, "snooker": snk, "retorno": ret,
                                          "player": pl},
              st.integers(1, 7), st.booleans(), st.booleans(), st.integers(0, 1)),
    st.sampled_from([{"type": t} for t in sinuca.EVENT_TYPES]),
    st.fixed_dictionaries({"type": st.text(max_size=12)}),
    ANY_JSON,
)
KEYS = st.none() | st.sampled_from(["k1", "k2", "k3"]) | st.text(max_size=110) | ANY_JSON
SEQS = st.none() | st.integers(-3, 60) | ANY_JSON
PLAUSIBLE_BODY = st.fixed_dictionaries({"event": PLAUSIBLE_EVENT},
                                       optional={"expected_seq": SEQS, "key": KEYS, "extra": ANY_JSON})
BODY = st.one_of(
    PLAUSIBLE_BODY.map(json.dumps), PLAUSIBLE_BODY.map(json.dumps), PLAUSIBLE_BODY.map(json.dumps),
    ANY_JSON.map(json.dumps),
    st.binary(max_size=200),
)
AUTH = st.sampled_from(["good"] * 5 + ["none", "bad", "other", "scheme", "garbage"])
CONTENT_TYPES = st.sampled_from(["application/json"] * 4 + ["text/plain", "application/x-www-form-urlencoded",
                                 "multipart/form-data; boundary=x", "application/json; charset=latin-1", ""])
POST_CODES = {201, 400, 401, 403, 404, 409, 413, 415, 422}


@pytest.fixture
def fuzz_match(db):
    a = create_match("Fuzz A", "Fuzz B", first_breaker=0)
    b = create_match("Other A", "Other B", first_breaker=1)
    return a, b


def check_log_replays(client, mid) -> None:
    served = client.get(f"/api/matches/{mid}/").json()
    log = client.get(events_url(mid)).json()["events"]
    assert [e["seq"] for e in log] == list(range(1, served["seq"] + 1))
    replayed = sinuca.Match.replay(served["config"], [e["event"] for e in log]).state()
    assert replayed == served["state"]


# 150 examples: each class of body (plausible events, any JSON, raw bytes), of credential and of
# content type comes dozens of times, and every status the endpoint answers with many times over;
# an example is three requests through the whole stack (the post and the two reads of the replay
# check), and 250 were 13 s of the suite's time.
@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(body=BODY, who=AUTH, ctype=CONTENT_TYPES, ua=st.text(st.characters(min_codepoint=32, max_codepoint=126),
                                                            max_size=40))
def test_fuzz_post_events_never_5xx_and_log_grows_only_on_201(fuzz_match, body, who, ctype, ua):
    created, other = fuzz_match
    mid = created.match.pk
    client = Client()
    headers = {"HTTP_USER_AGENT": ua}
    headers["HTTP_AUTHORIZATION"] = {"good": f"Bearer {created.token}", "none": None, "bad": "Bearer x" + ua,
                                     "other": f"Bearer {other.token}", "scheme": f"Basic {created.token}",
                                     "garbage": ua}[who]
    if headers["HTTP_AUTHORIZATION"] is None:
        del headers["HTTP_AUTHORIZATION"]
    before = Event.objects.filter(match_id=mid).count()
    raw = body.encode() if isinstance(body, str) else body
    # generic(): post() would re-encode the bytes for a charset named in the Content-Type
    r = client.generic("POST", events_url(mid), data=raw, content_type=ctype, **headers)
    assert r.status_code in POST_CODES, (r.status_code, r.content[:300])
    event(f"status {r.status_code}")
    after = Event.objects.filter(match_id=mid).count()
    data = r.json()
    if r.status_code == 201:
        assert after in (before, before + 1)  # a repeated key answers 201 and stores nothing
        assert (after == before) == (r.get("Idempotent-Replayed") == "true")
        assert set(data) == {"seq", "state", "description"}
    else:
        assert after == before
        assert set(data["error"]) >= {"code", "message"}
    if who != "good":
        assert r.status_code in (401, 403, 413), r.status_code
    check_log_replays(client, mid)
    assert Event.objects.filter(match_id=other.match.pk).count() == 0


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["", "events/"]), mid=st.one_of(st.just(None), st.integers(0, 10**25)),
       query=st.dictionaries(st.text(max_size=8), st.text(max_size=20), max_size=3),
       method=st.sampled_from(["get", "head", "options", "delete", "put", "patch"]))
def test_fuzz_reads_never_5xx(fuzz_match, which, mid, query, method):
    created, _ = fuzz_match
    client = Client()
    target = created.match.pk if mid is None else mid
    r = getattr(client, method)(f"/api/matches/{target}/{which}", query if method in ("get", "head") else None)
    assert r.status_code in {200, 404, 405}, r.status_code
    if method == "get" and r.status_code == 200:
        assert r.json()
    if method == "get":
        assert r["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("path", ["referee/event/", "referee/foul/preview/", "referee/art28/"])
def test_a_get_of_a_tablet_post_path_is_405_with_a_bilingual_message(client, created, path):
    """Django's ``require_POST`` answers an empty 405; every other error says what went wrong
    in Portuguese and English, so this one does too (the methods allowed named)."""
    mid = created.match.pk
    r = client.get(f"/matches/{mid}/{path}")
    body = r.content.decode()
    assert (r.status_code, r["Allow"]) == (405, "POST")
    assert r["Content-Type"] == "text/plain; charset=utf-8"
    assert "Método não permitido" in body and "Method not allowed" in body and "POST" in body
    assert client.head(f"/matches/{mid}/{path}").content == b""
    assert client.get(f"/api/matches/{mid}/").json()["seq"] == 0  # nothing changed
