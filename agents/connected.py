"""Tell the conversations that asked for an app when the owner connects it (integrations.signals.connected).

Spec (how-it-works/home-and-asks.md): "When the owner connects it, a note tells you; then try again." The connect
and reconnect cards record every conversation that asked (`data["askers"]`); integrations sends `connected` after
the connection's transaction commits, with the cards it resolved. This lives in agents because integrations sits
below agents and may not know about conversations. AgentsConfig.ready() connects the receiver.
"""


from django.db import transaction
from django.dispatch import receiver

from agents import services
from agents.models import Conversation, Message
from agents.runtime.scheduler import wake
from core.inputs import as_uuid
from integrations import catalog
from integrations.signals import connected


@receiver(connected, dispatch_uid="agents.connected.tell_askers")
def tell_askers(sender, *, org, connection, cards, **kwargs) -> None:
    """One note per asking conversation per connection event, however many of its cards the connection answered."""
    conversation_ids = []
    for card in cards:
        for asker in card.data.get("askers") or [card.data.get("asked_by") or {}]:
            conversation_id = as_uuid(asker.get("conversation_id"))
            if conversation_id is not None and conversation_id not in conversation_ids:
                conversation_ids.append(conversation_id)
    if not conversation_ids:
        return  # the owner connected on their own: nobody asked, nobody to tell
    # This event, so a second delivery of the same signal (a retry, a duplicate receiver) tells nobody twice.
    event = f"{connection.id}:{connection.token_version}"
    with transaction.atomic():
        # Scoped by the workspace: a card can only name this workspace's conversations, and any other id is ignored.
        for conversation in Conversation.objects.filter(organization=org, id__in=conversation_ids).select_related(
            "agent"
        ):
            _tell(conversation, connection=connection, event=event)


def _tell(conversation: Conversation, *, connection, event: str) -> None:
    where = conversation
    note = connected_note(connection)
    if conversation.kind == Conversation.Kind.THREAD and conversation.closed_at is not None:
        # A closed thread runs nothing: the agent hears it in its chat, with the thread named, and can pick it up.
        where = services.chat_for(agent=conversation.agent)
        note = f"{note} (You asked for it in your thread “{conversation.title}”, now closed.)"
    if Message.objects.filter(conversation=where, role=Message.Role.SYSTEM, data__connected_event=event).exists():
        return
    services.message_append(
        conversation=where, role=Message.Role.SYSTEM, text=note,
        data={"connected_event": event, "connection_id": str(connection.id), "account_key": connection.account_key,
              "app": connection.app, "account": connection.account, "asked_in": str(conversation.id)},
    )
    wake(conversation=where)


def connected_note(connection) -> str:
    info = catalog.app(connection.app)
    serves = ", ".join(info.group_labels[g] for g in connection.groups if g in info.group_labels)
    what = f"{info.label} ({serves})" if serves and serves != info.label else info.label
    return (f"{connection.organization.owner_first_name} connected {what} for {connection.account}. "
            "It's ready now: try again what needed it.")


