"""Issue 19: each person of a doubles side is a player row of the match (``MatchMember``), and
renaming him renames him in his unfinished matches, his side's name with him."""
from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from scoreboard.core import log, operations
from scoreboard.core.matches import create_match, match_config, new_match
from scoreboard.core.models import Match, MatchMember, MatchRecord, Player

pytestmark = pytest.mark.django_db


def people(match: Match) -> list[tuple[int, int, str]]:
    return [(m.side, m.order, m.player.name) for m in MatchMember.objects.filter(match=match).select_related("player")]


def rename(player: Player, new: str) -> list[int]:
    old, player.name = player.name, new
    player.save()
    return operations.player_renamed(player, old, "user:desk")


def test_a_doubles_match_links_one_row_per_person_in_the_listed_order():
    m = create_match(["Ana", "Carla"], ["Bia", "Duda", "Eva"], first_breaker=0).match
    assert people(m) == [(0, 0, "Ana"), (0, 1, "Carla"), (1, 0, "Bia"), (1, 1, "Duda"), (1, 2, "Eva")]
    assert (m.player_a.name, m.player_b.name) == ("Ana / Carla", "Bia / Duda / Eva")
    single = create_match("Ana", "Bia", first_breaker=0).match
    assert people(single) == []  # a singles side is its player_a / player_b


def test_new_match_finds_the_persons_by_name_and_refuses_members_that_do_not_fit():
    ana = Player.objects.create(name="Ana", club="Clube A")
    cfg = match_config([["Ana", "Carla"], ["Bia", "Duda"]], first_breaker=0)
    m = new_match(cfg)
    assert MatchMember.objects.get(match=m, side=0, order=0).player == ana
    with pytest.raises(ValueError):
        new_match(cfg, members=[[ana], []])


def test_renaming_a_person_renames_him_and_his_side_in_the_unfinished_match(django_capture_on_commit_callbacks):
    m = create_match(["Ana", "Carla"], ["Bia", "Duda"], first_breaker=0).match
    log.append_event(m.pk, {"type": "pot", "balls": [1]}, expected_seq=0)
    carla = MatchMember.objects.get(match=m, side=0, order=1).player
    restated = []
    log.on_restate(restated.append)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            assert rename(carla, "Carla Dias") == [m.pk]
    finally:
        log._restaters.remove(restated.append)
    m.refresh_from_db()
    assert m.config["sides"] == [["Ana", "Carla Dias"], ["Bia", "Duda"]]
    assert m.config["players"] == ["Ana / Carla Dias", "Bia / Duda"]
    assert m.player_a.name == "Ana / Carla Dias"
    assert restated == [m.pk]  # every screen pushed again, with no event
    assert MatchRecord.objects.get(match=m, kind="rename").data == {"player": carla.pk, "from": "Carla", "to": "Carla Dias"}
    snap = log.snapshot(m.pk)
    assert snap.seq == 1 and snap.state["scores"] == [1, 0]  # the log is untouched


def test_a_side_with_its_own_name_keeps_it_and_a_finished_match_keeps_the_old_name():
    named = new_match(match_config([["Ana", "Carla"], ["Bia", "Duda"]], first_breaker=0)
                      | {"players": ["Dupla Azul", "Dupla Verde"]})
    carla = MatchMember.objects.get(match=named, side=0, order=1).player
    over = new_match(match_config([["Ana", "Carla"], ["Bia", "Duda"]], first_breaker=0),
                     members=[[MatchMember.objects.get(match=named, side=0, order=0).player, carla],
                              [Player.objects.create(name="Bia"), Player.objects.create(name="Duda")]])
    log.append_event(over.pk, {"type": "concede_match", "player": 1}, expected_seq=0)
    assert log.snapshot(over.pk).state["phase"] == "match_over"
    assert rename(carla, "Carla Dias") == [named.pk]
    named.refresh_from_db()
    over.refresh_from_db()
    assert named.config["players"] == ["Dupla Azul", "Dupla Verde"]
    assert named.config["sides"][0] == ["Ana", "Carla Dias"]
    assert over.config["sides"][0] == ["Ana", "Carla"]  # played under that name, as its súmula


def test_the_migration_gives_the_doubles_already_stored_their_persons():
    m = create_match(["Ana", "Carla"], ["Bia", "Duda"], first_breaker=0).match
    MatchMember.objects.filter(match=m).delete()
    migration = importlib.import_module("scoreboard.migrations.0014_match_members")
    migration.members_of_existing_doubles(apps, None)
    migration.members_of_existing_doubles(apps, None)  # once: run again, nothing doubles
    assert people(m) == [(0, 0, "Ana"), (0, 1, "Carla"), (1, 0, "Bia"), (1, 1, "Duda")]


def test_the_admin_lists_a_doubles_matchs_persons_in_their_order(admin_client):
    m = create_match(["Ana", "Carla"], ["Bia", "Duda"], first_breaker=0).match
    html = admin_client.get(f"/admin/scoreboard/match/{m.pk}/change/").content.decode()
    assert "integrantes" in html.lower()
    assert html.index(">Ana<") < html.index(">Carla<") < html.index(">Bia<") < html.index(">Duda<")
    single = create_match("Eva", "Lia", first_breaker=0).match
    assert "integrantes" not in admin_client.get(f"/admin/scoreboard/match/{single.pk}/change/").content.decode().lower()
