"""``pages/venue.py``: the pages of an event day — the venue, the jumbotron, the table-following
TV, overlay and tablet (with the table's PIN), the match page with its statistics, and the shot
clock."""
from __future__ import annotations

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.test import Client
from django.utils import timezone

from scoreboard.core import log, tables
from scoreboard.core.matches import new_match
from scoreboard.core.models import Match, RefereeCredential, Table
from scoreboard.reports import exports, sumula

from ops_helpers import CONFIG, LOG, demo, fresh_engines, fresh_stats, play  # noqa: F401

pytestmark = pytest.mark.django_db


# -- the venue and the jumbotron --------------------------------------------------------------

def test_venue_lists_matches_in_progress_with_and_without_table(client):
    on_table = play(new_match(CONFIG, table="1"), LOG[:4])
    loose = new_match({**CONFIG, "players": ["Caio", "Davi"]})
    done = exports.import_document(demo(), table="2")
    later = new_match({**CONFIG, "players": ["Eva", "Fábio"]}, table="1", started=False)
    assert set(tables.in_progress()) == {on_table, loose}
    html = client.get("/").content.decode()
    live = html.split("A seguir")[0]
    assert "Ana Souza" in live and "Caio" in live and f'data-match="{on_table.pk}"' in live
    assert "Eva × Fábio" in html  # up next
    assert f'data-match="{done.pk}"' in html.split("Resultados")[1]
    assert 'lang="pt-br"' in html
    # pushed, not polled (issue 11, finding 6): the page opens the board socket, polls nothing
    assert 'data-board-ws="/ws/boards/?view=venue&amp;lang=pt-br&amp;have=' in html and "hx-trigger" not in html
    fragment = client.get("/?partial=board").content.decode()
    assert fragment.lstrip().startswith('<main id="venue-board"') and "<html" not in fragment
    assert later.pk not in [m.pk for m in tables.in_progress()]


def test_home_lists_matches(client, created):
    assert "Ana Souza" in client.get("/").content.decode()


def test_jumbotron_shows_every_table(client):
    play(new_match(CONFIG, table="1"), LOG[:4])
    exports.import_document(demo(), table="2")
    new_match({**CONFIG, "players": ["Eva", "Fábio"]}, table="2", started=False)
    html = client.get("/tv/").content.decode()
    assert "Mesa 1" in html and "Mesa 2" in html
    assert ">15<" in html  # Ana's score on table 1
    assert "Ana Souza 2 × 1 Bia Lima" in html and "Eva × Fábio" in html  # table 2: last result, next


def test_a_table_named_mesa_1_is_not_shown_as_mesa_mesa_1(client):
    t = Table.objects.create(name="Mesa 1")
    m = play(new_match(CONFIG, table="Mesa 1"), LOG[:2])
    for url in ("/", "/tv/", f"/matches/{m.pk}/", f"/matches/{m.pk}/tv/", f"/tables/{t.pk}/tv/"):
        html = client.get(url).content.decode()
        assert "Mesa Mesa" not in html, url
    assert "Mesa 1" in client.get(f"/matches/{m.pk}/").content.decode()
    play(m, [{"type": "concede_match", "player": 1}])
    idle = client.get(f"/tables/{t.pk}/tv/").content.decode()
    assert "Mesa 1" in idle and "Mesa Mesa" not in idle


# -- a table's TV, overlay and tablet ---------------------------------------------------------

def test_table_pages_follow_the_current_match(client):
    t = Table.objects.create(name="3")
    first = new_match(CONFIG, table="3")
    key1 = client.get(f"/tables/{t.pk}/now/").json()
    assert key1 == {"key": f"match:{first.pk}", "match": first.pk, "tablet": first.pk, "last": None}
    html = client.get(f"/tables/{t.pk}/tv/").content.decode()
    assert "Ana Souza" in html and f"/ws/matches/{first.pk}/" in html and 'id="follow"' in html
    ov = client.get(f"/tables/{t.pk}/overlay/?layout=corner").content.decode()
    assert f"/ws/matches/{first.pk}/?view=overlay" in ov and "layout-corner" in ov
    # the match ends; the next one is scheduled: the table shows the result and the next match
    play(first, [{"type": "concede_match", "player": 1}])
    nxt = new_match({**CONFIG, "players": ["Gil", "Hugo"]}, table="3", started=False)
    now = client.get(f"/tables/{t.pk}/now/").json()
    assert now == {"key": f"idle:{first.pk}:{nxt.pk}", "match": None, "tablet": nxt.pk, "last": first.pk}
    idle = client.get(f"/tables/{t.pk}/tv/").content.decode()
    assert "Último resultado" in idle and "Gil × Hugo" in idle and "Ana Souza" in idle
    assert "Próximo jogo" in client.get(f"/tables/{t.pk}/overlay/").content.decode()
    # the organiser starts the next match: the same URLs now show it
    from scoreboard.admin import start_match

    start_match(nxt, None, "test")
    assert client.get(f"/tables/{t.pk}/now/").json()["match"] == nxt.pk
    assert "Gil" in client.get(f"/tables/{t.pk}/tv/").content.decode()


def test_idle_tv_after_a_concession_says_why_and_has_no_stray_separator(client):
    m = play(new_match(CONFIG, table="5"), LOG[:4] + [{"type": "concede_match", "player": 1}])
    t = m.table
    html = client.get(f"/tables/{t.pk}/tv/").content.decode()
    reason = re.search(r'<p class="idle-reason">(.*?)</p>', html, re.S).group(1)
    assert "Vence Ana Souza" in reason and "por desistência (Art. 54.2)" in reason
    sub = re.search(r'<p class="idle-sub">(.*?)</p>', html, re.S).group(1)
    assert sub.startswith("Maior tacada") and "·" not in sub
    en = client.get(f"/tables/{t.pk}/tv/?lang=en").content.decode()
    assert "Ana Souza wins" in en and "by concession (Art. 54.2)" in en


def test_table_pin_logs_the_tablet_into_each_match_of_the_table():
    t = Table.objects.create(name="4")
    tables.set_pin(t, "2468")
    m1 = new_match(CONFIG, table="4")
    tablet = Client()
    r = tablet.post(f"/tables/{t.pk}/referee/", {"pin": "1111"})
    assert r.status_code == 401
    r = tablet.post(f"/tables/{t.pk}/referee/", {"pin": "2468"})
    assert r.status_code == 302 and r["Location"] == f"/matches/{m1.pk}/referee/"
    assert b"Vermelha" in tablet.get(r["Location"]).content
    play(m1, [{"type": "concede_match", "player": 0}])
    m2 = new_match({**CONFIG, "players": ["Caio", "Davi"]}, table="4")
    r = tablet.get(f"/tables/{t.pk}/referee/")  # no PIN again
    assert r["Location"] == f"/matches/{m2.pk}/referee/"
    assert RefereeCredential.objects.filter(match=m2, label="mesa 4").exists()
    tables.set_pin(t, "9999")  # a new PIN locks the old tablet out of the table
    assert tablet.get(f"/tables/{t.pk}/referee/").status_code == 200


def test_table_tablet_without_a_match_follows_the_table_s_socket_and_finished_match_links_back():
    t = Table.objects.create(name="6")
    tables.set_pin(t, "2468")
    tablet = Client()
    page = tablet.post(f"/tables/{t.pk}/referee/", {"pin": "2468"}).content.decode()
    # no poll: the table's follow board is pushed over a socket (follow.js)
    assert 'id="follow"' in page and f'data-follow-url="/ws/boards/?view=table-{t.pk}&amp;lang=pt-br"' in page
    assert f'data-follow-go="/tables/{t.pk}/referee/"' in page and "scoreboard/follow.js" in page
    assert "scoreboard/ops.js" not in page
    key = re.search(r'data-follow-key="([^"]*)"', page).group(1)
    assert key == "idle:0:0"  # no last result, no next match
    assert tablet.get(f"/tables/{t.pk}/now/").json() == {"key": key, "match": None, "tablet": None, "last": None}
    m = new_match(CONFIG, table="6")  # the organiser puts a match on the table
    # the key changes: follow.js goes back to the table page
    assert tablet.get(f"/tables/{t.pk}/now/").json() == {"key": f"match:{m.pk}", "match": m.pk, "tablet": m.pk, "last": None}
    r = tablet.get(f"/tables/{t.pk}/referee/")
    assert r.status_code == 302 and r["Location"] == f"/matches/{m.pk}/referee/"
    scoring = tablet.get(r["Location"]).content.decode()
    # no link back while in play; the page follows its table (follow.js) instead
    assert f'href="/tables/{t.pk}/referee/"' not in scoring
    assert (f'id="table-follow" data-follow-url="/ws/boards/?view=table-{t.pk}" data-follow-go="/tables/{t.pk}/referee/" '
            f'data-follow-match="{m.pk}"') in scoring and "scoreboard/follow.js" in scoring
    play(m, [{"type": "concede_match", "player": 0}])
    over = tablet.get(f"/matches/{m.pk}/referee/").content.decode()
    assert f'href="/tables/{t.pk}/referee/"' in over and "Próximo jogo desta mesa" in over


def test_a_table_login_page_without_permission_does_not_poll():
    t = Table.objects.create(name="8")
    tables.set_pin(t, "2468")
    page = Client().get(f"/tables/{t.pk}/referee/").content.decode()
    assert 'id="follow"' not in page and "ops.js" not in page and "follow.js" not in page


# -- the match page ---------------------------------------------------------------------------

def test_match_page_shows_statistics_and_worms(client):
    m = exports.import_document(demo(), table="1")
    html = client.get(f"/matches/{m.pk}/").content.decode()
    assert 'class="hb0">49<' in html and 'class="hb1">13<' in html
    assert html.count('class="worm"') == 3 and 'class="breaks"' in html
    assert "Vence Ana Souza" in html
    en = client.get(f"/matches/{m.pk}/?lang=en").content.decode()
    assert "Highest break" in en and 'lang="en"' in en


def test_match_page_in_play_listens_to_its_feed_socket_and_polls_nothing(client):
    """Spectators only listen: the page names the match's feed socket and the partial to fetch
    when its seq moves (match.js), carries the seq it shows, and has no polling trigger."""
    m = play(new_match(CONFIG, table="1"), LOG[:2])
    html = client.get(f"/matches/{m.pk}/").content.decode()
    assert "hx-trigger" not in html and "htmx" not in html
    assert f'data-stats-ws="/ws/matches/{m.pk}/feed/"' in html
    assert f'data-stats-url="/matches/{m.pk}/?partial=stats"' in html and "scoreboard/match.js" in html
    part = client.get(f"/matches/{m.pk}/?partial=stats").content.decode()
    assert part.lstrip().startswith('<main id="match-stats"') and f'data-seq="{m.seq}"' in part
    assert "data-over" not in part


def test_a_finished_match_page_opens_no_socket(client):
    m = exports.import_document(demo(), table="1")
    html = client.get(f"/matches/{m.pk}/").content.decode()
    assert 'data-over="1"' in html and "data-stats-ws" not in html and "match.js" not in html


def test_match_page_in_english_translates_the_chart_label_and_counts_reds_in_the_plural(client):
    m = play(new_match(CONFIG, table="1"), LOG)
    st = sumula.sheet(m).st
    reds = [p.reds_potted for p in st.players]
    assert reds == [3, 1]  # Ana: three reds; Bia: one (her blue was undone)
    pt = client.get(f"/matches/{m.pk}/?lang=pt-br").content.decode()
    assert "Partida 1 — tacadas" in pt and "(3 vermelhas)" in pt and "(1 vermelha)" in pt
    en = client.get(f"/matches/{m.pk}/?lang=en").content.decode()
    assert "Frame 1 stroke by stroke" in en and "tacadas" not in en
    assert "(3 reds)" in en and "(1 red)" in en and "(1 reds)" not in en and "vermelha" not in en


# -- the shot clock (Art. 49.4) ---------------------------------------------------------------

def test_shot_clock_is_off_by_default_and_runs_when_set(client, monkeypatch):
    from scoreboard.pages import venue

    now = timezone.now()
    monkeypatch.setattr(venue, "timezone", SimpleNamespace(now=lambda: now))  # the clock's time stands still
    m = new_match(CONFIG)
    assert client.get(f"/matches/{m.pk}/clock/").json()["seconds"] == 0
    assert "shot-clock" not in client.get(f"/matches/{m.pk}/tv/").content.decode()
    Match.objects.filter(pk=m.pk).update(shot_clock=30)
    assert 'id="shot-clock"' in client.get(f"/matches/{m.pk}/tv/").content.decode()
    assert client.post(f"/matches/{m.pk}/clock/", {"action": "start"}).status_code == 403  # viewers cannot
    ref = Client()
    cred, token, pin = RefereeCredential.issue(m)
    ref.post(f"/matches/{m.pk}/referee/", {"pin": pin})
    assert b'data-clock="start"' in ref.get(f"/matches/{m.pk}/referee/").content
    started = ref.post(f"/matches/{m.pk}/clock/", {"action": "start"}).json()
    assert started == {"seconds": 30, "running": True, "remaining": 30.0,
                       "deadline": (now + timedelta(seconds=30)).isoformat(), "now": now.isoformat()}
    log.append_event(m.pk, {"type": "pot", "balls": [1]})  # the stroke was played
    assert client.get(f"/matches/{m.pk}/clock/").json()["running"] is False


def test_a_table_pin_change_ends_the_tablet_sessions_it_opened():
    """The new PIN used to lock the tablet out of the table page only: its session kept scoring the
    match it was on. Now the credentials the old PIN logged tablets in with are revoked."""
    from scoreboard.core.models import Event

    t = Table.objects.create(name="5")
    tables.set_pin(t, "246813")
    m = new_match(CONFIG, table="5")
    tablet, staff_qr = Client(), RefereeCredential.issue(m, label="QR")[0]
    assert tablet.post(f"/tables/{t.pk}/referee/", {"pin": "246813"}).status_code == 302
    red = {"event": '{"type": "pot", "balls": [1]}'}
    assert tablet.post(f"/matches/{m.pk}/referee/event/", red).status_code == 200
    tables.set_pin(t, "975312")
    assert tablet.post(f"/matches/{m.pk}/referee/event/", {"event": '{"type": "no_pot"}'}).status_code == 403
    assert b'name="pin"' in tablet.get(f"/matches/{m.pk}/referee/").content
    assert b'name="pin"' in tablet.get(f"/tables/{t.pk}/referee/").content
    assert Event.objects.filter(match=m).count() == 1
    assert not RefereeCredential.objects.get(pk=staff_qr.pk).revoked  # the match's own credential stays
    # the new PIN opens the table again, with a new credential
    r = tablet.post(f"/tables/{t.pk}/referee/", {"pin": "975312"})
    assert r.status_code == 302
    assert tablet.post(f"/matches/{m.pk}/referee/event/", {"event": '{"type": "no_pot"}'}).status_code == 200


def test_a_table_pin_changed_in_the_admin_ends_the_tablet_sessions(admin_client):
    t = Table.objects.create(name="8")
    tables.set_pin(t, "246813")
    m = new_match(CONFIG, table="8")
    tablet = Client()
    assert tablet.post(f"/tables/{t.pk}/referee/", {"pin": "246813"}).status_code == 302
    r = admin_client.post(f"/admin/scoreboard/table/{t.pk}/change/", {"name": "8", "new_pin": "135792"})
    assert r.status_code == 302
    assert tablet.post(f"/matches/{m.pk}/referee/event/", {"event": '{"type": "no_pot"}'}).status_code == 403


def test_the_venues_results_are_paged_older_ones_on_page_2(client):
    """The venue lists all of the day's results, 24 a page, the newest first: page 2 has the
    older ones, is not pushed (no board socket) and links back; a page past the end gives the
    last, a bad page number the first."""
    from scoreboard.core import operations
    from scoreboard.core.matches import match_config, new_match
    from scoreboard.live.boards import RESULTS_PAGE

    made = []
    for i in range(RESULTS_PAGE + 2):
        m = new_match(match_config([f"Jogador {i:02d}A", f"Jogador {i:02d}B"], reds=6), started=False)
        operations.walkover(m, [1], "user:org", "não compareceu")
        made.append(m)
    page1 = client.get("/").content.decode()
    assert "Página 1 de 2" in page1 and 'href="?page=2">anteriores</a>' in page1
    assert "Jogador 25A" in page1 and "Jogador 02A" in page1 and "Jogador 01A" not in page1
    page2 = client.get("/?page=2").content.decode()
    assert "Página 2 de 2" in page2 and 'href="?page=1">mais recentes</a>' in page2
    assert "Jogador 01A" in page2 and "Jogador 00A" in page2 and "Jogador 02A" not in page2
    assert 'data-board-ws=""' in page2 and "/ws/boards/?view=venue" in page1
    assert "Página 2 de 2" in client.get("/?page=9").content.decode()
    assert "Página 1 de 2" in client.get("/?page=x").content.decode()


def test_the_english_jumbotron_card_between_frames_says_so_without_a_second_break(client):
    """Found by a tryout: "Frame 1 · Best of 3 · Break 147 · Break between frames", the word
    "break" in two meanings on one line."""
    from scoreboard.core import log
    from scoreboard.core.matches import create_match

    m = create_match("Ana Souza", "Bia Lima", first_breaker=0, frames_to_win=2, table="Mesa 1").match
    log.append_event(m.pk, {"type": "pot", "balls": [1]})
    log.append_event(m.pk, {"type": "concede", "player": 1})  # frame 1 over, 1-0
    foot = client.get("/tv/?lang=en").content.decode().split('class="jt-foot"')[1].split("</p>")[0]
    assert "Between frames" in foot and "Break between frames" not in foot
