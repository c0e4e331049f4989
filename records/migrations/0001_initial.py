import django.db.models.deletion
import django.db.models.functions.text
import uuid
from django.conf import settings
from django.db import migrations, models


# Each moved model's app before the move; their names are unique among the three.
MOVED = {
    "contacts": ["contact", "contactemail", "openitem", "logentry"],
    "companies": ["company", "companyperson", "timelineentry"],
    "docs": ["project", "projectlink", "doc", "docversion", "docnote"],
}


def content_types_to_records(apps, schema_editor):
    for old_label, names in MOVED.items():
        _move_content_types(apps, old_label, "records", names)


def content_types_back(apps, schema_editor):
    for old_label, names in MOVED.items():
        _move_content_types(apps, "records", old_label, names)


def _move_content_types(apps, old_label, new_label, names):
    ContentType = apps.get_model("contenttypes", "ContentType")
    # A fresh database has none yet (they are made after migrating); one made for the new label already wins.
    for name in names:
        if not ContentType.objects.filter(app_label=new_label, model=name).exists():
            ContentType.objects.filter(app_label=old_label, model=name).update(app_label=new_label)


class Migration(migrations.Migration):
    """The records' models (contacts, companies, projects, docs and their links) moved here from contacts,
    companies and docs with their tables: Django learns the models live here (state only: each table keeps its
    name, rows, indexes and constraints), and their content types follow them, so the admin's history and any
    permission given on them keep pointing at them."""

    initial = True

    dependencies = [
        # The tables are the ones those apps made and kept until here.
        ('contacts', '0002_openitem_woken_at'),
        ('companies', '0005_handler_to_team_agent'),
        ('docs', '0004_agent_to_team_agent'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('roadstar', '0007_change_home_order_idx'),
        ('team', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Company',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('name', models.CharField(max_length=200)),
                    ('website', models.CharField(blank=True, max_length=300, null=True)),
                    ('domains', models.JSONField(blank=True, default=list)),
                    ('labels', models.JSONField(blank=True, default=list)),
                    ('details', models.JSONField(blank=True, default=dict, help_text='Named facts such as Terms: net 30.')),
                    ('context', models.TextField(blank=True, null=True)),
                    ('context_by', models.JSONField(blank=True, null=True)),
                    ('context_at', models.DateTimeField(blank=True, null=True)),
                    ('about', models.JSONField(blank=True, help_text='CompanyAbout: text, facts, lately, sources, by, at.', null=True)),
                    ('first_on_mail', models.BooleanField(default=False)),
                    ('always_ask', models.BooleanField(default=False)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('updated_at', models.DateTimeField(auto_now=True)),
                    ('handler', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='handled_companies', to='team.agent')),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='companies', to='roadstar.organization')),
                ],
                options={
                    'verbose_name_plural': 'companies',
                    'db_table': 'companies_company',
                    'ordering': ['name'],
                },
            ),
            migrations.CreateModel(
                name='Contact',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('name', models.CharField(max_length=200)),
                    ('phone', models.CharField(blank=True, max_length=80, null=True)),
                    ('job_title', models.CharField(blank=True, max_length=200, null=True)),
                    ('labels', models.JSONField(blank=True, default=list)),
                    ('context', models.TextField(blank=True, null=True)),
                    ('fields', models.JSONField(blank=True, default=dict)),
                    ('status', models.CharField(choices=[('active', 'Active'), ('suggested', 'Suggested'), ('ignored', 'Ignored')], default='active', max_length=10)),
                    ('last', models.JSONField(blank=True, default=dict, help_text='ContactLast: the latest contact with them.')),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('updated_at', models.DateTimeField(auto_now=True)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='contacts', to='roadstar.organization')),
                ],
                options={
                    'db_table': 'contacts_contact',
                    'ordering': ['name'],
                },
            ),
            migrations.CreateModel(
                name='CompanyPerson',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('role', models.CharField(blank=True, max_length=200, null=True)),
                    ('since', models.DateField(blank=True, null=True)),
                    ('ended', models.DateField(blank=True, null=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('company', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='people', to='records.company')),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='roadstar.organization')),
                    ('contact', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='company_links', to='records.contact')),
                ],
                options={
                    'verbose_name_plural': 'company people',
                    'db_table': 'companies_companyperson',
                    'ordering': ['created_at', 'id'],
                },
            ),
            migrations.CreateModel(
                name='ContactEmail',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('email', models.CharField(max_length=254)),
                    ('position', models.PositiveSmallIntegerField(default=0)),
                    ('contact', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='emails', to='records.contact')),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='roadstar.organization')),
                ],
                options={
                    'db_table': 'contacts_contactemail',
                    'ordering': ['position', 'id'],
                },
            ),
            migrations.CreateModel(
                name='Doc',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('title', models.CharField(max_length=300)),
                    ('type', models.CharField(default='doc', max_length=10)),
                    ('status', models.CharField(choices=[('draft', 'Draft'), ('published', 'Published'), ('archived', 'Archived')], default='draft', max_length=10)),
                    ('brief', models.TextField(blank=True, help_text='What the owner asked for, when it was asked for.', null=True)),
                    ('read_first', models.JSONField(blank=True, default=list)),
                    ('updates', models.CharField(choices=[('once', 'Once'), ('weekly', 'Weekly'), ('monthly', 'Monthly'), ('quarterly', 'Quarterly')], default='once', max_length=10)),
                    ('text', models.TextField(blank=True, null=True)),
                    ('version', models.PositiveIntegerField(default=0)),
                    ('created_by', models.JSONField(default=dict)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('updated_at', models.DateTimeField(auto_now=True)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='docs', to='roadstar.organization')),
                ],
                options={
                    'db_table': 'docs_doc',
                    'ordering': ['-updated_at'],
                },
            ),
            migrations.CreateModel(
                name='DocNote',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('on', models.TextField(blank=True, help_text='The words of the doc the note is on.')),
                    ('note', models.TextField(blank=True, null=True)),
                    ('by', models.JSONField(default=dict)),
                    ('state', models.CharField(choices=[('open', 'Open'), ('changed', 'Changed'), ('kept', 'Kept'), ('done', 'Done')], default='open', max_length=10)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('doc', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notes', to='records.doc')),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='roadstar.organization')),
                    ('parent', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='answers', to='records.docnote')),
                ],
                options={
                    'db_table': 'docs_docnote',
                    'ordering': ['created_at'],
                },
            ),
            migrations.CreateModel(
                name='DocVersion',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('number', models.PositiveIntegerField()),
                    ('title', models.CharField(max_length=300)),
                    ('text', models.TextField()),
                    ('lines', models.JSONField(blank=True, default=list, help_text='What changed, a plain sentence each.')),
                    ('by', models.JSONField(default=dict)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('doc', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='versions', to='records.doc')),
                ],
                options={
                    'db_table': 'docs_docversion',
                    'ordering': ['doc', 'number'],
                },
            ),
            migrations.CreateModel(
                name='LogEntry',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('at', models.DateTimeField(auto_now_add=True, db_index=True)),
                    ('by_kind', models.CharField(max_length=10)),
                    ('by_id', models.CharField(max_length=64)),
                    ('kind', models.CharField(choices=[('removed', 'Removed'), ('note', 'Note'), ('ask', 'Ask'), ('context', 'Context'), ('labels', 'Labels'), ('created', 'Created'), ('sent', 'Sent'), ('drafted', 'Drafted'), ('triage', 'Triage'), ('looked', 'Looked'), ('merged', 'Merged'), ('restored', 'Restored'), ('updated', 'Updated'), ('follow_up', 'Follow Up'), ('linked', 'Linked'), ('about', 'About'), ('opened', 'Opened'), ('closed', 'Closed'), ('recorded', 'Recorded'), ('unrecorded', 'Unrecorded')], max_length=12)),
                    ('text', models.TextField(blank=True)),
                    ('before', models.JSONField(blank=True, null=True)),
                    ('after', models.JSONField(blank=True, null=True)),
                    ('why', models.TextField(blank=True)),
                    ('extra', models.JSONField(blank=True, default=dict)),
                    ('change', models.ForeignKey(blank=True, help_text='The change this entry records, for Undo from the record.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='roadstar.change')),
                    ('company', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='log', to='records.company')),
                    ('contact', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='log', to='records.contact')),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='roadstar.organization')),
                ],
                options={
                    'verbose_name_plural': 'log entries',
                    'db_table': 'contacts_logentry',
                    'ordering': ['-at'],
                },
            ),
            migrations.CreateModel(
                name='OpenItem',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('kind', models.CharField(choices=[('you', 'You'), ('them', 'Them'), ('follow_up', 'Follow Up')], max_length=10)),
                    ('text', models.TextField()),
                    ('at', models.DateTimeField()),
                    ('thread', models.CharField(blank=True, help_text='The conversation it was set from.', max_length=64)),
                    ('link', models.CharField(blank=True, max_length=500)),
                    ('by_kind', models.CharField(max_length=10)),
                    ('by_id', models.CharField(max_length=64)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('closed_at', models.DateTimeField(blank=True, null=True)),
                    ('woken_at', models.DateTimeField(blank=True, null=True)),
                    ('company', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='open_items', to='records.company')),
                    ('contact', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='open_items', to='records.contact')),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='roadstar.organization')),
                ],
                options={
                    'db_table': 'contacts_openitem',
                    'ordering': ['at', 'created_at'],
                },
            ),
            migrations.CreateModel(
                name='Project',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('name', models.CharField(max_length=120)),
                    ('description', models.TextField(blank=True, default='')),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('updated_at', models.DateTimeField(auto_now=True)),
                    ('agent', models.OneToOneField(blank=True, help_text='The agent whose own project this is: its docs go here when no project is named.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='own_project', to='team.agent')),
                    ('created_by_user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='projects', to='roadstar.organization')),
                    ('updated_by_user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'docs_project',
                    'ordering': ['-updated_at'],
                },
            ),
            migrations.AddField(
                model_name='doc',
                name='project',
                field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='docs', to='records.project'),
            ),
            migrations.CreateModel(
                name='ProjectLink',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('contact', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='project_links', to='records.contact')),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='roadstar.organization')),
                    ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='links', to='records.project')),
                ],
                options={
                    'db_table': 'docs_projectlink',
                },
            ),
            migrations.CreateModel(
                name='TimelineEntry',
                fields=[
                    ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                    ('kind', models.CharField(choices=[('note', 'Note'), ('mail', 'Mail'), ('invoice', 'Invoice'), ('meeting', 'Meeting'), ('call', 'Call')], max_length=10)),
                    ('title', models.CharField(max_length=200)),
                    ('at', models.DateTimeField()),
                    ('summary', models.TextField(blank=True)),
                    ('people', models.JSONField(blank=True, default=list)),
                    ('ours', models.JSONField(blank=True, default=list)),
                    ('by', models.JSONField(default=dict)),
                    ('count', models.PositiveIntegerField(blank=True, null=True)),
                    ('minutes', models.PositiveIntegerField(blank=True, null=True)),
                    ('link', models.CharField(blank=True, max_length=2000)),
                    ('thread', models.CharField(blank=True, max_length=300)),
                    ('files', models.JSONField(blank=True, default=list)),
                    ('state', models.CharField(blank=True, max_length=15, null=True)),
                    ('removed_at', models.DateTimeField(blank=True, null=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('updated_at', models.DateTimeField(auto_now=True)),
                    ('company', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='timeline', to='records.company')),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='roadstar.organization')),
                ],
                options={
                    'verbose_name_plural': 'timeline entries',
                    'db_table': 'companies_timelineentry',
                    'ordering': ['-at', '-created_at'],
                },
            ),
            migrations.AddIndex(
                model_name='company',
                index=models.Index(fields=['organization', 'name'], name='company_org_name_idx'),
            ),
            migrations.AddIndex(
                model_name='contact',
                index=models.Index(fields=['organization', 'name'], name='contact_org_name_idx'),
            ),
            migrations.AddConstraint(
                model_name='companyperson',
                constraint=models.UniqueConstraint(fields=('company', 'contact'), name='company_person_unique'),
            ),
            migrations.AddConstraint(
                model_name='contactemail',
                constraint=models.UniqueConstraint(models.F('organization'), django.db.models.functions.text.Lower('email'), name='contact_email_unique_per_org'),
            ),
            migrations.AddIndex(
                model_name='docnote',
                index=models.Index(fields=['doc', 'state'], name='doc_note_state_idx'),
            ),
            migrations.AddConstraint(
                model_name='docversion',
                constraint=models.UniqueConstraint(fields=('doc', 'number'), name='doc_version_unique'),
            ),
            migrations.AddConstraint(
                model_name='logentry',
                constraint=models.CheckConstraint(condition=models.Q(models.Q(('company__isnull', True), ('contact__isnull', False)), models.Q(('company__isnull', False), ('contact__isnull', True)), _connector='OR'), name='log_entry_on_one_record'),
            ),
            migrations.AddIndex(
                model_name='openitem',
                index=models.Index(fields=['organization', 'kind', 'closed_at'], name='open_item_kind_idx'),
            ),
            migrations.AddConstraint(
                model_name='openitem',
                constraint=models.CheckConstraint(condition=models.Q(models.Q(('company__isnull', True), ('contact__isnull', False)), models.Q(('company__isnull', False), ('contact__isnull', True)), _connector='OR'), name='open_item_on_one_record'),
            ),
            migrations.AddIndex(
                model_name='project',
                index=models.Index(fields=['organization', '-updated_at'], name='project_org_updated_idx'),
            ),
            migrations.AddIndex(
                model_name='doc',
                index=models.Index(fields=['organization', '-updated_at'], name='doc_org_updated_idx'),
            ),
            migrations.AddConstraint(
                model_name='projectlink',
                constraint=models.UniqueConstraint(fields=('project', 'contact'), name='project_link_unique'),
            ),
            migrations.AddIndex(
                model_name='timelineentry',
                index=models.Index(fields=['company', 'removed_at', '-at'], name='timeline_company_at_idx'),
            ),
        ]),
        migrations.RunPython(content_types_to_records, content_types_back),
    ]
