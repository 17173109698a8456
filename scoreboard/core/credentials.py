"""Who may score a match: a bearer token (API), or a session logged in by link or PIN (tablet).

The link (and QR code) carries a single-use code that expires after ``REFEREE_CODE_MAX_AGE``:
the tablet exchanges it for a session and is sent on to the clean URL, so no working credential
is left in an access log or the browser's history. Who may score is decided by ``core.access``.
"""
from __future__ import annotations

import secrets
from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from . import access
from .access import SESSION_KEY, credential_for_token  # noqa: F401 - the credentials' callers use them
from .models import LoginCode, Match, RefereeCredential, Table, hash_token

CODE_PARAM = "c"  # the referee link's query parameter: a single-use login code


def login_code(cred: RefereeCredential) -> str:
    """A new single-use code that logs one tablet in as this credential's referee, valid for
    ``REFEREE_CODE_MAX_AGE`` seconds (expired codes are swept here)."""
    now = timezone.now()
    LoginCode.objects.filter(expires_at__lte=now).delete()
    code = secrets.token_urlsafe(24)
    LoginCode.objects.create(credential=cred, code_hash=hash_token(code),
                             expires_at=now + timedelta(seconds=settings.REFEREE_CODE_MAX_AGE))
    return code


def login_path(cred: RefereeCredential) -> str:
    """The referee link (and QR code) of a credential: the tablet page with a new login code."""
    return reverse("referee", args=[cred.match_id]) + "?" + urlencode({CODE_PARAM: login_code(cred)})


def credential_for_code(code: str, match_id: int) -> RefereeCredential | None:
    """Use up a login code of this match: its live credential, or None (unknown, expired,
    already used, of another match, or of a revoked credential). Of two tablets racing with
    the same code only one gets the credential: the code's row is deleted by whoever wins."""
    if not code or len(code) > 100:
        return None
    row = (LoginCode.objects.filter(code_hash=hash_token(code), expires_at__gt=timezone.now())
           .select_related("credential").first())
    if row is None or row.credential.match_id != match_id:
        return None
    if LoginCode.objects.filter(pk=row.pk).delete()[0] != 1:
        return None  # another request used it first
    return None if row.credential.revoked else row.credential


def login_session(session, cred: RefereeCredential) -> None:
    """Remember in the session that it may score the credential's match."""
    allowed = dict(session.get(SESSION_KEY, {}))
    allowed[str(cred.match_id)] = cred.pk
    session[SESSION_KEY] = allowed
    session.cycle_key()  # a new session id on privilege change (session fixation)


def session_may_referee(session, user, match_id: int) -> bool:
    """Whether this session (a referee link or PIN) or its user (a referee role, a superuser) may
    score the match: ``access.may("match.score")``."""
    return access.may("match.score", access.Actor(user=user, session=session), match_id)


def referee_label(session, user, match_id: int) -> str:
    """Who entered an event, for the log (``access.label``)."""
    return access.label(access.Actor(user=user, session=session), match_id)


def issue_overlay_token(table: Table) -> str:
    """A new overlay-control token for a table (the old one stops working); returned once, only
    its hash is kept."""
    token = secrets.token_urlsafe(32)
    table.overlay_token_hash = hash_token(token)
    table.save(update_fields=["overlay_token_hash"])
    return token


def token_known(token: str) -> bool:
    """Whether a bearer token is any live referee token or any table's overlay token: an unknown
    one is a 401 (not authenticated), a known one for another match a 403 (not allowed)."""
    if not token:
        return False
    return (credential_for_token(token) is not None
            or Table.objects.filter(overlay_token_hash=hash_token(token)).exists())


def may_control_overlay(token: str, match: Match) -> bool:
    """Whether a bearer token may switch this match's overlays: the table's overlay token of the
    table the match is on, or a live referee token of the match itself (``access``)."""
    return access.may("overlay.control", access.Actor.of_token(token), access.Overlay(None, match.pk))
