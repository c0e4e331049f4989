import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """The Agent model moved to the team app with its table (`agents_agent`): only Django's idea of where the
    relation points changes; the column and its constraint stay as they are, so no row is touched."""

    dependencies = [
        ('companies', '0004_plural_names'),
        ('team', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='company',
                name='handler',
                field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='handled_companies', to='team.agent'),
            ),
        ]),
    ]
