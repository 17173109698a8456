"""Issue 15, item 5: HEAD is answered like GET everywhere. Not a hand list: the test walks every
URL pattern of the project (its views; Django's own admin pages and ``set_language`` are
Django's), fills each pattern's parameters with a real match, table, competition, season and
photo, and asks it GET and HEAD as an anonymous visitor, then as staff, then as the match's
referee, then as a venue of the federation (its token). Wherever GET is answered (anything but
405), HEAD must get GET's status and content type and no body. A new page answering HEAD 405 (``require_GET``, ``method != "GET"``) fails
here. Each pattern must answer some GET 200, so a parameter this test fills wrongly cannot
make it pass by answering 404 to both.
"""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from scoreboard.core import competitions, federation
from scoreboard.core.models import Match, Player, Season, SeasonEtapa, Table
from scoreboard.pages import tablet

pytestmark = [pytest.mark.django_db]

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def project_patterns(patterns=None, ns: str = ""):
    """``(reverse name, pattern)`` of every URL pattern whose view is the project's code."""
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            yield from project_patterns(p.url_patterns, f"{ns}{p.namespace}:" if p.namespace else ns)
        elif isinstance(p, URLPattern) and getattr(p.callback, "__module__", "").startswith("scoreboard"):
            yield f"{ns}{p.name}" if p.name else None, p


@pytest.fixture
def world(created, settings, tmp_path):
    """A value for every URL parameter the project's patterns take."""
    settings.MEDIA_ROOT = tmp_path
    settings.LIVE_STATS = True
    (tmp_path / "players").mkdir()
    (tmp_path / "players" / "ana.png").write_bytes(PNG)
    Player.objects.filter(pk=created.match.player_a_id).update(photo="players/ana.png")
    table = Table.objects.create(name="Mesa 9")
    Match.objects.filter(pk=created.match.pk).update(table=table)
    assert Client().post(f"/api/matches/{created.match.pk}/events/", {"event": {"type": "no_pot"}},
                         content_type="application/json",
                         HTTP_AUTHORIZATION=f"Bearer {created.token}").status_code == 201
    comp = competitions.create_competition(
        {"name": "Aberto", "reds": 6, "draw_seed": 7, "players": ["Caio", "Duda", "Eva", "Fabi"],
         "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition
    season = Season.objects.create(name="Circuito")
    SeasonEtapa.objects.create(season=season, competition=comp, weight=1)
    return {"match_id": created.match.pk, "table_id": table.pk, "comp_id": comp.pk,
            "season_id": season.pk, "entry": 1, "field": "score_a", "view": "tv",
            "digest": tablet.engine_zip_url().rsplit("/", 1)[1].removesuffix(".zip"),
            "path": "players/ana.png", "ref": "25",
            # a player's page and a head-to-head: the match's two players, by their public id
            "key": str(created.match.player_a_id), "a": str(created.match.player_a_id),
            "b": str(created.match.player_b_id), "seq": 1}


def body(resp) -> bytes:
    return b"".join(resp.streaming_content) if resp.streaming else resp.content


def admin_object(name: str):
    """The pk of a row of the model an admin page ``admin:<app>_<model>_<view>`` names."""
    from django.apps import apps

    app, _, rest = name.removeprefix("admin:").partition("_")
    try:
        model = apps.get_model(app, rest.rpartition("_")[0])
    except (LookupError, ValueError):
        return None
    return model.objects.values_list("pk", flat=True).first()


def test_every_get_of_the_project_answers_head_like_get(world, created, admin_client, referee_client):
    clients = {"anonymous": Client(), "staff": admin_client, "referee": referee_client,
               "venue": Client(HTTP_AUTHORIZATION=f"Bearer {federation.issue_venue_token('Clube Centro')}")}
    walked, not_get, wrong = [], [], []
    for name, pattern in project_patterns():
        assert name, f"unnamed URL pattern {pattern.pattern}: name it, so this test can reverse it"
        params = list(pattern.pattern.regex.groupindex)
        values = dict(world, object_id=admin_object(name))
        missing = [p for p in params if values.get(p) is None]
        assert not missing, f"{name}: no value for {missing}: add one to the world fixture"
        url = reverse(name, kwargs={p: values[p] for p in params})
        walked.append(url)
        ok = False
        for who, client in clients.items():
            g = client.get(url)
            if g.status_code == 405:
                not_get.append(url)
                break
            h = client.head(url)
            if (h.status_code, h.get("Content-Type"), body(h)) != (g.status_code, g.get("Content-Type"), b""):
                wrong.append(f"{who} {url}: GET {g.status_code} {g.get('Content-Type')}, HEAD {h.status_code} "
                             f"{h.get('Content-Type')} {len(body(h))} bytes")
            body(g)  # a file answered is closed
            if g.status_code == 200:
                ok = True
                break
        else:
            if not ok:
                wrong.append(f"{url}: no client got a GET 200 (its parameters are wrong here)")
    assert wrong == []
    mid, cid = world["match_id"], world["comp_id"]
    # the walk reached the pages this test was written for, and only writers refuse GET
    assert {f"/desk/{cid}/", f"/desk/{cid}/bracket.pdf", f"/api/competitions/{cid}/",
            f"/api/seasons/{world['season_id']}/", f"/matches/{mid}/sumula.pdf",
            "/media/players/ana.png", "/api/federation/registry/"} <= set(walked)
    assert all(u.endswith(("/event/", "/preview/", "/submit/", "/art28/", "/action/", "/actions/",
                          "/federation/records/", "/overrule/"))
               for u in not_get), not_get
