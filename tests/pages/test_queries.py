"""A list page costs the same number of queries for 50 rows as for 5 (and a record's page for 50 log entries,
people, conversations or notes as for 5)."""

from __future__ import annotations

import datetime
import decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from agents.models import Usage
from records.models import CompanyPerson, DocNote, DocVersion, LogEntry, OpenItem, TimelineEntry
from routines.models import Routine, Skill
from tests.factories import AgentFactory, CompanyFactory, ContactFactory, DocFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def queries(owner, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = owner.get(url)
    assert response.status_code == 200
    return len(captured)


def costs(owner, url: str, add, counts=(5, 50)) -> tuple[int, int]:
    """Queries of the page once it has counts[0] rows, then once it has counts[1]."""
    made, seen = 0, []
    for count in counts:
        add(made, count)
        made = count
        seen.append(queries(owner, url))
    return tuple(seen)


def test_contacts_list(owner, org):
    agent = AgentFactory(organization=org, name="Desk")
    company = CompanyFactory(organization=org, name="Juniper")

    def add(start, stop):
        for i in range(start, stop):
            contact = ContactFactory(organization=org, name=f"P {i:03}", labels=["Client"], emails=[f"p{i}@x.test"])
            CompanyPerson.objects.create(organization=org, company=company, contact=contact, role="Owner")
            OpenItem.objects.create(organization=org, contact=contact, kind="you", text="Reply", at=timezone.now(),
                                    by_kind="agent", by_id=str(agent.id))

    five, fifty = costs(owner, reverse("pages:contacts"), add)
    assert five == fifty


def test_companies_list(owner, org):
    agent = AgentFactory(organization=org, name="Desk")

    def add(start, stop):
        for i in range(start, stop):
            company = CompanyFactory(organization=org, name=f"Co {i:03}", handler=agent, labels=["Client"])
            contact = ContactFactory(organization=org)
            CompanyPerson.objects.create(organization=org, company=company, contact=contact)
            OpenItem.objects.create(organization=org, company=company, kind="them", text="Pay", at=timezone.now(),
                                    by_kind="user", by_id="1")
            TimelineEntry.objects.create(organization=org, company=company, kind="mail", title="Hi", at=timezone.now(),
                                         by={})

    five, fifty = costs(owner, reverse("pages:companies"), add)
    assert five == fifty


def test_docs_list(owner, org):
    projects = [ProjectFactory(organization=org) for _ in range(3)]

    def add(start, stop):
        for i in range(start, stop):
            DocFactory(organization=org, project=projects[i % 3], title=f"Doc {i:03}")

    five, fifty = costs(owner, reverse("pages:docs"), add, counts=(5, 49))
    assert five == fifty


def test_agents_chart(owner, org):
    def add(start, stop):
        for i in range(start, stop):
            agent = AgentFactory(organization=org, name=f"Agent {i:03}", department=f"Dept {i % 4}",
                                 monthly_budget=decimal.Decimal(50))
            Usage.objects.create(organization=org, agent=agent, model="m", cost=1)

    five, fifty = costs(owner, reverse("pages:agents"), add)
    assert five == fifty


def test_routines_list(owner, org):
    agents = [AgentFactory(organization=org, name=f"Agent {i}") for i in range(3)]

    def add(start, stop):
        for i in range(start, stop):
            agent = agents[i % 3]
            skill = Skill.objects.create(organization=org, agent=agent, slug=f"s{i}", name=f"Skill {i}", steps="1.")
            Routine.objects.create(organization=org, agent=agent, name=f"Routine {i:03}", at="0 9 * * 1", skill=skill,
                                   note="Every Monday", keys=["kind:invoice.overdue"],
                                   due=timezone.now() + datetime.timedelta(days=1))

    five, fifty = costs(owner, reverse("pages:routines"), add)
    assert five == fifty


def test_company_page(owner, org):
    agent = AgentFactory(organization=org, name="Desk")
    company = CompanyFactory(organization=org, name="Juniper", handler=agent)

    def add(start, stop):
        for i in range(start, stop):
            contact = ContactFactory(organization=org, emails=[f"c{i}@j.test"])
            CompanyPerson.objects.create(organization=org, company=company, contact=contact, role="Staff")
            OpenItem.objects.create(organization=org, contact=contact, kind="you", text="Reply", at=timezone.now(),
                                    by_kind="user", by_id="1")
            TimelineEntry.objects.create(organization=org, company=company, kind="call", title=f"Call {i}",
                                         at=timezone.now() - datetime.timedelta(hours=i), by={},
                                         ours=[{"kind": "agent", "id": str(agent.id)}],
                                         people=[{"name": contact.name, "id": str(contact.id)}])
            LogEntry.objects.create(organization=org, company=company, by_kind="agent", by_id=str(agent.id),
                                    kind="note", text=f"Note {i}")

    five, fifty = costs(owner, reverse("pages:company", args=[company.id]), add)
    assert five == fifty


def test_contact_page(owner, org):
    contact = ContactFactory(organization=org, emails=["dana@j.test"])

    def add(start, stop):
        for i in range(start, stop):
            company = CompanyFactory(organization=org)
            CompanyPerson.objects.create(organization=org, company=company, contact=contact)
            OpenItem.objects.create(organization=org, contact=contact, kind="you", text=f"Item {i}", at=timezone.now(),
                                    by_kind="user", by_id="1")
            LogEntry.objects.create(organization=org, contact=contact, by_kind="user", by_id="1", kind="note",
                                    text=f"Note {i}")

    five, fifty = costs(owner, reverse("pages:contact", args=[contact.id]), add)
    assert five == fifty


def test_doc_page(owner, org):
    doc = DocFactory(organization=org)

    def add(start, stop):
        for i in range(start, stop):
            DocVersion.objects.create(doc=doc, number=i + 2, title="t", text="x", lines=["Changed"], by={})
            note = DocNote.objects.create(organization=org, doc=doc, note=f"Note {i}", by={"kind": "user", "id": "1"})
            DocNote.objects.create(organization=org, doc=doc, parent=note, note="Done", by={}, state="done")

    five, fifty = costs(owner, reverse("pages:doc", args=[doc.id]), add)
    assert five == fifty
