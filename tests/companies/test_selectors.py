"""Companies' reads: what a page costs in queries, whatever its length, and how inputs name people."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from companies import selectors
from companies.shapes import company_read_shape, company_row
from records.models import CompanyPerson, OpenItem, TimelineEntry
from tests.factories import CompanyFactory, ContactFactory
from tools.pipeline import use_tool


def _company(org, agent, i: int, people: int = 2):
    company = CompanyFactory(organization=org, name=f"Co {i:03}", handler=agent, labels=["Client"])
    for p in range(people):
        contact = ContactFactory(organization=org, emails=[f"p{p}@co{i}.test"])
        CompanyPerson.objects.create(organization=org, company=company, contact=contact, role="Owner")
        OpenItem.objects.create(organization=org, contact=contact, kind="you", text="Reply", at=timezone.now(),
                                by_kind="user", by_id="1")
    OpenItem.objects.create(organization=org, company=company, kind="them", text="Pay", at=timezone.now(),
                            by_kind="user", by_id="1")
    TimelineEntry.objects.create(organization=org, company=company, kind="mail", title="Hello",
                                 at=timezone.now() - datetime.timedelta(days=1), by={})
    return company


def _queries(run) -> int:
    with CaptureQueriesContext(connection) as captured:
        run()
    return len(captured)


def _list_queries(ctx, start: int, stop: int, **filters) -> tuple[int, int]:
    """(queries, rows) of companies.list once the workspace holds `stop` companies."""
    for i in range(start, stop):
        _company(ctx.org, ctx.actor.agent, i)
    out = {}
    queries = _queries(lambda: out.update(use_tool(ctx, "companies.list", filters)))
    return queries, len(out["items"])


@pytest.mark.parametrize(
    "filters", [{}, {"label": "client", "open": "you", "quietDays": 0, "handledBy": "Client desk"}]
)
def test_list_of_forty_costs_the_queries_of_four(ctx, filters):
    (four, four_rows), (forty, forty_rows) = _list_queries(ctx, 0, 4, **filters), _list_queries(ctx, 4, 40, **filters)
    assert (forty, four_rows, forty_rows) == (four, 4, 40)


def _read_queries(ctx, people: int) -> int:
    company = _company(ctx.org, ctx.actor.agent, people, people=people)
    return _queries(lambda: company_read_shape(*selectors.company_read(org=ctx.org, company_id=company.id)))


def test_read_of_ten_people_costs_the_queries_of_one(ctx):
    assert _read_queries(ctx, 10) == _read_queries(ctx, 1)


def test_list_rows_shape_without_a_query(ctx):
    for i in range(3):
        _company(ctx.org, ctx.actor.agent, i)
    rows, _ = selectors.company_list(org=ctx.org)
    assert _queries(lambda: [company_row(c) for c in rows]) == 0


def test_people_by_ref_gives_a_contact_named_twice_once(org):
    dana = ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    people = selectors.people_by_ref(org=org, refs=[str(dana.id), "Dana@JuniperDental.test"])
    assert people == [{"name": "Dana Whitfield", "id": str(dana.id)}]


def test_company_duplicate_says_which_domain_matched(org):
    juniper = CompanyFactory(organization=org, name="Juniper Dental", domains=["juniperdental.test"])
    found = selectors.company_duplicate(org=org, name="JD", domains=["other.test", "juniperdental.test"])
    assert found == (juniper, "the domain juniperdental.test")
