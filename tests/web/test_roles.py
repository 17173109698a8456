"""Roles with a scope (``core.access``): staff status alone grants nothing; an organiser runs his
competition's desk only; roles are given and taken by ``manage.py grant`` and the admin, each
audited with who did it."""
from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from scoreboard.core import access
from scoreboard.core.competitions import create_competition
from scoreboard.core.models import Fixture, Match, MatchRecord, Role, Table

pytestmark = pytest.mark.django_db


def _comp(name: str, tables: list[str]):
    return create_competition({"name": name, "reds": 6, "draw_seed": 1, "players": [f"{name} {i}" for i in range(4)],
                               "tables": tables, "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition


def _client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _user(name: str, **kw):
    return get_user_model().objects.create_user(name, password="x-long-password", is_staff=True, **kw)


def test_staff_with_no_role_can_neither_see_nor_act_on_a_desk_its_organiser_can():
    comp, other = _comp("Copa", ["Mesa 1"]), _comp("Taça", ["Mesa 2"])
    staff, org_other, org = _user("staff0"), _user("org_other"), _user("org")
    access.grant(org_other, "organiser", "cmd:test", competition=other)
    access.grant(org, "organiser", "cmd:test", competition=comp)
    fx = Fixture.objects.filter(competition=comp, match__isnull=False).order_by("number").first()
    wo = json.dumps({"action": "walkover", "match": fx.number, "absent": [0], "reason": "não compareceu"})
    postpone = json.dumps({"action": "postpone", "match": fx.number})
    for who in (staff, org_other):
        c = _client(who)
        for path in ("", "results.csv", "standings.csv", "bracket.pdf"):
            assert c.get(f"/desk/{comp.pk}/{path}").status_code == 403, path
        for body in (wo, postpone):
            assert c.post(f"/desk/{comp.pk}/action/", body, content_type="application/json").status_code == 403
    assert not MatchRecord.objects.filter(kind__in=["walkover", "postpone"]).exists()
    assert not Match.objects.filter(walkover__isnull=False).exclude(walkover={}).exists()
    # the organiser of this competition: the desk and its action
    c = _client(org)
    assert c.get(f"/desk/{comp.pk}/").status_code == 200
    assert c.get(f"/desk/{comp.pk}/results.csv").status_code == 200
    r = c.post(f"/desk/{comp.pk}/action/", wo, content_type="application/json")
    assert r.status_code == 200, r.content
    assert MatchRecord.objects.get(kind="walkover").by == "user:org"
    # anonymous: sent to the log-in
    r = Client().get(f"/desk/{comp.pk}/")
    assert r.status_code == 302 and r["Location"].startswith("/admin/login/")


def test_grant_and_revoke_by_command_are_audited():
    comp = _comp("Copa", ["Mesa 1"])
    u = _user("ana")
    out = io.StringIO()
    call_command("grant", "organiser", "ana", "--competition", str(comp.pk), stdout=out)
    assert json.loads(out.getvalue()) == {"user": "ana", "role": "organiser", "competition": comp.pk, "granted": True}
    role = Role.objects.get(user=u)
    assert (role.kind, role.competition_id, role.granted_by) == ("organiser", comp.pk, None)
    rec = MatchRecord.objects.get(kind="grant")
    assert rec.by.startswith("cmd:") and rec.data == {"role": "organiser", "user": "ana", "competition": comp.pk}
    assert access.may("competition.desk", access.Actor(user=u), comp.pk)
    call_command("grant", "referee", "ana", "--table", "Mesa 1", stdout=io.StringIO())
    assert Role.objects.get(kind="referee").table == Table.objects.get(name="Mesa 1")
    out = io.StringIO()
    call_command("grant", "organiser", "ana", "--competition", str(comp.pk), "--revoke", stdout=out)
    assert json.loads(out.getvalue())["revoked"] == 1
    assert MatchRecord.objects.get(kind="revoke").data["competition"] == comp.pk
    assert not access.may("competition.desk", access.Actor(user=u), comp.pk)
    # a role on the wrong kind of object, an unknown user or table: refused in both languages
    for args, words in ((["streamer", "ana", "--competition", str(comp.pk)], "The streamer role is given on"),
                        (["organiser", "nobody", "--competition", str(comp.pk)], "User 'nobody' not found"),
                        (["referee", "ana", "--table", "Mesa 99"], "Table 'Mesa 99' not found")):
        with pytest.raises(CommandError, match=words):
            call_command(*(["grant"] + args), stdout=io.StringIO())
    assert Role.objects.count() == 1


def test_the_admin_gives_roles_only_as_the_superuser_and_audits_who(admin_client, admin_user):
    t = Table.objects.create(name="Mesa 5")
    u = _user("tv")
    r = admin_client.post("/admin/scoreboard/role/add/", {"user": u.pk, "kind": "streamer", "table": t.pk})
    assert r.status_code == 302, r.content[:3000]
    role = Role.objects.get()
    assert (role.user, role.kind, role.table, role.granted_by) == (u, "streamer", t, admin_user)
    assert MatchRecord.objects.get(kind="grant").by == f"user:{admin_user.username}"
    # a streamer given on a competition: the form says why, nothing stored
    r = admin_client.post("/admin/scoreboard/role/add/", {"user": u.pk, "kind": "streamer",
                                                          "competition": _comp("Copa", ["Mesa 1"]).pk})
    assert r.status_code == 200 and "The streamer role is given on" in r.content.decode()
    assert Role.objects.count() == 1
    # staff, even with every role, cannot give roles
    assert _client(u).get("/admin/scoreboard/role/").status_code == 403
    assert _client(u).post("/admin/scoreboard/role/add/", {"user": u.pk, "kind": "streamer",
                                                           "table": t.pk}).status_code == 403
    # the streamer sees his table in the admin (to make its overlay token), and no other
    Table.objects.create(name="Mesa 6")
    page = _client(u).get("/admin/scoreboard/table/").content.decode()
    assert "Mesa 5" in page and "Mesa 6" not in page
    r = admin_client.post(f"/admin/scoreboard/role/{role.pk}/delete/", {"post": "yes"})
    assert r.status_code == 302 and not Role.objects.exists()
    assert MatchRecord.objects.get(kind="revoke").data == {"role": "streamer", "user": "tv", "table": t.pk}


def test_the_admin_referee_link_and_start_are_for_the_matchs_organiser():
    comp, other = _comp("Copa", ["Mesa 1"]), _comp("Taça", ["Mesa 2"])
    m = Match.objects.get(fixture__competition=comp, fixture__number=1)
    viewer = _user("viewer")
    from django.contrib.auth.models import Permission

    viewer.user_permissions.add(Permission.objects.get(codename="view_match"))
    access.grant(viewer, "organiser", "cmd:test", competition=other)
    c = _client(viewer)
    page = c.get(f"/admin/scoreboard/match/{m.pk}/change/").content.decode()
    assert "?c=" not in page  # no referee link for a match of another competition
    assert c.post(f"/admin/scoreboard/match/{m.pk}/start/", {"lot": "0"}).status_code == 403
    m.refresh_from_db()
    assert m.started_at is None or not MatchRecord.objects.filter(kind="start", by="user:viewer").exists()
    access.grant(viewer, "organiser", "cmd:test", competition=comp)
    page = c.get(f"/admin/scoreboard/match/{m.pk}/change/").content.decode()
    assert f"/matches/{m.pk}/referee/?c=" in page
