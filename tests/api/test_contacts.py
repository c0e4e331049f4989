"""/api/contacts/: list with contacts.list's filters, create, read, update and notes, as the owner."""

import pytest

from records.models import CompanyPerson, Contact, LogEntry
from tests.factories import CompanyFactory, ContactFactory


@pytest.fixture
def people(org):
    juniper = CompanyFactory(organization=org, name="Juniper Dental")
    dana = ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniper.test"], labels=["client"],
                          job_title="Office manager")
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana, role="Office manager")
    ContactFactory(organization=org, name="Lee Park", emails=["lee@park.test"], labels=["supplier"])
    return {"dana": dana, "juniper": juniper}


def names(response) -> list[str]:
    return [c["name"] for c in response.json()["items"]]


def test_list_gives_contacts_by_name_and_the_total(api, people):
    body = api.get("/api/contacts/").json()
    assert ([c["name"] for c in body["items"]], body["total"], body["nextOffset"]) == (
        ["Dana Whitfield", "Lee Park"], 2, None)


@pytest.mark.parametrize("params, expected", [
    ({"label": "CLIENT"}, ["Dana Whitfield"]),
    ({"company": "Juniper Dental"}, ["Dana Whitfield"]),
    ({"query": "park.test"}, ["Lee Park"]),
    ({"query": "manager"}, ["Dana Whitfield"]),
])
def test_list_takes_the_filters_contacts_list_takes(api, people, params, expected):
    assert names(api.get("/api/contacts/", params)) == expected


def test_list_filters_by_a_company_id(api, people):
    assert names(api.get("/api/contacts/", {"company": str(people["juniper"].id)})) == ["Dana Whitfield"]


def test_list_pages_by_offset(api, org):
    for i in range(55):
        ContactFactory(organization=org, name=f"Person {i:02}")
    first = api.get("/api/contacts/").json()
    second = api.get("/api/contacts/", {"offset": first["nextOffset"]}).json()
    assert (len(first["items"]), first["nextOffset"], len(second["items"]), second["nextOffset"]) == (50, 50, 5, None)


def test_a_company_filter_that_names_no_company_is_not_found(api, people):
    assert api.get("/api/contacts/", {"company": "Nobody Inc"}).json()["error"] == "not_found"


def test_an_unknown_open_kind_is_bad_input(api, people):
    assert api.get("/api/contacts/", {"open": "mine"}).json()["error"] == "bad_input"


def test_create_adds_the_contact_and_answers_its_record(api, people):
    response = api.post("/api/contacts/", {
        "name": "Ana Ortiz", "emails": ["ana@juniper.test"], "jobTitle": "Dentist", "labels": ["client"],
        "companyIds": [str(people["juniper"].id)], "fields": {"birthday": "1980-04-02"},
    }, format="json")
    assert response.status_code == 201
    body = response.json()
    assert (body["name"], body["emails"], body["jobTitle"], body["companies"][0]["name"], body["fields"]) == (
        "Ana Ortiz", ["ana@juniper.test"], "Dentist", "Juniper Dental", {"birthday": "1980-04-02"})


def test_create_is_logged_as_the_owners(api, org, people):
    contact_id = api.post("/api/contacts/", {"name": "Ana Ortiz"}, format="json").json()["id"]
    entry = LogEntry.objects.get(contact_id=contact_id)
    assert (entry.kind, entry.by_kind, entry.by_id) == ("created", "user", str(org.owner_id))


def test_an_address_already_on_a_contact_is_bad_input_naming_them_and_adds_nothing(api, people):
    response = api.post("/api/contacts/", {"name": "Dana W", "emails": ["DANA@juniper.test"]}, format="json")
    body = response.json()
    assert (response.status_code, body["error"]) == (400, "bad_input")
    assert str(people["dana"].id) in body["message"]
    assert not Contact.objects.filter(name="Dana W").exists()


def test_create_without_a_name_is_bad_input(api):
    assert api.post("/api/contacts/", {"emails": ["x@y.test"]}, format="json").json()["error"] == "bad_input"


def test_read_gives_the_record_with_its_log(api, people):
    body = api.get(f"/api/contacts/{people['dana'].id}/").json()
    assert (body["name"], body["companies"][0]["role"], body["log"]) == ("Dana Whitfield", "Office manager", [])


def test_update_changes_only_what_is_given(api, people):
    dana = people["dana"]
    body = api.patch(f"/api/contacts/{dana.id}/", {"phone": "555-0100", "labels": ["client", "vip"]},
                     format="json").json()
    assert (body["phone"], body["labels"], body["jobTitle"], body["emails"]) == (
        "555-0100", ["client", "vip"], "Office manager", ["dana@juniper.test"])


def test_update_logs_each_change_with_before_and_after(api, people):
    body = api.patch(f"/api/contacts/{people['dana'].id}/", {"jobTitle": "Practice manager"}, format="json").json()
    assert (body["log"][0]["kind"], body["log"][0]["before"], body["log"][0]["after"]) == (
        "context", "Office manager", "Practice manager")  # the spec's log kinds (contacts.md)


def test_update_with_null_clears_a_value(api, people):
    body = api.patch(f"/api/contacts/{people['dana'].id}/", {"jobTitle": None}, format="json").json()
    assert body["jobTitle"] is None


def test_update_to_an_address_of_another_contact_is_bad_input(api, people):
    response = api.patch(f"/api/contacts/{people['dana'].id}/", {"emails": ["lee@park.test"]}, format="json")
    assert response.json()["error"] == "bad_input"


def test_update_of_a_field_the_contact_doesnt_have_is_bad_input(api, people):
    response = api.patch(f"/api/contacts/{people['dana'].id}/", {"title": "Dr"}, format="json")
    assert response.json()["error"] == "bad_input"


def test_a_note_goes_on_the_contacts_log(api, people):
    response = api.post(f"/api/contacts/{people['dana'].id}/notes/", {"text": "Called about the quote"},
                        format="json")
    assert (response.status_code, response.json()["kind"], response.json()["text"]) == (
        201, "note", "Called about the quote")
    assert LogEntry.objects.filter(contact=people["dana"], kind="note", text="Called about the quote").exists()


def test_a_note_without_text_is_bad_input(api, people):
    response = api.post(f"/api/contacts/{people['dana'].id}/notes/", {"text": ""}, format="json")
    assert response.json()["error"] == "bad_input"
