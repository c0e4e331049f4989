"""A turn's rows as its storage writes them (agents/runtime/sql_storage.py): its start, a step's rows, a call's
result, an answer and its end. On PostgreSQL each is one statement, elsewhere several; the rows are the same either
way, a turn whose lease was taken writes none of them, and a statement that commits without waiting for the disk
does so for itself alone."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agents import services
from agents.models import Conversation, Message, Run, ToolCall, Usage, Work
from agents.runtime import scheduler
from agents.runtime.model import ModelUsage, ToolCallRequest, cost_of
from agents.runtime.scheduler import LeaseLost, lease_length
from agents.runtime.sql_storage import SqlTurnStorage
from agents.runtime.turn import run_turn
from core import rows
from core.actors import Actor
from core.models import Change
from core.services import change_record
from tests.factories import AgentFactory

CALLS = [ToolCallRequest(id="call_1", name="use_tool",
                         arguments={"name": "contacts.find", "input": {"email": "a@b.test"}}),
         ToolCallRequest(id="call_2", name="browse_tools", arguments={}, raw_arguments="{}")]
USAGE = ModelUsage(input_tokens=1_200, cached_input_tokens=200, output_tokens=30)


def running_thread(org, title="Juniper Dental"):
    """A thread claimed by a turn (its lease token), with one piece of open work, and one already answered."""
    agent = AgentFactory(organization=org, name="Client desk")
    thread = services.thread_start(agent=agent, title=title)
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text="Find Dana")
    open_work = services.work_open(org=org, agent=agent, conversation=thread, task="Find Dana", requester=None)
    done = services.work_open(org=org, agent=agent, conversation=thread, task="Earlier", requester=None)
    Work.objects.filter(id=done.id).update(state=Work.State.ANSWERED)
    token = uuid.uuid4()
    Conversation.objects.filter(id=thread.id).update(state=Conversation.State.RUNNING, lease_token=token)
    thread = Conversation.objects.select_related("agent", "organization").get(id=thread.id)
    return SqlTurnStorage(thread, lease=token), open_work, done


@pytest.mark.django_db
def test_a_step_writes_its_usage_its_count_on_the_work_its_message_and_its_calls(org):
    store, open_work, done = running_thread(org)
    saved, message = store.save_step("Looking her up.", CALLS, saw_upto=0, usage=USAGE,
                                     works=[open_work, done])
    kept = Message.objects.get(id=message.id)
    assert (kept.seq, kept.role, kept.text) == (1, Message.Role.AGENT, "Looking her up.")
    assert kept.data == {"tool_calls": [
        {"id": "call_1", "name": "use_tool", "arguments": CALLS[0].arguments, "raw": ""},
        {"id": "call_2", "name": "browse_tools", "arguments": {}, "raw": "{}"}]}
    assert message.seq == 1 and message.data == kept.data and store.conversation.next_seq == 2
    calls = list(ToolCall.objects.filter(message=kept).order_by("id"))
    assert [(c.id, c.call_id, c.name, c.arguments, c.result, c.done_at) for c in calls] == [
        (saved[0].id, "call_1", "use_tool", CALLS[0].arguments, None, None),
        (saved[1].id, "call_2", "browse_tools", {}, None, None)]
    usage = Usage.objects.get(conversation=store.conversation)
    assert (usage.purpose, usage.model, usage.input_tokens, usage.cached_input_tokens, usage.output_tokens) == (
        "turn", store.conversation.agent.model, 1_200, 200, 30)
    assert abs(usage.cost - cost_of(store.conversation.agent.model, USAGE)) < Decimal("1e-8") and usage.cost > 0
    assert usage.agent_id == store.conversation.agent.id and usage.organization_id == org.id
    open_work.refresh_from_db()
    done.refresh_from_db()
    assert (open_work.steps, open_work.latest_reply) == (1, "Looking her up.")
    assert (done.steps, done.latest_reply) == (0, "")  # answered already: neither counted nor given the reply


@pytest.mark.django_db
def test_a_step_that_says_nothing_leaves_the_latest_reply_and_keeps_saw_upto_when_others_wrote_meanwhile(org):
    store, open_work, _ = running_thread(org)
    Work.objects.filter(id=open_work.id).update(latest_reply="Earlier words")
    # The owner wrote again while the model was writing this step: the step saw up to seq 0 only.
    services.message_append(conversation=store.conversation, role=Message.Role.OWNER, text="Also Lee")
    _, message = store.save_step("", CALLS[:1], saw_upto=0, usage=USAGE, works=[open_work])
    assert message.seq == 2 and message.data["saw_upto"] == 0
    assert Message.objects.get(id=message.id).data["saw_upto"] == 0
    open_work.refresh_from_db()
    assert (open_work.steps, open_work.latest_reply) == (1, "Earlier words")


@pytest.mark.django_db
def test_a_turn_whose_lease_was_taken_writes_no_step_and_no_result(org):
    store, open_work, _ = running_thread(org)
    saved, _ = store.save_step("", CALLS[:1], saw_upto=0, usage=USAGE, works=[open_work])
    Conversation.objects.filter(id=store.conversation.id).update(lease_token=uuid.uuid4())  # another worker's
    before = (Message.objects.count(), Usage.objects.count(), ToolCall.objects.count())
    with pytest.raises(LeaseLost), transaction.atomic():
        store.save_step("", CALLS[1:], saw_upto=1, usage=USAGE, works=[open_work])
    with pytest.raises(LeaseLost), transaction.atomic():
        store.record_result(saved[0], {"found": False})
    assert (Message.objects.count(), Usage.objects.count(), ToolCall.objects.count()) == before
    open_work.refresh_from_db()
    assert open_work.steps == 1
    assert ToolCall.objects.get(id=saved[0].id).done_at is None


@pytest.mark.django_db
def test_a_result_is_recorded_with_its_message_and_the_next_step_reads_the_counter_and_the_pause(org):
    store, open_work, _ = running_thread(org)
    saved, _ = store.save_step("", CALLS[:1], saw_upto=0, usage=USAGE, works=[open_work])
    message = store.record_result(saved[0], {"found": True, "name": "Dana Whitfield"})
    call = ToolCall.objects.get(id=saved[0].id)
    assert call.result == {"found": True, "name": "Dana Whitfield"} and call.done_at is not None
    kept = Message.objects.get(id=message.id)
    assert (kept.seq, kept.role, kept.data) == (2, Message.Role.TOOL, {"call_id": "call_1", "name": "use_tool"})
    assert kept.text == message.text and '"Dana Whitfield"' in kept.text
    assert store.counter_and_pause() == (3, False)
    # Read again when nothing of the storage's own came since: the owner paused the agent meanwhile.
    type(store.conversation.agent).objects.filter(id=store.conversation.agent.id).update(paused=True)
    assert store.counter_and_pause() == (3, True)


READS = [ToolCallRequest(id="call_1", name="use_tool",
                         arguments={"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}),
         ToolCallRequest(id="call_2", name="use_tool",
                         arguments={"name": "contacts.find", "input": {"email": "nobody@juniperdental.test"}})]


@pytest.mark.django_db
def test_a_step_of_reads_is_saved_after_them_with_its_calls_done_and_their_results_in_seq_order(org):
    store, open_work, done = running_thread(org)
    found = {"id": "c1", "name": "Dana Whitfield"}
    with CaptureQueriesContext(connection) as statements:
        message, answers = store.save_step_with_results("Looking them up.", READS, [found, None], saw_upto=0,
                                                        usage=USAGE, works=[open_work, done])
    if connection.vendor == "postgresql":
        assert len(statements) == 1  # the step, its calls done, their results' messages: one round trip
    kept = list(Message.objects.filter(conversation=store.conversation).order_by("seq"))
    assert [(m.seq, m.role) for m in kept] == [
        (0, Message.Role.HANDOFF), (1, Message.Role.AGENT), (2, Message.Role.TOOL), (3, Message.Role.TOOL)]
    assert [(m.id, m.seq) for m in (message, *answers)] == [(m.id, m.seq) for m in kept[1:]]
    assert kept[1].text == "Looking them up." and [c["id"] for c in kept[1].data["tool_calls"]] == ["call_1", "call_2"]
    assert [(m.text, m.data) for m in kept[2:]] == [(a.text, a.data) for a in answers] == [
        ('{"id":"c1","name":"Dana Whitfield"}', {"call_id": "call_1", "name": "use_tool"}),
        ("null", {"call_id": "call_2", "name": "use_tool"})]
    calls = list(ToolCall.objects.filter(message_id=message.id).order_by("id"))
    assert [(c.call_id, c.arguments, c.result, c.started_at) for c in calls] == [
        ("call_1", READS[0].arguments, found, None), ("call_2", READS[1].arguments, None, None)]
    assert all(c.done_at is not None for c in calls)
    assert Usage.objects.filter(conversation=store.conversation).count() == 1
    open_work.refresh_from_db()
    assert (open_work.steps, open_work.latest_reply) == (1, "Looking them up.")
    assert store.conversation.next_seq == 4 and Conversation.objects.get(id=store.conversation.id).next_seq == 4
    assert store.counter_and_pause() == (4, False)  # as the last write read them: the next step asks nothing


@pytest.mark.django_db
def test_a_step_of_reads_whose_lease_was_taken_writes_nothing(org):
    store, open_work, _ = running_thread(org)
    Conversation.objects.filter(id=store.conversation.id).update(lease_token=uuid.uuid4())  # another worker's
    before = (Message.objects.count(), Usage.objects.count(), ToolCall.objects.count())
    with pytest.raises(LeaseLost), transaction.atomic():
        store.save_step_with_results("", READS, [None, None], saw_upto=0, usage=USAGE, works=[open_work])
    assert (Message.objects.count(), Usage.objects.count(), ToolCall.objects.count()) == before
    open_work.refresh_from_db()
    assert open_work.steps == 0


def _synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_step_and_a_read_commit_without_waiting_for_the_disk_for_themselves_alone(org):
    if connection.vendor != "postgresql":
        pytest.skip("synchronous_commit is PostgreSQL's (SQLite's commits are set by the database's PRAGMA)")
    store, open_work, _ = running_thread(org)
    saved, _ = store.save_step("", CALLS[:1], saw_upto=0, usage=USAGE, works=[open_work])
    assert _synchronous_commit() == "on"  # the setting was the statement's transaction's only
    store.record_result(saved[0], {"found": False})
    assert _synchronous_commit() == "on"
    with transaction.atomic():  # a step written inside a caller's transaction leaves its commit to wait
        store.save_step("", CALLS[1:], saw_upto=2, usage=USAGE, works=[open_work])
        assert _synchronous_commit() == "on"
    assert Message.objects.filter(conversation=store.conversation).count() == 4


@pytest.mark.django_db(transaction=True)
def test_kept_statements_are_prepared_on_postgresql(org):
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    from core import rows

    for _ in range(8):
        rows.select(Conversation, [("organization_id", "=", org.pk)])
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [s for (s,) in cursor.fetchall()]
    assert any(f'FROM "{Conversation._meta.db_table}" t0' in s for s in prepared), prepared


@pytest.mark.django_db
def test_a_storage_with_no_lease_is_not_fenced_as_message_append_is_not(org):
    fenced, open_work, _ = running_thread(org)
    store = SqlTurnStorage(fenced.conversation)  # (a test's or a tool's storage: no claim of its own)
    saved, message = store.save_step("", CALLS[:1], saw_upto=0, usage=USAGE, works=[open_work])
    assert store.record_result(saved[0], {"found": False}).seq == message.seq + 1 == 2


def _claimed(org, monkeypatch):
    """An owner's message queued and claimed, its task not run yet (the suite runs tasks inline, at the commit)."""
    monkeypatch.setattr(scheduler, "dispatch", lambda **_: [])
    services.owner_message_send(org=org, agent=AgentFactory(organization=org, name="Client desk"), text="Find Dana")
    [claimed] = scheduler.claim(org_id=org.id)
    return claimed


@pytest.mark.django_db(transaction=True)
def test_a_workers_turn_starts_by_renewing_its_lease_and_writing_its_run(org, monkeypatch):
    claimed = _claimed(org, monkeypatch)
    # The claim's lease covers the wait for a worker (pickup_length); the turn's own, shorter, starts with it.
    Conversation.objects.filter(id=claimed.id).update(lease_until=timezone.now())
    before = timezone.now()
    store = SqlTurnStorage.for_task(str(claimed.id), str(claimed.lease))
    assert store is not None and store.keeper is not None
    run = store.run_started()
    kept = Run.objects.get(id=run.id)
    assert (kept.conversation_id, kept.agent_id, kept.organization_id, kept.outcome, kept.steps) == (
        store.conversation.id, store.conversation.agent.id, org.id, Run.Outcome.RUNNING, 0)
    assert kept.started_at == run.started_at and not run._state.adding
    lease_until = Conversation.objects.get(id=store.conversation.id).lease_until
    assert before + lease_length() <= lease_until <= timezone.now() + lease_length()
    if connection.vendor == "postgresql":
        assert _synchronous_commit() == "on"  # (it commits unwaited, for itself alone)


@pytest.mark.django_db(transaction=True)
def test_a_task_finds_its_conversation_with_its_agent_and_workspace_and_none_once_it_stopped(
        org, monkeypatch, django_assert_num_queries):
    claimed = _claimed(org, monkeypatch)
    store = SqlTurnStorage.for_task(str(claimed.id), str(claimed.lease))
    assert store is not None and store.lease == claimed.lease
    with django_assert_num_queries(0):  # read with it, as select_related reads them
        assert (store.conversation.agent.name, store.conversation.organization.id) == ("Client desk", org.id)
        assert store.conversation.agent.organization.id == org.id and store.conversation.state == "running"
    runs = Run.objects.filter(conversation_id=claimed.id).count()
    Conversation.objects.filter(id=claimed.id).update(state=Conversation.State.IDLE)  # its turn ended meanwhile
    lease_until = Conversation.objects.get(id=claimed.id).lease_until
    assert SqlTurnStorage.for_task(str(claimed.id), str(claimed.lease)) is None
    assert Run.objects.filter(conversation_id=claimed.id).count() == runs  # nothing written
    assert Conversation.objects.get(id=claimed.id).lease_until == lease_until  # nor the lease renewed


@pytest.mark.django_db(transaction=True)
def test_a_task_whose_claim_went_to_another_worker_runs_no_turn(org, model, monkeypatch):
    claimed = _claimed(org, monkeypatch)
    Conversation.objects.filter(id=claimed.id).update(lease_token=uuid.uuid4())  # handed to another worker
    assert run_turn(str(claimed.id), str(claimed.lease)) is None
    assert model.requests == [] and not Run.objects.filter(conversation_id=claimed.id).exists()


@pytest.mark.django_db
def test_an_answer_writes_its_steps_usage_and_count_with_the_reply(org):
    store, open_work, done = running_thread(org)
    with transaction.atomic():  # (the step's transaction, as the turn holds it)
        message = store.answer("Dana is at Juniper Dental.", saw_upto=0, works=[open_work], usage=USAGE,
                               counted=[open_work, done])
    kept = Message.objects.get(id=message.id)
    assert (kept.seq, kept.role, kept.text, kept.data) == (1, Message.Role.AGENT, "Dana is at Juniper Dental.", {})
    assert message.seq == 1 and store.conversation.next_seq == 2
    usage = Usage.objects.get(conversation=store.conversation)
    assert (usage.purpose, usage.input_tokens, usage.output_tokens) == ("turn", 1_200, 30)
    open_work.refresh_from_db()
    done.refresh_from_db()
    assert (open_work.steps, open_work.state, open_work.answer, open_work.latest_reply) == (
        1, Work.State.ANSWERED, "Dana is at Juniper Dental.", "Dana is at Juniper Dental.")
    assert (done.steps, done.latest_reply) == (0, "")


@pytest.mark.django_db(transaction=True)
def test_a_reply_that_answers_no_work_is_one_statement_that_waits_for_the_disk(org):
    # A chat's reply once it routed the work: no BEGIN and COMMIT around it on PostgreSQL, and its commit waits,
    # as the owner reads it.
    store, open_work, _ = running_thread(org)
    with CaptureQueriesContext(connection) as statements:
        message = store.answer("Started a thread for it.", saw_upto=0, works=[], usage=USAGE, counted=[open_work])
    if connection.vendor == "postgresql":
        assert len(statements) == 1 and "synchronous_commit" not in statements[0]["sql"]
        assert _synchronous_commit() == "on"
    kept = Message.objects.get(id=message.id)
    assert (kept.seq, kept.role, kept.text) == (1, Message.Role.AGENT, "Started a thread for it.")
    assert Usage.objects.filter(conversation=store.conversation).count() == 1
    open_work.refresh_from_db()
    assert (open_work.steps, open_work.state, open_work.latest_reply) == (
        1, Work.State.OPEN, "Started a thread for it.")
    Conversation.objects.filter(id=store.conversation.id).update(lease_token=uuid.uuid4())  # another worker's
    with pytest.raises(LeaseLost):
        store.answer("Again.", saw_upto=1, works=[], usage=USAGE, counted=[open_work])
    assert Message.objects.filter(conversation=store.conversation).count() == 2


@pytest.mark.django_db
def test_an_answer_after_others_wrote_keeps_saw_upto_and_one_whose_lease_was_taken_writes_nothing(org):
    store, open_work, _ = running_thread(org)
    services.message_append(conversation=store.conversation, role=Message.Role.OWNER, text="Also Lee")
    with transaction.atomic():
        message = store.answer("Dana is at Juniper Dental.", saw_upto=0, works=[open_work], usage=USAGE,
                               counted=[open_work])
    assert message.seq == 2 and Message.objects.get(id=message.id).data == {"saw_upto": 0}
    Conversation.objects.filter(id=store.conversation.id).update(lease_token=uuid.uuid4())  # another worker's
    before = (Message.objects.count(), Usage.objects.count())
    with pytest.raises(LeaseLost), transaction.atomic():
        store.answer("Lee too.", saw_upto=2, works=[], usage=USAGE, counted=[open_work])
    assert (Message.objects.count(), Usage.objects.count()) == before


def _ending(org):
    store, open_work, _ = running_thread(org)
    run = Run.objects.create(organization=org, conversation=store.conversation, agent=store.conversation.agent,
                             started_at=timezone.now())
    run.outcome, run.finished_at, run.steps = Run.Outcome.ANSWERED, timezone.now(), 3
    return store, run


@pytest.mark.django_db(transaction=True)
def test_a_turn_that_read_everything_ends_in_one_statement(org, monkeypatch):
    from django.test.utils import CaptureQueriesContext

    monkeypatch.setattr(scheduler, "dispatch", lambda **_: [])
    store, run = _ending(org)
    asked = []
    with CaptureQueriesContext(connection) as ran:
        store.run_ended(run, more_to_do=lambda next_seq: asked.append(next_seq) or False, known_upto=0)
    assert asked == [1]  # the counter after the last seq the turn read (the packet, seq 0), or as it is locked
    if connection.vendor == "postgresql":
        assert len(ran.captured_queries) == 1
    conversation = Conversation.objects.get(id=store.conversation.id)
    assert (conversation.state, conversation.lease_token, conversation.lease_until) == ("idle", None, None)
    kept = Run.objects.get(id=run.id)
    assert (kept.outcome, kept.steps, kept.finished_at) == (Run.Outcome.ANSWERED, 3, run.finished_at)


@pytest.mark.django_db(transaction=True)
def test_a_message_after_the_turns_last_read_sends_its_end_the_locked_way_and_the_turn_goes_on(org, monkeypatch):
    monkeypatch.setattr(scheduler, "dispatch", lambda **_: [])
    store, run = _ending(org)
    services.message_append(conversation=store.conversation, role=Message.Role.OWNER, text="And Lee?")  # seq 1
    asked = []
    store.run_ended(run, more_to_do=lambda next_seq: asked.append(next_seq) or next_seq == 2, known_upto=0)
    # Asked of the counter it read (PostgreSQL's one statement, which found it moved on), then of the counter locked.
    assert asked == ([1, 2] if connection.vendor == "postgresql" else [2])
    conversation = Conversation.objects.get(id=store.conversation.id)
    assert (conversation.state, conversation.lease_token) == ("queued", None)
    assert Run.objects.get(id=run.id).outcome == Run.Outcome.ANSWERED


@pytest.mark.django_db(transaction=True)
def test_a_turn_whose_lease_was_taken_ends_nothing(org, monkeypatch):
    monkeypatch.setattr(scheduler, "dispatch", lambda **_: [])
    store, run = _ending(org)
    taken = uuid.uuid4()
    Conversation.objects.filter(id=store.conversation.id).update(lease_token=taken)  # another worker's
    with pytest.raises(LeaseLost):
        store.run_ended(run, more_to_do=lambda next_seq: False, known_upto=0)
    conversation = Conversation.objects.get(id=store.conversation.id)
    assert (conversation.state, conversation.lease_token) == ("running", taken)
    assert Run.objects.get(id=run.id).outcome == Run.Outcome.RUNNING


@pytest.mark.django_db
def test_the_rows_a_tool_held_go_out_in_its_results_statement(org):
    """A tool's change record (and a contact's log entry) is held by its transaction (core.rows.holding_writes) and
    written by the statement that records the call's result: on PostgreSQL one round trip for the three."""
    store, open_work, _ = running_thread(org)
    saved, _ = store.save_step("", CALLS[:1], saw_upto=0, usage=USAGE, works=[open_work])
    actor = Actor.for_agent(store.conversation.agent)
    with CaptureQueriesContext(connection) as queries, transaction.atomic(), rows.holding_writes():
        change = change_record(org=org, actor=actor, tool="contacts.update", kind="changes",
                               sentence="changed Dana's job title to Office manager", listing="record")
        message = store.record_result(saved[0], {"done": True})
    assert Change.objects.get(id=change.id).sentence == "changed Dana's job title to Office manager"
    assert Message.objects.get(id=message.id).seq == 2 and ToolCall.objects.get(id=saved[0].id).done_at
    ran = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    if connection.vendor == "postgresql":
        assert len(ran) == 1 and ran[0].startswith('WITH held0 AS (INSERT INTO "roadstar_change"')


@pytest.mark.django_db
def test_a_result_whose_lease_was_taken_writes_none_of_the_rows_the_tool_held(org):
    store, open_work, _ = running_thread(org)
    saved, _ = store.save_step("", CALLS[:1], saw_upto=0, usage=USAGE, works=[open_work])
    Conversation.objects.filter(id=store.conversation.id).update(lease_token=uuid.uuid4())  # another worker has it
    actor = Actor.for_agent(store.conversation.agent)
    with pytest.raises(LeaseLost), transaction.atomic(), rows.holding_writes():
        change = change_record(org=org, actor=actor, tool="contacts.update", kind="changes",
                               sentence="changed Dana's job title", listing="record")
        store.record_result(saved[0], {"done": True})
    assert not Change.objects.filter(id=change.id).exists()
    assert ToolCall.objects.get(id=saved[0].id).done_at is None


UPDATE_DANA = [ToolCallRequest(id="call_1", name="use_tool", arguments={
    "name": "contacts.update", "input": {"contactId": "c1", "jobTitle": "Office manager"}})]


@pytest.mark.django_db
def test_a_step_saved_in_its_writes_transaction_carries_the_rows_the_tool_held_and_its_commit_waits(org):
    """A step whose one call writes Roadstar's own records is saved after it, inside its transaction (Turn.
    _step_after_calls): the step, the call done and its result's message go out with the rows the tool held, on
    PostgreSQL in one statement, and that statement doesn't turn off waiting for the disk: the change commits with
    it."""
    store, open_work, _ = running_thread(org)
    actor = Actor.for_agent(store.conversation.agent)
    with CaptureQueriesContext(connection) as queries, transaction.atomic(), rows.holding_writes():
        change = change_record(org=org, actor=actor, tool="contacts.update", kind="changes",
                               sentence="changed Dana's job title to Office manager", listing="record")
        message, [answer] = store.save_step_with_results("Updating Dana.", UPDATE_DANA, [{"done": True}],
                                                         saw_upto=0, usage=USAGE, works=[open_work])
    assert Change.objects.filter(id=change.id).exists()
    assert [(m.seq, m.role) for m in Message.objects.filter(conversation=store.conversation).order_by("seq")] == [
        (0, "handoff"), (1, "agent"), (2, "tool")]
    assert (message.seq, answer.seq) == (1, 2)
    [done] = ToolCall.objects.filter(conversation=store.conversation)
    assert done.result == {"done": True} and done.done_at is not None and done.message_id == message.id
    assert Work.objects.get(id=open_work.id).steps == 1
    ran = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    if connection.vendor == "postgresql":
        assert len(ran) == 1 and ran[0].startswith('WITH held0 AS (INSERT INTO "roadstar_change"')
        assert "synchronous_commit" not in ran[0]


@pytest.mark.django_db
def test_a_step_saved_in_its_writes_transaction_whose_lease_was_taken_rolls_the_write_back(org):
    store, open_work, _ = running_thread(org)
    Conversation.objects.filter(id=store.conversation.id).update(lease_token=uuid.uuid4())  # another worker has it
    actor = Actor.for_agent(store.conversation.agent)
    with pytest.raises(LeaseLost), transaction.atomic(), rows.holding_writes():
        change = change_record(org=org, actor=actor, tool="contacts.update", kind="changes",
                               sentence="changed Dana's job title", listing="record")
        store.save_step_with_results("", UPDATE_DANA, [{"done": True}], saw_upto=0, usage=USAGE, works=[open_work])
    assert not Change.objects.filter(id=change.id).exists()
    assert not ToolCall.objects.filter(conversation=store.conversation).exists()
    assert list(Message.objects.filter(conversation=store.conversation).values_list("role", flat=True)) == [
        "handoff"]
    assert Work.objects.get(id=open_work.id).steps == 0
