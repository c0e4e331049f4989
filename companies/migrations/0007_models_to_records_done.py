from django.db import migrations


class Migration(migrations.Migration):
    """The companies' models moved to the records app with their tables: this app forgets them, in Django's state
    only, once nothing in the state points at them."""

    dependencies = [
        ('companies', '0006_models_to_records'),
        ('contacts', '0004_models_to_records_done'),
        ('research', '0004_records_relations'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.DeleteModel(
                name='Company',
            ),
            migrations.DeleteModel(
                name='TimelineEntry',
            ),
        ]),
    ]
