"""Reading the conversation around an action: whose words give permission, and what they say.

Only the owner's words give permission: the owner's own messages, a routine's note (the owner's standing
instruction), the owner's words quoted in work handed over, and an agent's ask that the owner answered yes (the
yes adopts the ask's words, for the action it asked about). Everything an agent read (mail, files, pages, contact
fields, tool results) and the other agents' own words are evidence, never permission.

The helpers here are plain text analysis, shared by the rules: addresses, names that resolve to one contact,
verbs that ask for a send or a change, and amounts of money. Standing rules and conditions are checks/holds.py.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from checks.types import (
    AgentTurn,
    CheckRequest,
    ContactRecord,
    HandoffTurn,
    OwnerTurn,
    ReadTurn,
    RoutineTurn,
    Turn,
)

# agent_note: an agent's own words that restrict a send (holds.py); never the owner's.
Source = Literal["owner", "routine", "handoff", "answered_ask", "agent_note"]


@dataclass(frozen=True)
class Words:
    text: str
    source: Source
    # The owner's answer, for an answered ask.
    answer: str | None = None

    @property
    def owner_own(self) -> bool:
        """The owner's own words in this conversation: what Always ask requires (a routine's note is not)."""
        return self.source in ("owner", "answered_ask")


# ---------------------------------------------------------------------------------------------------- the turns

_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|ya|sure|ok|okay|alright|all right|go ahead|go for it|please do|please go ahead|do it|"
    r"do that|do so|sounds good|sounds great|looks good|looks great|lgtm|that works|works for me|ship it|send it|"
    r"that's fine|that is fine|fine by me|fine|perfect|great|approved|correct|absolutely|of course|definitely|"
    r"agreed|confirmed|right|👍|✅)(?![\w'])",
    re.I,
)
_NO = re.compile(r"^\W*(?:no|nope|not yet|not now|don't|do not|wait|hold|stop|cancel|never)\b", re.I)


# A yes with a condition on the owner's own act in it is no yes yet: "looks good but hold it until I've spoken to
# him", "fine, but wait till I'm back", "OK, once I've checked the figures".
_HELD_YES = re.compile(
    r"\b(?:hold|wait|hang\s+on|not\s+yet|not\s+now|don'?t\s+send|do\s+not\s+send|until|till|til)\b"
    r"|\b(?:once|after|when|as\s+soon\s+as)\s+I\b|\blet\s+me\s+(?!know\b)",
    re.I,
)


def is_yes(text: str) -> bool:
    return bool(_YES.match(text)) and not _NO.match(text) and not _HELD_YES.search(text)


def permission_words(request: CheckRequest) -> list[Words]:
    words: list[Words] = []
    turns = request.conversation
    for i, turn in enumerate(turns):
        if isinstance(turn, OwnerTurn):
            words.append(Words(turn.text, "owner"))
        elif isinstance(turn, RoutineTurn):
            words.append(Words(turn.text, "routine"))
        elif isinstance(turn, HandoffTurn):
            words.extend(Words(w.text, "handoff") for w in turn.owner_words)
        elif isinstance(turn, AgentTurn):
            answer = _answer_to(turns, i)
            if answer is not None and is_yes(answer):
                words.append(Words(turn.text, "answered_ask", answer=answer))
    return words


def _answer_to(turns: Sequence[Turn], i: int) -> str | None:
    """The owner's next words after the agent's turn `i`, before the agent speaks again (what it read may come
    between)."""
    for turn in turns[i + 1:]:
        if isinstance(turn, AgentTurn):
            return None
        if isinstance(turn, OwnerTurn):
            return turn.text
        if isinstance(turn, HandoffTurn) and turn.owner_words:
            # An answer given in a chat reaches the thread that asked as work handed over, quoting the owner.
            return turn.owner_words[0].text
    return None


def read_texts(request: CheckRequest) -> list[str]:
    """What was read, and the other agents' own words in work handed over: evidence, never permission."""
    texts: list[str] = []
    for turn in request.conversation:
        if isinstance(turn, ReadTurn):
            texts.append(turn.text)
        elif isinstance(turn, HandoffTurn):
            texts.extend(t for t in (turn.task, turn.notes) if t)
    return texts


# ---------------------------------------------------------------------------------------------------- text helpers

EMAIL = re.compile(r"[A-Za-z0-9._%+'\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
_STOPWORDS = frozenset(
    "the a an and or of to in on at for from with by is are was be it its this that these those my our your "
    "his her their me us we you i he she they them as so if not no yes but into out up about can could would "
    "should will shall may might do does did done have has had get got please just also all any each every "
    "new old one two".split()
)


def emails_in(text: str) -> set[str]:
    return {e.lower() for e in EMAIL.findall(text or "")}


def without_emails(text: str) -> str:
    return EMAIL.sub(" ", text or "")


def norm(text: str) -> str:
    """Lower case, one space between words, typographic quotes made plain: for finding one text in another."""
    text = (text or "").replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text).strip().lower()


def contains(haystack: str, needle: str) -> bool:
    """`needle` appears in `haystack` as whole words (ignoring case and spacing)."""
    n = norm(needle).strip(" .,;:!?\"'")
    if not n:
        return False
    return re.search(rf"(?<![\w@]){re.escape(n)}(?![\w@])", norm(haystack)) is not None


def tokens(text: str) -> set[str]:
    """Significant words and numbers: what two texts must share to be about the same thing."""
    out = set()
    for t in re.findall(r"[a-z0-9]+(?:[.'][a-z0-9]+)*", norm(without_emails(text))):
        t = t.removesuffix("'s")
        if t in _STOPWORDS or (len(t) < 3 and not t.isdigit()):
            continue
        out.add(t)
    return out


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?;])\s+|\n+", text or "") if s.strip()]


def clauses(text: str) -> list[str]:
    return [c for s in sentences(text) for c in re.split(r",\s*|\s+but\s+", s) if c.strip()]


# "Don't cc Greg", "send it to Dana, but not to Greg": what follows a negation in its clause is not permission.
_NEGATION = re.compile(
    r"\b(?:(?:don't|dont|do not)(?!\s+(?:forget|hesitate))|never(?!\s+mind)|no need to|shouldn't|should not|"
    r"must not|mustn't|not(?!\s+(?:only|just))|except|leave out|leave off|skip|without|instead of)\b",
    re.I,
)


def affirmed_parts(text: str) -> list[str]:
    """The text with, in each clause, whatever follows a negation cut off."""
    parts = []
    for clause in clauses(text):
        m = _NEGATION.search(clause)
        parts.append(clause[: m.start()] if m else clause)
    return parts


# ---------------------------------------------------------------------------------------------------- naming

# First names that are also everyday words count only when written with a capital and not opening a clause.
_WORD_NAMES = frozenset(
    "will may mark bill grace june april august rose hope joy faith pat art drew rob jack frank max sue dawn "
    "summer chase hunter page bob sky bay ivy iris olive ruby amber jade pearl rich victor carol holly penny "
    "sandy rusty dusty miles wade reed gene dean earl".split()
)


def fold(text: str) -> str:
    """Letters without their accents ("Zoë" is "Zoe"): a name is often typed without them."""
    return "".join(c for c in unicodedata.normalize("NFKD", text or "") if not unicodedata.combining(c))


def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w@.]){re.escape(name)}(?![\w@])", re.I)


# After a name that is also a word, what shows it is the name opening its sentence: "Mark needs his 1099s",
# "Will said", "Grace's question". The word's other senses are followed by an object: "Mark the invoice paid",
# "Will you send…", "Bill them", "Hope you're well".
_AS_SUBJECT = re.compile(
    r"^(?:'s\b|’s\b|\s+(?:is|was|has|had|will|would|can|could|should|did|does|and|from|at|of|just|still|already|"
    r"hasn't|isn't|wasn't|can't|won't|didn't|doesn't|says|said|wants|needs|asks|likes|prefers|thinks|thought|writes|"
    r"wrote|knows|knew|sends|sent|gets|got|agrees|confirms|owes|expects|hopes|plans|came|went|left|took|made|paid|"
    r"told|mentioned|[a-z]{3,}ed)\b)",
)


def _mentions(text: str, name: str) -> bool:
    text, name = fold(text), fold(name)
    for m in _name_pattern(name).finditer(text):
        written = m.group()
        if name.lower() in _WORD_NAMES:
            before = text[: m.start()].rstrip()
            opens_clause = not before or before[-1] in ".!?;:,\n(\"'"
            if not written[0].isupper():
                continue
            if opens_clause and not _AS_SUBJECT.match(text[m.end():]):
                continue
        return True
    return False


_TITLES = frozenset("mr mrs ms miss mx dr prof sir dame".split())


def first_name(full_name: str) -> str:
    """The first word of a name that is a name: not a title ("Dr."), not an initial."""
    for word in norm(fold(full_name)).split():
        bare = word.strip(".,")
        if bare not in _TITLES and len(bare) > 1:
            return bare
    return ""


def named_contacts(text: str, contacts: Iterable[ContactRecord], *, owner_name: str = "") -> list[ContactRecord]:
    """Contacts `text` names by a first or full name that matches exactly one contact. The owner's own first name
    is the owner's ("Sam sees every quote"), not a contact's who shares it: only their full name names them."""
    contacts = list(contacts)
    owner_first = first_name(owner_name)
    plain = " ".join(affirmed_parts(without_emails(text)))
    found: dict[str, ContactRecord] = {}
    by_full: dict[str, list[ContactRecord]] = {}
    by_first: dict[str, list[ContactRecord]] = {}
    for c in contacts:
        full = norm(fold(c.name))
        if not full:
            continue
        by_full.setdefault(full, []).append(c)
        if first_name(full):
            by_first.setdefault(first_name(full), []).append(c)
    for full, matches in by_full.items():
        if len(matches) == 1 and " " in full and _mentions(plain, full):
            found[matches[0].id] = matches[0]
    for first, matches in by_first.items():
        if len(matches) == 1 and first != owner_first and _mentions(plain, first):
            found[matches[0].id] = matches[0]
        elif len(matches) > 1:
            # "Nina P." where two contacts are called Nina: the initial of the last name tells them apart.
            pattern = rf"(?<![\w@.])(?i:{re.escape(first)})\s+([A-Z])\.(?![\w@])"  # "Nina P.", never "Nina a"
            for m in re.finditer(pattern, fold(plain)):
                initial = m.group(1).lower()
                same = [c for c in matches if norm(fold(c.name)).split()[-1][:1] == initial]
                if len(same) == 1:
                    found[same[0].id] = same[0]
    return list(found.values())


def mentions_a_contact(text: str, contacts: Iterable[ContactRecord]) -> bool:
    plain = without_emails(text)
    return any(_mentions(plain, first_name(c.name)) for c in contacts if first_name(c.name))


def named_addresses(text: str) -> set[str]:
    return {e for part in affirmed_parts(text) for e in emails_in(part)}


# ---------------------------------------------------------------------------------------------------- asking to send

# Verbs that ask for a message to go to someone. Words that are as often nouns ("email", "mail", "message",
# "text", "update", "quote") count only where a clause opens with them, or after "and", "please", "can you" …
_SEND_VERBS = (
    r"send|re-?send|forward|reply|replies|respond|answer|tell|inform|notify|remind|chase|nudge|thank|invite|cc|bcc|"
    r"copy\s+\w+\s+in|loop\s+\w+\s+in|let\s+(?:[\w'\-]+\s+){1,3}know|get\s+back\s+to|follow\s+up|reach\s+out|write\s+(?:to|back)|"
    r"drop\s+\w+\s+a\s+(?:line|note)|get\s+in\s+touch|keep\s+\w+(?:\s+\w+)?\s+(?:posted|updated|informed|in\s+the\s+loop)|"
    r"confirm|book|schedule|arrange|set\s+up|introduce|welcome|congratulate|apologi[sz]e|decline|accept|rsvp|"
    r"share|give|pass\s+(?:on|along)|offer|propose|ask|contact|ping|greet|wish|show|include|circulate|distribute|"
    r"get\s+(?:[\w'\-]+\s+){0,4}(?:over\s+|across\s+)?to|put\s+\w+\s+(?:in|on)\s+(?:cc|copy)|return\s+\w+'s\s+(?:call|email|mail)"
)
_NOUNISH_VERBS = r"e-?mail|mail|message|text|write|dm|update|quote|call"
_CLAUSE_OPEN = r"(?:^|[,;:(]\s*|\b(?:and|then|please|pls|also|just|kindly|can you|could you|would you|to|now|first)\s+)"
_SEND = re.compile(rf"\b(?:{_SEND_VERBS})\b|{_CLAUSE_OPEN}(?:{_NOUNISH_VERBS})\b", re.I)
# "email Victor", "text them": a noun-like verb followed by whom it goes to, unless a determiner makes it a noun
# ("Dana's email", "my unread mail", "the text Marco sent").
_NOUNISH_TO = re.compile(
    rf"(?<![\w'])(?P<det>\b(?:my|your|our|his|her|their|the|a|an|this|that|these|those|unread|new|latest|last|"
    rf"today's|[a-z]+'s)\s+)?\b(?:{_NOUNISH_VERBS})\s+(?:me|him|her|them|us|everyone|[A-Z][a-z]+|{EMAIL.pattern})",
)
_TO_OWNER = re.compile(r"^\s*(?:\w+\s+)?(?:me|myself|us)\b", re.I)


def _send_verb(clause: str) -> re.Match[str] | None:
    m = _SEND.search(clause)
    if m:
        return m
    return next((n for n in _NOUNISH_TO.finditer(clause) if not n.group("det")), None)


# Words that describe people instead of naming them: "everyone who came", "the guests", "both".
GROUP = re.compile(
    r"\b(?:everyone|everybody|all\s+of\s+(?:them|you)|each\s+of|whoever|anyone\s+who|anybody\s+who|guests|"
    r"attendees|participants|people|folks|the\s+rest|the\s+team|them\s+both|you\s+both|both\s+of\s+them)\b",
    re.I,
)


@dataclass(frozen=True)
class SendAsk:
    words: Words
    clause: str
    to_owner: bool  # "tell me", "email me the summary": the owner is who it goes to
    describes_people: bool  # "everyone who came", "the invoice's customer", "answer the same day"


def send_asks(words: Iterable[Words], contacts: Iterable[ContactRecord], owner_name: str) -> list[SendAsk]:
    contacts = list(contacts)
    owner_first = (owner_name.split() or [""])[0].lower()
    out = []
    for w in words:
        for clause in affirmed_parts(w.text):
            m = _send_verb(clause)
            if not m:
                continue
            after = clause[m.end():] if m.re is _SEND else clause[m.start():].split(None, 1)[-1]
            to_owner = bool(_TO_OWNER.match(after)) or bool(
                owner_first and re.match(rf"^\s*(?:\w+\s+)?{re.escape(owner_first)}\b", after, re.I)
            )
            # A name counts as naming someone here even when two contacts share it: such a send isn't described,
            # it is addressed, and whether the name resolves is the naming rule's business.
            names = bool(emails_in(clause)) or mentions_a_contact(clause, contacts)
            out.append(SendAsk(w, clause, to_owner, bool(GROUP.search(clause)) or not names))
    return out


def asks_to_send(text: str) -> bool:
    return any(_send_verb(c) for c in affirmed_parts(text))


# ---------------------------------------------------------------------------------------------------- amounts

THRESHOLD = re.compile(
    r"\b(?:over|above|more\s+than|exceeding|greater\s+than|anything\s+over)\s+(?:USD\s*|US\$|\$|£|€)\s*(\d[\d,]*(?:\.\d+)?)\s*(k\b)?",
    re.I,
)
_AMOUNT = re.compile(
    r"(?:USD\s*|US\$|\$|£|€)\s*(\d[\d,]*(?:\.\d+)?)\s*(k\b)?|(\d[\d,]*(?:\.\d+)?)\s*(?:USD|dollars)\b", re.I
)


def money(number: str, thousands: str | None) -> Decimal | None:
    try:
        value = Decimal(number.replace(",", ""))
    except InvalidOperation:
        return None
    return value * 1000 if thousands else value


def amounts(text: str) -> list[Decimal]:
    out = []
    for m in _AMOUNT.finditer(text or ""):
        value = money(m.group(1), m.group(2)) if m.group(1) else money(m.group(3), None)
        if value is not None:
            out.append(value)
    return out


# ---------------------------------------------------------------------------------------------------- a yes's send

# Words of an ask that say how it asks, not what it is about: "Shall I email Dana the …?", "OK to send …?".
_ASK_FILLER = frozenset(
    "shall should want like okay send sent sending email emailing mail reply respond answer tell let know "
    "remind forward message note quick short go ahead now today them him her".split()
)


def _same_word(a: str, b: str) -> bool:
    """One word, or the same word with an ending: "thank" and "thanks", "arrive" and "arrives", "host" and "hosting"."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 4 and long_.startswith(short) and len(long_) - len(short) <= 3


def ask_covers_send(ask: str, sent: str, *, names: Iterable[str] = ()) -> bool:
    """An ask the owner answered yes covers this send only when the send is the one it showed: every amount the
    send carries is one the ask gave, an amount the ask gave is in it, and at least a third of what the ask was
    about is there. A yes to "a thank-you to Olu" is not a yes to a quote to Olu."""
    ask_amounts, sent_amounts = set(amounts(ask)), set(amounts(sent))
    if sent_amounts - ask_amounts or (ask_amounts and not ask_amounts & sent_amounts):
        return False
    skip = {t for n in names for t in tokens(n)} | _ASK_FILLER
    about = {t for t in tokens(ask) if t not in skip and not t.replace(",", "").replace(".", "").isdigit()}
    if not about:
        return True
    sent_words = tokens(sent)
    found = sum(any(_same_word(t, s) for s in sent_words) for t in about)
    return found * 3 >= len(about)

