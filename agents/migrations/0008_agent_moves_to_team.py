import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """The Agent model moved to the team app with its table (`agents_agent`, team/migrations/0001): the relations
    to it point there, and agents forgets the model, in Django's state only; the table, its rows and its
    constraints stay as they are."""

    dependencies = [
        ('agents', '0007_tool_call_started_at'),
        # Every relation to the Agent points at team's first, so the state never holds one to a deleted model.
        ('companies', '0005_handler_to_team_agent'),
        ('docs', '0004_agent_to_team_agent'),
        ('mcp_server', '0002_agent_to_team_agent'),
        ('routines', '0003_agent_to_team_agent'),
        ('team', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='run',
                name='agent',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='team.agent'),
            ),
            migrations.AlterField(
                model_name='usage',
                name='agent',
                field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='usage', to='team.agent'),
            ),
            migrations.AlterField(
                model_name='conversation',
                name='agent',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='conversations', to='team.agent'),
            ),
            migrations.AlterField(
                model_name='work',
                name='requested_by',
                field=models.ForeignKey(blank=True, help_text='The agent that asked; none when the owner or a routine did.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='team.agent'),
            ),
            migrations.AlterField(
                model_name='work',
                name='agent',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='work', to='team.agent'),
            ),
            migrations.DeleteModel(
                name='Agent',
            ),
        ]),
    ]
