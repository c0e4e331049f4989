"""Memory: a conversation's messages, folded into lines as it grows, so a prompt stays O(log N) lines long.

Line (start, n) sums up messages start .. start+n-1, n a power of two and start a multiple of n. Messages fold
a block of BLOCK at a time into a line of n = BLOCK; two adjacent lines of the same size fold into one of twice
the size, like a binary counter. So a conversation of N messages shows at most log2(N / BLOCK) + 1 lines, plus
its newest messages whole (between KEEP_WHOLE and KEEP_WHOLE + BLOCK of them).

Folding happens only at the start of a turn, never between its steps, so within a turn each step's prompt is
the last one's plus what was added: providers' prompt caching applies to all but the newest part.

Lines smaller than BLOCK are made only when `zoom_memory` opens a line of BLOCK, on demand, and kept.
The summaries are written by the cheapest model.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from django.conf import settings
from django.db import IntegrityError, transaction

from agents.models import Conversation, MemoryLine, Message
from agents.runtime.model import get_model
from agents.services import usage_record
from core import rows
from core.errors import ToolError
from core.network import network_call

BLOCK = 8
KEEP_WHOLE = 8
# A message longer than this shows its head in a prompt; zoom_memory reads the rest a page at a time.
MESSAGE_HEAD = 4_000
PAGE = 4_000

SUMMARY_INSTRUCTIONS = (
    "You sum up part of an AI agent's working conversation for its own memory. Write at most 80 words of plain "
    "sentences: who asked for what, what was done and found, decisions and answers, and every name, email "
    "address, id, amount and date that later work may need. No preamble."
)


def message_text_for_summary(message: Message) -> str:
    """A message as a summary request shows it: its id and role, its text and tool calls, cut to a sensible size."""
    text = message.text
    if message.role == Message.Role.AGENT and message.data.get("tool_calls"):
        calls = "; ".join(f"{c['name']}({json.dumps(c['arguments'])[:300]})" for c in message.data["tool_calls"])
        text = f"{text}\n[called {calls}]".strip()
    return f"#{message.seq} {message.role}: {text[:2000]}"


def message_text_whole(message: Message) -> str:
    """A message whole, as zoom_memory reads it: its text, and an agent message's tool calls as it made them."""
    text = message.text
    if message.role == Message.Role.AGENT and message.data.get("tool_calls"):
        calls = "; ".join(
            f"{c['name']}({c.get('raw') or json.dumps(c['arguments'])})" for c in message.data["tool_calls"]
        )
        text = f"{text}\n[called {calls}]".strip()
    return text


def summarize(conversation: Conversation, texts: list[str]) -> str:
    network_call("a memory summary's model call")
    model = get_model(conversation.organization_id)
    response = model.complete(
        model_id=settings.CHEAPEST_MODEL,
        messages=[
            {"role": "system", "content": SUMMARY_INSTRUCTIONS},
            {"role": "user", "content": "\n\n".join(texts)},
        ],
        tools=[],
    )
    usage_record(
        org=conversation.organization, agent=conversation.agent, conversation=conversation, purpose="memory",
        model_id=settings.CHEAPEST_MODEL, usage=response.usage,
    )
    return response.text.strip()


def top_lines(conversation: Conversation) -> list[MemoryLine]:
    """The lines a prompt shows: each folded message under exactly one, oldest first."""
    # (by a kept statement: every turn starts with it)
    lines = rows.select(MemoryLine, [("conversation_id", "=", conversation.pk), ("n", ">=", BLOCK)],
                        order_by=["start", "-n"])
    shown, covered_to = [], 0
    for line in lines:
        if line.start >= covered_to:
            shown.append(line)
            covered_to = line.start + line.n
    return shown


def folded_upto(lines: list[MemoryLine]) -> int:
    return lines[-1].start + lines[-1].n if lines else 0


def line_made(conversation: Conversation, start: int, n: int, texts) -> MemoryLine:
    """Line start+n, summed up from `texts` (a callable giving them) unless it was made already.

    The summary is written before the line is saved and outside any transaction of this function's: a model
    call can take a minute of retries, and an open transaction would hold SQLite's write lock all that time.
    """
    line = MemoryLine.objects.filter(conversation=conversation, start=start, n=n).first()
    if line is not None:
        return line
    summary = summarize(conversation, texts())
    try:
        with transaction.atomic():
            return MemoryLine.objects.create(conversation=conversation, start=start, n=n, summary=summary)
    except IntegrityError:  # made meanwhile (a chat's read_thread and the thread's own zoom_memory, at once)
        return MemoryLine.objects.get(conversation=conversation, start=start, n=n)


def fold(conversation: Conversation) -> int:
    """Fold the oldest whole messages into lines while KEEP_WHOLE + BLOCK or more are whole. Returns blocks folded.

    Like a binary counter: a block of BLOCK messages becomes a line, and while the last two lines are the same
    size they fold into one of twice the size. Each line is saved on its own, so a fold cut short (the model
    down, the worker gone) leaves only correct lines, and the next fold first folds the two it left unfolded.
    """
    return _fold(conversation)[0]


def fold_and_show(conversation: Conversation, *, limit: Callable[[], int] | None = None) -> list[MemoryLine]:
    """fold, then the lines the prompt shows (top_lines): a turn's start, without reading the lines again.

    How many messages there are is the conversation's counter as the turn read it (`next_seq`: seqs start at 0
    and have no gaps, and no message is deleted but with its conversation), not a COUNT. A message appended since
    is folded, when its block is due, at the next turn's start.

    `limit` gives the first seq no block may reach (sql_storage.fold_limit: the first message no reply answered or
    routed), asked only when a block is due."""
    return _fold(conversation, total=conversation.next_seq, limit=limit)[1]


def _fold(conversation: Conversation, *, total: int | None = None,
          limit: Callable[[], int] | None = None) -> tuple[int, list[MemoryLine]]:
    lines = top_lines(conversation)
    if total is None:
        total = Message.objects.filter(conversation=conversation).count()
    made = 0
    while True:
        # The lines are top_lines' throughout: a pair folded is replaced by its line, a block's line appended.
        if len(lines) >= 2 and lines[-1].n == lines[-2].n and lines[-2].start % (2 * lines[-2].n) == 0:
            left, right = lines[-2], lines[-1]
            lines[-2:] = [line_made(conversation, left.start, 2 * left.n, lambda: [left.summary, right.summary])]  # noqa: B023  (called at once)
            continue
        upto = folded_upto(lines)
        if total - upto < KEEP_WHOLE + BLOCK:
            return made, lines
        if limit is not None:
            total = min(total, limit() + KEEP_WHOLE)  # (read once: the blocks below it fold in this loop)
            limit = None
            if total - upto < KEEP_WHOLE + BLOCK:
                return made, lines

        def block_texts(upto=upto):
            block = Message.objects.filter(conversation=conversation, seq__gte=upto, seq__lt=upto + BLOCK)
            return [message_text_for_summary(m) for m in block]

        lines.append(line_made(conversation, upto, BLOCK, block_texts))
        made += 1


def line_label(start: int, n: int) -> str:
    return f"line {start}+{n}"


def memory_preamble(lines: list[MemoryLine]) -> str | None:
    if not lines:
        return None
    rows = [f"[{line_label(line.start, line.n)}] {line.summary}" for line in lines]
    return (
        "Your memory of this conversation before its newest messages, folded into lines (zoom_memory opens one):\n"
        + "\n".join(rows)
    )


def zoom_pointer(seq: int) -> str:
    return f"zoom_memory id {seq} n 1 at {MESSAGE_HEAD}"


def head(text: str, seq: int, read_on: Callable[[int], str] | None = zoom_pointer) -> str:
    """A long message's head, and how many characters more there are and how to read them (`read_on`)."""
    if len(text) <= MESSAGE_HEAD:
        return text
    more = f"{len(text) - MESSAGE_HEAD} more characters"
    return text[:MESSAGE_HEAD] + (f"\n[… {more}: {read_on(seq)}]" if read_on else f"\n[… {more}]")


def zoom(conversation: Conversation, *, start: int, n: int = 1, at: int = 0,
         read_on: Callable[[int], str] = zoom_pointer) -> dict:
    """Open line start+n into its two halves, or with n = 1 read message `start` whole, a page from `at`.

    Halves below BLOCK are summed up on demand, by the cheapest model, and kept. `read_on` says how the reader
    reads on in a long message (zoom_memory in the agent's own memory, read_thread in a thread's).
    """
    if n == 1:
        message = Message.objects.filter(conversation=conversation, seq=start).first()
        if message is None:
            raise ToolError("not_found", f"There is no message {start} in this memory.")
        text = message_text_whole(message)
        if at and at >= len(text):
            pages = -(-len(text) // PAGE)
            raise ToolError("bad_input", f"Message {start} has {len(text)} characters ({pages} pages of {PAGE}); "
                                         "it ends before that.")
        result = {"id": start, "n": 1, "role": message.role, "text": text[at : at + PAGE]}
        if at + PAGE < len(text):
            result["nextAt"] = at + PAGE
        return result
    if n < 2 or n & (n - 1) or start % n:
        raise ToolError("bad_input", "n: a line's n is a power of 2 and its id a multiple of n; 1 reads a message")
    if start + n > folded_upto(top_lines(conversation)):
        raise ToolError("not_found", f"There is no {line_label(start, n)} in this memory yet.")
    half = n // 2
    halves = []
    for part_start in (start, start + half):
        if half == 1:
            message = Message.objects.get(conversation=conversation, seq=part_start)
            halves.append({"id": part_start, "n": 1, "role": message.role,
                           "text": head(message_text_whole(message), part_start, read_on)})
            continue

        def texts(part_start=part_start):
            messages = Message.objects.filter(conversation=conversation, seq__gte=part_start, seq__lt=part_start + half)
            return [message_text_for_summary(m) for m in messages]

        line = line_made(conversation, part_start, half, texts)
        halves.append({"id": line.start, "n": line.n, "summary": line.summary})
    return {"line": {"id": start, "n": n}, "halves": halves}


def memory_text(conversation: Conversation, *, read_on=None) -> str:
    """A conversation's memory as text from the top: its lines, then its newest messages.

    With `read_on` (how the reader reads on, given a message's id) a long message shows its head and how much
    more there is; without it (a fork carries a chat's memory into a thread) every message is carried whole:
    the thread reads its copy a page at a time with zoom_memory.
    """
    lines = top_lines(conversation)
    rows = [f"[{line_label(line.start, line.n)}] {line.summary}" for line in lines]
    upto = folded_upto(lines)
    for message in Message.objects.filter(conversation=conversation, seq__gte=upto):
        text = message_text_whole(message)
        if read_on is not None:
            text = head(text, message.seq, read_on)
        rows.append(f"#{message.seq} {message.role}: {text}")
    return "\n".join(rows)
