"""A conversation's messages are numbered 0, 1, 2 … by the counter on the conversation: writers at the same time
each get their own seq and none is skipped; a turn holds its own messages without reading them back, and still
reads, in order, what another process appended between them."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import transaction
from django.utils import timezone

from agents import services
from agents.models import Conversation, MemoryLine, Message, Run
from agents.runtime import turn as turn_module
from agents.runtime.check_turns import check_turns
from agents.runtime.memory import BLOCK
from agents.runtime.model import call, calls, say
from agents.runtime.scheduler import wake
from agents.runtime.sql_storage import SqlTurnStorage
from agents.runtime.turn import Turn, drain
from tests.concurrency import all_at_once, in_a_thread, threads_on_a_file
from tests.factories import AgentFactory, OrganizationFactory, messages_bulk_create

WRITERS = 12
EACH = 5
FIND = {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}
# Calls that write: their step is saved before they run (a step of reads only is saved after, with the results).
MAKE_LEE = {"name": "contacts.create", "input": {"name": "Lee Park", "emails": ["lee@juniperdental.test"]}}
MAKE_SAM = {"name": "contacts.create", "input": {"name": "Sam Ortiz", "emails": ["sam@juniperdental.test"]}}


def seqs(conversation) -> list[int]:
    return list(Message.objects.filter(conversation=conversation).order_by("seq").values_list("seq", flat=True))


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_to_one_conversation_each_get_their_own_seq():
    org = OrganizationFactory(name="Fernhill Studio")
    AgentFactory(organization=org, name="Roadstar", is_roadstar=True)
    chat = services.chat_for(agent=AgentFactory(organization=org, name="Client desk"))

    def writer(i):
        def append():
            conversation = Conversation.objects.get(id=chat.id)  # each its own copy, as each process has
            got = []
            for k in range(EACH):
                with transaction.atomic():
                    got.append(services.message_append(conversation=conversation, role=Message.Role.OWNER,
                                                       text=f"writer {i}, message {k}").seq)
            return got

        return append

    with threads_on_a_file():
        results = all_at_once([writer(i) for i in range(WRITERS)])
        stored, counter = in_a_thread(lambda: (seqs(chat), Conversation.objects.get(id=chat.id).next_seq))
    assert not [r for r in results if isinstance(r, Exception)], results
    taken = sorted(seq for got in results for seq in got)
    assert taken == stored == list(range(WRITERS * EACH))
    assert counter == WRITERS * EACH
    assert all(got == sorted(got) for got in results)  # each writer's own messages in the order it wrote them


def test_an_append_that_rolls_back_gives_its_seq_back(org):
    chat = services.chat_for(agent=AgentFactory(organization=org, name="Client desk"))
    with transaction.atomic():
        services.message_append(conversation=chat, role=Message.Role.OWNER, text="kept")
    with pytest.raises(RuntimeError), transaction.atomic():
        services.message_append(conversation=chat, role=Message.Role.OWNER, text="rolled back")
        raise RuntimeError
    chat = Conversation.objects.get(id=chat.id)  # the copy in memory counted the rolled-back one
    services.message_append(conversation=chat, role=Message.Role.OWNER, text="next")
    assert list(Message.objects.filter(conversation=chat).values_list("seq", "text")) == [(0, "kept"), (1, "next")]


def test_the_migration_starts_each_counter_after_the_conversations_last_message(org):
    from importlib import import_module

    desk = AgentFactory(organization=org, name="Client desk")
    thread = services.thread_start(agent=desk, title="Juniper Dental")
    empty = services.thread_start(agent=desk, title="Nothing yet")
    Message.objects.bulk_create([Message(conversation=thread, seq=seq, role="owner", text="x") for seq in range(7)])
    Conversation.objects.update(next_seq=0)
    import_module("agents.migrations.0009_conversation_next_seq").count_from_messages(apps, None)
    assert Conversation.objects.get(id=thread.id).next_seq == 7
    assert Conversation.objects.get(id=empty.id).next_seq == 0


def a_thread(org, desk, model, *script):
    org.check_enabled = False
    org.save()
    thread = services.thread_start(agent=desk, title="Juniper Dental")
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text="[From Client desk's chat] Find Dana")
    services.work_open(org=org, agent=desk, conversation=thread, task="Find Dana", requester=None)
    model.add(*script)
    wake(conversation=thread)
    return thread


def assert_each_call_answered_next(messages: list[dict]) -> None:
    for i, message in enumerate(messages):
        for k, tool_call in enumerate(message.get("tool_calls") or []):
            assert messages[i + 1 + k] == {**messages[i + 1 + k], "role": "tool", "tool_call_id": tool_call["id"]}


def test_a_message_appended_while_the_model_thinks_reaches_the_next_step_after_the_step_that_never_saw_it(
        org, staff, model):
    desk = staff["Client desk"]
    thread = None

    def owner_writes_meanwhile(request):
        services.message_append(conversation=thread, role=Message.Role.HANDOFF,
                                text="[From Client desk's chat] Also: Lee Park")
        return call("use_tool", FIND)

    thread = a_thread(org, desk, model, owner_writes_meanwhile, say("Found."))
    drain(org_id=org.id)
    prompt = model.requests[-1]["messages"]
    # Its seq (1) is before the step's (2), but the step was written without it: it shows after the step's result.
    assert [m["role"] for m in prompt] == ["system", "user", "assistant", "tool", "user"]
    assert prompt[4]["content"] == "[#1] [From Client desk's chat] Also: Lee Park"
    assert Message.objects.get(conversation=thread, seq=2).data["saw_upto"] == 0
    assert seqs(thread) == list(range(5))


# A step with a call that writes is saved before its calls run: a message written while one runs takes the seq after
# the step's (#2). A step of reads is saved after them, with their results: one written meanwhile takes the seq
# before the step's (#1), as one written while the model thought; either way the next step shows it after the result.
@pytest.mark.parametrize("steps, seen", [((MAKE_LEE, MAKE_SAM), 2), ((FIND, FIND), 1)], ids=["a write", "a read"])
def test_a_message_appended_while_a_tool_runs_shows_after_the_calls_result(org, staff, model, monkeypatch, steps,
                                                                          seen):
    desk = staff["Client desk"]
    thread = a_thread(org, desk, model, *[call("use_tool", step) for step in steps], say("Done."))
    run_agent_tool = turn_module.run_agent_tool

    def with_an_answer_meanwhile(turn, name, arguments):
        services.message_append(conversation=thread, role=Message.Role.ANSWER, text="[Answer from Bookkeeper] Paid.")
        return run_agent_tool(turn, name, arguments)

    monkeypatch.setattr(turn_module, "run_agent_tool", with_an_answer_meanwhile)
    drain(org_id=org.id)
    second, third = model.requests[1]["messages"], model.requests[2]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool", "user"]
    assert second[-1]["content"] == f"[#{seen}] [Answer from Bookkeeper] Paid."
    assert Message.objects.get(conversation=thread, seq=3 - seen).role == Message.Role.AGENT
    assert third[:len(second)] == second  # the prompt only grows: the cache's prefix holds
    assert_each_call_answered_next(third)
    assert seqs(thread) == list(range(8))


@pytest.mark.parametrize("step", [[("use_tool", FIND), ("use_tool", MAKE_LEE)], [("use_tool", MAKE_LEE)],
                                  [("use_tool", FIND)]], ids=["a read and a write", "a write", "reads only"])
def test_a_step_is_saved_before_its_calls_run_unless_it_only_reads(org, staff, model, monkeypatch, step):
    desk = staff["Client desk"]
    thread = a_thread(org, desk, model, calls(step), say("Done."))
    run_agent_tool = turn_module.run_agent_tool
    saved_when_run = []

    def noting_the_step(turn, name, arguments):
        saved_when_run.append(Message.objects.filter(conversation=thread, role=Message.Role.AGENT).exists())
        return run_agent_tool(turn, name, arguments)

    monkeypatch.setattr(turn_module, "run_agent_tool", noting_the_step)
    drain(org_id=org.id)
    only_reads = all(arguments is FIND for _, arguments in step)
    assert saved_when_run == [not only_reads] * len(step)
    assert [m.role for m in Message.objects.filter(conversation=thread).order_by("seq")] == [
        "handoff", "agent", *["tool"] * len(step), "agent"]


def test_a_turn_holds_the_conversation_as_the_check_reads_it_folded_part_included(org, staff):
    desk = staff["Client desk"]
    thread = services.thread_start(agent=desk, title="Juniper Dental")
    roles = [Message.Role.OWNER, Message.Role.AGENT, Message.Role.HANDOFF, Message.Role.ANSWER]
    messages_bulk_create([Message(conversation=thread, seq=seq, role=roles[seq % 4], text=f"message {seq}",
                                  data={"from": "Bookkeeper"} if seq % 4 == 3 else {})
                          for seq in range(BLOCK + 6)])
    MemoryLine.objects.create(conversation=thread, start=0, n=BLOCK, summary="The first block.")
    run = Run.objects.create(organization=org, conversation=thread, agent=desk, started_at=timezone.now())
    turn = Turn(SqlTurnStorage(Conversation.objects.get(id=thread.id)), run)
    assert turn.check_turns() == check_turns(thread)
    services.message_append(conversation=thread, role=Message.Role.OWNER, text="One more thing")
    turn._read_new_messages()
    assert turn.check_turns() == check_turns(thread)
    last = Message.objects.get(conversation=thread, text="One more thing")
    assert turn.check_turns()[-1] == {"role": "owner", "text": "One more thing", "ref": f"message:{last.id}"}
