"""A worker that dies mid-turn loses nothing, and a tool call that already ran is not run again."""

import pytest

from agents import services
from agents.models import Conversation, ToolCall, Work
from agents.runtime.model import call, calls, say
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


# Two writes in one step: the first commits before the second runs, so the step is saved before either runs.
ADD_BOTH = calls([("use_tool", {"name": "contacts.create", "input": {"name": "Dana Whitfield"}}),
                  ("use_tool", {"name": "contacts.create", "input": {"name": "Lee Park"}})])


def test_a_tool_call_saved_but_not_run_runs_once_when_picked_up(org, thread, model, monkeypatch):
    # The step is saved with its calls; the worker dies while the first call's result is being saved.
    model.add(ADD_BOTH)
    [claimed] = claim(org_id=org.id)
    turn_dies_in(monkeypatch, "record_result", claimed)
    assert Contact.objects.filter(organization=org).count() == 0
    assert [c.done_at for c in ToolCall.objects.filter(conversation=thread)] == [None, None]
    model.add(say("Added Dana and Lee."))
    run_turn(str(thread.id))
    assert sorted(Contact.objects.filter(organization=org).values_list("name", flat=True)) == [
        "Dana Whitfield", "Lee Park"]


FIND_DANA = {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}
ADD_LEE = {"name": "contacts.create", "input": {"name": "Lee Park", "emails": ["lee@juniperdental.test"]}}


@pytest.mark.parametrize("step", [FIND_DANA, ADD_LEE], ids=["a read", "a write here"])
def test_a_step_whose_worker_died_before_saving_it_with_its_results_is_asked_for_again_and_kept_once(
        org, thread, model, monkeypatch, step):
    # A step of reads, or one write to Roadstar's own records, is saved after its calls ran, with their results (a
    # write's in its transaction): a worker that dies before that commit leaves no trace of the step or its change,
    # so the next one asks the model again; reads run again change nothing, and the change is made once.
    from records.models import ContactEmail

    dana = Contact.objects.create(organization=org, name="Dana Whitfield")
    ContactEmail.objects.create(organization=org, contact=dana, email="dana@juniperdental.test")
    model.add(call("use_tool", step))
    [claimed] = claim(org_id=org.id)
    turn_dies_in(monkeypatch, "save_step_with_results", claimed)
    assert not ToolCall.objects.filter(conversation=thread).exists()
    assert not Contact.objects.filter(organization=org, name="Lee Park").exists()
    asked = len(model.requests)
    model.add(call("use_tool", step), say("Done."))
    run_turn(str(thread.id))  # the task handed out again
    assert len(model.requests) == asked + 2  # the lost step asked for again, then the answer
    [done] = ToolCall.objects.filter(conversation=thread)
    assert done.done_at is not None
    assert done.result["name"] == ("Dana Whitfield" if step is FIND_DANA else "Lee Park")
    assert Contact.objects.filter(organization=org, name="Lee Park").count() == (step is ADD_LEE)
    assert [m.role for m in thread.messages.order_by("seq")] == ["handoff", "agent", "tool", "agent"]
    assert Work.objects.get(conversation=thread).answer == "Done."


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

    model.add(ADD_BOTH)
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
    assert Contact.objects.filter(organization=org).count() == 0
    model.add(say("Added Dana and Lee."))
    Conversation.objects.filter(id=thread.id).update(state="running")  # as the owner's Try again queues it
    run_turn(str(thread.id))
    assert Contact.objects.filter(organization=org).count() == 2
    assert None not in [c.done_at for c in ToolCall.objects.filter(conversation=thread)]
