from django.db import migrations


class Migration(migrations.Migration):
    """The contacts' models moved to the records app with their tables: this app forgets them, in Django's state
    only, once nothing in the state points at them."""

    dependencies = [
        ('companies', '0006_models_to_records'),
        ('contacts', '0003_models_to_records'),
        ('docs', '0005_models_to_records'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.DeleteModel(
                name='Contact',
            ),
            migrations.DeleteModel(
                name='OpenItem',
            ),
        ]),
    ]
