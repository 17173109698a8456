"""Admin for players, tables, matches and the (read-only) event log."""
from django.contrib import admin

from .models import Event, Match, Player, RefereeCredential, Table


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Players by name."""

    search_fields = ["name"]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    """Tables of the venue."""


class EventInline(admin.TabularInline):
    """The match's log, shown but never edited: it is append-only."""

    model = Event
    fields = ["seq", "event", "description_pt", "entered_by", "at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    """Matches; the configuration is frozen at creation (use ``creatematch``)."""

    list_display = ["id", "player_a", "player_b", "table", "reds", "frames_to_win", "seq", "created_at"]
    readonly_fields = ["config", "seq", "reds", "frames_to_win", "first_breaker", "retorno",
                       "player_a", "player_b"]
    inlines = [EventInline]

    def has_add_permission(self, request) -> bool:
        return False  # a match needs its engine config and a referee credential: creatematch


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """The event log, read-only."""

    list_display = ["match", "seq", "description_pt", "entered_by", "at"]
    list_filter = ["match"]

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in Event._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(RefereeCredential)
class RefereeCredentialAdmin(admin.ModelAdmin):
    """Referee credentials: revoke here; hashes only, never the token or PIN."""

    list_display = ["match", "label", "revoked", "created_at"]
    readonly_fields = ["match", "token_hash", "pin_hash", "created_at"]


from . import admin_ops  # noqa: E402,F401  - event day: start with the lot, QR code, table PIN, import
