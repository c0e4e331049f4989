"""The host user each workspace's runs are made as when Roadstar is root: one of its own, kept here so it is unique.

A number worked out from the workspace's id (a base plus a hash, folded into 100,000 slots) let two workspaces
share one user, and with it one process budget and each other's files on the host side. A row per workspace, with
a unique uid handed out in order, can't: the database refuses a second workspace the same number."""

from django.db import models


class RunUser(models.Model):
    organization = models.OneToOneField("roadstar.Organization", on_delete=models.CASCADE,
                                        related_name="workspace_user")
    uid = models.PositiveIntegerField(unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"uid {self.uid}"
