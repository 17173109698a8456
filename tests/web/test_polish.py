"""What a fresh tester found on the merged app (follow-up of issues 10 and 11), server side:
errors in Portuguese and English JSON, the feed agreeing with the TV on the free ball and the
aggravated fouls, undone events marked on the tablet's log and the TV, a huge photo refused as too
large, the display guide's values and control endpoint."""
from __future__ import annotations

import io
import json
import struct
import zlib

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from scoreboard.core.credentials import issue_overlay_token
from scoreboard.core.matches import new_match
from scoreboard.core.models import Match, Player, Table

from ops_helpers import CONFIG, fresh_engines, play  # noqa: F401

pytestmark = pytest.mark.django_db

SNOOKER_FOUL = {"type": "foul", "ball": 1, "kind": "ball_on_not_hit_first", "snooker": True}


def control(c, url, data=None, token=None, form=False, **extra):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    if form:
        return c.post(url, data, content_type="application/x-www-form-urlencoded", **headers, **extra)
    return c.post(url, json.dumps(data) if data is not None else "", content_type="application/json",
                  **headers, **extra)


# -- 5: errors are JSON in Portuguese and English ------------------------------------------------

def test_a_post_to_a_feed_is_a_json_405_not_the_csrf_page(client):
    m = new_match(CONFIG, table="Mesa 1")
    for url in (f"/tables/{m.table_id}/feed.json", f"/matches/{m.pk}/feed.xml", f"/matches/{m.pk}/feed/seq.txt"):
        r = Client(enforce_csrf_checks=True).post(url, {})
        assert r.status_code == 405, url
        assert r.json()["error"] == {"code": "method_not_allowed", "message":
                                     "Método não permitido (somente leitura) / Method not allowed (read-only)"}
        assert r["Allow"] == "GET, HEAD, OPTIONS"


@pytest.mark.parametrize("url", ["/api/tables/abc/overlay/", "/api/nothing/", "/tablet/engine/abc.zip",
                                 "/tables/1/feed.csv", "/tables/1/feed/", "/matches/abc/feed.json"])
def test_unknown_api_feed_and_engine_paths_answer_json_404(client, url):
    r = client.get(url)
    assert r.status_code == 404 and r["Content-Type"] == "application/json"
    assert r.json() == {"error": {"code": "not_found", "message": "Endereço não encontrado / Not found"}}


def test_a_page_path_still_gets_the_html_404(client):
    r = client.get("/nowhere/")
    assert r.status_code == 404 and r["Content-Type"].startswith("text/html")


def test_the_control_endpoint_takes_a_form_body_like_curl_d(created):
    url = f"/api/matches/{created.match.pk}/overlay/"
    r = control(Client(), url, "bar=hide", token=created.token, form=True)
    assert r.status_code == 200 and r.json() == {"match": created.match.pk, "bar": False, "stats": False, "words": False, "ver": 1}


def test_a_garbage_token_is_401_invalid_token_and_anothers_403(created):
    url = f"/api/matches/{created.match.pk}/overlay/"
    r = control(Client(), url, {"bar": "hide"}, token="garbage")
    assert r.status_code == 401 and r["WWW-Authenticate"].startswith("Bearer")
    assert r.json()["error"] == {"code": "unauthorized", "message": "Token inválido / Invalid token"}
    table = Table.objects.create(name="Mesa 9")
    assert control(Client(), url, {"bar": "hide"}, token=issue_overlay_token(table)).status_code == 403
    assert Match.objects.get(pk=created.match.pk).overlay_ver == 0


def test_the_control_endpoint_answers_a_browsers_preflight(created):
    r = Client().options(f"/api/matches/{created.match.pk}/overlay/",
                         HTTP_ORIGIN="http://companion.local", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
                         HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type")
    assert r.status_code == 204
    assert r["Access-Control-Allow-Origin"] == "*"
    assert r["Access-Control-Allow-Methods"] == "GET, POST, OPTIONS"
    assert r["Access-Control-Allow-Headers"] == "Authorization, Content-Type"
    r = control(Client(), f"/api/matches/{created.match.pk}/overlay/", {"bar": "hide"}, token=created.token)
    assert r["Access-Control-Allow-Origin"] == "*"


def test_query_and_body_that_disagree_are_400_and_a_request_that_changes_nothing_keeps_ver(created):
    url = f"/api/matches/{created.match.pk}/overlay/"
    c = Client()
    r = control(c, url + "?bar=show", {"bar": "hide"}, token=created.token)
    assert r.status_code == 400
    assert r.json()["error"]["message"] == ("bar dado na URL e no corpo com valores diferentes / "
                                            "bar given in the URL and the body with different values")
    assert Match.objects.get(pk=created.match.pk).overlay_ver == 0
    r = control(c, url, {"bar": "show"}, token=created.token)  # it is shown already
    assert r.status_code == 200 and r.json()["ver"] == 0
    assert control(c, url + "?bar=hide", {"bar": "hide"}, token=created.token).json()["ver"] == 1  # same value twice: fine
    assert control(c, url, {"bar": "hide", "stats": "hide"}, token=created.token).json()["ver"] == 1


# -- 4: the feed agrees with the TV on the free ball; aggravated fouls are counted ---------------

def test_after_a_snooker_foul_the_feed_offers_the_free_ball_as_the_tv_does(client):
    m = play(new_match(CONFIG, table="Mesa 2"), [{"type": "no_pot"}, SNOOKER_FOUL])
    f = client.get(f"/matches/{m.pk}/feed.json").json()
    assert f["phase"] == "decision"
    assert f["free_ball"] is True
    assert f["decision_options"] == "play, pass"
    assert f["aggravated_fouls"] == 0
    assert "BOLA LIVRE" in client.get(f"/matches/{m.pk}/tv/").content.decode()
    assert client.get(f"/matches/{m.pk}/feed/free_ball.txt").content == b"1"


def test_an_aggravated_foul_is_counted_on_the_feed_and_the_tv(client):
    m = play(new_match(CONFIG, table="Mesa 2"), [{"type": "no_pot"}, {**SNOOKER_FOUL, "aggravated": True}])
    f = client.get(f"/matches/{m.pk}/feed.json").json()
    assert f["aggravated_fouls"] == 1
    assert f["decision_options"] == "play, pass"
    tv = client.get(f"/matches/{m.pk}/tv/").content.decode()
    assert "1ª FALTA AGRAVADA SEGUIDA (Art. 27)" in tv
    assert "AGGRAVATED FOUL No. 1 IN A ROW (Art. 27)" in client.get(f"/matches/{m.pk}/tv/?lang=en").content.decode()


# -- 3: undone events on the tablet's log and the TV's last action -------------------------------

def test_the_tablets_log_marks_the_undone_event_and_says_what_an_undo_took_back(created, referee_client):
    m = play(created.match, [{"type": "pot", "balls": [1]}, {"type": "foul", "ball": 7, "kind": "ball_on_not_hit_first"},
                             {"type": "undo"}])
    page = referee_client.get(f"/matches/{m.pk}/referee/").content.decode()
    log_html = page.split('class="ref-log"')[1].split("</ol>")[0]
    assert '<li class="undone"' in log_html
    assert ('<span class="seq">2</span> <em class="void">anulada</em> <s>Falta de Ana Souza: 7 pontos para Bia Lima'
            in log_html)
    assert '<span class="seq">3</span> Desfaz o lance 2: Falta de Ana Souza: 7 pontos para Bia Lima' in log_html
    assert '<li title="Ana Souza encaçapa a vermelha' in log_html or '<span class="seq">1</span>' in log_html
    tv = Client().get(f"/matches/{m.pk}/tv/").content.decode()
    last = tv.split('id="tv-last"')[1].split("</section>")[0]
    assert "Desfaz o lance 2: Falta de Ana Souza: 7 pontos para Bia Lima" in last
    tv_en = Client().get(f"/matches/{m.pk}/tv/?lang=en").content.decode()
    assert "Undoes entry 2: Foul by Ana Souza: 7 points to Bia Lima" in tv_en.split('id="tv-last"')[1]


def test_an_undo_far_back_is_paired_past_the_recent_window(created, referee_client):
    # two undos in a row take back 2 then 1; the log window reads further back for them
    events = [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}] + [{"type": "undo"}] * 2
    m = play(created.match, events)
    page = referee_client.get(f"/matches/{m.pk}/referee/").content.decode()
    log_html = page.split('class="ref-log"')[1].split("</ol>")[0]
    assert '<span class="seq">4</span> Desfaz o lance 1:' in log_html
    assert '<span class="seq">3</span> Desfaz o lance 2:' in log_html
    assert log_html.count('class="undone"') == 2


# -- 6: a huge photo is "too large", the display guide -------------------------------------------

def png_header_only(w: int, h: int) -> bytes:
    """A valid PNG of w×h (1-bit grey) whose pixel rows compress to almost nothing."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    comp = zlib.compressobj(9)
    row = b"\0" + b"\0" * ((w + 7) // 8)
    raw = b"".join(comp.compress(row) for _ in range(h)) + comp.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def test_a_30000_px_png_is_refused_as_too_large_saying_its_size():
    from scoreboard.admin import PhotoFormField

    data = png_header_only(30000, 30000)
    assert len(data) < 2 * 1024 * 1024
    with pytest.raises(ValidationError) as e:
        PhotoFormField().clean(SimpleUploadedFile("big.png", data, content_type="image/png"))
    assert e.value.messages == ["A foto tem 30000×30000 pixels; cada lado deve ter de 64 a 2000 pixels."]
    p = Player(name="Ana", photo=SimpleUploadedFile("big.png", data, content_type="image/png"))
    with pytest.raises(ValidationError) as e:
        p.full_clean()
    assert e.value.message_dict["photo"] == ["A foto tem 30000×30000 pixels; cada lado deve ter de 64 a 2000 pixels."]


def test_the_display_guide_lists_popup_values_whole_and_the_control_endpoint(client):
    m = new_match(CONFIG, table="Mesa 1")
    page = client.get("/display/").content.decode()
    assert ('<td class="values"><code>foul</code>, <code>retorno</code>, <code>free_ball</code>, '
            '<code>aggravated</code>, <code>break</code>, <code>max</code>, <code>frame</code>, '
            '<code>match</code> | <code>none</code></td>') in page
    assert "Controle do overlay (Stream Deck, Companion)" in page
    assert f'-d bar=hide http://testserver/api/tables/{m.table_id}/overlay/' in page
