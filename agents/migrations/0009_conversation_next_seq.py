from django.db import migrations, models
from django.db.models import Max, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce


def count_from_messages(apps, schema_editor):
    """Each conversation's counter starts after its last message."""
    Conversation = apps.get_model("agents", "Conversation")
    Message = apps.get_model("agents", "Message")
    last = (Message.objects.filter(conversation=OuterRef("pk")).values("conversation")
            .annotate(last=Max("seq")).values("last"))
    Conversation.objects.update(next_seq=Coalesce(Subquery(last) + 1, Value(0)))


class Migration(migrations.Migration):

    dependencies = [
        ('agents', '0008_agent_moves_to_team'),
    ]

    operations = [
        migrations.AddField(
            model_name='conversation',
            name='next_seq',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(count_from_messages, migrations.RunPython.noop),
    ]
