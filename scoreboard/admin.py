"""The organiser's admin: players, tables (with their referee PIN), matches (create, schedule,
start with the lot of Art. 17, the referee's QR code and link, import a match file), and the
read-only event log and referee credentials.
"""
from __future__ import annotations

import re

import qrcode
import qrcode.image.svg
from django import forms
from django.contrib import admin, messages
from django.db import models
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import sinuca
from sinuca import Phase

from .core import access, competitions, log, names, operations, tables, teams
from .core.credentials import login_path
from .core.i18n import error_text
from .core.matches import clubless_player, match_config
from .core.models import (Competition, CompetitionEntry, Event, Match, MatchMember, MatchRecord, Player, RefereeCredential,
                          Role, Season, SeasonEtapa, Sponsor, Table, Webhook, WebhookDelivery,
                          check_photo_dimensions)
from .reports import exports

CONFIG_FIELDS = ["player_a", "player_b", "reds", "frames_to_win", "first_breaker", "retorno"]
PARTNER_FIELDS = ["partners_a", "partners_b"]  # doubles (Art. 1 "em conjunto"): a side's other players


def _names(text: str) -> list[str]:
    """The partners typed one a line (blank lines dropped, spaces squeezed)."""
    return [" ".join(n.split()) for n in (text or "").splitlines() if n.strip()]


PARTNER_CLUB = re.compile(r"^(?P<name>.+?)\s*\((?P<club>[^()]+)\)$")


def partner_row(typed: str) -> tuple[str, Player | None]:
    """A partner as typed, ``Ana`` or ``Ana (Clube A)``: ``(name, his player row)``; the row is
    None when no player has that name (he is made on save, without a club). Raises
    ``ValidationError`` for a name with "/" and for a name two players share when no club (or a
    club none of them has) tells which one."""
    m = PARTNER_CLUB.match(typed)
    name, club = (m.group("name").strip(), m.group("club").strip()) if m else (typed, None)
    try:
        name = names.clean(name, names.PLAYER, ("parceiro", "partner"))
    except names.NameRefused as e:
        raise ValidationError(str(e), code="bad_name") from e
    if "/" in name:
        raise ValidationError(_("O nome não pode ter “/”: é o que separa os jogadores de uma dupla."))
    rows = list(Player.objects.filter(name__iexact=name).order_by("pk"))
    if club is not None:
        rows = [r for r in rows if r.club.casefold() == club.casefold()]
        if not rows:
            raise ValidationError(_("Não há jogador %(name)s do clube %(club)s.") % {"name": name, "club": club})
    if len(rows) > 1:
        raise ValidationError(
            _("Há mais de um jogador chamado %(name)s (%(clubs)s): escreva o clube entre parênteses, "
              "por exemplo “%(name)s (%(club)s)”.")
            % {"name": name, "clubs": ", ".join(r.club or _("sem clube") for r in rows), "club": rows[0].club or rows[1].club})
    return (rows[0].name, rows[0]) if rows else (name, None)


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as inline SVG."""
    img = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=8, border=2)
    return img.to_string(encoding="unicode")


start_match = operations.start_match  # the one way to start a match (one per table, in core)


def access_refusal() -> str:
    """Why a user's roles refuse an admin action, in Portuguese and English."""
    from .http.guard import FORBIDDEN

    return FORBIDDEN


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

    search_fields = ["name", "club", "federation_id", "provisional_key"]
    list_display = ["name", "club", "country", "federation_id", "provisional_key", "matched_to"]
    list_filter = ["club"]
    fields = ["name", "club", "country", "photo", "federation_id", "provisional_key", "matched_to"]
    readonly_fields = ["provisional_key", "matched_to"]
    actions = ["match_to_registered"]

    @admin.action(description=gettext_lazy("Identificar o jogador provisório como o registrado (selecione os dois)"))
    def match_to_registered(self, request, queryset):
        """Two players selected: the one without a federation id (made at a venue on the day) is
        the registered one; his matches move to him (``federation.match_player``), never merged
        without this act."""
        from .core import federation

        picked = list(queryset[:3])
        registered = [p for p in picked if p.federation_id]
        provisional = [p for p in picked if not p.federation_id]
        if len(picked) != 2 or len(registered) != 1 or len(provisional) != 1:
            self.message_user(request, "Selecione dois jogadores: um provisório e um registrado na federação / "
                                       "Select two players: a provisional one and one registered at the federation",
                              messages.ERROR)
            return
        try:
            moved = federation.match_player(provisional[0], registered[0], f"user:{request.user.get_username()}")
        except federation.MatchRefused as e:
            self.message_user(request, str(e), messages.ERROR)
            return
        self.message_user(request, f"{provisional[0].name} identificado como {registered[0].name} "
                                   f"({registered[0].federation_id}); {moved} registros movidos / "
                                   f"{provisional[0].name} matched to {registered[0].name}; {moved} rows moved")

    def get_form(self, request, obj=None, **kwargs):
        kwargs["form"] = PlayerForm
        return super().get_form(request, obj, **kwargs)

    def save_model(self, request, obj, form, change):
        old = Player.objects.filter(pk=obj.pk).values_list("name", "club").first() if change else None
        super().save_model(request, obj, form, change)
        if old is not None and old[0] != obj.name:
            # through core: his teams' rosters and lineups and his unfinished matches take the
            # new name, and every screen is pushed
            teams.player_renamed(obj, old[0], f"user:{request.user.get_username()}", club=old[1])


@admin.register(Sponsor)
class SponsorAdmin(admin.ModelAdmin):
    """Sponsors' images for the stream graphics' sponsor slot: of a table, of a competition, or
    (neither) of the whole venue; re-encoded on upload like the players' photos."""

    formfield_overrides = {models.ImageField: {"form_class": PhotoFormField}}
    list_display = ["name", "table", "competition", "order", "active"]
    list_filter = ["active", "table", "competition"]
    list_editable = ["order", "active"]
    fields = ["name", "image", "table", "competition", "order", "active"]


class PlayerForm(forms.ModelForm):
    """A player. Two players may share a name only when their clubs tell them apart: an exact
    duplicate of name and club (case and spaces aside) is refused, naming the one that exists."""

    class Meta:
        model = Player
        fields = ["name", "club", "country", "photo"]

    def clean(self):
        data = super().clean()
        for field, limit, what in (("name", names.PLAYER, ("nome", "name")), ("club", names.CLUB, ("clube", "club"))):
            if data.get(field):  # checked as typed: a newline or tab is refused, not squeezed
                try:
                    data[field] = names.clean(data[field], limit, what)
                except names.NameRefused as e:
                    self.add_error(field, str(e))
        if self.errors:
            return data
        name = " ".join((data.get("name") or "").split())
        club = " ".join((data.get("club") or "").split())
        if name:
            same = Player.objects.filter(name__iexact=name, club__iexact=club).exclude(pk=self.instance.pk).first()
            if same is not None:
                if club:
                    raise ValidationError(_("Já existe o jogador %(name)s do clube %(club)s (nº %(pk)s).")
                                          % {"name": same.name, "club": same.club, "pk": same.pk})
                raise ValidationError(_("Já existe um jogador chamado %(name)s (nº %(pk)s); informe o clube "
                                        "para distinguir os dois.") % {"name": same.name, "pk": same.pk})
            data["name"], data["club"] = name, club
            if self.instance.pk:  # a rename: his matches and teams must still tell people apart
                was_name, was_club = Player.objects.filter(pk=self.instance.pk).values_list("name", "club").first()
                if "/" in was_name and name != was_name:
                    # a doubles side's row: its name is its players' (a tester renamed one and
                    # its called rubber was made again)
                    raise ValidationError(_("O nome de uma dupla é o dos seus jogadores (%(name)s): renomeie "
                                            "cada jogador, e a dupla muda com eles.") % {"name": was_name})
                refusal = (operations.rename_refusal(self.instance, name)
                           or teams.rename_refusal(was_name, was_club, name))
                if refusal:
                    raise ValidationError(refusal)
                if club != was_club:
                    for comp, team in teams.rosters_in_play(was_name, was_club)[:1]:
                        raise ValidationError(
                            _("%(name)s joga pela equipe %(team)s em “%(comp)s”, ainda em disputa: o clube "
                              "de um jogador de equipe não muda antes do fim da competição.")
                            % {"name": was_name, "team": team.name, "comp": comp.name})
            elif "/" in name:
                raise ValidationError(_("O nome não pode ter “/”: é o que separa os jogadores de uma dupla."))
        return data


def player_label(p: Player) -> str:
    """How a drop-down names a player: with the club, so two of the same name differ."""
    return f"{p.name} ({p.club})" if p.club else f"{p.name} (nº {p.pk})"


class EventInline(admin.TabularInline):
    """The match's log, shown but never edited: it is append-only."""

    model = Event
    fields = ["seq", "event", "description_pt", "entered_by", "at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class MatchMemberInline(admin.TabularInline):
    """The persons of a doubles match's sides, in their listed order (each his player row: rename
    him there). Set when the match is made; the order of play is the referee's, on the tablet."""

    model = MatchMember
    fields = ["side", "order", "player"]
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
    partners_a = forms.CharField(
        label=gettext_lazy("parceiros do lado A"), required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy("Duplas: os outros jogadores do lado, um por linha (até 4 por lado, Art. 1)."))
    partners_b = forms.CharField(
        label=gettext_lazy("parceiros do lado B"), required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy("Duplas: os outros jogadores do lado, um por linha (até 4 por lado, Art. 1)."))

    class Meta:
        model = Match
        fields = ["player_a", "player_b", "table", "competition", "referee_name", "scheduled_at",
                  "shot_clock"]

    confirm_move = forms.BooleanField(
        label=gettext_lazy("confirmar a mudança de mesa de um jogo em andamento"), required=False,
        help_text=gettext_lazy("O tablet da mesa antiga deixa o jogo; o da mesa nova o recebe."))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        keep = [self.instance.player_a_id, self.instance.player_b_id] if self.instance.pk else []
        for name in ("player_a", "player_b"):
            if name in self.fields:
                self.fields[name].label_from_instance = player_label
                # persons only: a doubles side's own row ("Ana / Carla") is not a player to
                # pick (the partners say who plays with him), except the match's own
                self.fields[name].queryset = Player.objects.exclude(
                    models.Q(name__contains="/") & ~models.Q(pk__in=[k for k in keep if k]))
        if self.instance.pk and self.instance.config:
            for name in ("reds", "frames_to_win", "first_breaker", "retorno"):
                if name in self.fields:
                    self.fields[name].initial = getattr(self.instance, name)
            for i, name in enumerate(PARTNER_FIELDS):
                if name in self.fields and "sides" in self.instance.config:
                    self.fields[name].initial = "\n".join(self.instance.config["sides"][i][1:])

    def clean(self):
        data = super().clean()
        if self.instance.pk and "table" in self.changed_data and not self.errors:
            self._check_move(data.get("table"), data.get("confirm_move"))
        if not all(f in self.fields for f in CONFIG_FIELDS) or self.errors:
            return data
        a, b = data.get("player_a"), data.get("player_b")
        if a and b and a.pk == b.pk:
            raise ValidationError(_("Escolha dois jogadores diferentes."))
        found = [[partner_row(n) for n in _names(data.get(name, ""))] for name in PARTNER_FIELDS]
        partners = [[n for n, _row in side] for side in found]
        self.partner_rows = [[row for _n, row in side] for side in found]
        players = [[a.name, *partners[0]], [b.name, *partners[1]]] if any(partners) else [a.name, b.name]
        try:
            self.instance.config = match_config(
                players, reds=data["reds"], frames_to_win=data["frames_to_win"],
                first_breaker=data.get("first_breaker"), retorno=data["retorno"])
        except sinuca.SinucaError as e:
            raise ValidationError(error_text(e))
        return data

    def _check_move(self, table, confirmed: bool) -> None:
        """A match in progress moves only when confirmed, and only to a free table."""
        current = Match.objects.get(pk=self.instance.pk)
        if not operations.is_in_progress(current):
            return
        if not confirmed:
            raise ValidationError(
                _("O jogo está em andamento: marque “confirmar a mudança de mesa” para movê-lo "
                  "(o tablet da mesa vai junto)."), code="needs_confirmation")
        other = operations.busy_with(table, other_than=current.pk)
        if other is not None:
            raise ValidationError(error_text(operations.TableBusy(table, other)), code="table_busy")


class MatchStatusFilter(admin.SimpleListFilter):
    """The match list by its situation: scheduled, called (a competition's call, not started),
    in progress, over, W.O. (the list's "situação" column, as a filter)."""

    title = gettext_lazy("situação")
    parameter_name = "situacao"

    def lookups(self, request, model_admin):
        return [("scheduled", _("agendado")), ("called", _("chamado")), ("in_play", _("em andamento")),
                ("finished", _("encerrado")), ("walkover", _("W.O."))]

    def queryset(self, request, queryset):
        v = self.value()
        not_started = dict(started_at__isnull=True, seq=0, walkover__isnull=True)
        if v == "scheduled":
            return queryset.filter(**not_started).exclude(fixture__called_at__isnull=False)
        if v == "called":
            return queryset.filter(**not_started, fixture__called_at__isnull=False)
        if v == "in_play":
            return queryset.filter(pk__in=tables.in_progress().values("pk"))
        if v == "finished":
            return queryset.filter(pk__in=tables.finished().filter(walkover__isnull=True).values("pk"))
        if v == "walkover":
            return queryset.filter(walkover__isnull=False)
        return queryset


STAGE_FORMATS = {"round_robin_groups": gettext_lazy("grupos, todos contra todos"),
                 "double_elimination_groups": gettext_lazy("grupos, dupla eliminação"),
                 "knockout": gettext_lazy("mata-mata")}


class MatchStageFilter(admin.SimpleListFilter):
    """The match list by a competition's stage (fase 1: groups, fase 2: knockout …): each stage
    of the latest competitions, its fixtures' matches."""

    title = gettext_lazy("fase")
    parameter_name = "fase"

    def _stages(self):
        out = {}
        for comp in Competition.objects.order_by("-pk")[:10]:
            for i, fmt, numbers in competitions.format_of(comp).stages(comp):  # a team event has none
                label = _("%(comp)s · fase %(n)s (%(format)s)") % {
                    "comp": comp.name, "n": i + 1, "format": STAGE_FORMATS.get(fmt, fmt)}
                out[f"{comp.pk}-{i}"] = (label, comp.pk, numbers)
        return out

    def lookups(self, request, model_admin):
        return [(k, v[0]) for k, v in self._stages().items()]

    def queryset(self, request, queryset):
        hit = self._stages().get(self.value() or "")
        if hit is None:
            return queryset
        _label, comp_pk, numbers = hit
        return queryset.filter(fixture__competition_id=comp_pk, fixture__number__in=numbers)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    """Matches: create, schedule on a table, start with the lot, hand the tablet its QR code."""

    form = MatchForm
    inlines = [EventInline]
    list_display = ["id", "when", "player_a", "player_b", "table", "competition", "best_of_col",
                    "score", "winner", "status", "links"]
    list_filter = [MatchStatusFilter, "table", ("fixture__competition", admin.RelatedOnlyFieldListFilter),
                   MatchStageFilter, ("created_at", admin.DateFieldListFilter)]
    search_fields = ["player_a__name", "player_b__name", "player_a__club", "player_b__club", "competition",
                     "referee_name", "table__name", "=id"]
    list_select_related = ["player_a", "player_b", "table"]
    actions = ["start_with_drawn_lot", "issue_token", "walkover_a", "walkover_b", "walkover_both"]
    change_form_template = "admin/scoreboard/match/change_form.html"
    fieldsets = [
        (None, {"fields": CONFIG_FIELDS + PARTNER_FIELDS}),
        (gettext_lazy("Evento"), {"fields": ["table", "confirm_move", "competition", "referee_name", "scheduled_at",
                                             "shot_clock"]}),
    ]

    def has_add_permission(self, request) -> bool:
        return self.has_change_permission(request)

    CONFIG_SHOWN = ["player_a", "player_b", "sides_col", "reds_col", "frames_to_win_col", "first_breaker_col", "retorno_col"]

    def _frozen(self, obj) -> bool:
        return obj is not None and not (obj.seq == 0 and obj.started_at is None)

    def get_readonly_fields(self, request, obj=None):
        # the log replays against the configuration it was scored under: shown, translated
        # (the form's own config fields listed too, so the admin drops them from the form)
        return self.CONFIG_SHOWN + CONFIG_FIELDS[2:] if self._frozen(obj) else []

    @admin.display(description=gettext_lazy("lados"))
    def sides_col(self, obj: Match) -> str:
        """Doubles: each side's players (Art. 1); a singles match shows its two names."""
        return " × ".join(obj.config.get("sides") and [" / ".join(x) for x in obj.config["sides"]]
                          or obj.player_names)

    @admin.display(description=gettext_lazy("partidas para vencer"))
    def frames_to_win_col(self, obj: Match) -> int:
        return obj.frames_to_win

    @admin.display(description=gettext_lazy("primeiro a sair"))
    def first_breaker_col(self, obj: Match) -> str:
        fb = obj.first_breaker
        return _("sorteio (Art. 17)") if fb is None else str(obj.player_a if fb == 0 else obj.player_b)

    @admin.display(description=gettext_lazy("retorno permitido"), boolean=True)
    def retorno_col(self, obj: Match) -> bool:
        return obj.retorno

    def get_inlines(self, request, obj=None):
        if obj is None:
            return []  # a new match has no log
        # a doubles match lists its sides' persons (a singles side is its player A / B)
        return [MatchMemberInline, *super().get_inlines(request, obj)] if obj.config.get("sides") else \
            super().get_inlines(request, obj)

    def get_fieldsets(self, request, obj=None):
        if self._frozen(obj):
            return [(None, {"fields": self.CONFIG_SHOWN}), *self.fieldsets[1:]]
        if obj is None:  # a new match has nothing to move
            return [(None, {"fields": CONFIG_FIELDS + PARTNER_FIELDS}),
                    (gettext_lazy("Evento"), {"fields": ["table", "competition", "referee_name", "scheduled_at",
                                                         "shot_clock"]})]
        return self.fieldsets

    def save_model(self, request, obj, form, change):
        if change and "table" in form.changed_data:
            # through core, as the desk's move: audited, the old table's tablet credentials
            # revoked (form.clean asked), and the table it left called by the queue after commit
            competitions.move_match(Match.objects.get(pk=obj.pk), obj.table,
                                    f"user:{request.user.get_username()}", confirm=True)
        super().save_model(request, obj, form, change)
        rows = getattr(form, "partner_rows", None)
        if rows is not None and obj.seq == 0 and obj.started_at is None:
            # a doubles side's persons, each his own player row (renamed with him, his
            # statistics his own): the side's chosen player, then the partners as found
            MatchMember.objects.filter(match=obj).delete()
            if obj.config.get("sides"):
                lead = (obj.player_a, obj.player_b)
                MatchMember.objects.bulk_create(
                    MatchMember(match=obj, side=i, order=j, player=p)
                    for i, side in enumerate(rows)
                    for j, p in enumerate([lead[i], *(r or clubless_player(n) for r, n in
                                                      zip(side, obj.config["sides"][i][1:]))]))

    def _state(self, obj: Match) -> dict:
        return log.snapshot(obj.pk).state

    @admin.display(description=gettext_lazy("horário"), ordering="scheduled_at")
    def when(self, obj: Match) -> str:
        at = obj.started_at or obj.scheduled_at or obj.created_at
        return timezone.localtime(at).strftime("%d/%m %H:%M") if at else "—"

    @admin.display(description=gettext_lazy("vermelhas"))
    def reds_col(self, obj: Match) -> int:
        return obj.reds

    @admin.display(description=gettext_lazy("melhor de"))
    def best_of_col(self, obj: Match) -> int:
        # the engine's answer (Art. 54.1); a match with no events needs no log to say it
        return sinuca.Match(obj.config).best_of

    @admin.display(description=gettext_lazy("placar (partidas)"))
    def score(self, obj: Match) -> str:
        if obj.started_at is None and obj.seq == 0 and obj.walkover is None:
            return "—"
        s = self._state(obj)
        return f"{s['frames'][0]} × {s['frames'][1]}" + (" W.O." if s.get("walkover") else "")

    @admin.display(description=gettext_lazy("vencedor"))
    def winner(self, obj: Match) -> str:
        if obj.started_at is None and obj.seq == 0 and obj.walkover is None:
            return "—"
        w = self._state(obj)["match_winner"]
        return str(obj.player_a if w == 0 else obj.player_b) if w is not None else "—"

    @admin.display(description=gettext_lazy("situação"))
    def status(self, obj: Match) -> str:
        if obj.walkover is not None:
            return _("W.O.")
        if obj.started_at is None and obj.seq == 0:
            return _("agendado")
        phase = self._state(obj)["phase"]
        return _("encerrado") if phase == Phase.MATCH_OVER else _("em andamento")

    @admin.action(description=gettext_lazy("Gerar um token de API do árbitro (mostrado uma vez)"))
    def issue_token(self, request, queryset):
        """A new referee API token per selected match, shown once (only its hash is kept)."""
        for m in queryset:
            token = operations.issue_token(m, f"user:{request.user.get_username()}")
            self.message_user(request, format_html("{} — {}: <code>{}</code>", m, _("token do árbitro"), token),
                              messages.SUCCESS)

    def _walkover(self, request, queryset, absent: list[int]):
        """A W.O. on each selected match, after a page that asks its reason (required: the
        súmula prints it); without one the page comes back saying so and nothing is recorded."""
        reason = " ".join(request.POST.get("reason", "").split())
        if "apply" not in request.POST or not reason:
            if "apply" in request.POST:
                self.message_user(request, error_text(operations.OperationRefused(
                    "reason_required", "Informe o motivo do W.O.", "Give the reason for the walkover")), messages.ERROR)
            return TemplateResponse(request, "admin/scoreboard/match/walkover.html", {
                **self.admin_site.each_context(request), "matches": list(queryset), "opts": self.model._meta,
                "action": request.POST.get("action", ""), "title": _("Motivo do W.O.")})
        for m in queryset:
            try:
                operations.walkover(m, absent, f"user:{request.user.get_username()}", reason)
            except sinuca.SinucaError as e:
                self.message_user(request, f"#{m.pk}: {error_text(e)}", messages.ERROR)
            else:
                self.message_user(request, _("Jogo %(pk)s: W.O. registrado.") % {"pk": m.pk}, messages.SUCCESS)

    @admin.action(description=gettext_lazy("W.O.: jogador A ausente (B vence)"))
    def walkover_a(self, request, queryset):
        return self._walkover(request, queryset, [0])

    @admin.action(description=gettext_lazy("W.O.: jogador B ausente (A vence)"))
    def walkover_b(self, request, queryset):
        return self._walkover(request, queryset, [1])

    @admin.action(description=gettext_lazy("W.O. duplo: ambos ausentes"))
    def walkover_both(self, request, queryset):
        return self._walkover(request, queryset, [0, 1])

    @admin.display(description=gettext_lazy("links"))
    def links(self, obj: Match) -> str:
        return format_html('<a href="{}">{}</a> · <a href="{}">TV</a> · <a href="{}">{}</a>',
                           reverse("match", args=[obj.pk]), _("estatísticas"), reverse("tv", args=[obj.pk]),
                           reverse("sumula_pdf", args=[obj.pk]), _("súmula"))

    @admin.action(description=gettext_lazy("Iniciar os jogos selecionados (sorteio pelo sistema, Art. 17)"))
    def start_with_drawn_lot(self, request, queryset):
        n = 0
        actor = access.Actor.of_request(request)
        for m in queryset:
            if not access.may("match.manage", actor, m.pk):
                self.message_user(request, f"#{m.pk}: {access_refusal()}", messages.ERROR)
                continue
            try:
                start_match(m, None, f"user:{request.user.get_username()}")
            except sinuca.SinucaError as e:  # a busy table: refused, nothing changed
                self.message_user(request, f"#{m.pk}: {error_text(e)}", messages.ERROR)
                continue
            n += 1
        if n:
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
        # the referee link logs a tablet in: only who may manage the match (its competition's
        # organiser, the superuser) is given one
        if match is not None and access.may("match.manage", access.Actor.of_request(request), match.pk):
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
        if not access.may("match.manage", access.Actor.of_request(request), match.pk):
            raise PermissionDenied(access_refusal())
        if request.method == "POST":
            choice = request.POST.get("lot", "draw")
            try:
                start_match(match, int(choice) if choice in ("0", "1") else None,
                            f"user:{request.user.get_username()}")
            except sinuca.SinucaError as e:  # a busy table: refused, nothing changed
                self.message_user(request, error_text(e), messages.ERROR)
            else:
                self.message_user(request, _("Jogo iniciado."), messages.SUCCESS)
            return redirect("admin:scoreboard_match_change", match.pk)
        needs_lot = "first_breaker" not in match.config
        return TemplateResponse(request, "admin/scoreboard/match/start.html", {
            **self.admin_site.each_context(request), "match": match, "needs_lot": needs_lot,
            "names": match.player_names, "opts": self.model._meta, "title": _("Iniciar jogo")})

    def import_view(self, request):
        """Import a match file (the contract's JSON) as a new match (the model's add permission)."""
        if not self.has_add_permission(request):
            raise PermissionDenied(access_refusal())
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

        actor = access.Actor.of_request(request)
        for table in queryset:
            if not access.may("overlay.control", actor, access.Overlay(table.pk, None)):
                self.message_user(request, f"{table.name}: {access_refusal()}", messages.ERROR)
                continue
            token = issue_overlay_token(table)
            self.message_user(request, format_html(
                "{} — {}: <code>{}</code> ({})", table.name, _("token do overlay"), token,
                reverse("api_table_overlay", args=[table.pk])), messages.SUCCESS)

    # A streamer of a table (a role) sees that table here, to make its overlay token, without any
    # model permission; the rest of the admin stays closed to him.
    def _streamed(self, request):
        u = access.Actor.of_request(request).active_user
        return Table.objects.none() if u is None else Table.objects.filter(roles__user=u, roles__kind=Role.STREAMER)

    def has_module_permission(self, request) -> bool:
        return super().has_module_permission(request) or self._streamed(request).exists()

    def has_view_permission(self, request, obj=None) -> bool:
        if super().has_view_permission(request, obj):
            return True
        streamed = self._streamed(request)
        return streamed.exists() if obj is None else streamed.filter(pk=obj.pk).exists()

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        if super().has_view_permission(request):
            return qs
        return qs.filter(pk__in=self._streamed(request).values("pk"))

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


@admin.register(MatchRecord)
class MatchRecordAdmin(admin.ModelAdmin):
    """What the desk did to matches (W.O., moves, tokens, starts), read-only: the audit trail."""

    list_display = ["match", "kind", "data", "reason", "by", "at"]
    list_filter = ["kind"]
    search_fields = ["=match__id", "by", "reason"]

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in MatchRecord._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class CompetitionEntryInline(admin.TabularInline):
    """A competition's entries, read-only: the draw and every match are built on them (the file
    of ``createcompetition`` is where they change, before the day)."""

    model = CompetitionEntry
    fields = ["number", "player", "club", "seed"]
    readonly_fields = fields
    ordering = ["number"]
    extra = 0
    can_delete = False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("player")

    @admin.display(description=gettext_lazy("clube"))
    def club(self, obj: CompetitionEntry) -> str:
        return obj.player.club or "—"

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


DRAW_METHODS = {"pots": gettext_lazy("potes de cabeças de chave"),
                "snake": gettext_lazy("serpentina (por cabeça de chave)"), "random": gettext_lazy("aleatório"),
                "manual": gettext_lazy("manual"), "teams": gettext_lazy("equipes")}


@admin.register(Competition)
class CompetitionAdmin(admin.ModelAdmin):
    """Competitions (made by ``manage.py createcompetition``): the draw as it reads, the entries,
    the links to the desk, the public hub, exports and API. Read-only: the desk changes a
    competition (its actions are checked by the core)."""

    list_display = ["name", "created_at", "entries_count", "links"]
    search_fields = ["name"]
    readonly_fields = ["name", "created_at", "links", "draw_view", "withdrawn_view"]
    fields = readonly_fields
    inlines = [CompetitionEntryInline]

    def has_add_permission(self, request) -> bool:
        return False  # from a file, through the core's checks: manage.py createcompetition

    def delete_model(self, request, obj) -> None:
        competitions.delete_competition(obj)  # its unplayed matches go too, the tables are freed

    def delete_queryset(self, request, queryset) -> None:
        for comp in queryset:
            competitions.delete_competition(comp)

    @admin.display(description=gettext_lazy("sorteio"))
    def draw_view(self, obj: Competition) -> str:
        """The recorded draw in words: its method and seed, then each group of the first stage
        with its players in group-seed order (or the knockout's bracket lines)."""

        draw = obj.draw or {}
        by_id = competitions.format_of(obj).entrants(obj)  # entry id -> player (a team event: none)

        def who(pid) -> str:
            p = by_id.get(pid)
            return f"{p.name} ({p.club})" if p is not None and p.club else (p.name if p is not None else f"#{pid}")

        method = DRAW_METHODS.get(draw.get("method"), draw.get("method") or "—")
        parts = [format_html("<p>{}: {} · {}: {}</p>", _("método"), method, _("semente"), draw.get("seed", "—"))]
        groups = draw.get("groups") or []
        for i, g in enumerate(groups):
            parts.append(format_html("<p><strong>{} {}</strong>: {}</p>", _("Grupo"), chr(ord("A") + i),
                                     format_html_join(" · ", "{}. {}", ((k, who(p)) for k, p in enumerate(g, 1)))))
        if not groups and draw.get("order"):
            parts.append(format_html("<p><strong>{}</strong>: {}</p>", _("Chave (ordem das linhas)"),
                                     format_html_join(" · ", "{}. {}",
                                                      ((k, who(p)) for k, p in enumerate(draw["order"], 1)))))
        return mark_safe("".join(parts))  # noqa: S308 - every part went through format_html

    @admin.display(description=gettext_lazy("desistentes"))
    def withdrawn_view(self, obj: Competition) -> str:
        names = {e.number: e.player.name for e in obj.entries.select_related("player")}
        return ", ".join(names.get(n, f"#{n}") for n in obj.withdrawn or []) or "—"

    @admin.display(description=gettext_lazy("inscritos"))
    def entries_count(self, obj: Competition) -> int:
        return obj.entries.count()

    @admin.display(description=gettext_lazy("links"))
    def links(self, obj: Competition) -> str:
        return format_html('<a href="{}">{}</a> · <a href="{}">{}</a> · <a href="{}">JSON</a> · <a href="{}">{}</a>'
                           ' · <a href="{}">CSV</a> · <a href="{}">{}</a>',
                           reverse("desk", args=[obj.pk]), _("mesa de controle"),
                           reverse("event_hub", args=[obj.pk]), _("página pública"),
                           reverse("api_competition", args=[obj.pk]),
                           reverse("desk_bracket_pdf", args=[obj.pk]), _("chave (PDF)"),
                           reverse("desk_results_csv", args=[obj.pk]),
                           reverse("desk_standings_csv", args=[obj.pk]), _("classificação (CSV)"))


class SeasonEtapaInline(admin.TabularInline):
    """A season's etapas: a competition and its weight (> 0)."""

    model = SeasonEtapa
    extra = 1
    autocomplete_fields = ["competition"]


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    """Seasons: their etapas with weights; the ranking is ``GET /api/seasons/<id>/``."""

    list_display = ["name", "created_at", "ranking_link"]
    search_fields = ["name"]
    inlines = [SeasonEtapaInline]

    @admin.display(description=gettext_lazy("classificação"))
    def ranking_link(self, obj: Season) -> str:
        return format_html('<a href="{}">JSON</a>', reverse("api_season", args=[obj.pk]))


class RoleForm(forms.ModelForm):
    """A role on one object: the kind's scope only (``Role.SCOPES``), checked by
    ``core.access``."""

    class Meta:
        model = Role
        fields = ["user", "kind", "competition", "table", "match"]

    def clean(self):
        data = super().clean()
        try:
            access._scope_kwargs(data.get("kind"), data.get("competition"), data.get("table"), data.get("match"))
        except access.RoleError as e:
            raise ValidationError(str(e)) from e
        return data


@admin.register(Role)
class RoleAdmin(admin.ModelAdmin):
    """Roles per object (organiser of a competition, referee of a table or match, streamer of a
    table): the superuser gives and takes them; each is audited with who did it (``access.grant``,
    ``access.revoke``). A role is not edited: take it and give another."""

    form = RoleForm
    list_display = ["user", "kind", "competition", "table", "match", "granted_by", "granted_at"]
    list_filter = ["kind"]
    search_fields = ["user__username"]
    autocomplete_fields = ["competition"]

    def _manager(self, request) -> bool:
        return access.may("roles.manage", access.Actor.of_request(request))

    def has_module_permission(self, request) -> bool:
        return self._manager(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return self._manager(request)

    def has_add_permission(self, request) -> bool:
        return self._manager(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return self._manager(request)

    def save_model(self, request, obj, form, change) -> None:
        d = form.cleaned_data
        role = access.grant(d["user"], d["kind"], f"user:{request.user.get_username()}", request.user,
                            competition=d.get("competition"), table=d.get("table"), match=d.get("match"))
        obj.pk = role.pk

    def delete_model(self, request, obj) -> None:
        access.revoke(obj.user, obj.kind, f"user:{request.user.get_username()}",
                      competition=obj.competition, table=obj.table, match=obj.match)

    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            self.delete_model(request, obj)


class WebhookDeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    fields = ("id", "kind", "key", "created_at", "attempts", "delivered_at", "last_error")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("-id",)
    max_num = 0
    show_change_link = False


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    """The federation's webhook subscribers (``core.webhooks``): URL, signing secret, kinds; the
    deliveries below, newest first (sent by ``manage.py webhooks send``)."""

    list_display = ("name", "url", "kinds", "active")
    inlines = [WebhookDeliveryInline]

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

