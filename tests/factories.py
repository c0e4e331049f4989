"""factory_boy factories that build on each other: user -> workspace -> agent -> contact -> company."""

import factory
from django.contrib.auth import get_user_model

from agents.models import Agent
from core.models import Organization
from records.models import Company, Contact, ContactEmail, Doc, DocVersion, Project


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"owner{n}")
    first_name = "Sam"
    last_name = "Rivera"


class OrganizationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organization

    name = factory.Sequence(lambda n: f"Studio {n}")
    owner = factory.SubFactory(UserFactory)
    owner_name = "Sam Rivera"
    owner_email = factory.Sequence(lambda n: f"sam{n}@fernhill.test")
    domains = ["fernhill.test"]


class AgentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Agent

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Agent {n}")
    job = "Answers new and current clients"


class ContactFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Contact
        skip_postgeneration_save = True

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Person {n}")

    @factory.post_generation
    def emails(self, create, extracted, **kwargs):
        for i, email in enumerate(extracted or []):
            ContactEmail.objects.create(organization=self.organization, contact=self, email=email, position=i)


class CompanyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Company

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Company {n}")


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Project {n}")


class DocFactory(factory.django.DjangoModelFactory):
    """A doc with its first version, as docs.write leaves one."""

    class Meta:
        model = Doc
        skip_postgeneration_save = True

    organization = factory.SubFactory(OrganizationFactory)
    project = factory.LazyAttribute(lambda o: ProjectFactory(organization=o.organization))
    title = factory.Sequence(lambda n: f"Doc {n}")
    text = "# A doc\n\nIts text."
    version = 1

    @factory.post_generation
    def first_version(self, create, extracted, **kwargs):
        DocVersion.objects.create(doc=self, number=1, title=self.title, text=self.text or "")


def messages_bulk_create(rows: list, **options) -> list:
    """Messages written straight in (a long history made fast), with each conversation's seq counter moved past
    them, as agents.services.message_append keeps it."""
    from django.db.models import Max

    from agents.models import Conversation, Message

    made = Message.objects.bulk_create(rows, **options)
    for conversation_id in {row.conversation_id for row in rows}:
        last = Message.objects.filter(conversation_id=conversation_id).aggregate(last=Max("seq"))["last"]
        Conversation.objects.filter(id=conversation_id).update(next_seq=last + 1)
    return made
