"""Creating a match: players, the engine-validated configuration and a referee credential."""
from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

import sinuca

from .auth import login_link_token
from .models import Match, Player, RefereeCredential, Table


@dataclass
class Created:
    """A new match with its referee's secrets (shown once) and its URLs."""

    match: Match
    token: str
    pin: str
    referee_url: str
    tv_url: str
    overlay_url: str

    def as_json(self) -> dict:
        """What ``creatematch`` prints."""
        return {"match": self.match.pk, "referee_token": self.token, "referee_pin": self.pin,
                "referee_url": self.referee_url, "tv_url": self.tv_url,
                "overlay_url": self.overlay_url}


def create_match(player_a: str, player_b: str, *, reds: int = 15, frames_to_win: int = 1,
                 first_breaker: int | None = None, retorno: bool = True, table: str = "",
                 base_url: str | None = None) -> Created:
    """Create a match after the engine accepted its configuration.

    Raises ``sinuca.SinucaError`` (``invalid_config``) and stores nothing when the engine
    refuses the configuration.
    """
    config = {"reds": reds, "frames_to_win": frames_to_win, "players": [player_a, player_b],
              "retorno": retorno}
    if first_breaker is not None:
        config["first_breaker"] = first_breaker
    normalized = sinuca.Match(config).config  # raises before anything is stored
    base = settings.SITE_URL if base_url is None else base_url.rstrip("/")
    with transaction.atomic():
        tbl = Table.objects.get_or_create(name=table)[0] if table else None
        match = Match.objects.create(
            player_a=Player.objects.create(name=player_a), player_b=Player.objects.create(name=player_b),
            table=tbl, reds=reds, frames_to_win=frames_to_win, first_breaker=first_breaker,
            retorno=retorno, config=normalized, started_at=timezone.now())  # creatematch: play now
        cred, token, pin = RefereeCredential.issue(match)
    ref = reverse("referee", args=[match.pk]) + "?t=" + login_link_token(cred)
    return Created(match, token, pin, base + ref, base + reverse("tv", args=[match.pk]),
                   base + reverse("overlay", args=[match.pk]))
