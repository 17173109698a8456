from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scoreboard', '0020_table_out_of_service'),
    ]

    operations = [
        migrations.AddField(
            model_name='competition',
            name='due_at',
            field=models.DateTimeField(blank=True, db_index=True, editable=False, null=True),
        ),
    ]
