"""Existing workspaces keep the host user their files on disk already belong to (the old base + crc32(id) % 100,000),
so an upgrade leaves no folder its own runs can't write. Where two collided, the later one gets the next free uid:
the two no longer share a process budget (the owner can delete a file its runs can't from the workspace page)."""

import zlib

from django.conf import settings
from django.db import migrations


def keep_existing(apps, schema_editor):
    Organization = apps.get_model("roadstar", "Organization")
    RunUser = apps.get_model("workspace", "RunUser")
    base = int(settings.WORKSPACE_UID_BASE)
    taken = set(RunUser.objects.values_list("uid", flat=True))
    for org_id in Organization.objects.order_by("pk").values_list("pk", flat=True):
        if RunUser.objects.filter(organization_id=org_id).exists():
            continue
        uid = base + zlib.crc32(str(org_id).encode()) % 100_000
        while uid in taken:
            uid = max(taken) + 1
        taken.add(uid)
        RunUser.objects.create(organization_id=org_id, uid=uid)


class Migration(migrations.Migration):
    dependencies = [("workspace", "0001_run_user")]

    operations = [migrations.RunPython(keep_existing, migrations.RunPython.noop)]
