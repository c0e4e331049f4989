"""contacts.services: the writes, their logs, and how they hold up to a race and to a big batch."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from freezegun import freeze_time

from contacts import services
from core.actors import Actor
from core.errors import ToolError
from records.models import Company, ContactEmail, LogEntry, ProjectLink
from tests.factories import CompanyFactory, ContactFactory, ProjectFactory


@pytest.fixture
def actor(agent):
    return Actor.for_agent(agent)


def people(n, start=0):
    return [
        services.PersonIn(
            row=i, name=f"P{i}", emails=[f"p{i}@x.test"], labels=["Client"], company=f"Co {start + i % 3}", role="Owner"
        )
        for i in range(start, start + n)
    ]


def test_add_many_costs_the_same_queries_for_50_people_as_for_5(org, actor):
    with CaptureQueriesContext(connection) as five:
        services.contact_add_many(org=org, actor=actor, people=people(5))
    with CaptureQueriesContext(connection) as fifty:
        services.contact_add_many(org=org, actor=actor, people=people(50, start=100))
    assert len(fifty) == len(five)


def test_add_many_makes_no_company_for_a_row_it_does_not_add(org, actor):
    ContactFactory(organization=org, emails=["dana@x.test"])
    row = services.PersonIn(row=0, name="Dana", emails=["dana@x.test"], company="Juniper Dental")
    services.contact_add_many(org=org, actor=actor, people=[row])
    assert Company.objects.count() == 0


def test_add_many_reports_the_companies_it_made(org, actor):
    CompanyFactory(organization=org, name="Co 0")
    outcome = services.contact_add_many(org=org, actor=actor, people=people(3))
    assert sorted(c.name for c in outcome.companies_made) == ["Co 1", "Co 2"]


def test_add_many_losing_a_race_for_an_address_is_changed(org, actor, monkeypatch):
    ContactFactory(organization=org, emails=["p0@x.test"])
    monkeypatch.setattr(services, "emails_taken", lambda **kwargs: {})
    with pytest.raises(ToolError) as raised:
        services.contact_add_many(org=org, actor=actor, people=people(1))
    assert raised.value.kind == "changed"


def test_create_losing_a_race_for_an_address_is_changed(org, actor, monkeypatch):
    ContactFactory(organization=org, emails=["dana@x.test"])
    monkeypatch.setattr(services, "emails_taken", lambda **kwargs: {})
    with pytest.raises(ToolError) as raised:
        services.contact_create(org=org, actor=actor, name="Dana", emails=["DANA@x.test"])
    assert raised.value.kind == "changed"


def test_create_raises_contact_exists_naming_the_contact(org, actor):
    dana = ContactFactory(organization=org, emails=["dana@x.test"])
    with pytest.raises(services.ContactExists) as raised:
        services.contact_create(org=org, actor=actor, name="D", emails=["Dana@X.test"])
    assert (raised.value.contact, raised.value.email) == (dana, "dana@x.test")


def test_create_drops_repeated_and_blank_addresses(org, actor):
    contact = services.contact_create(org=org, actor=actor, name="Dana", emails=["d@x.test", " ", "D@x.test"])
    assert list(ContactEmail.objects.filter(contact=contact).values_list("email", flat=True)) == ["d@x.test"]


def test_changes_are_empty_when_values_are_as_given(org):
    dana = ContactFactory(organization=org, name="Dana", emails=["d@x.test"], labels=["Client"], fields={"k": 1})
    changes = {"name": "Dana", "emails": ["d@x.test"], "labels": ["Client"], "phone": "", "fields": {"k": 1, "z": None}}
    assert services.contact_changes(dana, changes) == []


def test_update_logs_a_taken_off_field_as_taken_off(org, actor):
    dana = ContactFactory(organization=org, fields={"birthday": "03-14"})
    services.contact_update(org=org, actor=actor, contact=dana, changes={"fields": {"birthday": None}})
    entry = LogEntry.objects.get(contact=dana)
    assert (entry.text, entry.before, entry.after) == ("Took off birthday", "03-14", None)


def test_update_losing_a_race_for_an_address_is_changed(org, actor, monkeypatch):
    ContactFactory(organization=org, emails=["rosa@x.test"])
    dana = ContactFactory(organization=org, emails=["dana@x.test"])
    monkeypatch.setattr(services, "emails_taken", lambda **kwargs: {})
    with pytest.raises(ToolError) as raised:
        services.contact_update(org=org, actor=actor, contact=dana, changes={"emails": ["rosa@x.test"]})
    assert raised.value.kind == "changed"


def test_update_bumps_updated_at_when_only_addresses_change(org, actor):
    with freeze_time("2026-11-01T00:00:00Z"):
        dana = ContactFactory(organization=org, emails=["dana@x.test"])
    with freeze_time("2026-11-02T00:00:00Z"):
        services.contact_update(org=org, actor=actor, contact=dana, changes={"emails": ["d@x.test"]})
    dana.refresh_from_db()
    assert dana.updated_at == datetime.datetime(2026, 11, 2, tzinfo=datetime.UTC)


# A name, phone or job title update is one compare-and-set statement when the row still holds what was read
# (core.locking.set_if_unchanged); when it doesn't, the row is locked and read again, as for every other update.


def test_update_of_a_job_title_read_as_it_still_is_is_one_statement(org, actor):
    dana = ContactFactory(organization=org, job_title="Office manager")
    with CaptureQueriesContext(connection) as queries:
        services.contact_update(org=org, actor=actor, contact=dana, changes={"job_title": "Practice manager"})
    writes = [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert [sql.split()[0] for sql in writes] == ["UPDATE", "INSERT"]  # the contact, its log entry


def test_update_of_a_job_title_changed_since_it_was_read_logs_what_was_there(org, actor):
    dana = ContactFactory(organization=org, job_title="Office manager")
    stale = type(dana).objects.get(id=dana.id)
    services.contact_update(org=org, actor=actor, contact=dana, changes={"job_title": "Dentist"})
    services.contact_update(org=org, actor=actor, contact=stale, changes={"job_title": "Practice manager"})
    entry = LogEntry.objects.filter(contact=dana).order_by("at", "id").last()
    assert (entry.before, entry.after, stale.job_title) == ("Dentist", "Practice manager", "Practice manager")


def test_update_keeps_a_value_given_as_read_when_another_writer_changed_it_since(org, actor):
    # Every value given is compared: the row's name is not the name read, so the locked path decides, and (as it
    # always has) writes the name given back over the one written since.
    dana = ContactFactory(organization=org, name="Dana", job_title="Office manager")
    stale = type(dana).objects.get(id=dana.id)
    services.contact_update(org=org, actor=actor, contact=dana, changes={"name": "Dana Whitfield"})
    logged = services.contact_update(
        org=org, actor=actor, contact=stale, changes={"name": "Dana", "job_title": "Practice manager"}
    )
    dana.refresh_from_db()
    assert ([change.attr for change, _ in logged], dana.name) == (["name", "job_title"], "Dana")


def test_update_of_a_job_title_reads_back_what_another_writer_changed_since(org, actor):
    dana = ContactFactory(organization=org, job_title="Office manager", phone="555-0100")
    stale = type(dana).objects.get(id=dana.id)
    services.contact_update(org=org, actor=actor, contact=dana, changes={"phone": "555-0199"})
    services.contact_update(org=org, actor=actor, contact=stale, changes={"job_title": "Practice manager"})
    assert (stale.phone, stale.job_title) == ("555-0199", "Practice manager")


def test_update_of_a_contact_removed_since_it_was_read_is_not_found_as_before(org, actor):
    dana = ContactFactory(organization=org, job_title="Office manager")
    type(dana).objects.filter(id=dana.id).delete()
    with pytest.raises(type(dana).DoesNotExist):
        services.contact_update(org=org, actor=actor, contact=dana, changes={"job_title": "Practice manager"})


@freeze_time("2026-03-01T12:00:00Z")
def test_follow_up_without_an_offset_follows_summer_time(org, actor):
    # 9:00 in New York is 14:00 UTC in winter and 13:00 UTC once the clocks go forward (March 8, 2026).
    contact = ContactFactory(organization=org)
    item, _ = services.contact_follow_up(
        org=org, actor=actor, contact=contact, text="Chase", at=datetime.datetime(2026, 3, 9, 9, 0)  # noqa: DTZ001 (no offset: the owner's local time)
    )
    assert item.at == datetime.datetime(2026, 3, 9, 13, tzinfo=datetime.UTC)


def test_link_project_linked_already_changes_nothing(org, actor):
    contact, project = ContactFactory(organization=org), ProjectFactory(organization=org)
    ProjectLink.objects.create(organization=org, contact=contact, project=project)
    assert services.contact_link_project(org=org, actor=actor, contact=contact, project=project) is None
