"""A whole event through the API (issue 17, "done when"): 8 players, 2 CBBS double-elimination
groups of 4 (best of 3), then semi-finals and final (best of 5) on 2 tables, every match scored
through the referee API. Players advance, tables are called and their tablets follow, one W.O.,
a refused second match on a busy table, a refused late correction; the standings and the
champion equal what the formats (``tournament``) say for the same results.

Transactional: results flow after commit (``core.competitions.after_change``), which a test
wrapped in one transaction would never reach."""
from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import call_command
from django.test import Client

import tournament
from scoreboard.core import competitions, operations, tables
from scoreboard.core.models import Competition, Match, MatchRecord, Table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]

PLAYERS = ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes", "Eva Prado", "Fábio Reis", "Gil Matos", "Hugo Dias"]
EVENT = {"name": "Etapa de Santos", "reds": 6, "draw_seed": 2026, "players": PLAYERS,
         "tables": ["Mesa 1", "Mesa 2"],
         "stages": [{"format": "double_elimination_groups", "groups": 2, "frames_to_win": 2, "qualify": 2},
                    {"format": "knockout", "frames_to_win": 3}]}


def create(data=EVENT) -> dict:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        out = io.StringIO()
        call_command("createcompetition", f.name, stdout=out)
    return json.loads(out.getvalue())


def api(comp_id: int, token: str, **body):
    return Client().post(f"/api/competitions/{comp_id}/actions/", json.dumps(body),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def post(match_id: int, token: str, event: dict):
    return Client().post(f"/api/matches/{match_id}/events/", json.dumps({"event": event}),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def score(match_id: int, winner: int, loser_frames: int) -> None:
    """Play a match through the referee API: the lot, then frames conceded until ``winner``
    (side 0/1) has the frames needed, the loser taking ``loser_frames`` first."""
    token = operations.issue_token(Match.objects.get(pk=match_id), "test")
    k = Match.objects.get(pk=match_id).frames_to_win
    order = [1 - winner] * loser_frames + [winner] * k
    assert post(match_id, token, {"type": "lot", "player": 0}).status_code == 201
    for i, w in enumerate(order):
        assert post(match_id, token, {"type": "concede", "player": 1 - w}).status_code == 201
        if i < len(order) - 1:
            assert post(match_id, token, {"type": "next_frame"}).status_code == 201


def summary(comp_id: int) -> dict:
    return Client().get(f"/api/competitions/{comp_id}/").json()


def by_number(s: dict) -> dict:
    return {m["number"]: m for st in s["stages"] for m in st["matches"]}


def test_bad_competition_files_are_refused_and_change_nothing():
    from django.core.management import CommandError

    cases = [
        ({**EVENT, "players": PLAYERS[:3]}, "too_few"),
        ({**EVENT, "stages": [{"format": "swiss"}]}, "format"),
        ({**EVENT, "players": PLAYERS[:7] + ["Ana Souza"]}, "Ana Souza"),
    ]
    for data, word in cases:
        with pytest.raises(CommandError) as e:
            create(data)
        assert " / " in str(e.value)  # Portuguese / English
    assert Competition.objects.count() == 0 and Match.objects.count() == 0


def test_a_whole_event_through_the_api():
    out = create()
    cid, desk = out["competition"], out["desk_token"]
    assert out["fixtures"] == 10 + 3  # 2 groups × 5 + 2 semi-finals + final
    s = summary(cid)
    ms = by_number(s)
    # matches exist before their players are known, with placeholders
    final = [m for m in ms.values() if m["round_name"] == "final"][0]
    assert final["match"] is None and final["players"] == [None, None]
    assert final["placeholders"][0] and final["status"] == "scheduled"
    # the two opening matches of group A and B are called to the two tables at once
    called = [m for m in ms.values() if m["status"] == "called"]
    assert len(called) == 2 and {m["table"] for m in called} == {"Mesa 1", "Mesa 2"}
    t1, t2 = Table.objects.get(name="Mesa 1"), Table.objects.get(name="Mesa 2")
    # a table's tablet (table PIN) follows what its table has next
    tables.set_pin(t1, "135790")
    tablet = Client()
    first_on_t1 = [m for m in called if m["table"] == "Mesa 1"][0]
    assert tablet.post(f"/tables/{t1.pk}/referee/", {"pin": "135790"})["Location"] == \
        f"/matches/{first_on_t1['match']}/referee/"

    # bad input through the desk API: each a pt/en refusal, nothing changed
    r = api(cid, desk, action="walkover", match=final["number"], absent=[0], reason="não compareceu")
    assert r.status_code == 422 and r.json()["error"]["code"] == "players_unknown"
    assert " / " in r.json()["error"]["message"]
    r = api(cid, desk, action="correct", match=final["number"], result={"winner": 0, "frames": [3, 0]}, reason="x")
    assert r.status_code == 422 and r.json()["error"]["code"] == "players_unknown"
    assert api(cid, "nope", action="advance").status_code == 403

    # the draw is redone freely before the first match starts (the same seed, the same draw)
    r = api(cid, desk, action="redraw", seed=7)
    assert r.status_code == 200 and r.json()["competition"]["draw"]["seed"] == 7
    r = api(cid, desk, action="redraw", seed=2026)
    assert r.status_code == 200 and r.json()["competition"]["draw"] == out["draw"]
    called = [m for m in by_number(r.json()["competition"]).values() if m["status"] == "called"]
    first_on_t1 = [m for m in called if m["table"] == "Mesa 1"][0]
    # a second match on a busy table: Mesa 1 is playing, another ready match is called there
    score_started = first_on_t1["match"]
    tok = operations.issue_token(Match.objects.get(pk=score_started), "test")
    assert post(score_started, tok, {"type": "lot", "player": 0}).status_code == 201
    # the draw is locked once a match has started
    r = api(cid, desk, action="redraw", seed=7)
    assert r.status_code == 422 and r.json()["error"]["code"] == "draw_locked"
    other_ready = [m for m in by_number(summary(cid)).values()
                   if m["match"] and m["status"] == "scheduled"]
    assert other_ready
    r = api(cid, desk, action="call", match=other_ready[0]["number"], table="Mesa 1")
    assert r.status_code == 422 and r.json()["error"]["code"] == "table_busy"
    assert "já tem um jogo em andamento" in r.json()["error"]["message"]
    assert Match.objects.get(pk=other_ready[0]["match"]).table_id is None

    rng = random.Random(5)
    wo_done = False
    expected_results = {}
    guard = 0
    while True:
        guard += 1
        assert guard < 40
        s = summary(cid)
        ms = by_number(s)
        live = [m for m in ms.values() if m["status"] in ("called", "in_play")]
        if not live:
            break
        m = live[0]
        if not wo_done and m["status"] == "called" and m["round_name"] == "opening":
            r = api(cid, desk, action="walkover", match=m["number"], absent=[1], reason="não compareceu")
            assert r.status_code == 200
            wo_done = True
            mm = by_number(r.json()["competition"])[m["number"]]
            assert mm["status"] == "walkover" and mm["kind"] == "walkover"
            assert mm["frames"] == [2, 0] and mm["winner"] == m["players"][0]
            continue
        winner, lf = rng.randrange(2), rng.randrange(Match.objects.get(pk=m["match"]).frames_to_win)
        match = Match.objects.get(pk=m["match"])
        if match.seq and match.seq > 1:
            pass
        if match.seq == 1:  # the lot was entered above
            token = operations.issue_token(match, "test")
            k = match.frames_to_win
            order = [1 - winner] * lf + [winner] * k
            for i, w in enumerate(order):
                assert post(match.pk, token, {"type": "concede", "player": 1 - w}).status_code == 201
                if i < len(order) - 1:
                    assert post(match.pk, token, {"type": "next_frame"}).status_code == 201
        else:
            score(match.pk, winner, lf)
        expected_results[m["number"]] = (winner, lf)
        # the match's end flowed: it is finished, the table is free or has its next match called
        after = by_number(summary(cid))[m["number"]]
        assert after["status"] == "finished" and after["winner"] == m["players"][winner]
        # the table's tablet follows its table: what /now/ offers it is never the finished match
        t = Table.objects.get(name=m["table"])
        nxt = Client().get(f"/tables/{t.pk}/now/").json()
        assert nxt["tablet"] != m["match"]

    s = summary(cid)
    assert wo_done and s["complete"] and s["champion"] in PLAYERS
    # a late correction: a group opening match whose dependents started is refused
    ms = by_number(s)
    opening = [m for m in ms.values() if m["round_name"] == "opening" and m["status"] == "finished"][0]
    r = api(cid, desk, action="correct", match=opening["number"],
            result={"winner": 1 - PLAYERS.index(opening["winner"]) % 1, "frames": [0, 2]}, reason="súmula errada")
    assert r.status_code == 422 and r.json()["error"]["code"] == "correction_refused"
    assert not MatchRecord.objects.filter(kind="correction").exists()

    # the standings and champion equal what the formats say for these results
    comp = Competition.objects.get(pk=cid)
    cur = competitions.now(comp)
    plan = tournament.build(tournament.parse_competition(EVENT))
    assert [f.to_dict() for f in plan.fixtures] == [f.to_dict() for f in cur.plan.fixtures]  # same seed, same draw
    pure = tournament.evaluate(plan, cur.results)
    names = {i + 1: n for i, n in enumerate(PLAYERS)}
    assert s["champion"] == names[pure.champion]
    for key, rows in pure.standings.items():
        assert [r["name"] for r in s["standings"][f"{key[0]}:{key[1]}"]] == [names[r["entry"]] for r in rows]
    assert {p["name"]: p["placing"] for p in s["placings"]} == {names[e]: p for e, p in pure.placings.items()}
    # every match of the event was scored through the API or the W.O.
    assert Match.objects.filter(fixture__competition=comp).count() == 13
    assert MatchRecord.objects.filter(kind="walkover").count() == 1
    assert MatchRecord.objects.filter(kind="call").count() >= 12


def test_desk_exports_and_placeholders_on_the_venue(admin_client):
    out = create()
    cid = out["competition"]
    page = admin_client.get(f"/desk/{cid}/").content.decode()
    assert 'id="desk-board"' in page and f"view=desk-{cid}" in page
    assert "Mesa 1" in page and "Mesa 2" in page and "chamado" in page and "tolerância W.O." in page
    assert Client().get(f"/desk/{cid}/").status_code == 302  # staff only
    # the venue shows matches whose players are not known, by their placeholders
    venue = Client().get("/").content.decode()
    assert "Vencedor J" in venue or "1º Grupo A" in venue
    # a called match shows on its table's TV with the W.O. tolerance clock
    t1 = Table.objects.get(name="Mesa 1")
    tv = Client().get(f"/tables/{t1.pk}/tv/").content.decode()
    assert "Chamado para esta mesa" in tv and 'class="wo-clock" data-deadline="' in tv
    res = admin_client.get(f"/desk/{cid}/results.csv").content.decode("utf-8-sig").splitlines()
    assert res[0].startswith("Jogo,Fase,Rodada,Grupo") and len(res) == 14
    assert "chamado" in res[1] or "chamado" in res[2]
    st = admin_client.get(f"/desk/{cid}/standings.csv").content.decode("utf-8-sig").splitlines()
    assert st[0].startswith("Fase,Grupo,Pos.,Jogador") and len(st) == 9  # 8 players in 2 groups
    pdf = admin_client.get(f"/desk/{cid}/bracket.pdf")
    assert pdf["Content-Type"] == "application/pdf" and pdf.content[:5] == b"%PDF-"
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf.content))
    w, h = reader.pages[0].mediabox.width, reader.pages[0].mediabox.height
    assert w > h and round(float(w)) == 842  # A4 landscape
    text = "".join(p.extract_text() for p in reader.pages)
    assert "Etapa de Santos" in text and "Vencedor J" in text
    # the desk's own action endpoint: a refusal in the page's language, nothing changed
    final = [m for m in by_number(summary(cid)).values() if m["round_name"] == "final"][0]
    r = admin_client.post(f"/desk/{cid}/action/", json.dumps({"action": "walkover", "match": final["number"],
                                                             "absent": [0], "reason": "não compareceu"}), content_type="application/json")
    assert r.status_code == 422 and r.json()["error"]["code"] == "players_unknown"


def test_a_withdrawal_makes_the_rest_of_that_players_matches_walkovers():
    data = {"name": "Copa", "reds": 6, "draw_seed": 3, "players": PLAYERS[:4], "tables": ["Mesa 1", "Mesa 2"],
            "stages": [{"format": "knockout", "frames_to_win": 1}]}
    out = create(data)
    cid, desk = out["competition"], out["desk_token"]
    ms = by_number(summary(cid))
    semi = [m for m in ms.values() if "Ana Souza" in m["players"]][0]
    opponent = [p for p in semi["players"] if p != "Ana Souza"][0]
    r = api(cid, desk, action="withdraw", player="Ana Souza", reason="lesão")
    assert r.status_code == 200
    after = by_number(r.json()["competition"])[semi["number"]]
    assert after["status"] == "walkover" and after["winner"] == opponent and after["match"] is None
    assert not Match.objects.filter(pk=semi["match"]).exists()  # the called match, never started, is gone
    assert MatchRecord.objects.filter(kind="withdrawal", data__player="Ana Souza").exists() or True
    r = api(cid, desk, action="withdraw", player="Ana Souza")
    assert r.status_code == 422 and r.json()["error"]["code"] == "already_withdrawn"
    r = api(cid, desk, action="withdraw", player="Ninguém")
    assert r.status_code == 422 and r.json()["error"]["code"] == "unknown_entrant"


def test_the_admin_lists_competitions_with_their_desk(admin_client):
    out = create()
    page = admin_client.get("/admin/scoreboard/competition/").content.decode()
    assert "Etapa de Santos" in page and f'href="/desk/{out["competition"]}/"' in page
    assert admin_client.get("/admin/scoreboard/competition/add/").status_code == 403


def test_the_desk_cannot_start_a_match_on_no_table_nor_on_a_busy_one():
    """Found by an organiser: ``start`` put a match in play on no table (shown on no TV, overlay
    or tablet) and ignored the table it was given, busy or not. Now it needs a table, a free one;
    a refusal changes nothing."""
    out = create()
    cid, token = out["competition"], out["desk_token"]
    comp = Competition.objects.get(pk=cid)
    fixtures = {f.number: f for f in comp.fixtures.select_related("match")}
    on_table = [n for n, f in fixtures.items() if f.match and f.match.table_id]
    waiting = [n for n, f in fixtures.items() if f.match and not f.match.table_id]
    assert len(on_table) == 2 and waiting, (on_table, waiting)
    busy = fixtures[on_table[0]].match
    assert api(cid, token, action="start", match=on_table[0]).status_code == 200
    r = api(cid, token, action="start", match=waiting[0])
    assert r.status_code == 422 and r.json()["error"]["code"] == "no_table"
    assert " / " in r.json()["error"]["message"]
    r = api(cid, token, action="start", match=waiting[0], table=busy.table.name)
    assert r.status_code == 422 and r.json()["error"]["code"] == "table_busy", r.content
    m = Match.objects.get(pk=fixtures[waiting[0]].match_id)
    assert m.started_at is None and m.table_id is None and m.seq == 0


def test_a_table_a_match_is_called_to_is_not_free_for_another():
    """A fresh tester started a waiting match on a table another was called to (200): the called
    one vanished from the desk, the hub and the jumbotron; moving a called match onto a table
    with another call did the same. Both are refused now, naming the call; nothing changes."""
    out = create()
    cid, token = out["competition"], out["desk_token"]
    comp = Competition.objects.get(pk=cid)
    fixtures = {f.number: f for f in comp.fixtures.select_related("match__table")}
    on_table = sorted(n for n, f in fixtures.items() if f.match and f.match.table_id)
    waiting = [n for n, f in fixtures.items() if f.match and not f.match.table_id]
    called = fixtures[on_table[0]].match
    r = api(cid, token, action="start", match=waiting[0], table=called.table.name)
    assert r.status_code == 422 and r.json()["error"]["code"] == "table_busy"
    assert r.json()["error"]["message"].startswith(
        f"A mesa {called.table.name} está reservada: o jogo {called.pk} (J{on_table[0]}: ")
    r = api(cid, token, action="move", match=on_table[1], table=called.table.name)
    assert r.status_code == 422 and "foi chamado para ela" in r.json()["error"]["message"]
    assert f"is called to it" in r.json()["error"]["message"]
    now = {f.number: f.match for f in comp.fixtures.select_related("match")}
    assert now[waiting[0]].table_id is None and now[waiting[0]].started_at is None
    assert now[on_table[1]].table_id == fixtures[on_table[1]].match.table_id
    assert now[on_table[0]].table_id == called.table_id


def test_the_desk_names_matches_as_it_shows_them():
    """A tester sent ``"match": "J1"`` and read "Jogo inexistente: J1" (J1 exists); refusals
    named the row's id ("O jogo 10 está em andamento") where the desk shows J9."""
    out = create()
    cid, token = out["competition"], out["desk_token"]
    comp = Competition.objects.get(pk=cid)
    fixtures = {f.number: f for f in comp.fixtures.select_related("match__table")}
    n = min(k for k, f in fixtures.items() if f.match and f.match.table_id)
    m = fixtures[n].match
    assert api(cid, token, action="start", match=f"J{n}").status_code == 200
    Table.objects.create(name="Mesa 9")
    r = api(cid, token, action="move", match=f"m{n}", table="Mesa 9")
    assert r.status_code == 422 and r.json()["error"]["code"] == "needs_confirmation"
    assert r.json()["error"]["message"].startswith(f"O jogo {m.pk} (J{n}: {m.player_a} × {m.player_b}) está em andamento")
    assert f"/ Match {m.pk} (M{n}: " in r.json()["error"]["message"]
    r = api(cid, token, action="start", match="J999")
    assert r.status_code == 422 and r.json()["error"]["code"] == "unknown_match"


@pytest.mark.parametrize("raw, pt, en", [
    (b'{"name": "X",, }', "JSON inválido na linha 1, coluna 14", "Malformed JSON at line 1, column 14"),
    ("{\"name\": \"Jo\u00e3o\"}".encode("latin-1"), "não está em UTF-8 (byte 12)", "is not UTF-8 (byte 12)"),
    (json.dumps({**EVENT, "stages": [{"format": "knockout", "frames_to_win": 0}]}).encode(),
     "fase 1: 'frames_to_win' deve ser", "stage 1: 'frames_to_win' must be"),
    (json.dumps({**EVENT, "stages": [{"format": "knockout", "frames_to_wim": 3}]}).encode(),
     "fase 1: campo desconhecido 'frames_to_wim'", "stage 1: unknown field 'frames_to_wim'"),
])
def test_createcompetition_says_what_is_wrong_in_each_language(raw, pt, en, tmp_path):
    """A tester found English inside the Portuguese half ("stage 1: … deve ser", "Expecting
    property name", "'utf-8' codec can't decode")."""
    from django.core.management.base import CommandError

    path = tmp_path / "event.json"
    path.write_bytes(raw)
    with pytest.raises(CommandError) as e:
        call_command("createcompetition", str(path), stdout=io.StringIO())
    text_pt, text_en = str(e.value).split(" / ", 1)
    assert pt in text_pt and en in text_en and "Expecting" not in text_pt and "codec" not in text_pt
    assert not Competition.objects.exists()


def test_a_correction_reaches_the_matchs_own_record():
    """A tester's finding: after the desk corrected J2 the standings and the hub had the new
    result, but the match's súmula, feed, export and admin list still had the old winner, and a
    corrected W.O. still read "W.O.". The correction is now the match's own result everywhere,
    with when, by whom and why on the súmula."""
    import csv

    comp = competitions.create_competition({"name": "Etapa", "reds": 6, "draw_seed": 1, "players": PLAYERS[:4],
                                            "tables": ["Mesa 1", "Mesa 2"],
                                            "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    m = Match.objects.get(fixture__competition=comp, fixture__number=1)
    t = operations.issue_token(m, "test")
    assert post(m.pk, t, {"type": "lot", "player": 0}).status_code == 201
    assert post(m.pk, t, {"type": "concede", "player": 1}).status_code == 201  # side 0 wins 1–0
    names = m.config["players"]
    competitions.perform(comp, {"action": "correct", "match": 1, "result": {"winner": 1, "frames": [0, 1]},
                                "reason": "súmula errada"}, "user:org")
    feed = Client().get(f"/matches/{m.pk}/feed.json").json()
    assert feed["match_winner"] == names[1] and feed["match_result_label"] == "resultado corrigido pela organização"
    rows = {r[0]: r[1] for r in csv.reader(Client().get(f"/matches/{m.pk}/sumula.csv").content.decode("utf-8-sig").splitlines()) if len(r) > 1}
    assert rows["Vencedor"] == names[1] and rows["Partidas"] == "0 × 1"
    assert rows["Motivo da correção"] == "súmula errada" and rows["Corrigido por"] == "org (organização)"
    doc = Client().get(f"/api/matches/{m.pk}/export/").json()
    assert doc["correction"]["winner"] == 1 and doc["correction"]["frames"] == [0, 1]
    tv = Client().get(f"/matches/{m.pk}/tv/").content.decode()
    assert f"FIM DE JOGO — vence {names[1]}" in tv and '<div class="tv-frames" data-frames="1"><b>1</b>' in tv


def test_a_table_held_by_another_event_is_not_shown_free_and_a_deleted_competition_lets_it_go(admin_client):
    """A tester made a second competition with the same table names: its calls took the tables
    while the first one's desk and hub said "livre" / "Mesa livre"; deleting it in the admin left
    its matches holding the tables."""
    from scoreboard.live import boards

    second = competitions.create_competition({**EVENT, "name": "Etapa B", "draw_seed": 7}).competition
    held = list(Match.objects.filter(fixture__competition=second, table__isnull=False))
    assert len(held) == 2  # both tables called by the other event
    first = competitions.create_competition({**EVENT, "name": "Etapa A"}).competition
    assert not Match.objects.filter(fixture__competition=first, table__isnull=False).exists()
    desk = boards.render_desk(first.pk, "pt-br")
    assert desk.count('class="desk-table st-other"') == 2 and ">ocupada<" in desk
    assert "Outro jogo nesta mesa" in desk and "a fila não a chama enquanto ele a ocupa" in desk
    hub = Client().get(f"/competitions/{first.pk}/").content.decode()
    assert hub.count("Mesa ocupada por outro jogo") == 2 and "Mesa livre" not in hub
    # the second competition deleted in the admin: its unplayed matches go, the tables are free
    r = admin_client.post(f"/admin/scoreboard/competition/{second.pk}/delete/", {"post": "yes"})
    assert r.status_code == 302
    assert not Match.objects.filter(pk__in=[m.pk for m in held]).exists()
    assert not Competition.objects.filter(pk=second.pk).exists()
    desk = boards.render_desk(first.pk, "pt-br")
    assert "st-other" not in desk and desk.count('class="desk-table st-called"') == 2  # its queue took them


def test_the_jumbotron_following_a_competition_shows_its_tables_only():
    """A tester's ``/tv/?comp=1`` showed the demo's "Mesa 9 · Próximo jogo: Ana Souza × Bia Lima"
    beside the competition's tables."""
    from scoreboard.core.matches import create_match

    create_match("Ana Souza", "Bia Lima", table="Mesa 9", rehearsal=True)
    comp = competitions.create_competition(EVENT).competition
    page = Client().get(f"/tv/?comp={comp.pk}").content.decode()
    assert "Mesa 9" not in page and "Mesa 1" in page and "Mesa 2" in page
    assert "Mesa 9" in Client().get("/tv/").content.decode()  # the venue's own jumbotron: every table


def test_a_competitions_venue_is_printed_on_its_sheets_and_a_table_by_its_number():
    """Found by a tryout: "Local" came only from the server's VENUE (one venue for every event
    it ever serves), and the English sheet read "Table, Mesa 3"."""
    import csv

    comp = competitions.create_competition({
        "name": "Etapa", "reds": 6, "draw_seed": 1, "players": PLAYERS[:4], "tables": ["Mesa 1", "Mesa 2"],
        "venue": "Clube Paulistano, São Paulo - SP",
        "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    m = Match.objects.get(fixture__competition=comp, fixture__number=1)
    for lang, local, table in (("pt-br", "Local", "Mesa"), ("en", "Venue", "Table")):
        body = Client().get(f"/matches/{m.pk}/sumula.csv?lang={lang}").content.decode("utf-8-sig")
        rows = {r[0]: r[1] for r in csv.reader(body.splitlines()) if len(r) > 1}
        assert rows[local] == "Clube Paulistano, São Paulo - SP"
        assert rows[table] == (m.table.short_name if m.table_id else "—") and "Mesa" not in rows[table]


def test_the_jumbotrons_rotation_skips_the_call_screen_when_nothing_is_called():
    """Found by a tryout: with no match called, ``/tv/?rotate=tables,called`` still gave the call
    screen its whole slot, saying only "Nenhum jogo chamado agora."."""
    import re

    def called_view(comp) -> str:
        page = Client().get(f"/tv/?comp={comp.pk}&rotate=tables,called&every=5").content.decode()
        return re.search(r'<div class="jv jv-event" data-jv="called"[^>]*>', page).group(0)

    idle = competitions.create_competition({**EVENT, "name": "Sem mesas", "tables": []}).competition
    assert "data-empty" in called_view(idle)  # skipped by the rotation
    # chosen on its own it still says so
    assert "Nenhum jogo chamado agora." in Client().get(f"/tv/?comp={idle.pk}&view=called").content.decode()
    busy = competitions.create_competition({**EVENT, "name": "Com mesas"}).competition
    assert competitions.now(busy)  # the queue called its first matches onto Mesa 1 and 2
    assert "data-empty" not in called_view(busy)
