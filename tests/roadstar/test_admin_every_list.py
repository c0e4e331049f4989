"""Every list of the staff admin answers, on the example workspace with decisions and meetings in it, and with the
owner's zone active (the owner is staff): a list that groups by date or truncates a time in the database must get
a real zone name from the active zone, not its label."""

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.urls import reverse

from checks.models import CheckDecision
from core.models import Organization
from integrations.local.models_calendar import LocalEvent

REGISTERED = sorted(admin.site._registry, key=lambda m: m._meta.label)


@pytest.fixture
def staff(client, db):
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    org = Organization.objects.get(owner__username="sam")
    org.time_zone = "America/Chicago"
    org.save(update_fields=["time_zone"])
    for n, outcome in enumerate(CheckDecision.Outcome.values):
        CheckDecision.objects.create(organization=org, tool="contacts.context", outcome=outcome, reason="a reason",
                                     decided_by="rules", fingerprint=f"admin-list-{n}", actor_kind="agent",
                                     actor_id="x", conversation_id="y")
    assert LocalEvent.objects.filter(connection__organization=org).exists(), "the example has meetings"
    client.force_login(org.owner)
    return client


@pytest.mark.parametrize("model", REGISTERED, ids=lambda m: m._meta.label)
def test_every_admin_list_answers(staff, model):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    response = staff.get(url)
    assert response.status_code == 200, url
