"""contacts.selectors: what each read finds, and that it costs a fixed number of queries however many rows."""

import datetime
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from contacts import selectors
from contacts.shapes import contact_record, ticker_of
from core.errors import ToolError
from records.models import CompanyPerson, LogEntry, OpenItem, ProjectLink
from research.models import CompanyListing, EdgarCompany
from tests.factories import CompanyFactory, ContactFactory, ProjectFactory


def full_contact(org, i):
    """A contact with everything the list and the record read: addresses, open items, companies, projects, log."""
    contact = ContactFactory(
        organization=org, name=f"Person {i:03d}", emails=[f"p{i}@a.test", f"p{i}@b.test"], labels=["Client"]
    )
    for kind in ("you", "follow_up"):
        OpenItem.objects.create(
            organization=org, contact=contact, kind=kind, text="x",
            at=datetime.datetime(2026, 11, 10, tzinfo=datetime.UTC), by_kind="agent", by_id="a1",
        )
    for _ in range(2):
        CompanyPerson.objects.create(organization=org, contact=contact, company=CompanyFactory(organization=org))
        ProjectLink.objects.create(organization=org, contact=contact, project=ProjectFactory(organization=org))
        LogEntry.objects.create(organization=org, contact=contact, by_kind="agent", by_id="a1", kind="note", text="n")
    return contact


def queries(run) -> int:
    with CaptureQueriesContext(connection) as captured:
        run()
    return len(captured)


@pytest.mark.parametrize("inp", [{}, {"open": "you", "query": "person", "quietDays": 3, "label": "client"}])
def test_contacts_list_of_50_costs_the_queries_of_5(use, org, inp):
    listed = []
    for i in range(5):
        full_contact(org, i)
    five = queries(lambda: listed.append(use("contacts.list", **inp)))
    for i in range(5, 50):
        full_contact(org, i)
    fifty = queries(lambda: listed.append(use("contacts.list", **inp)))
    assert ([len(out["items"]) for out in listed], fifty) == ([5, 50], five)


def test_contacts_list_costs_at_most_four_queries(org, django_assert_max_num_queries):
    for i in range(10):
        full_contact(org, i)
    with django_assert_max_num_queries(4):
        contacts, _ = selectors.contact_list(org=org, open_kind="you")
        [c.current_links[0].company.name for c in contacts]


@pytest.mark.parametrize("tool", ["contacts.read", "contacts.find"])
def test_one_record_costs_the_same_however_many_companies_and_projects(use, org, tool):
    contact = full_contact(org, 0)
    inp = {"contactId": str(contact.id)} if tool == "contacts.read" else {"email": "p0@a.test"}
    before = queries(lambda: use(tool, **inp))
    for _ in range(10):
        CompanyPerson.objects.create(organization=org, contact=contact, company=CompanyFactory(organization=org))
        ProjectLink.objects.create(organization=org, contact=contact, project=ProjectFactory(organization=org))
    assert queries(lambda: use(tool, **inp)) == before


def test_contact_by_email_ignores_letter_case_and_spaces(org):
    contact = ContactFactory(organization=org, emails=["Dana@JuniperDental.test"])
    assert selectors.contact_by_email(org=org, email=" dana@juniperdental.TEST ").id == contact.id


def richly_linked(org, agent):
    """full_contact, with what else its record shows: a closed open item (not shown), a company with a handler, a
    role, dates, a Context and a public listing (its ticker), times with microseconds, and a JSON field holding a
    string."""
    contact = full_contact(org, 0)
    contact.context, contact.last, contact.fields = "Prefers mornings; ü", {"at": "x"}, {"note": "text"}
    contact.save()
    OpenItem.objects.create(
        organization=org, contact=contact, kind="you", text="done",
        at=datetime.datetime(2026, 11, 9, 8, 1, 2, 345678, tzinfo=datetime.UTC), by_kind="agent", by_id="a1",
        closed_at=datetime.datetime(2026, 11, 9, 9, tzinfo=datetime.UTC),
    )
    company = CompanyFactory(organization=org, handler=agent, context="Net 30", labels=["Vendor"], always_ask=True)
    CompanyPerson.objects.create(organization=org, contact=contact, company=company, role="Office manager",
                                 since=datetime.date(2024, 3, 1), ended=datetime.date(2025, 6, 30))
    edgar = EdgarCompany.objects.create(cik=320193, ticker="HRBR", name="Harbor Health Inc")
    CompanyListing.objects.create(organization=org, company=company, edgar=edgar)
    return contact


def test_contact_by_email_gives_the_record_contact_get_gives(org, agent):
    contact = richly_linked(org, agent)
    found = selectors.contact_by_email(org=org, email="P0@B.test")
    assert contact_record(found, company_context=True) == contact_record(
        selectors.contact_get(org=org, contact_id=contact.id), company_context=True
    )


def field_values(row) -> dict:
    return {f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields}


def test_contact_by_email_loads_each_row_as_the_orm_does(org, agent):
    contact = richly_linked(org, agent)
    found = selectors.contact_by_email(org=org, email="p0@a.test")
    loaded = selectors.contact_get(org=org, contact_id=contact.id)

    def rows(c):
        links, projects = list(c.company_links.all()), list(c.project_links.all())
        return [field_values(c), *map(field_values, c.emails.all()), *map(field_values, c.open_items.all()),
                *map(field_values, links), *(field_values(link.company) for link in links),
                *map(field_values, projects), *(field_values(link.project) for link in projects),
                [link.company.handler.name if link.company.handler_id else None for link in links],
                [ticker_of(link.company) for link in links]]

    assert rows(found) == rows(loaded)


def test_contact_by_email_reads_the_whole_record_in_one_query(org, agent, django_assert_num_queries):
    richly_linked(org, agent)
    with django_assert_num_queries(1):
        contact_record(selectors.contact_by_email(org=org, email="p0@a.test"), company_context=True)


def test_contact_by_email_is_none_in_another_workspace(org, other_org):
    ContactFactory(organization=other_org, emails=["dana@juniperdental.test"])
    assert selectors.contact_by_email(org=org, email="dana@juniperdental.test") is None


def test_contact_get_of_another_workspace_is_not_found(org, other_org):
    contact = ContactFactory(organization=other_org)
    with pytest.raises(ToolError) as raised:
        selectors.contact_get(org=org, contact_id=contact.id)
    assert raised.value.kind == "not_found"


def test_contact_log_is_newest_first_and_cut(org):
    contact = ContactFactory(organization=org)
    for i in range(3):
        LogEntry.objects.create(organization=org, contact=contact, by_kind="agent", by_id="a", kind="note", text=str(i))
    assert [e.text for e in selectors.contact_log(contact=contact, limit=2)] == ["2", "1"]


def test_emails_taken_maps_lower_cased_addresses_to_their_contact(org):
    contact = ContactFactory(organization=org, emails=["Dana@Juniper.test"])
    taken = selectors.emails_taken(org=org, emails=["DANA@juniper.test", "rosa@x.test"])
    assert taken == {"dana@juniper.test": contact}


def test_companies_matching_prefers_the_exact_name(org):
    exact = CompanyFactory(organization=org, name="Ortiz")
    CompanyFactory(organization=org, name="Ortiz Bakery")
    assert selectors.companies_matching(org=org, company="ortiz") == [exact]


def test_companies_matching_falls_back_to_part_of_a_name(org):
    bakery = CompanyFactory(organization=org, name="Ortiz Bakery")
    CompanyFactory(organization=org, name="Ruiz Print Co.")
    assert selectors.companies_matching(org=org, company="bakery") == [bakery]


def test_companies_matching_by_id_of_another_workspace_is_not_found(org, other_org):
    company = CompanyFactory(organization=other_org)
    with pytest.raises(ToolError) as raised:
        selectors.companies_matching(org=org, company=str(company.id))
    assert raised.value.kind == "not_found"


def test_has_label_matches_a_whole_label_only(org):
    ContactFactory(organization=org, name="A", labels=["VIP client"])
    ContactFactory(organization=org, name="B", labels=["vip"])
    contacts, total = selectors.contact_list(org=org, label="VIP")
    assert ([c.name for c in contacts], total) == (["B"], 1)


def test_contact_timeline_does_not_ask_a_provider_about_a_contact_without_addresses(org, agent, monkeypatch):
    class Provider:
        connection = "c1"

        def contact_items(self, **kwargs):
            raise AssertionError("asked without addresses")

    entry = selectors.TIMELINE_SOURCES["mail"]
    monkeypatch.setattr(selectors, "TIMELINE_SOURCES", selectors.TIMELINE_SOURCES.with_entry(
        selectors.TimelineSource(entry.source, entry.integration, entry.app, entry.what, lambda org: Provider())
    ))
    contact = ContactFactory(organization=org)
    out = selectors.contact_timeline(org=org, actor=None, contact=contact, limit=20)
    assert (out["items"], [f["source"] for f in out["failures"]]) == ([], ["calendar"])


# --- one contact's record in one query (contact_for_record, read before every checked contacts.update) ---------


@pytest.fixture
def dana(org, agent):
    """A contact with every part of the record, each kind twice or more and some in an order of their own: times
    with and without microseconds, a closed item, an ended link, a company with a handler and one without, JSON of
    several kinds, text with quotes and accents."""
    dana = ContactFactory(organization=org, name='Dana "DW" Whitfield-Núñez', emails=["dana@b.test", "Dana@A.test"],
                          labels=["Client", "VIP"], phone="555-0100", job_title="Practice manager",
                          fields={"birthday": "03-14", "kids": 2, "ask": False, "nested": {"a": [1, None]}})
    dana.last = {"kind": "mail", "at": "2026-11-10T09:00:00Z"}
    dana.context = "Prefers mornings.\nCall, don't write."
    dana.save()
    at = datetime.datetime(2026, 11, 10, 9, 30, 15, 123456, tzinfo=datetime.UTC)
    for i, (kind, closed) in enumerate([("you", False), ("them", True), ("follow_up", False)]):
        OpenItem.objects.create(
            organization=org, contact=dana, kind=kind, text=f"item {i} ✓", at=at - datetime.timedelta(days=i),
            by_kind="agent", by_id=str(agent.id), thread="thread-1" if i else "", link="https://x.test/1" if i else "",
            closed_at=at if closed else None,
        )
    handled = CompanyFactory(organization=org, name="Juniper Dental", labels=["Dental"], handler=agent,
                             context="Pays on the 1st.")
    plain = CompanyFactory(organization=org, name="Acme", labels=[])
    CompanyPerson.objects.create(organization=org, contact=dana, company=handled, role="Office lead",
                                 since=datetime.date(2024, 2, 1))
    CompanyPerson.objects.create(organization=org, contact=dana, company=plain, ended=datetime.date(2025, 6, 30))
    for name in ("Rebrand", "Signage"):
        ProjectLink.objects.create(organization=org, contact=dana, project=ProjectFactory(organization=org, name=name))
    return dana


@pytest.mark.parametrize("company_context", [False, True])
def test_one_contacts_record_read_in_one_query_is_the_record_read_by_prefetching(org, dana, company_context):
    prefetched = contact_record(selectors.contact_get(org=org, contact_id=dana.id), company_context=company_context)
    with CaptureQueriesContext(connection) as queries:
        record = contact_record(selectors.contact_for_record(org=org, contact_id=dana.id),
                                company_context=company_context)
    assert (record, len(queries)) == (prefetched, 1)


def test_a_contact_with_nothing_but_its_row_reads_the_same_in_one_query(org):
    bare = ContactFactory(organization=org, name="Lee Park")
    assert contact_record(selectors.contact_for_record(org=org, contact_id=bare.id)) == contact_record(
        selectors.contact_get(org=org, contact_id=bare.id))


def test_one_contacts_record_is_model_rows_as_the_update_reads_them(org, agent, dana):
    # What the update and its result read of them (the addresses, a link's company and its handler) is there, with
    # no query more.
    contact = selectors.contact_for_record(org=org, contact_id=dana.id)
    with CaptureQueriesContext(connection) as queries:
        emails = [e.email for e in contact.emails.all()]
        handlers = [link.company.handler for link in contact.company_links.all()]
        linked_back = all(link.contact is contact for link in contact.project_links.all())
    assert (emails, handlers, linked_back, len(queries)) == (["dana@b.test", "Dana@A.test"], [agent, None], True, 0)


def test_another_workspaces_contact_or_none_is_no_record(org, other_org):
    theirs = ContactFactory(organization=other_org, name="Their Dana")
    assert [selectors.contact_for_record(org=org, contact_id=i) for i in (theirs.id, "not an id", uuid.uuid4())] == [
        None, None, None]
