"""A turn's lease: a worker that stops renewing it is replaced, its run ends `interrupted`, and it can't write again.

In-process, on the suite's database (SQLite, or PostgreSQL with DATABASE_URL): the lease runs out by moving its
end into the past, as a dead worker's does. The real worker killed with SIGKILL is test_turn_lease_kill.py.
"""

import datetime

import pytest
from django.utils import timezone

from agents import services
from agents.models import Conversation, Message, Run, ToolCall, Work
from agents.runtime import scheduler
from agents.runtime.model import call, say
from agents.runtime.scheduler import LeaseKeeper, claim
from agents.runtime.turn import run_turn


@pytest.fixture
def desk(staff):
    return staff["Client desk"]


def lapse(conversation_id) -> None:
    """What a dead worker leaves: its lease's end passes with nobody renewing it."""
    Conversation.objects.filter(id=conversation_id).update(
        lease_until=timezone.now() - datetime.timedelta(seconds=1))


def test_a_claim_takes_a_lease_that_the_task_carries(org, desk):
    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [claimed] = claim(org_id=org.id)
    chat = Conversation.objects.get(id=claimed.id)
    assert chat.state == "running" and chat.lease_token == claimed.lease
    assert chat.lease_until > timezone.now()
    assert claim(org_id=org.id) == []  # a live lease isn't claimed again


def test_a_lapsed_lease_is_claimed_again_and_its_run_ends_interrupted(org, desk, model):
    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [first] = claim(org_id=org.id)
    run = Run.objects.create(organization=org, conversation_id=first.id, agent=desk, started_at=timezone.now())
    lapse(first.id)
    [again] = claim(org_id=org.id)
    assert again.id == first.id and again.lease != first.lease
    run.refresh_from_db()
    assert run.outcome == Run.Outcome.INTERRUPTED and run.finished_at is not None and "lease" in run.error
    # The dead worker's task, handed out again by the broker later, does nothing: its token is stale.
    assert run_turn(str(first.id), str(first.lease)) is None
    assert model.requests == []
    model.add(say("Sure, adding Dana."))
    assert run_turn(str(again.id), str(again.lease)) == Run.Outcome.ANSWERED
    assert Work.objects.get(conversation_id=again.id).state == Work.State.ANSWERED
    assert Conversation.objects.get(id=again.id).state == "idle"


def test_the_sweep_finds_lapsed_leases_in_quiet_workspaces(org, desk, monkeypatch):
    from django_q.conf import Conf

    from agents.tasks import dispatch_all

    monkeypatch.setattr(Conf, "SYNC", False)
    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [first] = claim(org_id=org.id)
    assert scheduler.lapsed_workspaces() == set()
    lapse(first.id)
    assert scheduler.lapsed_workspaces() == {org.id}
    dispatch_all()
    assert Conversation.objects.get(id=first.id).lease_token not in (None, first.lease)


def test_a_slow_worker_that_comes_back_writes_no_step(org, desk, model):
    """The worker was only slow: while its model call hung, its lease ran out and another claimed the chat. Its step
    rolls back (the reply, the work's answer, its usage) and the other worker writes the only reply."""
    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [slow] = claim(org_id=org.id)
    taken = []

    def hangs_then_answers(request):
        lapse(slow.id)
        taken.extend(claim(org_id=org.id))
        return say("Sure, adding Dana (late).")

    model.add(hangs_then_answers)
    assert run_turn(str(slow.id), str(slow.lease)) is None
    chat = Conversation.objects.get(id=slow.id)
    assert not chat.messages.filter(role=Message.Role.AGENT).exists()
    assert Work.objects.get(conversation=chat).state == Work.State.OPEN
    assert chat.state == "running" and chat.lease_token == taken[0].lease
    assert Run.objects.get(conversation=chat).outcome == Run.Outcome.INTERRUPTED
    model.add(say("Sure, adding Dana."))
    assert run_turn(str(chat.id), str(taken[0].lease)) == Run.Outcome.ANSWERED
    assert [m.text for m in chat.messages.filter(role=Message.Role.AGENT)] == ["Sure, adding Dana."]
    assert Work.objects.get(conversation=chat).answer == "Sure, adding Dana."


def test_a_slow_worker_saves_no_tool_call(org, desk, model):
    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [slow] = claim(org_id=org.id)

    def hangs_then_calls(request):
        lapse(slow.id)
        claim(org_id=org.id)
        return call("start_thread", {"title": "Dana", "task": "Add Dana"})

    model.add(hangs_then_calls)
    assert run_turn(str(slow.id), str(slow.lease)) is None
    assert ToolCall.objects.count() == 0 and Conversation.objects.filter(kind="thread").count() == 0


def test_the_keeper_renews_only_its_own_lease(org, desk):
    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [first] = claim(org_id=org.id)
    keeper = LeaseKeeper(first.id, first.lease)
    lapse(first.id)
    assert keeper.renew() and not keeper.lost
    assert Conversation.objects.get(id=first.id).lease_until > timezone.now()
    lapse(first.id)
    claim(org_id=org.id)
    assert not keeper.renew() and keeper.lost


def test_a_turn_whose_keeper_lost_the_lease_stops_before_its_next_step(org, desk, model):
    from agents.runtime.sql_storage import SqlTurnStorage
    from agents.runtime.turn import Turn

    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [first] = claim(org_id=org.id)
    chat = Conversation.objects.select_related("agent", "organization").get(id=first.id)
    run = Run.objects.create(organization=org, conversation=chat, agent=desk, started_at=timezone.now())
    keeper = LeaseKeeper(first.id, first.lease)
    keeper.lost = True
    with pytest.raises(scheduler.LeaseLost):
        Turn(SqlTurnStorage(chat, lease=first.lease, keeper=keeper), run).execute()
    assert model.requests == []


def test_the_end_of_a_replaced_turn_leaves_the_new_claim_alone(org, desk):
    services.owner_message_send(org=org, agent=desk, text="Add Dana")
    [first] = claim(org_id=org.id)
    lapse(first.id)
    [again] = claim(org_id=org.id)
    chat = Conversation.objects.get(id=first.id)
    assert scheduler.finish(conversation=chat, more_to_do=False, lease=first.lease) is False
    assert Conversation.objects.get(id=first.id).state == "running"
    assert scheduler.finish(conversation=chat, more_to_do=False, lease=again.lease) is True
    assert Conversation.objects.get(id=first.id).state == "idle"
