"""`ask` routines are no longer looked up by their words (each new item is weighed against every one of them by
meaning), so the `word:` rows of the key index find nothing any more."""

from django.db import migrations


def drop_word_keys(apps, schema_editor):
    apps.get_model("routines", "RoutineKey").objects.filter(key__startswith="word:").delete()


class Migration(migrations.Migration):
    dependencies = [("routines", "0001_initial")]

    operations = [migrations.RunPython(drop_word_keys, migrations.RunPython.noop)]
