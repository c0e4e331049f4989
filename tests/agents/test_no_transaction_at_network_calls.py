"""No transaction is open when an app or the model is called: in a thread's turn, through use_tool, in Undo.
Real transactions (transaction=True), so `connection.in_atomic_block` says what the code under test opened."""

import pytest
from django.db import connection, transaction

from agents import services
from agents.models import Conversation, Message, ToolCall
from agents.runtime import scheduler
from agents.runtime.model import ScriptedModel, call, say, set_model
from agents.runtime.turn import drain, run_turn
from core.actors import Actor
from core.errors import ToolError
from core.models import Change
from core.network import TransactionOpen, network_call
from core.services import change_undo
from integrations import meetings
from integrations.providers.local_calendar import LocalCalendarProvider
from integrations.services import connection_create_local
from tests.factories import AgentFactory

pytestmark = pytest.mark.django_db(transaction=True)

HOLD = {"name": "calendar.hold", "input": {"title": "Focus", "start": "2026-11-17T09:00:00-05:00",
                                           "end": "2026-11-17T10:00:00-05:00"}}


@pytest.fixture
def calendar(org, monkeypatch):
    """The local calendar, watched: each call to it notes whether a transaction was open."""
    seen = []

    class Watched(LocalCalendarProvider):
        def hold(self, **fields):
            seen.append(("hold", connection.in_atomic_block))
            return super().hold(**fields)

        def undo(self, data):
            seen.append(("undo", connection.in_atomic_block))
            return super().undo(data)

    box = connection_create_local(org=org, account="sam@fernhill.test", groups=["calendar"])
    monkeypatch.setattr(meetings, "provider_for", lambda conn, group, **options: Watched(conn))
    return box, seen


class WatchedModel(ScriptedModel):
    def __init__(self):
        super().__init__()
        self.open = []

    def complete(self, **request):
        self.open.append(connection.in_atomic_block)
        return super().complete(**request)


@pytest.fixture
def model():
    scripted = WatchedModel()
    set_model(scripted)
    yield scripted
    set_model(None)


@pytest.fixture(autouse=True)
def turns_run_here(monkeypatch):
    """Turns run when the test drains the queue, as in the other agent tests (not on commit, in a worker)."""
    monkeypatch.setattr(scheduler, "dispatch", lambda **kwargs: [])


@pytest.fixture
def desk(org):
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    return AgentFactory(organization=org, name="Client desk")


def thread_with(org, desk, model, *steps):
    model.add(call("start_thread", {"title": "Calendar", "task": "Hold time"}), say("Started."), *steps)
    services.owner_message_send(org=org, agent=desk, text="Hold an hour for focus on Tuesday")
    drain(org_id=org.id)


def test_a_thread_calls_the_app_and_the_model_with_no_transaction_open(org, desk, model, calendar):
    _, seen = calendar
    thread_with(org, desk, model, call("use_tool", HOLD), say("Held."))
    [result] = Message.objects.filter(role=Message.Role.TOOL, data__name="use_tool")
    assert (seen, set(model.open), Change.objects.filter(tool="calendar.hold").count()) == ([("hold", False)],
                                                                                         {False}, 1)
    assert '"url"' in result.text and ToolCall.objects.get(name="use_tool").done_at is not None


def test_a_call_that_changed_an_app_when_its_worker_died_is_not_run_again(org, desk, model, calendar, monkeypatch):
    """The call was marked started (committed) before the app was called; the worker died in the app's call, before
    the result was written. The task handed out again answers unknown_outcome instead of holding the time twice."""
    _, seen = calendar

    class Died(BaseException):
        pass

    def dies(self, **fields):  # under the watched calendar's own note of the call
        raise Died

    monkeypatch.setattr(LocalCalendarProvider, "hold", dies)
    with pytest.raises(Died):
        thread_with(org, desk, model, call("use_tool", HOLD), say("I'll look before holding it again."))
    [thread] = Conversation.objects.filter(kind=Conversation.Kind.THREAD)
    started = ToolCall.objects.get(name="use_tool")
    run_turn(str(thread.id))  # the broker hands the dead worker's task out again
    [result] = Message.objects.filter(role=Message.Role.TOOL, data__name="use_tool")
    assert (started.started_at is not None, started.done_at, seen) == (True, None, [("hold", False)])
    assert ('"error":"unknown_outcome"' in result.text, Change.objects.count()) == (True, 0)


def test_undo_of_a_change_in_an_app_calls_it_with_no_transaction_open_and_only_once(org, ctx, use, calendar):
    _, seen = calendar
    use(HOLD["name"], **HOLD["input"])
    change = Change.objects.get(tool="calendar.hold")
    change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    with pytest.raises(ToolError) as again:
        change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    change.refresh_from_db()
    assert (seen, change.undone_by_id is not None, again.value.kind) == ([("hold", False), ("undo", False)], True,
                                                                         "changed")


def test_a_failed_undo_in_an_app_gives_its_claim_back(org, ctx, use, calendar, monkeypatch):
    use(HOLD["name"], **HOLD["input"])
    change = Change.objects.get(tool="calendar.hold")

    def refuse(self, data):
        raise ToolError("unavailable", "The calendar didn't answer.")

    monkeypatch.setattr(LocalCalendarProvider, "undo", refuse)
    with pytest.raises(ToolError):
        change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    change.refresh_from_db()
    assert (change.undone_at, change.can_undo) == (None, True)


def test_a_network_call_inside_a_transaction_is_refused(org, settings):
    settings.ROADSTAR_NETWORK_GUARD = "raise"
    network_call("outside")  # nothing open: fine
    with pytest.raises(TransactionOpen), transaction.atomic():
        network_call("a Google API call")


def test_with_the_guard_logging_a_network_call_inside_a_transaction_goes_on_and_is_logged(org, settings, caplog):
    settings.ROADSTAR_NETWORK_GUARD = "log"
    with transaction.atomic():
        network_call("a model call")
    assert "a model call was called with a database transaction open" in caplog.text
