"""``pages/screens.py``: a match's TV and overlay pages and their live fragments (the first paint
of what the sockets push), in either language."""
from __future__ import annotations

import json

import pytest

from scoreboard.core import log
from scoreboard.core.matches import new_match

from ops_helpers import demo, fresh_engines, fresh_stats  # noqa: F401

pytestmark = pytest.mark.django_db


def test_tv_page_serves_names_score_and_live_attributes(client, created):
    r = client.get(created.tv_url)
    assert r.status_code == 200
    html = r.content.decode()
    assert "Ana Souza" in html and "Bia Lima" in html
    assert 'lang="pt-br"' in html
    assert "Melhor de 1" in html and "Bola da vez" in html
    assert f'data-live-ws="/ws/matches/{created.match.pk}/?view=tv&amp;lang=pt-br"' in html
    assert 'data-seq="0"' in html


def test_tv_page_in_english_on_request(client, created):
    html = client.get(created.tv_url + "?lang=en").content.decode()
    assert 'lang="en"' in html and "Ball on" in html and "Best of 1" in html
    assert "lang=en" in html  # the socket asks for English fragments too
    # Chosen per URL, not remembered (issue 11, finding 8): a venue TV in Portuguese and a
    # stream in English run side by side in one browser (OBS sources share one cookie jar).
    assert "django_language" not in client.cookies
    assert 'lang="pt-br"' in client.get(created.tv_url).content.decode()
    assert 'lang="pt-br"' in client.get(created.overlay_url).content.decode()


def test_overlay_page_is_transparent_and_has_names(client, created):
    html = client.get(created.overlay_url).content.decode()
    assert "Ana Souza" in html and 'class="overlay ' in html  # + display-option classes


def test_live_fragments_endpoint_serves_the_current_seq(client, created, auth):
    mid = created.match.pk
    client.post(f"/api/matches/{mid}/events/", data=json.dumps({"event": {"type": "pot", "balls": [1]}}),
                content_type="application/json", **auth)
    html = client.get(f"/matches/{mid}/live/tv/").content.decode()
    assert 'data-seq="1"' in html and 'id="tv-live"' in html


def test_tv_shows_statistics_between_frames(client):
    doc = demo()
    m = new_match(doc["config"])
    for i, ev in enumerate(doc["events"]):
        log.append_event(m.pk, ev, expected_seq=i)
        if log.snapshot(m.pk).state["phase"] == "frame_over":
            break
    html = client.get(f"/matches/{m.pk}/tv/").content.decode()
    assert 'class="tv-stats"' in html and "Maior tacada" in html and 'class="worm"' in html


def test_pages_answer_404_for_unknown_match(client, db):
    for page in ("tv", "overlay", "referee"):
        assert client.get(f"/matches/999/{page}/").status_code == 404


def _ballon(html: str, page: str) -> str:
    """The text of the TV's or overlay's ball-on cell (its key and value), tags dropped."""
    import re

    cell = re.search(r'<div[^>]*><span class="k">[^<]*</span><span class="v[^"]*" id="tv-ballon".*?</div>', html, re.S) \
        if page == "tv" else re.search(r'<span class="ov-cell c-on".*?</b></span>', html, re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell[0])).strip()


def test_tv_and_overlay_say_what_is_awaited_when_no_ball_is_on(client):
    """While a decision or a lot is awaited no ball is on: the TV and the overlay say which
    (the decision's choices, the lot), in either language, never "Bola da vez —"."""
    m = new_match({"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 2})
    url = lambda page, lang: f"/matches/{m.pk}/live/{page}/" + ("?lang=en" if lang == "en" else "")  # noqa: E731

    def cells(lang):
        return [_ballon(client.get(url(p, lang)).content.decode(), p) for p in ("tv", "overlay")]

    assert cells("pt") == ["Sorteio quem sai"] * 2
    assert cells("en") == ["Lot who breaks off"] * 2
    log.append_event(m.pk, {"type": "lot", "player": 0}, expected_seq=0)
    assert [c.split()[:3] for c in cells("pt")] == [["Bola", "da", "vez"]] * 2  # the reds' dots
    log.append_event(m.pk, {"type": "foul"}, expected_seq=1)
    assert cells("pt") == ["Decisão jogar ou passar"] * 2
    assert cells("en") == ["Decision play or pass"] * 2
    log.append_event(m.pk, {"type": "decision", "choice": "pass"}, expected_seq=2)
    log.append_event(m.pk, {"type": "foul", "retorno": True}, expected_seq=3)
    assert cells("pt") == ["Decisão jogar, passar ou retorno"] * 2
    assert cells("en") == ["Decision play, pass or replay"] * 2
    for page in ("tv", "overlay"):
        assert "Bola da vez" not in client.get(url(page, "pt")).content.decode()
