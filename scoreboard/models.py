"""Django looks for an app's models here; they live in ``core/models.py``."""
from .core.models import Event, Match, Player, RefereeCredential, Table  # noqa: F401
