"""Tables and people as the venue's resources: a table can be put out of service and back (the
queue never calls to it, nothing starts or moves onto it, its match in play moves off it in one
step and the table freed for that move is not refilled first), and a person is in one place at a
time across competitions sharing the database (the queue calls nobody called or in play
elsewhere; a match whose player is in play elsewhere does not start, by the desk or by its lot).

Transactional: results and calls flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import json

import pytest
from django.test import Client

from scoreboard.core import competitions, names, operations, tables
from scoreboard.core.models import Competition, Match, MatchRecord, Table
from scoreboard.live import boards

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]

PLAYERS = ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes", "Eva Prado", "Fábio Reis", "Gil Matos", "Hugo Dias"]
KNOCKOUT = {"name": "Copa", "reds": 6, "draw_seed": 3, "players": PLAYERS, "rest_minutes": 0,
            "tables": ["Mesa 1", "Mesa 2", "Mesa 3"], "stages": [{"format": "knockout", "frames_to_win": 1}]}


def api(comp_id: int, token: str, **body):
    return Client().post(f"/api/competitions/{comp_id}/actions/", json.dumps(body),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def by_number(comp: Competition) -> dict:
    s = competitions.summary(Competition.objects.get(pk=comp.pk))
    return {m["number"]: m for st in s["stages"] for m in st["matches"]}


def where(comp: Competition) -> dict:
    """fixture number -> (table, status) of every match made."""
    return {n: (m["table"], m["status"]) for n, m in by_number(comp).items() if m["match"]}


def refused(r, code: str) -> str:
    assert r.status_code == 422, r.content
    err = r.json()["error"]
    assert err["code"] == code, err
    assert " / " in err["message"]  # Portuguese and English
    return err["message"]


def test_a_table_out_of_service_takes_no_call_and_its_match_moves_off_it_in_one_step():
    created = competitions.create_competition(KNOCKOUT)
    comp, token = created.competition, created.desk_token
    assert where(comp) == {1: ("Mesa 1", "called"), 2: ("Mesa 2", "called"), 3: ("Mesa 3", "called"),
                           4: (None, "scheduled")}
    assert api(comp.pk, token, action="start", match=1).status_code == 200
    r = api(comp.pk, token, action="out_of_service", table="mesa 1", reason="pano rasgado")
    assert r.status_code == 200, r.content
    mesa1 = Table.objects.get(name="Mesa 1")
    assert mesa1.out_of_service and mesa1.out_reason == "pano rasgado"
    rec = MatchRecord.objects.get(kind="out_of_service")
    assert (rec.reason, rec.data["table"], rec.by) == ("pano rasgado", mesa1.pk, f"desk:{comp.pk}")
    assert where(comp)[1] == ("Mesa 1", "in_play")  # its match in play stays until it is moved
    screens_say_out_of_service(comp, mesa1, in_play=True)

    # bad input: a clear pt/en refusal, nothing changed
    before = (MatchRecord.objects.count(), list(Table.objects.values_list("name", "out_since", "out_reason")))
    assert "Mesa 9" in refused(api(comp.pk, token, action="out_of_service", table="Mesa 9"), "unknown_table")
    msg = refused(api(comp.pk, token, action="out_of_service", table="Mesa 1", reason="luz"), "already_out_of_service")
    assert msg.startswith("A mesa Mesa 1 já está fora de serviço (pano rasgado)")
    refused(api(comp.pk, token, action="in_service", table="Mesa 2"), "not_out_of_service")
    refused(api(comp.pk, token, action="out_of_service", table="Mesa 2", reason=7), "invalid_field")
    msg = refused(api(comp.pk, token, action="move", match=3, table="Mesa 1"), "table_out_of_service")
    assert msg == ("A mesa Mesa 1 está fora de serviço (pano rasgado): escolha outra mesa / "
                   "Table Mesa 1 is out of service (pano rasgado): choose another table")
    refused(api(comp.pk, token, action="call", match=4, table="Mesa 1"), "table_out_of_service")
    assert (MatchRecord.objects.count(), list(Table.objects.values_list("name", "out_since", "out_reason"))) == before
    assert where(comp)[4] == (None, "scheduled")

    # J2 ends on Mesa 2: the table stays free for J1's move, J4 is not called there first
    assert api(comp.pk, token, action="walkover", match=2, absent=[1], reason="não compareceu").status_code == 200
    assert where(comp)[2][1] == "walkover" and where(comp)[4] == (None, "scheduled")
    assert '<select data-table-for="1"><option>Mesa 2</option></select>' in boards.render_desk(comp.pk, "pt-br")
    # one step: no confirmation asked off a table out of service; the table's tablet follows
    assert api(comp.pk, token, action="move", match=1, table="Mesa 2").status_code == 200
    assert where(comp)[1] == ("Mesa 2", "in_play")
    assert tables.table_now(Table.objects.get(name="Mesa 2")).current.pk == by_number(comp)[1]["match"]
    assert tables.table_now(mesa1).current is None
    # the table it left is out of service: the queue does not refill it
    assert where(comp)[4] == (None, "scheduled")
    screens_say_out_of_service(comp, mesa1, in_play=False)

    # back in service: the queue calls the next match there at once
    assert api(comp.pk, token, action="in_service", table="Mesa 1").status_code == 200
    assert not Table.objects.get(name="Mesa 1").out_of_service
    assert where(comp)[4] == ("Mesa 1", "called")
    assert MatchRecord.objects.filter(kind="in_service").count() == 1
    # out of service again with J4 called there: the call is undone, J4 back in the queue
    assert api(comp.pk, token, action="out_of_service", table="Mesa 1").status_code == 200
    assert where(comp)[4] == (None, "scheduled")
    assert by_number(comp)[4]["called_at"] is None


def screens_say_out_of_service(comp, table, in_play: bool) -> None:
    """The desk, the hub, the venue and the table's own TV say "fora de serviço" (and in
    English "out of service"); the boards' fingerprint moved with the desk's change, so every
    board is pushed again."""
    from scoreboard.live import boards, event

    for lang, out in (("pt-br", "fora de serviço"), ("en", "out of service")):
        desk = boards.render_desk(comp.pk, lang)
        card = desk[desk.index('data-table="Mesa 1"'):desk.index("</article>", desk.index('data-table="Mesa 1"'))]
        assert out in card and "pano rasgado" in card
        assert "&quot;action&quot;: &quot;in_service&quot;, &quot;table&quot;: &quot;Mesa 1&quot;" in card
        assert "out_of_service" not in card
        assert ("mude o jogo para uma mesa livre" in card) == (in_play and lang == "pt-br")
        if in_play:  # its move offers the free tables only: none yet (J2, J3 are called there)
            assert '<select data-table-for="1"></select>' in card
        hub = event.render_hub(comp.pk, lang)
        card = hub[hub.index('data-table="Mesa 1"'):hub.index("</article>", hub.index('data-table="Mesa 1"'))]
        assert out in card
        venue = boards.render_board("venue", lang)
        assert out in venue
        # the other tables offer no move onto it
        assert "<option>Mesa 1</option>" not in desk
    page = Client().get(f"/tables/{table.pk}/tv/").content.decode()
    assert ("Mesa fora de serviço" in page and "pano rasgado" in page) == (not in_play)
    assert tables.table_now(Table.objects.get(pk=table.pk)).key.endswith(":out") == (not in_play)


def test_a_postponed_or_moved_match_frees_its_table_for_the_displaced_match_only():
    """Postponing a called match to make room for a match in play on a broken table called the
    next match to the freed table in the same second (four postponements before one stayed
    free)."""
    created = competitions.create_competition(KNOCKOUT)
    comp, token = created.competition, created.desk_token
    assert api(comp.pk, token, action="start", match=1).status_code == 200
    assert api(comp.pk, token, action="out_of_service", table="Mesa 1").status_code == 200
    assert api(comp.pk, token, action="postpone", match=3).status_code == 200
    w = where(comp)
    assert w[3] == (None, "scheduled") and w[4] == (None, "scheduled")  # Mesa 3 kept for J1
    assert api(comp.pk, token, action="move", match=1, table="Mesa 3").status_code == 200
    assert where(comp)[1] == ("Mesa 3", "in_play")


def two_competitions(second_players):
    a = competitions.create_competition({"name": "Aberto", "reds": 6, "draw_seed": 1, "rest_minutes": 0,
                                         "players": [{"name": "Jogador 8", "club": "Clube"}, "Ana Souza"],
                                         "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]})
    b = competitions.create_competition({"name": "Sênior", "reds": 6, "draw_seed": 1, "rest_minutes": 0,
                                         "players": second_players,
                                         "tables": ["Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}]})
    return a, b


def test_a_person_called_in_one_competition_is_not_called_in_another():
    a, b = two_competitions([{"name": "JOGADOR  8", "club": "clube"}, "Bia Lima"])
    assert where(a.competition)[1] == ("Mesa 1", "called")
    assert where(b.competition)[1] == (None, "scheduled")  # Jogador 8 is called to Mesa 1
    # his match there ends: the other competition calls him now
    assert api(a.competition.pk, a.desk_token, action="walkover", match=1, absent=[1], reason="não compareceu").status_code == 200
    assert where(b.competition)[1] == ("Mesa 2", "called")


def test_a_match_whose_player_is_in_play_elsewhere_does_not_start():
    a, b = two_competitions([{"name": "Jogador 8", "club": "Clube"}, "Bia Lima"])
    comp_a, comp_b = a.competition, b.competition
    assert api(comp_a.pk, a.desk_token, action="start", match=1).status_code == 200  # in play on Mesa 1
    assert where(comp_b)[1] == (None, "scheduled")
    # the desk calls it by hand: allowed (the desk decides), but it cannot start
    assert api(comp_b.pk, b.desk_token, action="call", match=1, table="Mesa 2").status_code == 200
    msg = refused(api(comp_b.pk, b.desk_token, action="start", match=1), "player_busy")
    other = by_number(comp_a)[1]["match"]
    assert msg.startswith(f"Jogador 8 está em jogo na mesa 1, no jogo {other} (J1: ")
    assert f"/ Jogador 8 is playing at table 1, in match {other} (M1: " in msg
    # nor by its referee's first tap (the lot): refused, nothing stored
    m = Match.objects.get(pk=by_number(comp_b)[1]["match"])
    token = operations.issue_token(m, "test")
    r = Client().post(f"/api/matches/{m.pk}/events/", json.dumps({"event": {"type": "lot", "player": 0}}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert refused(r, "player_busy") == msg
    m.refresh_from_db()
    assert (m.seq, m.started_at) == (0, None)


def test_identity_folds_case_spacing_and_unicode_form():
    import unicodedata

    nfd = unicodedata.normalize("NFD", "José Araújo")
    assert names.identity(nfd) == names.identity(" JOSÉ  ARAÚJO ") == names.identity("josé araújo")
    assert names.identity("Ana Souza") != names.identity("Ana Sousa")
    assert names.identity(None) == ""


def test_the_served_not_before_time_is_never_later_than_the_queue_can_call():
    """"Não antes de ~12:30" was shown for a semi-final called at 10:47 when the day ran early:
    the time was a projection of durations. Now it is the feeders' state plus the rest: with
    both semi-finals in play and 10 minutes' rest, the final reads no later than the earliest
    moment the queue may call it once both end (the competition's stored wake-up)."""
    import re
    from datetime import timedelta

    from django.utils import timezone

    created = competitions.create_competition({**KNOCKOUT, "players": PLAYERS[:4], "rest_minutes": 10,
                                               "tables": ["Mesa 1", "Mesa 2"],
                                               "stages": [{"format": "knockout", "frames_to_win": 3}]})
    comp, token = created.competition, created.desk_token
    c = Client()
    for n in (1, 2):
        assert api(comp.pk, token, action="start", match=n, lot=0).status_code == 200

    def shown() -> str:
        body = c.get(f"/competitions/{comp.pk}/?view=schedule").content.decode()
        return body.split('id="s-J3"')[1].split("</li>")[0]

    def clock(text: str):
        """The row's "não antes de ~HH:MM" as a time within 12 hours of now."""
        got = re.search(r"não antes de ~(\d\d):(\d\d)", text)
        assert got, text
        now = timezone.localtime()
        at = now.replace(hour=int(got[1]), minute=int(got[2]), second=0, microsecond=0)
        return at + timedelta(days=1) if at < now - timedelta(hours=12) else at

    at = clock(shown())
    # both semi-finals end at once (concessions): the queue may call the final after the rest
    for n in (1, 2):
        m = Match.objects.get(fixture__competition=comp, fixture__number=n)
        tok = operations.issue_token(m, "test")
        r = Client().post(f"/api/matches/{m.pk}/events/", json.dumps({"event": {"type": "concede_match", "player": 1}}),
                          content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tok}")
        assert r.status_code == 201, r.content
    comp.refresh_from_db()
    assert where(comp)[3] == (None, "scheduled") and comp.due_at is not None
    assert at <= comp.due_at, (at, comp.due_at)
    assert comp.due_at - at < timedelta(minutes=6)  # and it says something: the rest, rounded down
    # the semi-finals over, the final still reads the rest's end, rounded down
    assert at <= clock(shown()) <= comp.due_at


def test_a_person_rests_after_a_match_played_in_another_competition():
    """Jogador 8 ended a match in the open and the seniors' queue called him at once: the rest
    counted only the competition's own matches. His rest runs from his last match wherever he
    played it; the seniors' queue stores its due time and calls him when it ends."""
    from datetime import timedelta
    from unittest import mock

    from django.utils import timezone

    clock = [timezone.now()]
    with mock.patch("django.utils.timezone.now", lambda: clock[0]):
        a = competitions.create_competition({"name": "Aberto", "reds": 6, "draw_seed": 1, "rest_minutes": 10,
                                             "players": [{"name": "Jogador 8", "club": "Clube"}, "Ana Souza"],
                                             "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]})
        b = competitions.create_competition({"name": "Sênior", "reds": 6, "draw_seed": 1, "rest_minutes": 10,
                                             "players": [{"name": "Jogador 8", "club": "Clube"}, "Bia Lima"],
                                             "tables": ["Mesa 2"], "stages": [{"format": "knockout", "frames_to_win": 1}]})
        m = Match.objects.get(pk=by_number(a.competition)[1]["match"])
        for seq, ev in enumerate(({"type": "lot", "player": 0}, {"type": "concede", "player": 1})):
            clock[0] += timedelta(minutes=2)
            from scoreboard.core import log

            log.append_event(m.pk, ev, expected_seq=seq)
        ended = clock[0]
        assert by_number(a.competition)[1]["status"] == "finished"
        assert where(b.competition)[1] == (None, "scheduled")  # resting: not called yet
        due = Competition.objects.get(pk=b.competition.pk).due_at
        assert due is not None and ended + timedelta(minutes=10) <= due < ended + timedelta(minutes=11)
        clock[0] = ended + timedelta(minutes=9)
        assert competitions.run_due(clock[0]) == []
        clock[0] = due
        assert competitions.run_due(clock[0]) == [b.competition.pk]
        assert where(b.competition)[1] == ("Mesa 2", "called")
        assert by_number(b.competition)[1]["called_at"] == due.isoformat()
