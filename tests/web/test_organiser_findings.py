"""Findings of an organiser trying the tournament day (issue 17): the demo match of
``scripts/run.sh`` and the competition's queue, the W.O. súmula, the desk's call on a match of
unknown players, the stage labels on the venue, the admin's words and its competition page, and
the semi-final / final path with its exports.

Transactional where results must flow: a match's end reaches the competition after commit
(``core.competitions.after_change``), which a test wrapped in one transaction never reaches."""
from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command
from django.test import Client

from ops_helpers import fresh_engines, fresh_stats  # noqa: F401  (forget cached engines: ids repeat)
from scoreboard.core import competitions, operations
from scoreboard.core.models import Competition, Fixture, Match, MatchRecord, Table
from test_competition_event import by_number, create, post, score, summary
from test_out_of_the_box import run_sh_demo_args

PLAYERS = ["Ana Souza", "Bia Lima", "Caio Rocha", "Davi Nunes"]
# two groups of two (a round robin of one match each), then the final: small enough to walk
GROUPS_THEN_FINAL = {"name": "Copa da Baixada", "reds": 6, "draw_seed": 11, "players": PLAYERS,
                     "tables": ["Mesa 1", "Mesa 2"],
                     "stages": [{"format": "round_robin_groups", "groups": 2, "frames_to_win": 1, "qualify": 1},
                                {"format": "knockout", "frames_to_win": 1}]}


def demo() -> dict:
    out = io.StringIO()
    call_command("creatematch", *run_sh_demo_args(), stdout=out)
    return json.loads(out.getvalue())


def called_tables(cid: int) -> dict:
    """table name -> fixture number called to it."""
    return {m["table"]: m["number"] for m in by_number(summary(cid)).values() if m["status"] == "called"}


# -- 1. the demo match and the queue -------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_the_demo_match_holds_no_table_and_run_sh_can_run_again():
    """The demo was created in progress on Mesa 1: a competition using Mesa 1 could not call it,
    and a second ``scripts/run.sh`` failed (Mesa 1 busy). Now it waits on Mesa 1 as a rehearsal
    (never an official result), a new run replaces it, and the competition calls both tables."""
    first = demo()
    m = Match.objects.get(pk=first["match"])
    assert m.rehearsal and m.started_at is None and m.table.name == "Mesa 1"
    second = demo()  # run.sh again: the earlier demo, never played, is replaced
    assert not Match.objects.filter(pk=first["match"]).exists()
    assert Match.objects.filter(rehearsal=True).count() == 1
    # the table's screens show the demo as its next match
    t1 = Table.objects.get(name="Mesa 1")
    assert "Ana Souza" in Client().get(f"/tables/{t1.pk}/overlay/").content.decode()
    out = create(GROUPS_THEN_FINAL)
    assert set(called_tables(out["competition"])) == {"Mesa 1", "Mesa 2"}
    # the demo made way for the competition's call: the table's tablet goes to the called match
    assert not Match.objects.filter(pk=second["match"]).exists()
    now = Client().get(f"/tables/{t1.pk}/now/").json()
    assert now["tablet"] == by_number(summary(out["competition"]))[called_tables(out["competition"])["Mesa 1"]]["match"]


@pytest.mark.django_db(transaction=True)
def test_a_table_freed_by_a_match_of_no_competition_is_called_by_the_queue():
    """A match outside the competition (the demo, played) held Mesa 1; when it ended, the table
    stayed free: only a match of the competition itself made its queue call. Now any match that
    ends on a table lets the competitions using that table call it."""
    info = demo()
    token = info["referee_token"]
    assert post(info["match"], token, {"type": "concede", "player": 1}).status_code == 201  # first event: in play
    out = create(GROUPS_THEN_FINAL)
    cid = out["competition"]
    assert set(called_tables(cid)) == {"Mesa 2"}  # Mesa 1 is in play with the demo
    assert post(info["match"], token, {"type": "next_frame"}).status_code == 201
    assert post(info["match"], token, {"type": "concede", "player": 1}).status_code == 201  # 2 × 0: over
    assert Match.objects.get(pk=info["match"]).seq == 3
    calls = called_tables(cid)
    assert set(calls) == {"Mesa 1", "Mesa 2"}
    rec = MatchRecord.objects.filter(kind="call", data__table=Table.objects.get(name="Mesa 1").pk).get()
    assert rec.by == "auto" and rec.data["fixture"] == calls["Mesa 1"]


@pytest.mark.django_db(transaction=True)
def test_a_table_freed_in_one_competition_is_called_by_another_using_it():
    """Two competitions share Mesa 1: the end of the first's match on it lets the second call it
    when the first has nothing left to call there."""
    one = create({**GROUPS_THEN_FINAL, "name": "Copa A", "tables": ["Mesa 1"],
                  "stages": [{"format": "knockout", "frames_to_win": 1}], "players": PLAYERS[:2]})
    two = create({**GROUPS_THEN_FINAL, "name": "Copa B", "tables": ["Mesa 1"],
                  "players": ["Eva Prado", "Fábio Reis", "Gil Matos", "Hugo Dias"],
                  "stages": [{"format": "knockout", "frames_to_win": 1}]})
    assert set(called_tables(one["competition"])) == {"Mesa 1"} and not called_tables(two["competition"])
    final = by_number(summary(one["competition"]))[1]
    score(final["match"], 0, 0)
    assert summary(one["competition"])["complete"]
    assert set(called_tables(two["competition"])) == {"Mesa 1"}


# -- 3. the desk's call of a match whose players are not known ----------------------------------

@pytest.mark.django_db(transaction=True)
def test_calling_a_match_whose_players_are_not_known_says_so_and_changes_nothing(admin_client):
    out = create(GROUPS_THEN_FINAL)
    cid, desk = out["competition"], out["desk_token"]
    final = [m for m in by_number(summary(cid)).values() if m["round_name"] == "final"][0]
    records = MatchRecord.objects.count()
    r = Client().post(f"/api/competitions/{cid}/actions/",
                      json.dumps({"action": "call", "match": final["number"], "table": "Mesa 1"}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {desk}")
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "players_unknown"
    pt, en = err["message"].split(" / ")
    n = final["number"]
    assert pt == (f"J{n}: os jogadores ainda não são conhecidos ({final['placeholders'][0]} × "
                  f"{final['placeholders'][1]}); o jogo não pode ser chamado antes")
    assert en.startswith(f"M{n}: its players are not known yet (") and en.endswith("it cannot be called before")
    assert "W.O." not in err["message"] and "result" not in en
    # the desk page answers in its own language, as clearly
    r = admin_client.post(f"/desk/{cid}/action/", json.dumps({"action": "call", "match": n, "table": "Mesa 1"}),
                          content_type="application/json")
    assert r.status_code == 422 and r.json()["error"]["message"] == pt
    # nothing changed
    assert MatchRecord.objects.count() == records
    fx = Fixture.objects.get(competition_id=cid, number=n)
    assert fx.called_at is None and fx.match_id is None
    # move and start say the same, in their own words
    for action, word in (("move", "movido"), ("start", "iniciado")):
        r = Client().post(f"/api/competitions/{cid}/actions/",
                          json.dumps({"action": action, "match": n, "table": "Mesa 1"}),
                          content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {desk}")
        assert r.status_code == 422 and r.json()["error"]["code"] == "players_unknown"
        assert f"o jogo não pode ser {word} antes" in r.json()["error"]["message"]
    assert MatchRecord.objects.count() == records


# -- 4. the venue's stage labels ---------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_the_venue_labels_next_matches_and_results_with_their_stage():
    out = create({**GROUPS_THEN_FINAL, "tables": ["Mesa 1"]})
    cid = out["competition"]
    ms = by_number(summary(cid))
    waiting = [m for m in ms.values() if m["match"] and m["status"] == "scheduled"][0]
    called = [m for m in ms.values() if m["status"] == "called"][0]
    html = Client().get("/").content.decode()
    nxt = html[html.index("next-list"):]
    nxt = nxt[:nxt.index("</ul>")]
    for m in (waiting, called):
        a, b = m["players"]
        assert re.search(rf'<span class="mc-stage">{re.escape(m["label"])}</span>\s*<strong>{a} × {b}</strong>',
                         nxt), (m["label"], nxt)
    assert m["label"].startswith("J") and "Grupo" in m["label"]
    score(called["match"], 0, 0)
    html = Client().get("/").content.decode()
    res = html[html.index("Resultados do dia"):]
    card = res[res.index(f'data-match="{called["match"]}"'):]
    card = card[:card.index("</article>")]
    assert f'<span class="mc-stage">{called["label"]}</span>' in card
    # a W.O. result too
    wo = operations.walkover(Match.objects.get(pk=waiting["match"]), [1], "user:desk", "não compareceu")
    html = Client().get("/").content.decode()
    card = html[html.index(f'data-match="{wo.pk}"'):]
    card = card[:card.index("</article>")]
    assert f'<span class="mc-stage">{waiting["label"]}</span>' in card and "W.O." in card
    # the final's players are known now: "A seguir" labels it, in English too
    final = [m for m in by_number(competitions.summary(Competition.objects.get(pk=cid), "en")).values()
             if m["round_name"] == "final"][0]
    assert final["match"] and final["label"].startswith("M") and "Final" in final["label"]
    en = Client().get("/?lang=en").content.decode()
    nxt = en[en.index("next-list"):]
    assert f'<span class="mc-stage">{final["label"]}</span> <strong>{final["players"][0]} × ' in nxt


# -- 2. the W.O. súmula --------------------------------------------------------------------------

@pytest.mark.parametrize("absent", [[1], [0, 1]])
def test_the_walkover_sumula_keeps_the_record_and_no_start_time(client, db, absent):
    """The W.O. súmula named no absent player, no time, no reason and no one who gave it, and
    its "Início" was the time the desk recorded the W.O., for a match never played."""
    from scoreboard.core.matches import new_match
    from test_reports_sumula import pdf_text, sections

    m = new_match({"players": ["Ana Souza", "Bia Lima"], "reds": 6, "frames_to_win": 2, "first_breaker": 0},
                  table=Table.objects.create(name="Mesa 5"), started=False, competition="Copa · J3")
    operations.walkover(m, absent, "user:mesario", "não compareceu no prazo de 10 minutos")
    rec = MatchRecord.objects.get(match=m, kind="walkover")
    head = dict(sections(client.get(f"/matches/{m.pk}/sumula.csv").content.decode("utf-8"))["head"][1:])
    assert head["Início"] == "—"
    when = sumula_time(rec.at)
    assert head["W.O. registrado em"] == when == head["Fim"]
    assert head["W.O. registrado por"] == "mesario (organização)"
    assert head["Motivo do W.O."] == "não compareceu no prazo de 10 minutos"
    if absent == [1]:
        assert head["Ausente"] == "Bia Lima" and head["W.O."] == "Ana Souza vence por W.O. (Bia Lima ausente)"
    else:
        assert head["Ausentes"] == "Ana Souza, Bia Lima" and head["W.O."].startswith("W.O. duplo")
    en = dict(sections(client.get(f"/matches/{m.pk}/sumula.csv?lang=en").content.decode("utf-8"))["head"][1:])
    assert en["Start"] == "—" and en["W.O. recorded at"] == when
    assert en["W.O. recorded by"] == "mesario (organiser)" and en["W.O. reason"] == rec.reason
    pdf = re.sub(r"\s+", " ", pdf_text(client, f"/matches/{m.pk}/sumula.pdf"))
    assert "W.O. registrado por" in pdf and "mesario (organização)" in pdf and "prazo de 10 minutos" in pdf


def sumula_time(at) -> str:
    from scoreboard.reports.sumula import time_with_zone

    return time_with_zone(at)


def test_a_match_not_played_yet_has_no_start_time_on_its_sumula(client, db):
    """A match created and not started showed its creation time as its start."""
    from scoreboard.core.matches import new_match
    from test_reports_sumula import sections

    m = new_match({"players": ["Ana Souza", "Bia Lima"], "first_breaker": 0}, started=False)
    head = dict(sections(client.get(f"/matches/{m.pk}/sumula.csv").content.decode("utf-8"))["head"][1:])
    assert head["Início"] == "—" and head["Fim"] == "—" and re.fullmatch(r"\d\d/\d\d/\d{4}", head["Data"])


def test_the_walkover_by_the_desk_api_names_the_desk_on_the_sumula(client, db):
    from scoreboard.core.matches import new_match
    from test_reports_sumula import sections

    m = new_match({"players": ["Ana Souza", "Bia Lima"], "first_breaker": 0}, started=False)
    operations.walkover(m, [0], "desk:7", "não compareceu")
    head = dict(sections(client.get(f"/matches/{m.pk}/sumula.csv").content.decode("utf-8"))["head"][1:])
    assert head["W.O. registrado por"] == "mesa de controle (API)" and head["Motivo do W.O."] == "não compareceu"


# -- 5. the admin's words ----------------------------------------------------------------------

def _messages(resp) -> list[str]:
    return [re.sub(r"<[^>]+>", "", str(m)) for m in resp.context["messages"]]  # the object's link aside


def test_the_pt_br_admin_messages_agree_with_a_feminine_model_name(admin_client):
    """Django's pt_BR admin said "O mesa “Mesa 1” foi alterado com sucesso": its catalog puts a
    masculine article around any verbose_name. The project's catalog words them for any gender."""
    t = Table.objects.create(name="Mesa 1")
    r = admin_client.post(f"/admin/scoreboard/table/{t.pk}/change/", {"name": "Mesa 1A"}, follow=True)
    assert r.status_code == 200
    assert _messages(r) == ["Alteração salva com sucesso: mesa “Mesa 1A”."]
    r = admin_client.post(f"/admin/scoreboard/table/{t.pk}/change/", {"name": "Mesa 1", "_continue": "1"},
                          follow=True)
    assert _messages(r) == ["Alteração salva com sucesso: mesa “Mesa 1”. Você pode continuar a edição abaixo."]
    r = admin_client.post("/admin/scoreboard/table/add/", {"name": "Mesa 2", "_addanother": "1"}, follow=True)
    assert _messages(r) == ["Inclusão feita com sucesso: mesa “Mesa 2”. Você pode fazer outra inclusão abaixo."]
    t2 = Table.objects.get(name="Mesa 2")
    r = admin_client.post(f"/admin/scoreboard/table/{t2.pk}/delete/", {"post": "yes"}, follow=True)
    assert _messages(r) == ["Remoção feita com sucesso: mesa “Mesa 2”."]
    page = admin_client.get("/admin/scoreboard/table/").content.decode()
    assert "Remover os itens selecionados (mesas)" in page and "mesas selecionados" not in page
    # English stays Django's own
    r = admin_client.post(f"/admin/scoreboard/table/{t.pk}/change/?lang=en", {"name": "Mesa 1"}, follow=True,
                          HTTP_ACCEPT_LANGUAGE="en")
    assert any("was changed successfully" in m for m in _messages(r)), _messages(r)


# -- 6. the admin's competition page -----------------------------------------------------------

def test_the_admin_competition_page_reads_the_draw_lists_entries_and_links_desk_and_hub(admin_client, db):
    from scoreboard.core.competitions import create_competition

    data = {**GROUPS_THEN_FINAL, "players": [PLAYERS[0], {"name": PLAYERS[1], "club": "Clube Santista"},
                                             *PLAYERS[2:]]}
    comp = create_competition(data).competition
    page = admin_client.get(f"/admin/scoreboard/competition/{comp.pk}/change/").content.decode()
    assert '"method"' not in page and "&quot;method&quot;" not in page  # no raw JSON
    assert "potes de cabeças de chave" in page and "semente" in page
    names = {e.number: e.player for e in comp.entries.select_related("player")}
    for i, group in enumerate(comp.draw["groups"]):
        members = " · ".join(f"{k}. {names[p].name}" + (f" ({names[p].club})" if names[p].club else "")
                             for k, p in enumerate(group, 1))
        assert f"<strong>Grupo {'AB'[i]}</strong>: {members}</p>" in page, members
    assert "Bia Lima (Clube Santista)" in page
    # the entries, inline and read-only
    assert "Inscritos" in page or "inscritos" in page
    inline = page[page.index('id="entries-group"'):]
    for p in PLAYERS:
        assert p in inline
    assert "Clube Santista" in inline and 'name="entries-0-seed"' not in inline
    # the desk and the public hub
    assert f'href="/desk/{comp.pk}/"' in page and f'href="/competitions/{comp.pk}/"' in page
    assert f'href="/desk/{comp.pk}/standings.csv"' in page
    # read-only: a post changes nothing
    admin_client.post(f"/admin/scoreboard/competition/{comp.pk}/change/", {"name": "Outra"})
    assert Competition.objects.get(pk=comp.pk).name == "Copa da Baixada"


def test_the_admin_shows_a_knockout_draw_as_its_bracket_lines(admin_client, db):
    from scoreboard.core.competitions import create_competition

    comp = create_competition({**GROUPS_THEN_FINAL, "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    page = admin_client.get(f"/admin/scoreboard/competition/{comp.pk}/change/").content.decode()
    names = {e.number: e.player.name for e in comp.entries.select_related("player")}
    order = " · ".join(f"{k}. {names[p]}" for k, p in enumerate(comp.draw["order"], 1))
    assert f"<strong>Chave (ordem das linhas)</strong>: {order}</p>" in page


# -- the semi-finals and the final, then the exports ------------------------------------------

SEMIS = {"name": "Copa Bar & Sinuca <Santos>", "reds": 6, "draw_seed": 5, "players": PLAYERS,
         "tables": ["Mesa 1", "Mesa 2"],
         "stages": [{"format": "round_robin_groups", "groups": 2, "frames_to_win": 1, "qualify": 2},
                    {"format": "knockout", "frames_to_win": 1, "third_place": True,
                     "frames_to_win_by_round": {"final": 2}}]}


@pytest.mark.django_db(transaction=True)
def test_semi_finals_third_place_and_final_flow_to_the_champion_and_the_exports(admin_client):
    """Groups, then semi-finals (one by W.O.), the third-place match and a best-of-3 final, every
    match called to a table and played through the API; then the exports of the finished day:
    results CSV (every match with its winner, the W.O. marked), standings CSV, the bracket PDF
    with the champion, in Portuguese and English."""
    import tournament

    out = create(SEMIS)
    cid, desk = out["competition"], out["desk_token"]
    semis_seen = wo = None
    for _guard in range(12):
        ms = by_number(summary(cid))
        live = sorted((m for m in ms.values() if m["status"] in ("called", "in_play")), key=lambda m: m["number"])
        if not live:
            break
        m = live[0]
        assert m["table"] in ("Mesa 1", "Mesa 2") and None not in m["players"]
        if m["round_name"] == "semi_final":
            semis_seen = True
            if wo is None:
                r = Client().post(f"/api/competitions/{cid}/actions/",
                                  json.dumps({"action": "walkover", "match": m["number"], "absent": [1],
                                              "reason": "não compareceu"}),
                                  content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {desk}")
                assert r.status_code == 200, r.content
                wo = m
                continue
        score(m["match"], 0, 1 if m["round_name"] == "final" else 0)
    s = summary(cid)
    assert semis_seen and wo is not None and s["complete"], [(m["label"], m["status"]) for m in by_number(s).values()]
    ms = by_number(s)
    final = [m for m in ms.values() if m["round_name"] == "final"][0]
    third = [m for m in ms.values() if m["round_name"] == "third_place"][0]
    assert final["frames"] == [2, 1] and final["frames_to_win"] == 2 and s["champion"] == final["players"][0]
    assert third["status"] == "finished" and third["winner"] == third["players"][0]
    assert ms[wo["number"]]["status"] == "walkover" and ms[wo["number"]]["winner"] == wo["players"][0]
    # the core says the same for these results
    comp = Competition.objects.get(pk=cid)
    cur = competitions.now(comp)
    pure = tournament.evaluate(cur.plan, cur.results)
    names = {i + 1: n for i, n in enumerate(PLAYERS)}
    assert s["champion"] == names[pure.champion]
    assert {p["name"]: p["placing"] for p in s["placings"]} == {names[e]: p for e, p in pure.placings.items()}
    assert sorted(p["placing"] for p in s["placings"]) == [1, 2, 3, 4]

    # results CSV: one row per match, all decided, the W.O. marked
    rows = admin_client.get(f"/desk/{cid}/results.csv").content.decode("utf-8-sig").splitlines()
    import csv as csv_mod

    table = list(csv_mod.reader(rows))
    assert table[0] == ["Jogo", "Fase", "Rodada", "Grupo", "Jogador A", "Jogador B", "Mesa", "Situação",
                        "Partidas A", "Partidas B", "Vencedor", "Resultado"]
    assert len(table) == 1 + len(ms)
    by_label = {r[0]: r for r in table[1:]}
    assert all(r[7] in ("encerrado", "W.O.") and r[10] for r in table[1:])
    w = by_label[wo["label"]]
    assert (w[7], w[8], w[9], w[10], w[11]) == ("W.O.", "1", "0", wo["players"][0], "W.O.")
    f = by_label[final["label"]]
    assert (f[4], f[5], f[8], f[9], f[10]) == (final["players"][0], final["players"][1], "2", "1", s["champion"])
    en = list(csv_mod.reader(admin_client.get(f"/desk/{cid}/results.csv?lang=en").content.decode("utf-8-sig")
                             .splitlines()))
    assert en[0][0] == "Match" and {r[7] for r in en[1:]} == {"finished", "W.O."}
    # standings CSV: both groups, every player once
    st = list(csv_mod.reader(admin_client.get(f"/desk/{cid}/standings.csv").content.decode("utf-8-sig")
                             .splitlines()))
    assert st[0][:4] == ["Fase", "Grupo", "Pos.", "Jogador"] and sorted(r[3] for r in st[1:]) == sorted(PLAYERS)
    assert {(r[1], r[2]) for r in st[1:]} == {("A", "1"), ("A", "2"), ("B", "1"), ("B", "2")}
    # the bracket PDF, with a name that has "&" and "<": the champion printed
    from pypdf import PdfReader

    pdf = admin_client.get(f"/desk/{cid}/bracket.pdf")
    assert pdf.status_code == 200 and pdf.content[:5] == b"%PDF-"
    text = re.sub(r"\s+", " ", "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages))
    assert "Copa Bar & Sinuca <Santos>" in text and f"Campeão: {s['champion']}" in text
    assert "W.O." in text and "Final" in text and "Semente do sorteio: 5 · potes de cabeças de chave" in text
    en_pdf = admin_client.get(f"/desk/{cid}/bracket.pdf?lang=en")
    en_text = re.sub(r"\s+", " ", "".join(p.extract_text() for p in PdfReader(io.BytesIO(en_pdf.content)).pages))
    assert f"Champion: {s['champion']}" in en_text


@pytest.mark.django_db(transaction=True)
def test_a_free_table_held_back_by_a_rest_is_called_when_the_rest_ends_even_after_a_restart():
    """With ``rest_minutes``, the final's players had just finished their semi-finals: the
    freed table was not called (right), and then never (nothing else happened to wake the
    queue). The queue runs again when the rest ends: the due time is stored in the
    competition's row (no timer in the process's memory, which a worker's restart lost), and
    whoever checks the due times next (``run_due``: every worker's hub, once a second) runs it."""
    import threading
    from datetime import timedelta
    from unittest import mock

    from django.utils import timezone

    from scoreboard.core import memory

    timers = []
    with mock.patch.object(threading.Timer, "start", lambda t: timers.append(t)):
        out = create({**GROUPS_THEN_FINAL, "tables": ["Mesa 1"], "rest_minutes": 5,
                      "stages": [{"format": "knockout", "frames_to_win": 1}]})
        cid = out["competition"]
        for _semi in range(2):
            (m,) = [m for m in by_number(summary(cid)).values() if m["status"] == "called"]
            assert m["round_name"] == "semi_final"
            score(m["match"], 0, 0)
    assert timers == []  # no timer anywhere: the wake-up is stored
    final = [m for m in by_number(summary(cid)).values() if m["round_name"] == "final"][0]
    assert final["match"] and final["status"] == "scheduled"  # both finalists resting
    last_end = max(e.at for e in Match.objects.get(pk=by_number(summary(cid))[2]["match"]).events.all())
    due = Competition.objects.get(pk=cid).due_at
    assert abs(due.timestamp() - (last_end.timestamp() + 300 + competitions.WAKE_MARGIN)) < 1
    memory.forget()  # the process that saw the semi-final end is gone: a fresh one checks
    assert competitions.run_due(due - timedelta(seconds=60)) == []  # not due yet: nothing runs
    assert by_number(summary(cid))[final["number"]]["status"] == "scheduled"
    later = due + timedelta(seconds=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        assert competitions.run_due() == [cid]
        assert competitions.run_due() == []  # claimed once: a second checker finds nothing due
    after = by_number(summary(cid))[final["number"]]
    assert after["status"] == "called" and after["table"] == "Mesa 1"
    assert Competition.objects.get(pk=cid).due_at is None and timezone.now() < later


@pytest.mark.django_db(transaction=True)
def test_a_table_freed_by_moving_its_called_match_away_is_called_again():
    """The desk moved a called match to another table: the table it left stayed free."""
    out = create({**GROUPS_THEN_FINAL, "tables": ["Mesa 1"]})
    cid, desk = out["competition"], out["desk_token"]
    Table.objects.create(name="Mesa 9")
    ms = by_number(summary(cid))
    (first,) = [m for m in ms.values() if m["status"] == "called"]
    other = [m for m in ms.values() if m["match"] and m["status"] == "scheduled"][0]
    r = Client().post(f"/api/competitions/{cid}/actions/",
                      json.dumps({"action": "move", "match": first["number"], "table": "Mesa 9"}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {desk}")
    assert r.status_code == 200, r.content
    ms = by_number(r.json()["competition"])
    assert ms[first["number"]]["table"] == "Mesa 9"
    assert ms[other["number"]]["status"] == "called" and ms[other["number"]]["table"] == "Mesa 1"


def _match_form(m: Match, table: Table, **extra) -> dict:
    """The admin's change form of ``m`` as its page posts it, with ``table`` chosen."""
    form = {"table": table.pk, "competition": m.competition, "referee_name": "", "scheduled_at": "",
            "shot_clock": 0, "events-TOTAL_FORMS": "0", "events-INITIAL_FORMS": "0",
            "events-MIN_NUM_FORMS": "0", "events-MAX_NUM_FORMS": "1000", **extra}
    if m.started_at is None and m.seq == 0:  # not frozen yet: its configuration's fields are posted too
        form.update(player_a=m.player_a_id, player_b=m.player_b_id, reds=m.reds, frames_to_win=m.frames_to_win,
                    first_breaker="", retorno="on" if m.retorno else "", partners_a="", partners_b="")
    return form


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("started", [False, True], ids=["called", "in_play"])
def test_a_table_freed_by_a_change_of_table_in_the_admin_is_called_again(admin_client, started):
    """The organiser moved the called (or started) match to another table in the admin: the
    table it left stayed free, while the desk's move had the queue call it."""
    out = create({**GROUPS_THEN_FINAL, "tables": ["Mesa 1"]})
    cid = out["competition"]
    mesa1, mesa9 = Table.objects.get(name="Mesa 1"), Table.objects.create(name="Mesa 9")
    ms = by_number(summary(cid))
    (first,) = [m for m in ms.values() if m["status"] == "called"]
    other = [m for m in ms.values() if m["match"] and m["status"] == "scheduled"][0]
    m = Match.objects.get(pk=first["match"])
    if started:
        operations.start_match(m, 0, "test")
        m.refresh_from_db()
    r = admin_client.post(f"/admin/scoreboard/match/{m.pk}/change/",
                          _match_form(m, mesa9, **({"confirm_move": "on"} if started else {})))
    assert r.status_code == 302, r.context["adminform"].form.errors
    ms = by_number(summary(cid))
    assert ms[first["number"]]["table"] == "Mesa 9"
    assert ms[other["number"]]["status"] == "called" and ms[other["number"]]["table"] == "Mesa 1"
    assert MatchRecord.objects.filter(match_id=other["match"], kind="call", data__table=mesa1.pk).exists()
    assert MatchRecord.objects.get(match=m, kind="move").by == "user:admin"


@pytest.mark.parametrize("error", ["database", "other"])
def test_a_due_check_while_the_database_is_away_logs_and_does_not_raise(caplog, error):
    """The due check (``run_due``) runs every second in each worker's hub, in a thread, while the
    database may not answer (restarting; in the suite, a test's database already dropped): it
    logs whatever failed and ends quietly, and the next check runs the work."""
    import threading
    from unittest import mock

    from django.db import OperationalError

    failure = OperationalError("no such table") if error == "database" else RuntimeError("no such table")
    ran = []
    with mock.patch.object(Competition.objects, "filter", side_effect=failure):
        check = threading.Thread(target=lambda: ran.append(competitions.run_due()))
        check.start()
        check.join(30)
    assert ran == [[]]
    assert "running the competitions' due queues failed" in caplog.text and "no such table" in caplog.text
