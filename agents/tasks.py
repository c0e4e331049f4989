"""Worker tasks for agents. Each takes ids, loads rows and calls the runtime; all are safe to run twice."""

from django.conf import settings

from agents.models import Conversation
from agents.runtime import scheduler
from agents.runtime.model import get_model
from agents.runtime.turn import run_turn as _run_turn
from tools.registry import AGENT_TOOLS, TOOLS


def run_turn(conversation_id: str, lease: str | None = None):
    return _run_turn(conversation_id, lease)


def dispatch_all():
    """Every minute: claim what is queued in every workspace, in case a dispatch was lost with its process, and what
    a dead worker's lapsed lease left running."""
    org_ids = set(
        Conversation.objects.filter(state=Conversation.State.QUEUED).values_list("organization_id", flat=True)
    ) | scheduler.lapsed_workspaces()
    for org_id in org_ids:
        scheduler.dispatch(org_id=org_id)


def watch() -> None:
    """Every third of a turn's lease, in the worker's main process (core/management/commands/worker.py): a
    conversation whose worker died mid-turn is claimed again within seconds, not at the minute's sweep."""
    for org_id in scheduler.lapsed_workspaces():
        scheduler.dispatch(org_id=org_id)


def watch_seconds() -> float:
    return settings.ROADSTAR_TURN_LEASE_SECONDS / 3


def warm_up():
    """Run by `manage.py worker` before its cluster forks (core/management/commands/worker.py), so each worker process
    starts with what a turn builds once and keeps: the configured model client (its TLS certificates and connection
    pool; about 70 ms of CPU on a worker's first turn) and the schemas of the tools a model is offered (20 ms)."""
    if settings.MODEL_CONFIGURED:
        get_model()
    for tool in [*AGENT_TOOLS.values(), *TOOLS.values()]:
        tool.input_schema()
