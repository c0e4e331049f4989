"""What holds a send back: a standing rule ("Sam sees every quote before it goes out", "never send prices without
me") or a condition on a request ("send it to her once I've seen it", "when I say so"). A condition is not a
permission, and a standing rule restricts: either holds the sends it covers until the owner's own words show the
send itself, which is what an answered ask is.

Where the spec leaves room, decided here (FORMAT.md, "Named"):

- A condition that waits on the owner (their seeing, checking, approving, saying the word) can only be met by the
  owner's own words, so the request names no one for that send until an agent's ask showing it is answered yes.
- A condition the agent meets by doing the work ("send it once it's ready", "once you've checked the rate card")
  is met by the action itself: the agent sends what it has made ready. The request gives permission as written.
  Holding it back would ask the owner about work they already delegated.
- A condition on someone else ("once Dana confirms the date", "when the deposit lands") may or may not be shown
  met by what was read: only a judge can weigh that, so without one the send is asked about.
- A yes covers the send it answered: a hold is lifted for a recipient by an answered ask that names them and
  carries every amount the send does and something of what it says; or by the owner's own unconditional words
  naming them that carry every amount the send does (the owner has then seen the figures that go).
- A threshold ("over $5,000, ask Sam first") holds only sends for more than it.

Only the owner's words, routines' notes and the owner's words quoted in hand-offs give permission; restrictions are
also read from the other agents' words (an agent's own reply, a hand-off's task and notes) where they name the
owner ("Sam wants to see it first"): honouring a restriction can only hold something back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from checks.types import AgentTurn, CheckRequest, ContactRecord, HandoffTurn
from checks.words import (
    THRESHOLD,
    Words,
    amounts,
    asks_to_send,
    emails_in,
    first_name,
    money,
    named_addresses,
    named_contacts,
    norm,
    sentences,
    tokens,
)

Scope = Literal["all", "money", "noun"]
Strength = Literal["definite", "open"]

# ---------------------------------------------------------------------------------------------------- patterns

_REVIEW = (
    r"see|sees|seen|review|reviews|reviewed|approve|approves|approved|check|checks|checked|read|reads|vet|vets|"
    r"vetted|okay|okays|okayed|ok|oks|ok'd|sign\s+off(?:\s+on)?|signs\s+off(?:\s+on)?|signed\s+off(?:\s+on)?|"
    r"look\s+(?:at|over|through)|looks\s+(?:at|over|through)|looked\s+(?:at|over|through)|go\s+over|goes\s+over|"
    r"gone\s+over|proof|proofread|proofreads|eyeball|eyeballs|clear|clears|cleared|have\s+a\s+look(?:\s+at)?|"
    r"take\s+a\s+look(?:\s+at)?|had\s+a\s+look(?:\s+at)?|have\s+a\s+read|had\s+a\s+read|glance\s+(?:at|over)"
)
# Approving, as opposed to seeing: "Sam approves quotes" holds even without "before".
_APPROVE = r"approve|approves|okay|okays|ok|oks|sign\s+off(?:\s+on)?|signs\s+off(?:\s+on)?|vet|vets|clear|clears"
_AUX = (
    r"(?:(?:will|'ll|must|need\s+to|needs\s+to|want\s+to|wants\s+to|have\s+to|has\s+to|get\s+to|gets\s+to|"
    r"like\s+to|likes\s+to|would\s+like\s+to|'d\s+like\s+to|always|personally|should|to|do|does)\s+)*"
)
_CONSENT = (
    r"ok|okay|o\.k\.|approval|sign-?\s?off|go-?\s?ahead|say-?\s?so|green\s+light|yes|blessing|nod|thumbs\s+up|"
    r"permission|consent|review|eyes|word|confirmation"
)
# Words for the owner's act a condition waits on: "once I've seen it", "when I give the word".
_OWNER_ACT = (
    rf"(?:{_REVIEW})|(?:look|looks|looked|go|goes|gone|went|check|checks|checked|read|reads)\s+(?:it|them|this|that)\s+"
    r"(?:over|through)|said\s+so|say\s+so|says\s+so|say\s+the\s+word|said\s+the\s+word|give\s+the\s+word|"
    r"given\s+the\s+word|gives\s+the\s+word|give\s+(?:you\s+)?(?:the\s+|my\s+)?(?:ok|okay|go-?\s?ahead|green\s+light|nod|"
    r"thumbs\s+up)|given\s+(?:you\s+)?(?:the\s+|my\s+)?(?:ok|okay|go-?\s?ahead|green\s+light|nod|thumbs\s+up)|"
    r"tell\s+you(?!\s+otherwise)|told\s+you(?!\s+otherwise)|had\s+a\s+chance|have\s+a\s+chance|get\s+a\s+chance|"
    r"got\s+a\s+chance|confirm|confirmed|agree|agreed|decide|decided|am\s+happy|'m\s+happy|is\s+happy|'s\s+happy|"
    r"am\s+back|'m\s+back|back|get\s+back|got\s+back|come\s+back|signed|sign|go\s+through|gone\s+through|"
    r"look\s+through|looked\s+through|run\s+through|run\s+my\s+eye\s+over|(?:given|give|gave)\s+(?:it|them)\s+"
    r"(?:the|a)\s+once-?\s?over"
)
_CONJ = r"once|after|when|whenever|until|till|til|as\s+soon\s+as|if|only\s+after|only\s+once|only\s+when|only\s+if|" \
        r"not\s+before|not\s+until|before"

# Things a send can be, for what a standing rule covers. Money: a send carrying an amount is one of these.
_MONEY_NOUNS = (
    "quote", "quotes", "quotation", "quotations", "estimate", "estimates", "price", "prices", "pricing", "proposal",
    "proposals", "bid", "bids", "fee", "fees", "rate", "rates", "cost", "costs", "costing", "costings", "offer",
    "offers", "discount", "discounts", "figures", "numbers", "budget", "budgets",
)
_GENERIC_NOUNS = (
    "anything", "everything", "nothing", "email", "emails", "e-mail", "e-mails", "mail", "mails", "message",
    "messages", "reply", "replies", "response", "responses", "letter", "letters", "note", "notes", "answer",
    "answers", "send", "sends", "draft", "drafts", "it", "them", "this", "that", "one", "those", "these", "stuff",
    "communication", "communications", "correspondence", "text", "texts", "word",
)
_OTHER_NOUNS = (
    "invoice", "invoices", "bill", "bills", "contract", "contracts", "agreement", "agreements", "terms",
    "newsletter", "newsletters", "announcement", "announcements", "confirmation", "confirmations", "booking",
    "bookings", "refund", "refunds", "statement", "statements", "report", "reports", "plan", "plans", "design",
    "designs", "menu", "menus", "schedule", "schedules", "timeline", "timelines", "order", "orders", "apology",
    "apologies", "complaint", "complaints", "deal", "deals", "change", "changes", "promise", "promises",
    "commitment", "commitments", "date", "dates",
)
_NOUN = re.compile(r"\b(" + "|".join(sorted({*_MONEY_NOUNS, *_GENERIC_NOUNS, *_OTHER_NOUNS}, key=len, reverse=True))
                   + r")\b", re.I)
_SENDABLE = "|".join(sorted({*_MONEY_NOUNS, *_GENERIC_NOUNS, *_OTHER_NOUNS} - {"it", "them", "this", "that", "one",
                                                                             "those", "these", "word"},
                            key=len, reverse=True))


_REVIEW_NOW = (
    r"see|sees|review|reviews|approve|approves|check|checks|vet|vets|okay|okays|ok|oks|"
    r"sign\s+off(?:\s+on)?|signs\s+off(?:\s+on)?|look\s+(?:at|over|through)|looks\s+(?:at|over|through)|go\s+over|"
    r"goes\s+over|proof|proofread|proofreads|eyeball|eyeballs|clear|clears|have\s+a\s+look(?:\s+at)?|"
    r"take\s+a\s+look(?:\s+at)?|have\s+a\s+read|glance\s+(?:at|over)"
)
_NEGATED = r"(?:\bnever\b|\bdon't\b|\bdont\b|\bdo\s+not\b|\bnothing\b|\bno\b|\bnot\b|\bnobody\b|\bno\s+one\b|" \
           r"\bcan't\b|\bcannot\b|\bshouldn't\b|\bmustn't\b|\bwon't\b|\bisn't\b|\baren't\b)"


def _patterns(owner_first: str) -> list[re.Pattern[str]]:
    """The shapes of a hold, with the owner written as "I"/"me"/"my" or by first name."""
    o = rf"(?:{re.escape(owner_first)})" if owner_first else r"(?!x)x"
    now = rf"(?:\bI\b|\bI'(?:d|ll)\b|\b{o}\b)"  # "I see", "I'd like to see", "Sam sees": not "I've seen"
    subj = rf"(?:\bI\b|\bI'(?:m|ve|d|ll)\b|\b{o}\b)"
    obj = rf"(?:\bme\b|\bmyself\b|\b{o}\b)"
    poss = rf"(?:\bmy\b|\b{o}'s\b)"
    before = r"\b(?:before|first|beforehand|prior\s+to|ahead\s+of|in\s+advance)\b"
    quant = r"\b(?:every|each|all|any)\b"
    # "before it goes out", "first", "before you send": the review comes ahead of the send.
    going = (r"\b(?:first|beforehand|in\s+advance|before\s+(?:it|they|them|this|that|anything|any|sending|send|"
             r"going|it's|they're|you|we|replying|reply|mailing|emailing|posting|quoting)|before\s+(?:[A-Z][\w'-]+|"
             r"the\s+client|the\s+customer|she|he|they)\s+(?:does|do|sees|see|gets|get|has|have|receives|reads))\b")
    p = [
        # "I see every quote", "Sam sees every quote before it goes out", "I want to check it first".
        rf"{now}\s+{_AUX}(?:{_REVIEW_NOW})\b[^.;!?]{{0,40}}?{quant}\s+(?:[\w'-]+\s+){{0,3}}?(?:{_SENDABLE})\b",
        rf"{now}\s+{_AUX}(?:{_REVIEW_NOW}|read|reads)\b[^.;!?]*?{going}",
        # "I want eyes on every quote", "I'd like sight of any price first".
        rf"{now}\s+(?:want|wants|need|needs|'d\s+like|would\s+like|like)\s+(?:to\s+have\s+)?(?:eyes\s+on|sight\s+of|"
        rf"a\s+look\s+at|to\s+look\s+at|to\s+see)\b[^.;!?]*?(?:{quant}|{going})",
        # "Sam approves quotes", "I sign off on all proposals".
        rf"{now}\s+{_AUX}(?:{_APPROVE})\s+(?:\w+\s+)?(?:{_SENDABLE})\b",
        # "Quotes go through me", "every invoice must be approved by Sam".
        rf"\b(?:go|goes|must\s+go|has\s+to\s+go|have\s+to\s+go|needs?\s+to\s+go|should\s+go|run|runs)\s+(?:through|past|by|via)\s+{obj}",
        # "Estimates come to me before they go to anyone", "every proposal is mine to approve".
        rf"\b(?:come|comes|must\s+come|has\s+to\s+come|have\s+to\s+come|needs?\s+to\s+come|should\s+come|pass|passes)"
        rf"\s+(?:to|past|through|by|via)\s+{obj}\s+(?:\w+\s+){{0,2}}?{before}",
        rf"\b(?:is|are)\s+(?:mine|{o}'s)\s+to\s+(?:{_REVIEW})\b",
        rf"\b(?:be|is|are|get|gets|been)\s+(?:{_REVIEW})\s+by\s+{obj}",
        rf"\b(?:need|needs|require|requires|get|gets|wait\s+for|waits\s+for)\s+{poss}\s+(?:{_CONSENT})\b",
        # "Never send prices without me", "nothing goes out without my OK", "not without asking me".
        rf"{_NEGATED}[^.;!?]*\bwithout\s+(?:{obj}|{poss}\s+(?:{_CONSENT})|(?:first\s+)?(?:asking|checking\s+with|running\s+(?:it|them|\w+)\s+(?:by|past)|"
        rf"showing|clearing\s+(?:it|them|\w+)\s+with|telling)\s+(?:it\s+to\s+)?{obj}|{obj}\s+(?:seeing|checking|approving|"
        rf"knowing|saying))",
        # "Ask me first", "run it by Sam before", "show it to me before it goes".
        rf"\b(?:ask|check\s+with|run\s+(?:[\w'-]+\s+){{1,3}}?(?:by|past)|clear\s+(?:[\w'-]+\s+){{1,3}}?with|"
        rf"show|send|bring)\s+(?:(?:it|them|this|that|the\s+\w+|\w+)\s+)?(?:to\s+)?{obj}\s+(?:\w+\s+){{0,2}}?{before}",
        # Conditions: "once I've seen it", "when I say so", "after Sam checks", "not until I've OK'd it".
        rf"\b(?:{_CONJ})\s+{subj}\s*(?:(?:have|has|had|'ve|'s|do|does|am|is|can|could|get\s+to|got\s+to)\s+)?"
        rf"(?:(?:had\s+a\s+chance\s+to|had\s+time\s+to|personally|properly|actually|also)\s+)?(?:{_OWNER_ACT})\b",
        rf"\b(?:{_CONJ})\s+{poss}\s+(?:{_CONSENT})\b",
        # "Let me see it first", "let me have a look".
        rf"\blet\s+me\s+(?:(?:just|quickly|first)\s+)?(?:{_REVIEW})\b",
        # "Wait for my OK", "hold it until I say so", "hold off till Sam's seen it".
        rf"\b(?:wait|hold(?:\s+(?:it|them|off|on|back|fire|everything|that|this))?|keep\s+(?:it|them)\s+(?:back|in\s+drafts))\s+"
        rf"(?:[^.;!?]{{0,40}}?\s+)?"
        rf"(?:for|until|till|til)\s+(?:{poss}|{subj}|{obj})",
        rf"\b(?:pending|subject\s+to|upon|with)\s+{poss}\s+(?:{_CONSENT})\b",
        # "Draft it for me to review", "so I can check it".
        rf"\b(?:draft|prepare|write\s+up|put\s+together)\b[^.;!?]*\b(?:for\s+{obj}\s+to|so\s+(?:that\s+)?{subj}\s+(?:can|could|may))\s+"
        rf"(?:{_REVIEW_NOW})\b",
        # "Sam has the final say on prices".
        rf"{subj}\s+(?:have|has|get|gets)\s+the\s+(?:final|last)\s+(?:say|word)\b",
        # "I'll give you the nod", "I'll say when to send it", "I'll confirm first".
        r"\bI(?:'ll|\s+will)\s+(?:give\s+you\s+(?:the\s+|a\s+|my\s+)?(?:nod|word|go-?\s?ahead|green\s+light|ok|okay|"
        r"thumbs\s+up|signal)|(?:say|tell\s+you|let\s+you\s+know)\s+when|confirm\s+(?:first|before))",
        # "Nothing goes out until I've seen it": covered by the condition shape; "it can't go until ...".
    ]
    return [re.compile(x, re.I) for x in p]


# "Draft a reply to Dana": a draft is not a send. Drafting and sending in the same words is.
_DRAFT = re.compile(
    # "the draft proposal", "a draft": a thing already made, not a request to make one.
    r"(?<!\bthe\s)(?<!\ba\s)(?<!\bmy\s)(?<!\bour\s)(?<!\byour\s)(?<!\bthis\s)(?<!\bthat\s)(?<!\bfirst\s)"
    r"\b(?:draft|prepare|prep|write\s+up|type\s+up|put\s+together|put\s+(?:[\w'\-]+\s+){1,3}together|mock\s+up|"
    r"compose|knock\s+up|knock\s+together|rough\s+out|"
    # "get an email ready for Ruth", "have a reply ready", "write an email to Pilar": the thing made, not sent
    r"(?:get|have|make)\s+(?:[\w'\-]+\s+){1,5}?ready|"
    r"write\s+(?:(?:me|us)\s+)?something|"
    r"write\s+(?:(?:me|us)\s+)?(?:a|an|the|some|up)\s+(?:short\s+|quick\s+|brief\s+|polite\s+|friendly\s+|first\s+)?"
    r"(?:email|e-mail|note|message|reply|response|letter|draft|thank-?\s?you|follow-?up))\b", re.I)
_AND_SEND = re.compile(r"\b(?:send|sends|sent|email\s+it|mail\s+it|forward|post\s+it|deliver)\b", re.I)
_DRAFT_NOUN = re.compile(r"\b(?:reply|replies|response|responses|email|emails|e-mail|answer|note|notes|message|"
                         r"messages|letter|letters|quote|estimate|proposal|invoice|follow-?up|something|one|it|"
                         r"thank-?\s?you|thanks|reminder|apology|update|introduction|intro|confirmation|card|"
                         r"announcement|newsletter|offer)\b", re.I)

# Conditions on someone else: "once Dana confirms", "when they've paid", "after the deposit lands".
_THIRD_PARTY = re.compile(
    r"\b(?i:once|after|when|as\s+soon\s+as|if|only\s+after|only\s+once|only\s+when|only\s+if|not\s+before|"
    r"not\s+until|until|till)\s+(?:(?i:she|he|they|the\s+client|the\s+customer|the\s+buyer|the\s+tenant)\b|"
    r"(?P<name>[A-Z][a-z]+)\b|(?i:the|their|her|his)\s+(?i:deposit|payment|money|transfer|cheque|contract|"
    r"signature|purchase\s+order)\b)",
)
_THIRD_PARTY_NOT = re.compile(r"^(?:I|It|It's|You|You've|Your|We|We've|The|This|That|Monday|Tuesday|Wednesday|"
                              r"Thursday|Friday|Saturday|Sunday|Everything|Anything)$")

# Words of a request that say nothing of what is sent.
_NOT_CONTENT = frozenset("send tell email mail reply let know him her them him they she he there".split())

# "Let me know", "say otherwise": the owner's words that only look like a hold.
_NOT_A_HOLD = re.compile(r"\blet\s+me\s+know\b|\b(?:say|said|tell\s+you|told\s+you)\s+otherwise\b", re.I)


@dataclass(frozen=True)
class Hold:
    """One restriction: the words it is in, the sentences it covers, and which sends it holds."""

    words: Words
    sentence: str
    scope: Scope  # "all" sends; sends carrying "money"; sends that mention one of `nouns`
    nouns: tuple[str, ...]
    recipients: frozenset[str] | None  # the addresses it is about; None for every send
    threshold: Decimal | None = None
    strength: Strength = "definite"  # "open": whether the hold still stands is for a judge (someone else's act)
    covered: tuple[str, ...] = ()  # the sentences whose requests it makes conditional (they name no one)


def _restricting_words(request: CheckRequest, words: list[Words], owner_first: str) -> list[Words]:
    """Words a restriction may come from: the permission words (not an answered ask: a yes lifts, never holds),
    and the other agents' words where they name the owner."""
    out = [w for w in words if w.source != "answered_ask"]
    pattern = re.compile(rf"\b{re.escape(owner_first)}\b", re.I) if owner_first else None
    for turn in request.conversation:
        texts: list[str] = []
        if isinstance(turn, AgentTurn):
            texts = [turn.text]
        elif isinstance(turn, HandoffTurn):
            texts = [t for t in (turn.task, turn.notes) if t]
        for text in texts:
            kept = [s for s in sentences(text) if pattern is not None and pattern.search(s)]
            if kept:
                out.append(Words(" ".join(kept), "agent_note"))
    return out


def find_holds(request: CheckRequest, words: list[Words], contacts: list[ContactRecord]) -> list[Hold]:
    owner = request.business.owner
    owner_first = first_name(owner).capitalize() if first_name(owner) else ""
    patterns = _patterns(owner_first)
    holds: list[Hold] = []
    for w in _restricting_words(request, words, owner_first):
        agent_words = w.source == "agent_note"
        parts = sentences(w.text)
        for i, sentence in enumerate(parts):
            plain = _NOT_A_HOLD.sub(" ", sentence)
            if agent_words:
                # Another agent's words speak of the owner in the third person and of the reader as "you".
                plain = re.sub(r"\b(?:I|I'm|I've|me|my)\b", " ", plain)
            hit = any(p.search(plain) for p in patterns)
            # A request to draft is not one to send, whoever passes it on (the owner's words quoted in a hand-off,
            # a routine's note).
            draft = (not agent_words and _DRAFT.search(plain) and _DRAFT_NOUN.search(plain)
                     and not _AND_SEND.search(plain))
            # A routine's own conditions ("when a client pays, thank them") are its trigger, met by the run itself.
            third = None if hit or w.source != "owner" else _third_party(plain, contacts, owner_first)
            if not (hit or draft or third):
                continue
            covered = _covered_sentences(parts, i, contacts, owner, hold_like=bool(hit or draft))
            threshold = None
            t = THRESHOLD.search(sentence)
            if t:
                threshold = money(t.group(1), t.group(2))
            scope, nouns = _scope_of(" ".join(covered))
            recipients = _recipients_in(covered, w.text, contacts, owner)
            if third and not hit:
                if scope == "all":
                    # A condition on someone else holds the send it is about ("if Leo asks about parking, tell him
                    # …"), told by its words, not every send to that person.
                    clause = re.sub(_THIRD_PARTY.pattern + r"[^,;]*", " ", " ".join(covered))
                    names = {t for c in contacts for t in tokens(c.name)}
                    scope, nouns = "noun", tuple(sorted(tokens(clause) - names - _NOT_CONTENT))
            elif recipients is not None and (asks_to_send(" ".join(covered)) or (draft and not hit)):
                # A request with its condition ("send Rachel her confirmation once I've confirmed the slot") holds
                # the sends to the people it names, whatever words the send is then written in.
                scope, nouns = "all", ()
            holds.append(Hold(
                words=w, sentence=sentence, scope=scope, nouns=nouns, recipients=recipients,
                threshold=threshold, strength="open" if third and not hit else "definite",
                covered=tuple(covered),
            ))
    return holds + held_earlier(request, [w for w in words if w.source != "answered_ask"], contacts)


def _third_party(sentence: str, contacts: list[ContactRecord], owner_first: str) -> bool:
    # The send must be the owner's request, not the other person's act inside the condition ("if she replies").
    if not asks_to_send(re.sub(_THIRD_PARTY.pattern + r"[^,;]*", " ", sentence)):
        return False
    for m in _THIRD_PARTY.finditer(sentence):
        name = m.group("name")
        if name is None:
            return True
        if _THIRD_PARTY_NOT.match(name) or name.lower() == owner_first.lower():
            continue
        if any(first_name(c.name) == name.lower() for c in contacts):
            return True
    return False


def _covered_sentences(parts: list[str], i: int, contacts: list[ContactRecord] | None = None, owner: str = "",
                       hold_like: bool = False) -> list[str]:
    """The sentence a hold is in, and, when it only points back ("But let me see it first.", "Only send it after
    I've checked it."), the request before it: a condition on the owner's act holds the whole request."""
    sentence = parts[i]
    if hold_like and i > 0 and _points_back(sentence, contacts or [], owner):
        earlier = [p for p in parts[:i] if asks_to_send(p) or _DRAFT.search(p)]
        if earlier:
            return [*earlier, sentence]
    if asks_to_send(sentence) or i == 0:
        return [sentence]
    things = {m.group(1).lower() for m in _NOUN.finditer(sentence)} - set(_GENERIC_NOUNS)
    if things:
        return [sentence]
    for j in range(i - 1, -1, -1):
        if asks_to_send(parts[j]):
            return [parts[j], sentence]
    return [sentence]


_BACK = re.compile(r"\b(?:it|them|this|that|these|those|the\s+(?:email|e-mail|message|note|reply|letter|draft|"
                   r"mail|one|wording|words|text)|what\s+you(?:'ve|\s+have)?\s+(?:write|wrote|written|say|said))\b",
                   re.I)


def _points_back(sentence: str, contacts: list[ContactRecord], owner: str) -> bool:
    """The sentence speaks of a send said before it ("send it", "that email") and names no one of its own."""
    if named_contacts(sentence, contacts, owner_name=owner) or emails_in(sentence):
        return False
    things = {m.group(1).lower() for m in _NOUN.finditer(sentence)} - set(_GENERIC_NOUNS)
    return bool(_BACK.search(sentence)) and not things


def held_earlier(request: CheckRequest, words: list[Words], contacts: list[ContactRecord]) -> list[Hold]:
    """A condition in a later message of the owner's ("I want to see it before it goes", "hang on, let me read it
    first") that points back and names no one holds the request of their latest earlier message that asked for a
    send or a draft, as a condition in the same message would."""
    owner = request.business.owner
    owner_first = first_name(owner).capitalize() if first_name(owner) else ""
    patterns = _patterns(owner_first)
    own = [w for w in words if w.source == "owner"]
    out: list[Hold] = []
    for k, w in enumerate(own):
        for sentence in sentences(w.text):
            plain = _NOT_A_HOLD.sub(" ", sentence)
            if not any(p.search(plain) for p in patterns) or not _points_back(sentence, contacts, owner):
                continue
            if any(asks_to_send(s) or _DRAFT.search(s) for s in sentences(w.text)[:sentences(w.text).index(sentence)]):
                continue  # the same message's request: find_holds covers it
            for before in reversed(own[:k]):
                asked = [s for s in sentences(before.text) if asks_to_send(s) or _DRAFT.search(s)]
                if asked:
                    recipients = _recipients_in(asked, before.text, contacts, owner)
                    out.append(Hold(words=before, sentence=sentence, scope="all", nouns=(), recipients=recipients,
                                    covered=tuple(asked)))
                    break
    return out


def _scope_of(text: str) -> tuple[Scope, tuple[str, ...]]:
    """Which sends a hold covers, from the things its words name: sends with money for "every quote" or "prices",
    sends mentioning "invoice" for "every invoice", every send for "anything", "emails" or "it"."""
    found = [m.group(1).lower() for m in _NOUN.finditer(text)]
    money = [n for n in found if n in _MONEY_NOUNS and not re.search(rf"\b{n}\s+card\b", text, re.I)]
    other = [n for n in found if n in _OTHER_NOUNS]
    if money:
        return "money", tuple(dict.fromkeys(money + other))
    if other:
        return "noun", tuple(dict.fromkeys(other))
    return "all", ()


def _recipients_in(covered: list[str], whole: str, contacts: list[ContactRecord], owner: str) -> frozenset[str] | None:
    """The people a hold is about: those its sentences name, or, for "send it to her once I've seen it", those its
    words name elsewhere; None (every send) when they name no one."""
    for text in (" ".join(covered), whole):
        found = set(emails_in(text))
        for c in named_contacts(text, contacts, owner_name=owner):
            found |= {e.lower() for e in c.emails}
        for c in contacts:
            if c.company and len(c.company) > 3 and re.search(rf"\b{re.escape(c.company)}\b", text, re.I):
                found |= {e.lower() for e in c.emails}
        if found:
            return frozenset(found)
    return None


def without_held(words: list[Words], holds: list[Hold]) -> list[Words]:
    """The permission words less the requests a hold makes conditional: those name no one for a send."""
    out = []
    for w in words:
        text = w.text
        for h in holds:
            if h.words.text == w.text and h.words.source == w.source:
                for s in h.covered:
                    text = text.replace(s, " ")
        if text.strip(" .,;:!?\n"):
            out.append(w if text == w.text else Words(text.strip(), w.source, w.answer))
    return out


# ---------------------------------------------------------------------------------------------------- applying

_PRICING = re.compile(
    r"\b(?:quote[sd]?|quotation|estimate[sd]?|price[sd]?|pricing|cost[s]?|costing|total|fees?|rates?|proposal|bid|"
    r"offer|discount|comes?\s+to|would\s+be|will\s+be|per\s+[a-z]+|each|apiece|an?\s+(?:hour|day|week|month|term|year|"
    r"session|lesson|visit|head|person)|/\s?(?:hr|hour|day|month))\b",
    re.I,
)


def applies(hold: Hold, recipient: str, outbound: str) -> Strength | None:
    """Whether `hold` holds a send to `recipient` carrying `outbound`: "definite", "open" (a judgement), or None."""
    if hold.recipients is not None and recipient not in hold.recipients:
        return None
    if hold.threshold is not None:
        sums = amounts(outbound)
        return hold.strength if sums and max(sums) > hold.threshold else None
    if hold.scope == "money":
        # A quote is a figure offered for the work: an amount and a word that prices something. An amount alone
        # (what other clients paid) or the word alone ("I'll send a quote by Thursday") may or may not be one.
        priced = _PRICING.search(outbound) or any(re.search(rf"\b{re.escape(n)}", outbound, re.I) for n in hold.nouns)
        if amounts(outbound) and priced:
            return hold.strength
        if amounts(outbound) or priced:
            return "open"
        return None
    if hold.scope == "noun":
        if any(re.search(rf"\b{re.escape(n.rstrip('s'))}", outbound, re.I) for n in hold.nouns):
            return hold.strength
        return None
    return hold.strength


def lifted(hold: Hold, recipient: str, outbound: str, words: Iterable[Words], contacts: list[ContactRecord],
           owner: str) -> Words | None:
    """The owner's own words that show this send, if any: an answered ask naming the recipient that carries every
    amount the send does and something of what it says, or the owner's own unconditional request naming them
    that carries every amount."""
    sums = set(amounts(outbound))
    name_tokens = set()
    for c in contacts:
        if recipient in {e.lower() for e in c.emails}:
            name_tokens |= tokens(c.name)
    name_tokens |= tokens(owner)
    for w in words:
        # The owner's words quoted in a hand-off are the owner's own request, passed on.
        if w.source not in ("owner", "answered_ask", "handoff") or not _names(w.text, recipient, contacts, owner):
            continue
        seen = set(amounts(w.text))
        # Every figure the send carries, or at least its total: a yes to "$8,400" covers the $4,800 and $3,600 in it.
        if sums and not (sums <= seen or max(sums) in seen):
            continue
        if w.source == "answered_ask":
            if not asks_to_send(w.text):
                continue
            if not (tokens(w.text) - name_tokens) & tokens(outbound):
                continue
        elif not any(_names(part, recipient, contacts, owner) for part in _send_clauses(w.text)):
            continue
        return w
    return None


def _send_clauses(text: str) -> list[str]:
    return [s for s in sentences(text) if asks_to_send(s)]


def _names(text: str, address: str, contacts: list[ContactRecord], owner: str) -> bool:
    if address in named_addresses(text):
        return True
    return any(address in {e.lower() for e in c.emails} for c in named_contacts(text, contacts, owner_name=owner))


def describe(hold: Hold) -> str:
    return norm(hold.sentence)[:160]
