"""Contacts' `companies[].ticker`: the ticker of the public company a company's filings are linked to
(research's CompanyListing, made by filings.link), the spec's null where the company isn't listed, the same
whichever way the record is read."""

import pytest

from records.models import CompanyPerson
from research.models import CompanyListing, EdgarCompany
from tests.factories import CompanyFactory, ContactFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def dana(org):
    contact = ContactFactory(organization=org, name="Dana Reyes", emails=["dana@harbor.test"])
    listed = CompanyFactory(organization=org, name="Harbor Health")
    edgar = EdgarCompany.objects.create(cik=320193, ticker="HRBR", name="Harbor Health Inc")
    CompanyListing.objects.create(organization=org, company=listed, edgar=edgar)
    unlisted = CompanyFactory(organization=org, name="Juniper Dental")
    # Listed, but EDGAR gives it no ticker (a fund, a private filer): null, not "".
    no_ticker = CompanyFactory(organization=org, name="Juniper Holdings")
    CompanyListing.objects.create(organization=org, company=no_ticker,
                                  edgar=EdgarCompany.objects.create(cik=1000, ticker="", name="Juniper Holdings LP"))
    for company in (listed, unlisted, no_ticker):
        CompanyPerson.objects.create(organization=org, contact=contact, company=company)
    return contact


def tickers(record) -> dict:
    return {c["name"]: c["ticker"] for c in record["companies"]}


WANTED = {"Harbor Health": "HRBR", "Juniper Dental": None, "Juniper Holdings": None}


def test_read_gives_a_listed_companys_ticker_and_null_for_the_rest(use, dana):
    assert tickers(use("contacts.read", contactId=str(dana.id))) == WANTED


def test_find_by_address_gives_the_same_tickers(use, dana):
    assert tickers(use("contacts.find", email="DANA@harbor.test")) == WANTED


def test_update_answers_with_the_tickers(use, dana):
    assert tickers(use("contacts.update", contactId=str(dana.id), jobTitle="Office manager")) == WANTED
