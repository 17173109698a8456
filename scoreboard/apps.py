"""App configuration."""
from django.apps import AppConfig


class ScoreboardConfig(AppConfig):
    """The scoreboard app: matches, the event log, referee credentials and the live pages.

    The code is laid out by concern: ``core`` (models, the log service, matches, credentials,
    tables), ``live`` (render once, hub, sockets), ``reports`` (statistics, charts, súmula,
    match files), ``pages`` (tablet, TV, overlay, venue), with ``api``, ``admin`` and ``urls``
    on top. Each imports only those below it (import-linter's layers contract).
    """

    name = "scoreboard"
    verbose_name = "Placar"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import live
        from .core import changes, competitions, webhooks
        from .pages import public
        from .reports import sumula

        changes.connect()
        live.connect()
        competitions.connect()  # after the live layer: a match's end is shown, then flows on
        webhooks.connect()  # a match's start and result, noted for the subscribers after commit
        public.register_boards()  # the public site's pushed pages (a career, a head-to-head, in play)
        sumula.register_fonts()  # once, before any request: concurrent first PDFs raced on it
