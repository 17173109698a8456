"""``pages/referee.py``: the referee tablet — log-in by link or PIN, the tap buttons, taps and
their answers, the foul dialog."""
from __future__ import annotations

import re

import pytest
from django.test import Client

from scoreboard.core.models import Event, RefereeCredential

pytestmark = pytest.mark.django_db


def text(html: str) -> str:
    """The words of ``html`` without its tags: a tappable "Art. N" is ``Art. <span …>N</span>``."""
    return re.sub(r"<[^>]+>", "", html)


def test_referee_page_without_session_asks_for_pin(client, created):
    r = client.get(f"/matches/{created.match.pk}/referee/")
    assert r.status_code == 200
    assert b'name="pin"' in r.content and b"Vermelha" not in r.content


def test_referee_link_logs_in_and_shows_the_legal_buttons(referee_client, created):
    r = referee_client.get(f"/matches/{created.match.pk}/referee/")
    html = r.content.decode()
    assert r.status_code == 200 and "Vermelha" in html
    # only the red is on: the six colour buttons are disabled (from the engine's options)
    import re
    row = html.split('class="row balls ref-balls"', 1)[1].split("</div>", 1)[0]
    pots = re.findall(r'<button class="ball ball-(\d)"[^>]*?(disabled)?>', row)
    assert [(b, bool(d)) for b, d in pots] == [("1", False)] + [(str(c), True) for c in range(2, 8)]


def test_a_bad_or_foreign_link_does_not_log_in(client, created):
    from scoreboard.core.matches import create_match

    other = create_match("C", "D", first_breaker=0)
    code = other.referee_url.split("?c=")[1]
    r = client.get(f"/matches/{created.match.pk}/referee/?c={code}")
    assert b'name="pin"' in r.content
    r = client.get(f"/matches/{created.match.pk}/referee/?c=garbage")
    assert b'name="pin"' in r.content


def test_pin_logs_in_and_a_wrong_pin_does_not(created):
    c = Client()
    url = f"/matches/{created.match.pk}/referee/"
    r = c.post(url, {"pin": "000000" if created.pin != "000000" else "111111"})
    assert r.status_code == 401 and "PIN incorreto" in r.content.decode()
    r = c.post(url, {"pin": created.pin})
    assert r.status_code == 302
    assert b"Vermelha" in c.get(url).content


def test_a_tap_appends_and_answers_with_the_fragments(referee_client, created):
    mid = created.match.pk
    r = referee_client.post(f"/matches/{mid}/referee/event/",
                            {"event": '{"type":"pot","balls":[1]}', "expected_seq": "0", "key": "t1"})
    assert r.status_code == 200
    html = r.content.decode()
    assert 'id="live-seq"' in html and 'data-seq="1"' in html and 'id="ref-msg"' in html
    ev = Event.objects.get(match_id=mid)
    cred = RefereeCredential.objects.get(match_id=mid)
    assert ev.seq == 1 and ev.event == {"type": "pot", "balls": [1]} and ev.entered_by == f"referee:{cred.pk}"
    # the same tap again (double tap / retry): nothing stored twice
    referee_client.post(f"/matches/{mid}/referee/event/",
                        {"event": '{"type":"pot","balls":[1]}', "expected_seq": "0", "key": "t1"})
    assert Event.objects.filter(match_id=mid).count() == 1


@pytest.mark.pg
def test_a_tap_on_a_stale_screen_is_409_and_an_illegal_one_422(referee_client, created):
    mid = created.match.pk
    url = f"/matches/{mid}/referee/event/"
    referee_client.post(url, {"event": '{"type":"pot","balls":[1]}', "expected_seq": "0"})
    r = referee_client.post(url, {"event": '{"type":"pot","balls":[1]}', "expected_seq": "0"})
    assert r.status_code == 409
    r = referee_client.post(url, {"event": '{"type":"pot","balls":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}'})
    assert r.status_code == 422 and "Art." in r.content.decode()
    r = referee_client.post(url, {"event": "not json"})
    assert r.status_code == 400
    assert Event.objects.filter(match_id=mid).count() == 1


def test_tablet_actions_are_403_without_the_referee_session(client, created):
    mid = created.match.pk
    assert client.post(f"/matches/{mid}/referee/event/", {"event": '{"type":"no_pot"}'}).status_code == 403
    assert client.get(f"/matches/{mid}/referee/foul/").status_code == 403
    assert client.get(f"/matches/{mid}/live/referee/").status_code == 403
    assert Event.objects.count() == 0


def test_foul_dialog_previews_penalty_and_retorno(referee_client, created):
    mid = created.match.pk
    form = referee_client.get(f"/matches/{mid}/referee/foul/").content.decode()
    assert 'name="kind"' in form and "cue_ball_potted" in form and 'name="retorno"' in form
    r = referee_client.post(f"/matches/{mid}/referee/foul/preview/",
                            {"ball": "5", "player": "0", "retorno": "1"})
    html = r.content.decode()
    assert "5 pontos para Bia Lima (Art. 40" in text(html) and 'data-art="40"' in html
    assert "Retorno possível" in html


def test_foul_submit_records_the_described_foul(referee_client, created):
    mid = created.match.pk
    r = referee_client.post(f"/matches/{mid}/referee/foul/submit/",
                            {"kind": "cue_ball_potted", "ball": "", "potted_reds": "1", "snooker": "1",
                             "expected_seq": "0"})
    assert r.status_code == 200
    ev = Event.objects.get(match_id=mid).event
    assert ev["type"] == "foul" and ev["kind"] == "cue_ball_potted" and ev["potted"] == [1] and ev["snooker"]
    page = referee_client.get(f"/matches/{mid}/referee/").content.decode()
    assert "Jogar" in page and "Passar" in page

@pytest.mark.django_db(transaction=True)
@pytest.mark.pg
def test_a_tap_reads_the_match_once_and_answers_from_its_change(referee_client, created):
    # One lock and one read per tap: the answer is the Change's fragment, rendered once for every
    # screen after commit, not a second snapshot of the match (commits are real here, so the
    # after-commit broadcast runs inside the request as in production).
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = f"/matches/{created.match.pk}/referee/event/"
    referee_client.post(url, {"event": '{"type":"pot","balls":[1]}', "expected_seq": "0"})
    with CaptureQueriesContext(connection) as q:
        r = referee_client.post(url, {"event": '{"type":"pot","balls":[7]}', "expected_seq": "1"})
    assert r.status_code == 200 and 'data-seq="2"' in r.content.decode()
    sql = [x["sql"] for x in q.captured_queries
           if not x["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"))]
    assert sum(s.startswith('SELECT "scoreboard_match"') for s in sql) == 1
    assert sum(s.startswith('UPDATE "scoreboard_match" SET "seq" = 2') for s in sql) == 1
    # session, credential, the match (locked, its players joined), its key lookup, INSERT, UPDATE;
    # the one render reads nothing (issue 20: its rows and clocks come with the Change)
    assert len(sql) == 6
    insert = next(i for i, s in enumerate(sql) if s.startswith('INSERT INTO "scoreboard_event"'))
    assert not [s for s in sql[insert + 1:] if "scoreboard_event" in s]


@pytest.mark.pg
def test_a_tap_key_reused_for_another_event_is_422_and_stores_nothing(referee_client, created):
    mid = created.match.pk
    url = f"/matches/{mid}/referee/event/"
    assert referee_client.post(url, {"event": '{"type": "pot", "balls": [1]}', "key": "tap-1"}).status_code == 200
    r = referee_client.post(url, {"event": '{"type": "no_pot"}', "key": "tap-1"})
    assert r.status_code == 422
    assert ('<div id="ref-msg" class="msg msg-error" role="status">Esta chave de toque já foi usada '
            "para outro evento; toque de novo / This tap&#x27;s key was already used for another "
            "event; tap again</div>") in r.content.decode()
    # the same tap again is the replay it always was
    assert referee_client.post(url, {"event": '{"type": "pot", "balls": [1]}', "key": "tap-1"}).status_code == 200
    assert list(Event.objects.values_list("event", flat=True)) == [{"type": "pot", "balls": [1]}]


# --- issue 10: the tablet cannot mislead ------------------------------------------------------

def test_before_the_lot_no_points_in_play_are_shown():
    from scoreboard.core.matches import create_match

    c = create_match("Ana Souza", "Bia Lima")  # no breaker yet: the lot (Art. 17)
    client = Client()
    client.get(c.referee_url)
    html = client.get(f"/matches/{c.match.pk}/referee/").content.decode()
    assert "Sorteio: quem sai?" in html
    assert '<dd class="ref-remaining">—</dd>' in html


def test_a_foul_with_a_colour_owed_needs_the_colour_aimed_at(referee_client, created):
    from scoreboard.core import log

    mid = created.match.pk
    log.append_event(mid, {"type": "pot", "balls": [1]}, expected_seq=0)
    form = referee_client.get(f"/matches/{mid}/referee/foul/").content.decode()
    assert "não cantou (Art. 48.3, 7 pontos)" in form and 'name="nominated" value="none"' in form
    assert 'name="nominated" value="5" checked' not in form and "<select" not in form
    url = f"/matches/{mid}/referee/foul/submit/"
    r = referee_client.post(url, {"expected_seq": "1", "player": "0"})
    msg = r.content.decode()
    # the message's articles are taps on their words, as everywhere on the tablet
    assert r.status_code == 400 and "Diga qual cor foi visada (Art. 19)" in text(msg)
    assert re.findall(r'class="art" data-art="([^"]+)"', msg) == ["19", "48.3", "19", "48.3"], msg
    assert Event.objects.filter(match_id=mid).count() == 1  # nothing stored
    preview = referee_client.post(f"/matches/{mid}/referee/foul/preview/", {"player": "0"}).content.decode()
    assert "Escolha primeiro a cor visada" in preview and "pontos para" not in preview
    r = referee_client.post(url, {"expected_seq": "1", "player": "0", "nominated": "none"})
    assert r.status_code == 200
    ev = Event.objects.get(match_id=mid, seq=2)
    assert ev.event == {"type": "foul", "player": 0} and ev.state["scores"] == [1, 7]


def test_a_disciplinary_foul_while_a_colour_is_owed_asks_no_colour_art_42_43(referee_client, created):
    """"Tempo excessivo" costs 7 fixed (Art. 42, 49.4): the colour aimed at sets nothing, so the
    dialog neither asks for it nor refuses the foul without it (issue 16)."""
    from scoreboard.core import log

    mid = created.match.pk
    log.append_event(mid, {"type": "pot", "balls": [1]}, expected_seq=0)
    preview = referee_client.post(f"/matches/{mid}/referee/foul/preview/",
                                  {"player": "0", "kind": "slow_play"}).content.decode()
    assert "Escolha primeiro a cor visada" not in preview and "7 pontos para" in preview
    r = referee_client.post(f"/matches/{mid}/referee/foul/submit/",
                            {"expected_seq": "1", "player": "0", "kind": "slow_play"})
    assert r.status_code == 200
    ev = Event.objects.get(match_id=mid, seq=2)
    assert ev.event == {"type": "foul", "kind": "slow_play", "player": 0} and ev.state["scores"] == [1, 7]
    assert ev.state["warnings"] == [1, 0]


def test_the_art_28_answer_belongs_to_the_stroke_it_was_given_for(referee_client, created):
    """A "Sim" ticks the foul of its own stroke only: the replay of the same position after a
    retorno, or Bia back at the table after two safeties, is another stroke and asks again."""
    from scoreboard.core import log

    mid = created.match.pk
    assert referee_client.post(f"/matches/{mid}/referee/art28/", {"answer": "yes", "expected_seq": "0"}).status_code == 200
    form = referee_client.get(f"/matches/{mid}/referee/foul/").content.decode()
    assert 'name="aggravated" value="1" checked' in form and "declarada (Art. 28)" in form
    log.append_event(mid, {"type": "foul", "aggravated": True, "retorno": True}, expected_seq=0)
    log.append_event(mid, {"type": "decision", "choice": "retorno"}, expected_seq=1)
    form = referee_client.get(f"/matches/{mid}/referee/foul/").content.decode()
    assert 'name="aggravated" value="1" checked' not in form and "declarada (Art. 28)" not in form
    # Sim for Bia; Bia plays a safety; Ana plays a safety; Bia is back: not declared
    assert referee_client.post(f"/matches/{mid}/referee/art28/", {"answer": "yes", "expected_seq": "2"}).status_code == 200
    log.append_event(mid, {"type": "no_pot", "safety": True}, expected_seq=2)
    log.append_event(mid, {"type": "no_pot", "safety": True}, expected_seq=3)
    form = referee_client.get(f"/matches/{mid}/referee/foul/").content.decode()
    assert 'name="aggravated" value="1" checked' not in form


def test_an_art_28_answer_for_a_stroke_already_played_is_refused_and_kept_nowhere(referee_client, created):
    from scoreboard.core import log

    mid = created.match.pk
    log.append_event(mid, {"type": "no_pot"}, expected_seq=0)
    r = referee_client.post(f"/matches/{mid}/referee/art28/", {"answer": "yes", "expected_seq": "0"})
    text = r.content.decode()
    assert r.status_code == 409
    assert "lance já jogado: nada foi registrado" in text and "stroke already played: nothing was recorded" in text
    assert referee_client.session.get(f"art28:{mid}") is None
    form = referee_client.get(f"/matches/{mid}/referee/foul/").content.decode()
    assert 'name="aggravated" value="1" checked' not in form


def test_the_frame_end_message_is_winner_first(referee_client, created):
    mid = created.match.pk
    url = f"/matches/{mid}/referee/event/"
    referee_client.post(url, {"event": '{"type":"pot","balls":[1]}', "expected_seq": "0"})
    r = referee_client.post(url, {"event": '{"type":"concede","player":0}', "expected_seq": "1"})
    html = r.content.decode()
    # the result and how it was won, not nested in brackets ("(por partidas (Art. 54.1))" before)
    result = re.search(r'<p class="result result-match">(.*?)</p>', html)
    assert result and text(result[1]) == "Jogo encerrado: Bia Lima vence o jogo por 1–0, por partidas (Art. 54.1)"
    assert "Bia Lima vence a partida 1 por 0–1 — Ana Souza reconheceu a derrota na partida (Art. 50.2)" in text(html)
    assert "Partida de " not in html


def test_the_foul_dialog_takes_the_tablets_own_art_28_answer_for_this_stroke(referee_client, created):
    """The session's copy of a "Sim" is written by the Art. 28 request; a foul tapped a moment
    later on a busy server read the session before it and the dialog did not tick "aggravated"
    (a browser test failed so under load). The tablet sends its own answer with the seq of the
    stroke it was given for; another stroke's answer ticks nothing."""
    from scoreboard.core import log

    mid = created.match.pk
    log.append_event(mid, {"type": "no_pot"}, expected_seq=0)
    form = referee_client.get(f"/matches/{mid}/referee/foul/", {"art28": "1"}).content.decode()
    assert 'name="aggravated" value="1" checked' in form and "declarada (Art. 28)" in form
    form = referee_client.get(f"/matches/{mid}/referee/foul/", {"art28": "0"}).content.decode()
    assert 'name="aggravated" value="1" checked' not in form
    form = referee_client.get(f"/matches/{mid}/referee/foul/").content.decode()
    assert 'name="aggravated" value="1" checked' not in form

def test_a_disciplinary_foul_can_be_entered_in_a_lot_and_between_frames(client):
    """Art. 42, 43: a disciplinary foul is conduct, not a stroke, so the engine takes it while
    the lot is awaited and between frames; the tablet offers "Falta disciplinar…" there, in the
    place it has in a decision (the row under the tools), and its dialog's answer is stored.
    In doubles a foul naming a side but not its player is refused in pt and en, nothing stored."""
    import re

    from scoreboard.core import log
    from scoreboard.core.matches import create_match

    def page(created, c):
        html = c.get(f"/matches/{created.match.pk}/referee/").content.decode()
        return html.split('id="ref-live"', 1)[1]

    def head_row(html):
        # the row right under the tools: where "Falta disciplinar…" sits in a decision
        tools = html.split('class="ref-tools"', 1)[1]
        return re.search(r'<div class="decision-head">(.*?)</div></div>', tools, re.S)

    created = create_match(["Ana", "Carla"], ["Bia", "Duda"], reds=6, frames_to_win=2)
    c = Client()
    assert c.get(created.referee_url).status_code == 302
    mid = created.match.pk
    # the lot: the row under the tools holds the button, before the lot's own buttons
    html = page(created, c)
    row = head_row(html)
    assert row and 'data-action="foul"' in row[1] and "Falta disciplinar…" in row[1], html[:3000]
    assert html.index("Falta disciplinar…") < html.index("Sai Ana / Carla")
    # a side named without its player: refused with the engine's words, nothing stored
    url = f"/matches/{mid}/referee/foul/submit/"
    r = c.post(url, {"kind": "misconduct", "player": "0", "expected_seq": "0"})
    assert r.status_code == 422, r.content
    said = text(r.content.decode())
    assert "diga qual jogador do lado A cometeu a falta disciplinar (Art. 42)" in said
    r = c.post(url + "?lang=en", {"kind": "misconduct", "player": "0", "expected_seq": "0"})
    assert r.status_code == 422
    assert "say which player of side A committed the disciplinary foul (Art. 42)" in text(r.content.decode())
    assert not Event.objects.filter(match_id=mid).exists()
    # named: stored in the lot, its 7 points into the frame about to be played (Art. 42)
    r = c.post(url, {"kind": "misconduct", "player": "0.1", "expected_seq": "0"})
    assert r.status_code == 200, r.content
    assert Event.objects.get(match_id=mid).event == {"type": "foul", "kind": "misconduct", "player": 0, "person": 1}
    assert log.snapshot(mid).state["scores"] == [0, 7]

    # between frames: "Falta disciplinar…" under the tools, "Próxima partida" below it
    log.append_event(mid, {"type": "lot", "player": 0}, expected_seq=1)
    log.append_event(mid, {"type": "concede", "player": 1}, expected_seq=2)
    assert log.snapshot(mid).state["phase"] == "frame_over"
    html = page(created, c)
    row = head_row(html)
    assert row and "Falta disciplinar…" in row[1]
    assert html.index("Falta disciplinar…") < html.index("Próxima partida")
    r = c.post(url, {"kind": "misconduct", "player": "1", "expected_seq": "3"})
    assert r.status_code == 422 and "do lado B" in r.content.decode()
    assert Event.objects.filter(match_id=mid).count() == 3
    r = c.post(url, {"kind": "slow_play", "player": "1.0", "expected_seq": "3"})
    assert r.status_code == 200
    assert log.snapshot(mid).state["phase"] == "frame_over" and log.snapshot(mid).seq == 4
    # in play the stroke's "Falta…" and no disciplinary button
    log.append_event(mid, {"type": "next_frame"}, expected_seq=4)
    assert "Falta disciplinar…" not in page(created, c)


def test_with_nobody_at_the_table_the_foul_dialog_is_the_disciplinary_one(client):
    """In the decider's lot and between frames only a disciplinary foul is entered (Art. 42, 43):
    the dialog (the server's, drawn by the renderer the offline tablet uses) offers only the
    disciplinary kinds, preselects no kind and no offender (each kind charges a penalty), asks
    nothing of a stroke (no ball, retorno, snooker), keeps "Confirmar falta" off until both are
    chosen, and its preview speaks of the disciplinary foul instead of refusing a foul. It opened
    on "Outra" with the striker ticked, previewing "'foul' não é permitido agora"."""
    import re

    from scoreboard.core import log
    from scoreboard.core.matches import create_match
    from sinuca.rules import DISCIPLINARY_FOULS

    created = create_match("Ana Souza", "Bia Lima", reds=6, frames_to_win=2, first_breaker=0)
    c = Client()
    assert c.get(created.referee_url).status_code == 302
    mid = created.match.pk
    pair = [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}]
    events = pair * 3 + [{"type": "no_pot"}] + pair * 3 + [
        {"type": "pot", "balls": [2]}, {"type": "pot", "balls": [3]}, {"type": "pot", "balls": [4]},
        {"type": "foul"}, {"type": "decision", "choice": "play"}, {"type": "pot", "balls": [5]},
        {"type": "pot", "balls": [6]}, {"type": "foul"}]
    for seq, ev in enumerate(events):
        log.append_event(mid, ev, expected_seq=seq)
    s = log.snapshot(mid).state
    assert (s["phase"], s["decider"], s["scores"]) == ("lot", True, [40, 40])

    def words(html):
        return re.sub(r"<[^>]+>", "", html)  # "Art. N" is a link to the rule's words

    def dialog(lang=""):
        html = c.get(f"/matches/{mid}/referee/foul/{lang}").content.decode()
        kinds = re.findall(r'name="kind" value="([^"]*)"', html)
        assert sorted(kinds) == sorted(DISCIPLINARY_FOULS), kinds  # no "Outra", nothing of a stroke
        assert " checked" not in html, html  # no kind, no offender, no flag preselected
        assert sorted(set(re.findall(r'<input type="(?:radio|checkbox)" name="(\w+)"', html))) == [
            "grave", "kind", "player"]
        assert 'data-needs-choice="kind player"' in html
        assert re.search(r'<button class="big danger"[^>]*data-close-dialog[^>]*disabled', html)
        assert "não é permitido" not in html and "not allowed" not in html
        return words(html)

    html = dialog()
    assert "Falta disciplinar — ninguém na mesa (Art. 42, 43)" in html
    assert "Falta disciplinar (Art. 42, 43): escolha o tipo e quem cometeu" in html
    en = dialog("?lang=en")
    assert "Disciplinary foul (Art. 42, 43): choose its kind and who committed it" in en

    def preview(**fields):
        return words(c.post(f"/matches/{mid}/referee/foul/preview/", {"expected_seq": str(len(events)), **fields}
                            ).content.decode())

    # a kind without its offender, or an offender without a kind: still described, not refused
    for half in ({"kind": "slow_play"}, {"player": "1"}):
        text = preview(**half)
        assert "escolha o tipo e quem cometeu" in text and "não é permitido" not in text, text
    # both: the engine's verdict, the 7 points breaking the decider's tie (Art. 51.2, 52)
    text = preview(kind="slow_play", player="1")
    assert "7 pontos para Ana Souza (Art. 49.4)" in text and "Advertência a Bia Lima (Art. 42.1)" in text, text
    assert "Sem bola livre" not in text
    assert not Event.objects.filter(match_id=mid, seq__gt=len(events)).exists()

    # between frames: the same dialog; no points, the warning counts (the frame's result stands)
    log.append_event(mid, {"type": "lot", "player": 0}, expected_seq=len(events))
    log.append_event(mid, {"type": "pot", "balls": [7]}, expected_seq=len(events) + 1)
    assert log.snapshot(mid).state["phase"] == "frame_over"
    dialog()
    text = preview(kind="misconduct", player="0")
    assert "Sem pontos: a partida já terminou; conta a advertência ou a desclassificação (Art. 42, 43)" in text
    assert "Advertência a Ana Souza (Art. 42.1)" in text and "Sem bola livre" not in text, text
