"""Concurrent writes through the API lose nothing: each PATCH that merges into a JSON field (a contact's `fields`,
a company's `details`) reads the row under its lock, so the next one merges into what the last one wrote.

Real threads and real transactions, on whichever database the suite runs on: CI runs it on SQLite (IMMEDIATE
transactions: the write lock is taken at BEGIN, before the read) and on PostgreSQL (select_for_update).
"""

from __future__ import annotations

import pytest

from records.models import Company, Contact, LogEntry
from tests.api.conftest import client_for
from tests.concurrency import all_at_once, in_a_thread, threads_on_a_file
from tests.factories import AgentFactory, CompanyFactory, ContactFactory, OrganizationFactory

WRITERS = 20


@pytest.fixture
def workspace(transactional_db):
    org = OrganizationFactory(name="Fernhill Studio", owner_name="Sam Rivera", owner_email="sam@fernhill.test")
    AgentFactory(organization=org, name="Roadstar", is_roadstar=True)
    return org


def test_concurrent_patches_of_a_contacts_fields_all_survive(workspace):
    contact = ContactFactory(organization=workspace, name="Dana Whitfield")
    clients = [client_for(workspace) for _ in range(WRITERS)]
    with threads_on_a_file():
        answers = all_at_once([
            (lambda c=c, i=i: c.patch(f"/api/contacts/{contact.id}/", {"fields": {f"f{i}": str(i)}}, format="json"))
            for i, c in enumerate(clients)
        ])
        fields, logged = in_a_thread(lambda: (
            Contact.objects.get(id=contact.id).fields,
            LogEntry.objects.filter(contact_id=contact.id, kind="updated").count(),
        ))
    assert [a.status_code for a in answers] == [200] * WRITERS
    assert (fields, logged) == ({f"f{i}": str(i) for i in range(WRITERS)}, WRITERS)


def test_concurrent_patches_of_a_companys_details_all_survive(workspace):
    company = CompanyFactory(organization=workspace, name="Juniper Dental")
    clients = [client_for(workspace) for _ in range(WRITERS)]
    with threads_on_a_file():
        answers = all_at_once([
            (lambda c=c, i=i: c.patch(f"/api/companies/{company.id}/", {"details": {f"d{i}": str(i)}}, format="json"))
            for i, c in enumerate(clients)
        ])
        details = in_a_thread(lambda: Company.objects.get(id=company.id).details)
    assert [a.status_code for a in answers] == [200] * WRITERS
    assert details == {f"d{i}": str(i) for i in range(WRITERS)}
