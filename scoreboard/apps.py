"""App configuration."""
from django.apps import AppConfig


class ScoreboardConfig(AppConfig):
    """The scoreboard app: matches, the event log, referee credentials and the live pages."""

    name = "scoreboard"
    verbose_name = "Placar"
    default_auto_field = "django.db.models.BigAutoField"
