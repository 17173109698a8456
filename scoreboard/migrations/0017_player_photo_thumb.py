from django.db import migrations, models


def thumbnails(apps, schema_editor):
    """A thumbnail for every photo already stored (a photo whose file is missing keeps none: the
    screens then show the photo's URL as before)."""
    from django.core.files.base import ContentFile

    from scoreboard.core.models import photo_thumbnail, thumbnail_name

    Player = apps.get_model("scoreboard", "Player")
    for p in Player.objects.exclude(photo="").filter(photo_thumb=""):
        try:
            with p.photo.open("rb") as f:
                data = photo_thumbnail(f.read())
        except Exception:  # noqa: BLE001 - a missing or unreadable file: no thumbnail
            continue
        p.photo_thumb.save(thumbnail_name(p.photo.name), ContentFile(data), save=False)
        Player.objects.filter(pk=p.pk).update(photo_thumb=p.photo_thumb.name)


class Migration(migrations.Migration):

    dependencies = [
        ('scoreboard', '0016_table_overlay_switches'),
    ]

    operations = [
        migrations.AddField(
            model_name='player',
            name='photo_thumb',
            field=models.ImageField(blank=True, editable=False, upload_to='players/'),
        ),
        migrations.RunPython(thumbnails, migrations.RunPython.noop),
    ]
