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

from django.conf import settings
from django.db import transaction

from agents.models import Conversation, MemoryLine, Message

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
    text = message.text
    if message.role == Message.Role.AGENT and message.data.get("tool_calls"):
        calls = "; ".join(f"{c['name']}({json.dumps(c['arguments'])[:300]})" for c in message.data["tool_calls"])
        text = f"{text}\n[called {calls}]".strip()
    return f"#{message.seq} {message.role}: {text[:2000]}"


def summarize(conversation: Conversation, texts: list[str]) -> str:
    from agents.runtime.model import get_model
    from agents.services import usage_record

    model = get_model()
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
    lines = list(MemoryLine.objects.filter(conversation=conversation, n__gte=BLOCK).order_by("start", "-n"))
    shown, covered_to = [], 0
    for line in lines:
        if line.start >= covered_to:
            shown.append(line)
            covered_to = line.start + line.n
    return shown


def folded_upto(lines: list[MemoryLine]) -> int:
    return lines[-1].start + lines[-1].n if lines else 0


def fold(conversation: Conversation) -> int:
    """Fold the oldest whole messages into lines while more than KEEP_WHOLE + BLOCK are whole. Returns folds made."""
    lines = top_lines(conversation)
    upto = folded_upto(lines)
    total = Message.objects.filter(conversation=conversation).count()
    made = 0
    while total - upto >= KEEP_WHOLE + BLOCK:
        block = list(Message.objects.filter(conversation=conversation, seq__gte=upto, seq__lt=upto + BLOCK))
        summary = summarize(conversation, [message_text_for_summary(m) for m in block])
        with transaction.atomic():
            line, _ = MemoryLine.objects.get_or_create(
                conversation=conversation, start=upto, n=BLOCK, defaults={"summary": summary}
            )
            lines.append(line)
            # Like a binary counter: while the last two lines are the same size and aligned, fold them into one.
            while len(lines) >= 2 and lines[-1].n == lines[-2].n and lines[-2].start % (2 * lines[-2].n) == 0:
                left, right = lines[-2], lines[-1]
                merged_summary = summarize(conversation, [left.summary, right.summary])
                merged, _ = MemoryLine.objects.get_or_create(
                    conversation=conversation, start=left.start, n=left.n * 2, defaults={"summary": merged_summary}
                )
                lines[-2:] = [merged]
        upto += BLOCK
        made += 1
    return made


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


def head(text: str, seq: int) -> str:
    if len(text) <= MESSAGE_HEAD:
        return text
    return text[:MESSAGE_HEAD] + f"\n[… {len(text) - MESSAGE_HEAD} more characters: zoom_memory id {seq} n 1 at {MESSAGE_HEAD}]"


def zoom(conversation: Conversation, *, start: int, n: int = 1, at: int = 0) -> dict:
    """Open line start+n into its two halves, or with n = 1 read message `start` whole, a page from `at`."""
    from tools.errors import ToolError

    if n == 1:
        message = Message.objects.filter(conversation=conversation, seq=start).first()
        if message is None:
            raise ToolError("not_found", f"There is no message {start} in this memory.")
        text = message_text_for_summary(message) if message.role == Message.Role.AGENT else message.text
        page = text[at : at + PAGE]
        result = {"id": start, "n": 1, "role": message.role, "text": page}
        if at + PAGE < len(text):
            result["nextAt"] = at + PAGE
        return result
    if n < 2 or n & (n - 1) or start % n:
        raise ToolError("bad_input", "n: a line's n is a power of 2 and its id a multiple of n; 1 reads a message")
    total = Message.objects.filter(conversation=conversation).count()
    if start + n > folded_upto(top_lines(conversation)) or start + n > total:
        raise ToolError("not_found", f"There is no {line_label(start, n)} in this memory yet.")
    half = n // 2
    halves = []
    for part_start in (start, start + half):
        if half == 1:
            message = Message.objects.get(conversation=conversation, seq=part_start)
            halves.append({"id": part_start, "n": 1, "text": head(message_text_for_summary(message), part_start)})
            continue
        line = MemoryLine.objects.filter(conversation=conversation, start=part_start, n=half).first()
        if line is None:
            messages = Message.objects.filter(conversation=conversation, seq__gte=part_start, seq__lt=part_start + half)
            line = MemoryLine.objects.create(
                conversation=conversation, start=part_start, n=half,
                summary=summarize(conversation, [message_text_for_summary(m) for m in messages]),
            )
        halves.append({"id": line.start, "n": line.n, "summary": line.summary})
    return {"line": {"id": start, "n": n}, "halves": halves}
