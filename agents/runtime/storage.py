"""What a turn needs from where its conversation is kept: the protocol the loop (agents/runtime/turn.py) runs over.

The SQL one is agents/runtime/sql_storage.py; the loop's own tests run over one kept in memory
(tests/agents/test_turn_loop.py). Every write of the turn's own messages is fenced by the claim's lease: a storage
whose lease was taken by another worker raises scheduler.LeaseLost from it, and the write (with the step or call it
belongs to, inside `transaction()`) is undone.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from agents.models import Conversation, MemoryLine, Message, Run, ToolCall, Work
from agents.runtime.model import ModelUsage, ToolCallRequest
from core.inputs import Uuid
from tools.registry import ToolResult


@dataclass
class TurnState:
    """What a turn reads at its start: the system prompt (memory's lines included), the messages memory hasn't
    folded, from `folded_upto` on, and the conversation's open work (read after the messages, oldest first)."""

    system: str
    folded_upto: int
    messages: list[Message]
    works: list[Work]


class TurnStorage(Protocol):
    conversation: Conversation
    lease: Uuid | None  # the claim's token, which the turn's own writes are fenced by (None: not fenced)

    # --- the run ------------------------------------------------------------------------------------------------

    def run_started(self) -> Run: ...

    def lease_lost(self) -> bool:
        """Whether the lease was seen taken by another worker meanwhile (the loop stops before its next step)."""
        ...

    def run_failed(self, run: Run, error: Exception) -> bool:
        """A bug broke the turn: the run ends failed and the conversation goes idle; False when the lease was lost."""
        ...

    def run_paused(self, run: Run) -> None:
        """The agent is paused: the run ends and the conversation waits in the queue."""
        ...

    def run_ended(self, run: Run, *, more_to_do: Callable[[int | None], bool], known_upto: int | None = None) -> None:
        """The run's end and the hand-back, in one transaction with the conversation locked: `more_to_do` is asked
        with its counter (None: it is gone) whether it goes back in the queue. LeaseLost (and nothing written)
        when another worker has it. `known_upto`: the last seq the turn read; a storage may first ask `more_to_do`
        of the counter after it, and hand back on that answer only while the counter is still that."""
        ...

    # --- reading --------------------------------------------------------------------------------------------------

    def fold_memory(self) -> list[MemoryLine]:
        """Memory folded as due (a model call: ModelUnavailable), and the lines the prompt shows."""
        ...

    def load(self, lines: list[MemoryLine] | None) -> TurnState: ...

    def tool_specs(self, place: str) -> list[dict]: ...

    def counter_and_pause(self) -> tuple[int, bool]:
        """The conversation's `next_seq` and whether its agent is paused, as they are now: a storage may give them
        as its last write read them, when that was the last call's result (nothing came in between)."""
        ...

    def messages_after(self, seq: int) -> list[Message]: ...

    def messages_before(self, seq: int) -> list[Message]: ...

    def open_works(self) -> list[Work]: ...

    def unfinished_calls(self) -> list[ToolCall]: ...

    def has_new_input(self) -> bool:
        """input_waits over the whole conversation (the turn holds only what memory hasn't folded)."""
        ...

    def last_outcomes(self, run: Run, n: int) -> list[str]:
        """The outcomes of the conversation's last `n` runs before `run`, newest first."""
        ...

    def memory_text(self) -> str: ...

    # --- writing --------------------------------------------------------------------------------------------------

    def transaction(self) -> AbstractContextManager[object]:
        """What commits together (a step's rows; a call with its result), or is undone together."""
        ...

    def count_step(self, usage: ModelUsage, works: list[Work]) -> None:
        """The model call's usage, and one step more on each piece of open work (a step that calls no tool)."""
        ...

    def save_step(self, text: str, calls: list[ToolCallRequest], *, saw_upto: int, usage: ModelUsage,
                  works: list[Work]) -> tuple[list[ToolCall], Message]:
        """The model's step that calls tools, committed as one (its own transaction, or the caller's): its usage
        and one step more on each of `works` (count_step), its message and its calls, saved before any runs
        (fenced); returns the calls to run, and the message."""
        ...

    def save_step_with_results(self, text: str, calls: list[ToolCallRequest], results: list[ToolResult], *,
                               saw_upto: int, usage: ModelUsage, works: list[Work]) -> tuple[Message, list[Message]]:
        """A step saved after its calls ran (Turn._step_after_calls), committed as one (fenced), in the caller's
        transaction (its last call's, which commits that call's writes with it) or its own: what save_step writes,
        with each call done with its result (`results`, in the calls' order) and each result's message after the
        step's, as record_result writes them. Returns the step's message and the results'."""
        ...

    def answer(self, text: str, *, saw_upto: int, works: list[Work], usage: ModelUsage | None = None,
               counted: list[Work] | None = None) -> Message:
        """The reply (fenced), delivered as the answer to each of `works` still open; with `usage`, the step's
        usage and one step more on each of `counted` written with it (count_step), as save_step does. Committed as
        one (its own transaction, or the caller's)."""
        ...

    def append(self, role: str, text: str, *, data: dict | None = None, saw_upto: int | None = None,
               fenced: bool = True) -> Message: ...

    def call_started(self, call: ToolCall) -> None:
        """A call that can't be undone is marked started before it runs: LeaseLost unless the lease is still held."""
        ...

    def record_result(self, call: ToolCall, result: ToolResult) -> Message:
        """The call done, and its result as a message (fenced)."""
        ...

    def work_passed(self, work: Work) -> None: ...

    def work_routed(self, work: Work) -> None: ...

    def send_packet(self, thread: Conversation, *, sender: str, task: str, notes: str | None, links: list[str],
                    requester: Conversation | None, current: Work | None, group: Uuid | None,
                    and_then: str) -> Work:
        """Work handed to one of the agent's threads: its packet, the work, and the thread woken."""
        ...

    def say_no_model(self, explanation: str) -> None: ...

    def try_again(self, body: str) -> None:
        """The work that couldn't finish on Home, with Try again."""
        ...
