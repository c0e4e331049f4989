"""The turn's storage in the database (agents/runtime/storage.py's TurnStorage): Django's ORM, and the statements a
step takes every time kept made or written out (core/rows.py), as bench/step_cost.py measures them.

Locking: each of the turn's own messages takes the conversation's counter only while the claim's token is still
the conversation's (services.message_append), so a worker taken for dead writes nothing more; the turn's end reads
the counter under the conversation's lock (`locked_counter`) and hands it back in the same transaction.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from django.db import connection, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model
from django.utils import timezone

from agents import services
from agents.models import Agent, Conversation, MemoryLine, Message, Run, ToolCall, Usage, Work
from agents.runtime import memory, scheduler
from agents.runtime.agent_tools import tools_for_place
from agents.runtime.instructions import instructions_for, skill_names
from agents.runtime.messages import compact_json, input_waits, said_for_the_agent
from agents.runtime.model import ModelUsage, ToolCallRequest
from agents.runtime.packets import packet_text
from agents.runtime.storage import TurnState
from agents.signals import work_answered
from checks import services as check_services
from core import live, rows
from core.inputs import Uuid, as_uuid
from core.models import Organization
from core.services import card_open
from tools.catalog import browse_description
from tools.registry import ToolResult

logger = logging.getLogger(__name__)


class SqlTurnStorage:
    """A claimed conversation's turn, kept in the database. `keeper` renews the lease in a thread of its own and
    says when it was lost (None where nothing renews it: a test's transaction)."""

    def __init__(self, conversation: Conversation, *, lease: Uuid | None = None,
                 keeper: scheduler.LeaseKeeper | None = None, started: Run | None = None):
        self.conversation = conversation
        self.lease = lease
        self.keeper = keeper
        # The run the task's first statement wrote (for_task on PostgreSQL), which run_started hands back.
        self._started = started
        # The counter and the pause as the last call's result read them (record_result), for the next step.
        self._counted: tuple[int, bool] | None = None

    @classmethod
    def for_task(cls, conversation_id: str, lease: str | None) -> SqlTurnStorage | None:
        """The worker task's storage: None when the conversation isn't running, or its claim is no longer the
        task's (the broker handed a dead worker's task out again, after the conversation was claimed again), or
        the lease can't be renewed as the turn starts (the claim's waited for a worker)."""
        given = lease is not None and lease != "None"  # (a task queued before claims carried a token: none)
        token = as_uuid(lease) if given else None
        if token is not None and connection.vendor == "postgresql" and not connection.in_atomic_block:
            return cls._started_by_task(conversation_id, token)
        found = rows.select(Conversation, [("id", "=", conversation_id)], related=["agent", "organization"])
        conversation = found[0] if found else None
        if conversation is None or conversation.state != Conversation.State.RUNNING:
            return None
        if given and (conversation.lease_token is None or str(conversation.lease_token) != lease):
            logger.info("turn of %s: its claim was handed to another worker; this task does nothing", conversation_id)
            return None
        conversation.agent.organization = conversation.organization  # (the same row: read once)
        token = conversation.lease_token
        # The renewals run in a thread of their own, with its own connection; not inside a transaction of the
        # caller's (the tests'), which the thread's writes would wait for.
        keeper = scheduler.LeaseKeeper(conversation.id, token) if (
            token is not None and not connection.in_atomic_block) else None
        if keeper is not None and not keeper.renew():
            return None
        return cls(conversation, lease=token, keeper=keeper)

    @classmethod
    def _started_by_task(cls, conversation_id: str, token: Uuid) -> SqlTurnStorage | None:
        """for_task on PostgreSQL: the turn started in one statement (_start_statement), where it took three round
        trips and two commits that waited for the disk: the conversation with its agent and workspace read, the
        lease renewed, and the run's row written, each only while the conversation is running under the task's
        claim; run_started hands that run back. It commits without waiting for the disk: a crash of the database
        server could lose it only with every write of the turn after it, up to the turn's first commit that waits
        (a call to an app, an answer), which writes this one to disk with it; the claim's lease stands as the claim
        wrote it, so the conversation is handed out again when it runs out."""
        db = connections["default"]
        now = timezone.now()
        template = Run(started_at=now)  # (its workspace, conversation and agent come from the conversation's row)
        columns, values, params = rows.insert_parts(template, db, given=_RUN_FROM_CONVERSATION)
        with rows.kept_cursor(db) as cursor:
            cursor.execute(_start_statement(columns, values), [
                now + scheduler.lease_length(), Conversation._meta.pk.get_db_prep_value(conversation_id, db),
                token, Conversation.State.RUNNING.value, *params])
            found = cursor.fetchone()
        if found is None:
            logger.info("turn of %s: it isn't running, or its claim was handed to another worker; this task does "
                        "nothing", conversation_id)
            return None
        conversation, agent, organization = _rows_in_order(found[1:], Conversation, Agent, Organization)
        agent.organization = organization
        conversation.agent, conversation.organization = agent, organization
        run = Run(id=found[0], organization=organization, conversation=conversation, agent=agent, started_at=now)
        run._state.adding, run._state.db = False, "default"
        return cls(conversation, lease=token, keeper=scheduler.LeaseKeeper(conversation.id, token), started=run)

    @contextlib.contextmanager
    def lease_kept(self) -> Iterator[None]:
        """The lease renewed while the turn runs."""
        with self.keeper or contextlib.nullcontext():
            yield

    # --- the run ------------------------------------------------------------------------------------------------

    def run_started(self) -> Run:
        if self._started is not None:  # (written as the task found the conversation: _started_by_task)
            run, self._started = self._started, None
            return run
        conversation = self.conversation
        return rows.insert(Run(  # (a kept statement: every turn writes one)
            organization=conversation.organization, conversation=conversation, agent=conversation.agent,
            started_at=timezone.now(),
        ))

    def lease_lost(self) -> bool:
        return self.keeper is not None and self.keeper.lost

    def run_failed(self, run: Run, error: Exception) -> bool:
        Run.objects.filter(id=run.id, outcome=Run.Outcome.RUNNING).update(
            outcome=Run.Outcome.FAILED, finished_at=timezone.now(), error=repr(error), steps=run.steps)
        return scheduler.finish(conversation=self.conversation, more_to_do=False, lease=self.lease)

    def run_paused(self, run: Run) -> None:
        # Back in the queue: it runs when the owner raises the budget.
        with transaction.atomic():
            record_run_end(run)
            Conversation.objects.filter(id=self.conversation.id, lease_token=self.lease).update(
                state=Conversation.State.QUEUED, queued_at=timezone.now(), lease_token=None, lease_until=None,
            )

    def run_ended(self, run: Run, *, more_to_do: Callable[[int | None], bool], known_upto: int | None = None) -> None:
        if known_upto is not None and connection.vendor == "postgresql" and not connection.in_atomic_block and \
                self._run_ended_in_one_statement(run, next_seq=known_upto + 1, more=more_to_do(known_upto + 1)):
            return
        # Looked at and handed back in one transaction, the conversation's row locked (SQLite: the write lock an
        # IMMEDIATE transaction holds from its start). The owner's message is appended and woken in one
        # transaction under that same lock, so it is either seen here (queued again) or finds the conversation idle
        # and queues it itself. Looked at outside, a message sent between the look and `finish` was left
        # unanswered. The run's end is written in it too (one commit a turn less).
        with transaction.atomic():
            record_run_end(run)
            more = more_to_do(locked_counter(self.conversation))
            if not scheduler.finish(conversation=self.conversation, more_to_do=more, lease=self.lease):
                raise scheduler.LeaseLost(f"conversation {self.conversation.id} was claimed again")  # (rolls back)

    def _run_ended_in_one_statement(self, run: Run, *, next_seq: int, more: bool) -> bool:
        """run_ended on PostgreSQL when nothing came in since the turn's last read (the common end of a turn): the
        conversation handed back (`more`: queued again, else idle) and the run's end written in one statement,
        only while the conversation's counter is still `next_seq` and its lease the turn's, where the transaction
        took five round trips (BEGIN, the run, the counter locked, the hand-back, COMMIT). The UPDATE locks the
        row as it checks the counter, as the transaction's FOR UPDATE did: an owner's message appended after it
        finds the conversation idle and queues it itself. False, with nothing written, when the counter moved or the
        lease is gone: run_ended then takes the transaction's way, which says which."""
        conversation = self.conversation
        db = connections["default"]
        now = timezone.now()
        state = Conversation.State.QUEUED if more else Conversation.State.IDLE
        fields = _run_end_fields()
        with transaction.mark_for_rollback_on_error(), rows.kept_cursor(db) as cursor:
            cursor.execute(_end_statement(), [
                state.value, now if more else None, conversation.pk, next_seq, self.lease, self.lease,
                *[f.get_db_prep_save(getattr(run, f.attname), db) for f in fields], run.pk, Run.Outcome.RUNNING.value,
            ])
            handed = cursor.fetchone()[0]
        if not handed:
            return False
        org_id = conversation.organization_id
        transaction.on_commit(lambda: scheduler.dispatch(org_id=org_id))  # (as scheduler.finish: at once here)
        return True

    # --- reading --------------------------------------------------------------------------------------------------

    def fold_memory(self) -> list[MemoryLine]:
        return memory.fold_and_show(self.conversation, limit=lambda: fold_limit(self.conversation))

    def load(self, lines: list[MemoryLine] | None) -> TurnState:
        conversation = self.conversation
        staff = rows.select(Agent, [("organization_id", "=", conversation.organization.pk)],
                            order_by=["-is_roadstar", "name"])
        system = instructions_for(conversation, staff=staff, skills=skill_names(agent=conversation.agent))
        if lines is None:
            lines = memory.top_lines(conversation)
        preamble = memory.memory_preamble(lines)
        upto = memory.folded_upto(lines)
        messages = messages_from(conversation, ">=", upto)
        # After the messages: work whose message came in between is read too, as not yet seen (Turn._seen).
        return TurnState(system=system + "\n\n" + preamble if preamble else system, folded_upto=upto,
                         messages=messages, works=self.open_works())

    def tool_specs(self, place: str) -> list[dict]:
        specs = []
        for tool in tools_for_place(place):
            spec = tool.spec()
            if tool.name == "browse_tools":
                spec = {**spec, "description": browse_description(self.conversation.organization)}
            specs.append(spec)
        return specs

    def counter_and_pause(self) -> tuple[int, bool]:
        # Read with the last call's result when that was the storage's last write (PostgreSQL: the result's
        # statement returns them), else now.
        counted, self._counted = self._counted, None
        return counted if counted is not None else counter_and_pause(self.conversation)

    def messages_after(self, seq: int) -> list[Message]:
        return messages_from(self.conversation, ">", seq)

    def messages_before(self, seq: int) -> list[Message]:
        return list(Message.objects.filter(conversation=self.conversation, seq__lt=seq).order_by("seq"))

    def open_works(self) -> list[Work]:
        return rows.select(Work, [("conversation_id", "=", self.conversation.pk), ("state", "=", Work.State.OPEN)],
                           order_by=["created_at"])

    def unfinished_calls(self) -> list[ToolCall]:
        return list(ToolCall.objects.filter(conversation=self.conversation, done_at__isnull=True).order_by("id"))

    def has_new_input(self) -> bool:
        return has_new_input(self.conversation)

    def last_outcomes(self, run: Run, n: int) -> list[str]:
        return list(Run.objects.filter(conversation=self.conversation).exclude(id=run.id)
                    .order_by("-started_at").values_list("outcome", flat=True)[:n])

    def memory_text(self) -> str:
        return memory.memory_text(self.conversation)

    # --- writing --------------------------------------------------------------------------------------------------

    def transaction(self) -> contextlib.AbstractContextManager[object]:
        return transaction.atomic()

    def count_step(self, usage: ModelUsage, works: list[Work]) -> None:
        conversation = self.conversation
        services.usage_record(org=conversation.organization, agent=conversation.agent, conversation=conversation,
                              purpose="turn", model_id=conversation.agent.model, usage=usage)
        if works:  # (by a kept statement: every step writes it)
            rows.add_one(Work, "steps", pks=[w.id for w in works], state=Work.State.OPEN)

    def save_step(self, text: str, calls: list[ToolCallRequest], *, saw_upto: int, usage: ModelUsage,
                  works: list[Work]) -> tuple[list[ToolCall], Message]:
        self._counted = None
        if connection.vendor == "postgresql":
            return self._save_step_in_one_statement(text, calls, saw_upto=saw_upto, usage=usage, works=works)
        with transaction.atomic():
            return self._step_rows(text, calls, saw_upto=saw_upto, usage=usage, works=works)

    def _step_rows(self, text: str, calls: list[ToolCallRequest], *, saw_upto: int, usage: ModelUsage,
                   works: list[Work]) -> tuple[list[ToolCall], Message]:
        """save_step's rows one by one (SQLite), inside the caller's transaction."""
        self.count_step(usage, works)
        message = services.message_append(
            conversation=self.conversation, role=Message.Role.AGENT, text=text, lease=self.lease,
            data=_step_data(calls), saw_upto=saw_upto,
        )
        made = [
            ToolCall(conversation=self.conversation, message=message, call_id=c.id, name=c.name,
                     arguments=c.arguments)
            for c in calls
        ]
        # One call (most steps) by the kept statement (core.rows); several in one insert.
        saved = [rows.insert(made[0])] if len(made) == 1 else ToolCall.objects.bulk_create(made)
        if text:
            self._latest_reply(text)
        return saved, message  # with their ids: SQLite and PostgreSQL both return them from a bulk insert

    def _save_step_in_one_statement(self, text: str, calls: list[ToolCallRequest], *, saw_upto: int,
                                    usage: ModelUsage, works: list[Work]) -> tuple[list[ToolCall], Message]:
        """save_step on PostgreSQL: the step's rows in one statement (_step_statement), one round trip where the
        transaction took six (BEGIN, the usage, the work's count, the message, its calls, COMMIT). It commits
        by itself, without waiting for the disk (`synchronous_commit` off for it alone), unless the caller holds
        a transaction: a server crash could lose it, which reads as a step never taken (the model is asked again),
        and nothing outside the database can depend on it first: a call that writes to an app is marked started
        (call_started) by a commit that waits, which writes every earlier commit to disk with it, and a call's
        result commits the same way."""
        made, message = self._step_in_one_statement(text, _step_data(calls), calls, saw_upto=saw_upto, usage=usage,
                                                    works=works)
        ids = {call_id: pk for pk, call_id, _, _ in made}
        saved = []
        for c in calls:
            call = ToolCall(id=ids[c.id], conversation=self.conversation, message=message, call_id=c.id,
                            name=c.name, arguments=c.arguments)
            call._state.adding, call._state.db = False, "default"
            saved.append(call)
        return saved, message

    def save_step_with_results(self, text: str, calls: list[ToolCallRequest], results: list[ToolResult], *,
                               saw_upto: int, usage: ModelUsage, works: list[Work]) -> tuple[Message, list[Message]]:
        self._counted = None
        if connection.vendor == "postgresql":
            return self._step_with_results_in_one_statement(text, calls, results, saw_upto=saw_upto, usage=usage,
                                                            works=works)
        # One transaction with no savepoint: its own, or the last call's (which rolls back whole if this fails).
        with transaction.atomic(savepoint=False):
            saved, message = self._step_rows(text, calls, saw_upto=saw_upto, usage=usage, works=works)
            answers = [self.record_result(call, result) for call, result in zip(saved, results, strict=True)]
        return message, answers

    def _step_with_results_in_one_statement(self, text: str, calls: list[ToolCallRequest],
                                            results: list[ToolResult], *, saw_upto: int, usage: ModelUsage,
                                            works: list[Work]) -> tuple[Message, list[Message]]:
        """save_step_with_results on PostgreSQL: the step, its calls done with their results, and the results'
        messages in one statement (_step_statement with `answers`), one round trip where a step and each call's
        result took one each. Inside the last call's transaction it commits with that call's writes (and the rows
        they held: core.rows.holding_writes go out with it), waiting for the disk. By itself (the calls only read)
        it commits without waiting, as a step does: a server crash could lose it, which reads as a step never
        taken, whose reads are made again. It reads the conversation's counter and the agent's pause for the loop's
        next step, as a call's result does (counter_and_pause)."""
        answers = [Message(conversation=self.conversation, role=Message.Role.TOOL, text=compact_json(result),
                           data={"call_id": c.id, "name": c.name})
                   for c, result in zip(calls, results, strict=True)]
        made, message = self._step_in_one_statement(text, _step_data(calls), calls, saw_upto=saw_upto, usage=usage,
                                                    works=works, answers=(results, answers))
        for answer, (_, answer_id, seq) in zip(answers, made[1:], strict=True):
            answer.id, answer.seq, answer.created_at = answer_id, seq, message.created_at  # (the statement's time)
            answer._state.adding, answer._state.db = False, "default"
        self.conversation.next_seq = made[-1][-1] + 1
        self._counted = (self.conversation.next_seq, bool(made[0][0]))
        return message, answers

    def _step_in_one_statement(self, text: str, data: dict, calls: list[ToolCallRequest] | None, *, saw_upto: int,
                               usage: ModelUsage, works: list[Work],
                               answers: tuple[list[ToolResult], list[Message]] | None = None,
                               wait_for_disk: bool = False) -> tuple[list[tuple], Message]:
        """A step's rows by _step_statement: its usage, its count on `works`, its message (with `data`) and, unless
        `calls` is None (a reply), its calls; with `answers` (the calls' results and their messages, unsaved: a step
        saved after its calls, save_step_with_results), the calls done with them and the messages after the step's.
        Returns the rows it returned (a call's id, call_id, the message's id and seq each; a reply's message id and
        seq; with answers, the agent's pause, a message's id and seq for the step's and each answer's, in seq
        order), and the step's message. Its commit waits for the disk inside a caller's transaction (which commits
        it) or with `wait_for_disk`; else it doesn't (core.rows.UNWAITED)."""
        conversation, agent = self.conversation, self.conversation.agent
        db = connections["default"]  # (the wrapper itself: each attribute of the `connection` proxy is a lookup)
        now = timezone.now()
        past = {**data, "saw_upto": saw_upto}
        message = Message(conversation=conversation, role=Message.Role.AGENT, text=text, data=data, created_at=now)
        used = services.usage_row(org=conversation.organization, agent=agent, conversation=conversation,
                                  purpose="turn", model_id=agent.model, usage=usage)
        used.at = now
        sql, usage_params = _step_statement(used, db, wait_for_disk=db.in_atomic_block or wait_for_disk,
                                            calls=calls is not None, answers=answers is not None)
        json_field = Message._meta.get_field("data")
        taken = [1 + len(answers[1])] if answers is not None else []  # the seqs it takes: the step's, the answers'
        params = [
            *taken, conversation.pk, self.lease, self.lease, *taken,  # counted (no lease: not fenced)
            conversation.pk, Message.Role.AGENT.value, text, saw_upto + 1,  # the message
            json_field.get_db_prep_save(past, db), json_field.get_db_prep_save(data, db), now,
            *usage_params,  # its usage
            [w.id for w in works], bool(text), conversation.pk, text[:2000], Work.State.OPEN.value,  # the work
            [w.id for w in works], bool(text), conversation.pk,
        ]
        if calls is not None:
            given: list[dict[str, Any]] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]
            if answers is not None:
                for each, result in zip(given, answers[0], strict=True):
                    each["result"] = result
            params += [conversation.pk, *([now] if answers is not None else []),
                       db.ops.adapt_json_value(given, None)]  # its calls
        if answers is not None:
            params += [conversation.pk, now, db.ops.adapt_json_value(  # the answers' messages
                [{"text": a.text, "data": a.data} for a in answers[1]], None)]
        with transaction.mark_for_rollback_on_error(), rows.kept_cursor(db) as cursor:
            cursor.execute(sql, params)
            made = cursor.fetchall()
        if not made:
            raise scheduler.LeaseLost(f"conversation {conversation.id} is no longer this worker's")
        message.id, message.seq = made[0][-2], made[0][-1]
        if message.seq > saw_upto + 1:
            message.data = past
        message._state.adding, message._state.db = False, "default"
        conversation.next_seq = message.seq + 1
        live.notify(conversation.organization_id, "chat", conversation=conversation.id)  # (after its commit)
        services.agent_keep_to_budget(agent=agent)
        return made, message

    def answer(self, text: str, *, saw_upto: int, works: list[Work], usage: ModelUsage | None = None,
               counted: list[Work] | None = None) -> Message:
        self._counted = None
        if usage is not None and not works and connection.vendor == "postgresql":
            # A reply that answers no work (a chat's, once it routed the work): its one statement commits by itself,
            # waiting for the disk as a transaction's commit would (the owner reads it), without BEGIN and COMMIT.
            _, message = self._step_in_one_statement(text, {}, None, saw_upto=saw_upto, usage=usage,
                                                     works=counted or [], wait_for_disk=True)
            return message
        with transaction.atomic():  # (its own; inside a caller's, a savepoint that a lost lease rolls back to)
            if usage is not None and connection.vendor == "postgresql":
                # The step's usage, its count, the reply and the latest reply: one statement, as a step's.
                _, message = self._step_in_one_statement(text, {}, None, saw_upto=saw_upto, usage=usage,
                                                         works=counted or [])
            else:
                if usage is not None:
                    self.count_step(usage, counted or [])
                message = services.message_append(conversation=self.conversation, role=Message.Role.AGENT,
                                                  text=text, saw_upto=saw_upto, lease=self.lease)
                self._latest_reply(text)
            # The turn's open work as it read it (its rows don't change but for their state and route): its
            # conversation is this one and its agent this turn's. Each is answered only if it is still open, which
            # the update's own condition says (answer_work), so nothing is read again.
            for work in works:
                work.conversation = self.conversation
                if work.agent_id == self.conversation.agent.id:
                    work.agent = self.conversation.agent
                answer_work(work, text)
        return message

    def append(self, role: str, text: str, *, data: dict | None = None, saw_upto: int | None = None,
               fenced: bool = True) -> Message:
        self._counted = None
        with transaction.atomic(savepoint=False):  # (inside a step's transaction, or its own)
            return services.message_append(conversation=self.conversation, role=role, text=text, data=data,
                                           saw_upto=saw_upto, lease=self.lease if fenced else None)

    def call_started(self, call: ToolCall) -> None:
        # Marked only while the lease is this worker's: a replaced one must not call the app.
        if self.lease is not None and not Conversation.objects.filter(
                id=self.conversation.id, lease_token=self.lease).exists():
            raise scheduler.LeaseLost(f"conversation {self.conversation.id} was claimed again")
        ToolCall.objects.filter(id=call.id).update(started_at=timezone.now())

    def record_result(self, call: ToolCall, result: ToolResult) -> Message:
        call.result = result
        call.done_at = timezone.now()
        if connection.vendor == "postgresql":
            return self._record_result_in_one_statement(call)
        with transaction.atomic(savepoint=False):  # (inside the call's transaction, or its own)
            rows.update_fields(call, ["result", "done_at"])
            return services.message_append(
                conversation=self.conversation, role=Message.Role.TOOL, text=compact_json(call.result),
                data={"call_id": call.call_id, "name": call.name}, lease=self.lease,
            )

    def _record_result_in_one_statement(self, call: ToolCall) -> Message:
        """record_result on PostgreSQL: the call done and its result's message in one statement (_result_statement),
        which also reads the conversation's counter and the agent's pause for the loop's next step
        (counter_and_pause): one round trip where there were three. Inside the call's transaction (a tool that
        writes) it commits with the tool's writes; on its own (a tool that only reads: tools.pipeline) it commits
        by itself, without waiting for the disk, as a step does (_save_step_in_one_statement): a read run again
        after a server crash costs nothing."""
        conversation = self.conversation
        db = connections["default"]
        done_at = call.done_at or timezone.now()
        message = Message(conversation=conversation, role=Message.Role.TOOL, text=compact_json(call.result),
                          data={"call_id": call.call_id, "name": call.name}, created_at=done_at)
        json_field = ToolCall._meta.get_field("result")
        # (Inside a tool's transaction, the rows its writes held go out with this statement: core.rows.holding_writes.)
        params = [conversation.pk, self.lease, self.lease,
                  json_field.get_db_prep_save(call.result, db), done_at, call.pk,
                  conversation.pk, message.text,
                  Message._meta.get_field("data").get_db_prep_save(message.data, db), done_at]
        with transaction.mark_for_rollback_on_error(), rows.kept_cursor(db) as cursor:
            cursor.execute(_result_statement(wait_for_disk=db.in_atomic_block), params)
            made = cursor.fetchone()
        if made is None:
            raise scheduler.LeaseLost(f"conversation {conversation.id} is no longer this worker's")
        message.id, message.seq, done, paused = made
        if not done:  # (as rows.update_fields: the call is gone; a transaction around it rolls back)
            raise rows.not_updated(ToolCall)
        message._state.adding, message._state.db = False, "default"
        conversation.next_seq = message.seq + 1
        self._counted = (conversation.next_seq, bool(paused))
        live.notify(conversation.organization_id, "chat", conversation=conversation.id)  # (after its commit)
        return message

    def work_passed(self, work: Work) -> None:
        rows.update(Work, [("id", "=", work.id), ("state", "=", Work.State.OPEN)], state=Work.State.PASSED)

    def work_routed(self, work: Work) -> None:
        rows.update(Work, [("id", "=", work.id)], routed_at=work.routed_at)

    def send_packet(self, thread: Conversation, *, sender: str, task: str, notes: str | None, links: list[str],
                    requester: Conversation | None, current: Work | None, group: Uuid | None,
                    and_then: str) -> Work:
        org, agent = self.conversation.organization, self.conversation.agent
        owner_words = current.owner_words if current else []
        packet = services.message_append(
            conversation=thread, role=Message.Role.HANDOFF,
            text=packet_text(sender=sender, task=task, notes=notes, links=links, owner_words=owner_words, org=org),
            data={"from_chat": True, "task": task, "notes": notes or "", "links": links, "owner_words": owner_words},
        )
        # The owner's yes, typed here, answers the thread's waiting ask: the thread's next run of that action goes
        # on it (checks.services.yes_from_chat; only the owner's own words, never the packet a model wrote).
        if owner_words and owner_words[-1].get("ref"):
            words = owner_words[-1]
            check_services.yes_from_chat(org=org, conversation_id=str(thread.id), words=words["text"],
                                         ref=words["ref"], given_at=_when(words.get("at")))
        work = services.work_open(
            org=org, agent=agent, conversation=thread, task=task, requester=requester,
            requested_by=current.requested_by if current else None, chain=current.chain if current else [],
            depth=current.depth if current else 0, owner_words=owner_words, and_then_group=group,
            and_then=and_then, seq=packet.seq,
        )
        scheduler.wake(conversation=thread)
        return work

    def say_no_model(self, explanation: str) -> None:
        card_open(
            org=self.conversation.organization, kind="model", subject="model",
            title="Connect a model so your agents can work", body=explanation, action_label="How to connect a model",
        )
        with transaction.atomic():
            services.message_append(
                conversation=self.conversation, role=Message.Role.AGENT,
                text=f"I can't work yet: {explanation} The card on Home says the same.",
                data={"no_model": True},
                lease=self.lease,
            )

    def try_again(self, body: str) -> None:
        try_again_card(self.conversation, body=body)

    def _latest_reply(self, text: str) -> None:
        rows.update(Work, [("conversation_id", "=", self.conversation.pk), ("state", "=", Work.State.OPEN)],
                    latest_reply=text[:2000])


def _step_data(calls: list[ToolCallRequest]) -> dict:
    """A step's message keeps its calls as the model made them (`raw`: the arguments' text, when it wasn't JSON)."""
    return {"tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments, "raw": c.raw_arguments}
                           for c in calls]}


def _counted(wait_for_disk: bool, *, seqs: bool = False) -> str:
    """The WITH both of a turn's one-statement writes start with: the conversation's counter taken (`counted`: the
    seq, `n`, and the agent) only while the turn's lease is the conversation's (no lease: not fenced, as
    services.message_append), and, unless the statement waits for the disk, the setting that it doesn't
    (core.rows.UNWAITED: the part that reads from `counted` reads from it too, or it isn't run). Its parameters:
    the conversation's id, then the lease twice; with `seqs`, how many seqs it takes (n is the first) before them
    and after them."""
    taken = "CAST(%s AS integer)" if seqs else "1"
    return (f"WITH {'' if wait_for_disk else rows.UNWAITED + ', '}counted AS ("
            f'UPDATE "{Conversation._meta.db_table}" SET "next_seq" = "next_seq" + {taken} '
            f'WHERE "id" = %s AND (CAST(%s AS uuid) IS NULL OR "lease_token" = CAST(%s AS uuid)) '
            f'RETURNING "next_seq" - {taken} AS n, "agent_id")')


_FROM_COUNTED = {True: "counted", False: "counted, unwaited"}
_STEP_STATEMENTS: dict[tuple[bool, bool, bool], str] = {}


def _step_statement(used: Usage, db: BaseDatabaseWrapper, *, wait_for_disk: bool,
                    calls: bool = True, answers: bool = False) -> tuple[str, list]:
    """The statement that saves a step on PostgreSQL, with the usage's parameters. Each part runs only when the
    conversation's counter was taken under the turn's lease (`counted`): the message takes the seq (with
    `saw_upto` in its data when others appended meanwhile, as services.message_append keeps it); the usage; one
    step more on each piece of open work the turn holds and, when the step says something, the latest reply on
    the conversation's open work (one UPDATE: two on the same row in one statement would keep only one); then the
    calls, one row each in the model's order, whose ids, with the message's, it returns. Without `calls` (a reply)
    it returns the message's id and seq. With `answers` (a step saved after its calls ran: save_step_with_results)
    the calls are written done, each with its result, and each result's message takes the seq after the step's, in the
    calls' order; it returns the agent's pause and each message's id and seq, the step's first. No row: the lease
    was lost, and nothing was written."""
    columns, values, params = rows.insert_parts(used, db)
    sql = _STEP_STATEMENTS.get((wait_for_disk, calls, answers))
    if sql is None:
        table = {m: f'"{m._meta.db_table}"' for m in (Agent, Message, Usage, Work, ToolCall)}
        done = ("NULLIF(e.value -> 'result', 'null'), NULL, CAST(%s AS timestamptz)" if answers
                else "NULL, NULL, NULL")
        calls_part = (
            f"INSERT INTO {table[ToolCall]} "
            f'("conversation_id", "message_id", "call_id", "name", "arguments", "result", "started_at", '
            f'"done_at") '
            f"SELECT CAST(%s AS uuid), step.id, e.value ->> 'id', e.value ->> 'name', e.value -> 'arguments', "
            f"{done} FROM step, jsonb_array_elements(CAST(%s AS jsonb)) WITH ORDINALITY AS e(value, i) "
            f"ORDER BY e.i")
        if answers:
            ending = (
                f", called AS ({calls_part}), "
                f"answered AS (INSERT INTO {table[Message]} "
                f'("conversation_id", "seq", "role", "text", "data", "created_at") '
                f"SELECT CAST(%s AS uuid), n + e.i, '{Message.Role.TOOL.value}', e.value ->> 'text', "
                f"e.value -> 'data', CAST(%s AS timestamptz) FROM {_FROM_COUNTED[wait_for_disk]}, "
                f"jsonb_array_elements(CAST(%s AS jsonb)) WITH ORDINALITY AS e(value, i) RETURNING id, seq) "
                f'SELECT (SELECT a."paused" FROM {table[Agent]} a WHERE a."id" = (SELECT "agent_id" FROM counted)), '
                f"id, seq FROM step UNION ALL SELECT NULL, id, seq FROM answered ORDER BY 3")
        elif calls:
            ending = f' {calls_part} RETURNING "id", "call_id", "message_id", (SELECT seq FROM step)'
        else:
            ending = " SELECT id, seq FROM step"
        sql = _STEP_STATEMENTS[(wait_for_disk, calls, answers)] = (
            f"{_counted(wait_for_disk, seqs=answers)}, "
            f"step AS (INSERT INTO {table[Message]} "
            f'("conversation_id", "seq", "role", "text", "data", "created_at") '
            f"SELECT CAST(%s AS uuid), n, CAST(%s AS varchar), CAST(%s AS text), "
            f"CASE WHEN n > CAST(%s AS integer) THEN CAST(%s AS jsonb) ELSE CAST(%s AS jsonb) END, "
            f"CAST(%s AS timestamptz) FROM {_FROM_COUNTED[wait_for_disk]} RETURNING id, seq), "
            f"used AS (INSERT INTO {table[Usage]} ({columns}) SELECT {values} FROM counted), "
            f"worked AS (UPDATE {table[Work]} SET "
            f'"steps" = "steps" + CASE WHEN "id" = ANY(CAST(%s AS uuid[])) THEN 1 ELSE 0 END, '
            f'"latest_reply" = CASE WHEN CAST(%s AS boolean) AND "conversation_id" = CAST(%s AS uuid) '
            f'THEN CAST(%s AS text) ELSE "latest_reply" END '
            f'WHERE "state" = CAST(%s AS varchar) AND ("id" = ANY(CAST(%s AS uuid[])) '
            f'OR (CAST(%s AS boolean) AND "conversation_id" = CAST(%s AS uuid))) AND EXISTS (SELECT 1 FROM counted))'
            + ending
        )
    return sql, params


# The run's own columns the turn's start takes from the conversation's row (`renewed`).
_RUN_FROM_CONVERSATION = {"organization": "renewed.organization_id", "conversation": "renewed.id",
                          "agent": "renewed.agent_id"}


@functools.cache
def _start_statement(columns: str, values: str) -> str:
    """The statement that starts a worker's turn on PostgreSQL (SqlTurnStorage._started_by_task): the lease renewed
    while the task's claim token is still the conversation's and it is running (`renewed`), the run's row written
    from that row, and the run's id returned with the conversation's, its agent's and its workspace's every column
    (each in its model's field order, as rows.from_row reads them); without waiting for the disk (core.rows.UNWAITED).
    Its parameters: the lease's new end, the conversation's id, the token and the running state, then the run's
    (core.rows.insert_parts). No row: it isn't running under that token, and nothing was written."""
    def every(model: type[Model], alias: str) -> str:
        return ", ".join(f'{alias}."{f.column}"' for f in model._meta.concrete_fields)

    return (
        f"WITH {rows.UNWAITED}, renewed AS ("
        f'UPDATE "{Conversation._meta.db_table}" SET "lease_until" = CAST(%s AS timestamptz) '
        f'WHERE "id" = %s AND "lease_token" = CAST(%s AS uuid) AND "state" = CAST(%s AS varchar) '
        f"RETURNING *), "
        f'started AS (INSERT INTO "{Run._meta.db_table}" ({columns}) SELECT {values} FROM renewed, unwaited '
        f'RETURNING "id") '
        f"SELECT started.id, {every(Conversation, 'renewed')}, {every(Agent, 'a')}, {every(Organization, 'o')} "
        f'FROM started, renewed JOIN "{Agent._meta.db_table}" a ON a."id" = renewed."agent_id" '
        f'JOIN "{Organization._meta.db_table}" o ON o."id" = renewed."organization_id"'
    )


def _rows_in_order(values: Sequence[Any], *models: type[Model]) -> list[Any]:
    """One row of each model from one statement's columns, each model's every column in its field order."""
    made, at = [], 0
    for model in models:
        width = len(model._meta.concrete_fields)
        made.append(rows.from_row(model, values[at:at + width]))
        at += width
    return made


@functools.cache
def _run_end_fields() -> list[Field[Any, Any]]:
    """RUN_END's columns, in its order."""
    by_name = {f.name: f for f in Run._meta.concrete_fields}
    return [by_name[name] for name in RUN_END]


@functools.cache
def _end_statement() -> str:
    """The statement that ends a turn on PostgreSQL (SqlTurnStorage._run_ended_in_one_statement): the conversation
    handed back while its counter is the one the turn read and its lease the turn's (no lease: not fenced), and the
    run's end written while it is running, only if the hand-back was; it returns how many were handed back (0 or
    1). Its parameters: the state and its queued_at, the conversation's id, the counter, the lease twice, then the
    run's RUN_END values, its id and the running outcome."""
    sets = ", ".join(f'"{field.column}" = %s' for field in _run_end_fields())
    return (
        f'WITH handed AS (UPDATE "{Conversation._meta.db_table}" SET "state" = CAST(%s AS varchar), '
        f'"queued_at" = CAST(%s AS timestamptz), "lease_token" = NULL, "lease_until" = NULL '
        f'WHERE "id" = %s AND "next_seq" = CAST(%s AS integer) '
        f'AND (CAST(%s AS uuid) IS NULL OR "lease_token" = CAST(%s AS uuid)) RETURNING 1), '
        f'ended AS (UPDATE "{Run._meta.db_table}" SET {sets} WHERE "id" = %s AND "outcome" = CAST(%s AS varchar) '
        f"AND EXISTS (SELECT 1 FROM handed)) "
        f"SELECT count(*) FROM handed"
    )


@functools.cache
def _result_statement(*, wait_for_disk: bool) -> str:
    """The statement that records a call's result on PostgreSQL: the conversation's counter taken under the turn's
    lease (`counted`), the call marked done with its result, and the result's message with the seq taken; it
    returns the message's id and seq, whether the call was there, and the agent's pause. No row: the lease was
    lost, and nothing was written."""
    table = {m: f'"{m._meta.db_table}"' for m in (Agent, Message, ToolCall)}
    return (
        f"{_counted(wait_for_disk)}, "
        f'done AS (UPDATE {table[ToolCall]} SET "result" = CAST(%s AS jsonb), "done_at" = CAST(%s AS timestamptz) '
        f'WHERE "id" = %s AND EXISTS (SELECT 1 FROM counted) RETURNING 1) '
        f"INSERT INTO {table[Message]} "
        f'("conversation_id", "seq", "role", "text", "data", "created_at") '
        f"SELECT CAST(%s AS uuid), n, '{Message.Role.TOOL.value}', CAST(%s AS text), CAST(%s AS jsonb), "
        f"CAST(%s AS timestamptz) FROM {_FROM_COUNTED[wait_for_disk]} "
        f'RETURNING "id", "seq", (SELECT count(*) FROM done), '
        f'(SELECT a."paused" FROM {table[Agent]} a WHERE a."id" = (SELECT "agent_id" FROM counted))'
    )


def try_again_card(conversation: Conversation, *, body: str) -> None:
    """Work that couldn't finish, on Home with Try again (one open card per conversation)."""
    agent = conversation.agent
    card_open(
        org=conversation.organization, kind="try_again", subject=f"try_again:{conversation.id}",
        title=f"{agent.name} couldn't finish{': ' + conversation.title if conversation.title else ''}",
        body=body, action_label="Try again", data={"conversation_id": str(conversation.id)},
    )


def answer_work(work: Work, text: str) -> bool:
    """Mark one piece of work answered and send the answer where it goes, exactly once."""
    now = timezone.now()
    if not rows.update(Work, [("id", "=", work.id), ("state", "=", Work.State.OPEN)],
                       state=Work.State.ANSWERED, answer=text, latest_reply=text[:2000], answered_at=now):
        return False
    live.notify(work.organization_id, "work")  # sent after commit: Home shows the work done
    work_answered.send(sender=Work, work=work, text=text)
    source = work.agent.name if work.conversation.kind == Conversation.Kind.CHAT else (
        f"{work.agent.name} · {work.conversation.title}"
    )
    if work.and_then_group:
        group = Work.objects.filter(and_then_group=work.and_then_group)
        if group.exclude(state=Work.State.ANSWERED).exists():
            return True
        answers = "\n".join(f"- {w.conversation.title}: {w.answer}" for w in group.select_related("conversation"))
        requester = work.requester
        if requester is None:  # (work sent on "and then" always comes from a conversation: send_to_thread)
            return True
        services.message_append(
            conversation=requester, role=Message.Role.ANSWER,
            text=f"[Answers from your threads]\n{answers}\nNow: {work.and_then}",
            data={"and_then_group": str(work.and_then_group)},
        )
        scheduler.wake(conversation=requester)
        return True
    if work.requester is None:
        # The owner asked: the answer reaches them on its own, in the agent's chat, without a chat turn.
        if work.conversation.kind == Conversation.Kind.THREAD:
            chat = services.chat_for(agent=work.agent)
            services.message_append(
                conversation=chat, role=Message.Role.ANSWER, text=f"[Answer from {source}] {text}",
                data={"work_id": str(work.id), "quiet": True},
            )
        return True
    services.message_append(
        conversation=work.requester, role=Message.Role.ANSWER, text=f"[Answer from {source}] {text}",
        data={"work_id": str(work.id), "from": work.agent.name},
    )
    scheduler.wake(conversation=work.requester)
    return True


def fold_limit(conversation: Conversation) -> int:
    """The first seq memory may not fold: the message of the oldest work open and unrouted here, or the first one
    the agent's last step hadn't seen (its prompt held up to its `saw_upto`, else everything before it), whichever
    comes first. Folding below it never hides a message no reply has answered or routed. (Read only when a fold
    is due.)"""
    last = (Message.objects.filter(conversation=conversation, role=Message.Role.AGENT).order_by("-seq")
            .values_list("seq", "data").first())
    limit = 0 if last is None else min(last[0], (last[1] or {}).get("saw_upto", last[0] - 1) + 1)
    oldest = (Work.objects.filter(conversation=conversation, state=Work.State.OPEN, routed_at__isnull=True,
                                  seq__isnull=False).order_by("seq").values_list("seq", flat=True).first())
    return limit if oldest is None else min(limit, oldest)


def counter_and_pause(conversation: Conversation) -> tuple[int, bool]:
    """The conversation's `next_seq` and its agent's `paused`, as they are in the database, in one query. Every step
    reads them, so the statement is written out here rather than built and compiled by the ORM each step."""
    with rows.kept_cursor(connection) as cursor:
        cursor.execute(
            f'SELECT c."next_seq", a."paused" FROM "{Conversation._meta.db_table}" c '
            f'JOIN "{Agent._meta.db_table}" a ON a."id" = c."agent_id" WHERE c."id" = %s',
            [Conversation._meta.pk.get_db_prep_value(conversation.pk, connection)],
        )
        row = cursor.fetchone()
    if row is None:
        raise Conversation.DoesNotExist(f"No conversation {conversation.pk}.")
    return row[0], bool(row[1])  # (SQLite gives 0 and 1)


def messages_from(conversation: Conversation, operator: str, seq: int) -> list[Message]:
    """The conversation's messages from a seq on (`operator` ">=" or ">"), in seq order: what each turn reads at its
    start, and each step when another process appended (by a kept statement)."""
    return rows.select(Message, [("conversation_id", "=", conversation.pk), ("seq", operator, seq)], order_by=["seq"])


def has_new_input(conversation: Conversation) -> bool:
    """Is there something the agent's last reply didn't see to act on? (Tool results count: the step goes on.)"""
    replies = (Message.objects.filter(conversation=conversation, role=Message.Role.AGENT)
               .order_by("-seq").values_list("seq", "data"))
    # (the newest first; "I can't work yet" is no reply: input_waits)
    last_reply = next((r for r in replies.iterator(chunk_size=20) if not said_for_the_agent(r[1])), None)
    since = Message.objects.filter(conversation=conversation).only("seq", "role", "data").order_by("seq")
    if last_reply is not None:
        seq, data = last_reply
        # From the last message it saw: what was appended while it was written is before it, and unanswered.
        since = since.filter(seq__gt=min(seq - 1, (data or {}).get("saw_upto", seq - 1)))
    return input_waits(list(since))



def _when(at: str | None):
    """When the owner said it (owner_words' `at`), else now: a yes answers only asks made before it."""
    try:
        return datetime.datetime.fromisoformat(at) if at else timezone.now()
    except ValueError:
        return timezone.now()


RUN_END = ["outcome", "finished_at", "error", "steps"]


def record_run_end(run: Run) -> None:
    """The run's outcome, end and steps (by a kept statement: every turn writes them), while it is still running: a
    run ended `interrupted` when its conversation was claimed again keeps that. (Gone: its agent was deleted.)"""
    rows.update(Run, [("id", "=", run.id), ("outcome", "=", Run.Outcome.RUNNING)],
                **{name: getattr(run, name) for name in RUN_END})



def locked_counter(conversation: Conversation) -> int | None:
    """The conversation's `next_seq`, its row locked until the transaction ends (FOR UPDATE on PostgreSQL; SQLite's
    IMMEDIATE transaction holds the write lock already); None when it is gone. Written out, as counter_and_pause
    is: every turn ends with it."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with rows.kept_cursor(connection) as cursor:
        cursor.execute(
            f'SELECT "next_seq" FROM "{Conversation._meta.db_table}" WHERE "id" = %s{lock}',
            [Conversation._meta.pk.get_db_prep_value(conversation.pk, connection)],
        )
        row = cursor.fetchone()
    return row[0] if row is not None else None
