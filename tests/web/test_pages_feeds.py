"""Feeds for broadcast tools (issue 11): a match's and a table's current state as flat JSON, XML
(vMix data sources) and plain-text values (OBS text sources); read-only, cacheable by seq (ETag,
304), CORS for GET; values equal the API's state."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import live_server

from scoreboard.core.matches import new_match
from scoreboard.core.models import Table
from scoreboard.pages import feeds

from ops_helpers import CONFIG, LOG, THREE_FRAMES, THREE_FRAMES_CONFIG, fresh_engines, fresh_stats, play  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def on_table(db):
    return play(new_match(CONFIG, table="Mesa 3", competition="Aberto de Santos"), LOG[:6])


def test_match_feed_json_equals_the_api_state(client, on_table):
    m = on_table
    api = client.get(f"/api/matches/{m.pk}/").json()
    s = api["state"]
    r = client.get(f"/matches/{m.pk}/feed.json")
    assert r.status_code == 200 and r["Content-Type"] == "application/json"
    f = r.json()
    assert list(f) == list(feeds.FIELDS)
    assert all(not isinstance(v, (dict, list)) for v in f.values())  # flat
    assert (f["match_id"], f["seq"]) == (m.pk, api["seq"]) == (m.pk, 6)
    assert (f["score_a"], f["score_b"]) == tuple(s["scores"]) == (20, 0)
    assert (f["frames_a"], f["frames_b"]) == tuple(s["frames"]) == (0, 0)
    assert f["break"] == s["break"] and f["points_remaining"] == s["points_remaining"]
    assert f["snookers_required"] == s["snookers_required"] and f["reds_remaining"] == s["reds_remaining"]
    assert f["phase"] == s["phase"] == "decision" and f["phase_label"] == "aguardando a decisão do beneficiado"
    assert f["striker"] == "Ana Souza" and f["at_table"] == "a"  # the beneficiary chooses
    assert (f["last_penalty_points"], f["last_penalty_to"]) == (5, "Ana Souza")
    assert f["last_action"].startswith("Falta de Bia Lima: 5 pontos para Ana Souza (Art. 40)")
    assert f["table"] == "Mesa 3" and f["competition"] == "Aberto de Santos" and f["difference"] == 20
    assert f["best_of"] == 1 and f["reds"] == 6


def test_feed_in_english_and_ball_names(client, on_table):
    m = play(on_table, [{"type": "decision", "choice": "play"}])
    f = client.get(f"/matches/{m.pk}/feed.json?lang=en").json()
    assert f["phase_label"] == "in play" and f["ball_on"] == "red"
    assert f["last_action"].startswith("Ana Souza plays")
    assert client.get(f"/matches/{m.pk}/feed/ball_on.txt").content.decode() == "vermelha"


def test_xml_is_the_same_record(client, on_table):
    m = on_table
    r = client.get(f"/matches/{m.pk}/feed.xml")
    assert r.status_code == 200 and r["Content-Type"] == "application/xml; charset=utf-8"
    root = ET.fromstring(r.content)
    assert root.tag == "sinuca" and [c.tag for c in root] == list(feeds.FIELDS)
    j = client.get(f"/matches/{m.pk}/feed.json").json()
    assert {c.tag: c.text or "" for c in root} == {k: feeds.as_text(v) for k, v in j.items()}
    assert root.findtext("score_a") == "20" and root.findtext("player_b") == "Bia Lima"


def test_text_values_for_obs(client, on_table):
    m = on_table
    t = Table.objects.get(name="Mesa 3")
    for url in (f"/matches/{m.pk}/feed/score_a.txt", f"/tables/{t.pk}/feed/score_a.txt"):
        r = client.get(url)
        assert r.status_code == 200 and r["Content-Type"] == "text/plain; charset=utf-8"
        assert r.content == b"20"
    assert client.get(f"/tables/{t.pk}/feed/player_b.txt").content.decode() == "Bia Lima"
    assert client.get(f"/tables/{t.pk}/feed/free_ball.txt").content == b"0"


def test_table_feed_follows_the_table_and_an_empty_table_has_every_field(client, on_table):
    t = Table.objects.get(name="Mesa 3")
    f = client.get(f"/tables/{t.pk}/feed.json").json()
    assert f["match_id"] == on_table.pk and f["score_a"] == 20
    empty = Table.objects.create(name="Mesa 9")
    f = client.get(f"/tables/{empty.pk}/feed.json").json()
    assert list(f) == list(feeds.FIELDS) and f["match_id"] is None and f["table"] == "Mesa 9"
    assert client.get(f"/tables/{empty.pk}/feed/score_a.txt").content == b""


def test_cacheable_by_seq_etag_and_cors(client, on_table):
    m = on_table
    r = client.get(f"/matches/{m.pk}/feed.json")
    etag = r["ETag"]
    assert etag.startswith('"') and r["Cache-Control"] == "no-cache"
    assert r["Access-Control-Allow-Origin"] == "*"
    again = client.get(f"/matches/{m.pk}/feed.json", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    play(m, [{"type": "decision", "choice": "play"}])
    fresh = client.get(f"/matches/{m.pk}/feed.json", HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200 and fresh["ETag"] != etag and fresh.json()["seq"] == 7
    pre = client.options(f"/matches/{m.pk}/feed.json", HTTP_ORIGIN="https://obs.example",
                         HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert pre.status_code == 204 and pre["Access-Control-Allow-Origin"] == "*"
    assert "GET" in pre["Access-Control-Allow-Methods"]


def test_read_only_and_bad_input(client, on_table):
    m = on_table
    r = client.post(f"/matches/{m.pk}/feed.json", {})
    assert r.status_code == 405
    r = client.get(f"/matches/{m.pk}/feed/nope.txt")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_field"
    assert "Campo desconhecido" in r.json()["error"]["message"] and "Unknown field" in r.json()["error"]["message"]
    r = client.get("/matches/999999/feed.json")
    assert r.status_code == 404 and "não encontrado" in r.json()["error"]["message"]
    assert client.get("/tables/999999/feed.xml").status_code == 404
    assert client.get(f"/api/matches/{m.pk}/").json()["seq"] == 6  # nothing changed


def test_feed_reads_take_a_read_slot(client, on_table, settings):
    """The feeds share the anonymous read bound: with no slot free they answer 503 busy."""
    from scoreboard.core import limits

    settings.READ_SLOTS, settings.READ_WAIT = 1, 0.05
    live_server.forget_slots(limits.READS)
    try:
        with limits.READS.slot():
            r = client.get(f"/matches/{on_table.pk}/feed.json")
        assert r.status_code == 503 and r["Retry-After"]
    finally:
        live_server.forget_slots(limits.READS)


def test_finished_match_feed(client):
    m = play(new_match(THREE_FRAMES_CONFIG, table="Mesa 4"), THREE_FRAMES)
    f = client.get(f"/matches/{m.pk}/feed.json").json()
    assert (f["frames_a"], f["frames_b"]) == (2, 1) and f["match_winner"] == "Ana Souza"
    assert f["phase"] == "match_over" and f["highest_break_a"] == 51 and f["highest_break_b"] == 24
    assert f["match_result"] == "frames" and "54.1" in f["match_result_label"]


def test_the_display_guide_lists_the_table_feeds(client, on_table):
    t = Table.objects.get(name="Mesa 3")
    html = client.get("/display/").content.decode()
    for path in (f"/tables/{t.pk}/feed.json", f"/tables/{t.pk}/feed.xml", f"/tables/{t.pk}/feed/score_a.txt"):
        assert f'<a href="{path}">' in html
    assert "Data for vMix and OBS" in client.get("/display/?lang=en").content.decode()


def test_etag_per_format_and_moves_when_a_name_changes(client, on_table):
    """Issue 18: one ETag per format and field, and renaming a player (no event) changes it."""
    from scoreboard.core.models import Player

    m = on_table
    tags = {u: client.get(u)["ETag"] for u in (f"/matches/{m.pk}/feed.json", f"/matches/{m.pk}/feed.xml",
                                                f"/matches/{m.pk}/feed/player_a.txt",
                                                f"/matches/{m.pk}/feed/score_a.txt")}
    assert len(set(tags.values())) == 4
    Player.objects.filter(pk=m.player_a_id).update(name="Ana Souza Lima", club="Clube Paulistano")
    from scoreboard.core.models import Match

    Match.objects.filter(pk=m.pk).update(referee_name="Rui Costa")
    r = client.get(f"/matches/{m.pk}/feed.json", HTTP_IF_NONE_MATCH=tags[f"/matches/{m.pk}/feed.json"])
    assert r.status_code == 200 and r["ETag"] != tags[f"/matches/{m.pk}/feed.json"]
    f = r.json()
    assert (f["club_a"], f["referee"], f["flag_b"], f["photo_a"]) == ("Clube Paulistano", "Rui Costa", "", "")
    assert f["table_label"] == "Mesa 3" and f["frames_history"] == ""
    assert client.get(f"/matches/{m.pk}/feed.json?lang=en").json()["table_label"] == "Table 3"


def test_the_venue_feed_has_every_table(client, on_table):
    from scoreboard.core.models import Table

    Table.objects.create(name="Mesa 9")
    r = client.get("/tables/feed.json")
    assert r.status_code == 200
    rows = r.json()["tables"]
    assert [(t["table"], t["score_a"]) for t in rows] == [("Mesa 3", 20), ("Mesa 9", None)]
    xml = client.get("/tables/feed.xml")
    root = ET.fromstring(xml.content)
    assert [t.find("table").text for t in root.findall("table")] == ["Mesa 3", "Mesa 9"]
    assert xml["ETag"] != r["ETag"]


def test_photos_in_the_feeds_are_whole_urls_a_broadcast_tool_can_load(client, on_table, settings):
    """Found by a tryout: ``photo_a.txt`` answered ``/media/players/photo.jpg``, which vMix and
    OBS cannot load (they know nothing of the page's address)."""
    from scoreboard.core.models import Player

    m = on_table
    Player.objects.filter(pk=m.player_a_id).update(photo="players/ana.jpg")
    want = f"http://testserver{settings.MEDIA_URL}players/ana.jpg"
    assert client.get(f"/matches/{m.pk}/feed.json").json()["photo_a"] == want
    assert client.get(f"/matches/{m.pk}/feed/photo_a.txt").content.decode() == want
    assert f"<photo_a>{want}</photo_a>" in client.get(f"/matches/{m.pk}/feed.xml").content.decode()
    assert client.get(f"/matches/{m.pk}/feed/photo_b.txt").content.decode() == ""  # none: empty
    venue = client.get("/tables/feed.json").json()["tables"]
    assert [t["photo_a"] for t in venue if t["match_id"] == m.pk] == [want]
