import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """The Agent model moved to the team app with its table (`agents_agent`): only Django's idea of where the
    relation points changes; the column and its constraint stay as they are, so no row is touched."""

    dependencies = [
        ('routines', '0002_drop_ask_word_keys'),
        ('team', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='routine',
                name='agent',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='routines', to='team.agent'),
            ),
            migrations.AlterField(
                model_name='skill',
                name='agent',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='skills', to='team.agent'),
            ),
        ]),
    ]
