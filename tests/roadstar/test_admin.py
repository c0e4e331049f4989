"""The staff admin: every model of the workspace's apps is there, and its pages load fast on real rows."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from agents.models import Agent, Conversation, MemoryLine, Message, Run, ToolCall, Usage, Work
from core.models import Card, Change, ModelEndpoint, Organization
from records.models import Company, Contact, ContactEmail, Doc, DocNote, LogEntry, OpenItem, TimelineEntry
from tests.factories import ContactFactory, UserFactory

APPS = ("roadstar", "agents", "records")
MODELS = sorted(
    (m for app in APPS for m in apps.get_app_config(app).get_models()), key=lambda m: m._meta.label
)
REGISTERED = [m for m in MODELS if admin.site.is_registered(m)]


def label(model):
    return model._meta.label


def admin_url(model, view, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


@pytest.fixture
def workspace(db):
    """The example workspace, and a row of every model the example doesn't make."""
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    org = Organization.objects.get(owner__username="sam")
    desk = Agent.objects.get(organization=org, name="Client desk")
    dana = Contact.objects.get(organization=org, name="Dana Whitfield")
    change = Change.objects.create(
        organization=org, actor_kind="agent", actor_id=str(desk.id), actor_name=desk.name, tool="contacts.create",
        kind="makes", sentence="added Dana Whitfield to Contacts", listing="home", target_type="contact",
        target_id=str(dana.id),
    )
    Card.objects.create(organization=org, kind="connect", title="Connect Gmail", subject="gmail")
    ModelEndpoint.objects.create(organization=org, base_url="http://model.test/v1")
    OpenItem.objects.create(
        organization=org, contact=dana, kind="follow_up", text="Did Dana pick a day?", at=timezone.now(),
        by_kind="agent", by_id=str(desk.id),
    )
    LogEntry.objects.filter(contact=dana).update(change=change)
    DocNote.objects.create(
        organization=org, doc=Doc.objects.get(organization=org), on="$8,400", note="Round it?",
        by={"kind": "user", "id": str(org.owner_id)},
    )
    chat = Conversation.objects.create(organization=org, agent=desk, kind="chat", title="Client desk")
    message = Message.objects.create(conversation=chat, seq=0, role="owner", text="Book a kickoff with Dana.")
    MemoryLine.objects.create(conversation=chat, start=0, n=1, summary="Sam asked for a kickoff with Dana.")
    Work.objects.create(organization=org, agent=desk, conversation=chat, task="Book a kickoff with Dana.")
    ToolCall.objects.create(conversation=chat, message=message, call_id="call_1", name="start_thread")
    Usage.objects.create(organization=org, agent=desk, conversation=chat, model="gpt-6.1-terra", input_tokens=900)
    Run.objects.create(organization=org, conversation=chat, agent=desk, started_at=timezone.now())
    assert Company.objects.filter(organization=org, name="Juniper Dental").exists()
    assert TimelineEntry.objects.filter(organization=org).exists()
    return org


@pytest.fixture
def staff(client, workspace):
    client.force_login(workspace.owner)  # sam: the example's owner is staff and superuser
    return client


@pytest.mark.parametrize("model", MODELS, ids=label)
def test_every_model_has_an_admin(model):
    assert admin.site.is_registered(model)


@pytest.mark.parametrize("model", REGISTERED, ids=label)
def test_the_list_loads_with_a_search(staff, model):
    response = staff.get(admin_url(model, "changelist"), {"q": "Juniper"})
    assert response.status_code == 200


@pytest.mark.parametrize("model", REGISTERED, ids=label)
def test_the_list_loads_with_its_rows(staff, model):
    response = staff.get(admin_url(model, "changelist"))
    assert response.status_code == 200 and response.context["cl"].result_count >= 1


@pytest.mark.parametrize("model", REGISTERED, ids=label)
def test_the_add_page_loads(staff, model):
    assert staff.get(admin_url(model, "add")).status_code == 200


@pytest.mark.parametrize("model", REGISTERED, ids=label)
def test_a_records_page_loads(staff, model):
    row = model._default_manager.first()
    assert staff.get(admin_url(model, "change", row.pk)).status_code == 200


def test_the_admin_is_for_staff_only(client, workspace):
    owner = UserFactory(username="plain")
    client.force_login(owner)
    response = client.get(admin_url(Contact, "changelist"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.mark.parametrize("model, make", [
    (Contact, lambda org, i: ContactFactory(organization=org, name=f"Client {i}", emails=[f"c{i}@x.test"])),
    (Change, lambda org, i: Change.objects.create(
        organization=org, actor_kind="agent", actor_id="a", actor_name="Client desk", tool="contacts.create",
        kind="makes", sentence=f"added Client {i}", listing="home",
    )),
    (ContactEmail, lambda org, i: ContactFactory(organization=org, emails=[f"e{i}@x.test"])),
], ids=["Contact", "Change", "ContactEmail"])
def test_a_list_costs_the_same_queries_for_more_rows(staff, workspace, model, make):
    url = admin_url(model, "changelist")
    for i in range(3):
        make(workspace, i)
    with CaptureQueriesContext(connection) as few:
        staff.get(url)
    for i in range(3, 40):
        make(workspace, i)
    with CaptureQueriesContext(connection) as many:
        staff.get(url)
    assert len(many) == len(few)


def contact_form(org, **extra):
    data = {
        "organization": str(org.id), "name": "Ana Lima", "status": "active", "labels": "[]", "fields": "{}",
        "last": "{}", "context": "", "job_title": "", "phone": "",
        "emails-TOTAL_FORMS": "1", "emails-INITIAL_FORMS": "0", "emails-0-email": "ana@lima.test",
        "emails-0-position": "0",
        "company_links-TOTAL_FORMS": "0", "company_links-INITIAL_FORMS": "0",
    }
    data.update(extra)
    return data


def test_an_address_added_on_the_contacts_page_belongs_to_the_contacts_workspace(staff, workspace):
    response = staff.post(admin_url(Contact, "add"), contact_form(workspace))
    assert response.status_code == 302
    assert ContactEmail.objects.get(email="ana@lima.test").organization_id == workspace.id


def test_an_address_already_on_a_contact_is_refused_on_the_form(staff, workspace):
    form = contact_form(workspace, **{"emails-0-email": "DANA@juniperdental.test"})
    response = staff.post(admin_url(Contact, "add"), form)
    assert response.status_code == 200 and "already on a contact in this workspace" in response.content.decode()
