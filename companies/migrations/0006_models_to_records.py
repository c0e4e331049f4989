from django.db import migrations


class Migration(migrations.Migration):
    """The companies' models moved to the records app with their tables (records/migrations/0001): here the
    relations, indexes and constraints leave this app's models, in Django's state only; the tables, rows, indexes
    and constraints stay as they are."""

    dependencies = [
        ('records', '0001_initial'),
        ('companies', '0005_handler_to_team_agent'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveIndex(
                model_name='company',
                name='company_org_name_idx',
            ),
            migrations.RemoveConstraint(
                model_name='companyperson',
                name='company_person_unique',
            ),
            migrations.RemoveIndex(
                model_name='timelineentry',
                name='timeline_company_at_idx',
            ),
            migrations.RemoveField(
                model_name='company',
                name='handler',
            ),
            migrations.RemoveField(
                model_name='company',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='timelineentry',
                name='company',
            ),
            migrations.RemoveField(
                model_name='timelineentry',
                name='organization',
            ),
            migrations.DeleteModel(
                name='CompanyPerson',
            ),
        ]),
    ]
