import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """The Agent model moved to the team app with its table (`agents_agent`): only Django's idea of where the
    relation points changes; the column and its constraint stay as they are, so no row is touched."""

    dependencies = [
        ('mcp_server', '0001_initial'),
        ('team', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='mcptoken',
                name='agent',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='mcp_tokens', to='team.agent'),
            ),
        ]),
    ]
