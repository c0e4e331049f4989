"""The records' models moved from contacts, companies and docs to the records app with their tables: a workspace
migrated from before the move keeps every contact, company, project and doc and every link between them, the
admin's history and permissions follow the models, and the database still holds the links."""

import datetime
import uuid

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.factories import OrganizationFactory

# Before the move: the state every app's migrations had reached when the models lived in the three apps.
BEFORE = [("records", None)]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    return executor


@pytest.mark.django_db(transaction=True)
def test_a_workspace_from_before_the_move_keeps_its_records_and_their_links():
    org = OrganizationFactory(name="Fernhill Studio")
    loader = migrate(BEFORE).loader
    loader.build_graph()
    old = loader.project_state(list(loader.applied_migrations)).apps
    dana = old.get_model("contacts", "Contact").objects.create(id=uuid.uuid4(), organization_id=org.id,
                                                               name="Dana Whitfield")
    old.get_model("contacts", "ContactEmail").objects.create(organization_id=org.id, contact=dana,
                                                             email="dana@juniperdental.test")
    juniper = old.get_model("companies", "Company").objects.create(id=uuid.uuid4(), organization_id=org.id,
                                                                   name="Juniper Dental")
    old.get_model("companies", "CompanyPerson").objects.create(organization_id=org.id, company=juniper,
                                                               contact=dana, role="Office manager")
    item = old.get_model("contacts", "OpenItem").objects.create(
        id=uuid.uuid4(), organization_id=org.id, company=juniper, kind="them", text="Send the signed lease",
        at=timezone.now(), by_kind="system", by_id="system",
    )
    entry = old.get_model("contacts", "LogEntry").objects.create(
        id=uuid.uuid4(), organization_id=org.id, contact=dana, by_kind="system", by_id="system", kind="note",
        text="Prefers mail",
    )
    project = old.get_model("docs", "Project").objects.create(id=uuid.uuid4(), organization_id=org.id,
                                                              name="Lease renewal")
    old.get_model("docs", "ProjectLink").objects.create(organization_id=org.id, project=project, contact=dana)
    doc = old.get_model("docs", "Doc").objects.create(id=uuid.uuid4(), organization_id=org.id, project=project,
                                                      title="Renewal brief", text="# Brief", version=1)
    old.get_model("companies", "TimelineEntry").objects.create(
        id=uuid.uuid4(), organization_id=org.id, company=juniper, kind="call", title="Lease call",
        at=timezone.now() - datetime.timedelta(days=1),
    )
    contact_type, _ = ContentType.objects.get_or_create(app_label="contacts", model="contact")
    Permission.objects.get_or_create(codename="change_contact", content_type=contact_type,
                                     defaults={"name": "Can change contact"})
    org.owner.user_permissions.add(Permission.objects.get(codename="change_contact", content_type=contact_type))

    migrate(None)

    from records.models import Company, Contact, Doc, LogEntry, OpenItem

    moved = Contact.objects.get(id=dana.id)
    assert [e.email for e in moved.emails.all()] == ["dana@juniperdental.test"]
    assert [(link.company.name, link.role) for link in moved.company_links.all()] == [
        ("Juniper Dental", "Office manager")]
    assert [link.project.name for link in moved.project_links.all()] == ["Lease renewal"]
    company = Company.objects.get(id=juniper.id)
    assert OpenItem.objects.get(id=item.id).company == company
    assert LogEntry.objects.get(id=entry.id).contact == moved
    assert [e.title for e in company.timeline.all()] == ["Lease call"]
    assert Doc.objects.get(id=doc.id).project.links.get().contact == moved
    # The admin's history and the permissions given on contacts follow the model.
    assert ContentType.objects.get_for_model(Contact).id == contact_type.id
    assert type(org.owner).objects.get(id=org.owner.id).has_perm("records.change_contact")

    # The tables' constraints stayed: a link to no contact is refused, and removing a company takes its items.
    with pytest.raises(IntegrityError), transaction.atomic():
        OpenItem.objects.filter(id=item.id).update(company_id=uuid.uuid4())
        connection.check_constraints()
    company.delete()
    assert not OpenItem.objects.filter(id=item.id).exists()
