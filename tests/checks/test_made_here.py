"""Made here: only a record this piece of work created is its own to change without the owner's yes.

Issue 10, finding 1: `contacts.note` needs no yes but recorded a "makes" change on the contact it went on, and
the check then counted that contact as made by this work, so a checked rewrite of its email went. Every tool that
needs no yes is tried here on a record that was there: none of them may unlock a checked change of that record.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from checks import reasons
from checks.models import CheckDecision
from core.actors import Actor
from core.context import ToolContext
from core.models import Change
from records.models import CompanyPerson
from tests.factories import AgentFactory, CompanyFactory, ContactFactory, DocFactory, ProjectFactory
from tools.pipeline import made_here, use_tool

pytestmark = pytest.mark.django_db

# The owner asked for nothing that any of the checked actions below would do.
WORDS = [{"role": "owner", "text": "Look after the Juniper Dental account this week."}]


@pytest.fixture
def checked(org):
    org.check_enabled = True
    org.save(update_fields=["check_enabled"])
    agent = AgentFactory(organization=org, name="Client desk")
    return ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-7", work_id="work-7",
                       conversation=lambda: WORDS)


@pytest.fixture
def records(org):
    dana = ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    juniper = CompanyFactory(organization=org, name="Juniper Dental", context="Pays on the 1st.")
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana)
    project = ProjectFactory(organization=org, name="Juniper Dental rebrand")
    doc = DocFactory(organization=org, project=project, title="Juniper kickoff notes", text="")
    quote = DocFactory(organization=org, project=project, title="Juniper quote", text="# Quote\n\nTotal: $8,400")
    return {"dana": str(dana.id), "juniper": str(juniper.id), "project": str(project.id), "doc": str(doc.id),
            "quote": str(quote.id)}


def _next_week() -> str:
    return (timezone.now() + timedelta(days=7)).replace(microsecond=0).isoformat()


# Each no-yes action on a record that was there, then a checked change of that same record.
NO_YES_THEN_CHECKED = {
    "contacts.note": (
        lambda r: {"contactId": r["dana"], "text": "Called about the second clinic."},
        ("contacts.update", lambda r: {"contactId": r["dana"], "emails": ["dana.w@juniper-billing.test"]}),
    ),
    "contacts.follow_up": (
        lambda r: {"contactId": r["dana"], "text": "Check on the signage", "at": _next_week()},
        ("contacts.update", lambda r: {"contactId": r["dana"], "emails": ["dana.w@juniper-billing.test"]}),
    ),
    "contacts.link_project": (
        lambda r: {"contactId": r["dana"], "projectId": r["project"]},
        ("contacts.update", lambda r: {"contactId": r["dana"], "emails": ["dana.w@juniper-billing.test"]}),
    ),
    "companies.open": (
        lambda r: {"companyId": r["juniper"], "add": {"kind": "you", "text": "Send the signage mockups"}},
        ("companies.context", lambda r: {"companyId": r["juniper"], "text": "Pays late.", "why": "tidy"}),
    ),
    "companies.link_person": (
        lambda r: {"contactId": r["dana"], "companyId": r["juniper"], "role": "Practice manager"},
        ("companies.context", lambda r: {"companyId": r["juniper"], "text": "Pays late.", "why": "tidy"}),
    ),
    "companies.record": (
        lambda r: {"companyId": r["juniper"], "kind": "call", "title": "Kickoff call", "at": "2026-11-10T15:00:00Z"},
        ("companies.context", lambda r: {"companyId": r["juniper"], "text": "Pays late.", "why": "tidy"}),
    ),
    "docs.write": (
        # The first draft of a doc that was there (empty): the doc is the owner's, not this work's.
        lambda r: {"docId": r["doc"], "title": "Juniper kickoff notes", "text": "# Kickoff\n\nSignage first."},
        ("docs.edit", lambda r: {"docId": r["doc"], "edits": [{"find": "Signage first.", "replace": "Logo first."}]}),
    ),
}


@pytest.mark.parametrize("tool", sorted(NO_YES_THEN_CHECKED))
def test_a_no_yes_action_on_a_record_that_was_there_never_unlocks_a_checked_one(checked, records, tool):
    no_yes, (checked_tool, checked_input) = NO_YES_THEN_CHECKED[tool]
    if checked_tool != "docs.edit":
        assert "not_done_yet" in use_tool(checked, checked_tool, checked_input(records))
    done = use_tool(checked, tool, no_yes(records))
    assert "error" not in (done or {}) and "not_done_yet" not in (done or {}), done
    # What it made (a timeline entry) may be this work's own; the records that were there never are.
    own = {item.split(":", 1)[1] for item in made_here(checked)}
    assert Change.objects.filter(tool=tool).exists() and not own & set(records.values())
    again = use_tool(checked, checked_tool, checked_input(records))
    assert "not_done_yet" in again, again
    assert CheckDecision.objects.filter(tool=checked_tool).latest("created_at").reason == reasons.REMOVES


@pytest.fixture
def research_records(org, records):
    """A research page and a research table that were there before this work (the research groups turned on)."""
    from records.models import Project
    from research import page_services
    from research import services as research_services
    from research.models import Dataset

    research_services.research_settings_set(org=org, pages=True, tables=True)
    project = Project.objects.get(id=records["project"])
    page = page_services.page_request(org=org, project=project, question="How many dental practices in Portland?")
    plan = {"row": "a dental practice", "rule": "in Portland", "queries": ["dental practices Portland"],
            "columns": [{"name": "practice", "label": "Practice", "type": "text", "identifies": True},
                        {"name": "chairs", "label": "Chairs", "type": "number", "identifies": False}]}
    table = Dataset.objects.create(organization=org, name="Portland practices", question="Dental practices?",
                                   plan=plan, model="gpt-6-luna")
    return {"page": str(page.id), "table": str(table.id)}


# Each no-yes action on a research page or table that was there. The checked tools over these records (pages.update
# and move, tables.research_rows and accept_cell) take the check's asks in their own tests; what matters here is
# that what these record never makes the page or table this work's own, which is what would let them past it.
NO_YES_ON_RESEARCH = {
    "pages.mark": lambda r: {"pageId": r["page"], "action": "follow", "enabled": True},
    "comments.comment": lambda r: {"pageId": r["page"], "text": "Worth a second look at the 2024 figure."},
    "tables.add_row": lambda r: {"datasetId": r["table"], "identity": {"practice": "Juniper Dental"}},
}


@pytest.mark.parametrize("tool", sorted(NO_YES_ON_RESEARCH))
def test_a_no_yes_action_on_a_research_record_that_was_there_never_makes_it_this_work_s(
        checked, research_records, tool):
    done = use_tool(checked, tool, NO_YES_ON_RESEARCH[tool](research_records))
    assert "error" not in (done or {}) and "not_done_yet" not in (done or {}), done
    assert Change.objects.filter(tool=tool).exists()
    own = {item.split(":", 1)[1] for item in made_here(checked)}
    assert not own & set(research_records.values())


def test_the_tools_that_need_no_yes_are_all_tried_or_make_only_new_records():
    """A tool added later that needs no yes must be placed here: tried on a record that was there, or listed
    among those whose change names only what they made."""
    from tools import registry

    makes = {t.name for t in registry.TOOLS.values()
             if not callable(t.kind) and t.kind == "makes"} | {"docs.write", "companies.open", "files.save"}
    only_new = {"contacts.create", "contacts.add_many", "companies.create", "projects.create", "files.copy",
                "files.folder", "files.create_doc", "files.create_sheet", "files.save", "files.save_attachment",
                "mail.draft", "calendar.hold", "integrations.connect",
                # A proposal, and the owner's own Add or Share from Home: the change names the template, which no
                # checked tool takes as its target.
                "templates.propose_add", "templates.propose_share",
                # Always checked for their cost; the change names the new page or table.
                "pages.request", "tables.build"}
    assert makes - only_new == set(NO_YES_THEN_CHECKED) | set(NO_YES_ON_RESEARCH)


def test_what_this_work_created_is_its_own(checked, records):
    made = use_tool(checked, "contacts.create", {"name": "Priya Shah", "emails": ["priya@shahlaw.test"]})
    assert made_here(checked) == [f"contact:{made['id']}"]
    changed = use_tool(checked, "contacts.update", {"contactId": made["id"], "emails": ["priya@shah-law.test"]})
    assert "not_done_yet" not in changed and changed["emails"] == ["priya@shah-law.test"]


def test_a_note_on_a_contact_this_work_created_keeps_it_its_own(checked):
    made = use_tool(checked, "contacts.create", {"name": "Priya Shah", "emails": ["priya@shahlaw.test"]})
    use_tool(checked, "contacts.note", {"contactId": made["id"], "text": "Met at the expo."})
    assert made_here(checked) == [f"contact:{made['id']}"]


def test_a_new_doc_is_this_works_own_and_its_first_draft_into_the_owners_doc_is_not(checked, records):
    new = use_tool(checked, "docs.write", {"projectId": records["project"], "title": "Signage options",
                                           "text": "# Options\n\nA or B."})
    use_tool(checked, "docs.write", {"docId": records["doc"], "title": "Juniper kickoff notes", "text": "Notes."})
    assert made_here(checked) == [f"doc:{new['pageId']}"]


def test_what_another_piece_of_work_created_is_not_this_ones(checked, org):
    use_tool(checked, "contacts.create", {"name": "Priya Shah"})
    later = ToolContext(org=org, actor=checked.actor, conversation_id="thread-8", work_id="work-8",
                        conversation=lambda: WORDS)
    assert made_here(later) == []


def test_the_migration_marks_only_creations_of_before_as_made(org):
    """Changes kept before `created` existed: a creating tool's "makes" counts, a note on a contact does not."""
    from importlib import import_module

    from django.apps import apps

    def kept(tool, sentence="x", kind="makes"):
        return Change.objects.create(organization=org, actor_kind="agent", actor_id="a1", actor_name="Client desk",
                                     tool=tool, kind=kind, sentence=sentence, listing="record", target_type="contact",
                                     target_id="c1")

    note, made, draft, new_doc, recorded_again = (
        kept("contacts.note"), kept("contacts.create"), kept("docs.write", 'wrote the first draft of the doc "A"'),
        kept("docs.write", 'wrote the doc "B"'), kept("companies.record", kind="changes"))
    import_module("core.migrations.0005_change_created").mark_created(apps, None)
    assert [Change.objects.get(id=c.id).created for c in (note, made, draft, new_doc, recorded_again)] == [
        False, True, False, True, False]
