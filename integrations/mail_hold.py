"""The two-minute hold: mail.send doesn't send. The email waits on Home with Undo, then the worker sends it once.

A `HeldEmail` moves held -> sending -> sent (or undone, failed, unsure), every move a conditional UPDATE, so Undo and
any number of workers agree on one outcome without locks (SQLite included):
- `email_hold` keeps the email (attachments' bytes on disk), gives it a Message-ID of its own, writes the "sent"
  entry on each recipient contact's log, and schedules `send_held` for the end of the hold.
- `email_undo` (Home's Undo) wins only while it is still held (or failed): nothing goes. Once a worker has claimed
  it, Undo answers `changed`.
- `email_send` is one worker's try, with no transaction open at any network call: claim it (held and due, or
  `sending` under a claim older than LEASE, the mark of a worker that died), committed; then, if an earlier claim
  may have sent it, look for its Message-ID in the account's sent mail; then write `handed_off_at` (committed)
  and hand it to the app, outside any transaction; then mark it sent. A worker that stops before the hand-off
  leaves it to be sent again safely. One that stops during or after it leaves `handed_off_at`: the next try finds
  it in sent mail, or, when the app's sent mail can't tell (the local mailbox's SMTP server), doesn't send it
  again but marks it `unsure` with a card that asks the owner. Never lost, and never sent twice.
- A failure the app may get over (rate_limited, unavailable, unknown_outcome) is tried again, TRIES times in all;
  then, or at once for any other failure, it is `failed` and a Try again card waits on Home (`email_try_again`).
  After `unknown_outcome` the next try looks in sent mail first, as after a dead worker.
- `email_sweep` (every minute) picks up what is due, and what a dead worker left in `sending`.
"""

from __future__ import annotations

import datetime
import logging
import secrets

from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone

from checks.models import Ask, CheckDecision
from contacts.shapes import local_time_words
from core.actors import Actor
from core.errors import ToolError
from core.held import HeldLine
from core.models import Card, Change
from core.network import network_call
from core.services import card_open
from core.timefmt import iso
from integrations.durable import kept
from integrations.ids import join_id
from integrations.local.mailbox import blob_get, blob_put
from integrations.local.models_mail import HeldEmail
from integrations.mail_service import HELD_PREFIX, Outgoing, contacts_log, mail_provider
from integrations.mail_text import new_message_id
from integrations.providers.base import FileData, OutgoingMail, SentRef
from integrations.selectors import require_connection
from records.models import Contact, ContactEmail, LogEntry

logger = logging.getLogger(__name__)

HOLD = datetime.timedelta(minutes=2)
# A claim older than this is a dead worker's. Longer than a task may run (Q_CLUSTER timeout, 600 s), so a slow but
# living worker is never taken over mid-send.
LEASE = datetime.timedelta(minutes=11)
TRIES = 3
RETRY_WAITS = (datetime.timedelta(seconds=30), datetime.timedelta(minutes=2))
TRANSIENT = frozenset({"rate_limited", "unavailable", "unknown_outcome"})
SWEEP_BATCH = 200
SEND_TASK = "integrations.tasks_mail.send_held"


# --- holding --------------------------------------------------------------------------------------------------


def _approval(*, org, conversation_id: str | None) -> dict:
    """How the owner's yes was given (the contact log's `approval`), from the check's decision that let it go."""
    if not org.check_enabled:
        return {"kind": "allowed"}
    decision = (
        CheckDecision.objects.filter(organization=org, tool="mail.send", outcome=CheckDecision.Outcome.GO,
                                     conversation_id=conversation_id or None)
        .order_by("-created_at").first()
    )
    if decision is None or decision.decided_by == CheckDecision.DecidedBy.OWNER:
        return {"kind": "allowed"}  # (the owner lets run what no judge is set up to decide)
    yes = Ask.objects.filter(used_by=decision).first()
    if yes is not None:
        return {"kind": "yes", "at": iso(yes.answered_at)} if yes.answered_at else {"kind": "yes"}
    if decision.relied_on:
        return {"kind": "rule", "rule": str(decision.relied_on[0])[:500]}
    return {"kind": "allowed"}


def _schedule(held_id, at: datetime.datetime) -> None:
    from django_q.models import Schedule

    Schedule.objects.create(
        name=f"send held email {held_id}"[:100], func=SEND_TASK, args=repr((str(held_id),)),
        schedule_type=Schedule.ONCE, next_run=at, repeats=-1,
    )


def _unschedule(held_id) -> None:
    from django_q.models import Schedule

    Schedule.objects.filter(func=SEND_TASK, args=repr((str(held_id),))).delete()


def _create(org, fields: dict) -> HeldEmail:
    # The number is the workspace's next: the unique (organization, number) settles two holds at once.
    for _ in range(5):
        number = (HeldEmail.objects.filter(organization=org).aggregate(top=Max("number"))["top"] or 0) + 1
        try:
            with transaction.atomic():
                return HeldEmail.objects.create(organization=org, number=number, **fields)
        except IntegrityError:
            continue
    raise IntegrityError("could not number the held email")


def email_hold(*, org, actor: Actor, conversation_id: str | None, outgoing: Outgoing, subject: str, text: str,
               signature: bool, now: datetime.datetime | None = None) -> tuple[HeldEmail, str, list[LogEntry]]:
    """Keep the email for two minutes; returns it, its thread id (the reply's, or `<account>:held-<n>` until a new
    email has gone) and the contacts' "sent" log entries."""
    now = now or timezone.now()
    goes = now + HOLD
    attachments = [
        {"name": a.name, "mime_type": a.mime_type, "size": a.size, "sha256": blob_put(org.id, a.data)}
        for a in outgoing.attachments
    ]
    held = _create(org, {
        "connection": outgoing.connection, "state": HeldEmail.State.HELD, "send_at": goes, "goes_at": goes,
        "message_id": new_message_id(outgoing.connection.account), "to": outgoing.to, "cc": outgoing.cc,
        "subject": subject, "text": text, "thread_id": outgoing.thread_local or "", "signature": signature,
        "attachments": attachments, "actor_kind": actor.kind, "actor_id": actor.id, "actor_name": actor.name,
        "conversation_id": conversation_id or "",
    })
    thread_id = outgoing.thread_id or join_id(outgoing.connection, f"{HELD_PREFIX}{held.number}")
    entries = contacts_log(
        org=org, actor=actor, kind=LogEntry.Kind.SENT, addresses=outgoing.to + outgoing.cc, text=f"Email “{subject}”",
        extra={"subject": subject, "to": outgoing.to, "thread": thread_id, "hold": held.number,
               "approval": _approval(org=org, conversation_id=conversation_id)},
    )
    if entries:
        held.log_entries = [str(e.id) for e in entries]
        held.save(update_fields=["log_entries"])
    _schedule(held.id, goes)
    return held, thread_id, entries


# --- Undo -----------------------------------------------------------------------------------------------------


def _card_subject(held_id) -> str:
    return f"try_again:mail:{held_id}"


def email_undo(*, org, held_id, actor: Actor) -> HeldEmail:
    """Stop a held email: nothing goes. `changed` once a worker has it, or it went."""
    held = HeldEmail.objects.filter(organization=org, pk=held_id).first()
    if held is None:
        raise ToolError("not_found", "No such held email in this workspace.")
    now = timezone.now()
    won = HeldEmail.objects.filter(pk=held.pk, state__in=(HeldEmail.State.HELD, HeldEmail.State.FAILED)).update(
        state=HeldEmail.State.UNDONE, undone_at=now, claim=""
    )
    if not won:
        held.refresh_from_db()
        if held.state == HeldEmail.State.SENT:
            when = local_time_words(held.sent_at, org.time_zone) if held.sent_at else "already"
            raise ToolError("changed", f"“{held.subject}” went at {when}: an email that has gone can't be called back.")
        if held.state == HeldEmail.State.SENDING:
            raise ToolError("changed", f"“{held.subject}” is going out right now, so it can't be stopped.")
        if held.state == HeldEmail.State.UNSURE:
            raise ToolError("changed", f"“{held.subject}” may have gone already: a card on Home asks whether it did.")
        raise ToolError("changed", f"“{held.subject}” was undone already.")
    for entry in LogEntry.objects.filter(organization=org, id__in=held.log_entries):
        entry.extra = {**entry.extra, "approval": {"kind": "undone", "at": iso(now)}}
        entry.save(update_fields=["extra"])
    Card.objects.filter(organization=org, subject=_card_subject(held.pk), resolved_at__isnull=True).update(
        resolved_at=now
    )
    _unschedule(held.pk)
    held.refresh_from_db()
    return held


# --- sending --------------------------------------------------------------------------------------------------


def _claim(held_id, now: datetime.datetime) -> str | None:
    """This worker's claim on the email, or None: not due, undone, sent, or another living worker has it."""
    token = secrets.token_hex(8)
    won = HeldEmail.objects.filter(pk=held_id).filter(
        Q(state=HeldEmail.State.HELD, send_at__lte=now)
        | Q(state=HeldEmail.State.SENDING, claimed_at__lt=now - LEASE)
    ).update(state=HeldEmail.State.SENDING, claim=token, claimed_at=now, attempts=F("attempts") + 1,
             tries=F("tries") + 1)
    return token if won else None


def _outgoing(held: HeldEmail) -> OutgoingMail:
    org_id = held.organization_id
    return OutgoingMail(
        to=list(held.to), subject=held.subject, text=held.text, cc=list(held.cc), thread_id=held.thread_id or None,
        attachments=[FileData(a["name"], a["mime_type"], blob_get(org_id, a["sha256"])) for a in held.attachments],
        signature=held.signature, message_id=held.message_id,
    )


class _Unsure(Exception):
    """An earlier hand-off may have sent it, and the app's sent mail can't say."""


class _Lost(Exception):
    """Another worker took the email over (this claim outlived its lease)."""


def _hand_off_begins(held: HeldEmail, token: str, now: datetime.datetime) -> None:
    # Committed before the network call (no transaction is open here): whatever happens to this worker from now
    # on, the next try knows the email may have gone.
    if not HeldEmail.objects.filter(pk=held.pk, state=HeldEmail.State.SENDING, claim=token).update(
        handed_off_at=now
    ):
        raise _Lost


def _deliver(held: HeldEmail, token: str, now: datetime.datetime) -> SentRef:
    """Send it through its account, unless an earlier claim did already."""
    connection = require_connection(org=held.organization, group="mail", account_key=held.connection.account_key,
                                    write=True)
    provider = mail_provider(connection)
    may_have_gone = held.handed_off_at is not None
    if may_have_gone or (held.attempts > 1 and provider.sent_mail_tells):
        found = provider.find_sent(held.message_id)
        if found is not None:
            return found
        if may_have_gone and not provider.sent_mail_tells:
            raise _Unsure
    outgoing = _outgoing(held)
    _hand_off_begins(held, token, now)
    return provider.send(outgoing)


def _mark_sent(held: HeldEmail, token: str, sent: SentRef, now: datetime.datetime) -> bool:
    with transaction.atomic():
        won = HeldEmail.objects.filter(pk=held.pk, state=HeldEmail.State.SENDING, claim=token).update(
            state=HeldEmail.State.SENT, sent_at=now, sent_message_id=sent.message_id,
            sent_thread_id=sent.thread_id, last_error="",
        )
        if won:
            _note_sent(held, sent, now)
    return bool(won)


def _note_sent(held: HeldEmail, sent: SentRef, now: datetime.datetime) -> None:
    """The contacts' log entries get when it went and its thread; each contact's `last` moves on; and the
    mail.send on Your work offers Undo no more: an email that has gone can't be called back.

    Each row is read again under its lock (in `_mark_sent`'s transaction) before its JSON is merged: a contact's
    `last` or a log entry's `extra` written by another process meanwhile is kept, not overwritten from a stale copy
    (core/locking.py says why; rows are locked in id order so two senders can't deadlock)."""
    changes = list(Change.objects.select_for_update().filter(
        organization_id=held.organization_id, tool="mail.send", target_type="email", target_id=str(held.pk),
        undone_at__isnull=True, undo__isnull=False).order_by("pk"))
    for change in changes:
        change.undo = {**(change.undo or {}), "gone": iso(now)}  # never None: only changes with an undo are read
    Change.objects.bulk_update(changes, ["undo"])
    entries = list(LogEntry.objects.select_for_update().filter(
        organization_id=held.organization_id, id__in=held.log_entries).order_by("pk"))
    for entry in entries:
        entry.extra = {**entry.extra, "sentAt": iso(now), "thread": sent.thread_id}
    LogEntry.objects.bulk_update(entries, ["extra"])
    contacts = list(Contact.objects.select_for_update().filter(
        id__in=[e.contact_id for e in entries if e.contact_id]).order_by("pk"))
    for contact in contacts:
        contact.last = {**(contact.last or {}), "at": iso(now), "channel": "mail",
                        "by": {"kind": held.actor_kind, "id": held.actor_id}}
    Contact.objects.bulk_update(contacts, ["last"])


def _after_failure(held: HeldEmail, token: str, error: ToolError, now: datetime.datetime) -> str:
    mine = HeldEmail.objects.filter(pk=held.pk, state=HeldEmail.State.SENDING, claim=token)
    # Any kind but unknown_outcome means the app didn't take it: the next try needn't look for it. After
    # unknown_outcome `handed_off_at` stays, and the next try looks in sent mail first.
    handed_off = {} if error.kind == "unknown_outcome" else {"handed_off_at": None}
    if error.kind in TRANSIENT and held.tries < TRIES:
        wait = RETRY_WAITS[min(held.tries, len(RETRY_WAITS)) - 1]
        with transaction.atomic():
            if mine.update(state=HeldEmail.State.HELD, send_at=now + wait, claim="", last_error=error.message,
                           **handed_off):
                _schedule(held.pk, now + wait)
        return "retrying"
    with transaction.atomic():
        if not mine.update(state=HeldEmail.State.FAILED, claim="", last_error=error.message, **handed_off):
            return "lost"
        org = held.organization
        card_open(
            org=org, kind=Card.Kind.TRY_AGAIN, subject=_card_subject(held.pk),
            title=f"An email couldn't go: {held.subject}"[:300],
            body=f"To {', '.join(held.to + held.cc)}, from {held.connection.account}. {error.message}",
            action_label="Try again", data={"held_email_id": str(held.pk), "tool": "mail.send"},
        )
    return "failed"


def _unsure(held: HeldEmail, token: str) -> str:
    """Not sent again: the owner says whether it went (the card's Send again sends it once more)."""
    reason = ("Roadstar was handing it to the mail server when it stopped, and the server can't be asked whether "
              "it took it.")
    with transaction.atomic():
        if not HeldEmail.objects.filter(pk=held.pk, state=HeldEmail.State.SENDING, claim=token).update(
            state=HeldEmail.State.UNSURE, claim="", last_error=reason
        ):
            return "lost"
        card_open(
            org=held.organization, kind=Card.Kind.TRY_AGAIN, subject=_card_subject(held.pk),
            title=f"Did this email go? {held.subject}"[:300],
            body=f"To {', '.join(held.to + held.cc)}, from {held.connection.account}. {reason} It may have gone: "
                 "look for it in your sent mail, or ask them. Send again only if it didn't, or it arrives twice.",
            action_label="Send again", data={"held_email_id": str(held.pk), "tool": "mail.send", "unsure": True},
        )
    return "unsure"


def email_send(held_id, *, now: datetime.datetime | None = None) -> str:
    """One worker's try at a held email: "sent", "retrying", "failed", "unsure" (the owner is asked), or "skipped"
    when it isn't this worker's. Runs with no transaction open: the claim is committed before any network call."""
    network_call("sending a held email")
    now = now or timezone.now()
    token = _claim(held_id, now)
    if token is None:
        return "skipped"
    held = HeldEmail.objects.select_related("organization", "connection").get(pk=held_id)
    try:
        with kept():  # the reconnect card a reauth error points to stands
            sent = _deliver(held, token, now)
    except _Lost:
        return "lost"
    except _Unsure:
        return _unsure(held, token)
    except ToolError as error:
        return _after_failure(held, token, error, now)
    except Exception as error:  # a failure nothing mapped (a bug, a library's own error): it may have gone
        logger.exception("sending held email %s failed", held_id)
        return _after_failure(
            held, token, ToolError("unknown_outcome", f"It may not have gone ({error.__class__.__name__})."), now
        )
    return "sent" if _mark_sent(held, token, sent, now) else "lost"


def email_sweep(*, now: datetime.datetime | None = None) -> int:
    """Send what is due, and take over what a dead worker left in `sending`. Returns how many it sent."""
    now = now or timezone.now()
    due = list(
        HeldEmail.objects.filter(
            Q(state=HeldEmail.State.HELD, send_at__lte=now)
            | Q(state=HeldEmail.State.SENDING, claimed_at__lt=now - LEASE)
        ).order_by("send_at").values_list("id", flat=True)[:SWEEP_BATCH]
    )
    return sum(1 for held_id in due if email_send(held_id, now=now) == "sent")


def email_try_again(*, org, held_id) -> HeldEmail:
    """Home's Try again on a failed email: it goes now (after a look in sent mail, as every retry). On an unsure
    one (Send again) the owner has said it didn't go: it is sent once more without asking again."""
    held = HeldEmail.objects.filter(organization=org, pk=held_id).first()
    if held is None:
        raise ToolError("not_found", "No such held email in this workspace.")
    now = timezone.now()
    with transaction.atomic():
        won = HeldEmail.objects.filter(pk=held.pk, state=HeldEmail.State.FAILED).update(
            state=HeldEmail.State.HELD, send_at=now, tries=0, last_error=""
        ) or HeldEmail.objects.filter(pk=held.pk, state=HeldEmail.State.UNSURE).update(
            state=HeldEmail.State.HELD, send_at=now, tries=0, last_error="", handed_off_at=None
        )
        Card.objects.filter(organization=org, subject=_card_subject(held.pk), resolved_at__isnull=True).update(
            resolved_at=now
        )
        if won:
            from django_q.tasks import async_task

            transaction.on_commit(lambda: async_task(SEND_TASK, str(held.pk)))
    held.refresh_from_db()
    return held


# --- on Home --------------------------------------------------------------------------------------------------

HOME_SHOWN = 50


def held_lines(org) -> list[HeldLine]:
    """Home's held emails, each with its countdown and the Undo of the mail.send that held it (three queries)."""
    waiting = list(HeldEmail.objects.filter(organization=org, state=HeldEmail.State.HELD).order_by("send_at")[
        :HOME_SHOWN])
    if not waiting:
        return []
    changes = {
        change.target_id: change
        for change in Change.objects.filter(organization=org, tool="mail.send", target_type="email",
                                            target_id__in=[str(h.id) for h in waiting], undone_at__isnull=True)
    }
    addresses = {a.lower() for held in waiting for a in held.to + held.cc}
    names = dict(
        ContactEmail.objects.filter(organization=org).annotate(low=Lower("email")).filter(low__in=addresses)
        .values_list("low", "contact__name")
    )
    lines = []
    for held in waiting:
        change = changes.get(str(held.pk))
        if change is None:
            continue  # held without a change to undo (not by mail.send): nothing to offer
        whom = [names.get(a.lower(), a) for a in held.to + held.cc]
        who = whom[0] if len(whom) == 1 else f"{', '.join(whom[:-1])} and {whom[-1]}"
        lines.append(HeldLine(
            id=str(change.id), text=f"{held.actor_name} is sending {who} “{held.subject}”", held_until=held.send_at,
            undo_url=reverse("change_undo", args=[change.id]), open_url=reverse("held_email", args=[held.id]),
        ))
    return lines
