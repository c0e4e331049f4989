"""The owner adds and changes contacts from Contacts and a contact's page: through the contacts' services, each
change on Home's Your work (an edit saying the new values, with Undo), on the contact's log, and what agents read."""

import html

import pytest

from core.models import Change
from records.models import Contact, LogEntry
from tests.factories import ContactFactory


@pytest.fixture
def dana(org):
    return ContactFactory(organization=org, name="Dana Whitfield", phone="555-0100", job_title="Office manager")


def text_of(response) -> str:
    return html.unescape(response.content.decode())


def test_add_a_contact_from_contacts_and_it_is_on_home_linking_to_it(owner, org):
    response = owner.post("/contacts/add", {"name": "Lena Park", "email": "lena@parkbakery.test",
                                            "phone": "555-0199", "job_title": "Owner"})
    lena = Contact.objects.get(organization=org, name="Lena Park")
    assert response["Location"] == f"/contacts/{lena.id}/"
    assert lena.phone == "555-0199" and lena.emails.get().email == "lena@parkbakery.test"
    change = Change.objects.get(organization=org, tool="contacts.create", target_id=str(lena.id))
    assert change.actor_kind == "user" and change.listing == "home"
    home = text_of(owner.get("/"))
    assert "added Lena Park to Contacts" in home and f'/contacts/{lena.id}/' in home


def test_an_address_already_on_a_contact_adds_nothing_and_says_whose(owner, org, dana):
    dana.emails.create(organization=org, email="dana@juniperdental.test")
    response = owner.post("/contacts/add", {"name": "D. Whitfield", "email": "DANA@juniperdental.test"})
    assert response["Location"] == f"/contacts/{dana.id}/"
    assert "already on Dana Whitfield" in text_of(owner.get(response["Location"]))
    assert not Contact.objects.filter(organization=org, name="D. Whitfield").exists()


@pytest.mark.parametrize("data, says", [
    ({"name": "  "}, "Name: give at least 1 character."),
    ({"name": "x" * 201}, "Name: at most 200 characters (it has 201)."),
])
def test_bad_input_adds_nothing_and_names_the_field(owner, org, data, says):
    response = owner.post("/contacts/add", data, follow=True)
    assert says in text_of(response)
    assert Contact.objects.filter(organization=org).count() == 0


def test_edit_on_the_contact_page_is_on_home_with_the_new_values_and_undo_restores(owner, org, dana):
    response = owner.post(f"/contacts/{dana.id}/edit", {"name": "Dana Whitfield", "phone": "555-0101",
                                                        "job_title": "Practice manager", "context": ""})
    assert response.status_code == 302
    dana.refresh_from_db()
    assert (dana.phone, dana.job_title) == ("555-0101", "Practice manager")
    change = Change.objects.get(organization=org, tool="contacts.owner_edit")
    assert change.sentence == "changed Dana Whitfield's phone to 555-0101 and job title to Practice manager"
    assert change.listing == "home_undo" and change.can_undo
    assert LogEntry.objects.filter(contact=dana, change=change).count() == 2
    home = text_of(owner.get("/"))
    assert change.sentence in home
    owner.post(f"/changes/{change.id}/undo")
    dana.refresh_from_db()
    assert (dana.phone, dana.job_title) == ("555-0100", "Office manager")


def test_undo_after_a_later_change_restores_nothing(owner, org, dana):
    owner.post(f"/contacts/{dana.id}/edit", {"name": "Dana Whitfield", "phone": "555-0101"})
    change = Change.objects.get(organization=org, tool="contacts.owner_edit")
    Contact.objects.filter(id=dana.id).update(phone="555-0777")  # an agent changed it since
    owner.post(f"/changes/{change.id}/undo")
    dana.refresh_from_db()
    assert dana.phone == "555-0777"
    change.refresh_from_db()
    assert change.undone_at is None


def test_nothing_different_records_nothing(owner, org, dana):
    owner.post(f"/contacts/{dana.id}/edit", {"name": "Dana Whitfield", "phone": "555-0100"})
    assert not Change.objects.filter(organization=org).exists()


def test_another_workspaces_contact_cannot_be_edited(owner, other_org):
    theirs = ContactFactory(organization=other_org, name="Omar Haddad", phone="1")
    response = owner.post(f"/contacts/{theirs.id}/edit", {"name": "Mine now", "phone": "2"})
    assert response.status_code == 404
    theirs.refresh_from_db()
    assert (theirs.name, theirs.phone) == ("Omar Haddad", "1")
