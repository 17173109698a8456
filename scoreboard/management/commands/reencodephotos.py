"""``manage.py reencodephotos``: re-encode the players' photos and the sponsors' images stored
before uploads were re-encoded, as an upload is now (``core.models.reencode_photo``)."""
from __future__ import annotations

import io

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.management.base import BaseCommand
from django.db.models.fields.files import ImageFieldFile

from scoreboard.core.models import Player, Sponsor, photo_is_clean, reencode_photo


class Command(BaseCommand):
    """Each stored photo and sponsor image that is not already clean (``photo_is_clean``: EXIF
    with its GPS position, ICC, XMP, text chunks, bytes after the image, an extension that is
    not its format's) is written again with only its pixels, under its format's extension, and
    the old file is deleted. A clean file is left as it is, so running it twice changes nothing
    the second time (a JPEG is not compressed again). A file that is not a photo (not JPEG,
    PNG or WebP, or too large) or is missing is named and left alone. ``--dry-run`` only says
    what it would do."""

    help = ("Regrava fotos e imagens de patrocinadores gravadas antes da limpeza no envio (EXIF/GPS, "
            "bytes extras) / Re-encode photos and sponsor images stored before uploads were cleaned")

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="só diz o que faria / only say what it would do")

    def handle(self, *args, **opts):
        dry = opts["dry_run"]
        counts = {"reencoded": 0, "clean": 0, "refused": 0, "missing": 0}
        for model, field in ((Player, "photo"), (Sponsor, "image")):
            for obj in model.objects.exclude(**{field: ""}).order_by("pk"):
                counts[self._one(obj, field, dry)] += 1
        verb = "a regravar / to re-encode" if dry else "regravadas / re-encoded"
        self.stdout.write(f"{counts['reencoded']} {verb}, {counts['clean']} já limpas / already clean, "
                          f"{counts['refused']} recusadas / refused, {counts['missing']} ausentes / missing")

    def _one(self, obj, field: str, dry: bool) -> str:
        f = getattr(obj, field)
        label = f"{obj._meta.model_name} {obj.pk} ({f.name})"
        try:
            with f.storage.open(f.name, "rb") as fh:
                data = fh.read()
        except (FileNotFoundError, OSError):
            self.stderr.write(f"{label}: arquivo ausente / file missing")
            return "missing"
        if photo_is_clean(f.name, data):
            return "clean"
        try:
            name, clean = reencode_photo(f.name, io.BytesIO(data))
        except ValidationError as e:
            self.stderr.write(f"{label}: {' '.join(str(m) for m in e.messages)}")
            return "refused"
        if dry:
            self.stdout.write(f"{label}: seria regravada como / would be re-encoded as {name}")
            return "reencoded"
        old = f.name
        # the bytes are re-encoded already: stored as they are, not through PhotoFieldFile.save
        ImageFieldFile.save(f, name, ContentFile(clean, name=name), save=False)
        type(obj).objects.filter(pk=obj.pk).update(**{field: f.name})
        if f.name != old:
            f.storage.delete(old)
        self.stdout.write(f"{label}: regravada / re-encoded -> {f.name}")
        return "reencoded"
