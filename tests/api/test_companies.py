"""/api/companies/: list, create, read, update and timeline, as the owner."""

import datetime

import pytest
from django.utils import timezone

from records.models import Company, LogEntry, TimelineEntry
from tests.factories import AgentFactory, CompanyFactory, ContactFactory


@pytest.fixture
def juniper(org):
    return CompanyFactory(organization=org, name="Juniper Dental", domains=["juniper.test"], labels=["client"])


def entries(company, count: int, start=None):
    start = start or timezone.now().replace(microsecond=0)
    return TimelineEntry.objects.bulk_create([
        TimelineEntry(organization=company.organization, company=company, kind="mail" if i % 2 else "call",
                      title=f"Talk {i}", at=start - datetime.timedelta(hours=i), by={"kind": "user", "id": "1"})
        for i in range(count)
    ])


def test_list_gives_companies_by_name(api, org, juniper):
    CompanyFactory(organization=org, name="Acme Signs")
    body = api.get("/api/companies/").json()
    assert ([c["name"] for c in body["items"]], body["total"]) == (["Acme Signs", "Juniper Dental"], 2)


def test_list_filters_by_handler(api, org, juniper):
    desk = AgentFactory(organization=org, name="Client desk")
    CompanyFactory(organization=org, name="Acme Signs", handler=desk)
    assert [c["name"] for c in api.get("/api/companies/", {"handledBy": "client desk"}).json()["items"]] == [
        "Acme Signs"]


def test_a_handler_filter_that_names_no_agent_is_bad_input(api, juniper):
    assert api.get("/api/companies/", {"handledBy": "Nobody"}).json()["error"] == "bad_input"


def test_create_adds_the_company_with_its_people(api, org):
    dana = ContactFactory(organization=org, name="Dana Whitfield")
    response = api.post("/api/companies/", {
        "name": "Juniper Dental", "domains": ["Juniper.test"], "people": [{"contactId": str(dana.id), "role": "Owner"}],
    }, format="json")
    body = response.json()
    assert (response.status_code, body["domains"], body["people"][0]["name"], body["people"][0]["role"]) == (
        201, ["juniper.test"], "Dana Whitfield", "Owner")


def test_create_is_logged_as_the_owners(api, org):
    company_id = api.post("/api/companies/", {"name": "Juniper Dental"}, format="json").json()["id"]
    assert LogEntry.objects.get(company_id=company_id).by_kind == "user"


def test_a_company_there_already_is_bad_input_naming_it_and_adds_nothing(api, juniper):
    body = api.post("/api/companies/", {"name": "Other", "domains": ["juniper.test"]}, format="json").json()
    assert (body["error"], str(juniper.id) in body["message"]) == ("bad_input", True)
    assert Company.objects.count() == 1


def test_read_gives_the_record_with_its_newest_conversations(api, juniper):
    entries(juniper, 25)
    body = api.get(f"/api/companies/{juniper.id}/").json()
    assert (body["name"], len(body["timeline"]), body["counts"]["timeline"]) == ("Juniper Dental", 20, 25)


def test_update_changes_details_and_handler_and_logs_why(api, org, juniper):
    AgentFactory(organization=org, name="Client desk")
    body = api.patch(f"/api/companies/{juniper.id}/", {
        "details": {"Terms": "net 30"}, "handler": "Client desk", "why": "Dana asked",
    }, format="json").json()
    assert (body["details"], body["handler"]) == ({"Terms": "net 30"}, "Client desk")
    assert LogEntry.objects.get(company=juniper, kind="updated").why == "Dana asked"


def test_update_with_a_null_handler_clears_it(api, org, juniper):
    juniper.handler = AgentFactory(organization=org, name="Client desk")
    juniper.save()
    assert api.patch(f"/api/companies/{juniper.id}/", {"handler": None}, format="json").json()["handler"] is None


def test_update_with_a_blank_name_is_bad_input(api, juniper):
    assert api.patch(f"/api/companies/{juniper.id}/", {"name": "  "}, format="json").json()["error"] == "bad_input"


def test_timeline_pages_newest_first_by_before(api, juniper):
    entries(juniper, 25)
    first = api.get(f"/api/companies/{juniper.id}/timeline/").json()
    second = api.get(f"/api/companies/{juniper.id}/timeline/", {"before": first["nextBefore"]}).json()
    titles = [e["title"] for e in first["items"] + second["items"]]
    assert (titles, second["nextBefore"]) == ([f"Talk {i}" for i in range(25)], None)


def test_timeline_filters_by_kind_and_counts_every_kind(api, juniper):
    entries(juniper, 5)
    body = api.get(f"/api/companies/{juniper.id}/timeline/", {"kind": "call"}).json()
    assert (len(body["items"]), body["total"], body["counts"]["mail"]) == (3, 3, 2)


@pytest.mark.parametrize("before", ["yesterday", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"])
def test_a_timeline_before_that_isnt_a_time_is_bad_input(api, juniper, before):
    response = api.get(f"/api/companies/{juniper.id}/timeline/", {"before": before})
    assert (response.status_code, response.json()["error"]) == (400, "bad_input")
