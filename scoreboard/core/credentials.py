"""Who may score a match: a bearer token (API), or a session logged in by link or PIN (tablet).

Staff users may score any match.
"""
from __future__ import annotations

from django.conf import settings
from django.core import signing

from .models import RefereeCredential, hash_token

SESSION_KEY = "referee_matches"
LINK_SALT = "scoreboard.referee-link"


def credential_for_token(token: str) -> RefereeCredential | None:
    """The live credential a bearer token belongs to, or None."""
    if not token:
        return None
    return (RefereeCredential.objects.filter(token_hash=hash_token(token), revoked=False)
            .select_related("match").first())


def login_link_token(cred: RefereeCredential) -> str:
    """A signed, time-limited token that logs a tablet in as this credential's referee.

    Signed rather than one-time so the same QR code still works when the tablet is reloaded or
    replaced during the session; it expires after ``REFEREE_LINK_MAX_AGE``.
    """
    return signing.dumps({"c": cred.pk, "m": cred.match_id}, salt=LINK_SALT, compress=True)


def credential_for_link(value: str, match_id: int) -> RefereeCredential | None:
    """The credential of a valid, unexpired login link for this match, or None."""
    try:
        data = signing.loads(value, salt=LINK_SALT, max_age=settings.REFEREE_LINK_MAX_AGE)
    except signing.BadSignature:
        return None
    if data.get("m") != match_id:
        return None
    return RefereeCredential.objects.filter(pk=data.get("c"), match_id=match_id, revoked=False).first()


def login_session(session, cred: RefereeCredential) -> None:
    """Remember in the session that it may score the credential's match."""
    allowed = dict(session.get(SESSION_KEY, {}))
    allowed[str(cred.match_id)] = cred.pk
    session[SESSION_KEY] = allowed
    session.cycle_key()  # a new session id on privilege change (session fixation)


def session_may_referee(session, user, match_id: int) -> bool:
    """Whether this session (or its staff user) may score the match."""
    if user is not None and getattr(user, "is_staff", False):
        return True
    if session is None:
        return False
    cred_id = session.get(SESSION_KEY, {}).get(str(match_id))
    return bool(cred_id) and RefereeCredential.objects.filter(
        pk=cred_id, match_id=match_id, revoked=False).exists()


def referee_label(session, user, match_id: int) -> str:
    """Who entered an event, for the log."""
    if user is not None and getattr(user, "is_staff", False):
        return f"user:{user.get_username()}"
    return f"referee:{session.get(SESSION_KEY, {}).get(str(match_id), '?')}"
