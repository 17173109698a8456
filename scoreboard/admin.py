"""The organiser's admin: players, tables (with their referee PIN), matches (create, schedule,
start with the lot of Art. 17, the referee's QR code and link, import a match file), and the
read-only event log and referee credentials.
"""
from __future__ import annotations

import secrets

import qrcode
import qrcode.image.svg
from django import forms
from django.contrib import admin, messages
from django.db import models
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import sinuca
from sinuca import Phase

from .core import log, tables
from .core.credentials import login_path
from .core.i18n import error_text
from .core.matches import match_config
from .core.models import Event, Match, Player, RefereeCredential, Table, check_photo_dimensions
from .reports import exports

CONFIG_FIELDS = ["player_a", "player_b", "reds", "frames_to_win", "first_breaker", "retorno"]


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as inline SVG."""
    img = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=8, border=2)
    return img.to_string(encoding="unicode")


def start_match(match: Match, lot_winner: int | None, by: str) -> None:
    """Start a match: mark it started and, when it waits for the lot (Art. 17), record the lot's
    winner (drawn here when ``lot_winner`` is None) as its first event, broadcast like a tap."""
    Match.objects.filter(pk=match.pk, started_at__isnull=True).update(started_at=timezone.now())
    snap = log.snapshot(match.pk)
    if snap.state["phase"] == Phase.LOT and snap.seq == 0:
        winner = secrets.randbelow(2) if lot_winner is None else lot_winner
        log.append_event(match.pk, {"type": "lot", "player": winner}, expected_seq=0, entered_by=by)


class PhotoFormField(forms.ImageField):
    """The photo's form field: the size declared in the header is checked before Django's own
    image check, whose decompression-bomb guard calls a 30000×30000 PNG "not an image"."""

    def to_python(self, data):
        if data and hasattr(data, "seek"):
            check_photo_dimensions(data)
        return super().to_python(data)


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Players by name, with their optional photo, club and flag."""

    formfield_overrides = {models.ImageField: {"form_class": PhotoFormField}}

    search_fields = ["name", "club"]
    list_display = ["name", "club", "country"]
    fields = ["name", "club", "country", "photo"]


class EventInline(admin.TabularInline):
    """The match's log, shown but never edited: it is append-only."""

    model = Event
    fields = ["seq", "event", "description_pt", "entered_by", "at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class MatchForm(forms.ModelForm):
    """A match. Its engine configuration is built from the players and the four rule fields by
    ``core.matches.match_config`` (the engine checks it); the row keeps only that configuration."""

    reds = forms.TypedChoiceField(label=gettext_lazy("vermelhas"), coerce=int, initial=15,
                                  choices=[(6, "6"), (10, "10"), (15, "15")])
    frames_to_win = forms.IntegerField(label=gettext_lazy("partidas para vencer"), min_value=1,
                                       max_value=99, initial=1)
    first_breaker = forms.TypedChoiceField(
        label=gettext_lazy("primeiro a sair"), coerce=int, empty_value=None, required=False,
        choices=[("", gettext_lazy("sorteio (Art. 17)")), (0, "A"), (1, "B")])
    retorno = forms.BooleanField(label=gettext_lazy("retorno permitido"), required=False, initial=True)

    class Meta:
        model = Match
        fields = ["player_a", "player_b", "table", "competition", "referee_name", "scheduled_at",
                  "shot_clock"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and self.instance.config:
            for name in ("reds", "frames_to_win", "first_breaker", "retorno"):
                if name in self.fields:
                    self.fields[name].initial = getattr(self.instance, name)

    def clean(self):
        data = super().clean()
        if not all(f in self.fields for f in CONFIG_FIELDS) or self.errors:
            return data
        a, b = data.get("player_a"), data.get("player_b")
        if a and b and a.pk == b.pk:
            raise ValidationError(_("Escolha dois jogadores diferentes."))
        try:
            self.instance.config = match_config(
                [a.name, b.name], reds=data["reds"], frames_to_win=data["frames_to_win"],
                first_breaker=data.get("first_breaker"), retorno=data["retorno"])
        except sinuca.SinucaError as e:
            raise ValidationError(error_text(e))
        return data


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    """Matches: create, schedule on a table, start with the lot, hand the tablet its QR code."""

    form = MatchForm
    inlines = [EventInline]
    list_display = ["id", "player_a", "player_b", "table", "reds", "frames_to_win", "status", "seq", "links"]
    list_filter = ["table"]
    actions = ["start_with_drawn_lot"]
    change_form_template = "admin/scoreboard/match/change_form.html"
    fieldsets = [
        (None, {"fields": CONFIG_FIELDS}),
        (gettext_lazy("Evento"), {"fields": ["table", "competition", "referee_name", "scheduled_at", "shot_clock"]}),
    ]

    def has_add_permission(self, request) -> bool:
        return self.has_change_permission(request)

    def get_readonly_fields(self, request, obj=None):
        if obj is None or (obj.seq == 0 and obj.started_at is None):
            return []
        return CONFIG_FIELDS  # the log replays against the configuration it was scored under

    def get_fieldsets(self, request, obj=None):
        return self.fieldsets

    def get_inlines(self, request, obj=None):
        return super().get_inlines(request, obj) if obj is not None else []  # a new match has no log

    @admin.display(description=gettext_lazy("situação"))
    def status(self, obj: Match) -> str:
        if obj.started_at is None and obj.seq == 0:
            return _("agendado")
        phase = log.snapshot(obj.pk).state["phase"]
        return _("encerrado") if phase == Phase.MATCH_OVER else _("em andamento")

    @admin.display(description=gettext_lazy("links"))
    def links(self, obj: Match) -> str:
        return format_html('<a href="{}">{}</a> · <a href="{}">TV</a> · <a href="{}">{}</a>',
                           reverse("match", args=[obj.pk]), _("estatísticas"), reverse("tv", args=[obj.pk]),
                           reverse("sumula_pdf", args=[obj.pk]), _("súmula"))

    @admin.action(description=gettext_lazy("Iniciar os jogos selecionados (sorteio pelo sistema, Art. 17)"))
    def start_with_drawn_lot(self, request, queryset):
        n = 0
        for m in queryset:
            start_match(m, None, f"user:{request.user.get_username()}")
            n += 1
        self.message_user(request, _("%(n)d jogo(s) iniciado(s).") % {"n": n}, messages.SUCCESS)

    def get_urls(self):
        extra = [
            path("<int:match_id>/start/", self.admin_site.admin_view(self.start_view), name="scoreboard_match_start"),
            path("import/", self.admin_site.admin_view(self.import_view), name="scoreboard_match_import"),
        ]
        return extra + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = dict(extra_context or {})
        match = Match.objects.filter(pk=object_id).first()
        if match is not None:
            cred = tables.qr_credential(match)
            # A new single-use code on every view of the page: each QR code logs in one tablet.
            link = request.build_absolute_uri(login_path(cred))
            extra_context.update(
                referee_link=link, referee_qr=mark_safe(qr_svg(link)),
                pages=[(_("Árbitro (tablet)"), link),
                       (_("TV"), request.build_absolute_uri(reverse("tv", args=[match.pk]))),
                       (_("Overlay"), request.build_absolute_uri(reverse("overlay", args=[match.pk]))),
                       (_("Estatísticas"), reverse("match", args=[match.pk])),
                       (_("Súmula PDF"), reverse("sumula_pdf", args=[match.pk])),
                       (_("Súmula CSV"), reverse("sumula_csv", args=[match.pk])),
                       (_("Exportar JSON"), reverse("api_export", args=[match.pk]) + "?download=1")],
                not_started=match.started_at is None and match.seq == 0)
        return super().change_view(request, object_id, form_url, extra_context)

    def start_view(self, request, match_id: int):
        """Start one match; the organiser enters who won the lot (Art. 17) or lets the system draw."""
        match = get_object_or_404(Match, pk=match_id)
        if request.method == "POST":
            choice = request.POST.get("lot", "draw")
            start_match(match, int(choice) if choice in ("0", "1") else None,
                        f"user:{request.user.get_username()}")
            self.message_user(request, _("Jogo iniciado."), messages.SUCCESS)
            return redirect("admin:scoreboard_match_change", match.pk)
        needs_lot = "first_breaker" not in match.config
        return TemplateResponse(request, "admin/scoreboard/match/start.html", {
            **self.admin_site.each_context(request), "match": match, "needs_lot": needs_lot,
            "names": match.player_names, "opts": self.model._meta, "title": _("Iniciar jogo")})

    def import_view(self, request):
        """Import a match file (the contract's JSON) as a new match."""
        error = ""
        if request.method == "POST" and request.FILES.get("file"):
            upload = request.FILES["file"]
            try:
                if upload.size > exports.MAX_FILE:  # refused before it is read into memory
                    raise ValueError(f"arquivo grande demais (máximo {exports.MAX_FILE} bytes) / "
                                     f"file too large (at most {exports.MAX_FILE} bytes)")
                doc = exports.read_document(upload.read().decode("utf-8"))
                match = exports.import_document(doc, table=request.POST.get("table", "").strip(),
                                                entered_by=f"import:{request.user.get_username()}")
            except sinuca.SinucaError as e:
                error = f"{_('evento')} {getattr(e, 'index', -1)}: {error_text(e)}"
            except (ValueError, UnicodeDecodeError) as e:
                error = str(e)
            else:
                self.message_user(request, _("Jogo importado com %(n)d eventos.") % {"n": match.seq}, messages.SUCCESS)
                return redirect("admin:scoreboard_match_change", match.pk)
        return render(request, "admin/scoreboard/match/import.html", {
            **self.admin_site.each_context(request), "error": error, "opts": self.model._meta,
            "title": _("Importar jogo (JSON)")})


class TableForm(forms.ModelForm):
    # At least 6 digits: at the allowed 30 tries an hour per table, finding one takes 1.9 years
    # on average (4 digits: a week).
    new_pin = forms.RegexField(regex=r"^\d{6,12}$", required=False, label=gettext_lazy("novo PIN do árbitro"),
                               help_text=gettext_lazy("6 a 12 dígitos; em branco mantém o atual. "
                                                      "Trocar o PIN desconecta os tablets da mesa."))
    clear_pin = forms.BooleanField(required=False, label=gettext_lazy("remover o PIN"))

    class Meta:
        model = Table
        fields = ["name"]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    """Tables with their referee PIN and the URLs that follow their matches."""

    form = TableForm
    list_display = ["name", "has_pin", "links"]
    actions = ["make_overlay_token"]

    @admin.action(description=gettext_lazy("Gerar token do overlay (Stream Deck / Companion)"))
    def make_overlay_token(self, request, queryset):
        """A new overlay-control token per selected table, shown once (the old one stops working)."""
        from .core.credentials import issue_overlay_token

        for table in queryset:
            token = issue_overlay_token(table)
            self.message_user(request, format_html(
                "{} — {}: <code>{}</code> ({})", table.name, _("token do overlay"), token,
                reverse("api_table_overlay", args=[table.pk])), messages.SUCCESS)

    @admin.display(boolean=True, description=gettext_lazy("PIN"))
    def has_pin(self, obj: Table) -> bool:
        return bool(obj.pin_hash)

    @admin.display(description=gettext_lazy("links"))
    def links(self, obj: Table) -> str:
        return format_html('<a href="{}">TV</a> · <a href="{}">overlay</a> · <a href="{}">{}</a>',
                           reverse("table_tv", args=[obj.pk]), reverse("table_overlay", args=[obj.pk]),
                           reverse("table_referee", args=[obj.pk]), _("árbitro"))

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if form.cleaned_data.get("clear_pin"):
            tables.set_pin(obj, "")
        elif form.cleaned_data.get("new_pin"):
            tables.set_pin(obj, form.cleaned_data["new_pin"])


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
