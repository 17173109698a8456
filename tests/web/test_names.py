"""Names that cannot fool a screen (``core.names``): every Unicode category a name may not hold,
and a 10,000-character name, tried on every path that stores one (the admin's forms, the
commands, the match and competition files, the desk's API); each refused in Portuguese and
English with nothing stored. A name that passes is stored NFC, trimmed, its spaces collapsed."""
from __future__ import annotations

import io
import json
import tempfile

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from scoreboard.core import names
from scoreboard.core.competitions import create_competition
from scoreboard.core.models import Competition, Match, Player, Season, Table
from scoreboard.reports import exports

pytestmark = pytest.mark.django_db

BAD = {
    "bidi override": "Ana \u202eazuoS 31",      # Cf: mirrors the text after it
    "bidi isolate": "Ana \u2066Souza",         # Cf
    "zero width space": "Bia\u200b Lima",       # Cf: a second "Bia Lima"
    "zero width joiner": "Bia\u200dLima",       # Cf
    "byte order mark": "\ufeffBia Lima",        # Cf
    "control": "Bia\x07Lima",                   # Cc
    "newline": "Bia\nLima",                     # Cc
    "private use": "Bia \ue000 Lima",           # Co
    "line separator": "Bia\u2028Lima",          # Zl
    "paragraph separator": "Bia\u2029Lima",     # Zp
    "unassigned": "Bia \U000e0080",             # Cn
    "10,000 characters": "B" * 10_000,
}


def _says_why(text: str) -> bool:
    return (("não é aceito" in text and "is not accepted" in text) or ("mais de" in text and "more than" in text)
            or ("longo demais" in text and "too long" in text))


@pytest.mark.parametrize("kind", BAD)
def test_the_check_refuses_each_category_in_both_languages(kind):
    with pytest.raises(names.NameRefused) as e:
        names.clean(BAD[kind], 80, ("nome", "name"))
    assert _says_why(str(e.value))
    assert " / " in str(e.value)


def test_a_name_that_passes_is_stored_nfc_trimmed_and_collapsed():
    assert names.clean("  Jose\u0301   da\u00a0Silva ", 80) == "José da Silva"
    p = Player.objects.create(name="  Bia   Lima ")
    assert Player.objects.get(pk=p.pk).name == "Bia Lima"
    # whatever path saves a row, the check holds (the last line under every path)
    with pytest.raises(names.NameRefused):
        Player.objects.create(name=BAD["zero width space"])
    assert Player.objects.count() == 1


def _admin_form(model, request, data, instance=None):
    """The admin's own form of ``model`` (as its add or change page builds it), bound to ``data``."""
    from django.contrib import admin

    model_admin = admin.site._registry[model]
    form = model_admin.get_form(request, instance)(data, instance=instance)
    return form


def test_the_admin_forms_refuse_every_bad_name_and_store_nothing(admin_client, admin_user, rf):
    request = rf.get("/admin/")
    request.user = admin_user
    a, b = Player.objects.create(name="Ana Souza"), Player.objects.create(name="Bia Lima")
    match = {"player_a": a.pk, "player_b": b.pk, "reds": 15, "frames_to_win": 1, "shot_clock": 0}
    for kind, bad in BAD.items():
        forms = [_admin_form(Player, request, {"name": bad, "club": ""}),
                 _admin_form(Player, request, {"name": "Caio", "club": bad}),
                 _admin_form(Player, request, {"name": bad, "club": ""}, instance=b),
                 _admin_form(Table, request, {"name": bad}),
                 _admin_form(Season, request, {"name": bad}),
                 _admin_form(Match, request, {**match, "referee_name": bad}),
                 _admin_form(Match, request, {**match, "competition": bad})]
        if kind not in ("newline", "line separator", "paragraph separator"):  # partners: one a line
            forms.append(_admin_form(Match, request, {**match, "partners_a": bad}))
        for i, form in enumerate(forms):
            assert not form.is_valid(), (kind, i)
            assert _says_why(str(form.errors)), (kind, i, str(form.errors)[:300])
    # and through the page: the form's words shown, nothing stored
    r = admin_client.post("/admin/scoreboard/player/add/", {"name": BAD["bidi override"], "club": ""})
    assert r.status_code == 200 and _says_why(r.content.decode())
    assert sorted(Player.objects.values_list("name", flat=True)) == ["Ana Souza", "Bia Lima"]
    assert not Table.objects.exists() and not Season.objects.exists() and not Match.objects.exists()
    # normalised on the way in: typed with extra spaces, stored as it reads
    r = admin_client.post("/admin/scoreboard/player/add/", {"name": "  Caio   Rocha ", "club": " Clube  A "})
    assert r.status_code == 302
    assert Player.objects.filter(name="Caio Rocha", club="Clube A").exists()


def test_creatematch_refuses_every_bad_name_and_stores_nothing():
    for kind, bad in BAD.items():
        for args in (["--player-a", bad, "--player-b", "Bia Lima"], ["--player-a", "Ana", "--player-b", "Bia", "--table", bad],
                     ["--player-a", "Ana", "--player-b", "Bia", "--referee", bad],
                     ["--player-a", "Ana", "--player-b", "Bia", "--competition", bad],
                     ["--player-a", "Ana", "--player-a", bad, "--player-b", "Bia"]):
            with pytest.raises(CommandError) as e:
                call_command("creatematch", *args, stdout=io.StringIO())
            assert _says_why(str(e.value)), (kind, args[:2])
    assert not Match.objects.exists() and not Player.objects.exists() and not Table.objects.exists()


def _competition_file(**over) -> dict:
    data = {"name": "Copa", "venue": "Clube", "reds": 6, "draw_seed": 1,
            "players": ["Ana Souza", {"name": "Bia Lima", "club": "Clube A"}, "Caio Rocha", "Davi Nunes"],
            "tables": ["Mesa 1"], "stages": [{"format": "knockout", "frames_to_win": 1}]}
    data.update(over)
    return data


def _team_file(**team) -> dict:
    return {"name": "Liga", "reds": 6, "draw_seed": 1, "tables": ["Mesa 1"],
            "teams": [{"name": "Leões", "players": ["A1", "A2"], **team}, {"name": "Tigres", "players": ["B1", "B2"]}],
            "stages": [{"format": "knockout", "frames_to_win": 1}]}


def test_createcompetition_refuses_every_bad_name_and_stores_nothing():
    for kind, bad in BAD.items():
        files = [_competition_file(name=bad), _competition_file(venue=bad),
                 _competition_file(players=["Ana Souza", bad, "Caio", "Davi"]),
                 _competition_file(players=["Ana Souza", {"name": "Bia", "club": bad}, "Caio", "Davi"]),
                 _competition_file(tables=[bad]), _competition_file(tables=[{"name": bad}]),
                 _team_file(name=bad), _team_file(club=bad), _team_file(players=["A1", bad])]
        for i, data in enumerate(files):
            with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False)
                f.flush()
                with pytest.raises(CommandError) as e:
                    call_command("createcompetition", f.name, stdout=io.StringIO())
            assert _says_why(str(e.value)), (kind, i, str(e.value)[:200])
    assert not Competition.objects.exists() and not Player.objects.exists() and not Table.objects.exists()
    # the names that pass are stored as they read
    comp = create_competition(_competition_file(players=["  Ana   Souza", "Bia Lima", "Caio", "Davi"])).competition
    assert sorted(comp.entries.values_list("player__name", flat=True)) == ["Ana Souza", "Bia Lima", "Caio", "Davi"]


def test_a_match_file_with_a_bad_name_is_refused_on_import():
    for kind, bad in BAD.items():
        doc = json.dumps({"config": {"players": [bad, "Bia Lima"], "reds": 6, "frames_to_win": 1}, "events": []})
        with pytest.raises(ValueError) as e:
            exports.read_document(doc)
        assert _says_why(str(e.value)), kind
        with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
            f.write(doc)
            f.flush()
            with pytest.raises(CommandError):
                call_command("importmatch", f.name, stdout=io.StringIO())
    assert not Match.objects.exists() and not Player.objects.exists()


def test_the_desk_api_never_takes_a_lookalike_for_a_player():
    """The desk's API stores no name: a withdrawal naming "Bia\u200b Lima" finds nobody (the
    stored "Bia Lima" cannot have a lookalike beside it) and changes nothing."""
    created = create_competition(_competition_file())
    comp = created.competition
    r = Client().post(f"/api/competitions/{comp.pk}/actions/", json.dumps({"action": "withdraw", "player": BAD["zero width space"]}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {created.desk_token}")
    assert r.status_code == 422
    comp.refresh_from_db()
    assert comp.withdrawn == []


ISOLATED = ('[class*="-name"]', '[class*="-club"]', '[class*="-player"]', '[class*="-member"]', '[class*="-team"]')


def test_every_name_on_a_screen_is_isolated_from_the_text_around_it():
    """base.css isolates (``unicode-bidi: isolate``) every element whose class says it holds a
    name, every page includes base.css, and every class of a name element in the templates and
    the tablet's renderer is one the rule matches."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    css = (root / "static" / "scoreboard" / "base.css").read_text()
    rule = re.search(r"([^{}]*)\{\s*unicode-bidi:\s*isolate;\s*\}", css)
    assert rule is not None
    assert all(sel in rule.group(1) for sel in ISOLATED)
    # the pages that show names (the error pages show none) are drawn on base.html, with base.css
    pages = [p for p in (root / "templates" / "scoreboard").glob("*.html")
             if not p.name.startswith("_") and p.name not in ("base.html", "bad_option.html", "busy.html",
                                                             "limited.html", "not_found.html")]
    assert pages and all('{% extends "scoreboard/base.html" %}' in p.read_text() for p in pages)
    assert "scoreboard/base.css" in (root / "templates" / "scoreboard" / "base.html").read_text()
    sources = [*(root / "templates").rglob("*.html"), *(root / "presentation").glob("*.py")]
    classes = set()
    for path in sources:
        for attr in re.findall(r'class"?\s*[:=]\s*"([^"{]*)', path.read_text()):
            classes |= {c for c in attr.split() if re.search(r"name|club|player|member|team", c)}
    assert classes, "no name classes found"
    uncovered = {c for c in classes if not any(sel.split('"')[1] in c for sel in ISOLATED) and c != "member"}
    assert uncovered <= {"players"}, uncovered
