"""Clubs registered at the federation (``core.clubs``): each with a stable id of its own, registered
alone or with a player, named as names are compared for clashes (case, spaces and Unicode form
aside); the registry carries them to a venue, which upserts them by id, a rename at the
federation renaming the club and its players' club there; the public site lists them with their
ids (``/clubs/``, ``GET /api/clubs/``, ``club_id`` in ``GET /api/players/``). Bad input is refused
in Portuguese and English, nothing stored.

Both roles share one test database: "the venue" is the database after the federation's rows are
deleted and the pulled registry applied."""
from __future__ import annotations

import io
import json
import unicodedata

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from scoreboard.core import federation, names
from scoreboard.core.models import Club, MatchRecord, Player

pytestmark = [pytest.mark.django_db]


def pull_over_the_wire() -> dict:
    """The registry as a venue gets it: ``GET /api/federation/registry/`` with its token."""
    token = federation.issue_venue_token("Clube Centro")
    r = Client().get("/api/federation/registry/", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert r.status_code == 200
    return r.json()


def at_the_venue(**local_players) -> None:
    """Make this database a venue's that never had the federation's rows, with ``local_players``
    (name with ``_`` for spaces -> club) of its own."""
    Player.objects.all().delete()
    Club.objects.all().delete()
    for name, club in local_players.items():
        Player.objects.create(name=name.replace("_", " "), club=club)


def test_a_player_registered_with_a_club_registers_it_once_whatever_its_spelling():
    ana = federation.register("Ana Souza", "Clube A")
    bia = federation.register("Bia Lima", " clube  A ")
    caio = federation.register("Caio Rocha", unicodedata.normalize("NFD", "Associação Santista"))
    dora = federation.register("Dora Reis", "ASSOCIAÇÃO SANTISTA")
    a, s = Club.objects.get(name="Clube A"), Club.objects.get(name="Associação Santista")
    assert Club.objects.count() == 2
    assert (a.federation_id, s.federation_id) == (f"C{a.pk:06d}", f"C{s.pk:06d}")
    # each player's club is the registered club's name, as registered first
    assert [p.club for p in (ana, bia, caio, dora)] == ["Clube A", "Clube A", "Associação Santista",
                                                        "Associação Santista"]
    fed = federation.registry()
    assert fed["clubs"] == [{"federation_id": a.federation_id, "name": "Clube A"},
                            {"federation_id": s.federation_id, "name": "Associação Santista"}]
    assert [(p["name"], p["club"], p["club_id"]) for p in fed["players"]] == [
        ("Ana Souza", "Clube A", a.federation_id), ("Bia Lima", "Clube A", a.federation_id),
        ("Caio Rocha", "Associação Santista", s.federation_id), ("Dora Reis", "Associação Santista", s.federation_id)]


def test_a_club_registered_alone_gets_its_id_or_the_one_given():
    alone = federation.register_club("Bilhar Paulista")
    given = federation.register_club("Sinuca Clube", "SP-042")
    assert alone.federation_id == f"C{alone.pk:06d}" and given.federation_id == "SP-042"
    # a player of a club registered alone joins it (no second club)
    assert federation.register("Ana Souza", "bilhar paulista").club == "Bilhar Paulista"
    assert Club.objects.count() == 2


def test_register_clubs_command_stores_a_file_or_nothing(tmp_path):
    good = tmp_path / "clubs.json"
    good.write_text(json.dumps([{"name": "Clube Norte"}, {"name": "Clube Sul", "federation_id": "S1"}]))
    out = io.StringIO()
    call_command("federation", "register-clubs", str(good), stdout=out)
    norte = Club.objects.get(name="Clube Norte")
    assert json.loads(out.getvalue()) == [{"federation_id": f"C{norte.pk:06d}", "name": "Clube Norte"},
                                          {"federation_id": "S1", "name": "Clube Sul"}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"name": "Clube Leste"}, {"name": "CLUBE  norte"}]))
    with pytest.raises(CommandError) as e:
        call_command("federation", "register-clubs", str(bad), stdout=io.StringIO())
    assert f"Clube já registrado: Clube Norte ({norte.federation_id})" in str(e.value)
    assert f"Club registered already: Clube Norte ({norte.federation_id})" in str(e.value)
    assert not Club.objects.filter(name="Clube Leste").exists()  # the file's first row too
    players = tmp_path / "players.json"
    players.write_text(json.dumps([{"name": "Ana Souza", "club": "Clube Oeste"},
                                   {"name": "Bia Lima", "club": "Clube\u202eOeste"}]))
    with pytest.raises(CommandError, match="item 2 do arquivo: nome do clube: caractere invisível .* / "
                                           "item 2 of the file: club name: invisible"):
        call_command("federation", "register", str(players), stdout=io.StringIO())
    assert not Player.objects.exists() and not Club.objects.filter(name="Clube Oeste").exists()


@pytest.mark.parametrize("action, text, pt, en", [
    ("register-clubs", '[{"name": ""}]', "item 1 do arquivo: nome do clube: vazio", "item 1 of the file: club name: empty"),
    ("register-clubs", '[{"name": "Clube X"}, {"name": null}]', "item 2 do arquivo: nome do clube: vazio",
     "item 2 of the file: club name: empty"),
    ("register-clubs", '[{"name": "Clube X"}, {}]', "item 2 do arquivo: nome do clube: vazio",
     "item 2 of the file: club name: empty"),
    ("register-clubs", '[{"name": ["x"]}]', "item 1 do arquivo: nome do clube: deve ser um texto",
     "item 1 of the file: club name: must be text"),
    ("register-clubs", "", "JSON inválido na linha 1, coluna 1", "Malformed JSON at line 1, column 1"),
    ("register-clubs", '[{"name": "Clube X"},\n {"name": }]', "JSON inválido na linha 2, coluna 11",
     "Malformed JSON at line 2, column 11"),
    ("register-clubs", '{"name": "Clube X"}', "Esperada uma lista", "Expected a list"),
    ("register-clubs", '[{"name": "Clube Leste"}, {"name": "clube  LESTE"}]',
     "item 2 do arquivo: o clube clube LESTE é o mesmo do item 1", "item 2 of the file: the club clube LESTE is the one of item 1"),
    ("register-clubs", '[{"name": "Clube Leste", "federation_id": "L1"}, {"name": "Clube Oeste", "federation_id": "L1"}]',
     "item 2 do arquivo: o id L1 é o do item 1", "item 2 of the file: the id L1 is the one of item 1"),
    ("register", '[{"name": "Gil Ok", "club": ["x"]}]', "item 1 do arquivo: nome do clube: deve ser um texto",
     "item 1 of the file: club name: must be text"),
    ("register", '[{"name": "Ana Souza", "club": "Clube X"}, {"name": "Gil Ok", "club": 123}]',
     "item 2 do arquivo: nome do clube: deve ser um texto", "item 2 of the file: club name: must be text"),
    ("register", '[{"name": ["Lista"]}]', "item 1 do arquivo: nome do jogador: deve ser um texto",
     "item 1 of the file: player name: must be text"),
    ("register", '[{"name": "Ana Souza"}, {"name": "  "}]', "item 2 do arquivo: nome do jogador: vazio",
     "item 2 of the file: player name: empty"),
    ("register", '[{"name": "Gil\\u202eOk"}]', "item 1 do arquivo: nome do jogador: caractere invisível",
     "item 1 of the file: player name: invisible format character"),
    ("register", '[{"name": "Gil Ok", "federation_id": 7}]', "item 1 do arquivo: Id na federação inválido: 7",
     "item 1 of the file: Invalid federation id: 7"),
    ("register", "\ufeff", "JSON inválido na linha 1, coluna 1", "Malformed JSON at line 1, column 1"),
    ("register", '[{"name": "Ana Souza", "federation_id": "F9"}, {"name": "Bia Lima", "federation_id": "F9"}]',
     "item 2 do arquivo: O id F9 já é do jogador Ana Souza", "item 2 of the file: The id F9 belongs to the player Ana Souza"),
])
def test_a_bad_file_is_refused_naming_its_item_in_both_languages_and_nothing_is_stored(tmp_path, action, text, pt, en):
    path = tmp_path / "file.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as e:
        call_command("federation", action, str(path), stdout=io.StringIO())
    said_pt, said_en = str(e.value).split(" / ", 1)
    assert said_pt.startswith(pt) and said_en.startswith(en), str(e.value)
    assert "Expecting" not in said_pt and " C0" not in str(e.value)  # no Python English, no rolled-back id
    assert not Player.objects.exists() and not Club.objects.exists()


def test_register_refuses_a_name_or_club_that_is_not_text():
    with pytest.raises(names.NameRefused) as e:
        federation.register(["Lista"], "Clube X")
    assert (e.value.pt, e.value.en) == ("nome do jogador: deve ser um texto", "player name: must be text")
    with pytest.raises(federation.ClubRefused) as e:
        federation.register("Gil Ok", 123)
    assert (e.value.pt, e.value.en) == ("nome do clube: deve ser um texto", "club name: must be text")
    with pytest.raises(names.NameRefused, match="nome do jogador: vazio / player name: empty"):
        federation.register("  ")
    assert not Player.objects.exists() and not Club.objects.exists()
    # a blank or missing club is none
    assert federation.register("Gil Ok", None).club == federation.register("Bia Lima", "  ").club == ""


@pytest.mark.parametrize("name, federation_id, pt, en", [
    ("", None, "nome do clube: vazio", "club name: empty"),
    ("   ", None, "nome do clube: vazio", "club name: empty"),
    ("C" * 61, None, "nome do clube: mais de 60 caracteres (61)", "club name: more than 60 characters (61)"),
    ("Clube\u200bA", None, "caractere invisível", "invisible format character"),
    ("clube a", None, "Clube já registrado: Clube A", "Club registered already: Clube A"),
    ("  CLUBE   A ", None, "Clube já registrado: Clube A", "Club registered already: Clube A"),
    (unicodedata.normalize("NFD", "Clube Á"), None, "Clube já registrado: Clube Á", "Club registered already: Clube Á"),
    ("Clube B", "X1", "O id X1 já é do clube Clube A", "The id X1 belongs to the club Clube A already"),
    ("Clube B", "X 2", "Id na federação inválido", "Invalid federation id"),
    ("Clube B", "Y" * 41, "Id na federação inválido", "Invalid federation id"),
])
def test_a_bad_or_duplicate_club_is_refused_in_both_languages_and_nothing_stored(name, federation_id, pt, en):
    federation.register_club("Clube A", "X1")
    federation.register_club("Clube Á")
    before = list(Club.objects.order_by("pk").values_list("name", "key", "federation_id"))
    with pytest.raises(federation.ClubRefused) as e:
        federation.register_club(name, federation_id)
    assert pt in e.value.pt and en in e.value.en, (e.value.pt, e.value.en)
    assert list(Club.objects.order_by("pk").values_list("name", "key", "federation_id")) == before
    # a player registered with a bad club is refused too (with a registered one he joins it)
    if name.strip() and "já registrado" not in pt and federation_id is None:
        with pytest.raises(federation.ClubRefused) as e:
            federation.register("Ana Souza", name)
        assert pt in e.value.pt and en in e.value.en
        assert not Player.objects.exists()
        assert list(Club.objects.order_by("pk").values_list("name", "key", "federation_id")) == before


def test_the_registry_round_trip_gives_the_venue_the_clubs_and_their_players():
    a = federation.register("Ana Souza", "Clube A").club
    federation.register("Bia Lima", "Clube B")
    alone = federation.register_club("Clube C", "C-77")
    federation.register("Nina Sem Clube")
    fed = pull_over_the_wire()
    ids = {c.name: c.federation_id for c in Club.objects.all()}
    at_the_venue(Caio_Rocha="clube a", Davi_Nunes="Clube Local")
    got = federation.apply_registry(fed)
    assert (got.clubs_added, got.clubs_updated, got.added, got.updated) == (3, 0, 3, 0)
    assert sorted(Club.objects.values_list("federation_id", "name")) == sorted(
        [(ids["Clube A"], "Clube A"), (ids["Clube B"], "Clube B"), ("C-77", "Clube C")])
    assert a == "Clube A" and alone.federation_id == "C-77"
    # again: nothing new, nothing changed
    again = federation.apply_registry(fed)
    assert (again.clubs_added, again.clubs_updated, again.added, again.updated) == (0, 0, 0, 0)
    ana, bia = Player.objects.get(name="Ana Souza"), Player.objects.get(name="Bia Lima")
    caio, davi = Player.objects.get(name="Caio Rocha"), Player.objects.get(name="Davi Nunes")
    nina = Player.objects.get(name="Nina Sem Clube")
    c = Client()
    # the venue's public JSON: every club by name, the venue's own "clube a" player in Clube A
    assert c.get("/api/clubs/").json() == [
        {"id": ids["Clube A"], "name": "Clube A", "players": [
            {"id": ana.federation_id, "name": "Ana Souza"}, {"id": str(caio.pk), "name": "Caio Rocha"}]},
        {"id": ids["Clube B"], "name": "Clube B", "players": [{"id": bia.federation_id, "name": "Bia Lima"}]},
        {"id": "C-77", "name": "Clube C", "players": []},
        {"id": None, "name": "Clube Local", "players": [{"id": str(davi.pk), "name": "Davi Nunes"}]},
    ]
    assert c.get("/api/players/?q=").json() == [
        {"id": ana.federation_id, "name": "Ana Souza", "club": "Clube A", "club_id": ids["Clube A"]},
        {"id": bia.federation_id, "name": "Bia Lima", "club": "Clube B", "club_id": ids["Clube B"]},
        {"id": str(caio.pk), "name": "Caio Rocha", "club": "clube a", "club_id": ids["Clube A"]},
        {"id": str(davi.pk), "name": "Davi Nunes", "club": "Clube Local", "club_id": None},
        {"id": nina.federation_id, "name": "Nina Sem Clube", "club": "", "club_id": None},
    ]
    # the page shows each registered club with its id and its players linked
    page = c.get("/clubs/").content.decode()
    assert f'<section data-club="{ids["Clube A"]}"><h2>Clube A <small class="ev-label">(2)</small></h2>' in page
    assert f"Registro na federação: {ids['Clube A']}" in page and "Registro na federação: C-77" in page
    assert f'href="/players/{ana.federation_id}/?lang=pt-br">Ana Souza</a>' in page
    assert "<h2>Clube Local" in page and "Nenhum jogador ainda." in page
    en = c.get("/clubs/?lang=en").content.decode()
    assert "Federation id: C-77" in en and "No players yet." in en


def test_a_club_renamed_at_the_federation_is_renamed_at_the_venue_with_its_players():
    federation.register("Ana Souza", "Clube A")
    federation.register("Bia Lima", "Clube B")
    fid = Club.objects.get(name="Clube A").federation_id
    fed_b = Club.objects.get(name="Clube B").federation_id
    snapshot = pull_over_the_wire()  # what the venue pulled before the rename
    federation.rename_club(fid, "Clube Alfa", by="user:diretor")
    # at the federation: the club, its players and an audit record
    assert Club.objects.get(federation_id=fid).name == "Clube Alfa"
    assert Player.objects.get(name="Ana Souza").club == "Clube Alfa"
    rec = MatchRecord.objects.get(kind="rename", data__club=fid)
    assert rec.by == "user:diretor" and rec.data == {"club": fid, "from": "Clube A", "to": "Clube Alfa"}
    renamed = pull_over_the_wire()
    assert {"federation_id": fid, "name": "Clube Alfa"} in renamed["clubs"]
    at_the_venue(Caio_Rocha="CLUBE  A")  # a player of the venue's own, of Clube A
    federation.apply_registry(snapshot)
    got = federation.apply_registry(renamed)
    assert (got.clubs_added, got.clubs_updated) == (0, 1)
    assert Club.objects.get(federation_id=fid).name == "Clube Alfa"
    assert dict(Player.objects.values_list("name", "club")) == {
        "Ana Souza": "Clube Alfa", "Bia Lima": "Clube B", "Caio Rocha": "Clube Alfa"}
    # two clubs swapping names in one pull swap their players too
    swapped = json.loads(json.dumps(renamed))
    for c in swapped["clubs"]:
        c["name"] = {"Clube Alfa": "Clube B", "Clube B": "Clube Alfa"}[c["name"]]
    for p in swapped["players"]:
        p["club"] = {"Clube Alfa": "Clube B", "Clube B": "Clube Alfa"}[p["club"]]
    got = federation.apply_registry(swapped)
    assert got.clubs_updated == 2
    assert dict(Club.objects.values_list("federation_id", "name")) == {fid: "Clube B", fed_b: "Clube Alfa"}
    assert dict(Player.objects.values_list("name", "club")) == {
        "Ana Souza": "Clube B", "Bia Lima": "Clube Alfa", "Caio Rocha": "Clube B"}


def test_a_rename_that_clashes_or_names_no_club_is_refused_and_nothing_changes():
    federation.register("Ana Souza", "Clube A")
    federation.register_club("Clube B")
    fid = Club.objects.get(name="Clube A").federation_id
    for args, pt, en in (((fid, " clube   b"), "Já existe o clube Clube B", "There is a club Clube B"),
                         ((fid, ""), "nome do clube: vazio", "club name: empty"),
                         (("C999999", "Clube Z"), "Clube desconhecido: C999999", "Unknown club: C999999")):
        with pytest.raises(federation.ClubRefused) as e:
            federation.rename_club(*args)
        assert pt in e.value.pt and en in e.value.en
    assert Club.objects.get(federation_id=fid).name == "Clube A"
    assert Player.objects.get(name="Ana Souza").club == "Clube A"
    assert not MatchRecord.objects.filter(kind="rename").exists()
    # the command says why, in both languages
    with pytest.raises(CommandError, match="Já existe o clube Clube B .* / There is a club Clube B"):
        call_command("federation", "rename-club", fid, "CLUBE B", stdout=io.StringIO())
    out = io.StringIO()
    call_command("federation", "rename-club", fid, "Clube Alfa", stdout=out)
    assert json.loads(out.getvalue()) == {"federation_id": fid, "name": "Clube Alfa"}
    assert Player.objects.get(name="Ana Souza").club == "Clube Alfa"


def test_a_registry_of_the_older_shape_still_applies():
    old = {"players": [{"federation_id": "F1", "name": "Ana Souza", "club": "Centro"},
                       {"federation_id": "F2", "name": "Bia Lima", "club": ""}],
           "clubs": ["Centro"], "seasons": []}
    got = federation.apply_registry(old)
    assert (got.added, got.clubs_added) == (2, 0) and not Club.objects.exists()
    assert dict(Player.objects.values_list("federation_id", "club")) == {"F1": "Centro", "F2": ""}
    assert Client().get("/api/clubs/").json() == [
        {"id": None, "name": "Centro", "players": [{"id": "F1", "name": "Ana Souza"}]}]
