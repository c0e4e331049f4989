from django.db import migrations


class Migration(migrations.Migration):
    """The projects' and docs' models moved to the records app with their tables: this app forgets them, in Django's state
    only, once nothing in the state points at them."""

    dependencies = [
        ('docs', '0005_models_to_records'),
        ('research', '0004_records_relations'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.DeleteModel(
                name='Project',
            ),
            migrations.DeleteModel(
                name='ProjectLink',
            ),
        ]),
    ]
