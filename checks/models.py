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
    # The action without its wording (checks/spend.py): a reworded send to the same people is the same action, so a
    # go of it ends the asks about it in its conversation (Home shows them done; their Yes lets nothing go).
    action_key = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    actor_kind = models.CharField(max_length=10, null=True, blank=True)
    actor_id = models.CharField(max_length=64, null=True, blank=True)
    conversation_id = models.CharField(max_length=64, null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["organization", "-created_at"], name="check_decision_org_idx"),
            models.Index(fields=["organization", "fingerprint"], name="check_decision_fp_idx"),
            models.Index(fields=["organization", "action_key"], name="check_decision_key_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.tool}: {self.outcome}" + (f" ({self.reason})" if self.reason else "")


class Ask(models.Model):
    class State(models.TextChoices):
        WAITING = "waiting"
        YES = "yes"
        DECLINED = "declined"
        # The action went (on this yes or on any other): nothing waits for the owner any more, no Yes/No.
        DONE = "done"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="check_asks")
    fingerprint = models.CharField(max_length=64)
    decision = models.ForeignKey(CheckDecision, on_delete=models.CASCADE, related_name="asks")
    state = models.CharField(max_length=8, choices=State.choices, default=State.WAITING)
    answer = models.TextField(blank=True, help_text="The owner's answer, in their words.")
    answered_at = models.DateTimeField(null=True, blank=True)
    # Which of the owner's words answered it: "ask:<id>" (Home's Yes or No), "message:<id>" (a yes typed in a chat
    # and passed to the thread that asked). Spending the yes spends those words too (`SpentYes`).
    answer_ref = models.CharField(max_length=80, blank=True)
    answered_in = models.CharField(max_length=5, blank=True, help_text="home or chat")
    # The action without its wording (the tool, whom a send reaches, the records a change names): a reworded send
    # to the same people is the same action for closing its asks once one run of it went.
    action_key = models.CharField(max_length=64, blank=True)
    # A yes covers one run of the action it answered: the decision that ran on it, once it has (for a closed ask,
    # the run that made it needless).
    used_by = models.ForeignKey(
        CheckDecision, null=True, blank=True, on_delete=models.SET_NULL, related_name="yes_used"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "fingerprint", "state"], name="check_ask_fp_idx")]

    def __str__(self) -> str:
        return f"{self.decision.tool}: {self.state}"


class SpentYes(models.Model):
    """The owner's words of a yes that let one run go: they never let another. `ref` names the words ("message:<id>"
    typed in a chat, carried into a thread; "ask:<id>" answered on Home); one row a yes, so two runs racing on it
    can't both spend it (the second insert fails in the transaction that would let it go)."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    ref = models.CharField(max_length=80)
    decision = models.ForeignKey(CheckDecision, on_delete=models.CASCADE, related_name="spent_yes")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "ref"], name="spent_yes_once")]
        verbose_name_plural = "spent yeses"

    def __str__(self) -> str:
        return f"{self.ref} spent"
