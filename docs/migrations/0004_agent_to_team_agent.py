import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """The Agent model moved to the team app with its table (`agents_agent`): only Django's idea of where the
    relation points changes; the column and its constraint stay as they are, so no row is touched."""

    dependencies = [
        ('docs', '0003_project_agent'),
        ('team', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='project',
                name='agent',
                field=models.OneToOneField(blank=True, help_text='The agent whose own project this is: its docs go here when no project is named.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='own_project', to='team.agent'),
            ),
        ]),
    ]
