"""A yes covers one run: which of the owner's yeses in a conversation a run relied on, and the conversation without
the ones already spent.

The rules read a yes from the conversation: an agent's ask, then the owner's yes (typed in the chat, quoted in work
handed to a thread, or Home's Yes delivered to the thread). Those words stay in the conversation after the run they
let go, so without more the same yes would let a second run go, and a third. Each yes the workspace can name
carries a `ref` (checks/types.py); once spent (`SpentYes`), its words are read as silence: the ask they answered is
unanswered again, and the rules ask.

Which yes a run relied on is found by asking the rules again without it: a yes whose absence turns the run's go
into an ask (or a different finding) is the one it spent. This touches no rule, so it holds for any rule that reads
a yes, now and later.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from checks import reasons
from checks.decide import decide
from checks.fingerprint import canonical_action
from checks.kinds import action_kind
from checks.rules import RECIPIENT_KEYS, evaluate
from checks.types import AgentTurn, CheckRequest, Decision, HandoffTurn, OwnerTurn
from checks.words import is_yes, norm


@dataclass(frozen=True)
class YesTurn:
    """An owner's yes to an agent's ask in the conversation, by its ref."""

    ref: str
    ask: str  # the agent's ask it answered
    answer: str  # the owner's words


def yes_turns(request: CheckRequest) -> list[YesTurn]:
    """Every yes to an agent's ask in the conversation that the workspace can name (cases' turns have no ref)."""
    turns = request.conversation
    out: list[YesTurn] = []
    for i, turn in enumerate(turns):
        if not isinstance(turn, AgentTurn):
            continue
        for later in turns[i + 1:]:
            if isinstance(later, AgentTurn):
                break
            ref, text = "", None
            if isinstance(later, OwnerTurn):
                ref, text = later.ref, later.text
            elif isinstance(later, HandoffTurn) and later.owner_words:
                ref, text = later.owner_words[0].ref, later.owner_words[0].text
            if text is None:
                continue
            if ref and is_yes(text) and all(y.ref != ref for y in out):
                out.append(YesTurn(ref=ref, ask=turn.text, answer=text))
            break  # the owner's next words are the answer, yes or not (checks.words._answer_to)
    return out


def without(request: CheckRequest, refs: set[str]) -> CheckRequest:
    """The request with the owner's words of these refs read as silence: a spent yes answers nothing."""
    if not refs:
        return request
    turns = []
    for turn in request.conversation:
        if isinstance(turn, OwnerTurn) and turn.ref in refs:
            turn = turn.model_copy(update={"text": ""})
        elif isinstance(turn, HandoffTurn) and any(w.ref in refs for w in turn.owner_words):
            turn = turn.model_copy(update={"owner_words": [
                w.model_copy(update={"text": ""}) if w.ref in refs else w for w in turn.owner_words
            ]})
        turns.append(turn)
    return request.model_copy(update={"conversation": turns})


def _by_rules(request: CheckRequest) -> tuple[Any, ...]:
    # The rules alone, never a judge: what they find, open or definite (a decision without a judge follows from it).
    result = evaluate(request)
    return result.checked, tuple(sorted((f.reason, f.definite) for f in result.findings))


def relied_on(request: CheckRequest, decision: Decision, candidates: list[YesTurn]) -> tuple[list[str], Decision]:
    """The refs of the yeses a run that went relied on, and what the check would have said without them (an ask,
    for a run whose yes another run spent meanwhile)."""
    if not candidates:
        return [], decision
    refs = {y.ref for y in candidates}
    with_them = _by_rules(request)
    without_any = without(request, refs)
    fallback = decide(without_any, judge=None)
    if fallback.outcome == "go":
        # A go the rules give without any yes (the owner's own request, a routine's note): none of them is needed
        # by a rule; a judge that quoted a yes's words still relied on it.
        fallback = Decision(outcome="ask", reason=reasons.UNDECIDED)
    needed: list[str] = []
    if _by_rules(without_any) != with_them:
        for y in candidates:
            if _by_rules(without(request, {y.ref})) != with_them:
                needed.append(y.ref)
        if not needed:  # two yeses, each enough alone: the run spends both
            needed = sorted(refs)
    if decision.judge_used or decision.decided_by in ("judge", "owner"):
        quoted = [norm(q) for q in decision.relied_on]
        for y in candidates:
            if y.ref not in needed and any(q and (q in norm(y.ask) or q in norm(y.answer)) for q in quoted):
                needed.append(y.ref)
    return needed, fallback


def action_key(request: CheckRequest, validated: dict[str, Any] | None = None) -> str:
    """The action without its wording: the tool, whom a send reaches (or the records a change names). A reworded
    quote to the same person is the same action; closing its asks once one run went closes the reworded ones."""
    canonical = canonical_action(request.action, validated)
    tool_input = canonical["input"] if isinstance(canonical["input"], dict) else {}
    kind = action_kind(request.action.tool, request.action.input or {})
    if kind == "sends" or any(k in tool_input for k in RECIPIENT_KEYS):
        whom = {k: tool_input[k] for k in sorted(RECIPIENT_KEYS) if tool_input.get(k)}
    else:
        whom = {k: v for k, v in tool_input.items() if k == "id" or k.endswith("Id") or k.endswith("_id")}
    # An action that names no one and no record (an agent's name, a search) is only ever the same as itself.
    text = json.dumps({"tool": request.action.tool, "whom": whom} if whom else canonical, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
