from django.db import migrations, models


def from_latest_switched_match(apps, schema_editor):
    """Each table takes the switches of its latest switched match (what ``Match.save`` used to
    copy to a new match on the table), so nothing a streamer set is lost."""
    Table = apps.get_model("scoreboard", "Table")
    Match = apps.get_model("scoreboard", "Match")
    for table in Table.objects.all():
        prev = (Match.objects.filter(table_id=table.pk, overlay_ver__gt=0).order_by("-pk")
                .values("overlay_bar", "overlay_stats").first())
        if prev:
            Table.objects.filter(pk=table.pk).update(overlay_bar=prev["overlay_bar"], overlay_stats=prev["overlay_stats"])


class Migration(migrations.Migration):

    dependencies = [
        ('scoreboard', '0015_match_correction'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='overlay_bar',
            field=models.BooleanField(default=True, editable=False, verbose_name='overlay: placar visível'),
        ),
        migrations.AddField(
            model_name='table',
            name='overlay_stats',
            field=models.BooleanField(default=False, editable=False, verbose_name='overlay: estatísticas visíveis'),
        ),
        migrations.RunPython(from_latest_switched_match, migrations.RunPython.noop),
    ]
