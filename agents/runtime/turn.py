"""One turn of a conversation: the model's steps and tool calls until it answers, then the answer delivered.

Each step's model response is saved (with its tool calls) before any call runs, and each call runs in one
transaction with its recorded result. A worker that dies mid-turn leaves the conversation `running`; the task
is handed out again and the turn goes on from what was saved: a call whose result is saved is not run again.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import logging
import uuid
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from agents import services
from agents.models import Agent, Conversation, MemoryLine, Message, Run, ToolCall, Work
from agents.runtime import memory, scheduler
from agents.runtime.agent_tools import (
    holds_transaction,
    place_of,
    run_agent_tool,
    tools_for_place,
    writes_to_an_app,
)
from agents.runtime.host import ToolHost
from agents.runtime.instructions import instructions_for, skill_names
from agents.runtime.model import ModelNotConfigured, ModelRefused, ModelUnavailable, get_model
from agents.runtime.packets import packet_text
from agents.runtime.replies import reply_note
from agents.signals import work_answered
from checks import services as check_services
from core import live, rows
from core.actors import Actor
from core.errors import ToolError
from core.network import network_call
from core.services import card_open
from tools.catalog import browse_description
from tools.pipeline import recording
from tools.registry import ToolResult

logger = logging.getLogger(__name__)

CHAT_STEPS = 4
THREAD_STEPS = 40
# A chat whose 4 steps end with messages it can see still to route goes on in another turn, at most this many
# turns in a row; then its last step is forced to answer (a model that calls tools and never routes can't loop).
CHAT_TURNS_IN_A_ROW = 5
ROUTING_TOOLS = {"start_thread", "message_thread", "hand_off"}
INPUT_ROLES = {Message.Role.OWNER, Message.Role.HANDOFF, Message.Role.ANSWER, Message.Role.ROUTINE, Message.Role.SYSTEM}
STEP_LIMIT_NOTE = "You have reached the step limit for this work: answer now with what you have."


class Turn(ToolHost):
    def __init__(self, conversation: Conversation, run: Run, *, lease: uuid.UUID | None = None,
                 keeper: scheduler.LeaseKeeper | None = None):
        self.conversation = conversation
        # The claim's token: every message the turn appends checks it (services.message_append), so a worker taken
        # for dead and replaced writes nothing more. The keeper renews it and says when it was lost.
        self.lease = lease
        self.keeper = keeper
        self.agent: Agent = conversation.agent
        self.org = conversation.organization
        self.run = run
        self.place = place_of(conversation)
        self.actor = Actor.for_agent(self.agent)
        self.and_then_groups: dict[str, uuid.UUID] = {}
        # The work this turn covers: what is open, oldest first, read again when others' messages come in (they
        # bring work). Each routing call (a thread, a hand-off) routes one piece of work: the oldest whose message
        # the step saw and that nothing routed yet. Work sent on whole is `passed` at once (whoever does it now
        # answers); work sent on with its answer coming back here is `routed_at` and stays open. The reply answers
        # the rest of the work its prompt held, and only that.
        self._work_rows: list[Work] | None = None  # read with the messages, just after them (_read_new_messages)
        self._routes: dict = {}  # work id -> "passed" or "kept", this turn
        self._routed_any = False
        self._step_saw: int | None = None  # what the step whose calls run now saw (None: all the turn holds)
        # The most steps any of that work had taken in turns before this one (read with the work).
        self._steps_before = 0
        # What every step of this turn sends first, made once (memory folds only at the turn's start, so it can't
        # change within it; and so each step's prompt starts byte for byte with the last one's, which providers
        # cache). The messages since the fold are kept here too, and each step reads only the ones added since.
        self._system: str | None = None
        self._shown_lines: list[MemoryLine] | None = None  # memory's lines after the turn's fold
        self._messages: list[Message] | None = None
        self._folded_upto = 0  # the seq _messages start from: memory holds the ones before it
        # Every message up to this seq is in _messages (seqs have no gaps: an append that rolls back gives its seq
        # back). The turn's own appends go in as they commit; what others append is read when the counter is past.
        self._known_upto = -1
        self._prompt: PromptMessages | None = None
        self._tool_specs: list[dict] | None = None
        # The conversation as the check reads it (check_turns), built once and then only for what was added.
        self._check_turns: list[dict] | None = None
        self._check_turns_upto = -1
        # Replies this turn answered with a note instead of taking as its answer (agents/runtime/replies.py).
        self._empty_replies = 0
        self._promises = 0
        self._acted = False  # whether this turn ran a tool call: a promise after one is taken as said

    # --- what agent tools use ---------------------------------------------------------------------------------

    @property
    def _works(self) -> list[Work]:
        if self._work_rows is None:
            self._read_new_messages()
        assert self._work_rows is not None  # (_read_new_messages reads them)
        return self._work_rows

    def _open_works(self) -> list[Work]:
        return rows.select(Work, [("conversation_id", "=", self.conversation.pk), ("state", "=", Work.State.OPEN)],
                           order_by=["created_at"])

    def _seen(self, work: Work, upto: int | None) -> bool:
        """Did a prompt that held every message up to `upto` hold the message that brought this work?"""
        return work.seq is None or upto is None or work.seq <= upto

    def _unrouted(self, upto: int | None) -> list[Work]:
        """Work whose message a prompt up to `upto` held, still open, neither routed nor answered: oldest first."""
        return [w for w in self._works if w.state == Work.State.OPEN and w.routed_at is None
                and w.id not in self._routes and self._seen(w, upto)]

    def current_work(self) -> Work | None:
        """The piece of work the running call is on: the oldest the step saw that is still to route, else the
        newest it saw (a second thread for work routed already, a change made while answering)."""
        unrouted = self._unrouted(self._step_saw)
        if unrouted:
            return unrouted[0]
        seen = [w for w in self._works if self._seen(w, self._step_saw)]
        return seen[-1] if seen else None

    @property
    def routed(self) -> bool:
        return self._routed_any

    def pass_on(self, requester_id) -> None:
        """The work being routed goes on whole: its answer comes from whoever does it now. Written at once, in the
        routing call's own transaction, so a turn that goes on in another (or a worker's successor) knows it."""
        self._routed_any = True
        unrouted = self._unrouted(self._step_saw)
        if not unrouted:
            return
        work = unrouted[0]
        self._routes[work.id] = "passed"
        work.state = Work.State.PASSED
        rows.update(Work, [("id", "=", work.id), ("state", "=", Work.State.OPEN)], state=Work.State.PASSED)

    def keep(self) -> None:
        """The work being routed was sent on and its answer comes back here: this turn's reply is not its answer."""
        self._routed_any = True
        unrouted = self._unrouted(self._step_saw)
        if not unrouted:
            return
        work = unrouted[0]
        self._routes[work.id] = "kept"
        work.routed_at = timezone.now()
        rows.update(Work, [("id", "=", work.id)], routed_at=work.routed_at)

    def memory_text(self) -> str:
        return memory.memory_text(self.conversation)

    def send_to_thread(self, thread: Conversation, *, task: str, notes: str | None, links: list[str],
                       and_then: str | None) -> Work:
        current = self.current_work()
        owner_words = current.owner_words if current else []
        if and_then:
            group = self.and_then_groups.setdefault(and_then, uuid.uuid4())
            requester: Conversation | None = self.conversation
            self.keep()
        else:
            group = None
            requester = current.requester if current else None
            self.pass_on(requester.id if requester else None)
        packet = services.message_append(
            conversation=thread, role=Message.Role.HANDOFF,
            text=packet_text(sender=f"{self.agent.name}'s chat", task=task, notes=notes, links=links,
                             owner_words=owner_words, org=self.org),
            data={"from_chat": True, "task": task, "notes": notes or "", "links": links, "owner_words": owner_words},
        )
        # The owner's yes, typed here, answers the thread's waiting ask: the thread's next run of that action goes
        # on it (checks.services.yes_from_chat; only the owner's own words, never the packet a model wrote).
        if owner_words and owner_words[-1].get("ref"):
            words = owner_words[-1]
            check_services.yes_from_chat(org=self.org, conversation_id=str(thread.id), words=words["text"],
                                         ref=words["ref"], given_at=_when(words.get("at")))
        work = services.work_open(
            org=self.org, agent=self.agent, conversation=thread, task=task, requester=requester,
            requested_by=current.requested_by if current else None, chain=current.chain if current else [],
            depth=current.depth if current else 0, owner_words=owner_words, and_then_group=group,
            and_then=and_then or "", seq=packet.seq,
        )
        scheduler.wake(conversation=thread)
        return work

    # --- the loop ---------------------------------------------------------------------------------------------

    def execute(self) -> str:
        if self.agent.paused:
            return Run.Outcome.PAUSED
        try:
            model = get_model(self.org)
        except ModelNotConfigured as missing:
            self._say_no_model(str(missing))
            return Run.Outcome.NO_MODEL
        try:
            self._shown_lines = memory.fold_and_show(self.conversation, limit=lambda: fold_limit(self.conversation))
        except ModelUnavailable as error:
            return self._fail(error)
        # Calls a worker saved and didn't finish before it died; after that, the calls of each step are known here.
        pending = self._unfinished_calls()  # (reading the messages the first time)
        just_read = True
        while True:
            if pending:
                self._run_tool_calls(pending)
                self._acted = True
                pending = []
                just_read = False
            if not just_read:
                self._read_new_messages()  # and whether the agent was paused meanwhile (by the owner, or its budget)
            just_read = False
            if self.keeper is not None and self.keeper.lost:
                raise scheduler.LeaseLost(f"conversation {self.conversation.id} was claimed again")
            if not self._input_waits() and not self._unrouted(self._known_upto):
                # (work whose message a step saw, neither answered nor routed, keeps the turn going: the invariant)
                return Run.Outcome.ANSWERED
            if self.agent.paused:
                return Run.Outcome.PAUSED
            if self.conversation.kind == Conversation.Kind.CHAT and self.run.steps >= CHAT_STEPS:
                # The chat's steps are used with messages still to route (its last step wasn't forced, below):
                # the turn ends here and, as input waits (the step's results), another goes on from them.
                return Run.Outcome.CONTINUED
            saw_upto = self._known_upto  # the prompt holds every message up to here (and the turn's own)
            at_limit = self.steps_taken() >= self.step_limit() - 1
            goes_on = at_limit and self._may_go_on(saw_upto)
            # A chat's last step is forced to answer unless it is routing the work it sees and some is left.
            last_step = at_limit and not (goes_on and self.routed)
            try:
                network_call("a turn's model call")
                response = model.complete(
                    model_id=self.agent.model, messages=self.prompt(last_step=last_step), tools=self.tool_specs(),
                    thinking=self.thinking(), tool_choice="none" if last_step else None,
                )
            except ModelUnavailable as error:
                return self._fail(error)
            calls = response.tool_calls
            if last_step:
                # Forced, yet the model called tools (some hosted models don't keep tool_choice): a chat with work
                # still to route keeps its routing calls and goes on in another turn, rather than drop them and
                # save an empty reply as the answer; anything else is dropped, as the step was told to answer.
                calls = [c for c in calls if c.name in ROUTING_TOOLS] if goes_on else []
            # A reply with no call that can't be the answer (empty, or only saying what it will do) gets a note
            # and another step (agents/runtime/replies.py); one still empty after that stops with Try again.
            note = None if calls or last_step else reply_note(response.text, empty_before=self._empty_replies,
                                                 promises_before=self._promises, acted=self._acted)
            # The step's rows commit together: its usage, its count on the work, and the model's message (with its
            # calls, saved before any runs, so a dead worker's successor doesn't call twice) or its answer.
            with transaction.atomic():
                self._count_step(response.usage)
                if calls:
                    pending, message = self._save_step(response.text, calls, saw_upto=saw_upto)
                elif note:
                    message = self._note_reply(response.text, note, saw_upto=saw_upto)
                elif not response.text.strip():
                    message = None
                else:
                    message = self._answer(response.text, saw_upto=saw_upto)
            self._hold(message)
            if message is None:
                return self._fail(ModelUnavailable(
                    "the model answered with nothing, again after being told its reply was empty"))
            self._step_saw = saw_upto  # the calls route work this step's prompt held
            if not calls and not note:
                return Run.Outcome.WAITING if self.routed else Run.Outcome.ANSWERED

    def _may_go_on(self, saw_upto: int) -> bool:
        """At a chat's last step: work the step will see is still to route, so the chat may go on routing it in
        another turn rather than leave it unrouted; unless it went on CHAT_TURNS_IN_A_ROW turns in a row already
        (read only then: most turns end before their last step)."""
        if self.conversation.kind != Conversation.Kind.CHAT or not self._unrouted(saw_upto):
            return False
        last = list(Run.objects.filter(conversation=self.conversation).exclude(id=self.run.id)
                    .order_by("-started_at").values_list("outcome", flat=True)[:CHAT_TURNS_IN_A_ROW])
        return not (len(last) == CHAT_TURNS_IN_A_ROW and set(last) == {Run.Outcome.CONTINUED})

    def _unfinished_calls(self) -> list[ToolCall]:
        """The tool calls saved and not done: read from the database only when there can be some. Where the turn
        holds the whole conversation, a call is done exactly when its result's message is there (both are written
        in one transaction: _record_result), so calls the held steps made and their results settle it."""
        messages = self._held()
        if self._folded_upto == 0:
            made = {c["id"] for m in messages if m.role == Message.Role.AGENT for c in m.data.get("tool_calls") or []}
            if made <= {m.data.get("call_id") for m in messages if m.role == Message.Role.TOOL}:
                return []
        return unanswered_tool_calls(self.conversation)

    def _count_step(self, usage) -> None:
        """The model call's usage, and the step counted on the work. A thread's 40 steps count on its piece of work
        across turns (and crashes), so the work's count is written with the step; the run's own count is a record
        of the turn, written when it ends (run_turn)."""
        services.usage_record(
            org=self.org, agent=self.agent, conversation=self.conversation, purpose="turn",
            model_id=self.agent.model, usage=usage,
        )
        self.run.steps += 1
        if self._works:  # (by a kept statement: every step writes it)
            rows.add_one(Work, "steps", pks=[w.id for w in self._works], state=Work.State.OPEN)

    def step_limit(self) -> int:
        return CHAT_STEPS if self.conversation.kind == Conversation.Kind.CHAT else THREAD_STEPS

    def steps_taken(self) -> int:
        """A chat counts the steps of this turn (4 a turn); a thread counts the steps on the piece of work, across
        every turn that worked on it (40 on one piece of work: spec/reference/limits.md)."""
        if self.conversation.kind == Conversation.Kind.CHAT or not self._works:
            return self.run.steps
        return self._steps_before + self.run.steps

    def prompt(self, *, last_step: bool = False) -> list[dict]:
        if self._messages is None:  # the loop reads new messages before each step; a prompt asked for on its own
            self._read_new_messages()
        if self._prompt is None or self._prompt.fed_upto > self._known_upto:
            # (fed past what is known: another process's message came in between the turn's own, and was read)
            self._prompt = PromptMessages(owner=self.org.owner_first_name)
        # The prompt is append-only within a turn: only the messages since the last step are converted.
        held, fed = self._held(), self._prompt.fed_upto
        start = len(held)
        while start > 0 and held[start - 1].seq > fed:  # (from the end: a step adds two or three)
            start -= 1
        self._prompt.feed(held[start:])
        messages = [{"role": "system", "content": self._system}, *self._prompt.messages()]
        if last_step:
            messages.append({"role": "user", "content": STEP_LIMIT_NOTE})
        return messages

    def _read_new_messages(self) -> None:
        """The first time: the system prompt and the messages memory hasn't folded. After: one query for the
        conversation's counter and the agent's pause, and the messages another process appended (the owner's
        next message, an answer) only when the counter says there are some; the turn's own are held as saved."""
        if self._messages is None:
            staff = rows.select(Agent, [("organization_id", "=", self.org.pk)], order_by=["-is_roadstar", "name"])
            system = instructions_for(self.conversation, staff=staff, skills=skill_names(agent=self.agent))
            lines = self._shown_lines if self._shown_lines is not None else memory.top_lines(self.conversation)
            preamble = memory.memory_preamble(lines)
            self._system = system + "\n\n" + preamble if preamble else system
            upto = self._folded_upto = memory.folded_upto(lines)
            self._messages = messages_from(self.conversation, ">=", upto)
            self._known_upto = self._messages[-1].seq if self._messages else upto - 1
            # After the messages: work whose message came in between is read too, as not yet seen (_seen).
            self._work_rows = self._open_works()
            self._steps_before = max((w.steps for w in self._work_rows), default=0)
            return
        next_seq, self.agent.paused = counter_and_pause(self.conversation)
        if next_seq - 1 > self._known_upto:
            # Read from the last seq known without a gap; the turn's own messages past it are read again with them.
            added = messages_from(self.conversation, ">", self._known_upto)
            self._messages = [m for m in self._messages if m.seq <= self._known_upto] + added
            if added:
                self._known_upto = added[-1].seq
                # Another process's message may bring work (the owner's next message, a packet): read it with them.
                held = {w.id: w for w in self._works}
                self._work_rows = [held.get(w.id, w) for w in self._open_works()]

    def _held(self) -> list[Message]:
        """The messages this turn holds (read the first time they are asked for)."""
        if self._messages is None:
            self._read_new_messages()
        assert self._messages is not None  # (_read_new_messages sets them)
        return self._messages

    def _hold(self, message: Message | None) -> None:
        """A message this turn appended, once committed: into the turn's history without reading it back."""
        if message is None or message.conversation_id != self.conversation.id or self._messages is None:
            return
        if self._messages and self._messages[-1].seq >= message.seq:  # (read already: held once)
            self._messages = [m for m in self._messages if m.seq != message.seq]
        self._messages.append(message)
        if message.seq == self._known_upto + 1:
            self._known_upto = message.seq
        else:
            self._messages.sort(key=lambda m: m.seq)  # another process's message came first: read at the next step

    def check_turns(self) -> list[dict]:
        """The conversation as the check reads it: what memory folded is read once a turn, the rest is held."""
        messages = self._held()
        if self._check_turns is None:
            first = messages[0].seq if messages else self._known_upto + 1
            self._check_turns = []
            for message in Message.objects.filter(conversation=self.conversation, seq__lt=first).order_by("seq"):
                self._check_turns.extend(check_turns_of(message))
            self._check_turns_upto = first - 1
        for message in messages:
            if message.seq > self._check_turns_upto:
                self._check_turns.extend(check_turns_of(message))
                self._check_turns_upto = message.seq
        return list(self._check_turns)

    def input_waits_at(self, next_seq: int | None) -> bool:
        """has_new_input at the turn's end, with the conversation's counter read under its lock: from the messages
        the turn holds when the counter says they are all there (nothing was appended since its last read: the
        common end of a turn, two queries less), else from the database."""
        if self._messages is not None and next_seq is not None and next_seq - 1 == self._known_upto:
            return self._input_waits()
        return has_new_input(self.conversation)

    def _input_waits(self) -> bool:
        """has_new_input, read from the messages this turn holds when they reach back to the agent's last reply, or
        when they are the whole conversation (a new one: memory has folded none of it)."""
        messages = self._held()
        if self._folded_upto == 0 or any(_is_reply(m) for m in messages):
            return input_waits(messages)
        return has_new_input(self.conversation)

    def tool_specs(self) -> list[dict]:
        """The tools a step is offered: the same for every step of a turn (browse's description reads the
        workspace's optional groups), so made once, and the request's prefix stays the same for the cache."""
        if self._tool_specs is None:
            self._tool_specs = self._make_tool_specs()
        return self._tool_specs

    def _make_tool_specs(self) -> list[dict]:
        specs = []
        for tool in tools_for_place(self.place):
            spec = tool.spec()
            if tool.name == "browse_tools":
                spec = {**spec, "description": browse_description(self.org)}
            specs.append(spec)
        return specs

    def thinking(self) -> str:
        # A chat always thinks lightly; the agent's level applies to threads.
        return "low" if self.conversation.kind == Conversation.Kind.CHAT else self.agent.thinking

    def _save_step(self, text: str, calls, *, saw_upto: int) -> tuple[list[ToolCall], Message]:
        """The model's step and its tool calls, saved before any runs; returns the calls to run, and the message."""
        with transaction.atomic(savepoint=False):  # within the step's transaction (execute)
            message = services.message_append(
                conversation=self.conversation, role=Message.Role.AGENT, text=text, lease=self.lease,
                data={"tool_calls": [
                    {"id": c.id, "name": c.name, "arguments": c.arguments, "raw": c.raw_arguments} for c in calls
                ]},
                saw_upto=saw_upto,
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

    def _run_tool_calls(self, pending: list[ToolCall]) -> None:
        for call in pending:
            # A call and its recorded result commit together, so a call that ran is never run again. The result's
            # message joins the turn's history once that transaction is through.
            if holds_transaction(call.name):
                with transaction.atomic():
                    message = self._record_result(call, run_agent_tool(self, call.name, call.arguments))
                self._hold(message)
                continue
            # The others may call out (an app, a model, the check's judge): they run with no transaction open,
            # and their writes commit with their recorded result (tools.pipeline.recording).
            if writes_to_an_app(call.name, call.arguments):
                if call.started_at is not None:
                    with transaction.atomic():
                        message = self._record_result(
                            call, ToolError("unknown_outcome", STOPPED_MID_CALL).as_result()
                        )
                    self._hold(message)
                    continue
                # Marked only while the lease is this worker's: a replaced one must not call the app.
                if self.lease is not None and not Conversation.objects.filter(
                        id=self.conversation.id, lease_token=self.lease).exists():
                    raise scheduler.LeaseLost(f"conversation {self.conversation.id} was claimed again")
                ToolCall.objects.filter(id=call.id).update(started_at=timezone.now())
            written: list[Message] = []

            def write(result, call: ToolCall = call, written: list[Message] = written) -> None:
                written.append(self._record_result(call, _in_band(call.name, result)))

            with recording(write) as record:
                result = run_agent_tool(self, call.name, call.arguments)
            if record.done:
                self._hold(written[-1])
            else:
                with transaction.atomic():
                    message = self._record_result(call, result)
                self._hold(message)

    def _record_result(self, call: ToolCall, result: ToolResult) -> Message:
        call.result = result
        call.done_at = timezone.now()
        rows.update_fields(call, ["result", "done_at"])
        return services.message_append(
            conversation=self.conversation, role=Message.Role.TOOL, text=compact_json(result),
            data={"call_id": call.call_id, "name": call.name}, lease=self.lease,
        )

    def _latest_reply(self, text: str) -> None:
        rows.update(Work, [("conversation_id", "=", self.conversation.pk), ("state", "=", Work.State.OPEN)],
                    latest_reply=text[:2000])

    def _answer(self, text: str, *, saw_upto: int) -> Message:
        """Save the reply, and deliver it as the answer to the work it finishes, in one transaction. Work that came
        in while the model wrote it isn't in `_works` (read when the turn started), so it stays open; its message
        is after `saw_upto` and counts as not yet answered (input_waits), so the turn's hand-back queues it."""
        with transaction.atomic(savepoint=False):  # within the step's transaction (execute)
            message = services.message_append(conversation=self.conversation, role=Message.Role.AGENT, text=text,
                                              saw_upto=saw_upto, lease=self.lease)
            self._latest_reply(text)
            # The turn's open work as it read it (its rows don't change but for their state and route): its
            # conversation is this one and its agent this turn's. The reply answers the work its prompt held that
            # this turn didn't route (work routed on earlier turns answers when its answer came back), each only if
            # it is still open, which the update's own condition says (answer_work), so nothing is read again.
            # Work whose message came after the prompt stays open: its message counts as unanswered (input_waits).
            for work in self._works:
                if work.state != Work.State.OPEN or work.id in self._routes or not self._seen(work, saw_upto):
                    continue
                work.conversation = self.conversation
                if work.agent_id == self.agent.id:
                    work.agent = self.agent
                answer_work(work, text)
        return message

    def _note_reply(self, text: str, note: str, *, saw_upto: int) -> Message:
        """A reply that can't be the answer: kept (when it says anything) with the note to the agent after it, which
        is new input, so the loop takes another step. Returns the note (the reply is held here)."""
        if text.strip():
            self._promises += 1
            with transaction.atomic(savepoint=False):  # within the step's transaction (execute)
                said = services.message_append(conversation=self.conversation, role=Message.Role.AGENT, text=text,
                                               saw_upto=saw_upto)
            self._hold(said)
        else:
            self._empty_replies += 1
        return services.message_append(conversation=self.conversation, role=Message.Role.SYSTEM, text=note,
                                       data={"reply_note": True})

    def _say_no_model(self, explanation: str) -> None:
        card_open(
            org=self.org, kind="model", subject="model", title="Connect a model so your agents can work",
            body=explanation, action_label="How to connect a model",
        )
        with transaction.atomic():
            services.message_append(
                conversation=self.conversation, role=Message.Role.AGENT,
                text=f"I can't work yet: {explanation} The card on Home says the same.",
                data={"no_model": True},
                lease=self.lease,
            )

    def _fail(self, error: ModelUnavailable) -> str:
        # The owner reads what happened and what Try again does; the model's technical answer goes to the log and
        # the run (the admin), not on Home. A refusal was one call, not the tries of a model that didn't answer.
        logger.warning("turn of %s could not finish: %s", self.conversation.id, error)
        try_again_card(self.conversation, body=MODEL_REFUSED if isinstance(error, ModelRefused) else MODEL_DOWN)
        self.run.error = str(error)
        return Run.Outcome.FAILED


MODEL_DOWN = (
    "The AI model Roadstar works with didn't answer, even after trying again five times over about a minute. "
    "Nothing is lost: Try again picks the work up where it stopped."
)
MODEL_REFUSED = (
    "The AI model Roadstar works with turned the request down, so this stopped. That is usually its settings: the "
    "key, or the name of a model it doesn't have; Settings, AI model, has a Test button that shows its answer. "
    "Nothing is lost: Try again picks the work up where it stopped."
)
BROKE = (
    "Something went wrong inside Roadstar while working on this, and it stopped. Nothing is lost: Try again picks "
    "the work up where it stopped. If it stops again, whoever runs your Roadstar can find the details in its log."
)


def try_again_card(conversation: Conversation, *, body: str) -> None:
    """Work that couldn't finish, on Home with Try again (one open card per conversation)."""
    agent = conversation.agent
    card_open(
        org=conversation.organization, kind="try_again", subject=f"try_again:{conversation.id}",
        title=f"{agent.name} couldn't finish{': ' + conversation.title if conversation.title else ''}",
        body=body, action_label="Try again", data={"conversation_id": str(conversation.id)},
    )


STOPPED_MID_CALL = (
    "The worker running this call stopped before its result was written down, so it may or may not have happened "
    "in the app. Look (read or search) before you do it again."
)


def _in_band(name: str, result):
    # run_agent_tool's answer for a tool that returned nothing; use_tool's own result may be null
    return {"done": True} if result is None and name != "use_tool" else result


def compact_json(result) -> str:
    """A tool's result as the model reads it: no spaces between tokens, and text as text rather than escapes.
    The model reads every result again on every later step, so each character saved is saved many times."""
    return json.dumps(result, separators=(",", ":"), ensure_ascii=False)


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
    with connection.cursor() as cursor:
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


def unanswered_tool_calls(conversation: Conversation) -> list[ToolCall]:
    return list(ToolCall.objects.filter(conversation=conversation, done_at__isnull=True).order_by("id"))


def _acts_on(message: Message) -> bool:
    return message.role in INPUT_ROLES and not message.data.get("quiet")


def _is_reply(message: Message) -> bool:
    return message.role == Message.Role.AGENT and not _said_for_the_agent(message.data)


def _said_for_the_agent(data: dict | None) -> bool:
    """Roadstar's own words in an agent's conversation ("I can't work yet", a research page that failed): shown
    as the agent's, but not a reply of the model's, so what came before them still waits for one."""
    return bool(data and (data.get("no_model") or data.get("notice")))


def input_waits(messages: list[Message]) -> bool:
    """has_new_input over messages in seq order: the agent's last reply and what came after it (or only what came
    after it), and, where the reply was written while more came in, what it never saw (its `saw_upto`)."""
    if not messages:
        return False
    # (from the end: the last reply is near it, and the turn asks at every step). "I can't work yet" (no model was
    # connected) answered nothing: what it was said to still waits, so Try again, once a model is connected, runs it.
    last_reply = next((i for i in range(len(messages) - 1, -1, -1) if _is_reply(messages[i])), -1)
    if last_reply >= 0:
        saw_upto = messages[last_reply].data.get("saw_upto")
        if saw_upto is not None and any(m.seq > saw_upto and _acts_on(m) for m in messages[:last_reply]):
            return True
    if _is_reply(messages[-1]):
        return False
    # A step's results no step has seen yet (the turn went on in another, and quiet answers came after them) or
    # input to act on.
    return any(m.role == Message.Role.TOOL or _acts_on(m) for m in messages[last_reply + 1:])


def has_new_input(conversation: Conversation) -> bool:
    """Is there something the agent's last reply didn't see to act on? (Tool results count: the step goes on.)"""
    replies = (Message.objects.filter(conversation=conversation, role=Message.Role.AGENT)
               .order_by("-seq").values_list("seq", "data"))
    # (the newest first; "I can't work yet" is no reply: input_waits)
    last_reply = next((r for r in replies.iterator(chunk_size=20) if not _said_for_the_agent(r[1])), None)
    since = Message.objects.filter(conversation=conversation).only("seq", "role", "data").order_by("seq")
    if last_reply is not None:
        seq, data = last_reply
        # From the last message it saw: what was appended while it was written is before it, and unanswered.
        since = since.filter(seq__gt=min(seq - 1, (data or {}).get("saw_upto", seq - 1)))
    return input_waits(list(since))


class PromptMessages:
    """Messages in the OpenAI chat format, each input marked with its id so the agent can zoom and date it, made
    as messages come (`feed`, in seq order): a turn's prompt only grows, so each step converts only what is new.

    A tool result must follow its call directly: a message that arrived while a step's tools ran (a
    message_thread, an answer) is shown after the step's last result, where the API accepts it.
    """

    def __init__(self, *, owner: str):
        self.owner = owner
        self.converted: list[dict] = []
        self.answered_calls: set[str] = set()
        self.waiting: set[str] = set()  # calls of the last step whose results haven't been shown yet
        self.held: list[dict] = []  # inputs that arrived while those calls ran
        self.fed_upto = -1

    def messages(self) -> list[dict]:
        return [*self.converted, *self.held]

    def _flush(self) -> None:
        self.converted.extend(self.held)
        self.held.clear()

    def feed(self, messages) -> None:
        for message in in_the_order_written(list(messages)):
            self._feed_one(message)
            self.fed_upto = max(self.fed_upto, message.seq)

    def _feed_one(self, message: Message) -> None:
        if message.role == Message.Role.AGENT and message.data.get("no_model"):
            return  # Roadstar's "I can't work yet", said for the agent while no model was connected: not the model's
        if message.role == Message.Role.AGENT and message.data.get("notice"):
            # Roadstar's notice (a research page that failed): news for the model, in the user's place
            notice = {"role": "user", "content": f"[#{message.seq}] Roadstar: {message.text}"}
            (self.held if self.waiting else self.converted).append(notice)
            return
        if message.role == Message.Role.AGENT:
            self._flush()
            self.waiting.clear()
            entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            calls = message.data.get("tool_calls") or []
            if calls:
                entry["tool_calls"] = [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["name"], "arguments": c.get("raw") or json.dumps(c["arguments"])}}
                    for c in calls
                ]
                self.answered_calls.update(c["id"] for c in calls)
                self.waiting.update(c["id"] for c in calls)
            if not calls and not message.text:
                entry["content"] = ""
            self.converted.append(entry)
        elif message.role == Message.Role.TOOL:
            call_id = message.data.get("call_id")
            text = memory.head(message.text, message.seq)
            if call_id in self.answered_calls:
                self.converted.append({"role": "tool", "tool_call_id": call_id, "content": text})
                self.waiting.discard(call_id)
                if not self.waiting:
                    self._flush()
            else:
                # Its call was folded into memory: show the result as plain text rather than an orphan.
                self.converted.append(
                    {"role": "user", "content": f"[#{message.seq}] result of {message.data.get('name')}: {text}"}
                )
        else:
            label = f"{self.owner}: " if message.role == Message.Role.OWNER else ""
            entry = {"role": "user", "content": f"[#{message.seq}] {label}{memory.head(message.text, message.seq)}"}
            (self.held if self.waiting else self.converted).append(entry)


def in_the_order_written(messages: list[Message]) -> list[Message]:
    """Messages in seq order, but a step of the model's right after the last message it saw (`saw_upto`): what was
    appended while it was written (a seq before its own) shows after it, as it happened to the model."""
    ordered = list(messages)
    for step in [m for m in messages if m.role == Message.Role.AGENT and m.data.get("saw_upto") is not None]:
        ordered.remove(step)
        place = max((i + 1 for i, m in enumerate(ordered) if m.seq <= step.data["saw_upto"]), default=0)
        ordered.insert(place, step)
    return ordered


def model_messages(messages: list[Message], *, owner: str) -> list[dict]:
    """The messages in the OpenAI chat format, all at once (PromptMessages, fed once)."""
    prompt = PromptMessages(owner=owner)
    prompt.feed(messages)
    return prompt.messages()


def _when(at: str | None):
    """When the owner said it (owner_words' `at`), else now: a yes answers only asks made before it."""
    try:
        return datetime.datetime.fromisoformat(at) if at else timezone.now()
    except ValueError:
        return timezone.now()


def check_turns_of(message: Message) -> list[dict]:
    """One message as the owner's-yes check reads it (check_turns)."""
    data = message.data or {}
    if message.role == Message.Role.OWNER:
        return [{"role": "owner", "text": message.text, "ref": f"message:{message.id}"}]
    if message.role == Message.Role.ROUTINE:
        turns = [{"role": "routine", "name": data.get("name", ""), "text": data.get("note", "")}]
        if data.get("event_text"):
            turns.append({"role": "read", "source": data.get("source", "event"), "text": data["event_text"]})
        return turns
    if message.role == Message.Role.HANDOFF and data.get("from_chat"):
        # Each quoted word keeps the ref of the owner's message it came from, so a yes is spent once wherever it
        # travels; words quoted before refs existed are named by the packet that carries them.
        owner = [{"role": "owner", "text": w["text"], "ref": w.get("ref") or f"handoff:{message.id}:{i}"}
                 for i, w in enumerate(data.get("owner_words", []))]
        if data.get("from_home"):
            return owner  # the owner's answer from Home, delivered by Roadstar: no agent's words with it
        return [*owner, {"role": "agent", "text": data.get("task", "")}]
    if message.role == Message.Role.HANDOFF:
        return [{"role": "handoff", "from": data.get("from", ""), "task": data.get("task", ""),
                 "notes": data.get("notes", ""), "owner_words": data.get("owner_words", [])}]
    if message.role == Message.Role.AGENT:
        return [{"role": "agent", "text": message.text}] if message.text else []
    if message.role in (Message.Role.TOOL, Message.Role.ANSWER):
        return [{"role": "read", "source": data.get("name") or data.get("from") or "answer", "text": message.text}]
    return []


def check_turns(conversation: Conversation) -> list[dict]:
    """The conversation as the owner's-yes check reads it: only the owner's words and routines give permission.

    Packets from the agent's own chat carry the owner's words that started the work as the owner's own; packets
    from other agents carry them as hand-off owner_words. Tool results and answers are what was read.
    """
    turns = []
    for message in Message.objects.filter(conversation=conversation).order_by("seq"):
        turns.extend(check_turns_of(message))
    return turns


def run_turn(conversation_id: str, lease: str | None = None) -> str | None:
    """The worker task: run one claimed conversation's turn, then hand the queue on.

    `lease` is the claim's token (scheduler.claim). A task whose token is no longer the conversation's (the broker
    handed a dead worker's task out again, after the conversation was claimed again) does nothing. The turn holds
    the lease while it runs (scheduler.LeaseKeeper renews it) and stops quietly when it was lost."""
    found = rows.select(Conversation, [("id", "=", conversation_id)], related=["agent", "organization"])
    conversation = found[0] if found else None
    if conversation is None or conversation.state != Conversation.State.RUNNING:
        return None
    token = conversation.lease_token
    if lease is not None and lease != "None" and (token is None or str(token) != lease):
        logger.info("turn of %s: its claim was handed to another worker; this task does nothing", conversation_id)
        return None
    # The renewals run in a thread of their own, with its own connection; not inside a transaction of the caller's
    # (the tests'), which the thread's writes would wait for.
    keeper = scheduler.LeaseKeeper(conversation.id, token) if (
        token is not None and not connection.in_atomic_block) else None
    if keeper is not None and not keeper.renew():  # the short lease starts now (the claim's waited for a worker)
        return None
    with keeper or contextlib.nullcontext():
        try:
            return _run_turn(conversation, token, keeper)
        except scheduler.LeaseLost:
            # Another worker has the conversation now and goes on from the last step saved; the run's record was
            # ended as interrupted when it was claimed again.
            logger.warning("turn of %s stopped: its lease ran out and another worker has it", conversation_id)
            return None


def _run_turn(conversation: Conversation, token: uuid.UUID | None, keeper) -> str | None:
    conversation_id = conversation.id
    run = rows.insert(Run(  # (a kept statement: every turn writes one)
        organization=conversation.organization, conversation=conversation, agent=conversation.agent,
        started_at=timezone.now(),
    ))
    turn = Turn(conversation, run, lease=token, keeper=keeper)
    try:
        outcome = turn.execute()
    except scheduler.LeaseLost:
        raise
    except Exception as error:  # a bug must not leave the conversation claimed forever
        logger.exception("turn of %s failed", conversation_id)
        Run.objects.filter(id=run.id, outcome=Run.Outcome.RUNNING).update(
            outcome=Run.Outcome.FAILED, finished_at=timezone.now(), error=repr(error), steps=run.steps)
        if not scheduler.finish(conversation=conversation, more_to_do=False, lease=token):
            raise
        # Whatever broke, the owner's question must not go silently unanswered: the work shows with Try again.
        try:
            try_again_card(conversation, body=BROKE)
        except Exception:  # the card must not hide the error that broke the turn
            logger.exception("could not put the Try again card of %s on Home", conversation_id)
        raise
    run.outcome, run.finished_at = outcome, timezone.now()
    if outcome == Run.Outcome.PAUSED:
        # Back in the queue: it runs when the owner raises the budget.
        with transaction.atomic():
            _record_run_end(run)
            Conversation.objects.filter(id=conversation.id, lease_token=token).update(
                state=Conversation.State.QUEUED, queued_at=timezone.now(), lease_token=None, lease_until=None,
            )
        return outcome
    # Looked at and handed back in one transaction, the conversation's row locked (SQLite: the write lock an
    # IMMEDIATE transaction holds from its start). The owner's message is appended and woken in one transaction
    # under that same lock, so it is either seen here (queued again) or finds the conversation idle and queues it
    # itself. Looked at outside, a message sent between the look and `finish` was left unanswered. The run's end
    # is written in it too (one commit a turn less).
    with transaction.atomic():
        _record_run_end(run)
        next_seq = locked_counter(conversation)
        more = outcome not in (Run.Outcome.FAILED, Run.Outcome.NO_MODEL) and turn.input_waits_at(next_seq)
        if not scheduler.finish(conversation=conversation, more_to_do=more, lease=token):
            raise scheduler.LeaseLost(f"conversation {conversation_id} was claimed again")  # (rolls the end back)
    return outcome


RUN_END = ["outcome", "finished_at", "error", "steps"]


def _record_run_end(run: Run) -> None:
    """The run's outcome, end and steps (by a kept statement: every turn writes them), while it is still running: a
    run ended `interrupted` when its conversation was claimed again keeps that. (Gone: its agent was deleted.)"""
    rows.update(Run, [("id", "=", run.id), ("outcome", "=", Run.Outcome.RUNNING)],
                **{name: getattr(run, name) for name in RUN_END})


def locked_counter(conversation: Conversation) -> int | None:
    """The conversation's `next_seq`, its row locked until the transaction ends (FOR UPDATE on PostgreSQL; SQLite's
    IMMEDIATE transaction holds the write lock already); None when it is gone. Written out, as counter_and_pause
    is: every turn ends with it."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT "next_seq" FROM "{Conversation._meta.db_table}" WHERE "id" = %s{lock}',
            [Conversation._meta.pk.get_db_prep_value(conversation.pk, connection)],
        )
        row = cursor.fetchone()
    return row[0] if row is not None else None
