"""core.rows writes the rows the ORM would, without compiling a statement each time; where it can't, the ORM does."""

from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext

from agents.models import Conversation, Message, ToolCall, Usage, Work
from core import rows
from core.models import Change
from tests.factories import AgentFactory


@pytest.fixture
def conversation(org):
    return Conversation.objects.create(organization=org, agent=AgentFactory(organization=org), kind="thread")


def stored(row) -> dict:
    """The row as the database gives it back, every field."""
    again = type(row).objects.get(pk=row.pk)
    return {f.attname: getattr(again, f.attname) for f in again._meta.concrete_fields}


def test_an_inserted_row_reads_back_as_the_orm_writes_it(conversation):
    data = {"tool_calls": [{"id": "c1", "name": "use_tool", "arguments": {"email": "dana@x.test"}}], "ü": None}
    ours = rows.insert(Message(conversation=conversation, seq=0, role="agent", text="Looking ü", data=data))
    theirs = Message.objects.create(conversation=conversation, seq=1, role="agent", text="Looking ü", data=data)
    drop = {"id", "seq", "created_at"}
    assert ({k: v for k, v in stored(ours).items() if k not in drop}, type(ours.id), ours._state.adding) == (
        {k: v for k, v in stored(theirs).items() if k not in drop}, int, False
    )


def test_an_inserted_row_gets_its_time_and_the_id_the_database_made(conversation, org):
    usage = rows.insert(Usage(organization=org, conversation=conversation, model="m", cost=Decimal("0.00012345")))
    assert stored(usage) == {f.attname: getattr(usage, f.attname) for f in Usage._meta.concrete_fields}


def test_a_failed_insert_spoils_the_transaction_it_is_in(conversation):
    rows.insert(Message(conversation=conversation, seq=0, role="owner", text="hi"))
    with pytest.raises(IntegrityError), transaction.atomic():
        rows.insert(Message(conversation=conversation, seq=0, role="owner", text="again"))
    assert Message.objects.filter(conversation=conversation).count() == 1


def test_a_model_with_a_save_receiver_is_saved_by_the_orm(conversation):
    heard = []

    def receiver(sender, instance, **kwargs):
        heard.append(instance.text)

    post_save.connect(receiver, sender=Message)
    try:
        rows.insert(Message(conversation=conversation, seq=0, role="owner", text="hi"))
    finally:
        post_save.disconnect(receiver, sender=Message)
    assert heard == ["hi"]


def test_updated_fields_read_back_and_the_rest_is_left(conversation):
    message = rows.insert(Message(conversation=conversation, seq=0, role="agent", text="calls"))
    call = rows.insert(ToolCall(conversation=conversation, message=message, call_id="c1", name="use_tool"))
    ToolCall.objects.filter(id=call.id).update(started_at="2026-12-01T10:00:00Z")  # (another process's write)
    call.result = {"done": True}
    rows.update_fields(call, ["result"])
    again = ToolCall.objects.get(id=call.id)
    assert (again.result, again.started_at is not None) == ({"done": True}, True)


def test_updating_a_row_that_is_gone_fails_as_the_orm_does(conversation):
    message = rows.insert(Message(conversation=conversation, seq=0, role="agent", text="calls"))
    call = rows.insert(ToolCall(conversation=conversation, message=message, call_id="c1", name="use_tool"))
    ToolCall.objects.filter(id=call.id).delete()
    with pytest.raises(ToolCall.NotUpdated):
        rows.update_fields(call, ["result"])


def test_count_up_gives_each_caller_the_next_value(conversation):
    Conversation.objects.filter(id=conversation.id).update(next_seq=5)  # as the counter stands in the database
    assert ([rows.count_up(conversation, "next_seq") for _ in range(2)], conversation.next_seq) == ([6, 7], 7)


def test_a_numbered_insert_takes_the_counter_and_writes_the_row_the_orm_would(conversation):
    """insert_numbered: the counter's next value as the row's number, the row as the ORM writes it, the counter and
    the id read back (on PostgreSQL one statement, on SQLite two)."""
    conversation.next_seq = 5
    conversation.save(update_fields=["next_seq"])
    data = {"tool_calls": [{"id": "c1", "name": "use_tool", "arguments": {"email": "dana@x.test"}}], "ü": None}
    ours = rows.insert_numbered(Message(conversation=conversation, role="agent", text="Looking ü", data=data), "seq",
                                conversation, "next_seq")
    theirs = Message.objects.create(conversation=conversation, seq=9, role="agent", text="Looking ü", data=data)
    drop = {"id", "seq", "created_at"}
    assert ({k: v for k, v in stored(ours).items() if k not in drop}, ours.seq, stored(ours)["seq"],
            conversation.next_seq, Conversation.objects.get(pk=conversation.pk).next_seq, type(ours.id)) == (
        {k: v for k, v in stored(theirs).items() if k not in drop}, 5, 5, 6, 6, int
    )


@pytest.mark.parametrize("limit, kept", [(3, "other"), (4, "given")])
def test_a_numbered_insert_takes_the_other_value_only_past_the_limit(conversation, limit, kept):
    conversation.next_seq = 4
    conversation.save(update_fields=["next_seq"])
    values = {"given": {"a": 1}, "other": {"a": 1, "saw_upto": 2}}
    message = rows.insert_numbered(Message(conversation=conversation, role="agent", text="", data=values["given"]),
                                   "seq", conversation, "next_seq", past=(limit, "data", values["other"]))
    assert (message.seq, message.data, stored(message)["data"]) == (4, values[kept], values[kept])


def test_a_numbered_insert_behind_a_fence_that_does_not_hold_writes_nothing(conversation):
    import uuid

    Conversation.objects.filter(pk=conversation.pk).update(lease_token=uuid.uuid4())
    with pytest.raises(Conversation.NotUpdated), transaction.atomic():
        rows.insert_numbered(Message(conversation=conversation, role="agent", text="late"), "seq", conversation,
                             "next_seq", fence=("lease_token", uuid.uuid4()))
    assert (Message.objects.filter(conversation=conversation).count(),
            Conversation.objects.get(pk=conversation.pk).next_seq) == (0, conversation.next_seq)


def test_add_one_counts_up_only_the_rows_it_names_that_match(org, conversation):
    agent = conversation.agent
    works = [Work.objects.create(organization=org, agent=agent, conversation=conversation, task=t, state=s)
             for t, s in (("a", "open"), ("b", "answered"), ("c", "open"))]
    counted = rows.add_one(Work, "steps", pks=[w.id for w in works[:2]], state="open")
    assert (counted, [Work.objects.get(id=w.id).steps for w in works]) == (1, [1, 0, 0])


# --- reads and plain updates --------------------------------------------------------------------------------------


def as_read(row) -> dict:
    return {f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields}


@pytest.fixture
def works(org, conversation):
    agent = conversation.agent
    return [Work.objects.create(organization=org, agent=agent, conversation=conversation, task=t, state=s,
                                chain=[{"agent": "x"}], owner_words=[{"text": t}])
            for t, s in (("a", "open"), ("b", "answered"), ("c", "open"))]


@pytest.mark.parametrize("where, orm", [
    ([("state", "=", "open")], {"state": "open"}),
    ([("state", "=", "open"), ("task", ">", "a")], {"state": "open", "task__gt": "a"}),
    ([("task", ">=", "b")], {"task__gte": "b"}),
    ([("task", "<", "b")], {"task__lt": "b"}),
    ([("task", "<=", "b")], {"task__lte": "b"}),
    ([("task", "in", ["a", "c", "z"])], {"task__in": ["a", "c", "z"]}),
    ([("answered_at", "is null", True)], {"answered_at__isnull": True}),
    ([("answered_at", "is null", False)], {"answered_at__isnull": False}),
])
def test_selected_rows_are_the_ones_the_orm_reads(conversation, works, where, orm):
    # Values of every kind come back as the ORM gives them: ids, times, JSON, an aware created_at.
    ours = rows.select(Work, [("conversation_id", "=", conversation), *where], order_by=["-task"])
    theirs = Work.objects.filter(conversation=conversation, **orm).order_by("-task")
    assert [as_read(w) for w in ours] == [as_read(w) for w in theirs]
    assert all(not w._state.adding for w in ours)


def test_a_select_joins_the_rows_it_names_and_caches_them_as_select_related_does(conversation, works):
    [ours] = rows.select(Work, [("id", "=", works[0].id)], related=["agent", "conversation"])
    theirs = Work.objects.select_related("agent", "conversation").get(id=works[0].id)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        read = (as_read(ours.agent), as_read(ours.conversation))
    assert (read, len(queries)) == ((as_read(theirs.agent), as_read(theirs.conversation)), 0)


def test_a_select_keeps_to_its_limit_and_order_and_an_empty_in_reads_nothing(conversation, works):
    assert [w.task for w in rows.select(Work, [("conversation_id", "=", conversation.pk)], order_by=["task"],
                                        limit=2)] == ["a", "b"]
    assert rows.select(Work, [("id", "in", [])]) == []


def test_a_select_of_a_column_the_model_has_not_is_refused(conversation):
    with pytest.raises(TypeError, match="no column 'conversation'"):
        rows.select(Work, [("conversation", "=", conversation)])
    with pytest.raises(TypeError, match="can't be null"):
        rows.select(Work, [], related=["requester"])


def test_an_update_changes_the_rows_that_match_and_says_how_many(conversation, works):
    changed = rows.update(Work, [("conversation_id", "=", conversation.pk), ("state", "=", "open")],
                          latest_reply="ü replied", answered_at=works[0].created_at)
    again = {w.task: w for w in Work.objects.filter(conversation=conversation)}
    assert changed == 2
    assert [(again[t].latest_reply, again[t].answered_at) for t in "abc"] == [
        ("ü replied", works[0].created_at), ("", None), ("ü replied", works[0].created_at)]
    assert rows.update(Work, [("id", "in", [])], state="passed") == 0


def test_an_update_takes_plain_values_only(conversation, works):
    from django.db.models import F

    with pytest.raises(TypeError, match="plain values only"):
        rows.update(Work, [("id", "=", works[0].id)], steps=F("steps") + 1)


@pytest.mark.django_db(transaction=True)
def test_a_row_written_without_waiting_for_the_disk_reads_back_and_leaves_the_session_waiting(org):
    conversation = Conversation.objects.create(organization=org, agent=AgentFactory(organization=org), kind="thread")
    usage = rows.insert(Usage(organization=org, conversation=conversation, model="m", cost=Decimal("0.5")),
                        wait_for_disk=False)
    assert stored(usage) == {f.attname: getattr(usage, f.attname) for f in Usage._meta.concrete_fields}
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            assert cursor.fetchone()[0] == "on"  # (set_config's setting was the statement's transaction's alone)


def test_a_row_a_statement_returned_is_made_as_a_query_makes_it(conversation):
    # core.locking.set_if_unchanged reads its UPDATE's RETURNING this way.
    message = Message.objects.create(conversation=conversation, seq=0, role="agent", text="ü", data={"a": [1]})
    columns = ", ".join(f'"{f.column}"' for f in Message._meta.concrete_fields)
    with rows.kept_cursor(connection) as cursor:
        cursor.execute(f'SELECT {columns} FROM "{Message._meta.db_table}" WHERE "id" = %s', [message.id])
        made = rows.from_row(Message, cursor.fetchone())
    assert {f.attname: getattr(made, f.attname) for f in Message._meta.concrete_fields} == stored(message)
    assert made.data == {"a": [1]} and made.created_at == message.created_at
    assert made.conversation_id == conversation.id and not made._state.adding


# --- writes held for the next statement (holding_writes) ---------------------------------------------------------

def a_change(org, sentence: str = "changed Dana's job title") -> Change:
    return Change(organization=org, actor_kind="agent", actor_id="a1", actor_name="Client desk",
                  tool="contacts.update", kind="changes", sentence=sentence, listing="record")


def statements_run(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]


def conversation_titled(conversation, title: str) -> None:
    """A statement of one's own that names no held row's table, with parameters (one a WITH can start)."""
    with rows.kept_cursor(connection) as cursor:
        cursor.execute(f'UPDATE "{Conversation._meta.db_table}" SET "title" = %s WHERE "id" = %s RETURNING "id"',
                       [title, Conversation._meta.pk.get_db_prep_value(conversation.id, connection)])
        assert len(cursor.fetchall()) == 1


@pytest.mark.django_db
def test_a_held_row_goes_out_with_the_next_statement(org, conversation):
    with CaptureQueriesContext(connection) as queries, transaction.atomic(), rows.holding_writes():
        made = rows.insert(a_change(org), held=True)
        conversation_titled(conversation, "Juniper Dental")
        update = Work.objects.filter(conversation=conversation).update(steps=1)  # (nothing held now: as it was)
    assert Change.objects.get(id=made.id).sentence == "changed Dana's job title" and update == 0
    assert Conversation.objects.get(id=conversation.id).title == "Juniper Dental"
    ran = statements_run(queries)
    if connection.vendor == "postgresql":
        assert len(ran) == 2 and ran[0].startswith('WITH held0 AS (INSERT INTO "roadstar_change"')
        assert ') UPDATE "agents_conversation" SET "title"' in ran[0] and ran[1].startswith('UPDATE "agents_work"')
    else:  # SQLite: written at once
        assert len(ran) == 3 and ran[0].startswith('INSERT INTO "roadstar_change"')


@pytest.mark.django_db
def test_a_statement_that_reads_a_held_rows_table_or_takes_no_with_has_them_written_first(org, conversation):
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        with rows.holding_writes():
            first = rows.insert(a_change(org), held=True)
            assert Change.objects.filter(id=first.id).exists()  # it names the table: the row went first, alone
            second = rows.insert(a_change(org, "changed Dana's phone"), held=True)
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")  # no parameters: nothing can be added to it
            third = rows.insert(a_change(org, "changed Dana's labels"), held=True)
            fourth = rows.insert(a_change(org, "changed Dana's labels again"), held=True)
        assert Change.objects.filter(id__in=[second.id, third.id, fourth.id]).count() == 3  # left: before the end
    if connection.vendor == "postgresql":
        ran = statements_run(queries)
        assert [q[:28] for q in ran[:5]] == ['INSERT INTO "roadstar_change', 'SELECT 1 AS "a" FROM "roadst',
                                            'INSERT INTO "roadstar_change', "SELECT 1", 'WITH held0 AS (INSERT INTO "']
        assert "held1 AS (INSERT" in ran[4] and ran[4].endswith("SELECT 1") and len(ran) == 6


@pytest.mark.django_db
def test_a_server_side_cursors_query_has_the_held_rows_written_first(org, conversation):
    # QuerySet.iterator() reads through a server-side cursor on PostgreSQL, whose DECLARE refuses a WITH that writes.
    with transaction.atomic(), rows.holding_writes():
        made = rows.insert(a_change(org), held=True)
        assert [c.id for c in Conversation.objects.filter(id=conversation.id).iterator(chunk_size=5)] == [
            conversation.id]
        assert Change.objects.filter(id=made.id).exists()


@pytest.mark.django_db
def test_held_rows_go_back_with_the_transaction_they_were_part_of(org):
    with pytest.raises(RuntimeError), transaction.atomic(), rows.holding_writes():
        made = rows.insert(a_change(org), held=True)
        raise RuntimeError("the tool failed")
    assert not Change.objects.filter(id=made.id).exists()
    with transaction.atomic(), rows.holding_writes():
        doomed = rows.insert(a_change(org), held=True)
        transaction.set_rollback(True)  # a transaction doomed quietly ends quietly: its held rows are dropped
    assert not Change.objects.filter(id=doomed.id).exists()


@pytest.mark.django_db
def test_a_row_made_in_a_savepoint_opened_inside_is_written_at_once_and_goes_back_with_it(org):
    def inserts_so_far() -> int:
        return sum(q.startswith('INSERT INTO "roadstar_change"') for q in statements_run(queries))

    with CaptureQueriesContext(connection) as queries, transaction.atomic(), rows.holding_writes():
        with pytest.raises(RuntimeError), transaction.atomic():
            lost = rows.insert(a_change(org), held=True)
            assert inserts_so_far() == 1  # written at once: the savepoint may go back alone
            raise RuntimeError("rolled back to the savepoint alone")
        with transaction.atomic(savepoint=False):  # no savepoint: a failure in it dooms the whole transaction
            kept = rows.insert(a_change(org), held=True)
        assert inserts_so_far() == (1 if connection.vendor == "postgresql" else 2)  # (PostgreSQL: held)
    assert not Change.objects.filter(id=lost.id).exists() and Change.objects.filter(id=kept.id).exists()


@pytest.mark.django_db(transaction=True)
def test_held_outside_a_scope_or_a_transaction_is_written_at_once(org):
    made = rows.insert(a_change(org), held=True)
    assert Change.objects.filter(id=made.id).exists()
    with CaptureQueriesContext(connection) as queries, rows.holding_writes():  # no transaction open: none held
        also = rows.insert(a_change(org), held=True)
        assert len(queries.captured_queries) == 1
    assert Change.objects.filter(id=also.id).exists()
