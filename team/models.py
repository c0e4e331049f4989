"""The owner's agents as records: Roadstar and the agents it makes, their job descriptions and the chart.

The records below the agents app (a company's handler, an agent's own project) link to an Agent, so the model
lives here, under them; the agents app (above tools) runs them.
"""

import uuid

from django.db import models
from django.db.models.functions import Lower


class Agent(models.Model):
    class Model(models.TextChoices):
        LUNA = "gpt-6-luna", "GPT-6 Luna"
        TERRA = "gpt-6.1-terra", "GPT-6.1 Terra"
        SOL = "gpt-6.1-sol", "GPT-6.1 Sol"
        ASTRA = "gpt-6-astra", "GPT-6 Astra"

    class Thinking(models.TextChoices):
        LOW = "low", "low"
        MEDIUM = "medium", "medium"
        HIGH = "high", "high"

    class RunsOn(models.TextChoices):
        ROADSTAR = "roadstar", "Roadstar"
        MAC = "mac", "the owner's Mac"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="agents")
    name = models.CharField(max_length=80)
    is_roadstar = models.BooleanField(default=False, help_text="The owner's chief of staff; never removable.")
    job = models.CharField(max_length=300, blank=True)
    owns = models.TextField(blank=True)
    good = models.TextField(blank=True)
    works = models.TextField(blank=True)
    asks_first = models.TextField(blank=True)
    model = models.CharField(max_length=20, choices=Model.choices, default=Model.TERRA)
    thinking = models.CharField(max_length=10, choices=Thinking.choices, default=Thinking.MEDIUM)
    reports_to = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reports")
    department = models.CharField(max_length=80, blank=True)
    monthly_budget = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    notes = models.JSONField(default=list, blank=True)
    paused = models.BooleanField(default=False)
    runs_on = models.CharField(max_length=10, choices=RunsOn.choices, default=RunsOn.ROADSTAR)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # The table the agents app made: the model moved here without moving a row (team/migrations/0001).
        db_table = "agents_agent"
        ordering = ["-is_roadstar", "name"]
        constraints = [
            models.UniqueConstraint("organization", Lower("name"), name="agent_name_unique_per_org"),
            models.UniqueConstraint(
                fields=["organization"], condition=models.Q(is_roadstar=True), name="one_roadstar_per_org"
            ),
        ]

    def __str__(self):
        return self.name
