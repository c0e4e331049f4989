"""Worker tasks for mail, each safe to run twice and in several workers at once.

- `send_held(id)`: scheduled for the end of an email's two-minute hold; sends it once (integrations.mail_hold).
- `sweep()`: every minute, what is due and what a dead worker left half-sent.
- `poll()`: every minute, new mail in each account (Gmail's history, the local mailbox's new rows) as events
  `kind:mail.received` with `from:`, `domain:`, `with:` and `thread:` keys, and the email's sender, subject and
  text as the event's text for routines' `ask`. Each account's cursor moves by compare-and-set in the same
  transaction as its events, so two workers polling at once tell of each email once.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from core.errors import ToolError
from integrations import mail_hold
from integrations.durable import kept
from integrations.local.models_mail import MailWatch
from integrations.mail_service import mail_provider
from integrations.mail_text import address_list, owner_addresses, plain_address, strip_quoted
from integrations.models import Connection
from integrations.providers.base import MailMessage
from integrations.signals import event_emit

logger = logging.getLogger(__name__)

EVENT_TEXT = 4000  # what of an email the ask matching reads

# (task, schedule name, every so many minutes): `manage.py schedule_ticks` makes a django-q schedule of each.
SCHEDULES = (
    ("integrations.tasks_mail.sweep", "held emails sweep", 1),
    ("integrations.tasks_mail.poll", "new mail", 1),
)


def send_held(held_id: str) -> str:
    return mail_hold.email_send(held_id)


def sweep() -> int:
    return mail_hold.email_sweep()


# --- new mail -------------------------------------------------------------------------------------------------


def mail_event_keys(message: MailMessage, owner: set[str]) -> list[str]:
    """from: the sender; domain: the sender's domain; with: everyone on it but the owner; thread: its thread id."""
    sender = plain_address(message.sender)
    keys = [f"from:{sender}"]
    if "@" in sender:
        keys.append(f"domain:{sender.rsplit('@', 1)[1]}")
    for _, address in address_list([message.sender, *message.to, *message.cc]):
        if address not in owner:
            keys.append(f"with:{address}")
    keys.append(f"thread:{message.thread_id}")
    return list(dict.fromkeys(keys))


def mail_event_text(message: MailMessage) -> str:
    return f"From: {message.sender}\nSubject: {message.subject}\n\n{strip_quoted(message.text)}"[:EVENT_TEXT]


def mail_event_payload(message: MailMessage, connection: Connection) -> dict:
    return {"id": message.id, "threadId": message.thread_id, "from": message.sender, "subject": message.subject,
            "source": connection.account}


def poll_connection(connection: Connection, *, provider=None) -> int:
    """Tell of one account's new mail since its cursor; returns how many events it made. The first poll of an
    account only starts watching: mail that was there before isn't new."""
    watch, _ = MailWatch.objects.get_or_create(connection=connection)
    provider = provider or mail_provider(connection)
    with kept():  # a reauth card stands
        changes = provider.changes(watch.cursor or None)
    owner = owner_addresses(connection)
    org = connection.organization
    made = 0
    with transaction.atomic():
        won = MailWatch.objects.filter(pk=watch.pk, cursor=watch.cursor).update(
            cursor=changes.cursor, polled_at=timezone.now()
        )
        if not won:
            return 0  # another worker told of this stretch already
        for message in changes.items:
            if plain_address(message.sender) in owner:
                continue
            event_emit(org=org, kind="mail.received", keys=mail_event_keys(message, owner),
                       payload=mail_event_payload(message, connection), text=mail_event_text(message))
            made += 1
    return made


def poll() -> int:
    made = 0
    rows = Connection.objects.filter(status=Connection.Status.CONNECTED).select_related("organization")
    for connection in rows:
        if not connection.serves("mail"):
            continue
        try:
            made += poll_connection(connection)
        except ToolError as error:  # a stopped sign-in: its card is on Home; the next poll tries again
            logger.info("polling %s for new mail: %s", connection.account_key, error.message)
        except Exception:  # one account failing (a stopped sign-in, Gmail down) never stops the others
            logger.exception("polling %s for new mail failed", connection.account_key)
    return made
