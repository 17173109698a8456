"""A doubles match (issue 19; Art. 1 "em conjunto"): created by ``core.matches.create_match`` and
``manage.py creatematch``, scored through the JSON API with the doubles scenarios' decisions,
bad input refused with nothing stored."""
from __future__ import annotations

import json
import pathlib

import pytest

from scoreboard.core.matches import create_match
from scoreboard.core.models import Event, Match, RefereeCredential

pytestmark = [pytest.mark.django_db, pytest.mark.pg]

SCENARIOS = pathlib.Path(__file__).resolve().parents[1] / "scenarios"


def post(client, mid, event, token, seq=None):
    body = {"event": event} if seq is None else {"event": event, "expected_seq": seq}
    return client.post(f"/api/matches/{mid}/events/", data=json.dumps(body), content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.fixture
def doubles(db):
    return create_match(["Ana", "Carla"], ["Bia", "Duda"], first_breaker=0)


def test_create_match_stores_the_sides(doubles, client):
    m = Match.objects.get(pk=doubles.match.pk)
    assert m.config["players"] == ["Ana / Carla", "Bia / Duda"]
    assert m.config["sides"] == [["Ana", "Carla"], ["Bia", "Duda"]]
    assert (m.player_a.name, m.player_b.name) == ("Ana / Carla", "Bia / Duda")
    body = client.get(f"/api/matches/{m.pk}/").json()
    assert body["state"]["striker_player"] == 0 and body["state"]["order"] == [[0, 1], [0, 1]]


def test_a_singles_match_is_created_as_before(db, client):
    c = create_match("Ana", "Bia", first_breaker=0)
    assert "sides" not in c.match.config
    assert "striker_player" not in client.get(f"/api/matches/{c.match.pk}/").json()["state"]


def test_a_doubles_frame_is_scored_through_the_api(doubles, client):
    mid, tok = doubles.match.pk, doubles.token
    steps = [
        ({"type": "order", "order": [[1, 0], [0, 1]]}, (0, 1, 0)),   # Carla breaks
        ({"type": "pot", "balls": [1]}, (0, 1, 0)),
        ({"type": "no_pot"}, (1, 0, 0)),                              # Bia; Ana next
        ({"type": "foul", "ball": 5}, (0, 0, None)),                   # Bia fouls; Ana decides, next hangs on it
        ({"type": "decision", "choice": "pass"}, (1, 0, 0)),          # Bia again
        ({"type": "no_pot"}, (0, 0, 1)),                              # Ana; Duda next
        ({"type": "foul", "kind": "slow_play", "player": 1, "person": 1}, (0, 0, 1)),  # Duda, seated
    ]
    for seq, (ev, (side, player, nxt)) in enumerate(steps):
        r = post(client, mid, ev, tok, seq)
        assert r.status_code == 201, r.content
        st = r.json()["state"]
        assert (st["striker"], st["striker_player"], st["next_player"]) == (side, player, nxt), ev
    assert st["scores"] == [13, 0] and st["player_warnings"] == [[0, 0], [0, 1]]
    r = post(client, mid, {"type": "order", "order": [[0, 1], [0, 1]]}, tok)
    assert r.status_code == 422 and r.json()["error"]["code"] == "wrong_phase"
    assert Event.objects.filter(match_id=mid).count() == len(steps)
    log = client.get(f"/api/matches/{mid}/events/").json()
    descriptions = [e["description"]["en"] for e in (log["events"] if isinstance(log, dict) else log)]
    assert "Foul by Bia: 5 points to Ana / Carla (Art. 40)" in descriptions
    assert (descriptions[2], descriptions[5]) == ("Carla misses; Bia to play", "Bia misses; Ana to play")


DOUBLES = sorted(SCENARIOS.glob("doubles-*.json"))


def _engine_refusal(sc: dict):
    """The engine's own error for a scenario that expects one (its message id and words)."""
    import sinuca

    try:
        sinuca.Match.replay(sc["config"], sc["events"])
    except sinuca.SinucaError as e:
        return e
    return None


def _stored(cfg: dict):
    """The scenario's match as the web stores one, with a referee token: the desk's
    ``create_match`` for a full rack; a configured position as a match file is imported
    (``importmatch``, the admin's import: ``read_document`` then ``import_document``)."""
    from scoreboard.reports.exports import import_document, read_document

    if "position" not in cfg:
        c = create_match(*cfg["players"], first_breaker=cfg.get("first_breaker"),
                         frames_to_win=cfg.get("frames_to_win", 1), reds=cfg.get("reds", 15),
                         retorno=cfg.get("retorno", True))
        return c.match, c.token
    match = import_document(read_document(json.dumps({"config": cfg, "events": []})))
    return match, RefereeCredential.issue(match)[1]


@pytest.mark.parametrize("path", DOUBLES, ids=lambda p: p.stem)
def test_the_doubles_scenarios_through_the_api(db, client, path):
    """Every doubles scenario through the web, a configured position (the decider's lot) and a
    refused configuration too: they were left to ``sinuca replay`` alone."""
    from scoreboard.reports.exports import read_document

    sc = json.loads(path.read_text())
    cfg, want = sc["config"], sc.get("expect_error")
    if want and want.get("reason"):
        refused = _engine_refusal(sc)
        assert refused.msg_id == f"{want['code']}.{want['reason']}"
    if want and want["index"] == -1:
        # the match file's import and the desk refuse it in the engine's own words, storing nothing
        with pytest.raises(ValueError) as e:
            read_document(json.dumps({"config": cfg, "events": []}))
        assert getattr(e.value, "code", None) == want["code"] and str(e.value) == refused.message
        if len(cfg["players"]) == 2:
            with pytest.raises(ValueError) as e:
                create_match(*cfg["players"])
            assert e.value.message == refused.message
        assert Match.objects.count() == 0
        return
    match, token = _stored(cfg)
    for i, ev in enumerate(sc["events"]):
        r = post(client, match.pk, ev, token)
        if want and i == want["index"]:
            assert r.status_code == 422 and r.json()["error"]["code"] == want["code"]
            if want.get("reason"):
                assert r.json()["error"]["message"] == refused.message
            assert Event.objects.filter(match_id=match.pk).count() == i
            return
        assert r.status_code == 201, (i, r.content)
    st = client.get(f"/api/matches/{match.pk}/").json()["state"]
    for key, value in sc["expect"].items():
        assert st[key] == value, key


def test_every_doubles_scenario_runs_through_the_api():
    """None is left out any more (the decider by lot was: its set-up is a configured position)."""
    assert "doubles-decider-by-lot" in [p.stem for p in DOUBLES] and len(DOUBLES) >= 30


def test_a_doubles_match_file_imports_with_its_sides_and_long_names_are_refused(db):
    """A match file whose sides are lists of names (contract section 11) was refused on import as
    "player 1: empty"; a side of four long names made a side name longer than its player row
    holds (PostgreSQL refused the row: a 500)."""
    from scoreboard.reports.exports import import_document, read_document

    doc = {"config": {"players": [["Ana", "Carla"], ["Bia", "Duda"]], "first_breaker": 0},
           "events": [{"type": "no_pot"}]}
    m = import_document(read_document(json.dumps(doc)))
    assert m.config["sides"] == [["Ana", "Carla"], ["Bia", "Duda"]] and m.seq == 1
    assert [x.player.name for x in m.members.order_by("side", "order")] == ["Ana", "Carla", "Bia", "Duda"]
    for players, words in [([["Ana", "C" * 81], ["Bia"]], "lado A, jogador 2: mais de 80"),
                           ([["Ana"], ["Bia", "Du\x07da"]], "lado B, jogador 2: caractere de controle"),
                           ([["A" * 30, "B" * 30, "C" * 30], ["Bia"]], "nome do lado A: mais de 80")]:
        with pytest.raises(ValueError) as e:
            read_document(json.dumps({"config": {"players": players}, "events": []}))
        assert str(e.value).startswith(words), str(e.value)
    assert Match.objects.count() == 1


@pytest.mark.parametrize("a, b", [(["Ana", "Carla"], []), (["A", "B", "C", "D", "E"], ["F"]),
                                  (["Ana", "Carla"], ["Bia", "Ana"])])
def test_bad_sides_store_nothing(db, a, b):
    import sinuca

    with pytest.raises(sinuca.SinucaError) as e:
        create_match(a, b)
    assert e.value.code == "invalid_config" and " / " in e.value.message
    assert Match.objects.count() == 0


def test_creatematch_takes_a_side_of_several_players(db, capsys):
    from django.core.management import CommandError, call_command

    call_command("creatematch", "--player-a", "Ana", "--player-a", "Carla", "--player-b", "Bia",
                 "--player-b", "Duda", "--first-breaker", "0")
    out = json.loads(capsys.readouterr().out)
    assert Match.objects.get(pk=out["match"]).config["sides"] == [["Ana", "Carla"], ["Bia", "Duda"]]
    with pytest.raises(CommandError, match="Art. 1"):
        call_command("creatematch", "--player-a", "Ana", "--player-a", "Carla", "--player-b", "Carla")
    assert Match.objects.count() == 1


def test_the_admin_creates_a_doubles_match_and_refuses_a_player_on_both_sides(admin_client):
    from scoreboard.core.models import Player

    a, b = Player.objects.create(name="Ana"), Player.objects.create(name="Bia")
    form = {"player_a": a.pk, "player_b": b.pk, "reds": 15, "frames_to_win": 1, "retorno": "on",
            "partners_a": "Carla\n", "partners_b": "Duda\n\nEva", "shot_clock": 0}
    r = admin_client.post("/admin/scoreboard/match/add/", form)
    assert r.status_code == 302, r.context["adminform"].form.errors
    m = Match.objects.get()
    assert m.config["sides"] == [["Ana", "Carla"], ["Bia", "Duda", "Eva"]]
    assert m.config["players"] == ["Ana / Carla", "Bia / Duda / Eva"]
    page = admin_client.get(f"/admin/scoreboard/match/{m.pk}/change/").content.decode()
    assert "Duda\nEva</textarea>" in page
    r = admin_client.post("/admin/scoreboard/match/add/", dict(form, partners_b="Carla"))
    assert r.status_code == 200 and Match.objects.count() == 1
    assert "Carla" in r.content.decode() and "Art. 1" in r.content.decode()


def test_the_tv_and_the_overlay_name_who_of_the_side_is_at_the_table(doubles, client):
    mid, tok = doubles.match.pk, doubles.token
    assert post(client, mid, {"type": "no_pot"}, tok).status_code == 201  # Ana misses: Bia at the table
    tv = client.get(doubles.tv_url).content.decode()
    assert 'NA MESA: <b class="tv-member">Bia</b>' in tv and "Ana / Carla" in tv
    # the TV names who plays next on the other side; the side names list the players already
    assert 'A SEGUIR: <b class="tv-next">Carla</b>' in tv and "tv-members" not in tv
    ov = client.get(doubles.overlay_url).content.decode()
    assert '<b class="ov-member">▶ Bia</b> · Duda' in ov and "Ana · Carla" in ov
    # the compact layouts show no members line: the side's name marks who is at the table
    # (a tester's finding: "Ana Souza / Xuxa 0 … Bia Lima / Yara", nobody marked)
    corner = client.get(f"/matches/{mid}/overlay/?layout=corner").content.decode()
    assert '<span class="ov-now">Bia</span> / Duda</span>' in corner and 'ov-name" data-fit data-fit-group="ov-names">Ana / Carla<' in corner
    assert post(client, mid, {"type": "foul", "ball": 4}, tok).status_code == 201  # Bia fouls: Carla decides
    tv = client.get(doubles.tv_url).content.decode()
    assert 'DECIDE: <b class="tv-member">Carla</b>' in tv and "tv-next" not in tv  # Bia fouled: no "next" yet
    assert post(client, mid, {"type": "concede", "player": 1}, tok).status_code == 201
    tv = client.get(doubles.tv_url).content.decode()
    # between frames the statistics' columns are headed by the side, not by its first player
    assert '<th data-fit data-fit-group="st-names" title="Ana / Carla">Ana / Carla</th>' in tv
    assert '<th data-fit data-fit-group="st-names" title="Bia / Duda">Bia / Duda</th>' in tv and "tv-next" not in tv


def test_a_singles_tv_shows_no_member(db, client):
    c = create_match("Ana", "Bia", first_breaker=0)
    assert 'tv-member' not in client.get(c.tv_url).content.decode()
    assert 'ov-members' not in client.get(c.overlay_url).content.decode()


def test_the_sumula_names_the_player_who_fouled_and_his_side(doubles, client):
    from scoreboard.reports.sumula import sheet

    mid, tok = doubles.match.pk, doubles.token
    for ev in ({"type": "no_pot"}, {"type": "foul", "ball": 4}, {"type": "decision", "choice": "play"},
               {"type": "foul", "kind": "slow_play", "player": 1, "person": 1}):
        assert post(client, mid, ev, tok).status_code == 201
    rows = sheet(Match.objects.get(pk=mid)).foul_rows()
    assert [(r[3], r[6], r[7]) for r in rows] == [("Bia (Bia / Duda)", 4, "Ana / Carla"),
                                                  ("Duda (Bia / Duda)", 7, "Ana / Carla")]
    head = dict(sheet(Match.objects.get(pk=mid)).header())
    assert head["Jogador A"] == "Ana / Carla"


def test_the_sumula_names_the_person_warned_and_the_person_disqualified(doubles, client):
    """Art. 42, 54.4 in doubles: the sanctions' rows named the side only."""
    from scoreboard.reports.sumula import sheet

    mid, tok = doubles.match.pk, doubles.token
    for ev in ({"type": "foul", "kind": "slow_play", "player": 1, "person": 1},
               {"type": "disqualify", "players": [0], "persons": [1]}):
        assert post(client, mid, ev, tok).status_code == 201
    rows = sheet(Match.objects.get(pk=mid)).sanction_rows()
    assert [(r[3], r[5]) for r in rows] == [("Duda (Bia / Duda)", "42.1"), ("Carla (Ana / Carla)", "54.4")]
    assert rows[1][6].startswith("Desclassificação de Carla (Art. 54.4)")
    c = create_match(["Gil", "Hugo"], ["Ivo", "Jó"], first_breaker=0)
    assert post(client, c.match.pk, {"type": "disqualify", "players": [1, 0], "persons": [0, 1]}, c.token).status_code == 201
    assert [r[3] for r in sheet(Match.objects.get(pk=c.match.pk)).sanction_rows()] == [
        "Hugo (Gil / Hugo), Ivo (Ivo / Jó)"]


def test_the_feeds_name_the_members_who_is_at_the_table_and_who_is_next(doubles, client):
    """Issue 19.3: the broadcast feeds (vMix/OBS) carried the side names only."""
    mid, tok = doubles.match.pk, doubles.token
    f = client.get(f"/matches/{mid}/feed.json").json()
    assert (f["members_a"], f["members_b"], f["at_table_player"], f["next_player"]) == \
        ("Ana, Carla", "Bia, Duda", "Ana", "Bia")
    assert post(client, mid, {"type": "no_pot"}, tok).status_code == 201  # Ana misses: Bia, then Carla
    f = client.get(f"/matches/{mid}/feed.json").json()
    assert (f["at_table_player"], f["next_player"]) == ("Bia", "Carla")
    xml = client.get(f"/matches/{mid}/feed.xml").content.decode()
    assert "<at_table_player>Bia</at_table_player><next_player>Carla</next_player>" in xml


def test_a_singles_feed_names_the_player_at_the_table_and_no_members(db, client):
    c = create_match("Ana", "Bia", first_breaker=0)
    f = client.get(f"/matches/{c.match.pk}/feed.json").json()
    assert (f["members_a"], f["members_b"], f["at_table_player"], f["next_player"]) == ("", "", "Ana", "")


def test_the_venue_card_names_the_person_at_the_table(doubles, client):
    mid, tok = doubles.match.pk, doubles.token
    assert post(client, mid, {"type": "no_pot"}, tok).status_code == 201  # Ana misses: Bia at the table
    assert "Na mesa: Bia (Bia / Duda)" in client.get("/").content.decode()
    assert "At the table: Bia (Bia / Duda)" in client.get("/?lang=en").content.decode()
    assert post(client, mid, {"type": "no_pot"}, tok).status_code == 201
    assert "Na mesa: Carla (Ana / Carla)" in client.get("/").content.decode()


def test_a_named_pair_on_the_tv_lists_its_players_and_marks_the_one_at_the_table(db, client):
    from scoreboard.core.matches import match_config, new_match

    m = new_match(match_config([["Ana", "Carla"], ["Bia", "Duda"]], first_breaker=0)
                  | {"players": ["Dupla Azul", "Dupla Verde"]})
    tv = client.get(f"/matches/{m.pk}/tv/").content.decode()
    assert '<span data-fit class="tv-members"><b class="tv-member">▶ Ana</b> · Carla</span>' in tv
    assert '<span data-fit class="tv-members">Bia · Duda</span>' in tv
    assert 'A SEGUIR: <b class="tv-next">Bia</b>' in tv


def test_the_admins_partners_are_persons_as_players_are(admin_client):
    """Found by a fresh tester: a partner typed in the admin was only a name (no player row, no
    club, so not renamed with him), "Zé/Xa" was accepted though a player's name cannot have
    "/", and a name two players share was taken without asking which."""
    from scoreboard.core.models import MatchMember, Player

    a, b = Player.objects.create(name="Ana Souza"), Player.objects.create(name="Bia Lima")
    carla_a = Player.objects.create(name="Carla", club="Clube A")
    Player.objects.create(name="Carla", club="Clube B")
    form = {"player_a": a.pk, "player_b": b.pk, "reds": 15, "frames_to_win": 1, "retorno": "on",
            "partners_a": "Zé/Xa", "partners_b": "Duda", "shot_clock": 0}
    r = admin_client.post("/admin/scoreboard/match/add/", form)
    assert r.status_code == 200 and "O nome não pode ter “/”" in r.content.decode()
    r = admin_client.post("/admin/scoreboard/match/add/", dict(form, partners_a="carla"))
    assert r.status_code == 200 and Match.objects.count() == 0
    assert ("Há mais de um jogador chamado carla (Clube A, Clube B): escreva o clube entre parênteses, "
            "por exemplo “carla (Clube A)”.") in r.content.decode()
    r = admin_client.post("/admin/scoreboard/match/add/", dict(form, partners_a="Carla (clube a)"))
    assert r.status_code == 302, r.content.decode()[:3000]
    m = Match.objects.get()
    assert m.config["sides"] == [["Ana Souza", "Carla"], ["Bia Lima", "Duda"]]
    assert str(m) == f"#{m.pk} Ana Souza / Carla × Bia Lima / Duda"
    members = [(x.side, x.order, x.player_id) for x in MatchMember.objects.filter(match=m)]
    duda = Player.objects.get(name="Duda")
    assert members == [(0, 0, a.pk), (0, 1, carla_a.pk), (1, 0, b.pk), (1, 1, duda.pk)]
    assert duda.club == ""


def test_the_admins_player_lists_offer_persons_not_pairs(admin_client):
    from scoreboard.core.matches import create_match

    made = create_match(["Gil", "Hugo"], ["Ivo", "Jó"], first_breaker=0).match
    page = admin_client.get("/admin/scoreboard/match/add/").content.decode()
    assert ">Gil (nº" in page and "Gil / Hugo" not in page
    page = admin_client.get(f"/admin/scoreboard/match/{made.pk}/change/").content.decode()
    assert "Gil / Hugo" in page  # the match's own side row still shows on its page
