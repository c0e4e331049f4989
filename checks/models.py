"""Every decision the check made, and the asks waiting for (or answered by) the owner.

A `CheckDecision` is kept for every checked action, with its reason and the owner's words it relied on, so the
owner and staff can audit why something ran or was held back. An `Ask` is the owner's yes waiting to be given:
stored against the fingerprint of the action that was held back, it lets exactly that action run once answered.
"""

import uuid

from django.db import models


class CheckDecision(models.Model):
    class Outcome(models.TextChoices):
        GO = "go"
        ASK = "ask"
        STOP = "stop"

    class DecidedBy(models.TextChoices):
        RULES = "rules"
        JUDGE = "judge"
        OFF = "off", "check turned off"
        OWNER = "owner", "no judge set up: the owner lets it run"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="check_decisions")
    tool = models.CharField(max_length=80)
    input = models.JSONField(default=dict, blank=True)
    replaces = models.JSONField(null=True, blank=True)
    # The note the tool carried for the check to weigh (a cost), which the owner reads with the ask.
    note = models.TextField(blank=True)
    outcome = models.CharField(max_length=4, choices=Outcome.choices)
    reason = models.CharField(max_length=120, blank=True)
    relied_on = models.JSONField(default=list, blank=True, help_text="The owner's and routines' words it relied on.")
    decided_by = models.CharField(max_length=5, choices=DecidedBy.choices)
    judge_used = models.BooleanField(default=False)
    fingerprint = models.CharField(
        max_length=64,
        help_text="sha256 of the action as a yes covers it: its tool and whole input, and what it replaces.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    actor_kind = models.CharField(max_length=10, null=True, blank=True)
    actor_id = models.CharField(max_length=64, null=True, blank=True)
    conversation_id = models.CharField(max_length=64, null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["organization", "-created_at"], name="check_decision_org_idx"),
            models.Index(fields=["organization", "fingerprint"], name="check_decision_fp_idx"),
        ]

    def __str__(self):
        return f"{self.tool}: {self.outcome}" + (f" ({self.reason})" if self.reason else "")


class Ask(models.Model):
    class State(models.TextChoices):
        WAITING = "waiting"
        YES = "yes"
        DECLINED = "declined"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="check_asks")
    fingerprint = models.CharField(max_length=64)
    decision = models.ForeignKey(CheckDecision, on_delete=models.CASCADE, related_name="asks")
    state = models.CharField(max_length=8, choices=State.choices, default=State.WAITING)
    answer = models.TextField(blank=True, help_text="The owner's answer, in their words.")
    answered_at = models.DateTimeField(null=True, blank=True)
    # A yes covers one run of the action it answered: the decision that ran on it, once it has.
    used_by = models.ForeignKey(
        CheckDecision, null=True, blank=True, on_delete=models.SET_NULL, related_name="yes_used"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "fingerprint", "state"], name="check_ask_fp_idx")]

    def __str__(self):
        return f"{self.decision.tool}: {self.state}"
