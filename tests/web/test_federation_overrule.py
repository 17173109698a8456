"""A protest's overruling at the federation (``core.overrulings``): the staff records a result of
its own for a venue's match; the venue's record stays as sent, and the careers, the head-to-head
and the season's ranking count the overruling, the player's page marks it with its reason. Bad
input and a user without the role are refused in Portuguese and English, nothing stored.

Both roles share one test database, as in ``test_federation_sync.py``: the federation's copies
are the rows with an ``origin_venue``."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from scoreboard.core import access, federation, log, seasons
from scoreboard.core.competitions import create_competition
from scoreboard.core.models import (Competition, Event, Match, MatchRecord, OutboxRecord, Season, Webhook,
                                    WebhookDelivery)
from scoreboard.reports import careers

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def day(settings):
    """A venue's two-player final, won 1-0 by side A, sent to its federation; the federation's
    copy of the competition is the one etapa of a season."""
    settings.FEDERATION_URL, settings.FEDERATION_TOKEN = "http://federation.invalid", "t"
    token = federation.issue_venue_token("Clube Centro")
    comp = create_competition({"name": "Etapa 1", "reds": 6, "draw_seed": 1, "players": ["Ana Souza", "Bia Lima"],
                               "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    venue_match = comp.fixtures.get(number=1).match
    seq = 0
    if log.snapshot(venue_match.pk).state.get("phase") == "lot":
        seq = log.append_event(venue_match.pk, {"type": "lot", "player": 0}, expected_seq=0).seq
    log.append_event(venue_match.pk, {"type": "concede", "player": 1}, expected_seq=seq)
    records = [{"key": r.key, "kind": r.kind, "match": r.match_uid, "seq": r.seq, "payload": r.payload}
               for r in OutboxRecord.objects.order_by("id")]
    r = Client().post("/api/federation/records/", json.dumps({"records": records}), content_type="application/json",
                      HTTP_AUTHORIZATION=f"Bearer {token}")
    assert r.status_code == 200, r.content
    settings.FEDERATION_URL = settings.FEDERATION_TOKEN = ""  # from here on, the federation
    fed_comp = Competition.objects.get(origin_venue__name="Clube Centro", origin_uid=str(comp.pk))
    season = Season.objects.create(name="Temporada 2027")
    seasons.add_etapa(season, fed_comp, 1)
    copy = Match.objects.get(origin_venue__name="Clube Centro", origin_uid=str(venue_match.pk))
    staff = get_user_model().objects.create_user("diretor", password="x-long-password")
    call_command("grant", "federation", "diretor", stdout=open("/dev/null", "w"))
    client = Client()
    client.force_login(staff)
    return {"venue_match": venue_match, "copy": copy, "season": season, "client": client, "comp": fed_comp}


def overrule(client: Client, match_id: int, body) -> tuple[int, dict]:
    r = client.post(f"/federation/matches/{match_id}/overrule/", body if isinstance(body, str) else json.dumps(body),
                    content_type="application/json")
    return r.status_code, (r.json() if r.headers.get("Content-Type", "").startswith("application/json") else {})


def names(rows) -> list[tuple[str, int]]:
    return [(r["name"], r["position"]) for r in rows]


def test_the_overruling_counts_everywhere_and_the_venues_record_stays(day):
    copy, season = day["copy"], day["season"]
    a, b = copy.player_a, copy.player_b
    assert names(seasons.ranking(season)) == [(a.name, 1), (b.name, 2)]
    before = (copy.seq, list(Event.objects.filter(match=copy).order_by("seq").values_list("seq", "event")))
    Webhook.objects.create(name="jornal", url="http://127.0.0.1:9/", secret="s", kinds=["result"])

    status, body = overrule(day["client"], copy.pk, {"winner": 1, "frames": [0, 1], "reason": "taco irregular do lado A"})
    assert status == 201, body
    assert body["overruling"] == {"match": copy.pk, "winner": 1, "frames": [0, 1], "reason": "taco irregular do lado A"}
    rec = MatchRecord.objects.get(match=copy, kind="overruling")
    assert rec.by == "user:diretor" and rec.data == {"winner": 1, "frames": [0, 1]}
    news = WebhookDelivery.objects.get(key=f"overruling:{copy.pk}:{rec.pk}")  # the subscribers are told
    assert (news.kind, news.payload["winner"], news.payload["frames"], news.payload["overruled"]) == (
        "result", 1, [0, 1], "taco irregular do lado A")

    # the venue's record: the same row, events, correction and W.O. as it sent them
    copy.refresh_from_db()
    assert (copy.seq, list(Event.objects.filter(match=copy).order_by("seq").values_list("seq", "event"))) == before
    assert copy.correction is None and copy.walkover is None
    assert log.snapshot(copy.pk).state["match_winner"] == 0

    # the season's ranking, the careers and the head-to-head count the overruling
    assert names(seasons.ranking(season)) == [(b.name, 1), (a.name, 2)]
    ca, cb = careers.career(a), careers.career(b)
    assert (ca["total"]["won"], ca["total"]["lost"], ca["total"]["frames_won"], ca["total"]["frames_lost"]) == (0, 1, 0, 1)
    assert (cb["total"]["won"], cb["total"]["lost"]) == (1, 0)
    assert ca["last"][0]["outcome"] == "lost" and ca["last"][0]["frames"] == [0, 1]
    assert ca["last"][0]["overruled"] == "taco irregular do lado A"
    h = careers.head_to_head(a, b)
    assert h["won"] == [0, 1] and h["matches"][0]["winner"] == "b" and h["matches"][0]["overruled"]

    # the player's page marks the match, with the reason, in both languages
    pid = careers.public_id(a)
    pt = Client().get(f"/players/{pid}/?lang=pt-br").content.decode()
    en = Client().get(f"/players/{pid}/?lang=en").content.decode()
    assert "resultado alterado por protesto: taco irregular do lado A" in pt
    assert "result overruled on protest: taco irregular do lado A" in en
    h2h = Client().get(f"/players/{pid}/h2h/{careers.public_id(b)}/?lang=en").content.decode()
    assert "result overruled on protest" in h2h

    # a later overruling replaces it (append-only: both kept, the latest counts)
    status, _ = overrule(day["client"], copy.pk, {"winner": 0, "frames": [1, 0], "reason": "recurso aceito"})
    assert status == 201 and MatchRecord.objects.filter(match=copy, kind="overruling").count() == 2
    assert names(seasons.ranking(season)) == [(a.name, 1), (b.name, 2)]
    assert careers.career(a)["last"][0]["overruled"] == "recurso aceito"


def sheet_text(client: Client, url: str) -> str:
    """A súmula PDF's text, its runs of white space one space (a line may wrap anywhere)."""
    pdf = PdfReader(io.BytesIO(client.get(url).content))
    return " ".join(" ".join(p.extract_text() for p in pdf.pages).split())


def sheet_rows(client: Client, url: str) -> dict[str, str]:
    """The key/value rows of a súmula CSV's head."""
    text = client.get(url).content.decode("utf-8-sig")
    return {r[0]: r[1] for r in csv.reader(io.StringIO(text)) if len(r) == 2}


def test_the_sumula_says_the_federation_changed_the_result_and_keeps_the_venues(day):
    copy, c = day["copy"], Client()
    a, b = copy.player_a.name, copy.player_b.name
    pdf_url, csv_url = f"/matches/{copy.pk}/sumula.pdf", f"/matches/{copy.pk}/sumula.csv"
    before = c.get(pdf_url)
    assert "Resultado alterado" not in sheet_text(c, pdf_url)
    assert sheet_rows(c, csv_url)["Vencedor"] == a  # asked once: kept in the cache at this seq
    status, _ = overrule(day["client"], copy.pk, {"winner": 1, "frames": [0, 1], "reason": "taco irregular do lado A"})
    assert status == 201
    # same seq, another sheet: neither the cache nor a browser's copy (ETag) serves the old one
    after = c.get(pdf_url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    pt = sheet_text(c, pdf_url)
    assert f"Resultado alterado pela federação (recurso): vencedor {b}, placar 0–1; motivo: taco irregular do lado A" in pt
    assert "O resultado registrado pela sede segue nesta súmula como foi registrado." in pt
    rows = sheet_rows(c, csv_url)
    assert rows["Resultado alterado pela federação (recurso)"] == f"vencedor {b}, placar 0–1; motivo: taco irregular do lado A"
    # when, with its date: a protest is decided days after the match
    at = timezone.localtime(MatchRecord.objects.get(match=copy, kind="overruling").at)
    z = f"{at:%z}"
    zone = f"(UTC{z[:3]}:{z[3:]}, {timezone.get_current_timezone_name()})"
    assert rows["Alterado por"] == "diretor (federação)"
    assert rows["Alterado pela federação em"] == f"{at:%d/%m/%Y %H:%M} {zone}"
    assert f"{at:%d/%m/%Y %H:%M}" in pt
    # the CSV says it first, as the PDF does: right under the sheet's title
    lines = list(csv.reader(io.StringIO(c.get(csv_url).content.decode("utf-8-sig"))))
    assert [r[0] for r in lines[1:4]] == ["Resultado alterado pela federação (recurso)", "Alterado pela federação em",
                                          "Alterado por"]
    assert lines[4][0] == "Competição"
    # the venue's result, as it recorded it, under its own name
    assert (rows["Partidas (registro da sede)"], rows["Vencedor (registro da sede)"]) == ("1 × 0", a)
    assert "Vencedor" not in rows and "Partidas" not in rows
    en = sheet_text(c, pdf_url + "?lang=en")
    assert f"Result changed by the federation (appeal): winner {b}, score 0–1; reason: taco irregular do lado A" in en
    en_rows = sheet_rows(c, csv_url + "?lang=en")
    assert (en_rows["Frames (as the venue recorded)"], en_rows["Winner (as the venue recorded)"]) == ("1 × 0", a)
    assert en_rows["Changed by"] == "diretor (federation)"
    assert en_rows["Changed by the federation on"] == f"{at:%Y-%m-%d %H:%M} {zone}"
    assert f"{at:%Y-%m-%d %H:%M}" in en
    # the venue's own sheet of the match knows of no overruling
    assert "Resultado alterado" not in sheet_text(c, f"/matches/{day['venue_match'].pk}/sumula.pdf")


@pytest.mark.parametrize("case, body, code, pt, en", [
    ("winner 2", {"winner": 2, "frames": [0, 1], "reason": "x"}, "invalid_winner", "Vencedor deve ser 0", "The winner must be 0"),
    ("winner true", {"winner": True, "frames": [0, 1], "reason": "x"}, "invalid_winner", "Vencedor", "winner"),
    ("winner missing", {"frames": [0, 1], "reason": "x"}, "invalid_winner", "Vencedor", "winner"),
    ("a draw", {"winner": 1, "frames": [1, 1], "reason": "x"}, "invalid_frames", "Placar impossível", "Impossible frames"),
    ("past the best-of", {"winner": 1, "frames": [0, 2], "reason": "x"}, "invalid_frames", "1 partida(s)", "1 frame(s) to win"),
    ("the winner's frames on the loser", {"winner": 1, "frames": [1, 0], "reason": "x"}, "invalid_frames", "Placar", "frames"),
    ("negative", {"winner": 0, "frames": [1, -1], "reason": "x"}, "invalid_frames", "Placar", "frames"),
    ("not a pair", {"winner": 0, "frames": "1x0", "reason": "x"}, "invalid_frames", "Placar", "frames"),
    ("no reason", {"winner": 1, "frames": [0, 1]}, "reason_required", "Diga o motivo", "Give the reason"),
    ("a blank reason", {"winner": 1, "frames": [0, 1], "reason": "   "}, "reason_required", "motivo", "reason"),
    ("a reason too long", {"winner": 1, "frames": [0, 1], "reason": "x" * 301}, "reason_too_long", "Motivo", "Reason"),
    ("a bidi override in the reason", {"winner": 1, "frames": [0, 1], "reason": "taco \u202eirregular"},
     "invalid_reason", "motivo: caractere invisível de formatação (direção do texto ou largura zero) U+202E na posição 6",
     "reason: invisible format character (text direction or zero width) U+202E at position 6"),
    ("a control character in the reason", {"winner": 1, "frames": [0, 1], "reason": "taco\u0007 irregular"},
     "invalid_reason", "motivo: caractere de controle U+0007 na posição 5 não é aceito",
     "reason: control character U+0007 at position 5 is not accepted"),
    ("a line break in the reason", {"winner": 1, "frames": [0, 1], "reason": "taco\nirregular"},
     "invalid_reason", "U+000A", "U+000A"),
])
def test_bad_input_is_refused_in_both_languages_and_nothing_is_stored(day, case, body, code, pt, en):
    status, answer = overrule(day["client"], day["copy"].pk, body)
    assert status == 422, (case, answer)
    assert answer["error"]["code"] == code
    assert pt in answer["error"]["message"] and en in answer["error"]["message"], answer
    assert not MatchRecord.objects.filter(kind="overruling").exists()
    assert names(seasons.ranking(day["season"]))[0][0] == day["copy"].player_a.name


def test_unknown_and_non_venue_matches_and_bad_bodies_are_refused(day):
    client = day["client"]
    ok = {"winner": 1, "frames": [0, 1], "reason": "protesto"}
    status, answer = overrule(client, 987654, ok)
    assert status == 422 and answer["error"]["code"] == "unknown_match"
    assert "Jogo desconhecido: 987654" in answer["error"]["message"] and "Unknown match: 987654" in answer["error"]["message"]
    status, answer = overrule(client, day["venue_match"].pk, ok)  # scored here, not sent by a venue
    assert status == 422 and answer["error"]["code"] == "not_a_venue_match"
    assert "corrija-o na mesa" in answer["error"]["message"] and "correct it at the desk" in answer["error"]["message"]
    for bad in ("not json", "[1, 0]", "null"):
        status, answer = overrule(client, day["copy"].pk, bad)
        assert status == 400 and answer["error"]["code"] == "bad_request"
    assert not MatchRecord.objects.filter(kind="overruling").exists()


def test_only_the_federations_staff_may_overrule(day):
    copy, comp = day["copy"], day["comp"]
    ok = {"winner": 1, "frames": [0, 1], "reason": "protesto"}
    anonymous = Client().post(f"/federation/matches/{copy.pk}/overrule/", json.dumps(ok), content_type="application/json")
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    users = get_user_model().objects
    organiser = users.create_user("mesario", password="x-long-password", is_staff=True)
    access.grant(organiser, "organiser", "cmd:test", competition=comp)  # the etapa's desk is not the federation
    referee = users.create_user("arbitro", password="x-long-password")
    access.grant(referee, "referee", "cmd:test", match=copy)
    for user in (organiser, referee):
        client = Client()
        client.force_login(user)
        assert overrule(client, copy.pk, ok)[0] == 403
    assert not MatchRecord.objects.filter(kind="overruling").exists()
    # the role taken: refused again
    access.revoke(users.get(username="diretor"), "federation", "cmd:test")
    assert overrule(day["client"], copy.pk, ok)[0] == 403
    assert not MatchRecord.objects.filter(kind="overruling").exists()
    # the role is given on no object: one given on an object is refused in both languages
    with pytest.raises(access.RoleError, match="não é dado sobre um objeto / The federation role is given on no object"):
        access.grant(organiser, "federation", "cmd:test", competition=comp)


def test_a_write_without_its_csrf_token_is_refused_in_both_languages(day):
    """The federation's staff session without the page's CSRF token (a page left open past its
    session, a form posted from another site): Django's own answer was an English HTML page; a
    JSON request gets the error body, a form a plain text, both in Portuguese and English, and
    nothing is stored."""
    copy = day["copy"]
    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username="diretor"))
    r = client.post(f"/federation/matches/{copy.pk}/overrule/",
                    json.dumps({"winner": 1, "frames": [0, 1], "reason": "protesto"}), content_type="application/json")
    assert r.status_code == 403 and r.json()["error"] == {
        "code": "csrf", "message": "A página expirou ou não veio deste site (token CSRF ausente ou inválido); "
        "recarregue a página e tente de novo / The page expired or did not come from this site (CSRF token "
        "missing or invalid); reload the page and try again"}
    form = client.post(f"/federation/matches/{copy.pk}/overrule/", {"winner": "1"})
    assert form.status_code == 403 and form["Content-Type"].startswith("text/plain")
    assert form.content.decode().startswith("A página expirou") and " / The page expired" in form.content.decode()
    assert not MatchRecord.objects.filter(kind="overruling").exists()
