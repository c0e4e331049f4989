"""The owner's workspace and Home: Organization, the Your-work lines (Change) and the Waiting-for-you cards."""

import datetime
import uuid
from typing import Any

from django.conf import settings
from django.db import models

from core import crypto
from core.inputs import Uuid


class Organization(models.Model):
    """One owner's workspace. Every record in Roadstar belongs to exactly one, and every query is scoped by it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    owner = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="organization")
    owner_name = models.CharField(max_length=200, help_text="The owner's full name, as agents address them.")
    owner_email = models.EmailField(blank=True)
    time_zone = models.CharField(max_length=64, default="America/New_York")
    about = models.TextField(blank=True, help_text="What every agent should know about the owner and the business.")
    check_enabled = models.BooleanField(default=True, help_text="Off: every action runs without the owner's yes.")

    class WithoutJudge(models.TextChoices):
        ASK = "ask", "Ask me"
        RUN = "run", "Let it run"

    # The check's rules decide most actions; the rest go to a judge model (checks.judge.configured_judge). With no
    # model connected, the owner chooses what happens to those: asked (the safe default), or run.
    without_judge = models.CharField(
        max_length=3, choices=WithoutJudge.choices, default=WithoutJudge.ASK,
        verbose_name="with no judge model set up",
        help_text="What the owner's-yes check does with an action its rules can't decide while no judge model is "
                  "set up: ask you first (the default), or let it run. What its rules decide (a password going "
                  "out, someone you marked always ask) holds either way.",
    )
    domains = models.JSONField(default=list, blank=True, help_text="The business's own mail domains.")
    payment_details = models.JSONField(
        default=list, blank=True, help_text="The business's own payment details, which agents may send."
    )
    summary_time = models.TimeField(default=datetime.time(7, 0), help_text="When the morning summary is written.")
    last_summary_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def owner_first_name(self) -> str:
        return (self.owner_name.split() or ["the owner"])[0]


# The listings Home's Your work shows; its partial index (change_home_order_idx) is made for exactly these.
HOME_LISTING_VALUES = ("home", "home_undo")  # Change.Listing.HOME and HOME_UNDO


class Change(models.Model):
    """One change a tool made: a line on Home's Your work, or an entry behind the record's own log.

    It keeps what Undo needs (`undo`: the tool's own data, such as the values before and after), so Undo can
    restore exactly what was there, or answer `changed` when the thing moved on since.
    """

    class Listing(models.TextChoices):
        HOME = "home", "listed on Home"
        HOME_UNDO = "home_undo", "listed on Home, with Undo"
        RECORD = "record", "shows on the record itself"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="changes")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor_kind = models.CharField(max_length=10)
    actor_id = models.CharField(max_length=64)
    actor_name = models.CharField(max_length=200)
    tool = models.CharField(max_length=80)
    kind = models.CharField(max_length=10, help_text="What the action did: makes, changes, deletes or sends.")
    sentence = models.CharField(max_length=500)
    listing = models.CharField(max_length=10, choices=Listing.choices)
    target_type = models.CharField(max_length=40, blank=True)
    target_id = models.CharField(max_length=200, blank=True)
    undo = models.JSONField(null=True, blank=True, help_text="What the tool's undo needs; null when it has none.")
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The Undo's own record."
    )
    undoes = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="What this Undo undid."
    )
    conversation_id = models.CharField(max_length=64, blank=True, help_text="The chat or thread that made it.")
    work_id = models.CharField(max_length=64, blank=True, help_text="The piece of work it was part of.")
    # Only a record this change brought into being counts as made by its piece of work, which the owner's yes
    # then lets that work change freely. A note, a follow-up, a link or an edit on a record that was there
    # touches it without making it (its kind may still be "makes": the note is new, the contact is not).
    created = models.BooleanField(
        default=False, help_text="The target is a record this change created, not one that was there before."
    )

    class Meta:
        ordering = ["-at"]
        indexes = [
            models.Index(fields=["organization", "listing", "-at"], name="change_home_idx"),
            # Home's Your work: its lines (two listings) in the page's order, so the database reads the 50 shown
            # and stops; with the listing in the key the two listings' rows had to be sorted together first. The
            # condition is the page's own filter, word for word, so SQLite and PostgreSQL can use it.
            models.Index(
                fields=["organization", "-at", "-id"], name="change_home_order_idx",
                condition=models.Q(listing__in=HOME_LISTING_VALUES),
            ),
        ]

    def __str__(self) -> str:
        return self.sentence

    @property
    def can_undo(self) -> bool:
        return undo_possible(undo=self.undo, undone_at=self.undone_at, undoes_id=self.undoes_id)


def undo_possible(
    *, undo: dict[str, Any] | None, undone_at: datetime.datetime | None, undoes_id: Uuid | None
) -> bool:
    """Whether a change can still be undone, from its columns alone (Home reads its lines as rows, not Changes)."""
    # `gone`: what the change did can't be called back any more (an email that went after its hold). The undo
    # stays, so an Undo from a page shown before answers why.
    return undo is not None and not undo.get("gone") and undone_at is None and undoes_id is None


class Card(models.Model):
    """A card on Home's Waiting for you: something only the owner can do (connect an app, raise a budget, …)."""

    class Kind(models.TextChoices):
        CONNECT = "connect", "Connect an app"
        RECONNECT = "reconnect", "Connect an app again"
        BUDGET = "budget", "Raise a budget"
        TRY_AGAIN = "try_again", "Work that couldn't finish"
        ASK = "ask", "An agent asks"
        TEMPLATE = "template", "A template proposed"
        MODEL = "model", "Connect a model"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="cards")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    title = models.CharField(max_length=300)
    body = models.TextField(blank=True)
    action_label = models.CharField(max_length=80, blank=True)
    action_url = models.CharField(max_length=500, blank=True)
    data = models.JSONField(default=dict, blank=True)
    # One open card per subject (an app, an agent's budget …): asking twice must not stack cards.
    subject = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "resolved_at"], name="card_open_idx")]
        constraints = [
            # One open card per subject, even when two workers open it at once.
            models.UniqueConstraint(
                fields=["organization", "subject"],
                condition=models.Q(resolved_at__isnull=True) & ~models.Q(subject=""),
                name="one_open_card_per_subject",
            )
        ]

    def __str__(self) -> str:
        return self.title


class ModelEndpoint(models.Model):
    """The AI model a workspace's agents work with, as the owner set it on Settings: no terminal, no restart (the
    agents' model client reads it at each turn: core.model_endpoint). What the server's environment sets
    (OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_<ID>) wins over it, setting by setting."""

    organization = models.OneToOneField(Organization, on_delete=models.CASCADE, related_name="model_endpoint")
    base_url = models.CharField(max_length=500, blank=True, help_text="The OpenAI-compatible endpoint's address.")
    # Fernet ciphertext of {"key": ...} (core.crypto, like the apps' tokens); never plaintext, never shown back.
    api_key = models.TextField(blank=True)
    names = models.JSONField(default=dict, blank=True, help_text="Each Roadstar model id: the endpoint's model name.")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.base_url or "OpenAI"

    def read_key(self) -> str:
        return crypto.decrypt(self.api_key).get("key", "") if self.api_key else ""
