"""The templates a workspace's people shared. Roadstar's own are files (agent_templates/catalogue/)."""

from __future__ import annotations

from django.db import models


class SharedTemplate(models.Model):
    """A template the owner shared from their own agents or one skill, for their workspace's people to add.

    `body` holds it in the catalogue's shape (catalogue.TemplateBody), checked when it is read, so adding a shared
    template runs the same path as adding one of Roadstar's. Its id, as tools show it, is `shared/<slug>`."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    slug = models.SlugField(max_length=80)
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=12)
    says = models.CharField(max_length=300)
    body = models.JSONField()
    version = models.PositiveIntegerField(default=1)
    shared_by = models.CharField(max_length=200, help_text="Who shared it, as search's `from` says.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["organization", "slug"], name="shared_template_slug_unique")]

    def __str__(self):
        return self.name
