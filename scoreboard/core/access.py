"""Who may do what: the one permission layer every view, socket and API call asks.

Each question is a rule of :data:`RULES` (django-rules predicates) about an :class:`Actor` and
one object: ``may("competition.desk", actor, comp_id)``. An actor is whatever came with the
request: a logged-in user (with :class:`~scoreboard.core.models.Role` rows), a session (the
referee link or PIN), a bearer token (a referee's, a table's overlay token, a competition's desk
token). Staff status alone grants nothing; a superuser may do everything.

The roles (given per object in the admin and by ``manage.py grant``, audited with who gave them):

- **organiser** of a competition: its desk and the desk's socket, its actions (call, start, W.O.,
  move, postpone, correct), its exports, and in the admin the start and referee link of its
  matches;
- **referee** of a table (every match on it) or of one match: the scoring tablet, its socket and
  the shot clock there only;
- **streamer** of a table: its overlay and stream graphics controls, logged in on its controls
  page (``/tables/<id>/controls/``) or with the table's overlay token (made in the admin) from a
  Stream Deck;
- **federation** staff (on no object): a protest's overruling of a venue's result
  (``core.overrulings``);
- **superuser**.

The API trusts no cookie (it is CSRF-exempt), so its actor carries only its bearer token.
:data:`ROUTES` names the rule of every URL and websocket route; ``tests/web/test_access_routes.py``
walks the URL resolver and the socket routes and fails on a route missing from it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import rules
from django.db import transaction
from django.db.models import Q

from .models import Competition, Match, MatchRecord, RefereeCredential, Role, Table, Venue, hash_token

SESSION_KEY = "referee_matches"
"""Session key: ``{match id: credential id}``, the matches a referee link or PIN logged it in to."""
TABLE_SESSION = "table_referee"
"""Session key: ``{table id: fingerprint of the table PIN it was opened with}``."""


@dataclass(frozen=True)
class Actor:
    """Who asks: ``user`` (a Django user, anonymous or None), ``session`` (a session store or a
    dict), ``token`` (a bearer token, never together with a user: the API trusts no cookie)."""

    user: Any = None
    session: Any = None
    token: str | None = None
    _found: dict = field(default_factory=dict, compare=False, repr=False)

    def credential(self) -> RefereeCredential | None:
        """The live referee credential of the bearer token (read once per actor), or None."""
        if "cred" not in self._found:
            self._found["cred"] = credential_for_token(self.token)
        return self._found["cred"]

    @classmethod
    def of_request(cls, request) -> "Actor":
        """A page's actor: its user and its session (no token)."""
        return cls(user=getattr(request, "user", None), session=getattr(request, "session", None))

    @classmethod
    def of_scope(cls, scope: dict) -> "Actor":
        """A websocket's actor: its user and session from the ASGI scope."""
        return cls(user=scope.get("user"), session=scope.get("session"))

    @classmethod
    def of_token(cls, token: str | None) -> "Actor":
        """An API call's actor: its bearer token alone."""
        return cls(token=token or None)

    @property
    def active_user(self):
        """The user when logged in and active, else None."""
        u = self.user
        return u if u is not None and getattr(u, "is_authenticated", False) and getattr(u, "is_active", False) else None


@dataclass(frozen=True)
class Overlay:
    """The object of ``overlay.control``: a table (its switches and graphics) and the match its
    switches act on now (either may be None)."""

    table_id: int | None
    match_id: int | None


def _pk(obj) -> int | None:
    return getattr(obj, "pk", obj)


# -- predicates -------------------------------------------------------------------------------

@rules.predicate
def superuser(actor: Actor) -> bool:
    """An active superuser."""
    u = actor.active_user
    return bool(u is not None and u.is_superuser)


def _roles(actor: Actor, kind: str):
    u = actor.active_user
    return None if u is None else Role.objects.filter(user=u, kind=kind)


@rules.predicate
def organiser_of(actor: Actor, comp) -> bool:
    """Organiser of this competition (a Competition or its id)."""
    qs = _roles(actor, Role.ORGANISER)
    return qs is not None and qs.filter(competition_id=_pk(comp)).exists()


@rules.predicate
def organiser_of_match(actor: Actor, match) -> bool:
    """Organiser of the competition this match (or its id) is a fixture of."""
    qs = _roles(actor, Role.ORGANISER)
    return qs is not None and qs.filter(competition__fixtures__match_id=_pk(match)).exists()


@rules.predicate
def federation_staff(actor: Actor) -> bool:
    """The federation's staff (a ``federation`` role, given on no object)."""
    qs = _roles(actor, Role.FEDERATION)
    return qs is not None and qs.exists()


@rules.predicate
def referee_of(actor: Actor, match) -> bool:
    """Referee of this match (a Match or its id), or of the table it is on."""
    qs = _roles(actor, Role.REFEREE)
    if qs is None:
        return False
    on_table = Match.objects.filter(pk=_pk(match)).values("table_id")[:1]
    return qs.filter(Q(match_id=_pk(match)) | Q(table_id__in=on_table)).exists()


@rules.predicate
def referee_of_table(actor: Actor, table) -> bool:
    """Referee of this table (a Table or its id)."""
    qs = _roles(actor, Role.REFEREE)
    return qs is not None and qs.filter(table_id=_pk(table)).exists()


@rules.predicate
def streamer_of(actor: Actor, target: Overlay) -> bool:
    """Streamer of the overlay target's table (or of the table its match is on)."""
    qs = _roles(actor, Role.STREAMER)
    if qs is None:
        return False
    table_id = target.table_id
    if table_id is None and target.match_id is not None:
        table_id = Match.objects.filter(pk=target.match_id).values_list("table_id", flat=True).first()
    return table_id is not None and qs.filter(table_id=table_id).exists()


@rules.predicate
def referee_session(actor: Actor, match) -> bool:
    """A session a referee link or PIN logged in to this match, its credential still live."""
    if actor.session is None:
        return False
    cred_id = actor.session.get(SESSION_KEY, {}).get(str(_pk(match)))
    return bool(cred_id) and RefereeCredential.objects.filter(
        pk=cred_id, match_id=_pk(match), revoked=False).exists()


@rules.predicate
def table_pin_session(actor: Actor, table: Table) -> bool:
    """A session the table's current PIN opened (a changed PIN ends it)."""
    if actor.session is None or not table.pin_hash:
        return False
    return actor.session.get(TABLE_SESSION, {}).get(str(table.pk)) == table.pin_hash[-16:]


def credential_for_token(token: str | None) -> RefereeCredential | None:
    """The live referee credential a bearer token belongs to, or None."""
    if not token:
        return None
    return (RefereeCredential.objects.filter(token_hash=hash_token(token), revoked=False)
            .select_related("match").first())


@rules.predicate
def referee_token(actor: Actor, match) -> bool:
    """A live referee bearer token of this match."""
    cred = actor.credential()
    return cred is not None and cred.match_id == _pk(match)


@rules.predicate
def overlay_token(actor: Actor, target: Overlay) -> bool:
    """The overlay token of the target's table, or of the table its match is on; or a live
    referee token of its match."""
    if not actor.token:
        return False
    digest = hash_token(actor.token)
    tables = Table.objects.filter(overlay_token_hash=digest)
    if target.table_id is not None and tables.filter(pk=target.table_id).exists():
        return True
    if target.match_id is None:
        return False
    if tables.filter(match__pk=target.match_id).exists():
        return True
    return referee_token(actor, target.match_id)


@rules.predicate
def desk_token(actor: Actor, comp) -> bool:
    """The competition's desk token."""
    return bool(actor.token) and Competition.objects.filter(
        pk=_pk(comp), desk_token_hash=hash_token(actor.token)).exists()


@rules.predicate
def venue_token(actor: Actor) -> bool:
    """A live (not revoked) venue token of this federation (``manage.py venuetoken``)."""
    return bool(actor.token) and Venue.objects.filter(token_hash=hash_token(actor.token), revoked=False).exists()


# -- the rules --------------------------------------------------------------------------------

RULES = rules.RuleSet()
RULES.add_rule("public", rules.always_allow)
RULES.add_rule("competition.desk", superuser | organiser_of)            # page, socket, actions, exports
RULES.add_rule("competition.api", desk_token)                           # the desk's bearer-token API
RULES.add_rule("match.score", superuser | referee_of | referee_session | referee_token)
RULES.add_rule("match.manage", superuser | organiser_of_match)          # admin: start, referee link
RULES.add_rule("table.score", superuser | referee_of_table | table_pin_session)
RULES.add_rule("overlay.control", superuser | streamer_of | overlay_token)
RULES.add_rule("roles.manage", superuser)
RULES.add_rule("federation.venue", venue_token)                         # a venue sends records, pulls the registry
RULES.add_rule("match.overrule", superuser | federation_staff)         # a protest's overruling of a venue's result


def may(rule: str, actor: Actor, obj=None) -> bool:
    """Whether ``actor`` may do ``rule`` on ``obj``; an unknown rule is a ``KeyError`` (a typo
    must not read as "no")."""
    if rule not in RULES:
        raise KeyError(rule)
    return RULES.test_rule(rule, actor, obj)


def by_user(actor: Actor, rule: str, obj=None) -> bool:
    """Whether ``actor``'s user alone (not its session or token) may do ``rule`` on ``obj``."""
    return actor.active_user is not None and may(rule, Actor(user=actor.user), obj)


def label(actor: Actor, match_id: int) -> str:
    """Who entered an event, for the log: ``user:<name>`` when the user's role (or superuser)
    allows it, else ``referee:<credential id>`` of the session."""
    if by_user(actor, "match.score", match_id):
        return f"user:{actor.user.get_username()}"
    cred = (actor.session or {}).get(SESSION_KEY, {}).get(str(match_id), "?")
    return f"referee:{cred}"


ROUTES: dict[str, str] = {
    # the venue, a match's screens, feeds, the public statistics and súmula: public
    **{name: "public" for name in (
        "venue", "jumbotron", "display_guide", "favicon", "table_tv", "table_overlay", "table_graphics",
        "table_now", "venue_feed_json", "venue_feed_xml", "table_feed_json", "table_feed_xml",
        "table_feed_txt", "match_feed_json", "match_feed_xml", "match_feed_txt", "match", "sumula_pdf",
        "sumula_csv", "tv", "overlay", "live_fragments", "tablet_engine_zip", "tablet_service_worker",
        "event_hub", "event_player", "api_match", "api_export", "live_stats", "api_competition",
        "api_season", "set_language", "media", "rules", "api_rules", "api_rules_article", "rule_panel", "why",
        # the federation's public site and JSON: read by anyone
        "public_players", "public_player", "public_h2h", "public_season", "public_calendar",
        "public_live", "public_clubs", "public_results", "api_players", "api_clubs", "api_player_career",
        "api_player_h2h", "api_season_ranking")},
    # public to read; the log in (link, PIN) is the page itself, scoring needs the rule
    "referee": "match.score",
    "referee_event": "match.score",
    "foul_dialog": "match.score",
    "foul_preview": "match.score",
    "foul_submit": "match.score",
    "art28": "match.score",
    "shot_clock": "match.score",            # POST start/stop; GET public
    "api_events": "match.score",            # POST with the bearer token; GET public
    "table_referee": "table.score",
    "desk": "competition.desk",
    "desk_action": "competition.desk",
    "desk_results_csv": "competition.desk",
    "desk_standings_csv": "competition.desk",
    "desk_bracket_pdf": "competition.desk",
    "api_competition_action": "competition.api",
    "api_overlay": "overlay.control",       # POST with a bearer token; GET public
    "table_controls": "overlay.control",    # the streamer's page: a logged-in user with the role
    "api_table_overlay": "overlay.control",
    "api_federation_records": "federation.venue",   # POST a venue's records (its bearer token)
    "api_federation_registry": "federation.venue",  # GET the registry (a venue's bearer token)
    "federation_overrule": "match.overrule",        # POST a protest's overruling (the staff's session)
    # the admin: Django's model permissions; a match's start and referee link also match.manage,
    # the roles roles.manage
    "admin:*": "admin",
    # websockets, by their route
    "ws/matches/<int:match_id>/": "match.score",        # ?view=referee; tv, overlay: public
    "ws/matches/<int:match_id>/feed/": "public",
    "ws/boards/": "competition.desk",                   # ?view=desk-<id>; the boards, a table's follow board: public
}
"""Every route's rule: URL names, ``admin:*`` for the admin site (Django's model permissions,
and the rules above for a match's start and referee link and for roles), websocket routes by
their pattern. A route whose reads are public and whose writes (or one view) need a rule names
that rule."""


def rule_of(match) -> str | None:
    """The rule of a resolved URL (a ``ResolverMatch``), None when :data:`ROUTES` has none."""
    if match is None:
        return None
    if "admin" in match.namespaces:
        return ROUTES["admin:*"]
    return ROUTES.get(match.url_name or "")


# -- giving and taking roles ------------------------------------------------------------------

class RoleError(ValueError):
    """A role that cannot be given as asked: a clear message in Portuguese and English."""


def _scope_kwargs(kind: str, competition=None, table=None, match=None) -> dict:
    given = {k: v for k, v in (("competition", competition), ("table", table), ("match", match)) if v is not None}
    if kind not in Role.SCOPES:
        raise RoleError(f"Papel desconhecido: {kind} (organiser, referee, streamer, federation) / "
                        f"Unknown role: {kind} (organiser, referee, streamer, federation)")
    if not Role.SCOPES[kind]:
        if given:
            raise RoleError(f"O papel {kind} não é dado sobre um objeto / The {kind} role is given on no object")
        return given
    if len(given) != 1 or next(iter(given)) not in Role.SCOPES[kind]:
        where = " | ".join(Role.SCOPES[kind])
        raise RoleError(f"O papel {kind} é dado em: {where} (um só) / The {kind} role is given on: {where} (one only)")
    return given


def _audit(kind: str, role: Role, by: str) -> None:
    scope = next((k for k in ("competition", "table", "match") if getattr(role, f"{k}_id")), None)
    where = {scope: getattr(role, f"{scope}_id")} if scope else {}
    MatchRecord.objects.create(
        match=role.match, kind=kind, by=by[:80],
        data={"role": role.kind, "user": role.user.get_username(), **where})


def grant(user, kind: str, by: str, granted_by=None, *, competition=None, table=None, match=None) -> Role:
    """Give ``user`` the role ``kind`` on one object (``Role.SCOPES``); audited (``grant``) with
    ``by`` (``user:<name>`` from the admin, ``cmd:<login>`` from the command line). Giving a role
    the user already has returns it unchanged. Raises :class:`RoleError`."""
    scope = _scope_kwargs(kind, competition, table, match)
    with transaction.atomic():
        role = Role.objects.filter(user=user, kind=kind, **scope).first()
        if role is None:
            role = Role.objects.create(user=user, kind=kind, granted_by=granted_by, **scope)
            _audit("grant", role, by)
    return role


def revoke(user, kind: str, by: str, *, competition=None, table=None, match=None) -> int:
    """Take the role ``kind`` on one object from ``user``; audited (``revoke``). Returns how many
    were taken (0: the user did not have it). Raises :class:`RoleError`."""
    scope = _scope_kwargs(kind, competition, table, match)
    with transaction.atomic():
        roles = list(Role.objects.filter(user=user, kind=kind, **scope))
        for role in roles:
            _audit("revoke", role, by)
            role.delete()
    return len(roles)
