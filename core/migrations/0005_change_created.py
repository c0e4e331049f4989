from django.db import migrations, models

# The tools whose "makes" change names the record it created. Everything else a "makes" change names (the contact a
# note went on, the company an item was opened on, a doc whose first draft was written) was there before.
_CREATING = (
    "contacts.create", "contacts.add_many", "companies.create", "companies.record", "projects.create",
    "files.copy", "files.folder", "files.create_doc", "files.create_sheet", "files.save", "files.save_attachment",
    "mail.draft", "calendar.hold", "integrations.connect", "make_agent", "triggers",
)


def mark_created(apps, schema_editor):
    Change = apps.get_model("roadstar", "Change")
    made = Change.objects.filter(kind="makes", tool__in=_CREATING, undoes__isnull=True).exclude(target_id="")
    made.update(created=True)
    # docs.write made a doc only when it wrote a new one; "the first draft of the doc" went into one that was there.
    Change.objects.filter(kind="makes", tool="docs.write", undoes__isnull=True, sentence__startswith="wrote the doc") \
        .update(created=True)


class Migration(migrations.Migration):

    dependencies = [
        ("roadstar", "0004_card_one_open_card_per_subject"),
    ]

    operations = [
        migrations.AddField(
            model_name="change",
            name="created",
            field=models.BooleanField(
                default=False, help_text="The target is a record this change created, not one that was there before."
            ),
        ),
        migrations.RunPython(mark_created, migrations.RunPython.noop),
    ]
