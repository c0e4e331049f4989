from django.db import migrations


class Migration(migrations.Migration):
    """The projects' and docs' models moved to the records app with their tables (records/migrations/0001): here the
    relations, indexes and constraints leave this app's models, in Django's state only; the tables, rows, indexes
    and constraints stay as they are."""

    dependencies = [
        ('records', '0001_initial'),
        ('docs', '0004_agent_to_team_agent'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveIndex(
                model_name='doc',
                name='doc_org_updated_idx',
            ),
            migrations.RemoveIndex(
                model_name='docnote',
                name='doc_note_state_idx',
            ),
            migrations.RemoveConstraint(
                model_name='docversion',
                name='doc_version_unique',
            ),
            migrations.RemoveIndex(
                model_name='project',
                name='project_org_updated_idx',
            ),
            migrations.RemoveConstraint(
                model_name='projectlink',
                name='project_link_unique',
            ),
            migrations.RemoveField(
                model_name='doc',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='doc',
                name='project',
            ),
            migrations.RemoveField(
                model_name='docversion',
                name='doc',
            ),
            migrations.RemoveField(
                model_name='project',
                name='agent',
            ),
            migrations.RemoveField(
                model_name='project',
                name='created_by_user',
            ),
            migrations.RemoveField(
                model_name='project',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='project',
                name='updated_by_user',
            ),
            migrations.RemoveField(
                model_name='projectlink',
                name='contact',
            ),
            migrations.RemoveField(
                model_name='projectlink',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='projectlink',
                name='project',
            ),
            migrations.DeleteModel(
                name='DocNote',
            ),
            migrations.DeleteModel(
                name='Doc',
            ),
            migrations.DeleteModel(
                name='DocVersion',
            ),
        ]),
    ]
