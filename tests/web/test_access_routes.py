"""Every URL and websocket route, tried with every role's credentials (``core.access``).

The URL resolver and the websocket routes are walked: a route missing from ``access.ROUTES`` or
from :data:`PROBES` here fails, so a new route cannot come without a rule and a check of who may
use it. Each probe is asked by each actor and the answer judged used or refused (401, 403, the
log-in redirect, or the PIN form of a referee page); the test compares who got through with who
the rule says may.

The actors: an anonymous visitor; staff users (``is_staff``) with no role, referee of the other
competition's table, streamer of the other table, streamer of the match's table, organiser of the
other competition, referee
of the match's table, organiser of the match's competition, the federation's staff; a superuser; and the credentials that
are not users: the match's referee link (session), its referee bearer token, the table's overlay
token, the competition's desk token, a federation's venue token.
"""
from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse

from scoreboard.core import access, tables
from scoreboard.core.competitions import create_competition, new_desk_token
from scoreboard.core.credentials import issue_overlay_token, login_path
from scoreboard.core.federation import issue_venue_token
from scoreboard.core.models import Fixture, Match, RefereeCredential, Table
from scoreboard.live.routing import websocket_urlpatterns

from ws_helpers import ORIGIN, connect

USERS = ["staff", "referee_other_table", "streamer_other_table", "streamer", "organiser_other", "referee", "organiser",
         "federation", "superuser"]
TOKENS = ["referee_token", "overlay_token", "desk_token", "venue_token"]
ACTORS = ["anonymous", *USERS, "referee_link", *TOKENS]

EVERYONE = set(ACTORS)
SCORE = {"referee", "superuser", "referee_link"}        # match.score through a page
DESK = {"organiser", "superuser"}                       # competition.desk

# route name -> (method, path template, body, who may use it)
PROBES = {
    # the match's scoring: the page, its htmx actions, the shot clock
    "referee": ("GET", "/matches/{m}/referee/", None, SCORE),
    "referee_event": ("POST", "/matches/{m}/referee/event/", {"event": "nonsense"}, SCORE),
    "foul_dialog": ("GET", "/matches/{m}/referee/foul/", None, SCORE),
    "foul_preview": ("POST", "/matches/{m}/referee/foul/preview/", {"ball": "x"}, SCORE),
    "foul_submit": ("POST", "/matches/{m}/referee/foul/submit/", {"ball": "x"}, SCORE),
    "art28": ("POST", "/matches/{m}/referee/art28/", {"answer": "x"}, SCORE),
    "shot_clock": ("POST", "/matches/{m}/clock/", {"action": "stop"}, SCORE),
    "table_referee": ("GET", "/tables/{t}/referee/", None, {"referee", "superuser"}),
    # the table's stream controls: its streamer logged in (the Stream Deck's token is the API's)
    "table_controls": ("POST", "/tables/{t}/controls/", {"bar": "hide"}, {"streamer", "superuser"}),
    # the desk and its exports
    "desk": ("GET", "/desk/{c}/", None, DESK),
    "desk_action": ("POST", "/desk/{c}/action/", {"action": "nonsense"}, DESK),
    "desk_results_csv": ("GET", "/desk/{c}/results.csv", None, DESK),
    "desk_standings_csv": ("GET", "/desk/{c}/standings.csv", None, DESK),
    "desk_bracket_pdf": ("GET", "/desk/{c}/bracket.pdf", None, DESK),
    # the API's writes: bearer tokens only, never a cookie (a superuser's session included)
    "api_events": ("POST", "/api/matches/{m}/events/", {"event": {"type": "nonsense"}}, {"referee_token"}),
    "api_overlay": ("POST", "/api/matches/{m}/overlay/", {}, {"referee_token", "overlay_token"}),
    "api_table_overlay": ("POST", "/api/tables/{t}/overlay/", {}, {"referee_token", "overlay_token"}),
    "api_competition_action": ("POST", "/api/competitions/{c}/actions/", {"action": "nonsense"}, {"desk_token"}),
    # a federation's venues: their token only
    "api_federation_records": ("POST", "/api/federation/records/", {"records": []}, {"venue_token"}),
    "api_federation_registry": ("GET", "/api/federation/registry/", None, {"venue_token"}),
    # the federation's staff: a protest's overruling (its session)
    "federation_overrule": ("POST", "/federation/matches/{m}/overrule/", {"winner": 9}, {"federation", "superuser"}),
}
# public reads: asked by the least of the actors (anonymous) and a token holder
PUBLIC = {
    "venue": "/", "jumbotron": "/tv/", "display_guide": "/display/", "favicon": "/favicon.ico",
    "table_tv": "/tables/{t}/tv/", "table_overlay": "/tables/{t}/overlay/", "table_graphics": "/tables/{t}/graphics/",
    "table_now": "/tables/{t}/now/", "venue_feed_json": "/tables/feed.json", "venue_feed_xml": "/tables/feed.xml",
    "table_feed_json": "/tables/{t}/feed.json", "table_feed_xml": "/tables/{t}/feed.xml",
    "table_feed_txt": "/tables/{t}/feed/score_a.txt", "match_feed_json": "/matches/{m}/feed.json",
    "match_feed_xml": "/matches/{m}/feed.xml", "match_feed_txt": "/matches/{m}/feed/score_a.txt",
    "match": "/matches/{m}/", "sumula_pdf": None, "sumula_csv": "/matches/{m}/sumula.csv",
    "tv": "/matches/{m}/tv/", "overlay": "/matches/{m}/overlay/", "live_fragments": "/matches/{m}/live/tv/",
    "tablet_engine_zip": None, "tablet_service_worker": "/matches/tablet-sw.js",
    "event_hub": "/competitions/{c}/", "event_player": "/competitions/{c}/players/1/",
    "api_match": "/api/matches/{m}/", "api_export": "/api/matches/{m}/export/", "live_stats": None,
    "api_competition": "/api/competitions/{c}/", "api_season": None, "set_language": None, "media": None,
    "rules": "/rules/", "api_rules": "/api/rules/", "api_rules_article": "/api/rules/25/",
    "rule_panel": "/rules/25.5/panel/", "why": None,
    # the federation's public site and JSON
    "public_players": "/players/?q=a", "public_player": "/players/{p}/", "public_h2h": "/players/{p}/h2h/{q}/",
    "public_season": None, "public_calendar": "/calendar/", "public_live": "/live/", "public_clubs": "/clubs/",
    "public_results": "/results/",
    "api_players": "/api/players/?q=a", "api_clubs": "/api/clubs/", "api_player_career": "/api/players/{p}/career/",
    "api_player_h2h": "/api/players/{p}/h2h/{q}/", "api_season_ranking": None,
}
"""Public routes and the path each is read at; None: not read here (a PDF rendered in a child
process, a content-hashed file, a route off by default, a 404 of no data, a POST-only language
switch, an uploaded file): their rule is still checked to be ``public``."""
# the reads of routes whose writes are PROBES: public too
PUBLIC_READS = {"shot_clock": "/matches/{m}/clock/", "api_events": "/api/matches/{m}/events/",
                "api_overlay": "/api/matches/{m}/overlay/", "api_table_overlay": "/api/tables/{t}/overlay/"}
RULES = {**{n: "match.score" for n in ("referee", "referee_event", "foul_dialog", "foul_preview", "foul_submit",
                                       "art28", "shot_clock", "api_events")},
         "table_referee": "table.score", "table_controls": "overlay.control", "api_overlay": "overlay.control", "api_table_overlay": "overlay.control",
         "api_competition_action": "competition.api",
         "api_federation_records": "federation.venue", "api_federation_registry": "federation.venue",
         "federation_overrule": "match.overrule",
         **{n: "competition.desk" for n in ("desk", "desk_action", "desk_results_csv", "desk_standings_csv",
                                            "desk_bracket_pdf")}}
# the admin: pages every staff user has (they show nothing of a model without a permission)
ADMIN_OWN = {"admin:index", "admin:login", "admin:logout", "admin:password_change", "admin:password_change_done",
             "admin:jsi18n", "admin:view_on_site", "admin:app_list"}
ADMIN_OURS = {"admin:scoreboard_match_start", "admin:scoreboard_match_import", "admin:scoreboard_role_changelist",
              "admin:scoreboard_role_add", "admin:scoreboard_table_changelist"}
WS = {
    "ws/matches/<int:match_id>/": [("/ws/matches/{m}/?view=referee", SCORE), ("/ws/matches/{m}/?view=tv", EVERYONE)],
    "ws/matches/<int:match_id>/feed/": [("/ws/matches/{m}/feed/", EVERYONE)],
    "ws/boards/": [("/ws/boards/?view=desk-{c}", DESK), ("/ws/boards/?view=venue", EVERYONE)],
}


def _routes(resolver=None, ns=()):
    for p in (resolver or get_resolver()).url_patterns:
        if isinstance(p, URLResolver):
            yield from _routes(p, ns + ((p.namespace,) if p.namespace else ()))
        else:
            yield ns, p.name, p


def _world() -> dict:
    """Two competitions on their own tables, the match on the first's table, one actor each."""
    def comp(name, table):
        return create_competition({"name": name, "reds": 6, "draw_seed": 1, "players": [f"{name} {i}" for i in range(4)],
                                   "tables": [table], "stages": [{"format": "knockout", "frames_to_win": 1}]}).competition

    ours, other = comp("Copa", "Mesa 1"), comp("Taça", "Mesa 2")
    t1, t2 = Table.objects.get(name="Mesa 1"), Table.objects.get(name="Mesa 2")
    m = Fixture.objects.get(competition=ours, match__table=t1).match
    Match.objects.filter(pk=m.pk).update(shot_clock=30)
    users = {name: get_user_model().objects.create_user(name, password="x-long-password", is_staff=True)
             for name in USERS[:-1]}
    users["superuser"] = get_user_model().objects.create_superuser("root", "r@example.org", "x-long-password")
    for user, kind, scope in (("referee_other_table", "referee", {"table": t2}), ("streamer", "streamer", {"table": t1}),
                              ("streamer_other_table", "streamer", {"table": t2}),
                              ("organiser_other", "organiser", {"competition": other}),
                              ("referee", "referee", {"table": t1}), ("organiser", "organiser", {"competition": ours}),
                              ("federation", "federation", {})):
        access.grant(users[user], kind, "cmd:test", **scope)
    clients = {"anonymous": Client()}
    for name, user in users.items():
        clients[name] = Client()
        clients[name].force_login(user)
    link = Client()
    assert link.get(login_path(RefereeCredential.issue(m, label="link")[0])).status_code == 302
    clients["referee_link"] = link
    tokens = {"referee_token": RefereeCredential.issue(m, label="api")[1],
              "overlay_token": issue_overlay_token(t1), "desk_token": new_desk_token(ours, "cmd:test"),
              "venue_token": issue_venue_token("Clube Centro")}
    tables.set_pin(t1, "135790")
    return {"fmt": {"m": m.pk, "t": t1.pk, "c": ours.pk, "p": m.player_a_id, "q": m.player_b_id},
            "clients": clients, "tokens": tokens}


def _ask(world, actor: str, method: str, path: str, body):
    client = world["clients"].get(actor) or Client()
    headers = {}
    if actor in TOKENS:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {world['tokens'][actor]}"
    if method == "GET":
        return client.get(path, **headers)
    if path.startswith(("/api/", "/desk/", "/federation/")):
        return client.post(path, json.dumps(body), content_type="application/json", **headers)
    return client.post(path, body, **headers)


def _refused(resp) -> bool:
    if resp.status_code in (401, 403):
        return True
    if resp.status_code == 302 and resp["Location"].startswith("/admin/login/"):
        return True
    # a referee page without the right: its log-in form (the match's or the table's PIN)
    return resp.status_code in (200, 429) and b'name="pin"' in resp.content


@pytest.mark.django_db
def test_every_url_route_has_a_rule_and_lets_in_exactly_who_it_says():
    routes = list(_routes())
    names = {n for ns, n, _ in routes if "admin" not in ns}
    assert names == set(access.ROUTES) - {"admin:*"} - set(WS), "a route without a rule in access.ROUTES"
    assert names == set(PROBES) | set(PUBLIC), "a route without a probe here"
    for name in PUBLIC:
        assert access.ROUTES[name] == "public", name
    for name, rule in RULES.items():
        assert access.ROUTES[name] == rule, name
    world = _world()
    fmt = world["fmt"]
    got = {}
    for name, (method, path, body, allowed) in PROBES.items():
        used = {a for a in ACTORS if not _refused(_ask(world, a, method, path.format(**fmt), body))}
        got[name] = used
    assert got == {name: p[3] for name, p in PROBES.items()}
    # the public reads: the least privileged actor gets them
    for name, path in {**PUBLIC, **PUBLIC_READS}.items():
        if path is not None:
            resp = _ask(world, "anonymous", "GET", path.format(**fmt), None)
            assert resp.status_code < 400 and not _refused(resp), (name, resp.status_code)
    # the admin: every route closed to a visitor, every model page closed to staff with no
    # permission (roles open no model page but the streamer's own table); the pages of the roles
    # and of a match's start and import open to the superuser
    staff, root = world["clients"]["staff"], world["clients"]["superuser"]
    ids = {"object_id": "1", "content_type_id": "1", "id": "1", "match_id": str(fmt["m"]), "app_label": "scoreboard"}
    for ns, name, pattern in routes:
        if "admin" not in ns or not name:
            continue
        kwargs = {k: v for k, v in ids.items() if k in pattern.pattern.regex.groupindex}
        path = reverse(f"admin:{name}", kwargs=kwargs)
        full = f"admin:{name}"
        if full not in ("admin:login", "admin:logout"):
            assert _refused(Client().get(path)), full
        if full not in ADMIN_OWN:
            resp = staff.get(path)  # an object that is not there: sent to the index, nothing shown
            assert _refused(resp) or (resp.status_code == 302 and resp["Location"] == "/admin/"), full
        if full in ADMIN_OURS:
            assert not _refused(root.get(path)), full


def test_a_route_the_rules_do_not_know_is_closed():
    from django.urls import resolve

    match = resolve("/desk/1/")
    assert access.rule_of(match) == "competition.desk"
    match.url_name = "brand_new"
    assert access.rule_of(match) is None


@pytest.mark.django_db(transaction=True)
async def test_every_socket_route_has_a_rule_and_lets_in_exactly_who_it_says():
    routes = {str(p.pattern) for p in websocket_urlpatterns}
    assert routes == set(WS) and routes <= set(access.ROUTES)
    world = await sync_to_async(_world)()
    fmt = world["fmt"]
    for route, probes in WS.items():
        for path, allowed in probes:
            used = set()
            for actor in ACTORS:
                client = world["clients"].get(actor)
                cookie = client.cookies.get(settings.SESSION_COOKIE_NAME) if client is not None else None
                headers = [*ORIGIN] + ([(b"cookie", f"sessionid={cookie.value}".encode())] if cookie else [])
                comm, ok, _ = await connect(path.format(**fmt), headers=headers)
                if ok:
                    used.add(actor)
                    await comm.disconnect()
            assert used == allowed, (route, path)
