"""Memory: messages folded into lines like a binary counter, the prompt it makes, and who writes the summaries.

The scripted model writes every summary from what it was sent: "covers #0-#7" for a block of messages #0..#7,
and for two lines the union of what they cover. So a line's summary says exactly which messages it sums up.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from agents import services
from agents.models import Conversation, MemoryLine, Message, Run, Usage
from agents.runtime import memory
from agents.runtime.memory import BLOCK, KEEP_WHOLE
from agents.runtime.model import call, calls, say
from agents.runtime.scheduler import wake
from agents.runtime.sql_storage import SqlTurnStorage
from agents.runtime.turn import Turn, drain
from tests.factories import messages_bulk_create

# --- the scripted summariser ------------------------------------------------------------------------------------

MESSAGE_ID = re.compile(r"#(\d+)(?:-#(\d+))?")


def is_summary(request: dict) -> bool:
    return request["messages"][0]["content"] == memory.SUMMARY_INSTRUCTIONS


def ids_in(text: str) -> set[int]:
    """The message ids a summary request or summary names: `#12` or a range `#8-#15`."""
    ids = set()
    for low, high in MESSAGE_ID.findall(text):
        ids.update(range(int(low), int(high or low) + 1))
    return ids


def as_ranges(ids: set[int]) -> str:
    ranges, ordered = [], sorted(ids)
    for i in ordered:
        if ranges and i == ranges[-1][1] + 1:
            ranges[-1][1] = i
        else:
            ranges.append([i, i])
    return ", ".join(f"#{a}-#{b}" if a != b else f"#{a}" for a, b in ranges)


def summarise(request: dict):
    """Sums up by naming the messages it was sent (or the union of the two lines it was sent)."""
    assert is_summary(request), f"expected a summary request, got {request['messages'][-1]}"
    return say("covers " + as_ranges(ids_in(request["messages"][1]["content"])))


def covers(start: int, n: int) -> str:
    return "covers " + as_ranges(set(range(start, start + n)))


class Script:
    """The model's part in a test: every summary request answered by `summary`, any other by the next of `steps`.

    It stays at the head of the scripted model's script, so it answers as many summaries as are asked for.
    """

    def __init__(self, model, steps=(), summary=summarise):
        self.model, self.steps, self.summary = model, list(steps), summary
        model.add(self)

    def __call__(self, request):
        self.model.script.insert(0, self)
        if is_summary(request):
            return self.summary(request)
        if not self.steps:
            raise AssertionError(f"request {len(self.model.requests)} is not a summary and no step is left")
        return self.steps.pop(0)


# --- conversations ----------------------------------------------------------------------------------------------


@pytest.fixture
def desk(staff):
    return staff["Client desk"]


@pytest.fixture
def thread(desk):
    return services.thread_start(agent=desk, title="Juniper Dental")


def add_messages(conversation: Conversation, count: int, *, text: str = "Dana asked for the rebrand quote") -> None:
    """`count` more messages, by bulk_create: packets and replies taking turns."""
    first = Message.objects.filter(conversation=conversation).count()
    messages_bulk_create([
        Message(conversation=conversation, seq=seq, role=Message.Role.HANDOFF if seq % 2 == 0 else Message.Role.AGENT,
                text=text)
        for seq in range(first, first + count)
    ])


def new_turn(conversation: Conversation) -> Turn:
    run = Run.objects.create(organization=conversation.organization, conversation=conversation,
                             agent=conversation.agent, started_at=timezone.now())
    return Turn(SqlTurnStorage(conversation), run)


def summary_requests(model) -> list[dict]:
    return [r for r in model.requests if is_summary(r)]


def folded(conversation: Conversation) -> tuple[list[MemoryLine], int, int]:
    """(top lines, messages folded, messages whole)."""
    lines = memory.top_lines(conversation)
    upto = memory.folded_upto(lines)
    return lines, upto, Message.objects.filter(conversation=conversation).count() - upto


# --- 1. folding invariants --------------------------------------------------------------------------------------

SIZES = [*range(0, 201), 1000]


@dataclass(frozen=True)
class Folding:
    """What folding N messages made: every line (start, n) -> summary, the top lines, and what a second fold did."""

    size: int
    lines: dict[tuple[int, int], str]
    top: list[tuple[int, int]]
    folded: int
    whole: int
    again: tuple[int, int, int]  # blocks the second fold folded, lines it made, model calls it made


_foldings: dict[int, Folding] = {}


@pytest.fixture(params=SIZES, ids=lambda size: f"{size}-messages")
def folding(request, db) -> Folding:
    """A thread of N messages, folded, and folded again at once.

    Folding N messages depends on N alone, so each N is folded once per test process and what it made is kept
    for the other tests of the same N (a test each per invariant, without folding 1,237 times).
    """
    size = request.param
    if size not in _foldings:
        thread, model = request.getfixturevalue("thread"), request.getfixturevalue("model")
        add_messages(thread, size)
        Script(model)
        memory.fold(thread)
        lines, upto, whole = folded(thread)
        made = {(line.start, line.n): line.summary for line in MemoryLine.objects.filter(conversation=thread)}
        calls_before = len(model.requests)
        blocks_again = memory.fold(thread)
        again = (blocks_again, MemoryLine.objects.filter(conversation=thread).count() - len(made),
                 len(model.requests) - calls_before)
        _foldings[size] = Folding(size, made, [(line.start, line.n) for line in lines], upto, whole, again)
    return _foldings[size]


def test_every_top_line_covers_a_power_of_two_at_least_block_messages_from_a_multiple_of_it(folding):
    for start, n in folding.top:
        assert n >= BLOCK and n & (n - 1) == 0 and start % n == 0, (start, n)


def test_top_lines_tile_the_folded_messages_with_no_gap_or_overlap(folding):
    covered_to = 0
    for start, n in folding.top:
        assert start == covered_to, f"line {start}+{n} after messages up to {covered_to}"
        covered_to = start + n
    assert covered_to == folding.folded


def test_there_are_as_many_top_lines_as_ones_in_the_count_of_folded_blocks(folding):
    assert folding.folded % BLOCK == 0
    assert len(folding.top) == bin(folding.folded // BLOCK).count("1")


def test_there_are_at_most_log2_of_n_over_block_plus_one_top_lines(folding):
    bound = math.floor(math.log2(folding.size / BLOCK)) + 1 if folding.size >= BLOCK else 0
    assert len(folding.top) <= bound


def test_between_keep_whole_and_keep_whole_plus_block_less_one_messages_stay_whole(folding):
    if folding.size < KEEP_WHOLE:
        assert folding.whole == folding.size
    else:
        assert KEEP_WHOLE <= folding.whole <= KEEP_WHOLE + BLOCK - 1


def test_every_line_sums_up_exactly_the_messages_it_covers(folding):
    assert {key: summary for key, summary in folding.lines.items() if summary != covers(*key)} == {}
    assert set(folding.top) <= set(folding.lines)


def test_folding_again_at_once_makes_nothing_new(folding):
    assert folding.again == (0, 0, 0)


def test_folding_as_a_conversation_grows_keeps_the_invariants_and_makes_each_line_once(thread, model):
    Script(model)
    for size in range(1, 201):
        add_messages(thread, 1)
        memory.fold(thread)
        lines, upto, whole = folded(thread)
        assert len(lines) == bin(upto // BLOCK).count("1") and (whole == size if size < KEEP_WHOLE else
                                                                 KEEP_WHOLE <= whole < KEEP_WHOLE + BLOCK)
        assert [line.summary for line in lines] == [covers(line.start, line.n) for line in lines]
    blocks = folded(thread)[1] // BLOCK
    # One summary per block, one per fold of two lines into one: each made once, however the growth went.
    assert len(summary_requests(model)) == MemoryLine.objects.filter(conversation=thread).count() == (
        2 * blocks - bin(blocks).count("1")
    )


@pytest.mark.parametrize("fails_at", range(7))
def test_a_fold_cut_short_by_the_model_going_down_is_finished_by_the_next(thread, model, fails_at):
    # 40 messages fold in 7 summaries: 4 blocks of 8, and 3 folds of two lines into one. The model goes down
    # at each of them in turn; the next fold picks up from what was kept and ends where an unbroken one would.
    from agents.runtime.model import ModelUnavailable

    add_messages(thread, 40)
    answered = []

    def down_at_one(request):
        if len(answered) == fails_at:
            raise ModelUnavailable("down")
        answered.append(request)
        return summarise(request)

    Script(model, summary=down_at_one)
    with pytest.raises(ModelUnavailable):
        memory.fold(thread)
    model.script.clear()
    Script(model)
    memory.fold(thread)
    lines, upto, _ = folded(thread)
    assert [(line.start, line.n, line.summary) for line in lines] == [(0, 32, covers(0, 32))] and upto == 32
    assert memory.fold(thread) == 0


def test_no_transaction_is_held_open_while_the_model_writes_a_summary(thread, model):
    # With SQLite's IMMEDIATE transactions, an open transaction holds the write lock: every other worker would
    # wait on a model call (up to a minute of retries) and fail with "database is locked".
    add_messages(thread, 40)
    outside = len(connection.savepoint_ids)
    depths = []

    def noting_depth(request):
        depths.append(len(connection.savepoint_ids))
        return summarise(request)

    Script(model, summary=noting_depth)
    memory.fold(thread)
    assert depths and set(depths) == {outside}


# --- 2. O(log N) lines plus the newest messages -------------------------------------------------------------------

TEN_THOUSAND = 10_000
REALISTIC = 300  # characters, about what a packet, a reply or a tool result runs to


def realistic_messages(conversation: Conversation, count: int) -> None:
    """A thread's working rhythm, ~300 characters a message: a packet, a tool call, its result, a reply."""
    words = ("Juniper Dental asked about the spring rebrand for its two clinics; Dana Whitfield wants the quote "
             "before Friday, in USD, with the signage and the new site listed apart. ")
    body = (words * 3)[:REALISTIC]
    rows = []
    for seq in range(count):
        kind = seq % 4
        if kind == 0:
            rows.append(Message(conversation=conversation, seq=seq, role=Message.Role.HANDOFF,
                                text=f"[From Client desk's chat] {body}"[:REALISTIC]))
        elif kind == 1:
            arguments = {"name": "contacts.find", "input": {"query": "Dana Whitfield"}}
            rows.append(Message(conversation=conversation, seq=seq, role=Message.Role.AGENT, text=body[:120],
                                data={"tool_calls": [{"id": f"call_{seq}", "name": "use_tool", "arguments": arguments,
                                                      "raw": json.dumps(arguments)}]}))
        elif kind == 2:
            rows.append(Message(conversation=conversation, seq=seq, role=Message.Role.TOOL,
                                text=json.dumps({"contacts": [{"id": "c_1", "name": "Dana Whitfield",
                                                               "note": body[:220]}]}),
                                data={"call_id": f"call_{seq - 1}", "name": "use_tool"}))
        else:
            rows.append(Message(conversation=conversation, seq=seq, role=Message.Role.AGENT, text=body))
    messages_bulk_create(rows, batch_size=2_000)


EIGHTY_WORDS = " ".join(["Dana Whitfield of Juniper Dental asked for a quote; sent on 3 March for $4,200."] * 6)


@dataclass(frozen=True)
class BigPrompt:
    messages: list[dict]
    tools: list[dict]
    newest: dict  # the newest message as the prompt should show it


_big_prompts: list[BigPrompt] = []


@pytest.fixture
def ten_thousand(request, db) -> BigPrompt:
    """The prompt of a thread of 10,000 realistic messages, folded with summaries of ~80 words (what the summary
    instructions ask for). Folding takes 2,493 summaries, so it is made once per test process and kept."""
    if not _big_prompts:
        thread, model = request.getfixturevalue("thread"), request.getfixturevalue("model")
        realistic_messages(thread, TEN_THOUSAND)
        Script(model, summary=lambda _: say(EIGHTY_WORDS))
        memory.fold(thread)
        turn = new_turn(thread)
        newest = Message.objects.get(conversation=thread, seq=TEN_THOUSAND - 1)
        _big_prompts.append(BigPrompt(turn.prompt(), turn.tool_specs(), {"role": "assistant", "content": newest.text}))
    return _big_prompts[0]


def prompt_lines(prompt: list[dict]) -> list[str]:
    return [row for row in prompt[0]["content"].splitlines() if row.startswith("[line ")]


def test_a_prompt_of_ten_thousand_messages_shows_at_most_log2_of_n_over_block_plus_one_lines(ten_thousand):
    assert 1 <= len(prompt_lines(ten_thousand.messages)) <= math.log2(TEN_THOUSAND / BLOCK) + 1


def test_a_prompt_of_ten_thousand_messages_sends_at_most_keep_whole_plus_block_messages(ten_thousand):
    whole = ten_thousand.messages[1:]  # all but the system message
    assert KEEP_WHOLE <= len(whole) <= KEEP_WHOLE + BLOCK
    assert whole[-1] == ten_thousand.newest


def test_a_prompt_of_ten_thousand_messages_is_under_eight_thousand_tokens(ten_thousand):
    # A token is about four characters of English or JSON.
    prompt_tokens = len(json.dumps(ten_thousand.messages)) / 4
    with_tools = prompt_tokens + len(json.dumps(ten_thousand.tools)) / 4
    print(f"\n10,000 messages: prompt ~{prompt_tokens:.0f} tokens, with its tools ~{with_tools:.0f} tokens")
    assert with_tools < 8_000


# --- 3. the cheapest model writes summaries ----------------------------------------------------------------------


def test_summaries_are_written_by_the_cheapest_model(thread, model):
    add_messages(thread, 100)
    Script(model)
    memory.fold(thread)
    requests = summary_requests(model)
    assert requests and {r["model_id"] for r in requests} == {settings.CHEAPEST_MODEL}
    assert thread.agent.model != settings.CHEAPEST_MODEL  # so the check above tells them apart


def test_each_summary_is_recorded_as_memory_usage_of_the_cheapest_model(thread, model):
    add_messages(thread, 100)
    Script(model)
    memory.fold(thread)
    usage = Usage.objects.filter(conversation=thread)
    assert usage.count() == len(summary_requests(model))
    assert set(usage.values_list("purpose", "model", "agent")) == {("memory", settings.CHEAPEST_MODEL, thread.agent.id)}
    assert all(row.input_tokens > 0 and row.cost > 0 for row in usage)


def test_a_turn_writes_summaries_with_the_cheapest_model_and_its_steps_with_the_agents(org, thread, model):
    add_messages(thread, 31)
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text="Where are we on the quote?")
    Script(model, steps=[say("Sent on Monday.")])
    wake(conversation=thread)
    drain(org_id=org.id)
    assert set(Usage.objects.values_list("purpose", "model")) == {
        ("memory", settings.CHEAPEST_MODEL), ("turn", thread.agent.model),
    }


# --- 4. folding only at the start of a turn ---------------------------------------------------------------------


def test_within_a_turn_each_steps_prompt_starts_with_the_last_steps_prompt(org, thread, model):
    # 15 whole messages and a packet: the turn folds one block at its start and keeps 8 whole; each step adds
    # two (the call and its result), so from the fifth step on a fold would be due, and it waits for the next turn.
    add_messages(thread, 15)
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text="Date the first message")
    steps = [call("message_date", {"id": i}) for i in range(7)] + [say("Done.")]
    Script(model, steps=steps)
    wake(conversation=thread)
    drain(org_id=org.id)
    prompts = [r["messages"] for r in model.requests if not is_summary(r)]
    assert len(prompts) == 8
    whole_at_last_step = len(prompts[-1]) - 1
    assert whole_at_last_step >= KEEP_WHOLE + BLOCK  # past the point where a fold would be due
    for before, after in zip(prompts, prompts[1:], strict=False):
        assert after[: len(before)] == before


def test_a_turn_folds_only_before_its_first_step(org, thread, model):
    add_messages(thread, 15)
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text="Date the first message")
    Script(model, steps=[call("message_date", {"id": i}) for i in range(7)] + [say("Done.")])
    wake(conversation=thread)
    drain(org_id=org.id)
    kinds = ["summary" if is_summary(r) else "step" for r in model.requests]
    assert kinds == ["summary"] + ["step"] * 8


def test_the_next_turn_folds_at_its_start_what_the_last_turn_left_whole(org, thread, model):
    add_messages(thread, 15)
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text="Date the first message")
    Script(model, steps=[call("message_date", {"id": i}) for i in range(7)] + [say("Done.")])
    wake(conversation=thread)
    drain(org_id=org.id)
    assert folded(thread)[1:] == (8, 23)  # 23 whole: more than a fold leaves, kept so until the next turn
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text="Thanks")
    model.script.clear()
    Script(model, steps=[say("You're welcome.")])
    first = len(model.requests)
    wake(conversation=thread)
    drain(org_id=org.id)
    kinds = ["summary" if is_summary(r) else "step" for r in model.requests[first:]]
    assert kinds == ["summary"] * 3 + ["step"]  # blocks 8+8 and 16+8, and 0+8 with 8+8 into 0+16
    assert folded(thread)[1:] == (24, 9)


# --- 6. tool results at the edge of the whole window ------------------------------------------------------------


def assert_openai_accepts(messages: list[dict]) -> None:
    """The API's rule: an assistant message with tool_calls is followed at once by one tool message per call,
    and a tool message only ever follows its call."""
    i = 0
    while i < len(messages):
        message = messages[i]
        assert message["role"] != "tool", f"message {i} is a tool result without its call: {message}"
        i += 1
        if message["role"] == "assistant" and message.get("tool_calls"):
            asked = {c["id"] for c in message["tool_calls"]}
            answered = []
            while i < len(messages) and messages[i]["role"] == "tool":
                answered.append(messages[i]["tool_call_id"])
                i += 1
            assert sorted(answered) == sorted(asked), f"calls {sorted(asked)} answered by {answered}"


def working_rhythm(conversation: Conversation, *, lead: int, count: int) -> None:
    """`lead` packets, then: a packet, a reply calling two tools, their two results, a reply; over and over."""
    rows = [Message(conversation=conversation, seq=seq, role=Message.Role.HANDOFF, text="Some context")
            for seq in range(lead)]
    for seq in range(lead, count):
        kind = (seq - lead) % 5
        if kind == 0:
            rows.append(Message(conversation=conversation, seq=seq, role=Message.Role.HANDOFF, text="Date it"))
        elif kind == 1:
            tool_calls = [{"id": f"call_{seq}_{k}", "name": "message_date", "arguments": {"id": k},
                           "raw": json.dumps({"id": k})} for k in (0, 1)]
            rows.append(Message(conversation=conversation, seq=seq, role=Message.Role.AGENT, text="",
                                data={"tool_calls": tool_calls}))
        elif kind in (2, 3):
            call_seq, k = (seq - 1, 0) if kind == 2 else (seq - 2, 1)
            rows.append(Message(conversation=conversation, seq=seq, role=Message.Role.TOOL,
                                text=json.dumps({"id": k, "at": f"result of call {k}"}),
                                data={"call_id": f"call_{call_seq}_{k}", "name": "message_date"}))
        else:
            rows.append(Message(conversation=conversation, seq=seq, role=Message.Role.AGENT, text="Dated."))
    messages_bulk_create(rows)


@pytest.mark.parametrize("lead", range(5), ids=lambda k: f"edge-at-rhythm-{k}")
def test_wherever_the_whole_window_starts_the_prompt_is_one_the_openai_api_accepts(thread, model, lead):
    working_rhythm(thread, lead=lead, count=20 + lead)
    Script(model)
    memory.fold(thread)
    assert_openai_accepts(new_turn(thread).prompt())


def test_a_tool_result_whose_call_was_folded_shows_as_plain_text(thread, model):
    # lead 6: messages 6 packet, 7 the call of two tools, 8 and 9 their results; the window starts at 8.
    working_rhythm(thread, lead=6, count=23)
    Script(model)
    memory.fold(thread)
    assert folded(thread)[1] == 8
    prompt = new_turn(thread).prompt()
    assert not [m for m in prompt if m["role"] == "tool" and m["tool_call_id"] in ("call_7_0", "call_7_1")]
    assert prompt[1] == {"role": "user", "content": '[#8] result of message_date: {"id": 0, "at": "result of call 0"}'}
    assert prompt[2] == {"role": "user", "content": '[#9] result of message_date: {"id": 1, "at": "result of call 1"}'}


def test_a_message_arriving_between_a_call_and_its_results_leaves_a_prompt_the_api_accepts(thread, model):
    working_rhythm(thread, lead=0, count=2)  # a packet, then the reply calling two tools
    messages_bulk_create([
        Message(conversation=thread, seq=2, role=Message.Role.HANDOFF, text="[From Client desk's chat] Also: …"),
        Message(conversation=thread, seq=3, role=Message.Role.TOOL, text="{}",
                data={"call_id": "call_1_0", "name": "message_date"}),
        Message(conversation=thread, seq=4, role=Message.Role.TOOL, text="{}",
                data={"call_id": "call_1_1", "name": "message_date"}),
    ])
    assert_openai_accepts(new_turn(thread).prompt())


def test_a_tool_result_with_its_call_in_the_window_stays_a_tool_message(thread, model):
    working_rhythm(thread, lead=0, count=5)
    prompt = new_turn(thread).prompt()
    assert [m["role"] for m in prompt[1:]] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [m["tool_call_id"] for m in prompt[3:5]] == ["call_1_0", "call_1_1"]


def test_calls_made_in_one_step_are_answered_in_the_next_prompt(org, thread, model):
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text="Date messages 0 and 1")
    Script(model, steps=[calls([("message_date", {"id": 0}), ("message_date", {"id": 1})]), say("Done.")])
    wake(conversation=thread)
    drain(org_id=org.id)
    assert_openai_accepts(model.requests[-1]["messages"])
