"""Season ranking across competitions (issue 17, item 7): two small knockouts played through the
desk API (W.O.s), etapas with weights 1 and 2, the ranking's points and order exact, and the next
competition seeded by it (``"seed_by_season"``); bad input (unknown season, a weight ≤ 0) refused
in Portuguese and English with nothing changed.

Transactional: results flow after commit (``core.competitions.after_change``)."""
from __future__ import annotations

import io
import json
import tempfile

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.test import Client

from scoreboard.core import seasons
from scoreboard.core.models import Competition, Season, SeasonEtapa
from tournament import TournamentError

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pg]

POINTS = {"1": 100, "2": 60, "3": 30}


def create(data: dict) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        out = io.StringIO()
        call_command("createcompetition", f.name, stdout=out)
    return json.loads(out.getvalue())


def knockout(name: str, players: list, **extra) -> dict:
    return {"name": name, "reds": 6, "draw_seed": 7, "players": players, "points": POINTS,
            "stages": [{"format": "knockout", "frames_to_win": 1}], **extra}


def summary(cid: int) -> dict:
    return Client().get(f"/api/competitions/{cid}/").json()


def play(created: dict, winners: list[str]) -> dict:
    """Decide every match by W.O. through the desk API, in match order: each match's winner is
    the first name of ``winners`` playing in it."""
    cid, desk = created["competition"], created["desk_token"]
    while True:
        s = summary(cid)
        todo = [m for st in s["stages"] for m in st["matches"]
                if m["status"] in ("scheduled", "called") and None not in m["players"]]
        if not todo:
            return s
        m = todo[0]
        winner = next(w for w in winners if w in m["players"])
        absent = 1 - m["players"].index(winner)
        r = Client().post(f"/api/competitions/{cid}/actions/",
                          json.dumps({"action": "walkover", "match": m["number"], "absent": [absent], "reason": "não compareceu"}),
                          content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {desk}")
        assert r.status_code == 200, r.content


def test_season_ranking_with_weights_seeds_the_next_draw():
    one = create(knockout("Etapa 1", ["Ana", "Bia", "Caio", "Duda"]))
    s1 = play(one, ["Duda", "Bia"])  # Duda beats Ana, Bia beats Caio; final Duda × Bia
    assert s1["champion"] == "Duda" and s1["complete"]
    two = create(knockout("Etapa 2", ["Ana", "Bia", "Caio", "Duda"]))
    s2 = play(two, ["Caio", "Ana"])  # Ana beats Duda, Caio beats Bia; final Caio × Ana
    assert s2["champion"] == "Caio"

    season = Season.objects.create(name="Circuito 2026")
    seasons.add_etapa(season, Competition.objects.get(pk=one["competition"]), 1)
    seasons.add_etapa(season, Competition.objects.get(pk=two["competition"]), 2)

    r = Client().get(f"/api/seasons/{season.pk}/")
    assert r.status_code == 200
    got = r.json()
    assert [e["weight"] for e in got["etapas"]] == [1.0, 2.0]
    assert all(e["finished"] for e in got["etapas"])
    # Etapa 1 ×1: Duda 100, Bia 60, Ana 30, Caio 30; Etapa 2 ×2: Caio 200, Ana 120, Bia 60, Duda 60
    assert [(row["name"], row["points"], row["etapas"], row["best"], row["position"]) for row in got["ranking"]] == [
        ("Caio", 230, 2, 1, 1), ("Duda", 160, 2, 1, 2), ("Ana", 150, 2, 2, 3), ("Bia", 120, 2, 2, 4)]
    # the public ranking: each point with the etapa and the placing that earned it, on the page too
    pub = Client().get(f"/api/seasons/{season.pk}/ranking/")
    assert pub["Cache-Control"] == "public, max-age=10, stale-while-revalidate=60"
    caio = pub.json()["ranking"][0]
    assert caio["name"] == "Caio" and caio["points"] == 230
    assert [(p["competition"], p["placing"], p["points"]) for p in caio["parts"]] == [
        (one["competition"], 3, 30), (two["competition"], 1, 200)]
    page = Client().get(f"/seasons/{season.pk}/").content.decode()
    assert f'href="/competitions/{two["competition"]}/?view=bracket&amp;lang=pt-br">Etapa 2: 1º lugar</a> · 200' in page
    en = Client().get(f"/seasons/{season.pk}/?lang=en").content.decode()
    assert "Etapa 2: place 1</a>" in en
    # a webhook subscriber hears of the ranking once: the same ranking is the same news
    from scoreboard.core import webhooks
    from scoreboard.core.models import Webhook, WebhookDelivery

    Webhook.objects.create(name="site", url="http://127.0.0.1:9/", secret="x", kinds=["ranking"])
    assert webhooks.check_rankings() == 1 and webhooks.check_rankings() == 0
    news = WebhookDelivery.objects.get(kind="ranking")
    assert news.payload["season"] == season.pk and news.payload["ranking"][0]["name"] == "Caio"

    # the next draw, seeded by the season: ranked players first in ranking order, then the new one
    three = create({**knockout("Etapa 3", ["Ana", "Bia", "Caio", "Duda", "Eva"]), "seed_by_season": season.pk})
    comp3 = Competition.objects.get(pk=three["competition"])
    assert [p["name"] for p in comp3.spec["players"]] == ["Caio", "Duda", "Ana", "Bia", "Eva"]
    assert [(e.number, e.player.name) for e in comp3.entries.select_related("player").order_by("number")] == [
        (1, "Caio"), (2, "Duda"), (3, "Ana"), (4, "Bia"), (5, "Eva")]

    # an etapa still in progress has no final placings: it does not count yet
    seasons.add_etapa(season, comp3, 1)
    again = Client().get(f"/api/seasons/{season.pk}/").json()
    assert again["ranking"] == got["ranking"] and again["etapas"][2]["finished"] is False


def test_unknown_season_and_bad_weights_are_refused_and_change_nothing():
    r = Client().get("/api/seasons/999999/")
    assert r.status_code == 404
    assert r.json()["error"]["message"] == "Temporada não encontrada / Season not found"

    before = Competition.objects.count()
    with pytest.raises(CommandError) as exc:
        create({**knockout("Etapa X", ["Ana", "Bia"]), "seed_by_season": 999999})
    assert "temporada desconhecida" in str(exc.value) and "unknown season" in str(exc.value)
    assert Competition.objects.count() == before

    comp = Competition.objects.get(pk=create(knockout("Etapa Y", ["Ana", "Bia"]))["competition"])
    season = Season.objects.create(name="Temporada")
    for bad in (0, -1, 0.0, float("nan"), "2", True, None):
        with pytest.raises(TournamentError) as e:
            seasons.add_etapa(season, comp, bad)
        assert e.value.code == "invalid_weight"
        assert "maior que zero" in e.value.pt and "greater than zero" in e.value.en
    assert SeasonEtapa.objects.count() == 0
    # the admin's inline validates the same way
    with pytest.raises(ValidationError) as v:
        SeasonEtapa(season=season, competition=comp, weight=0).full_clean()
    assert "O peso deve ser maior que zero / The weight must be greater than zero" in str(v.value)


def test_the_admin_edits_a_season_with_its_etapas(admin_client):
    season = Season.objects.create(name="Circuito")
    r = admin_client.get(f"/admin/scoreboard/season/{season.pk}/change/")
    assert r.status_code == 200 and b"etapas-TOTAL_FORMS" in r.content
