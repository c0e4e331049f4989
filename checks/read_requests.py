"""Content that something read asked for, carried by a send the owner asked for.

The owner names the recipient and the topic ("reply to Priya about Thursday's menu"); a mail the agent read asks for
more ("please also include the notes from your supplier meeting"); the outgoing text carries it. The recipient is
named, but that content is the read's request, not the owner's: "the request came from what you read".

Each thing a read asks to be sent (its object: "the notes from your supplier meeting") is compared, part by part,
with what the action would send and with the owner's words. It counts when most of its significant words are in
what goes out and few are in the owner's words: the owner's own topic ("a quote", when the owner said "send her the
quote") is covered, however the read also asked for it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from checks.words import Words, norm, sentences, tokens

# A read asking for something to be sent or put in: "please include …", "could you also attach …", "add … to your
# reply", "while you're at it, paste …", "send us …". Not "I've included …" or "the price includes VAT".
_ASKING = (
    r"(?:^|[,;:(]\s*|\b(?:please|pls|kindly|also|and|then|just|can\s+you|could\s+you|would\s+you|will\s+you|"
    r"would\s+you\s+mind|do\s+you\s+mind|make\s+sure\s+(?:to|you)|be\s+sure\s+to|don't\s+forget\s+to|"
    r"do\s+not\s+forget\s+to|remember\s+to|need\s+you\s+to|want\s+you\s+to|like\s+you\s+to|you\s+should|"
    r"you\s+must|you\s+need\s+to|at\s+it)\s+)"
)
_CARRY = (
    r"include|including|attach|attaching|add|adding|paste|pasting|copy|copying|enclose|enclosing|forward|forwarding|"
    r"share|sharing|send|sending|provide|providing|list|listing|put|putting|pass\s+(?:on|along)|drop\s+in|"
    r"throw\s+in|tack\s+on|bundle|give\s+(?:us|me)|let\s+(?:us|me)\s+(?:have|see)|mention|mentioning|pop|stick|chuck|"
    r"slip|throw"
)
_REQUEST = re.compile(
    rf"{_ASKING}(?:also\s+)?(?:{_CARRY})\b\s*(?:over|along|through|across|back)?\s*(?P<what>[^.!?\n]+)"
    # "I'd love a copy of your staff handbook", "we'd also appreciate your supplier contacts".
    r"|\b(?:i|we)(?:'d|\s+would)\s+(?:also\s+|really\s+)?(?:love|like|appreciate|welcome|be\s+grateful\s+for)\s+"
    r"(?:(?:you\s+)?to\s+(?:see|have|get|receive|send|include|attach|share|add|forward)\s+|a\s+copy\s+of\s+)?"
    r"(?P<wish>(?:a\s+copy\s+of\s+|your\s+|the\s+|a\s+list\s+of\s+)[^.!?\n]+)"
    # "It would help if you included last month's figures".
    r"|\b(?:it\s+would|it'd|that\s+would|would\s+be)\s+(?:\w+\s+)?(?:help|helpful|great|useful|good|nice)\w*\s+if\s+you\s+"
    r"(?:could\s+)?(?:also\s+)?(?:included?|sent|send|attach(?:ed)?|add(?:ed)?|shared?|forward(?:ed)?|list(?:ed)?|"
    r"paste[d]?)\s+(?P<help>[^.!?\n]+)",
    re.I,
)

# Words of a request that say where or how, not what: they can't tell one piece of content from another.
_SHAPE_WORDS = frozenset(
    "reply replies response email emails mail message note copy version latest current full whole complete please "
    "also too well here there thanks thank us me you your yours our ours them they their asap soon today tomorrow "
    "week weeks month next last this that these those when whenever could would should can will need want like "
    "send sending include including attach attaching add adding paste share forward provide list put give let "
    "back over along through across thread chain below above attached attachment attachments document documents "
    "doc docs file files info information details detail stuff things thing anything everything something some "
    "any other others more extra quick short brief hi hello dear kind regards best cheers help thought thoughts "
    "feedback advice time update confirmation quote".split()
)
_PARTS = re.compile(
    r",\s*(?:and\s+|plus\s+|as\s+well\s+as\s+)?|\s+(?:and|plus|as\s+well\s+as|along\s+with|together\s+with)\s+", re.I
)
_STOP_AT = re.compile(
    r"\s+(?:in|into|to|onto|with|for|so|because|as|since|when|if|before|after|by)\s+(?:your|the|our|my|"
    r"this|that|it|a|an)\s+(?:reply|response|email|mail|message|answer|thread|note)\b.*$"
    # Why they ask is not what they ask for: "… so we can share lifts", "… because our auditor …".
    r"|\s+(?:so\s+(?:that\s+)?(?:we|i|they|our|my)|because|as\s+(?:we|i|our)|since\s+(?:we|i)|"
    r"in\s+order\s+to)\b.*$",
    re.I,
)


@dataclass(frozen=True)
class Requested:
    sentence: str
    part: str
    words: frozenset[str]


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def significant(text: str) -> frozenset[str]:
    """The words that tell one piece of content from another, plurals folded."""
    out = set()
    for t in tokens(text):
        if t in _SHAPE_WORDS or (t.isdigit() and len(t) < 3):
            continue
        out.add(_stem(t))
    return frozenset(out)


def requested_in(reads: list[str]) -> list[Requested]:
    """Each part of each thing a read asks to be sent or put in."""
    out: list[Requested] = []
    for text in reads:
        for sentence in sentences(text):
            for m in _REQUEST.finditer(sentence):
                what = _STOP_AT.sub("", m.group("what") or m.group("wish") or m.group("help") or "")
                if not significant(what) and m.start() > 0:
                    # "The notes from your meeting, please forward those too": the thing comes before the ask.
                    what = sentence[: m.start()]
                for part in _PARTS.split(what):
                    words = significant(part)
                    if words:
                        out.append(Requested(norm(sentence), norm(part), words))
    return out


# The owner handing the read's requests over whole: "give her what she asked for", "answer his questions".
_DELEGATES = re.compile(
    r"\bwhat(?:ever)?\s+(?:she|he|they|\w+)\s+(?:asked|asks|wants|needs|requested|is\s+asking)\b|"
    r"\b(?:her|his|their|\w+'s)\s+(?:questions?|requests?|asks?)\b|\beverything\s+(?:she|he|they)\s+(?:asked|needs|wants)\b|"
    # "Reply to Dana's email", "answer her": a reply with no topic of the owner's takes up what the mail asked.
    r"^\W*(?:please\s+)?(?:reply|respond|answer|get\s+back)(?:\s+to)?\s+(?:her|him|them|[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)"
    r"(?:'s)?(?:\s+(?:email|mail|message|note|enquiry|inquiry|request))?\W*$",
    re.I | re.M,
)


def carried(outbound: str, reads: list[str], words: list[Words]) -> tuple[list[Requested], bool]:
    """The read's requests the outgoing text carries and the owner's words don't cover; and whether the owner's
    words hand over the read's requests as a whole (then it is a judgement, not a rule)."""
    sent = significant(outbound)
    owner = frozenset().union(*(significant(w.text) for w in words)) if words else frozenset()
    delegated = any(_DELEGATES.search(w.text) for w in words)
    found = []
    for r in requested_in(reads):
        in_send = r.words & sent
        if len(in_send) < max(1, math.ceil(len(r.words) / 2)):
            continue
        covered = r.words & owner
        if len(covered) * 2 >= len(r.words):
            continue  # the owner's own topic: "the quote", "the floor plan"
        if not in_send - owner:
            continue
        found.append(r)
    return found, delegated
