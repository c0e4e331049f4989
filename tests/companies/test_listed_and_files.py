"""A company's `listed` and `files`, filled from what Roadstar holds: the public company its filings are linked to
(research's CompanyListing, made by filings.link) and the files its conversations carried (companies.record's
files), each file once, counted in counts.files; a company with neither gives the spec's null and []."""

import datetime

import pytest

from records.models import TimelineEntry
from research.models import CompanyListing, EdgarCompany
from tests.factories import CompanyFactory
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db

AT = datetime.datetime(2026, 11, 2, 15, 0, tzinfo=datetime.UTC)


def test_a_company_with_neither_has_null_and_no_files(ctx, org):
    company = CompanyFactory(organization=org, name="Juniper Dental")
    out = use_tool(ctx, "companies.read", {"companyId": str(company.id)})
    assert (out["listed"], out["files"], out["counts"]["files"]) == (None, [], 0)


def test_a_linked_public_company_is_listed_with_its_ticker(ctx, org):
    company = CompanyFactory(organization=org, name="Harbor Health")
    edgar = EdgarCompany.objects.create(cik=320193, ticker="HRBR", name="Harbor Health Inc")
    CompanyListing.objects.create(organization=org, company=company, edgar=edgar)
    out = use_tool(ctx, "companies.read", {"companyId": str(company.id)})
    assert out["listed"] == {"id": "320193", "name": "Harbor Health Inc", "ticker": "HRBR"}


def test_files_its_conversations_carried_are_its_files_once_each_newest_first(ctx, org):
    company = CompanyFactory(organization=org, name="Juniper Dental")
    by = {"kind": "user", "id": "1"}
    older = TimelineEntry.objects.create(organization=org, company=company, kind="mail", title="Quote", at=AT, by=by,
                                         files=[{"name": "Quote.pdf", "link": "https://drive.test/quote"}])
    TimelineEntry.objects.create(organization=org, company=company, kind="mail", title="Quote again", by=by,
                                 at=AT + datetime.timedelta(days=1),
                                 files=[{"name": "Quote.pdf", "link": "https://drive.test/quote"},
                                        {"name": "Plan.docx"}])
    TimelineEntry.objects.create(organization=org, company=company, kind="mail", title="Taken off", by=by, at=AT,
                                 files=[{"name": "Old.pdf"}], removed_at=AT)
    out = use_tool(ctx, "companies.read", {"companyId": str(company.id)})
    assert [(f["name"], f["link"]) for f in out["files"]] == [("Quote.pdf", "https://drive.test/quote"),
                                                             ("Plan.docx", "")]
    assert out["counts"]["files"] == 2 and out["files"][0]["by"] == by
    assert not any(f["id"].startswith(str(older.id)) for f in out["files"])  # the newer entry's, once
