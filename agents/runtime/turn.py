"""One turn of a conversation: the model's steps and tool calls until it answers, then the answer delivered.

The loop runs over a TurnStorage (agents/runtime/storage.py; the database's is agents/runtime/sql_storage.py), so it
reads without SQL and is tested without a database (tests/agents/test_turn_loop.py). Each step's model response is
saved (with its tool calls) before any call runs, and each call runs in one transaction with its recorded result;
a step whose calls work on Roadstar's own records alone is saved after they ran, with their results, in its last
call's transaction where that call writes (_step_after_calls).
A worker that dies mid-turn leaves the conversation `running`; the task is handed out again and the turn goes on
from what was saved: a call whose result is saved is not run again.
"""

from __future__ import annotations

import logging
import uuid

from django.utils import timezone

from agents.models import Agent, Conversation, MemoryLine, Message, Run, ToolCall, Work
from agents.runtime.agent_tools import only_here, only_reads_here, place_of, run_agent_tool, writes_to_an_app
from agents.runtime.check_turns import check_turns_of
from agents.runtime.host import ToolHost
from agents.runtime.messages import PromptMessages, input_waits, is_reply
from agents.runtime.model import (
    ModelNotConfigured,
    ModelRefused,
    ModelUnavailable,
    ModelUsage,
    ToolCallRequest,
    get_model,
)
from agents.runtime.replies import reply_note
from agents.runtime.scheduler import LeaseLost, claim
from agents.runtime.sql_storage import SqlTurnStorage
from agents.runtime.storage import TurnStorage
from checks.types import CONVERSATION, AgentTurn
from checks.types import Turn as CheckTurn
from core.actors import Actor
from core.errors import ToolError
from core.inputs import Uuid
from core.network import network_call
from tools.pipeline import recording

logger = logging.getLogger(__name__)

CHAT_STEPS = 4
THREAD_STEPS = 40
# A chat whose 4 steps end with messages it can see still to route goes on in another turn, at most this many
# turns in a row; then its last step is forced to answer (a model that calls tools and never routes can't loop).
CHAT_TURNS_IN_A_ROW = 5
ROUTING_TOOLS = {"start_thread", "message_thread", "hand_off"}
STEP_LIMIT_NOTE = "You have reached the step limit for this work: answer now with what you have."


def run_turn(conversation_id: str, lease: str | None = None) -> str | None:
    """The worker task: run one claimed conversation's turn, then hand the queue on.

    `lease` is the claim's token (scheduler.claim). A task whose token is no longer the conversation's does
    nothing (SqlTurnStorage.for_task). The turn holds the lease while it runs (scheduler.LeaseKeeper renews it) and
    stops quietly when it was lost."""
    store = SqlTurnStorage.for_task(conversation_id, lease)
    if store is None:
        return None
    with store.lease_kept():
        try:
            return run_claimed(store)
        except LeaseLost as lost:
            # Another worker has the conversation now and goes on from the last step saved; the run's record was
            # ended as interrupted when it was claimed again. (Lost before the run started: nothing was written.)
            logger.warning("turn of %s stopped: another worker has it (%s)", conversation_id, lost)
            return None


def run_claimed(store: TurnStorage) -> str:
    """A claimed conversation's turn, from its run's start to the hand-back of the conversation."""
    run = store.run_started()
    turn = Turn(store, run)
    try:
        outcome = turn.execute()
    except LeaseLost:
        raise
    except Exception as error:  # a bug must not leave the conversation claimed forever
        logger.exception("turn of %s failed", store.conversation.id)
        if not store.run_failed(run, error):
            raise
        # Whatever broke, the owner's question must not go silently unanswered: the work shows with Try again.
        try:
            store.try_again(BROKE)
        except Exception:  # the card must not hide the error that broke the turn
            logger.exception("could not put the Try again card of %s on Home", store.conversation.id)
        raise
    run.outcome, run.finished_at = outcome, timezone.now()
    if outcome == Run.Outcome.PAUSED:
        store.run_paused(run)  # back in the queue: it runs when the owner raises the budget
        return outcome
    # Whether more waits is read with the conversation locked, as it is handed back (see SqlTurnStorage.run_ended).
    store.run_ended(run, more_to_do=lambda next_seq: (
        outcome not in (Run.Outcome.FAILED, Run.Outcome.NO_MODEL) and turn.input_waits_at(next_seq)),
        known_upto=turn.known_upto)
    return outcome


def drain(*, org_id, max_turns: int = 500) -> int:
    """Run every queued turn here, in this process, until none is left: for tests and one-shot commands."""
    turns = 0
    while turns < max_turns:
        claimed = claim(org_id=org_id)
        if not claimed:
            return turns
        for conversation in claimed:
            run_turn(str(conversation.id), str(conversation.lease))
            turns += 1
    raise RuntimeError(f"drain ran {max_turns} turns and work was still queued: a loop between agents?")


class Turn(ToolHost):
    def __init__(self, store: TurnStorage, run: Run):
        self.store = store
        self.conversation: Conversation = store.conversation
        self.agent: Agent = self.conversation.agent
        self.org = self.conversation.organization
        self.run = run
        self.place = place_of(self.conversation)
        self.actor = Actor.for_agent(self.agent)
        self.and_then_groups: dict[str, Uuid] = {}
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
        self._check_turns: list[CheckTurn] | None = None
        self._check_turns_upto = -1
        self._unsaved_step: str | None = None  # the words of a step saved after its calls (_step_after_calls)
        # Replies this turn answered with a note instead of taking as its answer (agents/runtime/replies.py).
        self._empty_replies = 0
        self._promises = 0
        self._acted = False  # whether this turn ran a tool call: a promise after one is taken as said

    # --- the loop ---------------------------------------------------------------------------------------------

    def execute(self) -> str:
        if self.agent.paused:
            return Run.Outcome.PAUSED
        try:
            model = get_model(self.org)
        except ModelNotConfigured as missing:
            self.store.say_no_model(str(missing))
            return Run.Outcome.NO_MODEL
        try:
            self._shown_lines = self.store.fold_memory()
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
            if self.store.lease_lost():
                raise LeaseLost(f"conversation {self.conversation.id} was claimed again")
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
            # calls, saved before any runs, so a dead worker's successor doesn't call twice; a step that only works
            # on Roadstar's own records is saved with their results instead: _step_after_calls) or its answer.
            message: Message | None
            self.run.steps += 1
            if calls and all(only_reads_here(c.name, c.arguments) for c in calls[:-1]) \
                    and only_here(calls[-1].name, calls[-1].arguments):
                message = self._step_after_calls(response.text, calls, saw_upto=saw_upto, usage=response.usage)
            else:
                if calls:  # (the storage commits them as one, TurnStorage.save_step)
                    pending, message = self.store.save_step(response.text, calls, saw_upto=saw_upto,
                                                            usage=response.usage, works=self._works)
                elif note or not response.text.strip():
                    with self.store.transaction():
                        self.store.count_step(response.usage, self._works)
                        message = self._note_reply(response.text, note, saw_upto=saw_upto) if note else None
                else:  # (the storage commits the answer with the step's usage and count, and the work it answers)
                    message = self._answer(response.text, saw_upto=saw_upto, usage=response.usage)
                self._hold(message)  # (_step_after_calls holds the step and its results itself)
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
        last = self.store.last_outcomes(self.run, CHAT_TURNS_IN_A_ROW)
        return not (len(last) == CHAT_TURNS_IN_A_ROW and set(last) == {Run.Outcome.CONTINUED})

    def _unfinished_calls(self) -> list[ToolCall]:
        """The tool calls saved and not done: read from storage only when there can be some. Where the turn holds
        the whole conversation, a call is done exactly when its result's message is there (both are written in one
        transaction: record_result), so calls the held steps made and their results settle it."""
        messages = self._held()
        if self._folded_upto == 0:
            made = {c["id"] for m in messages if m.role == Message.Role.AGENT for c in m.data.get("tool_calls") or []}
            if made <= {m.data.get("call_id") for m in messages if m.role == Message.Role.TOOL}:
                return []
        return self.store.unfinished_calls()

    def step_limit(self) -> int:
        return CHAT_STEPS if self.conversation.kind == Conversation.Kind.CHAT else THREAD_STEPS

    def steps_taken(self) -> int:
        """A chat counts the steps of this turn (4 a turn); a thread counts the steps on the piece of work, across
        every turn that worked on it (40 on one piece of work: spec/reference/limits.md). The work's count is
        written with each step (count_step), so it holds across turns and crashes; the run's is written at its end."""
        if self.conversation.kind == Conversation.Kind.CHAT or not self._works:
            return self.run.steps
        return self._steps_before + self.run.steps

    def thinking(self) -> str:
        # A chat always thinks lightly; the agent's level applies to threads.
        return "low" if self.conversation.kind == Conversation.Kind.CHAT else self.agent.thinking

    def _run_tool_calls(self, pending: list[ToolCall]) -> None:
        for call in pending:
            # A call and its recorded result commit together, so a call that ran is never run again: the call runs
            # with no transaction open (it may call out: an app, a model, the check's judge), and its writes commit
            # with its recorded result in the one transaction the pipeline opens (tools.pipeline.recording); a call
            # that wrote nothing there (it failed, or answered before running) has its result recorded after. The
            # result's message joins the turn's history once its transaction is through.
            if writes_to_an_app(call.name, call.arguments):
                if call.started_at is not None:
                    with self.store.transaction():
                        message = self.store.record_result(
                            call, ToolError("unknown_outcome", STOPPED_MID_CALL).as_result())
                    self._hold(message)
                    continue
                self.store.call_started(call)
            written: list[Message] = []

            def write(result, call: ToolCall = call, written: list[Message] = written) -> None:
                written.append(self.store.record_result(call, _in_band(call.name, result)))

            with recording(write) as record:
                result = run_agent_tool(self, call.name, call.arguments)
            if record.done:
                self._hold(written[-1])
            else:
                with self.store.transaction():
                    message = self.store.record_result(call, result)
                self._hold(message)

    def _step_after_calls(self, text: str, calls: list[ToolCallRequest], *, saw_upto: int,
                          usage: ModelUsage) -> Message:
        """A step whose calls work on Roadstar's own records alone: reads (only_reads_here), the last of them
        perhaps a call that changes something here (only_here). They run first, and the step is saved after them
        with their results as one write (TurnStorage.save_step_with_results), where a step and each call's result
        were a write each: inside the last call's transaction where it writes (its writes, the step and the results
        commit together, or none of them), else by itself. Nothing is lost by the wait: a worker that dies before
        that commit leaves no trace of the step, so the model is asked again; the reads run again change nothing,
        and the change was never made. The check reads the step's words as the model's (check_turns), as it would
        had the step been saved first. The step and its results go into the turn's history; returns its message."""
        self._step_saw = saw_upto  # (as for any step's calls: what its prompt held)
        self._unsaved_step = text
        try:
            results = [_in_band(c.name, run_agent_tool(self, c.name, c.arguments)) for c in calls[:-1]]
            last = calls[-1]
            saved: list[tuple[Message, list[Message]]] = []

            def write(result) -> None:  # (inside the last call's transaction, when it writes)
                saved.append(self.store.save_step_with_results(text, calls, [*results, _in_band(last.name, result)],
                                                               saw_upto=saw_upto, usage=usage, works=self._works))

            with recording(write) as record:
                result = run_agent_tool(self, last.name, last.arguments)
            if not record.done:  # (it only read, failed, or was held for the owner's yes: written by itself)
                write(result)
        finally:
            self._unsaved_step = None
        message, answers = saved[-1]
        for each in (message, *answers):
            self._hold(each)
        self._acted = True
        return message

    def _answer(self, text: str, *, saw_upto: int, usage: ModelUsage) -> Message:
        """Save the reply, and deliver it as the answer to the work it finishes, committed with it (the storage's
        answer): the work its prompt held that this turn didn't route (work routed on earlier turns answers when its
        answer came back). Work that came in while the model wrote it isn't in `_works` (read when the turn started),
        so it stays open; its message is after `saw_upto` and counts as not yet answered (input_waits), so the turn's
        hand-back queues it."""
        answered = [w for w in self._works
                    if w.state == Work.State.OPEN and w.id not in self._routes and self._seen(w, saw_upto)]
        return self.store.answer(text, saw_upto=saw_upto, works=answered, usage=usage, counted=self._works)

    def _note_reply(self, text: str, note: str, *, saw_upto: int) -> Message:
        """A reply that can't be the answer: kept (when it says anything) with the note to the agent after it, which
        is new input, so the loop takes another step. Returns the note (the reply is held here)."""
        if text.strip():
            self._promises += 1
            self._hold(self.store.append(Message.Role.AGENT, text, saw_upto=saw_upto, fenced=False))
        else:
            self._empty_replies += 1
        return self.store.append(Message.Role.SYSTEM, note, data={"reply_note": True}, fenced=False)

    def _fail(self, error: ModelUnavailable) -> str:
        # The owner reads what happened and what Try again does; the model's technical answer goes to the log and
        # the run (the admin), not on Home. A refusal was one call, not the tries of a model that didn't answer.
        logger.warning("turn of %s could not finish: %s", self.conversation.id, error)
        self.store.try_again(MODEL_REFUSED if isinstance(error, ModelRefused) else MODEL_DOWN)
        self.run.error = str(error)
        return Run.Outcome.FAILED

    # --- what the turn holds: its prompt, messages and work ---------------------------------------------------

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

    def tool_specs(self) -> list[dict]:
        """The tools a step is offered: the same for every step of a turn (browse's description reads the
        workspace's optional groups), so made once, and the request's prefix stays the same for the cache."""
        if self._tool_specs is None:
            self._tool_specs = self.store.tool_specs(self.place)
        return self._tool_specs

    def _read_new_messages(self) -> None:
        """The first time: the system prompt and the messages memory hasn't folded. After: the conversation's
        counter and the agent's pause, and the messages another process appended (the owner's next message, an
        answer) only when the counter says there are some; the turn's own are held as saved."""
        if self._messages is None:
            state = self.store.load(self._shown_lines)
            self._system, self._folded_upto, self._messages = state.system, state.folded_upto, state.messages
            self._known_upto = self._messages[-1].seq if self._messages else self._folded_upto - 1
            self._work_rows = state.works
            self._steps_before = max((w.steps for w in self._work_rows), default=0)
            return
        next_seq, self.agent.paused = self.store.counter_and_pause()
        if next_seq - 1 > self._known_upto:
            # Read from the last seq known without a gap; the turn's own messages past it are read again with them.
            added = self.store.messages_after(self._known_upto)
            self._messages = [m for m in self._messages if m.seq <= self._known_upto] + added
            if added:
                self._known_upto = added[-1].seq
                # Another process's message may bring work (the owner's next message, a packet): read it with them.
                held = {w.id: w for w in self._works}
                self._work_rows = [held.get(w.id, w) for w in self.store.open_works()]

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

    @property
    def known_upto(self) -> int | None:
        """The last seq the turn holds every message up to (None: it read none)."""
        return self._known_upto if self._messages is not None else None

    def input_waits_at(self, next_seq: int | None) -> bool:
        """has_new_input at the turn's end, with the conversation's counter read under its lock: from the messages
        the turn holds when the counter says they are all there (nothing was appended since its last read: the
        common end of a turn, two queries less), else from storage."""
        if self._messages is not None and next_seq is not None and next_seq - 1 == self._known_upto:
            return self._input_waits()
        return self.store.has_new_input()

    def _input_waits(self) -> bool:
        """has_new_input, read from the messages this turn holds when they reach back to the agent's last reply, or
        when they are the whole conversation (a new one: memory has folded none of it)."""
        messages = self._held()
        if self._folded_upto == 0 or any(is_reply(m) for m in messages):
            return input_waits(messages)
        return self.store.has_new_input()

    @property
    def _works(self) -> list[Work]:
        if self._work_rows is None:
            self._read_new_messages()
        assert self._work_rows is not None  # (_read_new_messages reads them)
        return self._work_rows

    def _seen(self, work: Work, upto: int | None) -> bool:
        """Did a prompt that held every message up to `upto` hold the message that brought this work?"""
        return work.seq is None or upto is None or work.seq <= upto

    def _unrouted(self, upto: int | None) -> list[Work]:
        """Work whose message a prompt up to `upto` held, still open, neither routed nor answered: oldest first."""
        return [w for w in self._works if w.state == Work.State.OPEN and w.routed_at is None
                and w.id not in self._routes and self._seen(w, upto)]

    # --- what agent tools use (ToolHost) ----------------------------------------------------------------------

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
        self.store.work_passed(work)

    def keep(self) -> None:
        """The work being routed was sent on and its answer comes back here: this turn's reply is not its answer."""
        self._routed_any = True
        unrouted = self._unrouted(self._step_saw)
        if not unrouted:
            return
        work = unrouted[0]
        self._routes[work.id] = "kept"
        work.routed_at = timezone.now()
        self.store.work_routed(work)

    def memory_text(self) -> str:
        return self.store.memory_text()

    def send_to_thread(self, thread: Conversation, *, task: str, notes: str | None, links: list[str],
                       and_then: str | None) -> Work:
        current = self.current_work()
        if and_then:
            group: Uuid | None = self.and_then_groups.setdefault(and_then, uuid.uuid4())
            requester: Conversation | None = self.conversation
            self.keep()
        else:
            group = None
            requester = current.requester if current else None
            self.pass_on(requester.id if requester else None)
        return self.store.send_packet(thread, sender=f"{self.agent.name}'s chat", task=task, notes=notes,
                                      links=links, requester=requester, current=current, group=group,
                                      and_then=and_then or "")

    def check_turns(self) -> list[CheckTurn]:
        """The conversation as the check reads it, validated as the check's turns once each: what memory folded is
        read once a turn, the rest is held."""
        messages = self._held()
        if self._check_turns is None:
            first = messages[0].seq if messages else self._known_upto + 1
            self._check_turns, self._check_turns_upto = [], -1
            messages = [*self.store.messages_before(first), *messages]  # (what memory folded, read once a turn)
        for message in messages:
            if message.seq > self._check_turns_upto:
                self._check_turns.extend(CONVERSATION.validate_python(check_turns_of(message)))
                self._check_turns_upto = message.seq
        if self._unsaved_step:  # the words of the step whose calls run, saved after them (_step_after_calls)
            return [*self._check_turns, AgentTurn(role="agent", text=self._unsaved_step)]
        return list(self._check_turns)


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


STOPPED_MID_CALL = (
    "The worker running this call stopped before its result was written down, so it may or may not have happened "
    "in the app. Look (read or search) before you do it again."
)


def _in_band(name: str, result):
    # run_agent_tool's answer for a tool that returned nothing; use_tool's own result may be null
    return {"done": True} if result is None and name != "use_tool" else result


