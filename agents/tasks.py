"""Worker tasks for agents. Each takes ids, loads rows and calls the runtime; all are safe to run twice."""

from agents.models import Conversation
from agents.runtime import scheduler
from agents.runtime.turn import run_turn as _run_turn


def run_turn(conversation_id: str):
    return _run_turn(conversation_id)


def dispatch_all():
    """Every minute: claim what is queued in every workspace, in case a dispatch was lost with its process."""
    org_ids = set(
        Conversation.objects.filter(state=Conversation.State.QUEUED).values_list("organization_id", flat=True)
    )
    for org_id in org_ids:
        scheduler.dispatch(org_id=org_id)
