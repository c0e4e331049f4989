"""A worker that dies mid-turn loses nothing, and a tool call that already ran is not run again."""

import pytest

from agents import services
from agents.models import Conversation, ToolCall, Work
from agents.runtime.model import call, say
from agents.runtime.scheduler import claim
from agents.runtime.sql_storage import SqlTurnStorage
from agents.runtime.turn import drain, run_turn
from records.models import Contact


class WorkerDied(BaseException):
    """What a killed worker looks like from inside: nothing after it runs, not even `except Exception`."""


def die(*args, **kwargs):
    raise WorkerDied()


def turn_dies_in(monkeypatch, storage_method: str, claimed) -> None:
    """Run the claimed turn with its worker killed as the storage's `storage_method` is called."""
    with monkeypatch.context() as patched:
        patched.setattr(SqlTurnStorage, storage_method, die)
        with pytest.raises(WorkerDied):
            run_turn(str(claimed.id))


@pytest.fixture
def thread(org, staff, model):
    org.check_enabled = False
    org.save()
    desk = staff["Client desk"]
    model.add(call("start_thread", {"title": "Juniper", "task": "Add Dana"}), say("Started."))
    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [chat] = claim(org_id=org.id)
    run_turn(str(chat.id))
    return Conversation.objects.get(kind="thread", title="Juniper")


def test_a_turn_picked_up_again_does_not_run_a_finished_tool_call_twice(org, thread, model):
    model.add(call("use_tool", {"name": "contacts.create", "input": {"name": "Dana Whitfield"}}), die)
    [claimed] = claim(org_id=org.id)
    with pytest.raises(WorkerDied):
        run_turn(str(claimed.id))
    assert Conversation.objects.get(id=thread.id).state == "running"
    model.add(say("Added Dana."))
    run_turn(str(thread.id))  # the task handed out again
    assert Contact.objects.filter(organization=org, name="Dana Whitfield").count() == 1
    assert Work.objects.get(conversation=thread).answer == "Added Dana."


def test_a_tool_call_saved_but_not_run_runs_once_when_picked_up(org, thread, model, monkeypatch):
    # The step is saved with its call; the worker dies while the call's result is being saved.
    model.add(call("use_tool", {"name": "contacts.create", "input": {"name": "Dana Whitfield"}}))
    [claimed] = claim(org_id=org.id)
    turn_dies_in(monkeypatch, "record_result", claimed)
    assert Contact.objects.filter(organization=org, name="Dana Whitfield").count() == 0
    assert ToolCall.objects.get(conversation=thread).done_at is None
    model.add(say("Added Dana."))
    run_turn(str(thread.id))
    assert Contact.objects.filter(organization=org, name="Dana Whitfield").count() == 1


def test_a_step_of_reads_whose_worker_died_before_saving_it_is_asked_for_again_and_kept_once(
        org, thread, model, monkeypatch):
    # A step that only reads is saved after its calls ran, with their results: a worker that dies between leaves
    # no trace of it, so the next one asks the model again, and the reads run again change nothing.
    from records.models import ContactEmail

    dana = Contact.objects.create(organization=org, name="Dana Whitfield")
    ContactEmail.objects.create(organization=org, contact=dana, email="dana@juniperdental.test")
    find = call("use_tool", {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}})
    model.add(find)
    [claimed] = claim(org_id=org.id)
    turn_dies_in(monkeypatch, "save_reads", claimed)
    assert not ToolCall.objects.filter(conversation=thread).exists()
    asked = len(model.requests)
    model.add(find, say("Dana is at Juniper Dental."))
    run_turn(str(thread.id))  # the task handed out again
    assert len(model.requests) == asked + 2  # the lost step asked for again, then the answer
    [done] = ToolCall.objects.filter(conversation=thread)
    assert done.result["name"] == "Dana Whitfield" and done.done_at is not None
    assert [m.role for m in thread.messages.order_by("seq")] == ["handoff", "agent", "tool", "agent"]
    assert Work.objects.get(conversation=thread).answer == "Dana is at Juniper Dental."


def test_a_reply_saved_before_the_worker_died_is_not_asked_for_again(org, thread, model):
    model.add(say("Added Dana."))
    [claimed] = claim(org_id=org.id)
    run_turn(str(claimed.id))
    requests = len(model.requests)
    Conversation.objects.filter(id=thread.id).update(state="running")  # as if the task were handed out again
    run_turn(str(thread.id))
    assert len(model.requests) == requests


def test_every_piece_of_work_is_answered_exactly_once(org, thread, model):
    model.add(say("Added Dana."))
    drain(org_id=org.id)
    Conversation.objects.filter(id=thread.id).update(state="running")
    run_turn(str(thread.id))
    assert Work.objects.get(conversation=thread).answer == "Added Dana."
    assert services.chat_for(agent=thread.agent).messages.filter(role="answer").count() == 1


def test_a_call_left_unrun_is_run_after_a_turn_that_had_no_model(org, thread, model, monkeypatch):
    """The turn finds calls left unrun from the steps and results it holds: a reply written since (here, that there
    is no model) doesn't hide an earlier step's call."""
    from agents.runtime import turn as turn_module
    from agents.runtime.model import ModelNotConfigured

    model.add(call("use_tool", {"name": "contacts.create", "input": {"name": "Dana Whitfield"}}))
    [claimed] = claim(org_id=org.id)

    def dying_save(*args, **kwargs):
        raise WorkerDied()

    with monkeypatch.context() as patched:
        patched.setattr(SqlTurnStorage, "record_result", dying_save)
        with pytest.raises(WorkerDied):
            run_turn(str(claimed.id))

    def no_model(org=None):
        raise ModelNotConfigured("No model is set up.")

    with monkeypatch.context() as patched:
        patched.setattr(turn_module, "get_model", no_model)
        run_turn(str(thread.id))
    assert thread.messages.filter(role="agent", data__no_model=True).exists()
    assert Contact.objects.filter(organization=org, name="Dana Whitfield").count() == 0
    model.add(say("Added Dana."))
    Conversation.objects.filter(id=thread.id).update(state="running")  # as the owner's Try again queues it
    run_turn(str(thread.id))
    assert Contact.objects.filter(organization=org, name="Dana Whitfield").count() == 1
    assert ToolCall.objects.get(conversation=thread).done_at is not None
