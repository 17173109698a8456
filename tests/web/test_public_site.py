"""The federation's public site and JSON (``pages/public.py``, ``api.py``): players found by
name whatever the accents, a career and a head-to-head that say what the matches say, a season's
ranking with each point's etapa, 404s in Portuguese and English, and every page and JSON answer
cacheable (ETag, ``Cache-Control``, 304 on ``If-None-Match``)."""
from __future__ import annotations

import gzip

import pytest
from django.test import Client

from scoreboard.core import log
from scoreboard.core.matches import match_config, new_match
from scoreboard.core.models import Player

pytestmark = [pytest.mark.django_db]

CACHE = "public, max-age=10, stale-while-revalidate=60"


def play(a: Player, b: Player, winner: int, reds_blacks: int = 0, frames_to_win: int = 1):
    """A match of ``a`` against ``b``: the lot to ``winner``, who pots ``reds_blacks`` red + black
    pairs (8 points each), then the other concedes each frame."""
    m = new_match(match_config([a.name, b.name], reds=6, frames_to_win=frames_to_win), players=(a, b))
    log.append_event(m.pk, {"type": "lot", "player": winner})
    for frame in range(frames_to_win):
        if frame:
            log.append_event(m.pk, {"type": "next_frame"})
        for _ in range(reds_blacks if frame == 0 else 0):
            log.append_event(m.pk, {"type": "pot", "balls": [1]})
            log.append_event(m.pk, {"type": "pot", "balls": [7]})
        log.append_event(m.pk, {"type": "concede", "player": 1 - winner})
    return m


@pytest.fixture
def people():
    ana = Player.objects.create(name="Ana Souza", club="Clube Santista")
    denis = Player.objects.create(name="Dênis Araújo", club="Bilhar Paulista")
    caio = Player.objects.create(name="Caio Rocha")
    return ana, denis, caio


def test_search_ignores_accents_and_case(people):
    ana, denis, _caio = people
    c = Client()
    r = c.get("/api/players/?q=DENIS araujo")
    assert r.status_code == 200
    assert r.json() == [{"id": str(denis.pk), "name": "Dênis Araújo", "club": "Bilhar Paulista", "club_id": None}]
    assert [p["name"] for p in c.get("/api/players/?q=a").json()] == ["Ana Souza", "Caio Rocha", "Dênis Araújo"]
    assert c.get("/api/players/?q=zzz").json() == []


def test_career_and_head_to_head_say_what_the_matches_say(people):
    ana, denis, caio = people
    m1 = play(ana, denis, 0, reds_blacks=4)       # Ana wins 1-0 with a break of 32
    m2 = play(denis, ana, 0, reds_blacks=0)       # Dênis wins 1-0
    play(ana, caio, 0, reds_blacks=6, frames_to_win=2)  # Ana 2-0, a break of 48
    c = Client()
    car = c.get(f"/api/players/{ana.pk}/career/").json()
    t = car["total"]
    assert car["player"] == {"id": str(ana.pk), "name": "Ana Souza", "club": "Clube Santista"}
    assert (t["matches"], t["won"], t["lost"], t["frames_won"], t["frames_lost"]) == (3, 2, 1, 3, 1)
    assert t["win_pct"] == 66.7 and t["highest_break"] == 48
    assert (t["breaks_30"], t["breaks_50"], t["breaks_100"]) == (2, 0, 0)
    assert [r["outcome"] for r in car["last"]] == ["won", "lost", "won"]
    assert car["last"][1]["opponents"] == [{"id": str(denis.pk), "name": "Dênis Araújo", "club": "Bilhar Paulista"}]
    h = c.get(f"/api/players/{ana.pk}/h2h/{denis.pk}/").json()
    assert (h["played"], h["won"], h["frames"]) == (2, [1, 1], [1, 1])
    assert [(m["match"], m["winner"], m["frame_scores"]) for m in h["matches"]] == \
        [(m1.pk, "a", [[32, 0]]), (m2.pk, "b", [[0, 0]])]
    # the pages print the same figures
    page = c.get(f"/players/{ana.pk}/").content.decode()
    assert "66,7%" in page and ">48<" in page and f"/matches/{m1.pk}/sumula.pdf" in page
    assert f'href="/players/{ana.pk}/h2h/{denis.pk}/?lang=pt-br">confronto</a>' in page
    assert f"data-board-ws=\"/ws/boards/?view=career-{ana.pk}&amp;lang=pt-br&amp;have=" in page
    # the results archive: newest first, each linked to its súmula
    res = c.get("/results/").content.decode()
    assert res.index(f'data-match="{m2.pk}"') < res.index(f'data-match="{m1.pk}"')
    assert f"/matches/{m1.pk}/sumula.pdf" in res
    hp = c.get(f"/players/{ana.pk}/h2h/{denis.pk}/?lang=en").content.decode()
    assert "<span>32–0</span>" in hp and "2 matches" in hp and 'lang="en"' in hp


def test_unknown_ids_answer_404_in_both_languages(people):
    ana = people[0]
    c = Client()
    for url in ("/api/players/999999/career/", f"/api/players/{ana.pk}/h2h/nobody/", "/api/seasons/999/ranking/"):
        r = c.get(url)
        assert r.status_code == 404, url
        msg = r.json()["error"]["message"]
        assert " / " in msg and ("não encontrad" in msg) and ("not found" in msg), msg
    r = c.get(f"/api/players/{ana.pk}/h2h/{ana.pk}/")
    assert r.status_code == 400 and "two different players" in r.json()["error"]["message"]
    assert c.get("/players/999999/").status_code == 404
    assert c.post("/api/players/").status_code == 405


@pytest.mark.parametrize("url", ["/api/players/?q=ana", "/api/players/{ana}/career/", "/players/{ana}/",
                                 "/players/{ana}/h2h/{denis}/", "/players/?q=ana", "/calendar/", "/live/",
                                 "/clubs/", "/results/", "/api/players/{ana}/h2h/{denis}/", "/api/clubs/"])
def test_public_answers_are_cacheable_with_304(people, url):
    ana, denis, _ = people
    url = url.format(ana=ana.pk, denis=denis.pk)
    c = Client()
    r = c.get(url)
    assert r.status_code == 200, url
    assert r["Cache-Control"] == CACHE
    tag = r["ETag"]
    assert tag.startswith('"') and "Set-Cookie" not in r
    again = c.get(url, HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == tag
    # through the gzip layer the tag is weak; a client sending it back still gets its 304
    z = c.get(url, HTTP_ACCEPT_ENCODING="gzip")
    if z.get("Content-Encoding") == "gzip":
        assert gzip.decompress(z.content) == r.content
        assert c.get(url, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=z["ETag"]).status_code == 304


def test_a_player_page_is_light_on_the_wire(people):
    """A player of 60 matches: the page, gzipped as a phone gets it, stays under 60 KB."""
    ana, denis, caio = people
    for i in range(30):
        play(ana, denis if i % 2 else caio, i % 2, reds_blacks=i % 5)
    r = Client().get(f"/players/{ana.pk}/", HTTP_ACCEPT_ENCODING="gzip")
    assert r["Content-Encoding"] == "gzip"
    assert len(r.content) < 60_000, len(r.content)
    assert len(gzip.decompress(r.content)) > len(r.content)
