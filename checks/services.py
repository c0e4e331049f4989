"""The check in the workspace: decide, keep the decision, keep the ask, and let a yes through.

`check_tool_call` is what the tool pipeline calls before any checked action. `ask_answer` is what the owner's
answer in a chat calls. The decision itself is `checks.decide.decide`, on data only.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, Q, Subquery
from django.utils import timezone

from checks import spend
from checks.decide import decide
from checks.fingerprint import fingerprint
from checks.judge import Judge, configured_judge
from checks.models import Ask, CheckDecision, SpentYes
from checks.selectors import went_since
from checks.types import CheckRequest, Decision
from checks.words import is_yes
from core import live, rows
from core.inputs import Uuid
from core.network import network_call

if TYPE_CHECKING:
    from core.models import Organization


def check_tool_call(
    *,
    org: Organization,
    request: CheckRequest,
    actor_kind: str,
    actor_id: str,
    conversation_id: str | None = None,
    judge: Judge | None = None,
    validated_input: dict[str, Any] | None = None,
    wait_for_disk: bool = True,
    write_go: Callable[[CheckDecision], None] | None = None,
) -> Decision:
    """Decide on one action, keep the decision, and on "ask" keep the ask. A yes covers one run of the action it
    answered, wherever it was given: the owner's yes to an ask with the same fingerprint (in the same conversation:
    Home's Yes, or a yes typed in the chat and passed to the thread) lets the action go once, and so do the owner's
    words of a yes in the conversation; either is spent, in the transaction that lets the run go, by a conditional
    update or an insert only one run can make. When an action goes, every open ask for that same action closes.
    Nothing lets a stop through. `validated_input` is the tool's input after validation, which the fingerprint is
    taken from when given.

    `write_go`: for a go that spends no yes (the decision's row is all it writes), the caller takes the row, not
    saved, to write with the action itself (tools.pipeline: in the action's transaction, and alone should the action
    fail), where writing it here was a round trip of its own before every checked change."""
    if org.check_enabled:
        network_call("the check (its judge is a model)")
    # The owner's yeses already spent are read as silence: a spent yes answers nothing.
    candidates = spend.yes_turns(request)
    spent = set(
        SpentYes.objects.filter(organization=org, ref__in=[y.ref for y in candidates]).values_list("ref", flat=True)
    ) if candidates else set()
    request = spend.without(request, spent)
    live = [y for y in candidates if y.ref not in spent]
    decision = decide(request, judge=judge, enabled=org.check_enabled, without_judge=org.without_judge,
                      judge_of=lambda: configured_judge(org))
    action_print = fingerprint(request.action, validated_input)
    key = spend.action_key(request, validated_input)
    needed: list[str] = []
    fallback = decision
    if decision.outcome == "go" and org.check_enabled:
        needed, fallback = spend.relied_on(request, decision, live)
    # The decision's row and what a yes it spends or an ask it keeps writes, together. A go on the rules or the
    # owner's own words writes the row alone: one statement, atomic by itself (on PostgreSQL a transaction's BEGIN
    # and COMMIT would be two round trips more on every checked step).
    with transaction.atomic() if decision.outcome == "ask" or needed else contextlib.nullcontext():
        # `wait_for_disk=False` (an action on Roadstar's own records only): a "go" alone commits without waiting for
        # the disk (core.rows.UNWAITED). The action's own writes commit after it, waiting, which writes this row to
        # disk too; only if the action fails and the database server crashes within the moment after is the row of
        # a "go" for an action that never happened lost. An action in an app keeps its decision on disk first.
        row = CheckDecision(
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
            action_key=key,
            actor_kind=actor_kind,
            actor_id=actor_id,
            conversation_id=conversation_id,
        )
        if write_go is not None and decision.outcome == "go" and not needed:
            write_go(row)  # (nothing else here to write with it: no yes spent, no ask kept)
            return decision
        record = rows.insert(row, wait_for_disk=wait_for_disk)  # (a kept statement: every checked action writes one)
        if decision.outcome == "ask":
            grant = _claim_yes(org=org, fingerprint=action_print, conversation_id=conversation_id, record=record)
            spent_words = (SpentYes.objects.filter(organization=org, ref=grant.answer_ref).first()
                           if grant is not None and grant.answer_ref else None)
            if grant is not None and spent_words is not None:
                # Its words let a run go already (in the chat, or delivered to the thread): the yes was spent there.
                Ask.objects.filter(id=grant.id, used_by=record).update(used_by=spent_words.decision_id)
                grant = None
            if grant is not None and grant.answer_ref and not _spend_words(
                org=org, refs=[grant.answer_ref], record=record
            ):
                # Another run spent its words between our read and now: that run went on this yes; this one asks.
                Ask.objects.filter(id=grant.id, used_by=record).update(used_by=None)
                grant = None
            if grant is not None:
                decision = Decision(outcome="go", relied_on=[grant.answer] if grant.answer else [],
                                    decided_by="rules")
                needed = [grant.answer_ref] if grant.answer_ref else []
        elif needed and not _spend_words(org=org, refs=needed, record=record):
            # Another run spent this yes between our read and now: it lets one run go, and that one went.
            decision, needed = fallback, []
        if decision.outcome != record.outcome:
            record.outcome, record.reason = decision.outcome, decision.reason or ""
            record.relied_on, record.decided_by = decision.relied_on, decision.decided_by
            record.save(update_fields=["outcome", "reason", "relied_on", "decided_by"])
        if decision.outcome == "go" and needed:
            # A yes let it go: the asks it answered, and every other yes for the same action, are done with it. (A
            # go on the owner's own words writes nothing here: its asks read as done by `went_since`, on Home and
            # when a yes would be claimed, so the common checked step costs no query more.)
            _close_the_same_action(org=org, fingerprint=action_print, key=key, conversation_id=conversation_id,
                                   record=record, refs=needed)
        if decision.outcome == "ask":
            _keep_ask(org=org, fingerprint=action_print, key=key, record=record, conversation_id=conversation_id)
    return decision


def _claim_yes(
    *, org: Organization, fingerprint: str, conversation_id: str | None, record: CheckDecision
) -> Ask | None:
    """The owner's unspent yes to this very action, in the same conversation (or, for callers without one, to an
    ask made without one), claimed for this run by a conditional update: of two runs racing on one yes, the update
    of one finds it spent (PostgreSQL re-reads the row it waited for; SQLite's write lock takes them in turn)."""
    waiting = (
        Ask.objects.filter(organization=org, fingerprint=fingerprint, state=Ask.State.YES, used_by__isnull=True,
                           decision__conversation_id=conversation_id)
        .order_by("answered_at").values_list("id", flat=True)
    )
    for ask_id in list(waiting):
        # Not once the action has gone since it was asked about (on other words, or reworded): one run for one yes,
        # however it went.
        if Ask.objects.filter(id=ask_id).filter(Exists(went_since(exclude=record.pk))).exists():
            continue
        # The claim itself is one plain conditional UPDATE on the row (no join, no subquery): PostgreSQL re-reads
        # the row a concurrent claim committed and finds it spent. (With a subquery in its WHERE, both went: the
        # subquery's rows come from the statement's snapshot, so the test racing two runs caught it.)
        if Ask.objects.filter(id=ask_id, state=Ask.State.YES, used_by__isnull=True).update(used_by=record):
            return Ask.objects.get(id=ask_id)
    return None


def ask_went(*, org: Organization, ask_id: Uuid | str) -> CheckDecision | None:
    """The run of the asked action that went since it was asked, if any: its ask is done, and closes now."""
    ask = Ask.objects.filter(organization=org, id=ask_id).annotate(
        went_id=Subquery(went_since().values("pk")[:1])
    ).first()
    if ask is None or ask.went_id is None:
        return None
    if ask.state == Ask.State.WAITING:
        Ask.objects.filter(id=ask.id, state=Ask.State.WAITING).update(state=Ask.State.DONE, used_by=ask.went_id)
    return CheckDecision.objects.get(pk=ask.went_id)


def _spend_words(*, org: Organization, refs: list[str], record: CheckDecision) -> bool:
    """Spend the owner's words of a yes for this run: one row a yes, so only one run can; False when another run
    spent one of them first (this run's transaction then keeps none)."""
    try:
        with transaction.atomic():
            for ref in refs:
                SpentYes.objects.create(organization=org, ref=ref, decision=record)
    except IntegrityError:
        return False
    return True


def _close_the_same_action(*, org: Organization, fingerprint: str, key: str, conversation_id: str | None,
                           record: CheckDecision, refs: list[str]) -> None:
    """One run of the action went: every open ask for it is done (Home shows no Yes/No for it any more), and every
    yes still unspent for it is spent by this run, so no stale Yes, on Home or in the chat, lets a second run go.
    The same action is the same fingerprint anywhere, or, in this conversation, the same tool to the same people
    or records (a reworded quote to Dana is the quote the ask was about)."""
    same = Q(fingerprint=fingerprint) | Q(action_key=key, decision__conversation_id=conversation_id)
    if refs:
        same |= Q(answer_ref__in=refs)
    asks = Ask.objects.filter(organization=org).filter(same)
    if asks.filter(state=Ask.State.WAITING).update(state=Ask.State.DONE, used_by=record):
        live.notify(org.id, "asks")  # an open Home shows it done at once, its Yes and No gone
    yeses = asks.filter(state=Ask.State.YES, used_by__isnull=True)
    words = [r for r in yeses.values_list("answer_ref", flat=True) if r and r not in refs]
    yeses.update(used_by=record)
    # Their words in the conversation are spent with them (a yes spent already stays spent by its first run).
    done = set(SpentYes.objects.filter(organization=org, ref__in=words).values_list("ref", flat=True))
    SpentYes.objects.bulk_create([SpentYes(organization=org, ref=r, decision=record) for r in set(words) - done])


def _keep_ask(
    *, org: Organization, fingerprint: str, key: str, record: CheckDecision, conversation_id: str | None
) -> Ask:
    # The agent may try the same action again before the owner answers: one waiting ask per action, not a pile.
    waiting = Ask.objects.filter(
        organization=org, fingerprint=fingerprint, state=Ask.State.WAITING, decision__conversation_id=conversation_id
    ).first()
    if waiting is not None:
        waiting.decision = record
        waiting.save(update_fields=["decision"])
        return waiting
    return Ask.objects.create(organization=org, fingerprint=fingerprint, decision=record, action_key=key)


def ask_answer(*, org: Organization, ask_id: Uuid | str, yes: bool, text: str, ref: str = "",
               given_in: str = "home") -> Ask:
    """Keep the owner's answer to an ask. A yes lets the same action (same fingerprint) go once when the agent
    runs it again; a decline keeps it held. Only a waiting ask is answered: one answered, spent or done already
    is returned as it is (a stale Yes on Home lets nothing run). Raises Ask.DoesNotExist for an ask of another
    workspace. `ref` names the owner's words that answer it ("ask:<id>" from Home), spent with the yes."""
    with transaction.atomic():
        ask = Ask.objects.select_for_update().get(organization=org, id=ask_id)
        if ask.state != Ask.State.WAITING or ask.used_by_id is not None:
            # The yes has done its work; answering again can't undo what already ran, nor run it twice.
            return ask
        ask.state = Ask.State.YES if yes else Ask.State.DECLINED
        ask.answer = text
        ask.answered_at = timezone.now()
        ask.answer_ref = ref or f"ask:{ask.id}"
        ask.answered_in = given_in
        ask.save(update_fields=["state", "answer", "answered_at", "answer_ref", "answered_in"])
    return ask


def yes_from_chat(
    *, org: Organization, conversation_id: str, words: str, ref: str, given_at: datetime.datetime
) -> Ask | None:
    """The owner's yes typed in a chat and passed to the thread that asked (`message_thread`): it answers that
    thread's ask, as Home's Yes would, when it is a yes and the thread has exactly one ask waiting from before it
    was said (two waiting asks and a bare "yes": which one is not for Roadstar to guess; each stays on Home). One
    owner's message answers one ask, once. The words come from the owner's own message (the work's owner_words),
    never from what a model wrote. Returns the ask answered, or None."""
    if not ref or not is_yes(words):
        return None
    with transaction.atomic():
        if Ask.objects.filter(organization=org, answer_ref=ref).exists() or SpentYes.objects.filter(
            organization=org, ref=ref
        ).exists():
            return None
        waiting = list(
            Ask.objects.select_for_update(of=("self",))
            .filter(organization=org, state=Ask.State.WAITING, decision__conversation_id=conversation_id,
                    created_at__lt=given_at)
            .exclude(Exists(went_since()))[:2]
        )
        if len(waiting) != 1:
            return None
        ask = waiting[0]
        ask.state, ask.answer, ask.answered_at = Ask.State.YES, words, timezone.now()
        ask.answer_ref, ask.answered_in = ref, "chat"
        ask.save(update_fields=["state", "answer", "answered_at", "answer_ref", "answered_in"])
    return ask
