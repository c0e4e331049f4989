"""A conversation's messages are numbered 0, 1, 2 … by the counter on the conversation: writers at the same time
each get their own seq and none is skipped; a turn holds its own messages without reading them back, and still
reads, in order, what another process appended between them."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import transaction
from django.utils import timezone

from agents import services
from agents.models import Conversation, MemoryLine, Message, Run, ToolCall
from agents.runtime import turn as turn_module
from agents.runtime.check_turns import check_turns
from agents.runtime.memory import BLOCK
from agents.runtime.model import call, calls, say
from agents.runtime.scheduler import wake
from agents.runtime.sql_storage import SqlTurnStorage
from agents.runtime.turn import Turn, drain
from checks.types import CONVERSATION, OwnerTurn
from records.models import Contact
from tests.concurrency import all_at_once, in_a_thread, threads_on_a_file
from tests.factories import AgentFactory, OrganizationFactory, messages_bulk_create

WRITERS = 12
EACH = 5
FIND = {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}
# Calls that write here: a step of reads ending in one is saved after its calls, with their results; two such writes
# in one step are saved before they run.
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


# A step whose calls don't all work on Roadstar's own records in one transaction (two writes: the first commits
# before the second runs) is saved before they run: a message written while one runs takes the seq after the step's
# (#2). A step of reads, the last call perhaps a write here, is saved after them, with their results: one written
# meanwhile takes the seq before the step's (#1), as one written while the model thought; either way the next step
# shows it after the results.
@pytest.mark.parametrize("step, seen", [([MAKE_LEE, MAKE_SAM], 2), ([MAKE_LEE], 1), ([FIND, FIND], 1)],
                         ids=["two writes", "a write", "reads"])
def test_a_message_appended_while_a_tool_runs_shows_after_the_calls_results(org, staff, model, monkeypatch, step,
                                                                           seen):
    desk = staff["Client desk"]
    thread = a_thread(org, desk, model, calls([("use_tool", each) for each in step]), call("use_tool", FIND),
                      say("Done."))
    run_agent_tool = turn_module.run_agent_tool

    def with_an_answer_meanwhile(turn, name, arguments):
        if not Message.objects.filter(conversation=thread, role=Message.Role.ANSWER).exists():
            services.message_append(conversation=thread, role=Message.Role.ANSWER,
                                    text="[Answer from Bookkeeper] Paid.")
        return run_agent_tool(turn, name, arguments)

    monkeypatch.setattr(turn_module, "run_agent_tool", with_an_answer_meanwhile)
    drain(org_id=org.id)
    second, third = model.requests[1]["messages"], model.requests[2]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", *["tool"] * len(step), "user"]
    assert second[-1]["content"] == f"[#{seen}] [Answer from Bookkeeper] Paid."
    assert Message.objects.get(conversation=thread, seq=3 - seen).role == Message.Role.AGENT
    assert third[:len(second)] == second  # the prompt only grows: the cache's prefix holds
    assert_each_call_answered_next(third)
    assert seqs(thread) == list(range(len(step) + 6))


@pytest.mark.parametrize("step, saved_first", [
    ([FIND], False), ([MAKE_LEE], False), ([FIND, MAKE_LEE], False), ([MAKE_LEE, FIND], True),
    ([MAKE_LEE, MAKE_SAM], True),
], ids=["a read", "a write", "a read, then a write", "a write, then a read", "two writes"])
def test_a_step_is_saved_before_its_calls_run_unless_they_work_here_in_one_transaction(org, staff, model,
                                                                                       monkeypatch, step, saved_first):
    desk = staff["Client desk"]
    thread = a_thread(org, desk, model, calls([("use_tool", each) for each in step]), say("Done."))
    run_agent_tool = turn_module.run_agent_tool
    saved_when_run = []

    def noting_the_step(turn, name, arguments):
        saved_when_run.append(Message.objects.filter(conversation=thread, role=Message.Role.AGENT).exists())
        return run_agent_tool(turn, name, arguments)

    monkeypatch.setattr(turn_module, "run_agent_tool", noting_the_step)
    drain(org_id=org.id)
    assert saved_when_run == [saved_first] * len(step)
    assert [m.role for m in Message.objects.filter(conversation=thread).order_by("seq")] == [
        "handoff", "agent", *["tool"] * len(step), "agent"]
    done = ToolCall.objects.filter(conversation=thread).exclude(done_at=None)
    assert [c.arguments["name"] for c in done.order_by("id")] == [each["name"] for each in step]
    assert Contact.objects.filter(organization=org, name="Lee Park").count() == (MAKE_LEE in step)


@pytest.mark.parametrize("also", [[], [MAKE_LEE]], ids=["saved after its call", "saved before its calls"])
def test_the_check_reads_the_steps_own_words_whenever_the_step_is_saved(org, staff, model, monkeypatch, also):
    from tools import pipeline

    desk = staff["Client desk"]
    dana = Contact.objects.create(organization=org, name="Dana Whitfield")
    update = {"name": "contacts.update", "input": {"contactId": str(dana.id), "jobTitle": "Office manager"}}
    a_thread(org, desk, model, calls([("use_tool", each) for each in [*also, update]], text="Updating Dana now."),
             say("Done."))
    org.check_enabled = True
    org.save()
    check_tool_call, read = pipeline.check_tool_call, []

    def reading(*, request, **kwargs):
        read.append([turn.model_dump(exclude_none=True) for turn in request.conversation])
        return check_tool_call(request=request, **kwargs)

    monkeypatch.setattr(pipeline, "check_tool_call", reading)
    drain(org_id=org.id)
    [conversation] = read
    # The step's words after the owner's (the packet's), before the results of its calls that ran first.
    assert [t for t in conversation if t["role"] == "agent"] == [{"role": "agent", "text": "Updating Dana now."}]
    assert [t["role"] for t in conversation] == ["handoff", "agent", *["read"] * len(also)]


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
    # The turn holds them as the check's models, validated once each; the database's are as FORMAT.md gives them.
    assert turn.check_turns() == CONVERSATION.validate_python(check_turns(thread))
    services.message_append(conversation=thread, role=Message.Role.OWNER, text="One more thing")
    turn._read_new_messages()
    held = turn.check_turns()
    assert held == CONVERSATION.validate_python(check_turns(thread))
    assert [a is b for a, b in zip(held, turn.check_turns(), strict=True)] == [True] * len(held)  # not made again
    last = Message.objects.get(conversation=thread, text="One more thing")
    assert held[-1] == OwnerTurn(role="owner", text="One more thing", ref=f"message:{last.id}")
