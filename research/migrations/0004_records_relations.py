import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """The records' models moved to the records app with their tables: the relations to a company and a project
    point there, in Django's state only; the columns (and Dataset's table of projects) and their constraints stay
    as they are, so no row is touched."""

    dependencies = [
        ('records', '0001_initial'),
        ('research', '0003_research_pages'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='companylisting',
                name='company',
                field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='listing', to='records.company'),
            ),
            migrations.AlterField(
                model_name='feed',
                name='project',
                field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='records.project'),
            ),
            migrations.AlterField(
                model_name='researchpage',
                name='project',
                field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='research_pages', to='records.project'),
            ),
            migrations.AlterField(
                model_name='dataset',
                name='projects',
                field=models.ManyToManyField(blank=True, related_name='datasets', to='records.project'),
            ),
        ]),
    ]
