"""The check in the workspace: decide, keep the decision, keep the ask, and let a yes through.

`check_tool_call` is what the tool pipeline calls before any checked action. `ask_answer` is what the owner's
answer in a chat calls. The decision itself is `checks.decide.decide`, on data only.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from checks.decide import decide
from checks.fingerprint import fingerprint
from checks.judge import Judge, configured_judge
from checks.models import Ask, CheckDecision
from checks.types import CheckRequest, Decision
from core.network import network_call


def check_tool_call(
    *,
    org,
    request: CheckRequest,
    actor_kind: str,
    actor_id: str,
    conversation_id: str | None = None,
    judge: Judge | None = None,
    validated_input: dict | None = None,
) -> Decision:
    """Decide on one action, keep the decision, and on "ask" keep the ask. A yes the owner gave to an ask with
    the same fingerprint (in the same conversation) lets the action go once; nothing lets a stop through.
    `validated_input` is the tool's input after validation, which the fingerprint is taken from when given."""
    if org.check_enabled:
        network_call("the check (its judge is a model)")
    if judge is None and org.check_enabled:
        judge = configured_judge()
    decision = decide(request, judge=judge, enabled=org.check_enabled, without_judge=org.without_judge)
    action_print = fingerprint(request.action, validated_input)
    with transaction.atomic():
        yes = None
        if decision.outcome == "ask":
            yes = _unused_yes(org=org, fingerprint=action_print, conversation_id=conversation_id)
            if yes is not None:
                decision = Decision(outcome="go", relied_on=[yes.answer] if yes.answer else [], decided_by="rules")
        record = CheckDecision.objects.create(
            organization=org,
            tool=request.action.tool,
            input=request.action.input,
            replaces=request.action.replaces,
            note=request.action.note or "",
            outcome=decision.outcome,
            reason=decision.reason or "",
            relied_on=decision.relied_on,
            decided_by=decision.decided_by,
            judge_used=decision.judge_used,
            fingerprint=action_print,
            actor_kind=actor_kind,
            actor_id=actor_id,
            conversation_id=conversation_id,
        )
        if yes is not None:
            yes.used_by = record
            yes.save(update_fields=["used_by"])
        if decision.outcome == "ask":
            _keep_ask(org=org, fingerprint=action_print, record=record, conversation_id=conversation_id)
    return decision


def _unused_yes(*, org, fingerprint: str, conversation_id: str | None) -> Ask | None:
    # Only a yes given in the same conversation (or, for callers without one, to an ask made without one).
    return (
        Ask.objects.select_for_update(of=("self",))
        .filter(organization=org, fingerprint=fingerprint, state=Ask.State.YES, used_by__isnull=True,
                decision__conversation_id=conversation_id)
        .order_by("answered_at")
        .first()
    )


def _keep_ask(*, org, fingerprint: str, record: CheckDecision, conversation_id: str | None) -> Ask:
    # The agent may try the same action again before the owner answers: one waiting ask per action, not a pile.
    waiting = Ask.objects.filter(
        organization=org, fingerprint=fingerprint, state=Ask.State.WAITING, decision__conversation_id=conversation_id
    ).first()
    if waiting is not None:
        waiting.decision = record
        waiting.save(update_fields=["decision"])
        return waiting
    return Ask.objects.create(organization=org, fingerprint=fingerprint, decision=record)


def ask_answer(*, org, ask_id, yes: bool, text: str) -> Ask:
    """Keep the owner's answer to an ask. A yes lets the same action (same fingerprint) go once when the agent
    runs it again; a decline keeps it held. Raises Ask.DoesNotExist for an ask of another workspace."""
    with transaction.atomic():
        ask = Ask.objects.select_for_update().get(organization=org, id=ask_id)
        if ask.used_by_id is not None:
            # The yes has done its work; answering again can't undo what already ran, nor run it twice.
            return ask
        ask.state = Ask.State.YES if yes else Ask.State.DECLINED
        ask.answer = text
        ask.answered_at = timezone.now()
        ask.save(update_fields=["state", "answer", "answered_at"])
    return ask
