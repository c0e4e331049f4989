"""Every route of the API, walked from its schema: none answers without a sign-in, and signed in as owner A,
none reaches owner B's workspace: B's ids are `not_found`, and no list, filter or body shows or touches
anything of B's."""

import json
import uuid

import pytest
from rest_framework.test import APIClient

from agents.models import Agent, Conversation, Message
from core.models import Card, Change
from records.models import Company, Contact, DocNote, LogEntry, Project
from tests.api.schema import PATH_IDS, fill, load_schema, operations, path_ids, path_names

SCHEMA = load_schema()
OPERATIONS = operations(SCHEMA)
WITH_IDS = [op for op in OPERATIONS if path_names(op[2])]
WITHOUT_IDS = [op for op in OPERATIONS if not path_names(op[2])]

# A body each write with an id in its path takes as valid: so B's id, not the body, is what it answers about.
BODIES = {
    "agents_set_budget": {"monthlyBudget": "80.00"},
    "agents_chat_send": {"text": "Send the quote"},
    "conversations_send": {"text": "Send the quote"},
    "contacts_update": {"name": "Renamed"},
    "contacts_note": {"text": "Called"},
    "companies_update": {"name": "Renamed", "why": "Rebrand"},
    "projects_update": {"name": "Renamed"},
    "docs_note_add": {"note": "Shorter"},
}


def call(client, method: str, path: str, body=None):
    return client.generic(method, path, json.dumps(body) if body is not None else "", content_type="application/json")


def ids_of(world, operation_id: str = "") -> dict[str, str]:
    return {name: str(getattr(world, attr).id) for name, attr in path_ids(operation_id).items()}


def shows_nothing_of(response, world, *, but=()) -> bool:
    """Whether the answer holds none of the workspace's ids and names (`but`: what the caller sent)."""
    text = response.content.decode()
    return not [name for name in world.names() if name in text and name not in but]


def test_every_path_id_has_a_record_to_try():
    assert {name for _, _, path in WITH_IDS for name in path_names(path)} <= set(PATH_IDS)


def test_every_write_with_an_id_has_a_valid_body_to_try():
    writes = {op_id for op_id, method, path in WITH_IDS
              if "requestBody" in SCHEMA["paths"][path][method.lower()]}
    assert writes == set(BODIES)


@pytest.mark.parametrize("operation_id, method, path", OPERATIONS)
def test_without_a_sign_in_every_route_is_reauth_401(db, operation_id, method, path):
    ids = {name: str(uuid.uuid4()) for name in PATH_IDS}
    response = call(APIClient(), method, fill(path, ids), BODIES.get(operation_id))
    assert (response.status_code, response.json()["error"]) == (401, "reauth")


@pytest.mark.parametrize("operation_id, method, path", WITH_IDS)
def test_every_route_with_my_ids_works(api, mine, theirs, operation_id, method, path):
    response = call(api, method, fill(path, ids_of(mine, operation_id)), BODIES.get(operation_id))
    assert response.status_code < 300, response.content
    assert shows_nothing_of(response, theirs)


@pytest.mark.parametrize("operation_id, method, path", WITH_IDS)
def test_every_route_with_their_ids_is_not_found_and_shows_nothing_of_theirs(api, mine, theirs, operation_id,
                                                                             method, path):
    sent = ids_of(theirs, operation_id)
    response = call(api, method, fill(path, sent), BODIES.get(operation_id))
    assert (response.status_code, response.json()["error"]) == (404, "not_found")
    assert shows_nothing_of(response, theirs, but=sent.values())


@pytest.mark.parametrize("operation_id, method, path", [op for op in WITHOUT_IDS if op[1] == "GET"])
def test_every_list_shows_mine_and_nothing_of_theirs(api, mine, theirs, operation_id, method, path):
    response = call(api, method, path)
    assert response.status_code == 200
    assert shows_nothing_of(response, theirs)
    assert not shows_nothing_of(response, mine)  # the list isn't empty: it shows what is mine


def test_a_thread_of_theirs_is_not_found_for_messages(api, mine, theirs):
    answers = [call(api, "GET", f"/api/conversations/{theirs.thread.id}/messages/"),
               call(api, "GET", f"/api/conversations/{theirs.thread.id}/")]
    assert [r.status_code for r in answers] == [404, 404]


@pytest.mark.parametrize("path, params", [
    ("/api/contacts/", lambda t: {"company": str(t.company.id)}),
    ("/api/contacts/", lambda t: {"company": t.company.name}),
    ("/api/docs/", lambda t: {"projectId": str(t.project.id)}),
    ("/api/conversations/", lambda t: {"agent": str(t.agent.id)}),
])
def test_a_list_filtered_by_their_record_is_not_found(api, mine, theirs, path, params):
    response = api.get(path, params(theirs))
    assert (response.status_code, response.json()["error"]) == (404, "not_found")
    assert shows_nothing_of(response, theirs, but=params(theirs).values())


def test_companies_handled_by_their_agent_is_bad_input_naming_only_my_agents(api, mine, theirs):
    response = api.get("/api/companies/", {"handledBy": str(theirs.agent.id)})
    assert (response.status_code, shows_nothing_of(response, theirs, but=[str(theirs.agent.id)])) == (400, True)


def test_my_companys_timeline_with_their_contact_is_not_found(api, mine, theirs):
    response = api.get(f"/api/companies/{mine.company.id}/timeline/", {"contactId": str(theirs.contact.id)})
    assert response.status_code == 404


@pytest.mark.parametrize("path, body", [
    ("/api/contacts/", lambda t: {"name": "Ana", "companyIds": [str(t.company.id)]}),
    ("/api/companies/", lambda t: {"name": "Acme", "people": [{"contactId": str(t.contact.id)}]}),
    ("/api/companies/", lambda t: {"name": "Acme", "handler": str(t.agent.id)}),
    ("/api/companies/", lambda t: {"name": "Acme", "handler": t.agent.name}),
])
def test_a_record_made_with_their_ids_is_refused_and_makes_nothing(api, mine, theirs, path, body):
    response = api.post(path, body(theirs), format="json")
    assert response.status_code in (400, 404)
    assert not Contact.objects.filter(name="Ana").exists() and not Company.objects.filter(name="Acme").exists()


def test_my_company_cant_be_handed_to_their_agent(api, mine, theirs):
    response = api.patch(f"/api/companies/{mine.company.id}/", {"handler": theirs.agent.name}, format="json")
    mine.company.refresh_from_db()
    assert (response.status_code, mine.company.handler_id) == (400, mine.agent.id)


def test_nothing_of_theirs_changes_whatever_i_try(api, mine, theirs):
    for operation_id, method, path in WITH_IDS:
        call(api, method, fill(path, ids_of(theirs, operation_id)), BODIES.get(operation_id))
    call(api, "POST", f"/api/conversations/{theirs.chat.id}/try-again/")
    assert Change.objects.get(id=theirs.change.id).undone_at is None
    assert Card.objects.filter(organization=theirs.org, resolved_at__isnull=True).count() == 2
    assert Agent.objects.get(id=theirs.agent.id).monthly_budget == 50
    assert Message.objects.filter(conversation__organization=theirs.org).count() == 3
    assert Conversation.objects.filter(organization=theirs.org, state="idle").count() == 2
    assert Contact.objects.get(id=theirs.contact.id).name == "Theirs Dana"
    assert not LogEntry.objects.filter(contact=theirs.contact, kind="note").exists()
    assert Company.objects.get(id=theirs.company.id).name == "Theirs Dental"
    assert Project.objects.get(id=theirs.project.id).name == "Theirs rebrand"
    assert DocNote.objects.filter(doc=theirs.doc).count() == 1
