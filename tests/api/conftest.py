"""Fixtures for the REST API: owner A's signed-in client, and a full workspace of each owner.

`world(org)` fills a workspace with one of everything the API reaches (agent, chat and thread with messages,
work, contact, company with a timeline entry, project, doc with a note, a change with Undo, cards), so the
cross-workspace tests can try every route with the other workspace's ids.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from agents import services as agent_services
from agents.models import Agent, Conversation, Work
from api.models import ApiToken
from api.tokens import api_token_make, token_hash
from core.actors import Actor
from core.context import ToolContext
from core.models import Card, Change
from core.services import card_open
from docs import services as doc_services
from records.models import Company, Contact, Doc, DocNote, Project, TimelineEntry
from tests.factories import AgentFactory, CompanyFactory, ContactFactory, DocFactory, ProjectFactory
from tools.pipeline import use_tool


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


_tokens: dict = {}


def token_for(org) -> str:
    """The owner's API token: one made for them earlier while it still signs them in (only its hash is kept, so
    the test keeps the token), else a new one."""
    token = _tokens.get(org.owner_id)
    if token is None or not ApiToken.objects.filter(user_id=org.owner_id, key_hash=token_hash(token)).exists():
        token = _tokens[org.owner_id] = api_token_make(user=org.owner)
    return token


def client_for(org) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(org)}")
    return client


@pytest.fixture
def api(org) -> APIClient:
    """Owner A (Sam Rivera of Fernhill Studio), signed in with a token."""
    return client_for(org)


@dataclass
class World:
    """One of everything in a workspace, with the ids the API takes."""

    org: object
    agent: Agent
    chat: Conversation
    thread: Conversation
    work: Work
    contact: Contact
    company: Company
    entry: TimelineEntry
    project: Project
    doc: Doc
    note: DocNote
    change: Change  # with Undo
    card: Card
    try_again: Card

    def names(self) -> list[str]:
        """What of this workspace must never show in the other's answers: ids and names."""
        rows = [self.agent, self.chat, self.thread, self.work, self.contact, self.company, self.entry, self.project,
                self.doc, self.note, self.change, self.card, self.try_again]
        texts = [str(row.id) for row in rows]
        texts += [self.agent.name, self.contact.name, self.company.name, self.project.name, self.doc.title,
                  self.card.title, self.org.name]
        return texts


def build_world(org, prefix: str) -> World:
    agent = AgentFactory(organization=org, name=f"{prefix} desk", monthly_budget=50)
    chat = agent_services.chat_for(agent=agent)
    agent_services.message_append(conversation=chat, role="owner", text=f"{prefix}: find the quote")
    agent_services.message_append(conversation=chat, role="agent", text=f"{prefix}: found it")
    thread = agent_services.thread_start(agent=agent, title=f"{prefix} quote")
    agent_services.message_append(conversation=thread, role="handoff", text=f"{prefix}: write the quote")
    work = agent_services.work_open(
        org=org, agent=agent, conversation=thread, task=f"{prefix}: write the quote", requester=chat
    )
    Work.objects.filter(id=work.id).update(latest_reply=f"{prefix}: drafting it now")
    contact = ContactFactory(organization=org, name=f"{prefix} Dana", emails=[f"dana@{prefix.lower()}.test"],
                             labels=["client"])
    company = CompanyFactory(organization=org, name=f"{prefix} Dental", handler=agent)
    entry = TimelineEntry.objects.create(
        organization=org, company=company, kind="mail", title=f"{prefix} kickoff", at=timezone.now(),
        by={"kind": "user", "id": str(org.owner_id)},
    )
    project = ProjectFactory(organization=org, name=f"{prefix} rebrand")
    doc = DocFactory(organization=org, project=project, title=f"{prefix} proposal")
    note = doc_services.doc_note_add(org=org, actor=Actor.for_user(org.owner), doc=doc, on="", note="Shorter?")
    # A change with Undo, made as a thread makes one: Context set on the contact, through the tool pipeline.
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    result = use_tool(
        ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id=str(thread.id)),
        "contacts.context", {"contactId": str(contact.id), "text": "Prefers mornings", "why": "She said so"},
    )
    assert "error" not in result, result
    change = Change.objects.filter(organization=org, listing="home_undo").latest("at")
    card = card_open(org=org, kind="budget", subject=f"budget:{agent.id}", title=f"{prefix}: raise the budget",
                     data={"agent_id": str(agent.id)})
    try_again = card_open(org=org, kind="try_again", subject=f"try_again:{thread.id}",
                          title=f"{prefix}: work couldn't finish", data={"conversation_id": str(thread.id)})
    return World(org=org, agent=agent, chat=chat, thread=thread, work=work, contact=contact, company=company,
                 entry=entry, project=project, doc=doc, note=note, change=change, card=card, try_again=try_again)


@pytest.fixture
def mine(org) -> World:
    return build_world(org, "Mine")


@pytest.fixture
def theirs(other_org) -> World:
    return build_world(other_org, "Theirs")


def an_hour_ago() -> datetime.datetime:
    return timezone.now() - datetime.timedelta(hours=1)
