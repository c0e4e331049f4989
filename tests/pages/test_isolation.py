"""Every page sees only the signer's workspace: owner A, with B's ids, gets a 404 from every page and every
button, nothing of B's changes, and nothing of B's shows on A's own pages."""

from __future__ import annotations

import pytest
from django.urls import reverse

from agents.models import Agent
from core.actors import Actor
from core.context import ToolContext
from core.models import Change
from records.models import Contact, DocNote, LogEntry, TimelineEntry
from routines.models import Routine
from tests.pages.conftest import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def b(other):
    """B's workspace, with an entry taken off its timeline (Undo waiting on B's log) and a note on B's doc."""
    ctx = ToolContext(org=other.org, actor=Actor.for_agent(other.agent), conversation_id="thread-b")
    run(ctx, "companies.unrecord", companyId=str(other.company.id), entryId=str(other.entry.id))
    other.unrecorded = LogEntry.objects.get(company=other.company, kind="unrecorded")
    other.context_entry = LogEntry.objects.get(contact=other.contact, kind="context")
    return other


def b_pages(b) -> list[str]:
    return [
        reverse("pages:contact", args=[b.contact.id]),
        reverse("pages:company", args=[b.company.id]),
        reverse("pages:doc", args=[b.doc.id]),
        reverse("pages:doc_version", args=[b.doc.id, 1]),
        reverse("pages:docs") + f"?project={b.project.id}",
    ]


def test_every_page_with_b_ids_is_404(owner, ws, b):
    assert {url: owner.get(url).status_code for url in b_pages(b)} == {url: 404 for url in b_pages(b)}


def b_buttons(ws, b) -> list[tuple[str, dict]]:
    return [
        (reverse("pages:contact_log_undo", args=[b.contact.id, b.context_entry.id]), {}),
        # A's own record with B's log entry, and B's record with A's entry: neither is A's entry on A's record.
        (reverse("pages:contact_log_undo", args=[ws.contact.id, b.context_entry.id]), {}),
        (reverse("pages:company_log_undo", args=[b.company.id, b.unrecorded.id]), {}),
        (reverse("pages:company_log_undo", args=[ws.company.id, b.unrecorded.id]), {}),
        (reverse("pages:doc_note", args=[b.doc.id]), {"note": "Mine now?"}),
        (reverse("pages:agent_budget", args=[b.agent.id]), {"monthly_budget": "9999"}),
        (reverse("pages:routine_on", args=[b.routine.id]), {"on": "0"}),
    ]


def test_every_button_with_b_ids_is_404(owner, ws, b):
    codes = {url: owner.post(url, data).status_code for url, data in b_buttons(ws, b)}
    assert codes == {url: 404 for url, _ in b_buttons(ws, b)}


def test_b_buttons_change_nothing_of_b(owner, ws, b):
    for url, data in b_buttons(ws, b):
        owner.post(url, data)
    assert (
        Contact.objects.get(id=b.contact.id).context == "Zelda prefers a call to email."
        and TimelineEntry.objects.get(id=b.entry.id).removed_at is not None
        and not DocNote.objects.filter(doc=b.doc).exists()
        and Agent.objects.get(id=b.agent.id).monthly_budget == 60
        and Routine.objects.get(id=b.routine.id).status == "on"
        and not Change.objects.filter(organization=b.org, undoes__isnull=False).exists()
    )


A_PAGES = ["pages:contacts", "pages:companies", "pages:docs", "pages:agents", "pages:routines"]


@pytest.mark.parametrize("name", A_PAGES)
def test_a_lists_show_nothing_of_b(owner, ws, b, name):
    body = owner.get(reverse(name)).content.decode()
    assert "Zelda" not in body and str(b.org.id) not in body


def test_a_records_show_nothing_of_b(owner, ws, b):
    pages = [
        reverse("pages:contact", args=[ws.contact.id]), reverse("pages:company", args=[ws.company.id]),
        reverse("pages:doc", args=[ws.doc.id]),
    ]
    assert not [url for url in pages if "Zelda" in owner.get(url).content.decode()]


def test_a_search_finds_nothing_of_b(owner, ws, b):
    found = [owner.get(reverse(name), {"q": "Zelda"}).content.decode() for name in (
        "pages:contacts", "pages:companies", "pages:docs",
    )]
    assert not [
        body for body in found if "Zelda Whitfield" in body or "Zelda Dental" in body or "Zelda rebrand" in body
    ]


def test_a_doc_linking_b_records_shows_them_as_plain_text(owner, ws, b):
    from docs import services as doc_services

    doc_services.doc_write(
        org=ws.org,
        actor=Actor.for_agent(ws.agent),
        title=ws.doc.title,
        doc=ws.doc,
        text=f"[Z](roadstar:contact/{b.contact.id}) [ZD](roadstar:company/{b.company.id}) "
             f"[zdoc](roadstar:doc/{b.doc.id}) "
        f"[za](roadstar:agent/{b.agent.id}) [zp](roadstar:project/{b.project.id})",
    )
    body = owner.get(reverse("pages:doc", args=[ws.doc.id])).content.decode()
    assert not [str(i) for i in (b.contact.id, b.company.id, b.doc.id, b.agent.id, b.project.id) if str(i) in body]


def test_a_signer_without_a_workspace_gets_404(client, django_user_model):
    user = django_user_model.objects.create_user("drifter", password="x")
    client.force_login(user)
    assert {client.get(reverse(name)).status_code for name in A_PAGES} == {404}
