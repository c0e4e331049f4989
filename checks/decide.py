"""One decision for one action: go, ask or stop. Deterministic rules first, the model judge last.

The same function serves the live pipeline (through `checks.services.check_tool_call`) and `check_eval`, on the
same `CheckRequest` data. It touches no database and no network except through the judge it is given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from checks import reasons
from checks.judge import (
    Judge,
    JudgeRequest,
    JudgeUnreachable,
    JudgeUnsure,
    OwnerWordsShown,
    RecipientShown,
)
from checks.rules import RuleResult, evaluate, names_address, recipients_of
from checks.types import CheckRequest, Decision
from checks.words import norm, permission_words

log = logging.getLogger(__name__)


def decide(request: CheckRequest, *, judge: Judge | None, enabled: bool = True, without_judge: str = "ask",
           judge_of: Callable[[], Judge | None] | None = None) -> Decision:
    """`without_judge` is the owner's choice for a workspace with no judge model set up: "ask" (the default) holds
    back what the rules can't decide, as "the check couldn't be reached"; "run" lets it run, as the spec has it for
    a workspace without the check set up. What a rule decides holds either way. `judge_of`, given no `judge`, finds
    the judge only once the rules leave the action open (the workspace's model settings are a read, which most
    checked steps, decided by the rules, don't need)."""
    if not enabled:
        # The owner turned the check off for the workspace: as the spec says, every action runs.
        return Decision(outcome="go", decided_by="off")

    result = evaluate(request)
    if not result.checked:
        return Decision(outcome="go")
    decisive = result.decisive
    if decisive is not None:
        # A definite rule decides alone and never calls the judge: a judge can't loosen what the rules hold back.
        return Decision(
            outcome=reasons.outcome_of(decisive.reason), reason=decisive.reason, relied_on=list(decisive.relied_on)
        )
    if not result.open:
        return Decision(outcome="go", relied_on=result.relied_on)

    relied_on = _open_words(result)
    if judge is None and judge_of is not None:
        judge = judge_of()
    if judge is None:
        if without_judge == "run":
            return Decision(outcome="go", relied_on=relied_on, decided_by="owner")
        return Decision(outcome="ask", reason=reasons.UNREACHABLE, relied_on=relied_on)

    try:
        verdict = judge.judge(judge_request(request, result))
    except JudgeUnreachable as exc:
        log.warning("check judge unreachable: %s", exc)
        return Decision(outcome="ask", reason=reasons.UNREACHABLE, relied_on=relied_on, decided_by="judge",
                        judge_used=True)
    except JudgeUnsure as exc:
        log.warning("check judge gave no usable verdict: %s", exc)
        return Decision(outcome="ask", reason=reasons.UNDECIDED, relied_on=relied_on, decided_by="judge",
                        judge_used=True)
    except Exception:
        # A judge that breaks must not let the action through, nor stop the agent's turn: it holds it back.
        log.exception("check judge failed")
        return Decision(outcome="ask", reason=reasons.UNREACHABLE, relied_on=relied_on, decided_by="judge",
                        judge_used=True)
    return Decision(
        outcome=verdict.outcome,
        reason=verdict.reason,
        relied_on=_quoted(verdict.relied_on, request) or relied_on,
        decided_by="judge",
        judge_used=True,
    )


def judge_request(request: CheckRequest, result: RuleResult) -> JudgeRequest:
    """What the judge is shown: the action, what it replaces, the owner's words and the rules' open questions."""
    words = permission_words(request)
    contacts = list(request.records.contacts)
    shown_recipients = []
    for address in recipients_of(request.action.input or {}):
        contact = next((c for c in contacts if address in {e.lower() for e in c.emails}), None)
        shown_recipients.append(RecipientShown(
            address=address,
            contact=contact.name if contact else None,
            company=contact.company if contact else None,
            named_by_owner=any(names_address(w, address, contacts, owner_name=request.business.owner) for w in words),
        ))
    return JudgeRequest(
        business=request.business.name,
        owner=request.business.owner,
        tool=request.action.tool,
        input=request.action.input or {},
        replaces=request.action.replaces,
        note=request.action.note,
        # Permission words are never an agent's own note (only a hold reads those): the filter says so to mypy.
        owner_words=_once([
            OwnerWordsShown(who=w.source, text=w.text, answer=w.answer) for w in words if w.source != "agent_note"
        ]),
        recipients=shown_recipients,
        questions=[f.why for f in result.open],
        rules_would_say=result.open[0].reason,
    )


def _once(words: list[OwnerWordsShown]) -> list[OwnerWordsShown]:
    """Each of the owner's words once: a routine's thread carries its note in every run's message, and the owner
    may say the same thing twice; repeating it tells the judge nothing more and costs every call."""
    seen, out = set(), []
    for w in words:
        key = (w.who, norm(w.text), w.answer)
        if key not in seen:
            seen.add(key)
            out.append(w)
    return out


def _open_words(result: RuleResult) -> list[str]:
    out: list[str] = []
    for f in result.open:
        out.extend(w for w in f.relied_on if w not in out)
    return out


def _quoted(quotes: list[str], request: CheckRequest) -> list[str]:
    """The judge's quotes that really are the owner's words: a model may misquote, the record must not."""
    texts = [norm(w.text) for w in permission_words(request)]
    return [q for q in quotes if q.strip() and any(norm(q) in t for t in texts)]
