"""Django looks for an app's models here; they live in ``core/models.py``."""
from .core.models import Club, Event, Match, OutboxRecord, Player, PulledSeason, RefereeCredential, Table, Venue  # noqa: F401
