from django.conf import settings
from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):

    dependencies = [
        ('scoreboard', '0018_merge_stream_flags_and_table_switches'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='matchrecord',
            name='kind',
            field=models.CharField(choices=[('start', 'início do jogo'), ('call', 'chamada para a mesa'), ('move', 'mudança de mesa'), ('walkover', 'W.O.'), ('token', 'token do árbitro'), ('postpone', 'adiamento'), ('correction', 'correção do resultado'), ('withdrawal', 'desistência do jogador'), ('rename', 'mudança de nome'), ('stream', 'marcação para transmissão'), ('redraw', 'novo sorteio'), ('lineup', 'escalação'), ('desk_token', 'token da mesa de controle'), ('grant', 'papel concedido'), ('revoke', 'papel retirado')], max_length=20, verbose_name='tipo'),
        ),
        migrations.CreateModel(
            name='Role',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('organiser', 'organizador'), ('referee', 'árbitro'), ('streamer', 'transmissão')], max_length=20, verbose_name='papel')),
                ('granted_at', models.DateTimeField(auto_now_add=True, verbose_name='concedido em')),
                ('competition', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='roles', to='scoreboard.competition', verbose_name='competição')),
                ('granted_by', models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='concedido por')),
                ('match', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='roles', to='scoreboard.match', verbose_name='jogo')),
                ('table', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='roles', to='scoreboard.table', verbose_name='mesa')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='roles', to=settings.AUTH_USER_MODEL, verbose_name='usuário')),
            ],
            options={
                'verbose_name': 'papel',
                'verbose_name_plural': 'papéis',
                'ordering': ['user', 'kind', 'pk'],
                'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('competition__isnull', False), ('kind', 'organiser'), ('match__isnull', True), ('table__isnull', True)), models.Q(('competition__isnull', True), ('kind', 'referee'), ('match__isnull', True), ('table__isnull', False)), models.Q(('competition__isnull', True), ('kind', 'referee'), ('match__isnull', False), ('table__isnull', True)), models.Q(('competition__isnull', True), ('kind', 'streamer'), ('match__isnull', True), ('table__isnull', False)), _connector='OR'), name='role_has_its_scope')],
            },
        ),
    ]
