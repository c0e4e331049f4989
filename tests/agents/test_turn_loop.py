"""The turn's loop on its own, over a storage kept in memory (no database: no django_db mark, and any query would
fail the test): its steps and their limits, which work a reply answers, the lease's fence, and tool calls."""

from __future__ import annotations

import contextlib
import copy
import uuid

import pytest
from django.utils import timezone

from agents.models import Agent, Conversation, Message, Run, ToolCall, Work
from agents.runtime import turn as turn_module
from agents.runtime.messages import compact_json, input_waits
from agents.runtime.model import ModelNotConfigured, ModelUnavailable, call, calls, say
from agents.runtime.replies import EMPTY_NOTE
from agents.runtime.scheduler import LeaseLost
from agents.runtime.storage import TurnState, TurnStorage
from agents.runtime.turn import CHAT_STEPS, CHAT_TURNS_IN_A_ROW, STEP_LIMIT_NOTE, THREAD_STEPS, Turn, run_claimed
from core.inputs import Uuid
from core.models import Organization

SYSTEM = "You are Client desk."


class MemoryStorage:
    """A conversation kept in lists. `holder` is whose lease the conversation is under now: set it to another token
    and the turn's fenced writes raise LeaseLost, as the database's do once another worker claimed it."""

    def __init__(self, conversation: Conversation, *, lease: Uuid | None = None):
        self.conversation = conversation
        self.lease = lease
        self.holder = lease
        self.lost = False  # what the lease keeper saw
        self.messages: list[Message] = []
        self.works: list[Work] = []
        self.calls: list[ToolCall] = []
        self.outcomes: list[str] = []  # earlier runs' outcomes, newest first
        self.usage: list = []
        self.cards: list[str] = []
        self.ended: dict = {}
        self.routed: list[Work] = []
        self.while_loading = lambda: None  # what another process does between the turn's read of messages and work
        self._ids = iter(range(1, 10**6))

    # --- as another process would write ----------------------------------------------------------------------

    def owner_says(self, text: str) -> Work:
        message = self._append(Message.Role.OWNER, text, fenced=False)
        work = Work(id=uuid.uuid4(), organization=self.conversation.organization, agent=self.conversation.agent,
                    conversation=self.conversation, task=text, seq=message.seq, created_at=timezone.now())
        self.works.append(work)
        return work

    # --- TurnStorage ------------------------------------------------------------------------------------------

    def run_started(self) -> Run:
        return Run(id=next(self._ids), organization=self.conversation.organization, conversation=self.conversation,
                   agent=self.conversation.agent, started_at=timezone.now())

    def lease_lost(self) -> bool:
        return self.lost

    def run_failed(self, run: Run, error: Exception) -> bool:
        self.ended = {"outcome": Run.Outcome.FAILED, "error": repr(error), "more_to_do": False}
        return True

    def run_paused(self, run: Run) -> None:
        self.ended = {"outcome": run.outcome}

    def run_ended(self, run: Run, *, more_to_do, known_upto=None) -> None:
        self._fence()
        self.ended = {"outcome": run.outcome, "steps": run.steps, "more_to_do": more_to_do(len(self.messages))}

    def fold_memory(self) -> list:
        return []

    def load(self, lines) -> TurnState:
        messages = list(self.messages)
        self.while_loading()
        return TurnState(system=SYSTEM, folded_upto=0, messages=messages, works=self.open_works())

    def tool_specs(self, place: str) -> list[dict]:
        return [{"type": "function", "function": {"name": "lookup"}}]

    def counter_and_pause(self) -> tuple[int, bool]:
        return len(self.messages), self.conversation.agent.paused

    def messages_after(self, seq: int) -> list[Message]:
        return [m for m in self.messages if m.seq > seq]

    def messages_before(self, seq: int) -> list[Message]:
        return [m for m in self.messages if m.seq < seq]

    def open_works(self) -> list[Work]:
        return [copy.copy(w) for w in self.works if w.state == Work.State.OPEN]

    def unfinished_calls(self) -> list[ToolCall]:
        return [c for c in self.calls if c.done_at is None]

    def has_new_input(self) -> bool:
        return input_waits(self.messages)

    def last_outcomes(self, run: Run, n: int) -> list[str]:
        return self.outcomes[:n]

    def memory_text(self) -> str:
        return "\n".join(f"#{m.seq} {m.role}: {m.text}" for m in self.messages)

    @contextlib.contextmanager
    def transaction(self):
        kept = (list(self.messages), [copy.copy(w) for w in self.works], list(self.calls), list(self.usage))
        try:
            yield
        except BaseException:
            self.messages, self.works, self.calls, self.usage = kept
            raise

    def count_step(self, usage, works: list[Work]) -> None:
        self.usage.append(usage)
        for work in self.works:
            if work.state == Work.State.OPEN and work.id in {w.id for w in works}:
                work.steps += 1

    def save_step(self, text, calls, *, saw_upto, usage=None, works=()):
        with self.transaction():  # (a test that saves a step by hand gives no usage)
            if usage is not None:
                self.count_step(usage, list(works))
            message = self._append(Message.Role.AGENT, text, saw_upto=saw_upto, data={"tool_calls": [
                {"id": c.id, "name": c.name, "arguments": c.arguments, "raw": c.raw_arguments} for c in calls]})
            saved = [ToolCall(id=next(self._ids), conversation=self.conversation, message=message, call_id=c.id,
                              name=c.name, arguments=c.arguments) for c in calls]
            self.calls.extend(saved)
        return saved, message

    def save_step_with_results(self, text, calls, results, *, saw_upto, usage, works):
        with self.transaction():
            saved, message = self.save_step(text, calls, saw_upto=saw_upto, usage=usage, works=works)
            return message, [self.record_result(call, result) for call, result in zip(saved, results, strict=True)]

    def answer(self, text, *, saw_upto, works, usage=None, counted=None):
        with self.transaction():
            if usage is not None:
                self.count_step(usage, list(counted or []))
            message = self._append(Message.Role.AGENT, text, saw_upto=saw_upto)
            for answered in works:
                work = self._work(answered.id)
                if work.state == Work.State.OPEN:
                    work.state, work.answer = Work.State.ANSWERED, text
            return message

    def append(self, role, text, *, data=None, saw_upto=None, fenced=True):
        return self._append(role, text, data=data, saw_upto=saw_upto, fenced=fenced)

    def call_started(self, call) -> None:
        self._fence()
        call.started_at = timezone.now()

    def record_result(self, call, result):
        call.result, call.done_at = result, timezone.now()
        return self._append(Message.Role.TOOL, compact_json(result), data={"call_id": call.call_id, "name": call.name})

    def work_passed(self, work) -> None:
        self._work(work.id).state = Work.State.PASSED

    def work_routed(self, work) -> None:
        self._work(work.id).routed_at = work.routed_at
        self.routed.append(work)

    def send_packet(self, thread, **packet) -> Work:
        raise AssertionError("no thread in these tests")

    def say_no_model(self, explanation: str) -> None:
        self.cards.append(explanation)
        self._append(Message.Role.AGENT, f"I can't work yet: {explanation}", data={"no_model": True})

    def try_again(self, body: str) -> None:
        self.cards.append(body)

    # --- inside -----------------------------------------------------------------------------------------------

    def _fence(self) -> None:
        if self.lease is not None and self.holder != self.lease:
            raise LeaseLost(f"conversation {self.conversation.id} was claimed again")

    def _append(self, role, text, *, data=None, saw_upto=None, fenced=True) -> Message:
        if fenced:
            self._fence()
        seq = len(self.messages)
        data = dict(data or {})
        if saw_upto is not None and seq - 1 > saw_upto:
            data["saw_upto"] = saw_upto
        message = Message(id=seq + 1, conversation=self.conversation, seq=seq, role=role, text=text, data=data)
        self.messages.append(message)
        return message

    def _work(self, work_id) -> Work:
        return next(w for w in self.works if w.id == work_id)


def test_the_memory_storage_is_a_turn_storage():
    store: TurnStorage = MemoryStorage(conversation("chat"))  # (mypy checks it against the protocol)
    assert store.lease is None


def conversation(kind: str) -> Conversation:
    org = Organization(id=uuid.uuid4(), name="Fernhill Studio", owner_name="Sam Reyes")
    agent = Agent(id=uuid.uuid4(), organization=org, name="Client desk")
    return Conversation(id=uuid.uuid4(), organization=org, agent=agent, kind=kind, title="" if kind == "chat" else "Q3")


@pytest.fixture
def tools(monkeypatch):
    """The agent tools the model calls, by name: each a function of (the turn, its arguments)."""
    table: dict = {"lookup": lambda turn, arguments: {"found": arguments.get("name", "")}}
    ran: list[str] = []

    def run_agent_tool(turn, name, arguments):
        ran.append(name)
        tool = table.get(name)
        return tool(turn, arguments) if tool else {"error": "not_found", "message": f"No tool {name}."}

    monkeypatch.setattr(turn_module, "run_agent_tool", run_agent_tool)
    table["ran"] = ran
    return table


def turn_of(store: MemoryStorage) -> Turn:
    return Turn(store, store.run_started())


def roles(store: MemoryStorage) -> list[str]:
    return [m.role for m in store.messages]


def test_a_reply_answers_the_owners_message(model, tools):
    store = MemoryStorage(conversation("chat"))
    work = store.owner_says("Who is Dana?")
    model.add(say("Dana Kim, of Ortiz Bakery."))
    assert turn_of(store).execute() == Run.Outcome.ANSWERED
    assert roles(store) == ["owner", "agent"]
    assert store._work(work.id).state == Work.State.ANSWERED
    assert model.requests[0]["messages"][0] == {"role": "system", "content": SYSTEM}
    assert model.requests[0]["messages"][1]["content"] == "[#0] Sam: Who is Dana?"


def test_a_tool_calls_result_is_recorded_and_shown_to_the_next_step(model, tools):
    store = MemoryStorage(conversation("thread"))
    store.owner_says("Find Dana")
    model.add(call("lookup", {"name": "Dana"}), say("Dana is in Contacts."))
    assert turn_of(store).execute() == Run.Outcome.ANSWERED
    assert roles(store) == ["owner", "agent", "tool", "agent"]
    assert store.messages[2].text == '{"found":"Dana"}'
    assert store.calls[0].done_at is not None
    second = model.requests[1]["messages"]
    assert second[-1] == {"role": "tool", "tool_call_id": store.calls[0].call_id, "content": '{"found":"Dana"}'}
    assert second[:len(model.requests[0]["messages"])] == model.requests[0]["messages"]  # the prompt only grows


def test_a_tool_that_fails_in_band_is_an_answer_the_model_reads_and_the_turn_goes_on(model, tools):
    store = MemoryStorage(conversation("thread"))
    store.owner_says("Find Dana")
    model.add(call("lokup", {"name": "Dana"}), say("I couldn't look it up."))
    assert turn_of(store).execute() == Run.Outcome.ANSWERED
    assert store.messages[2].data == {"call_id": store.calls[0].call_id, "name": "lokup"}
    assert '"error":"not_found"' in model.requests[1]["messages"][-1]["content"]


def test_a_tool_that_raises_fails_the_run_with_try_again_and_the_call_stays_unrecorded(model, tools):
    store = MemoryStorage(conversation("thread"))
    store.owner_says("Find Dana")

    def broken(turn, arguments):
        raise RuntimeError("a bug")

    tools["lookup"] = broken
    model.add(call("lookup", {"name": "Dana"}))
    with pytest.raises(RuntimeError):
        run_claimed(store)
    assert store.ended["outcome"] == Run.Outcome.FAILED
    assert store.cards == [turn_module.BROKE]
    assert roles(store) == ["owner", "agent"]  # the step is saved; its call is not done, so Try again runs it
    assert store.unfinished_calls() == store.calls


def test_a_successor_runs_the_saved_call_its_predecessor_left_before_asking_the_model(model, tools):
    store = MemoryStorage(conversation("thread"))
    store.owner_says("Find Dana")
    step = calls([("lookup", {"name": "Dana"})])
    store.save_step("", step.tool_calls, saw_upto=0)  # the worker died after saving its step
    model.add(say("Dana is in Contacts."))
    assert turn_of(store).execute() == Run.Outcome.ANSWERED
    assert tools["ran"] == ["lookup"]
    assert len(model.requests) == 1 and model.requests[0]["messages"][-1]["role"] == "tool"


def test_a_call_to_an_app_that_was_started_and_never_recorded_is_not_run_again(model, tools, monkeypatch):
    store = MemoryStorage(conversation("thread"))
    store.owner_says("Send the invoice")
    store.save_step("", call("use_tool", {"name": "mail.send"}).tool_calls, saw_upto=0)
    store.calls[0].started_at = timezone.now()
    monkeypatch.setattr(turn_module, "writes_to_an_app", lambda name, arguments: True)
    model.add(say("I'll check the sent mail first."), say("It was sent."))
    turn_of(store).execute()
    assert tools["ran"] == []
    assert '"unknown_outcome"' in store.messages[2].text


def test_a_reply_answers_only_the_work_its_prompt_held(model, tools):
    store = MemoryStorage(conversation("chat"))
    first = store.owner_says("Who is Dana?")
    later: list[Work] = []

    def answer_while_the_owner_writes_again(request):
        later.append(store.owner_says("And her phone?"))  # another process, while the model writes
        return say("Dana Kim, of Ortiz Bakery.")

    model.add(answer_while_the_owner_writes_again)
    assert run_claimed(store) == Run.Outcome.ANSWERED
    assert store._work(first.id).state == Work.State.ANSWERED
    assert store._work(later[0].id).state == Work.State.OPEN
    assert store.messages[2].data["saw_upto"] == 0  # shown after the message it never saw, and still to answer
    assert store.ended["more_to_do"] is True  # the conversation goes back in the queue for it


def test_work_read_as_the_turn_started_whose_message_its_prompt_missed_stays_open(model, tools):
    store = MemoryStorage(conversation("chat"))
    first = store.owner_says("Who is Dana?")
    later: list[Work] = []
    store.while_loading = lambda: later.append(store.owner_says("And her phone?"))
    model.add(say("Dana Kim, of Ortiz Bakery."))
    assert run_claimed(store) == Run.Outcome.ANSWERED
    assert [store._work(first.id).state, store._work(later[0].id).state] == [Work.State.ANSWERED, Work.State.OPEN]
    assert store.ended["more_to_do"] is True


def test_an_empty_reply_gets_a_note_and_another_step(model, tools):
    store = MemoryStorage(conversation("chat"))
    work = store.owner_says("Who is Dana?")
    model.add(say(""), say("Dana Kim."))
    assert turn_of(store).execute() == Run.Outcome.ANSWERED
    assert [(m.role, m.text) for m in store.messages[1:]] == [("system", EMPTY_NOTE), ("agent", "Dana Kim.")]
    assert store._work(work.id).answer == "Dana Kim."


def test_a_chats_last_step_is_told_to_answer(model, tools):
    store = MemoryStorage(conversation("chat"))
    work = store.owner_says("Find Dana")
    model.add(*[call("lookup", {"name": "Dana"}) for _ in range(CHAT_STEPS - 1)], say("Dana is in Contacts."))
    assert turn_of(store).execute() == Run.Outcome.ANSWERED
    last = model.requests[-1]
    assert last["tool_choice"] == "none" and last["messages"][-1] == {"role": "user", "content": STEP_LIMIT_NOTE}
    assert all(r["tool_choice"] is None for r in model.requests[:-1])
    assert store._work(work.id).state == Work.State.ANSWERED


def test_a_chat_routing_its_work_goes_on_in_another_turn_at_its_step_limit(model, tools):
    store = MemoryStorage(conversation("chat"))
    first, second = store.owner_says("Ask the bookkeeper about March"), store.owner_says("And about April")
    tools["hand_off"] = lambda turn, arguments: turn.keep() or {"handed": True}
    model.add(call("lookup"), call("lookup"), call("hand_off"), call("hand_off"))
    assert run_claimed(store) == Run.Outcome.CONTINUED
    assert tools["ran"] == ["lookup", "lookup", "hand_off", "hand_off"]
    assert model.requests[-1]["tool_choice"] is None  # not forced: it was routing, and work was left to route
    assert [w.id for w in store.routed] == [first.id, second.id]
    assert store.ended == {"outcome": Run.Outcome.CONTINUED, "steps": CHAT_STEPS, "more_to_do": True}


def test_after_turns_in_a_row_of_going_on_a_chats_last_step_is_forced(model, tools):
    store = MemoryStorage(conversation("chat"))
    store.owner_says("Ask the bookkeeper about March")
    store.owner_says("And about April")
    store.outcomes = [Run.Outcome.CONTINUED] * CHAT_TURNS_IN_A_ROW
    tools["hand_off"] = lambda turn, arguments: turn.keep() or {"handed": True}
    model.add(call("lookup"), call("lookup"), call("hand_off"), call("hand_off"))
    run_claimed(store)
    assert model.requests[-1]["tool_choice"] == "none"
    assert tools["ran"] == ["lookup", "lookup", "hand_off"]  # the forced step's call was dropped


def test_a_threads_steps_count_on_its_work_across_turns(model, tools):
    store = MemoryStorage(conversation("thread"))
    work = store.owner_says("Find Dana")
    work.steps = THREAD_STEPS - 2  # taken on it in turns before this one
    model.add(call("lookup"), say("Dana is in Contacts."))
    turn_of(store).execute()
    assert model.requests[-1]["tool_choice"] == "none"
    assert store._work(work.id).steps == THREAD_STEPS


def test_a_write_after_the_lease_was_taken_raises_and_leaves_nothing_of_the_step(model, tools):
    lease = uuid.uuid4()
    store = MemoryStorage(conversation("thread"), lease=lease)
    store.owner_says("Find Dana")

    def claimed_by_another_worker_meanwhile(request):
        store.holder = uuid.uuid4()
        return call("lookup", {"name": "Dana"})

    model.add(claimed_by_another_worker_meanwhile)
    with pytest.raises(LeaseLost):
        run_claimed(store)
    assert roles(store) == ["owner"] and store.calls == [] and store.usage == []  # the step rolled back whole
    assert tools["ran"] == [] and store.ended == {}  # its call never ran, and the run isn't ended here


def test_a_turn_whose_lease_was_seen_lost_stops_before_asking_the_model(model, tools):
    store = MemoryStorage(conversation("chat"), lease=uuid.uuid4())
    store.owner_says("Who is Dana?")
    store.lost = True
    with pytest.raises(LeaseLost):
        turn_of(store).execute()
    assert model.requests == []


def test_with_no_model_connected_the_turn_says_so_and_the_question_still_waits(tools, monkeypatch):
    def no_model(org):
        raise ModelNotConfigured("No AI model is connected.")

    monkeypatch.setattr(turn_module, "get_model", no_model)
    store = MemoryStorage(conversation("chat"))
    store.owner_says("Who is Dana?")
    assert run_claimed(store) == Run.Outcome.NO_MODEL
    assert store.cards == ["No AI model is connected."]
    assert store.ended["more_to_do"] is False and store.has_new_input()


def test_a_model_that_is_down_fails_the_turn_with_try_again(model, tools):
    store = MemoryStorage(conversation("chat"))
    store.owner_says("Who is Dana?")

    def down(request):
        raise ModelUnavailable("503 after five tries")

    model.add(down)
    assert run_claimed(store) == Run.Outcome.FAILED
    assert store.cards == [turn_module.MODEL_DOWN]
    assert store.ended["more_to_do"] is False


def test_a_paused_agent_takes_no_step(model, tools):
    store = MemoryStorage(conversation("chat"))
    store.owner_says("Who is Dana?")
    store.conversation.agent.paused = True
    assert run_claimed(store) == Run.Outcome.PAUSED
    assert model.requests == [] and store.ended == {"outcome": Run.Outcome.PAUSED}
