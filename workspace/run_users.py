"""Each workspace's own host user for its runs (when Roadstar is root), kept in the database: workspace.RunUser."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max

from core.errors import ToolError
from workspace.models import RunUser


def run_user_for(*, org) -> int:
    """The workspace's own host user for its runs: its row's uid, the next free one from WORKSPACE_UID_BASE made on
    first use. Two workspaces asking at once: the unique uid turns one away, and it takes the next."""
    found = RunUser.objects.filter(organization_id=org.pk).values_list("uid", flat=True).first()
    if found is not None:
        return found
    base = int(settings.WORKSPACE_UID_BASE)
    for _ in range(20):
        highest = RunUser.objects.aggregate(top=Max("uid"))["top"]
        uid = base if highest is None or highest < base else highest + 1
        try:
            with transaction.atomic():
                return RunUser.objects.create(organization_id=org.pk, uid=uid).uid
        except IntegrityError:
            found = RunUser.objects.filter(organization_id=org.pk).values_list("uid", flat=True).first()
            if found is not None:
                return found  # the other one was this workspace's own first use
    raise ToolError("unavailable", "The workspace couldn't be given a user of its own just now; try again.")
