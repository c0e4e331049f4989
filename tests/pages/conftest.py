"""A workspace filled through the tools, as agents fill one, and its owner signed in.

org -> agent (Client desk) -> dana (a contact) -> juniper (her company) -> a project, a doc, routines.
`other` builds the same kind of records in a second, unrelated workspace, for the isolation tests.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import pytest
from django.utils import timezone

from agents.models import Agent
from core.actors import Actor
from core.context import ToolContext
from docs import services as doc_services
from records.models import Company, Contact, Doc, Project, TimelineEntry
from routines import services as routine_services
from routines.models import Routine
from tests.factories import AgentFactory
from tools.pipeline import use_tool

ABOUT = {
    "text": "Juniper Dental runs two clinics [1], opening a third [2].",
    "facts": [{"label": "Founded", "value": "2012"}],
    "lately": [{"date": "2026-10-02", "text": "Third clinic announced", "source": 2}],
    "sources": [{"title": "Juniper Dental's site", "url": "https://juniperdental.test"},
                {"title": "Riverside News", "url": "https://news.test/juniper"}],
}

DOC_TEXT = """## Scope

- Logo and a one-page brand guide

| Item | Price |
| --- | ---: |
| Logo | $4,800 |
"""


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def owner(client, org):
    """The client, signed in as the owner of `org`."""
    client.force_login(org.owner)
    return client


def run(ctx: ToolContext, tool: str, **inp) -> dict:
    out = use_tool(ctx, tool, inp)
    assert not (isinstance(out, dict) and "error" in out), out
    return out


@dataclass
class Workspace:
    org: object
    agent: Agent
    contact: Contact
    company: Company
    entry: TimelineEntry
    project: Project
    doc: Doc
    routine: Routine


def fill(org, *, who: str, agent_name: str = "Client desk") -> Workspace:
    """A workspace's records, each made through its tool (or service), named after `who`."""
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    agent = Agent.objects.filter(organization=org, name=agent_name).first() or AgentFactory(
        organization=org, name=agent_name, job="Answers new and current clients", department="Clients",
        owns="New and current clients' mail", good="Replies within a day", works="As mail arrives",
        asks_first="Before quoting a price", monthly_budget=60,
    )
    ctx = ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id=f"thread-{who}")
    contact = run(ctx, "contacts.create", name=f"{who} Whitfield", emails=[f"{who.lower()}@juniperdental.test"],
                  phone="+1 555 0100", jobTitle="Practice manager", labels=["Client"], fields={"birthday": "May 2"})
    contact_id = contact["id"]
    run(ctx, "contacts.context", contactId=contact_id, text=f"{who} prefers a call to email.",
        why="She said so on the phone")
    run(ctx, "contacts.note", contactId=contact_id, text=f"{who} asked about signage prices.")
    run(ctx, "contacts.follow_up", contactId=contact_id, text="Check she got the quote",
        at=(timezone.now() + datetime.timedelta(days=2)).isoformat())
    company = run(ctx, "companies.create", name=f"{who} Dental", website=f"https://{who.lower()}dental.test",
                  domains=[f"{who.lower()}dental.test"], labels=["Client"], handler=agent_name,
                  people=[{"contactId": contact_id, "role": "Practice manager"}])
    company_id = company["id"]
    run(ctx, "companies.update", companyId=company_id, details={"Terms": "net 30"}, why="From the contract")
    run(ctx, "companies.about", companyId=company_id, **ABOUT)
    run(ctx, "companies.context", companyId=company_id, text=f"{who} Dental pays on time.", why="Two years of invoices")
    run(ctx, "companies.open", companyId=company_id, add={"kind": "them", "text": "Sign the quote"})
    recorded = run(ctx, "companies.record", companyId=company_id, kind="mail", title=f"Quote for {who} Dental",
                   summary="Sent the rebrand quote; she'll reply Friday.", at=timezone.now().isoformat(),
                   people=[contact_id], thread=f"t-{who}")
    project = Project.objects.create(organization=org, name=f"{who} rebrand")
    run(ctx, "contacts.link_project", contactId=contact_id, projectId=str(project.id))
    version = doc_services.doc_write(
        org=org, actor=Actor.for_agent(agent), title=f"{who} rebrand quote", text=DOC_TEXT,
        lines=["Priced from the rate card."], project=project,
    )
    routine = routine_services.routine_add(
        org=org, agent=agent, name=f"{who} Monday chase", when={"at": "0 9 * * 1"},
        note="Every Monday, chase invoices more than 7 days overdue.",
    )
    return Workspace(
        org=org, agent=agent, contact=Contact.objects.get(id=contact_id), company=Company.objects.get(id=company_id),
        entry=TimelineEntry.objects.get(id=recorded["entry"]["id"]), project=project,
        doc=Doc.objects.get(id=version.doc_id), routine=routine,
    )


@pytest.fixture
def ws(org) -> Workspace:
    return fill(org, who="Dana")


@pytest.fixture
def other(other_org) -> Workspace:
    return fill(other_org, who="Zelda", agent_name="Zelda's desk")
