"""The local mailbox (the owner's mail kept by Roadstar), the emails waiting out their two-minute hold, and the
new-mail watch's cursor for every mail account.

- `LocalMailThread`, `LocalMailMessage`, `LocalMailAttachment`: one local connection's mail. Ids are Gmail-like
  (`key`, 16 hex characters, unique per connection). A message is in one box: inbox (received), sent or draft.
  An attachment's bytes are a blob on disk (integrations.local.mailbox), content-addressed under the org's folder.
  A message's autoincrement id is the order new mail arrived in: the local provider's `changes(cursor)` reads it.
- `HeldEmail`: an email mail.send accepted, waiting on Home for two minutes, then sent exactly once by the worker
  (integrations.mail_hold): held -> sending -> sent / undone / failed, each move a conditional UPDATE.
- `MailWatch`: where the new-mail poll got to for each mail account (local or Gmail): `MailProvider.changes`'s
  cursor.
"""

from __future__ import annotations

import uuid

from django.db import models

__all__ = ["HeldEmail", "LocalMailAttachment", "LocalMailMessage", "LocalMailThread", "MailWatch"]


class LocalMailThread(models.Model):
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=32, help_text="The id after the account key, as Gmail's thread ids are.")
    subject = models.CharField(max_length=998, blank=True)
    last_at = models.DateTimeField(help_text="When its newest message (drafts aside) was sent or received.")

    class Meta:
        ordering = ["-last_at"]
        constraints = [models.UniqueConstraint(fields=["connection", "key"], name="local_mail_thread_key_unique")]
        indexes = [models.Index(fields=["connection", "-last_at"], name="local_mail_thread_newest_idx")]

    def __str__(self):
        return self.subject or self.key


class LocalMailMessage(models.Model):
    class Box(models.TextChoices):
        INBOX = "inbox"
        SENT = "sent"
        DRAFT = "draft"

    id = models.BigAutoField(primary_key=True)
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    thread = models.ForeignKey(LocalMailThread, on_delete=models.CASCADE, related_name="messages")
    key = models.CharField(max_length=32)
    box = models.CharField(max_length=5, choices=Box.choices)
    message_id = models.CharField(max_length=998, blank=True, help_text="The RFC 5322 Message-ID, with its <>.")
    in_reply_to = models.CharField(max_length=998, blank=True)
    references = models.TextField(blank=True)
    sender = models.CharField(max_length=998, help_text='"Dana Whitfield <dana@juniperdental.test>"')
    to = models.JSONField(default=list, blank=True)
    cc = models.JSONField(default=list, blank=True)
    bcc = models.JSONField(default=list, blank=True)
    # Every name and address on it, lower case: what from:/to: and free words match.
    people = models.TextField(blank=True)
    date = models.DateTimeField()
    subject = models.CharField(max_length=998, blank=True)
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["date", "id"]
        constraints = [models.UniqueConstraint(fields=["connection", "key"], name="local_mail_message_key_unique")]
        indexes = [
            models.Index(fields=["connection", "message_id"], name="local_mail_message_id_idx"),
            models.Index(fields=["connection", "box", "id"], name="local_mail_box_idx"),
        ]

    def __str__(self):
        return f"{self.sender}: {self.subject}"


class LocalMailAttachment(models.Model):
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    message = models.ForeignKey(LocalMailMessage, on_delete=models.CASCADE, related_name="attachments")
    key = models.CharField(max_length=32)
    name = models.CharField(max_length=255)
    mime_type = models.CharField(max_length=255, default="application/octet-stream")
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64, help_text="Its bytes' blob under the org's mail folder.")

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["connection", "key"], name="local_mail_attachment_key_unique")]

    def __str__(self):
        return self.name


class HeldEmail(models.Model):
    """An email mail.send accepted: on Home with Undo for two minutes, then sent once by the worker."""

    class State(models.TextChoices):
        HELD = "held"  # waiting out the hold (or a retry's wait): Undo still stops it
        SENDING = "sending"  # a worker claimed it; if that worker died, the sweep checks sent mail first
        SENT = "sent"
        UNDONE = "undone"
        FAILED = "failed"  # failed after its tries: a Try again card is on Home
        # A worker stopped while handing it to a mail app that can't say whether it took it (the local mailbox's
        # SMTP server): it may have gone. Sending it again could send it twice, so a card asks the owner.
        UNSURE = "unsure"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField(help_text="The hold's number in the workspace: mail.send's held.trigger.")
    state = models.CharField(max_length=8, choices=State.choices, default=State.HELD)
    send_at = models.DateTimeField(help_text="When it goes (the end of the hold, or of a retry's wait).")
    goes_at = models.DateTimeField(help_text="The end of the two-minute hold, as the owner was told.")
    message_id = models.CharField(max_length=255, unique=True, help_text="The Message-ID it goes with, kept so a "
                                  "worker that died mid-send can find it in sent mail before sending again.")
    to = models.JSONField(default=list)
    cc = models.JSONField(default=list, blank=True)
    subject = models.CharField(max_length=998, blank=True)
    text = models.TextField()
    thread_id = models.CharField(max_length=300, blank=True, help_text="The app's own thread id when replying.")
    signature = models.BooleanField(default=True)
    attachments = models.JSONField(default=list, blank=True, help_text="[{name, mime_type, size, sha256}]")
    actor_kind = models.CharField(max_length=10)
    actor_id = models.CharField(max_length=64)
    actor_name = models.CharField(max_length=200)
    conversation_id = models.CharField(max_length=64, blank=True)
    log_entries = models.JSONField(default=list, blank=True, help_text="The contacts' \"sent\" log entries' ids.")
    attempts = models.PositiveIntegerField(default=0, help_text="Every claim ever; above 1, sent mail is checked.")
    handed_off_at = models.DateTimeField(
        null=True, blank=True, help_text="When a worker began handing it to the mail app, written (and committed) "
        "before the hand-off: a worker that stops after this may have sent it. Cleared when the app says no.")
    tries = models.PositiveIntegerField(default=0, help_text="Claims since it was held or tried again.")
    claim = models.CharField(max_length=32, blank=True, help_text="The claiming worker's token.")
    claimed_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    sent_message_id = models.CharField(max_length=300, blank=True)
    sent_thread_id = models.CharField(max_length=300, blank=True)
    undone_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "number"], name="held_email_number_unique_per_org"),
        ]
        indexes = [
            models.Index(fields=["state", "send_at"], name="held_email_due_idx"),
            models.Index(fields=["state", "claimed_at"], name="held_email_stale_idx"),
        ]

    def __str__(self):
        return f"{self.subject} ({self.state})"


class MailWatch(models.Model):
    """Where the new-mail watch of one mail connection has got to: the provider's own cursor."""

    connection = models.OneToOneField("integrations.Connection", on_delete=models.CASCADE, related_name="mail_watch")
    cursor = models.CharField(max_length=500, blank=True)
    polled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "mail watches"

    def __str__(self):
        return f"mail watch of {self.connection_id}"
