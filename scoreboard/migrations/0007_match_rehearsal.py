from django.db import migrations, models


class Migration(migrations.Migration):
    """A match replayed by ``replaymatch`` is marked as a rehearsal."""

    dependencies = [
        ('scoreboard', '0006_player_profile'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='rehearsal',
            field=models.BooleanField(default=False, editable=False, verbose_name='ensaio'),
        ),
    ]
