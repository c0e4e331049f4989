from django.db import migrations


class Migration(migrations.Migration):
    """The contacts' models moved to the records app with their tables (records/migrations/0001): here the
    relations, indexes and constraints leave this app's models, in Django's state only; the tables, rows, indexes
    and constraints stay as they are."""

    dependencies = [
        ('records', '0001_initial'),
        ('contacts', '0002_openitem_woken_at'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveIndex(
                model_name='contact',
                name='contact_org_name_idx',
            ),
            migrations.RemoveConstraint(
                model_name='contactemail',
                name='contact_email_unique_per_org',
            ),
            migrations.RemoveConstraint(
                model_name='logentry',
                name='log_entry_on_one_record',
            ),
            migrations.RemoveIndex(
                model_name='openitem',
                name='open_item_kind_idx',
            ),
            migrations.RemoveConstraint(
                model_name='openitem',
                name='open_item_on_one_record',
            ),
            migrations.RemoveField(
                model_name='contact',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='logentry',
                name='change',
            ),
            migrations.RemoveField(
                model_name='logentry',
                name='company',
            ),
            migrations.RemoveField(
                model_name='logentry',
                name='contact',
            ),
            migrations.RemoveField(
                model_name='logentry',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='openitem',
                name='company',
            ),
            migrations.RemoveField(
                model_name='openitem',
                name='contact',
            ),
            migrations.RemoveField(
                model_name='openitem',
                name='organization',
            ),
            migrations.DeleteModel(
                name='ContactEmail',
            ),
            migrations.DeleteModel(
                name='LogEntry',
            ),
        ]),
    ]
