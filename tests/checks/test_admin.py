"""Staff can audit every decision and ask in the admin: listed, searchable, filterable."""

import pytest
from django.contrib.auth import get_user_model

from checks.models import Ask, CheckDecision

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    client.force_login(get_user_model().objects.create(username="staff", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def held(org):
    decision = CheckDecision.objects.create(
        organization=org, tool="mail.send", input={"to": ["x@else.test"]}, outcome="ask",
        reason="it goes to someone the owner hasn't named", decided_by="rules", fingerprint="f" * 64,
    )
    Ask.objects.create(organization=org, fingerprint="f" * 64, decision=decision)
    return decision


def test_decisions_are_listed_with_their_reason(staff_client, held):
    page = staff_client.get("/admin/checks/checkdecision/", {"q": "mail.send", "outcome__exact": "ask"})
    assert page.status_code == 200 and "it goes to someone the owner hasn" in page.content.decode()


def test_a_decision_opens_with_its_asks(staff_client, held):
    page = staff_client.get(f"/admin/checks/checkdecision/{held.id}/change/")
    assert page.status_code == 200 and "waiting" in page.content.decode().lower()


def test_asks_are_listed_by_state(staff_client, held):
    page = staff_client.get("/admin/checks/ask/", {"state__exact": "waiting"})
    assert page.status_code == 200 and "mail.send" in page.content.decode()
