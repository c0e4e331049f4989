"""The memory tools: zoom_memory and message_date in an agent's own memory, read_thread in a thread's from its chat.

The scripted model writes summaries naming the messages they cover ("covers #0-#15"), as in test_memory.
"""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from freezegun import freeze_time

from agents import services
from agents.agent_tools import READ_THREAD_BYTES
from agents.models import MemoryLine, Message
from agents.runtime import memory
from agents.runtime.agent_tools import run_agent_tool
from tests.agents.test_memory import Script, add_messages, covers, is_summary, new_turn


@pytest.fixture
def desk(staff):
    return staff["Client desk"]


@pytest.fixture
def thread(desk, model):
    """Juniper Dental, a thread of 40 messages: #0-#31 folded into line 0+32, #32-#39 whole."""
    thread = services.thread_start(agent=desk, title="Juniper Dental")
    add_messages(thread, 40)
    Script(model)
    memory.fold(thread)
    assert [(line.start, line.n) for line in memory.top_lines(thread)] == [(0, 32)]
    return thread


def use(conversation, name: str, **arguments) -> dict:
    """Call an agent tool as the model would, in a turn of `conversation`."""
    return run_agent_tool(new_turn(conversation), name, arguments)


def append(conversation, text: str, role: str = Message.Role.HANDOFF, **data) -> Message:
    return services.message_append(conversation=conversation, role=role, text=text, data=data)


def model_calls(model) -> int:
    return len(model.requests)


LONG = "".join(f"{i:05d} Juniper Dental's brief, line by line. " for i in range(300))[:10_000]


# --- zoom_memory: lines ------------------------------------------------------------------------------------------


def test_zoom_opens_a_line_into_the_two_lines_it_was_made_from(thread, model):
    before = model_calls(model)
    assert use(thread, "zoom_memory", id=0, n=32) == {
        "line": {"id": 0, "n": 32},
        "halves": [{"id": 0, "n": 16, "summary": covers(0, 16)}, {"id": 16, "n": 16, "summary": covers(16, 16)}],
    }
    assert model_calls(model) == before  # both halves were made when the line was


def test_zoom_below_block_sums_up_the_halves_on_demand_with_the_cheapest_model(thread, model):
    before = model_calls(model)
    result = use(thread, "zoom_memory", id=8, n=8)
    assert result["halves"] == [{"id": 8, "n": 4, "summary": covers(8, 4)},
                                {"id": 12, "n": 4, "summary": covers(12, 4)}]
    made = model.requests[before:]
    assert len(made) == 2 and all(is_summary(r) and r["model_id"] == settings.CHEAPEST_MODEL for r in made)


def test_halves_made_on_demand_are_kept_so_a_second_zoom_makes_no_model_call(thread, model):
    first = use(thread, "zoom_memory", id=8, n=8)
    before = model_calls(model)
    assert use(thread, "zoom_memory", id=8, n=8) == first
    assert model_calls(model) == before
    assert MemoryLine.objects.filter(conversation=thread, n=4).count() == 2


def test_zoom_of_a_line_of_two_shows_its_two_messages(thread, model):
    Message.objects.filter(conversation=thread, seq=9).update(text="Dana wants it before Friday")
    before = model_calls(model)
    assert use(thread, "zoom_memory", id=8, n=2)["halves"] == [
        {"id": 8, "n": 1, "role": "handoff", "text": "Dana asked for the rebrand quote"},
        {"id": 9, "n": 1, "role": "agent", "text": "Dana wants it before Friday"},
    ]
    assert model_calls(model) == before


def test_zoom_of_a_line_not_folded_yet_is_not_found(thread):
    # Messages #32-#39 are whole; line 32+8 is not made until they fold, nor is any line past the folded ones.
    for line in ({"id": 32, "n": 8}, {"id": 0, "n": 64}, {"id": 32, "n": 2}):
        assert use(thread, "zoom_memory", **line)["error"] == "not_found", line


@pytest.mark.parametrize("n", [3, 6, 12, 24])
def test_zoom_with_an_n_not_a_power_of_two_is_bad_input(thread, n):
    assert use(thread, "zoom_memory", id=0, n=n)["error"] == "bad_input"


def test_zoom_with_n_zero_is_bad_input(thread):
    assert use(thread, "zoom_memory", id=0, n=0)["error"] == "bad_input"


@pytest.mark.parametrize(("id", "n"), [(4, 8), (8, 16), (1, 2), (16, 32)])
def test_zoom_of_a_line_whose_id_is_not_a_multiple_of_its_n_is_bad_input(thread, id, n):
    assert use(thread, "zoom_memory", id=id, n=n)["error"] == "bad_input"


# --- zoom_memory: messages ---------------------------------------------------------------------------------------


def test_zoom_with_n_one_reads_a_message_whole(thread):
    text = "x" * 3_000  # longer than a summary request shows of a message
    message = append(thread, text, role=Message.Role.AGENT,
                     tool_calls=[{"id": "c1", "name": "message_date", "arguments": {"id": 3}, "raw": '{"id": 3}'}])
    assert use(thread, "zoom_memory", id=message.seq, n=1) == {
        "id": message.seq, "n": 1, "role": "agent", "text": text + '\n[called message_date({"id": 3})]',
    }


def test_zoom_reads_a_long_message_a_page_at_a_time_from_at(thread):
    message = append(thread, LONG)
    pages, at = [], 0
    while at is not None:
        page = use(thread, "zoom_memory", id=message.seq, n=1, at=at)
        pages.append(page["text"])
        at = page.get("nextAt")
    assert [len(p) for p in pages] == [4_000, 4_000, 2_000] and "".join(pages) == LONG


def test_zoom_at_past_the_end_of_a_message_is_bad_input(thread):
    message = append(thread, "short")
    assert use(thread, "zoom_memory", id=message.seq, n=1, at=10)["error"] == "bad_input"


def test_a_long_message_in_the_prompt_says_where_zoom_reads_on_and_it_reads_on_from_there(thread):
    message = append(thread, LONG)
    shown = new_turn(thread).prompt()[-1]["content"]
    assert shown.endswith(f"[… 6000 more characters: zoom_memory id {message.seq} n 1 at 4000]")
    head = shown.removeprefix(f"[#{message.seq}] ").split("\n[…")[0]
    rest = use(thread, "zoom_memory", id=message.seq, n=1, at=4_000)["text"]
    assert LONG.startswith(head + rest)


def test_zoom_of_a_message_that_does_not_exist_is_not_found(thread):
    assert use(thread, "zoom_memory", id=999, n=1)["error"] == "not_found"


def test_zoom_reads_only_its_own_conversations_memory(thread, desk):
    chat = services.chat_for(agent=desk)
    append(chat, "Only the chat has this")
    assert use(thread, "zoom_memory", id=0, n=1)["text"] == "Dana asked for the rebrand quote"
    assert use(chat, "zoom_memory", id=0, n=1)["text"] == "Only the chat has this"


# --- message_date ------------------------------------------------------------------------------------------------


def test_message_date_gives_when_the_message_was_sent(desk):
    thread = services.thread_start(agent=desk, title="Juniper Dental")
    with freeze_time("2026-03-02 09:15:27"):
        append(thread, "Quote the rebrand")
    with freeze_time(datetime.datetime(2026, 3, 3, 16, 40, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))):
        append(thread, "Sent it", role=Message.Role.AGENT)
    assert use(thread, "message_date", id=0) == {"id": 0, "at": "2026-03-02T09:15:27Z"}
    assert use(thread, "message_date", id=1) == {"id": 1, "at": "2026-03-03T14:40:00Z"}


def test_message_date_of_a_message_that_does_not_exist_is_not_found(thread):
    assert use(thread, "message_date", id=40)["error"] == "not_found"


# --- read_thread -------------------------------------------------------------------------------------------------


@pytest.fixture
def chat(desk):
    return services.chat_for(agent=desk)


def test_read_thread_gives_its_memory_from_the_top(thread, chat):
    result = use(chat, "read_thread", thread="juniper dental")
    rows = result["memory"].split("\n")
    assert result["thread"] == "Juniper Dental"
    assert rows == [f"[line 0+32] {covers(0, 32)}"] + [
        f"#{seq} {'handoff' if seq % 2 == 0 else 'agent'}: Dana asked for the rebrand quote" for seq in range(32, 40)
    ]


def test_read_thread_cuts_its_memory_at_32000_bytes_and_says_how_many_more(desk, chat):
    thread = services.thread_start(agent=desk, title="Big brief")
    # 12 whole messages of 3,000 three-byte characters: 108,000 bytes and more, cut inside a character.
    for _ in range(12):
        append(thread, "€" * 3_000)
    whole = "\n".join(f"#{seq} handoff: " + "€" * 3_000 for seq in range(12)).encode()
    assert whole[READ_THREAD_BYTES] & 0xC0 == 0x80  # the 32,000th byte falls inside a character

    shown, note = use(chat, "read_thread", thread="Big brief")["memory"].split("\n[… ")
    assert len(shown.encode()) <= READ_THREAD_BYTES and whole.startswith(shown.encode())
    assert note == f"{len(whole) - len(shown.encode())} more bytes: read a line or message by id]"


def test_read_thread_under_32000_bytes_is_given_whole_without_a_note(thread, chat):
    assert "more bytes" not in use(chat, "read_thread", thread="Juniper Dental")["memory"]


def test_read_thread_shows_a_long_messages_head_and_how_to_read_on_by_page(thread, chat):
    message = append(thread, LONG)
    memory_rows = use(chat, "read_thread", thread="Juniper Dental")["memory"].split("\n")
    assert memory_rows[-2] == f"#{message.seq} handoff: {LONG[:4_000]}"
    assert memory_rows[-1] == f"[… 6000 more characters: read_thread thread 'Juniper Dental' id {message.seq} page 1]"


def test_read_thread_with_id_and_n_opens_that_line(thread, chat):
    result = use(chat, "read_thread", thread="Juniper Dental", id=0, n=32)
    assert result == {"thread": "Juniper Dental", "line": {"id": 0, "n": 32}, "halves": [
        {"id": 0, "n": 16, "summary": covers(0, 16)}, {"id": 16, "n": 16, "summary": covers(16, 16)},
    ]}


def test_read_thread_with_an_id_alone_reads_that_message(thread, chat):
    Message.objects.filter(conversation=thread, seq=5).update(text="Sent the quote for $4,200")
    assert use(chat, "read_thread", thread="Juniper Dental", id=5) == {
        "thread": "Juniper Dental", "id": 5, "n": 1, "role": "agent", "text": "Sent the quote for $4,200",
    }


def test_read_thread_reads_a_long_message_a_page_at_a_time(thread, chat):
    message = append(thread, LONG)
    pages, page = [], 0
    while page is not None:
        result = use(chat, "read_thread", thread="Juniper Dental", id=message.seq, page=page)
        pages.append(result["text"])
        assert "nextAt" not in result
        page = result.get("nextPage")
    assert len(pages) == 3 and "".join(pages) == LONG


def test_read_thread_of_an_unknown_thread_is_not_found_and_lists_the_open_threads(desk, chat):
    services.thread_start(agent=desk, title="Juniper Dental")
    services.thread_start(agent=desk, title="Fernhill site")
    services.thread_close(thread=services.thread_start(agent=desk, title="Old job"))
    result = use(chat, "read_thread", thread="Juniper")
    assert result["error"] == "not_found"
    assert "Juniper Dental" in result["message"] and "Fernhill site" in result["message"]
    assert "Old job" not in result["message"]


def test_read_thread_reads_a_closed_thread(thread, chat):
    services.thread_close(thread=thread)
    assert use(chat, "read_thread", thread="Juniper Dental")["memory"].startswith("[line 0+32]")


def test_read_thread_reads_only_this_agents_threads(thread, chat, staff):
    other_chat = services.chat_for(agent=staff["Bookkeeper"])
    assert use(other_chat, "read_thread", thread="Juniper Dental")["error"] == "not_found"


# --- a fork carries the chat's memory ----------------------------------------------------------------------------


def test_a_fork_carries_the_chats_lines_and_newest_messages_whole(org, desk, chat, model):
    add_messages(chat, 20)
    Script(model)
    memory.fold(chat)  # #0-#7 into line 0+8, #8-#19 whole
    append(chat, "y" * 5_000, role=Message.Role.AGENT)
    use(chat, "start_thread", title="Fork", kind="fork", task="Go on from here")
    fork = services.thread_by_title(agent=desk, title="Fork")
    carried = Message.objects.get(conversation=fork, seq=0).text
    assert f"[line 0+8] {covers(0, 8)}\n#8 handoff: Dana asked for the rebrand quote" in carried
    assert carried.endswith("#20 agent: " + "y" * 5_000)
