"""A model's reply that can't be a turn's answer: empty, or one that only says what it will do.

Real models sometimes end a step with nothing, or with "I'll look that up now." and no tool call. Taken as the
answer, either loses the turn: the owner (or the chat waiting on a thread) gets an empty answer or a promise that
nothing keeps. Instead the turn adds a note to the agent saying what was wrong and takes another step, once a
turn for a promise made before the turn did anything (a reply that is both a promise and the answer then stands;
one after the turn ran a call is taken as said) and up to twice for an empty reply
(after which the model counts as failing, and the turn stops with Try again, losing nothing).
"""

from __future__ import annotations

import re

EMPTY_NOTE = "Your last reply was empty. Give your answer now, or do the work first."
PROMISE_NOTE = (
    "Your last reply said what you would do, and nothing was done. Do it now; if it's done already, or needs the "
    "owner first, give your answer."
)
MAX_EMPTY = 2
MAX_PROMISES = 1
# A reply that opens by saying what it is about to do, and is short enough to be nothing else.
PROMISE = re.compile(
    r"^\W*(?:ok(?:ay)?[,.!]?\s+|sure[,.!]?\s+|got it[,.!]?\s+|on it[,.!]?\s+)?"
    r"(?:i['’]ll|i will|i['’]m going to|i am going to|let me(?! know)|i['’]m (?:now )?(?:checking|looking|searching|"
    r"drafting|writing|reading|pulling|going)|now i['’]ll|next,? i['’]ll)\b",
    re.IGNORECASE,
)
PROMISE_LENGTH = 160
SENTENCE_END = re.compile(r"[.!](?:\s|$)")


def reply_note(text: str, *, empty_before: int, promises_before: int, acted: bool = False) -> str | None:
    """The note to the agent when `text` (a reply with no tool call) can't stand as the turn's answer, else None.
    A promise counts only before the turn ran any call: after one ("I'll answer new clients the same day" once the
    routine is set, "I'm looking into it" once a thread has the work) it is the answer."""
    if not text.strip():
        return EMPTY_NOTE if empty_before < MAX_EMPTY else None
    if not acted and promises_before < MAX_PROMISES and is_promise(text):
        return PROMISE_NOTE
    return None


def is_promise(text: str) -> bool:
    """A short reply that only says what it will do: "Let me check your mail." One sentence, not a question to the
    owner, and holding no result ("I'll answer: $8,400." is an answer; so is anything with a number or a colon)."""
    text = text.strip()
    if len(text) > PROMISE_LENGTH or any(mark in text for mark in "?:") or any(c.isdigit() for c in text):
        return False
    return len(SENTENCE_END.findall(text)) <= 1 and bool(PROMISE.match(text))
