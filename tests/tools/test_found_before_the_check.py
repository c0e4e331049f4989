"""A checked tool finds what it acts on before the check asks the owner: another workspace's id (or one that
names nothing) is not_found at once, with no ask on Home and no decision kept, for every checked tool that names a
record or a thing in one of the owner's apps."""

from __future__ import annotations

import pytest
from django.utils import timezone

from checks.models import Ask, CheckDecision
from core.actors import Actor
from docs import services as doc_services
from integrations.services import connection_create_local
from records.models import OpenItem, TimelineEntry
from research import page_services
from research import services as research_services
from research.models import Dataset
from tests.factories import CompanyFactory, ContactFactory, DocFactory, ProjectFactory

WORDS = "Tidy up the records, please."


@pytest.fixture
def theirs(other_org) -> dict:
    owner = Actor.for_user(other_org.owner)
    contact = ContactFactory(organization=other_org, name="Their Dana", emails=["dana@theirs.test"])
    company = CompanyFactory(organization=other_org, name="Their Dental")
    entry = TimelineEntry.objects.create(organization=other_org, company=company, kind="mail", title="Kickoff",
                                         at=timezone.now(), by=owner.by())
    item = OpenItem.objects.create(organization=other_org, company=company, kind="you", text="Send the quote",
                                   at=timezone.now(), by_kind="user", by_id=str(other_org.owner_id))
    project = ProjectFactory(organization=other_org, name="Their rebrand")
    doc = DocFactory(organization=other_org, project=project, title="Their proposal", text="## Scope\nThe logo.")
    note = doc_services.doc_note_add(org=other_org, actor=owner, doc=doc, on="", note="Shorter?")
    account = connection_create_local(org=other_org, account="alex@other.test", groups=["mail", "files"])
    page = page_services.page_request(org=other_org, project=project, question="Their question")
    dataset = Dataset.objects.create(organization=other_org, name="Their table", question="Their question", plan={},
                                     model="gpt-6-luna")
    return {"page": str(page.id), "dataset": str(dataset.id), "contact": str(contact.id), "company": str(company.id),
            "entry": str(entry.id), "item": str(item.id), "project": str(project.id), "doc": str(doc.id),
            "note": str(note.id), "file": f"{account.account_key}:1", "thread": f"{account.account_key}:t1"}


@pytest.fixture
def mine(org) -> dict:
    project = ProjectFactory(organization=org, name="Rebrand")
    doc = DocFactory(organization=org, project=project, title="Proposal", text="## Scope\nThe logo.")
    connection_create_local(org=org, account="sam@fernhill.test", groups=["mail", "files"])
    research_services.research_settings_set(org=org, pages=True, tables=True)  # the optional groups, so they run
    return {"doc": str(doc.id), "contact": str(ContactFactory(organization=org, name="Dana Whitfield").id)}


CALLS = {
    "contacts.update": lambda t, m: {"contactId": t["contact"], "name": "Dana W"},
    "contacts.context": lambda t, m: {"contactId": t["contact"], "text": "Prefers mornings", "why": "She said so"},
    "companies.update": lambda t, m: {"companyId": t["company"], "name": "Juniper", "why": "Renamed"},
    "companies.about": lambda t, m: {"companyId": t["company"], "text": "A dental clinic [1].",
                                     "sources": [{"title": "Site", "url": "https://juniper.test"}]},
    "companies.context": lambda t, m: {"companyId": t["company"], "text": "Call first", "why": "Asked"},
    "companies.unrecord": lambda t, m: {"companyId": t["company"], "entryId": t["entry"]},
    "companies.open": lambda t, m: {"companyId": t["company"], "done": t["item"]},
    "docs.write": lambda t, m: {"docId": t["doc"], "title": "Proposal", "text": "## New"},
    "docs.edit": lambda t, m: {"docId": t["doc"], "edits": [{"find": "logo", "replace": "site"}]},
    "docs.answer": lambda t, m: {"docId": t["doc"], "noteId": t["note"], "outcome": "kept", "text": "Kept it."},
    "projects.update": lambda t, m: {"projectId": t["project"], "name": "Rebrand 2", "description": ""},
    "files.move": lambda t, m: {"ids": [t["file"]], "folderId": t["file"]},
    "files.rename": lambda t, m: {"id": t["file"], "name": "Old"},
    "files.append_text": lambda t, m: {"id": t["file"], "text": "More"},
    "files.append_rows": lambda t, m: {"id": t["file"], "range": "A:B", "values": [["a", "b"]]},
    "files.update_cells": lambda t, m: {"id": t["file"], "range": "A1", "values": [["a"]]},
    "files.replace_text": lambda t, m: {"id": t["file"], "find": "a", "replace": "b"},
    "files.save": lambda t, m: {"workspace": "report.pdf", "over": t["file"]},
    "mail.send": lambda t, m: {"to": ["dana@juniperdental.test"], "subject": "Hi", "text": "Hello",
                               "threadId": t["thread"]},
    "pages.request": lambda t, m: {"question": "How many coffee shops?", "projectId": t["project"]},
    "pages.update": lambda t, m: {"pageId": t["page"], "edits": [{"label": "x", "find": "9", "replace": "8"}],
                                  "source": {"label": "Site", "href": "https://site.test/"}},
    "pages.move": lambda t, m: {"pageId": t["page"], "projectId": t["project"]},
    "tables.build": lambda t, m: {"question": "Coffee chains in the UK", "projectId": t["project"]},
    "tables.research_rows": lambda t, m: {"datasetId": t["dataset"], "rowKeys": ["costa"]},
    "tables.accept_cell": lambda t, m: {"datasetId": t["dataset"], "key": "costa", "column": "outlets"},
}
# The same with one of their ids among ids of mine: each is found, wherever it is in the input.
MIXED = {
    "docs.answer (their note on my doc)": ("docs.answer", lambda t, m: {"docId": m["doc"], "noteId": t["note"],
                                                                         "outcome": "kept", "text": "Kept it."}),
    "docs.edit (their note among the answers)": ("docs.edit", lambda t, m: {
        "docId": m["doc"], "edits": [{"find": "logo", "replace": "site"}],
        "answers": [{"noteId": t["note"], "outcome": "kept", "text": "Kept."}]}),
    "mail.send (their file attached)": ("mail.send", lambda t, m: {
        "to": ["dana@juniperdental.test"], "subject": "Hi", "text": "Hello", "attach": [{"file": t["file"]}]}),
}


def test_every_checked_tool_that_names_a_record_is_tried():
    from tools import registry

    checked = {name for name, tool in registry.TOOLS.items() if tool.owners_yes != "No"}
    assert checked == set(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_another_workspaces_id_is_not_found_before_any_ask(owner_says, org, theirs, mine, name):
    result = use(owner_says(WORDS), name, CALLS[name](theirs, mine))
    assert result["error"] == "not_found", result
    assert (Ask.objects.filter(organization=org).count(), CheckDecision.objects.filter(organization=org).count()) \
        == (0, 0)


@pytest.mark.parametrize("case", sorted(MIXED))
def test_one_of_their_ids_among_mine_is_not_found_before_any_ask(owner_says, org, theirs, mine, case):
    name, call = MIXED[case]
    result = use(owner_says(WORDS), name, call(theirs, mine))
    assert result["error"] == "not_found", result
    assert Ask.objects.filter(organization=org).count() == 0


def test_the_message_names_the_input(owner_says, theirs, mine):
    result = use(owner_says(WORDS), "docs.answer", MIXED["docs.answer (their note on my doc)"][1](theirs, mine))
    assert result["message"] == f"noteId: no note with id {theirs['note']} in this workspace."


def test_the_same_action_on_a_record_of_mine_is_asked_about(owner_says, org, mine):
    """The control: with these words the check asks, so a not_found above came before it."""
    result = use(owner_says(WORDS), "contacts.update", {"contactId": mine["contact"], "name": "Dana W"})
    assert "not_done_yet" in result, result


def use(ctx, name, inp):
    from tools.pipeline import use_tool

    return use_tool(ctx, name, inp)
