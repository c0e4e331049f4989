import django.db.models.deletion
import django.db.models.functions.text
import uuid
from django.db import migrations, models


def content_type_to_team(apps, schema_editor):
    _move_content_type(apps, "agents", "team")


def content_type_to_agents(apps, schema_editor):
    _move_content_type(apps, "team", "agents")


def _move_content_type(apps, old_label, new_label):
    ContentType = apps.get_model("contenttypes", "ContentType")
    # A fresh database has none yet (they are made after migrating); one made for the new label already wins.
    if not ContentType.objects.filter(app_label=new_label, model="agent").exists():
        ContentType.objects.filter(app_label=old_label, model="agent").update(app_label=new_label)


class Migration(migrations.Migration):
    """The Agent model, moved here from the agents app with its table: Django learns the model lives here (state
    only: `agents_agent` and its rows stay as they are), and its content type follows it, so the admin's history
    and any permission given on agents keep pointing at it."""

    initial = True

    dependencies = [
        ('roadstar', '0007_change_home_order_idx'),
        # The table is the one agents made and kept until here.
        ('agents', '0007_tool_call_started_at'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Agent',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('name', models.CharField(max_length=80)),
                    ('is_roadstar', models.BooleanField(default=False, help_text="The owner's chief of staff; never removable.")),
                    ('job', models.CharField(blank=True, max_length=300)),
                    ('owns', models.TextField(blank=True)),
                    ('good', models.TextField(blank=True)),
                    ('works', models.TextField(blank=True)),
                    ('asks_first', models.TextField(blank=True)),
                    ('model', models.CharField(choices=[('gpt-6-luna', 'GPT-6 Luna'), ('gpt-6.1-terra', 'GPT-6.1 Terra'), ('gpt-6.1-sol', 'GPT-6.1 Sol'), ('gpt-6-astra', 'GPT-6 Astra')], default='gpt-6.1-terra', max_length=20)),
                    ('thinking', models.CharField(choices=[('low', 'low'), ('medium', 'medium'), ('high', 'high')], default='medium', max_length=10)),
                    ('department', models.CharField(blank=True, max_length=80)),
                    ('monthly_budget', models.DecimalField(blank=True, decimal_places=2, max_digits=10, null=True)),
                    ('notes', models.JSONField(blank=True, default=list)),
                    ('paused', models.BooleanField(default=False)),
                    ('runs_on', models.CharField(choices=[('roadstar', 'Roadstar'), ('mac', "the owner's Mac")], default='roadstar', max_length=10)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('updated_at', models.DateTimeField(auto_now=True)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='agents', to='roadstar.organization')),
                    ('reports_to', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reports', to='team.agent')),
                ],
                options={
                    'db_table': 'agents_agent',
                    'ordering': ['-is_roadstar', 'name'],
                    'constraints': [models.UniqueConstraint(models.F('organization'), django.db.models.functions.text.Lower('name'), name='agent_name_unique_per_org'), models.UniqueConstraint(condition=models.Q(('is_roadstar', True)), fields=('organization',), name='one_roadstar_per_org')],
                },
            ),
        ]),
        migrations.RunPython(content_type_to_team, content_type_to_agents),
    ]
