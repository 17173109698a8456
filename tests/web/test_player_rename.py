"""A player renamed in the admin is the same person everywhere, or the rename is refused.

Found by a fresh tester: renaming a team player whose rubber was already made let the next desk
action delete that match and make a new one under the old name (new id, the old links 404, a new
player row); a name with " / " (the doubles separator) was accepted; a rename to his partner's
name was saved while the match silently kept the old one.
"""
from __future__ import annotations

import pytest

from scoreboard.core import competitions, log, teams
from scoreboard.core.matches import create_match
from scoreboard.core.models import Competition, Event, Match, Player

pytestmark = [pytest.mark.django_db]

TEAMS = {"name": "Interclubes · Série A", "reds": 6, "draw_seed": 3, "frames_to_win": 1,
         "teams": [{"name": "Clube Paulistano", "players": ["Ana", "Bia", "Carla"]},
                   {"name": "EC Santos", "players": ["Duda", "Eva"]}],
         "tie": [{"kind": "singles"}, {"kind": "doubles"}, {"kind": "singles"}]}


def rename(client, player: Player, name: str):
    """The admin's change form, as an organiser saves it."""
    return client.post(f"/admin/scoreboard/player/{player.pk}/change/",
                       {"name": name, "club": player.club, "country": "", "_save": "Salvar"})


def first_rubber(comp: Competition) -> dict:
    return teams.summary(Competition.objects.get(pk=comp.pk))["ties"][0]["rubbers"][0]


def test_a_team_player_renamed_keeps_his_called_rubber_and_his_lineups(admin_client):
    comp = competitions.create_competition(TEAMS).competition
    rubber = first_rubber(comp)
    match = Match.objects.get(fixture__competition=comp, fixture__number=rubber["number"])
    side = 0 if "Ana" in rubber["players"][0] else 1
    assert rubber["players"][side] == ["Ana"] and match.config["players"][side] == "Ana"
    ana = Player.objects.get(pk=(match.player_a_id, match.player_b_id)[side])

    r = rename(admin_client, ana, "Ana Souza")
    assert r.status_code == 302, r.content.decode()[:2000]
    teams.advance(comp)  # what every desk action and result runs next

    match.refresh_from_db()  # the same match: not deleted and made again
    assert match.config["players"][side] == "Ana Souza"
    assert Match.objects.get(fixture__competition=comp, fixture__number=rubber["number"]).pk == match.pk
    assert first_rubber(comp)["players"][side] == ["Ana Souza"]
    home = Competition.objects.get(pk=comp.pk).spec["teams"][0]
    assert home["players"] == ["Ana Souza", "Bia", "Carla"]
    assert not Player.objects.filter(name="Ana").exists()  # no row made again under the old name
    # a lineup set by the desk before the rename follows him too
    tie = teams.summary(comp)["ties"][0]
    where = "home" if tie["home_name"] == "Clube Paulistano" else "away"
    teams.perform(Competition.objects.get(pk=comp.pk), {"action": "lineup", "tie": tie["tie"], "side": where,
                                                        "lineup": [["Bia"], ["Ana Souza", "Carla"], ["Ana Souza"]]}, "test")
    bia = Player.objects.get(name="Bia")
    assert rename(admin_client, Player.objects.get(name="Ana Souza"), "Ana S. Lima").status_code == 302
    assert rename(admin_client, bia, "Bia Lima").status_code == 302
    stored = Competition.objects.get(pk=comp.pk).lineups[str(tie["tie"])][where]
    assert stored == [["Bia Lima"], ["Ana S. Lima", "Carla"], ["Ana S. Lima"]]


def test_a_rename_to_a_teammates_name_is_refused_and_changes_nothing(admin_client):
    comp = competitions.create_competition(TEAMS).competition
    before = Competition.objects.get(pk=comp.pk).spec
    bia = Player.objects.filter(name="Bia").first() or Player.objects.create(name="Bia")
    ana = Player.objects.get(name="Ana")
    r = rename(admin_client, ana, "Carla")
    assert r.status_code == 200  # the form again, with the error
    assert "Clube Paulistano já tem um jogador chamado Carla" in r.content.decode()
    assert Player.objects.get(pk=ana.pk).name == "Ana" and bia.name == "Bia"
    assert Competition.objects.get(pk=comp.pk).spec == before


def test_a_name_with_the_doubles_separator_is_refused(admin_client):
    m = create_match("Ana", "Bia", first_breaker=0).match
    r = rename(admin_client, m.player_a, "Ana / Carla")
    assert r.status_code == 200
    assert "O nome não pode ter “/”" in r.content.decode()
    m.refresh_from_db()
    assert m.player_a.name == "Ana" and m.config["players"] == ["Ana", "Bia"]
    r = admin_client.post("/admin/scoreboard/player/add/", {"name": "Edu/Fábio", "club": "", "country": "",
                                                             "_save": "Salvar"})
    assert r.status_code == 200 and not Player.objects.filter(name="Edu/Fábio").exists()
    # a doubles side's own row ("Ana / Carla") may still be edited (its photo, its club)
    side = create_match(["Gil", "Hugo"], ["Ivo", "Jó"], first_breaker=0).match.player_a
    assert admin_client.post(f"/admin/scoreboard/player/{side.pk}/change/",
                             {"name": side.name, "club": "Clube A", "country": "", "_save": "Salvar"}).status_code == 302
    # ...but not its name, which is its players' (a tester renamed "Carla / Bia" "Dupla
    # Paulistana": the called rubber was deleted and made again)
    r = admin_client.post(f"/admin/scoreboard/player/{side.pk}/change/",
                          {"name": "Dupla Paulistana", "club": "Clube A", "country": "", "_save": "Salvar"})
    assert r.status_code == 200 and "O nome de uma dupla é o dos seus jogadores (Gil / Hugo)" in r.content.decode()
    assert Player.objects.get(pk=side.pk).name == "Gil / Hugo"


def test_a_rename_to_the_partners_name_is_refused_naming_the_match(admin_client):
    m = create_match(["Ana", "Carla"], ["Bia", "Duda"], first_breaker=0).match
    log.append_event(m.pk, {"type": "pot", "balls": [1]}, expected_seq=0)
    carla = m.members.get(side=0, order=1).player
    Player.objects.filter(pk=carla.pk).update(club="Clube B")  # not a duplicate row: another club
    carla.refresh_from_db()
    r = rename(admin_client, carla, "Ana")
    assert r.status_code == 200
    assert f"o jogo nº {m.pk} (Ana / Carla × Bia / Duda) teria dois jogadores iguais" in r.content.decode()
    m.refresh_from_db()
    assert m.config["sides"] == [["Ana", "Carla"], ["Bia", "Duda"]]
    assert Player.objects.get(pk=carla.pk).name == "Carla"


def test_matches_made_by_name_share_the_players_row_and_the_admin_can_edit_it(admin_client):
    """creatematch / create_match used to make a new row per match, so the second "Ana" could
    not be saved in the admin ("Já existe um jogador chamado Ana") and her matches were apart."""
    first = create_match("Ana", "Bia", first_breaker=0).match
    second = create_match(["Ana", "Carla"], ["Bia", "Duda"], first_breaker=0).match
    ana = first.player_a
    assert second.members.get(side=0, order=0).player == ana
    assert second.members.get(side=1, order=0).player == first.player_b
    assert Player.objects.filter(name="Ana").count() == 1
    r = admin_client.post(f"/admin/scoreboard/player/{ana.pk}/change/",
                          {"name": "Ana", "club": "Clube Paulistano", "country": "", "_save": "Salvar"})
    assert r.status_code == 302, r.content.decode()[:2000]
    # with a club she is another person from a clubless "Ana" made afterwards
    third = create_match("Ana", "Eva", first_breaker=0).match
    assert third.player_a != ana and third.player_a.club == ""


def test_one_name_on_both_sides_of_a_singles_match_is_refused_and_stores_nothing():
    """Both names are the one clubless row: one person cannot play both sides (Art. 1)."""
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError) as e:
        call_command("creatematch", "--player-a", "Ana", "--player-b", "ana")
    assert "um jogador joga por um só lado (Art. 1)" in str(e.value) and "plays for one side only" in str(e.value)
    assert Match.objects.count() == 0 and Player.objects.count() == 0


def test_a_team_players_club_does_not_change_while_his_competition_is_played(admin_client):
    """Found by a tester: a team player moved to another club in the admin was no longer found
    by his team's next rubber (players are found by name and the team's club), which made a
    second row of him under the old club. Refused, in pt and en, until the competition ends."""
    comp = competitions.create_competition(TEAMS).competition
    ana = Player.objects.get(name="Ana")
    assert ana.club == "Clube Paulistano"
    rows = Player.objects.count()
    form = {"name": "Ana", "club": "EC Santos", "country": "", "_save": "Salvar"}
    r = admin_client.post(f"/admin/scoreboard/player/{ana.pk}/change/", form)
    assert r.status_code == 200
    assert ("Ana joga pela equipe Clube Paulistano em “Interclubes · Série A”, ainda em disputa: o clube de "
            "um jogador de equipe não muda antes do fim da competição.") in r.content.decode()
    r = admin_client.post(f"/admin/scoreboard/player/{ana.pk}/change/", form, HTTP_ACCEPT_LANGUAGE="en")
    assert ("Ana plays for team Clube Paulistano in “Interclubes · Série A”, still being played: a team "
            "player&#x27;s club does not change before the competition ends.") in r.content.decode()
    assert Player.objects.get(pk=ana.pk).club == "Clube Paulistano" and Player.objects.count() == rows
    teams.advance(Competition.objects.get(pk=comp.pk))
    assert Player.objects.count() == rows  # no second Ana
    # a player of no team competition moves club freely
    solo = create_match("Gil", "Hugo", first_breaker=0).match.player_a
    assert admin_client.post(f"/admin/scoreboard/player/{solo.pk}/change/",
                             {"name": "Gil", "club": "Clube A", "country": "", "_save": "Salvar"}).status_code == 302
    assert Player.objects.get(pk=solo.pk).club == "Clube A"


def test_a_rename_to_a_player_of_another_team_is_refused(admin_client, client):
    """Found by a tester: renaming Carla (Clube Paulistano) "Duda", a player of EC Santos, was
    saved, and from then on the competition's API, desk and matches answered 500."""
    comp = competitions.create_competition(TEAMS).competition
    carla = Player.objects.filter(name="Carla").first() or Player.objects.create(name="Carla", club="Clube Paulistano")
    before = Competition.objects.get(pk=comp.pk).spec
    r = rename(admin_client, carla, "duda")
    assert r.status_code == 200
    assert "duda já joga pela equipe EC Santos nesta competição" in r.content.decode()
    assert Player.objects.get(pk=carla.pk).name == "Carla"
    assert Competition.objects.get(pk=comp.pk).spec == before
    assert client.get(f"/api/competitions/{comp.pk}/").status_code == 200


def test_a_player_renamed_mid_match_is_named_anew_in_the_last_action_and_the_story(admin_client, client):
    """Found by a tryout: after a rename the feed's ``last_action`` and the TV's "Último lance"
    still read "Igor Martinez de Albuquerque encaçapa…" beside the new name everywhere else."""
    created = create_match("Igor Martinez de Albuquerque", "Bia Lima", first_breaker=0)
    mid = created.match.pk
    for ev in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [5]}):
        log.append_event(mid, ev)
    before = client.get(f"/matches/{mid}/feed.json").json()
    assert before["last_action"].startswith("Igor Martinez de Albuquerque encaçapa")
    igor = Player.objects.get(name="Igor Martinez de Albuquerque")
    assert rename(admin_client, igor, "Igor Martins Albuquerque").status_code == 302

    feed = client.get(f"/matches/{mid}/feed.json").json()
    assert feed["player_a"] == "Igor Martins Albuquerque"
    assert feed["last_action"] == before["last_action"].replace("Igor Martinez de Albuquerque",
                                                                "Igor Martins Albuquerque")
    assert client.get(f"/matches/{mid}/feed.json?lang=en").json()["last_action"].startswith(
        "Igor Martins Albuquerque")
    tv = client.get(f"/matches/{mid}/tv/").content.decode()
    assert "Igor Martinez" not in tv and "Igor Martins Albuquerque encaçapa" in tv
    # the log's events, seqs and states are as they were: only their words
    assert [e.event["type"] for e in Event.objects.filter(match_id=mid).order_by("seq")] == ["pot", "pot"]
    assert log.snapshot(mid).state["scores"] == [6, 0]
