"""Players, tables, matches, the append-only event log and referee credentials.

A match's state is never stored as the truth: it is the engine's fold over the match's events.
Each event row keeps the state after it only as the answer to repeat for a repeated idempotency key.
"""
from __future__ import annotations

import hashlib
import io
import re
import secrets

from django.contrib.auth.hashers import check_password, make_password
from django.db import models
from django.db.models.fields.files import ImageFieldFile
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField

from .names import NameField, clean_instance, identity


PHOTO_MAX_BYTES = 2 * 1024 * 1024  # a TV shows a face at about 100 px: 2 MB is plenty
PHOTO_MAX_SIDE = 2000
PHOTO_MIN_SIDE = 64
PHOTO_FORMATS = ("JPEG", "PNG", "WEBP")


def photo_header_size(file) -> tuple[int, int] | None:
    """The (width, height) a JPEG, PNG or WebP file declares in its header, read without the
    decompression-bomb guard of ``Image.open`` (which refuses a 30000×30000 picture as "not an
    image"), so that such a file is refused as too large, saying its size; None if unreadable."""
    from PIL import Image

    Image.init()
    pos = file.tell() if hasattr(file, "tell") else 0
    try:
        for fmt in PHOTO_FORMATS:
            factory, accept = Image.OPEN[fmt]
            file.seek(0)
            if accept and not accept(file.read(16)):
                continue
            file.seek(0)
            try:
                return factory(file, "").size
            except Exception:  # noqa: BLE001 - not this format after all
                continue
        return None
    finally:
        file.seek(pos)


def check_photo_dimensions(file) -> None:
    """Refuse a photo whose header declares a side over ``PHOTO_MAX_SIDE`` or under
    ``PHOTO_MIN_SIDE`` pixels (before any decoding)."""
    from django.core.exceptions import ValidationError

    size = photo_header_size(file)
    if size is None:
        return
    w, h = size
    if max(w, h) > PHOTO_MAX_SIDE or min(w, h) < PHOTO_MIN_SIDE:
        raise ValidationError(
            _("A foto tem %(w)s×%(h)s pixels; cada lado deve ter de %(min)s a %(max)s pixels."),
            code="photo_size", params={"w": w, "h": h, "min": PHOTO_MIN_SIDE, "max": PHOTO_MAX_SIDE})


def validate_photo(file) -> None:
    """Refuse a photo over ``PHOTO_MAX_BYTES``, of another format than JPEG, PNG or WebP, or with
    a side over ``PHOTO_MAX_SIDE`` or under ``PHOTO_MIN_SIDE`` pixels, saying which and the limit
    (the field's own check has already refused what is no image at all)."""
    from django.core.exceptions import ValidationError
    from PIL import Image

    size = getattr(file, "size", 0) or 0
    if size > PHOTO_MAX_BYTES:
        raise ValidationError(
            _("A foto tem %(size)s KB; o máximo é %(max)s KB."), code="photo_too_big",
            params={"size": size // 1024, "max": PHOTO_MAX_BYTES // 1024})
    check_photo_dimensions(file)
    pos = file.tell() if hasattr(file, "tell") else 0
    try:
        file.seek(0)
        with Image.open(file) as img:
            fmt, (w, h) = img.format, img.size
    except Exception:  # noqa: BLE001 - whatever Pillow cannot read is not a photo
        raise ValidationError(_("O arquivo não é uma imagem JPEG, PNG ou WebP."), code="photo_format")
    finally:
        file.seek(pos)
    if fmt not in PHOTO_FORMATS:
        raise ValidationError(_("O arquivo não é uma imagem JPEG, PNG ou WebP."), code="photo_format")
    if max(w, h) > PHOTO_MAX_SIDE or min(w, h) < PHOTO_MIN_SIDE:
        raise ValidationError(
            _("A foto tem %(w)s×%(h)s pixels; cada lado deve ter de %(min)s a %(max)s pixels."),
            code="photo_size", params={"w": w, "h": h, "min": PHOTO_MIN_SIDE, "max": PHOTO_MAX_SIDE})


PHOTO_EXTENSIONS = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp"}
PHOTO_CONTENT_TYPES = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}


def reencode_photo(name: str, file) -> tuple[str, bytes]:
    """``(stored name, bytes)`` of an uploaded photo as Pillow writes it again: the pixels only,
    EXIF (GPS, camera, orientation), ICC, XMP and text chunks dropped, the EXIF orientation
    applied to the pixels, and whatever bytes follow the image (a polyglot's zip or script)
    gone. The format is the decoded one (JPEG, PNG or WebP), never the uploaded name's: the
    stored name is the upload's stem with that format's extension, so a PNG named ``.pdf`` is
    stored as ``.png`` and served as ``image/png``. A JPEG is written at quality 90.

    Raises ``ValidationError`` (the validator's pt/en messages) for what
    :func:`validate_photo` refuses, for a caller that saved without validating."""
    import os

    from django.core.exceptions import ValidationError
    from PIL import Image, ImageOps

    pos = file.tell() if hasattr(file, "tell") else 0
    file.seek(0)
    check_photo_dimensions(file)  # before any decoding: no decompression bomb is ever loaded
    try:
        with Image.open(file) as img:
            fmt = img.format
            if fmt not in PHOTO_FORMATS:
                raise ValidationError(_("O arquivo não é uma imagem JPEG, PNG ou WebP."), code="photo_format")
            upright = ImageOps.exif_transpose(img)
    except ValidationError:
        raise
    except Exception:  # noqa: BLE001 - whatever Pillow cannot read is not a photo
        raise ValidationError(_("O arquivo não é uma imagem JPEG, PNG ou WebP."), code="photo_format")
    finally:
        file.seek(pos)
    alpha = upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info
    mode = "RGBA" if alpha and fmt != "JPEG" else "RGB"
    pixels = upright.convert(mode)
    clean = Image.frombytes(mode, pixels.size, pixels.tobytes())  # a new image: no info, no EXIF
    out = io.BytesIO()
    clean.save(out, fmt, **({"quality": 90} if fmt in ("JPEG", "WEBP") else {}))
    stem = os.path.splitext(os.path.basename(name or ""))[0] or "foto"
    return stem + PHOTO_EXTENSIONS[fmt], out.getvalue()


# What Pillow reads as metadata in ``Image.info`` (besides EXIF, read with ``getexif``): none of it
# is in a re-encoded file.
_PHOTO_METADATA = ("exif", "icc_profile", "xmp", "XML:com.adobe.xmp", "photoshop", "comment", "Comment")


def photo_is_clean(name: str, data: bytes) -> bool:
    """Whether stored photo bytes are already what :func:`reencode_photo` leaves: a JPEG, PNG or
    WebP whose extension is its format's, with no EXIF, ICC, XMP, comment or PNG text chunk and
    nothing after the image's end (a JPEG's last EOI marker, a PNG's IEND chunk, a WebP's RIFF
    size). Lets ``manage.py reencodephotos`` leave alone what it would only compress again."""
    import os

    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            fmt = img.format
            if fmt not in PHOTO_FORMATS or os.path.splitext(name)[1].lower() != PHOTO_EXTENSIONS[fmt]:
                return False
            if len(img.getexif()) or any(k in img.info for k in _PHOTO_METADATA) or getattr(img, "text", None):
                return False
    except Exception:  # noqa: BLE001 - not an image Pillow reads: not clean
        return False
    if fmt == "JPEG":
        return data.endswith(b"\xff\xd9")
    if fmt == "PNG":
        return data.endswith(b"IEND\xaeB`\x82")
    return len(data) == 8 + int.from_bytes(data[4:8], "little")  # WebP: RIFF header + its size


THUMB_SIDE = 320  # px: a face on a phone (96 CSS px at 3×), a venue card, a 4K TV's 216 px
THUMB_QUALITY = 80


def photo_thumbnail(data: bytes) -> bytes:
    """A small WebP of a (re-encoded) photo, its longer side at most :data:`THUMB_SIDE` pixels
    (transparency kept): what a phone downloads instead of an upload of up to 2 MB."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        img = img.convert("RGBA" if img.mode in ("RGBA", "LA", "PA") else "RGB")
        img.thumbnail((THUMB_SIDE, THUMB_SIDE), Image.LANCZOS)
        out = io.BytesIO()
        img.save(out, "WEBP", quality=THUMB_QUALITY, method=6)
    return out.getvalue()


def thumbnail_name(name: str) -> str:
    """``players/ana.jpg`` → ``ana-thumb.webp`` (stored beside it, under the field's folder)."""
    import os

    return os.path.splitext(os.path.basename(name or ""))[0] + "-thumb.webp"


class PhotoFieldFile(ImageFieldFile):
    """A player's photo file: re-encoded (:func:`reencode_photo`) whenever it is saved, by the
    admin's form or by ``player.photo.save(name, content)`` alike; with the field's
    ``thumb_field``, its thumbnail (:func:`photo_thumbnail`) is made and stored there at once."""

    def save(self, name, content, save=True):
        from django.core.files.base import ContentFile

        name, data = reencode_photo(name, content)
        thumb = getattr(self.field, "thumb_field", None)
        if thumb:
            getattr(self.instance, thumb).save(thumbnail_name(name), ContentFile(photo_thumbnail(data)), save=False)
        super().save(name, ContentFile(data, name=name), save)


class PhotoField(models.ImageField):
    """``ImageField`` whose files are re-encoded on upload (:class:`PhotoFieldFile`);
    ``thumb_field``: the name of the model's field that takes the photo's thumbnail.

    Deconstructed as a plain ``ImageField``: re-encoding changes the stored bytes, not the
    column, so it needs no migration."""

    attr_class = PhotoFieldFile

    def __init__(self, *args, thumb_field: str | None = None, **kwargs):
        self.thumb_field = thumb_field
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.ImageField", args, kwargs


class Player(models.Model):
    """A player, by the name shown on the scoreboards, with an optional photo, club and flag
    (shown on the TV, the full overlay and the venue's cards)."""

    name = NameField(_("nome"), max_length=80)
    photo = PhotoField(_("foto"), upload_to="players/", blank=True, validators=[validate_photo],
                       thumb_field="photo_thumb",
                       help_text=_("Opcional. JPEG, PNG ou WebP, até 2 MB, lados de 64 a 2000 pixels."))
    # a WebP of at most 320 px made from the photo when it is uploaded: the phone hub, the venue's
    # cards, the TV and the overlay show it (the photo itself is up to 2 MB)
    photo_thumb = models.ImageField(upload_to="players/", blank=True, editable=False)
    club = NameField(_("clube"), max_length=60, blank=True)
    country = CountryField(_("bandeira (país)"), blank=True)
    # The federation's registry (``core.federation``): the stable id a federation gives a
    # registered player (pulled by its venues); a player a venue created on the day arrives at the
    # federation with ``provisional_key`` "<venue>:<venue's pk>" and no federation id, until a
    # person matches it to a registered player (``matched_to``; never merged silently).
    federation_id = models.CharField(_("id na federação"), max_length=40, null=True, blank=True, unique=True)
    provisional_key = models.CharField(_("id provisório"), max_length=100, null=True, blank=True,
                                       unique=True, editable=False)
    matched_to = models.ForeignKey("self", models.SET_NULL, null=True, blank=True, related_name="+",
                                   editable=False, verbose_name=_("identificado como"))

    class Meta:
        verbose_name = _("jogador")
        verbose_name_plural = _("jogadores")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Save; a photo removed takes its thumbnail with it."""
        if not self.photo and self.photo_thumb:
            self.photo_thumb = ""
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "photo_thumb"}
        super().save(*args, **kwargs)

    @property
    def photo_small_url(self) -> str:
        """The URL screens show the player's face with: the thumbnail, else (a photo stored
        before thumbnails were made) the photo; "" without a photo."""
        if self.photo_thumb:
            return self.photo_thumb.url
        return self.photo.url if self.photo else ""


class Club(models.Model):
    """A club registered at the federation (``core.clubs``), with the stable id its venues know it
    by (``federation_id``, ``C`` and six digits unless given); a venue holds the clubs it pulled.
    A player's club stays his ``club`` text: his club is the one whose name is that text as names
    are compared for clashes (``key``: ``names.identity``, so "Clube A" and " clube  a" are one)."""

    name = NameField(_("nome"), max_length=60)
    # names.identity(name), kept by save(): unique, so no two clubs differ only by case, spaces
    # or Unicode form (case-folding may lengthen a name: "ß" is "ss")
    key = models.CharField(max_length=240, unique=True, editable=False)
    federation_id = models.CharField(_("id na federação"), max_length=40, null=True, blank=True, unique=True)

    class Meta:
        verbose_name = _("clube")
        verbose_name_plural = _("clubes")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Save, with ``key`` the name's identity."""
        self.key = identity(self.name)
        if kwargs.get("update_fields") is not None and "name" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "key"}
        super().save(*args, **kwargs)


class Table(models.Model):
    """A physical table in the venue (mesa), where the TV and overlay of its match are shown."""

    name = NameField(_("nome"), max_length=40, unique=True)
    # The PIN a referee types on the table's tablet (/tables/<id>/referee/) to score whatever
    # match is on the table; hashed like a password, set in the admin.
    pin_hash = models.CharField(_("PIN do árbitro (hash)"), max_length=200, blank=True, editable=False)
    # The bearer token a streamer's Stream Deck / Companion sends to the overlay control endpoint
    # of this table (SHA-256, shown once by the admin action that makes it).
    overlay_token_hash = models.CharField(max_length=64, blank=True, editable=False)
    # The stream graphics' switches and options of this table (``core.graphics``): they belong to
    # the table, not to a match, so they hold between and across its matches; ``graphics_ver``
    # counts the changes (the boards' fingerprint reads it).
    graphics = models.JSONField(_("gráficos da transmissão"), default=dict, blank=True, editable=False)
    graphics_ver = models.PositiveIntegerField(default=0, editable=False)
    # The overlay's score bar and statistics panel switches of this table (``core.overlay``):
    # the table's, like the graphics', so a Stream Deck can pre-set them before the table's first
    # match; each match on the table takes them (``Match.save``, ``overlay.switch``).
    overlay_bar = models.BooleanField(_("overlay: placar visível"), default=True, editable=False)
    overlay_stats = models.BooleanField(_("overlay: estatísticas visíveis"), default=False, editable=False)
    # Out of service (a torn cloth, a broken light): since when and why, set by the desk
    # (``core.calls.out_of_service``); the queue calls nothing to it and nothing starts or moves
    # onto it until it is back in service.
    out_since = models.DateTimeField(_("fora de serviço desde"), null=True, blank=True, editable=False)
    out_reason = models.CharField(_("motivo (fora de serviço)"), max_length=300, blank=True, editable=False)
    overlay_words = models.BooleanField(_("overlay: palavras da regra nos pop-ups"), default=False, editable=False)

    class Meta:
        verbose_name = _("mesa")
        verbose_name_plural = _("mesas")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def out_of_service(self) -> bool:
        """Put out of service by the desk and not back yet."""
        return self.out_since is not None

    @property
    def short_name(self) -> str:
        """The name without a leading "Mesa " / "Table ", for pages that print "Mesa <name>":
        a table named "Mesa 1" shows as "Mesa 1", not "Mesa Mesa 1"."""
        return re.sub(r"^\s*(mesa|table)\s+", "", self.name, flags=re.IGNORECASE) or self.name


class Sponsor(models.Model):
    """A sponsor's image for the stream graphics' sponsor slot (``/tables/<id>/graphics/``): of one
    table, of one competition (every table of its matches), or of the whole venue (neither). The
    image is re-encoded on upload like a player's photo (:class:`PhotoField`)."""

    name = NameField(_("nome"), max_length=80)
    image = PhotoField(_("imagem"), upload_to="sponsors/", validators=[validate_photo],
                       help_text=_("JPEG, PNG ou WebP, até 2 MB, lados de 64 a 2000 pixels."))
    table = models.ForeignKey(Table, models.CASCADE, null=True, blank=True, related_name="sponsors",
                              verbose_name=_("mesa"))
    competition = models.ForeignKey("Competition", models.CASCADE, null=True, blank=True,
                                    related_name="sponsors", verbose_name=_("competição"))
    order = models.PositiveSmallIntegerField(_("ordem"), default=0)
    active = models.BooleanField(_("ativo"), default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("patrocinador")
        verbose_name_plural = _("patrocinadores")
        ordering = ["order", "pk"]

    def __str__(self) -> str:
        return self.name


class Match(models.Model):
    """A match (jogo) and its configuration (engine contract, section 2).

    ``config`` is the engine's normalized configuration, frozen at creation so that the log
    always replays against the configuration it was scored under (``core.matches`` builds it);
    ``reds``, ``frames_to_win``, ``first_breaker`` and ``retorno`` are read from it. ``seq`` is
    the seq of the latest event (0 for a new match); it lives on
    the row the service locks, so checking and advancing it is one locked read and one write.
    """

    player_a = models.ForeignKey(Player, models.PROTECT, related_name="+", verbose_name=_("jogador A"))
    player_b = models.ForeignKey(Player, models.PROTECT, related_name="+", verbose_name=_("jogador B"))
    table = models.ForeignKey(Table, models.SET_NULL, null=True, blank=True, verbose_name=_("mesa"))
    config = models.JSONField(_("configuração"), editable=False)
    seq = models.PositiveIntegerField(_("nº de eventos"), default=0, editable=False)
    created_at = models.DateTimeField(_("criado em"), auto_now_add=True)
    # Tournament operations: who referees (for the súmula), the order of a table's queue, when the
    # organiser started the match, and the optional shot clock of Art. 49.4 (0 = off).
    competition = NameField(_("competição"), max_length=120, blank=True)
    referee_name = NameField(_("árbitro"), max_length=80, blank=True)
    scheduled_at = models.DateTimeField(_("horário previsto"), null=True, blank=True)
    started_at = models.DateTimeField(_("iniciado em"), null=True, blank=True, editable=False)
    shot_clock = models.PositiveSmallIntegerField(
        _("cronômetro de tacada (s)"), default=0,
        help_text=_("Tempo por tacada (Art. 49.4) iniciado pelo árbitro; 0 = desligado."))
    clock_deadline = models.DateTimeField(null=True, blank=True, editable=False)
    # A rehearsal (``manage.py replaymatch``): a recorded match replayed to set up the screens,
    # never an official result; the command deletes its matches when done unless told to keep them.
    rehearsal = models.BooleanField(_("ensaio"), default=False, editable=False)
    # What the broadcast overlays show, switched from a Stream Deck / Companion through the
    # control endpoint (api.overlay_control); ``overlay_ver`` counts the switches, so a page
    # never takes an older switch over a newer one.
    overlay_bar = models.BooleanField(_("overlay: placar visível"), default=True)
    overlay_stats = models.BooleanField(_("overlay: estatísticas visíveis"), default=False)
    # the foul and retorno pop-ups add the cited item's first words (the rule's own text), off
    # by default: a stream that explains the rules turns it on
    overlay_words = models.BooleanField(_("overlay: palavras da regra nos pop-ups"), default=False)
    overlay_ver = models.PositiveIntegerField(default=0, editable=False)
    # A W.O. (walkover): a match-level result written by ``core.operations.walkover`` (audited in
    # ``MatchRecord``), never an engine event: the engine scores what is played, and a W.O. is
    # what was not. ``{"absent": [0] | [1] | [0, 1], "winner": 0 | 1 | None}``; null otherwise.
    walkover = models.JSONField(_("W.O."), null=True, blank=True, editable=False)
    # A finished result the desk corrected (``core.competitions.correct``; the reason in
    # ``MatchRecord``): ``{"winner": 0 | 1, "frames": [a, b], "kind": …}``, by side, over the
    # engine's (or the W.O.'s) result on every screen, feed, export and súmula; null otherwise.
    correction = models.JSONField(_("correção"), null=True, blank=True, editable=False)
    # At a federation, the venue that scored the match and its pk there: the venue owns it, the
    # federation stores what it sends and never rewrites it (``core.federation``); null at a venue.
    origin_venue = models.ForeignKey("Venue", models.PROTECT, null=True, blank=True, editable=False,
                                     related_name="+", verbose_name=_("clube de origem"))
    origin_uid = models.CharField(max_length=40, null=True, blank=True, editable=False)
    # The match's result changed (an event ended it, or an undo took its end back) and its
    # competition has not reacted yet (``competitions.run_due``): set by the log in the same
    # UPDATE as ``seq``, so the referee's tap pays no statement and takes no other row's lock.
    results_due = models.BooleanField(default=False, editable=False)

    class Meta:
        verbose_name = _("jogo")
        verbose_name_plural = _("jogos")
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["origin_venue", "origin_uid"], name="match_origin_unique")]
        # the due check reads the flagged rows every second: a partial index keeps it to them
        indexes = [models.Index(fields=["id"], condition=models.Q(results_due=True), name="match_results_due")]

    def __str__(self) -> str:
        """``#7 Ana × Bia``; the sides' names as the engine has them (``Ana / Carla × …``)."""
        names = (self.config or {}).get("players") or [self.player_a, self.player_b]
        return f"#{self.pk} {names[0]} × {names[1]}"

    def save(self, *args, **kwargs) -> None:
        """Save; a match not started yet that is on a table and was never switched itself takes
        the table's overlay switches (``Table.overlay_bar``, ``overlay_stats``, ``overlay_words``), so a streamer's
        "bar hidden" holds across the table's matches, and one set before any match holds too."""
        if self.table_id and self.seq == 0 and self.overlay_ver == 0:
            names = ("overlay_bar", "overlay_stats", "overlay_words")
            prev = Table.objects.filter(pk=self.table_id).values(*names).first()
            if prev and tuple(prev[n] for n in names) != tuple(getattr(self, n) for n in names):
                for n in names:
                    setattr(self, n, prev[n])
                self.overlay_ver = 1
                if kwargs.get("update_fields") is not None:
                    kwargs["update_fields"] = {*kwargs["update_fields"], *names, "overlay_ver"}
        super().save(*args, **kwargs)

    @property
    def player_names(self) -> list[str]:
        """The two names, in engine order (player 0, player 1)."""
        return list(self.config["players"])

    @property
    def reds(self) -> int:
        """Reds in the rack: 6, 10 or 15 (Art. 1)."""
        return self.config["reds"]

    @property
    def frames_to_win(self) -> int:
        """Frames a player needs to win the match (Art. 54.1)."""
        return self.config["frames_to_win"]

    @property
    def first_breaker(self) -> int | None:
        """Who breaks off the first frame (0/1), or None while the lot is to be drawn (Art. 17)."""
        return self.config.get("first_breaker")

    @property
    def retorno(self) -> bool:
        """Whether *falta e retorno* is allowed (Art. 25; an event may disable it, Art. 29)."""
        return self.config.get("retorno", True)


class MatchMember(models.Model):
    """One person of a side of a doubles or team match (Art. 1, "em conjunto"; contract section
    11): the player row of ``config["sides"][side][order]``. A singles match has none (its side
    is its ``player_a`` / ``player_b``). Renaming the player renames him in the unfinished
    matches he plays in (``operations.player_renamed``)."""

    match = models.ForeignKey("Match", models.CASCADE, related_name="members", verbose_name=_("jogo"))
    side = models.PositiveSmallIntegerField(_("lado"))  # 0: player A's side, 1: B's
    order = models.PositiveSmallIntegerField(_("ordem"))  # the place in the side's listed order
    player = models.ForeignKey(Player, models.PROTECT, related_name="memberships", verbose_name=_("jogador"))

    class Meta:
        verbose_name = _("integrante")
        verbose_name_plural = _("integrantes")
        ordering = ["match", "side", "order"]
        constraints = [models.UniqueConstraint(fields=["match", "side", "order"], name="one_member_per_place")]

    def __str__(self) -> str:
        return self.player.name


class MatchRecord(models.Model):
    """What the desk did to a match outside the referee's log, audited: a W.O., a move to another
    table, a referee token issued, a start, a correction. Append-only like the log; ``data`` holds
    the details (``{"from": table id, "to": table id}`` for a move, ``{"absent": [...]}`` for a
    W.O.), ``by`` who did it (``user:<name>``, ``api:<token id>``, ``cmd``)."""

    # SET_NULL: a match made for a draw that was redone (or for a fixture a withdrawal turned
    # into a W.O.) never started and is deleted; the record of its call stays, with its fixture
    # each kind in words (the admin's list and filter showed "call", "move" …)
    KINDS = [("start", _("início do jogo")), ("call", _("chamada para a mesa")), ("move", _("mudança de mesa")),
             ("walkover", _("W.O.")), ("token", _("token do árbitro")), ("postpone", _("adiamento")),
             ("correction", _("correção do resultado")), ("withdrawal", _("desistência do jogador")),
             ("rename", _("mudança de nome")), ("stream", _("marcação para transmissão")),
             ("redraw", _("novo sorteio")), ("lineup", _("escalação")),
             ("desk_token", _("token da mesa de controle")), ("grant", _("papel concedido")),
             ("revoke", _("papel retirado")), ("out_of_service", _("mesa fora de serviço")),
             ("in_service", _("mesa de volta ao serviço")),
             ("overruling", _("resultado alterado por protesto"))]

    match = models.ForeignKey(Match, models.SET_NULL, null=True, blank=True, related_name="records",
                              verbose_name=_("jogo"))
    kind = models.CharField(_("tipo"), max_length=20, choices=KINDS)
    data = models.JSONField(_("dados"), default=dict)
    reason = models.CharField(_("motivo"), max_length=300, blank=True)
    by = models.CharField(_("por"), max_length=80, blank=True)
    at = models.DateTimeField(_("hora"), auto_now_add=True)

    class Meta:
        verbose_name = _("registro da mesa")
        verbose_name_plural = _("registros da mesa")
        ordering = ["match", "pk"]

    def __str__(self) -> str:
        return f"{self.match_id} {self.kind}"


class Event(models.Model):
    """One referee action, in order. Append-only: an undo is a new event, nothing is deleted."""

    match = models.ForeignKey(Match, models.PROTECT, related_name="events", verbose_name=_("jogo"))
    seq = models.PositiveIntegerField(_("nº"))
    event = models.JSONField(_("evento"))
    entered_by = models.CharField(_("registrado por"), max_length=80, blank=True)
    at = models.DateTimeField(_("hora"), auto_now_add=True)
    key = models.CharField(_("chave de idempotência"), max_length=100, null=True, blank=True)
    description_pt = models.CharField(_("descrição (pt)"), max_length=300, blank=True)
    description_en = models.CharField(_("descrição (en)"), max_length=300, blank=True)
    state = models.JSONField(_("estado"),
                             help_text="State after this event, kept to repeat the answer to a repeated key")

    class Meta:
        verbose_name = _("evento")
        verbose_name_plural = _("eventos")
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="event_seq_unique_per_match"),
            models.UniqueConstraint(fields=["match", "key"], name="event_key_unique_per_match",
                                    condition=models.Q(key__isnull=False)),
            models.CheckConstraint(condition=models.Q(seq__gte=1), name="event_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}#{self.seq} {self.event.get('type')}"

    @property
    def description(self) -> dict:
        """``{"pt", "en"}`` as the engine described the event."""
        return {"pt": self.description_pt, "en": self.description_en}


def hash_token(token: str) -> str:
    """SHA-256 of a bearer token: tokens are random and long, so a fast hash is enough to store."""
    return hashlib.sha256(token.encode()).hexdigest()


class RefereeCredential(models.Model):
    """The right to score one match: a bearer token for the API and a PIN for the tablet.

    Only hashes are stored; the token and PIN are shown once, by ``creatematch``.
    """

    match = models.ForeignKey(Match, models.CASCADE, related_name="referee_credentials", verbose_name=_("jogo"))
    label = models.CharField(_("rótulo"), max_length=80, blank=True, default="árbitro")
    token_hash = models.CharField(_("token (hash)"), max_length=64, unique=True)
    pin_hash = models.CharField(_("PIN (hash)"), max_length=200, blank=True)
    revoked = models.BooleanField(_("revogada"), default=False)
    created_at = models.DateTimeField(_("criada em"), auto_now_add=True)

    class Meta:
        verbose_name = _("credencial de árbitro")
        verbose_name_plural = _("credenciais de árbitro")

    def __str__(self) -> str:
        return f"{self.label} ({self.match_id})"

    @classmethod
    def issue(cls, match: Match, label: str = "árbitro") -> tuple["RefereeCredential", str, str]:
        """Create a credential; return it with the clear token and a 6-digit PIN (shown once)."""
        token = secrets.token_urlsafe(32)
        pin = f"{secrets.randbelow(10**6):06d}"
        cred = cls.objects.create(match=match, label=label, token_hash=hash_token(token),
                                  pin_hash=make_password(pin))
        return cred, token, pin

    def check_pin(self, pin: str) -> bool:
        """Whether ``pin`` is this credential's PIN."""
        return bool(self.pin_hash) and check_password(pin, self.pin_hash)


class LoginCode(models.Model):
    """A single-use, short-lived code that logs one tablet in as a credential's referee: what the
    referee link and QR code carry. Only its hash is stored; exchanging it deletes it, so a code
    read later from a log (nginx writes query strings) no longer works."""

    credential = models.ForeignKey(RefereeCredential, models.CASCADE, related_name="login_codes",
                                   verbose_name=_("credencial"))
    code_hash = models.CharField(_("código (hash)"), max_length=64, unique=True)
    expires_at = models.DateTimeField(_("expira em"))

    class Meta:
        verbose_name = _("código de acesso do árbitro")
        verbose_name_plural = _("códigos de acesso do árbitro")


class Competition(models.Model):
    """A competition (issue 17): its spec as the tournament core's JSON form
    (``tournament.Competition.to_dict()``) and its recorded draw. Everything else (fixtures,
    standings, placings) is recomputed by the pure core from these two and the matches' results
    (``core.competitions``); nothing here is a second copy of a result."""

    name = NameField(_("nome"), max_length=120)
    spec = models.JSONField(_("regulamento"), editable=False)
    draw = models.JSONField(_("sorteio"), editable=False)
    # the bearer token of the desk's API calls (W.O., call, move, correct), shown once by
    # ``createcompetition``; SHA-256 like the referee tokens
    desk_token_hash = models.CharField(max_length=64, blank=True, editable=False)
    # entry numbers of players who withdrew: every match of theirs not played yet is a W.O.
    # (the core's ``evaluate(plan, results, withdrawn)``); the desk's ``withdraw`` action
    withdrawn = models.JSONField(_("desistentes"), default=list, editable=False)
    # a team competition's lineups set by the desk (issue 19): {"<tie>": {"home": [[names] per
    # rubber], "away": …}}; the file's own and the default lineup are in the spec (core.teams)
    lineups = models.JSONField(_("escalações"), default=dict, editable=False)
    created_at = models.DateTimeField(_("criada em"), auto_now_add=True)
    # when the queue must run next (a player's rest ends; a result handed to the background):
    # stored, not a timer in one process's memory, so a worker's restart loses nothing
    # (``core.competitions.wake_at``, ``run_due``)
    due_at = models.DateTimeField(null=True, blank=True, editable=False, db_index=True)
    # At a federation, the venue that ran it and its pk there (see ``Match.origin_venue``): its
    # queue is the venue's, so the federation never makes or calls its matches.
    origin_venue = models.ForeignKey("Venue", models.PROTECT, null=True, blank=True, editable=False,
                                     related_name="+", verbose_name=_("clube de origem"))
    origin_uid = models.CharField(max_length=40, null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("competição")
        verbose_name_plural = _("competições")
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["origin_venue", "origin_uid"], name="competition_origin_unique")]

    def __str__(self) -> str:
        return self.name


class CompetitionEntry(models.Model):
    """One entrant: the core's entry id (``number``), the player row, the seed."""

    competition = models.ForeignKey(Competition, models.CASCADE, related_name="entries",
                                    verbose_name=_("competição"))
    number = models.PositiveIntegerField(_("nº"))
    player = models.ForeignKey(Player, models.PROTECT, related_name="+", verbose_name=_("jogador"))
    seed = models.PositiveIntegerField(_("cabeça de chave"), null=True, blank=True)

    class Meta:
        verbose_name = _("inscrito")
        verbose_name_plural = _("inscritos")
        ordering = ["competition", "number"]
        constraints = [models.UniqueConstraint(fields=["competition", "number"], name="entry_number_unique")]

    def __str__(self) -> str:
        return f"{self.number}. {self.player}"


class Fixture(models.Model):
    """One match of a competition's plan (its ``number`` is the core's fixture id, J1, J2 …),
    before and after its players are known: ``match`` is the scored match, made when both
    players are known. ``called_at``/``called_table``: the desk called it to a table (the W.O.
    tolerance clock runs from then). ``correction``: a corrected result (the core's
    ``Result.to_dict()``), which replaces the match's own; its reason is in ``MatchRecord``.
    ``stream``: flagged for a stream table (the file's flag, then the desk's)."""

    competition = models.ForeignKey(Competition, models.CASCADE, related_name="fixtures",
                                    verbose_name=_("competição"))
    number = models.PositiveIntegerField(_("nº"))
    match = models.OneToOneField(Match, models.SET_NULL, null=True, blank=True, related_name="fixture",
                                 verbose_name=_("jogo"))
    called_at = models.DateTimeField(_("chamado em"), null=True, blank=True)
    postponed = models.BooleanField(_("adiado"), default=False)
    correction = models.JSONField(_("resultado corrigido"), null=True, blank=True, editable=False)
    # flagged for a stream table: the queue calls it only there, and a stream table takes only
    # flagged matches (tournament.tables); from the file (stream_rounds, stream_matches), then
    # the desk's ``stream`` action
    stream = models.BooleanField(_("transmissão"), default=False)

    class Meta:
        verbose_name = _("jogo da competição")
        verbose_name_plural = _("jogos da competição")
        ordering = ["competition", "number"]
        constraints = [models.UniqueConstraint(fields=["competition", "number"], name="fixture_number_unique")]

    def __str__(self) -> str:
        return f"{self.competition} J{self.number}"

    @property
    def deadline(self):
        """When the W.O. tolerance of a called match runs out (the competition's
        ``wo_tolerance_minutes`` after the call), or None when not called. At zero the desk is
        prompted; a W.O. is never automatic."""
        from datetime import timedelta

        if self.called_at is None:
            return None
        return self.called_at + timedelta(minutes=self.competition.spec.get("wo_tolerance_minutes", 10))


def _positive_weight(value) -> None:
    """A season etapa's weight multiplies its ranking points: it must be > 0."""
    from django.core.exceptions import ValidationError

    if value is None or value <= 0:
        raise ValidationError("O peso deve ser maior que zero / The weight must be greater than zero",
                              code="invalid_weight")


class Season(models.Model):
    """A season (issue 17, item 7): competitions as its etapas, each with a weight; its ranking
    is recomputed by ``tournament.ranking.season_ranking`` from each finished competition's
    placings and points table (``core.seasons``), never stored."""

    name = NameField(_("nome"), max_length=120)
    created_at = models.DateTimeField(_("criada em"), auto_now_add=True)

    class Meta:
        verbose_name = _("temporada")
        verbose_name_plural = _("temporadas")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class SeasonEtapa(models.Model):
    """One etapa of a season: a competition and its weight (> 0; points × weight)."""

    season = models.ForeignKey(Season, models.CASCADE, related_name="etapas", verbose_name=_("temporada"))
    competition = models.ForeignKey(Competition, models.CASCADE, related_name="+",
                                    verbose_name=_("competição"))
    weight = models.FloatField(_("peso"), default=1, validators=[_positive_weight])

    class Meta:
        verbose_name = _("etapa")
        verbose_name_plural = _("etapas")
        ordering = ["season", "pk"]
        constraints = [models.UniqueConstraint(fields=["season", "competition"], name="season_etapa_unique")]

    def __str__(self) -> str:
        return f"{self.season} · {self.competition}"


class Role(models.Model):
    """A user's role on one object (``core.access`` decides with these rows; staff status alone
    grants nothing):

    - ``organiser`` of a competition: its desk, its exports, its corrections, its matches'
      start and referee link in the admin;
    - ``referee`` of a table (every match on it) or of one match: scoring there only;
    - ``streamer`` of a table: its overlay and stream graphics controls;
    - ``federation`` staff (on no object): a protest's overruling of a venue's result.

    Exactly one of ``competition``, ``table``, ``match`` is set, the one the kind takes
    (:data:`SCOPES`), none for ``federation``. Given and taken by ``core.access.grant``/``revoke`` (the admin and
    ``manage.py grant``), each audited in ``MatchRecord`` with who did it; ``granted_by`` is
    the admin user who gave it (None from the command line)."""

    ORGANISER, REFEREE, STREAMER, FEDERATION = "organiser", "referee", "streamer", "federation"
    KINDS = [(ORGANISER, _("organizador")), (REFEREE, _("árbitro")), (STREAMER, _("transmissão")),
             (FEDERATION, _("equipe da federação"))]
    SCOPES = {ORGANISER: ("competition",), REFEREE: ("table", "match"), STREAMER: ("table",), FEDERATION: ()}
    """The objects each kind is given on."""

    user = models.ForeignKey("auth.User", models.CASCADE, related_name="roles", verbose_name=_("usuário"))
    kind = models.CharField(_("papel"), max_length=20, choices=KINDS)
    competition = models.ForeignKey(Competition, models.CASCADE, null=True, blank=True, related_name="roles",
                                    verbose_name=_("competição"))
    table = models.ForeignKey(Table, models.CASCADE, null=True, blank=True, related_name="roles",
                              verbose_name=_("mesa"))
    match = models.ForeignKey(Match, models.CASCADE, null=True, blank=True, related_name="roles",
                              verbose_name=_("jogo"))
    granted_by = models.ForeignKey("auth.User", models.SET_NULL, null=True, blank=True, related_name="+",
                                   verbose_name=_("concedido por"), editable=False)
    granted_at = models.DateTimeField(_("concedido em"), auto_now_add=True)

    class Meta:
        verbose_name = _("papel")
        verbose_name_plural = _("papéis")
        ordering = ["user", "kind", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(kind="organiser", competition__isnull=False, table__isnull=True, match__isnull=True)
                           | models.Q(kind="referee", competition__isnull=True, table__isnull=False, match__isnull=True)
                           | models.Q(kind="referee", competition__isnull=True, table__isnull=True, match__isnull=False)
                           | models.Q(kind="streamer", competition__isnull=True, table__isnull=False, match__isnull=True)
                           | models.Q(kind="federation", competition__isnull=True, table__isnull=True, match__isnull=True)),
                name="role_has_its_scope"),
        ]

    @property
    def scope(self):
        """The object the role is given on (a Competition, Table or Match; None for federation staff)."""
        return self.competition or self.table or self.match

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.scope}" if self.scope is not None else str(self.get_kind_display())


class Webhook(models.Model):
    """A subscriber of the federation's news (``core.webhooks``): each delivery to ``url`` is a
    JSON body signed with HMAC-SHA256 under ``secret`` (``X-Sinuca-Signature: sha256=<hex>``),
    for the ``kinds`` it asked for (``result``, ``ranking``, ``match_started``; empty: all)."""

    name = models.CharField(_("nome"), max_length=80, unique=True)
    url = models.URLField(_("endereço"), max_length=500)
    secret = models.CharField(_("segredo"), max_length=128,
                              help_text=_("Chave da assinatura HMAC-SHA256 de cada entrega."))
    kinds = models.JSONField(_("tipos"), default=list, blank=True,
                             help_text=_('Lista de "result", "ranking", "match_started"; vazia: todos.'))
    active = models.BooleanField(_("ativo"), default=True)
    created_at = models.DateTimeField(_("criado em"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class WebhookDelivery(models.Model):
    """One message to one subscriber, in ``seq`` order (the row's id): stored before it is
    sent, retried with backoff until the subscriber answers 2xx, never stored twice for the same
    ``key`` (the idempotency key the subscriber also receives)."""

    webhook = models.ForeignKey(Webhook, models.CASCADE, related_name="deliveries", verbose_name=_("webhook"))
    key = models.CharField(_("chave de idempotência"), max_length=120)
    kind = models.CharField(_("tipo"), max_length=20)
    payload = models.JSONField(_("conteúdo"))
    created_at = models.DateTimeField(_("criada em"), auto_now_add=True)
    attempts = models.PositiveIntegerField(_("tentativas"), default=0)
    next_try_at = models.DateTimeField(_("próxima tentativa"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("entregue em"), null=True, blank=True)
    last_error = models.CharField(_("último erro"), max_length=300, blank=True)

    class Meta:
        verbose_name = _("entrega de webhook")
        verbose_name_plural = _("entregas de webhook")
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["webhook", "key"], name="one_delivery_per_key")]
        indexes = [models.Index(fields=["webhook", "delivered_at", "id"], name="webhook_pending")]

    def __str__(self) -> str:
        return f"{self.webhook} #{self.pk} {self.key}"


for _model in (Player, Club, Table, Sponsor, Match, Competition, Season):
    # every path that saves a name (the admin, commands, files, the desk) stores it clean
    models.signals.pre_save.connect(clean_instance, sender=_model, dispatch_uid=f"names:{_model.__name__}")


class Venue(models.Model):
    """A venue of this federation (a club's server): its name and the hash of its bearer token
    (``manage.py venuetoken``, shown once; SHA-256 like the referee tokens). A revoked venue's
    token is refused (401) and nothing it sends is stored."""

    name = models.CharField(_("nome"), max_length=60, unique=True)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    revoked = models.BooleanField(_("revogado"), default=False)
    created_at = models.DateTimeField(_("criado em"), auto_now_add=True)

    class Meta:
        verbose_name = _("clube (servidor)")
        verbose_name_plural = _("clubes (servidores)")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class OutboxRecord(models.Model):
    """What a venue still has to tell its federation (``core.federation``), written in the same
    transaction as what it records, so a record exists exactly when its fact was committed.
    ``key`` is the idempotency key (``"event:<match pk>:<seq>"``, ``"match:<pk>"``…), ``kind``
    one of ``match``, ``event``, ``walkover``, ``correction``, ``competition``; ``match_uid`` and
    ``seq`` order a match's records; ``delivered_at`` is set when the federation acknowledged it.
    Sent in ``id`` order; nothing at the venue reads it but the sender."""

    key = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=20)
    match_uid = models.CharField(max_length=40, null=True, blank=True)
    seq = models.PositiveIntegerField(null=True, blank=True)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.key


class PulledSeason(models.Model):
    """A season of the federation as a venue last pulled it (``manage.py federation pull``):
    its name and ranking rows ``[{"federation_id", "name", "club", "points", "position"}]``, best
    first, for seeding a draw (a competition file's ``"seed_by_federation_season": <id>``)."""

    federation_season_id = models.PositiveIntegerField(unique=True)
    name = models.CharField(_("nome"), max_length=120)
    ranking = models.JSONField(default=list)
    pulled_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["federation_season_id"]

    def __str__(self) -> str:
        return self.name
