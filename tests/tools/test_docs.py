"""The docs group: list, read, write, edit, answer, as spec/tools/docs.md says."""

import datetime
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.actors import Actor
from core.models import Change
from core.timefmt import iso
from docs import services
from records.models import Doc, DocNote, DocVersion
from tests.factories import DocFactory, ProjectFactory
from tools import registry
from tools.pipeline import use_tool

TEXT = "## Scope\n\n- Logo and a one-page brand guide\n- Signage for two clinics\n\n## Price\n\n$8,400 in total."


def _bad(out: dict, field: str) -> bool:
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


def _tool(name: str) -> registry.Tool:
    return registry.get_tool(name)


@pytest.fixture
def project(org):
    return ProjectFactory(organization=org, name="Juniper Dental rebrand")


@pytest.fixture
def doc(org, project):
    return DocFactory(organization=org, project=project, title="Juniper Dental rebrand quote", text=TEXT)


@pytest.fixture
def owner(org):
    return Actor.for_user(org.owner)


@pytest.fixture
def note(org, doc, owner):
    return services.doc_note_add(org=org, actor=owner, doc=doc, on="$8,400 in total.", note="Add the deposit terms")


def _state(doc) -> tuple:
    doc.refresh_from_db()
    return doc.text, doc.version, doc.versions.count()


def _checked(ctx, name: str, inp: dict) -> bool:
    tool = _tool(name)
    return tool.is_checked(ctx, tool.input.model_validate(inp))


# --- list -----------------------------------------------------------------------------------------------


def test_list_gives_each_doc_in_the_spec_shape(use, doc, project):
    item = use("docs.list")["items"][0]
    assert item == {
        "id": str(doc.id),
        "title": "Juniper Dental rebrand quote",
        "type": "doc",
        "projectId": str(project.id),
        "projectName": "Juniper Dental rebrand",
        "status": "draft",
        "generationStatus": None,
        "updatedAt": iso(doc.updated_at),
    }


def test_list_puts_the_doc_written_last_first(use, org):
    older, newer = DocFactory(organization=org), DocFactory(organization=org)
    Doc.objects.filter(id=newer.id).update(updated_at=timezone.now() + datetime.timedelta(minutes=1))
    assert [i["id"] for i in use("docs.list")["items"]] == [str(newer.id), str(older.id)]


def test_list_in_one_project(use, org, doc, project):
    DocFactory(organization=org)
    assert [i["id"] for i in use("docs.list", projectId=str(project.id))["items"]] == [str(doc.id)]


def test_list_by_part_of_the_title_in_any_case(use, org, doc):
    DocFactory(organization=org, title="Bookkeeping checklist")
    assert [i["id"] for i in use("docs.list", title="DENTAL REBRAND")["items"]] == [str(doc.id)]


def test_list_pages_by_50(use, org, project):
    DocFactory.create_batch(51, organization=org, project=project)
    first = use("docs.list")
    second = use("docs.list", offset=first["nextOffset"])
    assert (len(first["items"]), first["nextOffset"], len(second["items"]), second["nextOffset"]) == (50, 50, 1, None)


def test_list_costs_the_same_queries_for_a_long_page(ctx, org):
    DocFactory(organization=org)
    with CaptureQueriesContext(connection) as few:
        use_tool(ctx, "docs.list", {})
    DocFactory.create_batch(10, organization=org)
    with CaptureQueriesContext(connection) as many:
        use_tool(ctx, "docs.list", {})
    assert len(many) == len(few)


def test_list_leaves_out_other_workspaces(use, other_org):
    DocFactory(organization=other_org)
    assert use("docs.list")["items"] == []


def test_list_in_another_workspaces_project_is_not_found(use, other_org):
    theirs = ProjectFactory(organization=other_org)
    assert use("docs.list", projectId=str(theirs.id))["error"] == "not_found"


@pytest.mark.parametrize(
    "inp, field",
    [({"title": "x" * 301}, "title"), ({"offset": -1}, "offset"), ({"projectId": "juniper"}, "projectId")],
)
def test_list_limits(use, inp, field):
    assert _bad(use("docs.list", **inp), field)


# --- read -----------------------------------------------------------------------------------------------


def test_read_gives_the_doc(use, org, project):
    doc = DocFactory(
        organization=org, project=project, title="Monthly report", text=TEXT, brief="What moved this month",
        read_first=[{"kind": "table", "id": "t1", "label": "Invoices"}], updates="monthly",
    )
    assert use("docs.read", docId=str(doc.id)) == {
        "id": str(doc.id),
        "title": "Monthly report",
        "projectId": str(project.id),
        "brief": "What moved this month",
        "readFirst": [{"kind": "table", "id": "t1", "label": "Invoices"}],
        "updates": "monthly",
        "text": TEXT,
        "notes": [],
    }


def test_read_gives_the_owners_open_notes(use, doc, note):
    assert use("docs.read", docId=str(doc.id))["notes"] == [
        {"noteId": str(note.id), "on": "$8,400 in total.", "note": "Add the deposit terms"}
    ]


def test_read_leaves_out_answered_notes_and_answers(use, ctx, doc, note):
    services.doc_note_answer(org=ctx.org, actor=ctx.actor, doc=doc, note_id=note.id, outcome="kept", text="As agreed")
    assert use("docs.read", docId=str(doc.id))["notes"] == []


def test_read_of_another_workspaces_doc_is_not_found(use, other_org):
    theirs = DocFactory(organization=other_org)
    assert use("docs.read", docId=str(theirs.id))["error"] == "not_found"


@pytest.mark.parametrize("inp, field", [({}, "docId"), ({"docId": "quote"}, "docId")])
def test_read_limits(use, inp, field):
    assert _bad(use("docs.read", **inp), field)


# --- write ----------------------------------------------------------------------------------------------


def test_write_makes_a_new_doc_in_the_project(use, org, project):
    out = use("docs.write", projectId=str(project.id), title="Juniper Dental rebrand quote", text=TEXT)
    doc = Doc.objects.get(id=out["pageId"])
    assert (doc.organization_id, doc.project_id, doc.title, doc.text, doc.version) == (
        org.id, project.id, "Juniper Dental rebrand quote", TEXT, 1
    )


def test_write_returns_the_page_and_its_first_version(use, project):
    out = use("docs.write", projectId=str(project.id), title="Quote", text=TEXT)
    version = DocVersion.objects.get(doc_id=out["pageId"])
    assert out == {"pageId": str(version.doc_id), "versionId": str(version.id), "version": 1}


def test_write_keeps_the_lines_on_the_version(use, ctx, project):
    lines = ["Priced from the 2026 rate card: logo $4,800, signage $3,600."]
    out = use("docs.write", projectId=str(project.id), title="Quote", text=TEXT, lines=lines)
    version = DocVersion.objects.get(id=out["versionId"])
    assert (version.lines, version.text, version.by) == (lines, TEXT, ctx.actor.by())


def test_write_without_a_project_goes_in_the_agents_own_project(use, agent):
    # projectId is optional (spec/tools/docs.md): the doc goes in the project the agent files into.
    out = use("docs.write", title="Quote", text=TEXT)
    doc = Doc.objects.get(id=out["pageId"])
    assert (doc.project.name, doc.project.agent) == ("Client desk's docs", agent)
    again = use("docs.write", title="Brief", text=TEXT)
    assert Doc.objects.get(id=again["pageId"]).project_id == doc.project_id
    assert Change.objects.get(target_id=str(doc.id)).sentence == 'wrote the doc "Quote" in "Client desk\'s docs"'


def test_write_without_a_project_goes_where_its_thread_filed_before(use, ctx, project, agent):
    use("docs.write", projectId=str(project.id), title="Quote", text=TEXT)
    out = use("docs.write", title="Signage brief", text=TEXT)
    assert Doc.objects.get(id=out["pageId"]).project_id == project.id
    # Another thread of the same agent has filed nowhere yet: its doc goes in the agent's own project.
    from dataclasses import replace

    elsewhere = use("docs.write", _ctx=replace(ctx, conversation_id="thread-9"), title="Notes", text=TEXT)
    assert Doc.objects.get(id=elsewhere["pageId"]).project.agent == agent


def test_write_without_a_project_goes_in_the_project_its_thread_made(use, ctx):
    made = use("projects.create", name="Ortiz Bakery menu boards")
    out = use("docs.write", title="Menu boards brief", text=TEXT)
    assert str(Doc.objects.get(id=out["pageId"]).project_id) == made["id"]


def test_each_agent_has_its_own_project_and_other_workspaces_are_apart(org, other_org, agent):
    from core.context import ToolContext
    from tests.factories import AgentFactory

    org.check_enabled = False
    org.save()
    writer = AgentFactory(organization=org, name="Proposal writer")
    theirs = AgentFactory(organization=other_org, name="Client desk")
    docs = [use_tool(ToolContext(org=o, actor=Actor.for_agent(a)), "docs.write", {"title": "Quote", "text": TEXT})
            for o, a in ((org, agent), (org, writer), (other_org, theirs))]
    projects = [Doc.objects.get(id=d["pageId"]).project for d in docs]
    assert [p.name for p in projects] == ["Client desk's docs", "Proposal writer's docs", "Client desk's docs"]
    assert len({p.id for p in projects}) == 3 and projects[2].organization == other_org


def test_write_without_a_project_by_the_owner_asks_for_one(org, owner):
    from core.context import ToolContext

    org.check_enabled = False
    org.save()
    out = use_tool(ToolContext(org=org, actor=owner), "docs.write", {"title": "Quote", "text": TEXT})
    assert _bad(out, "projectId") and "every doc goes in a project" in out["message"]
    assert not Doc.objects.exists()


def test_write_in_another_workspaces_project_is_not_found(use, other_org):
    theirs = ProjectFactory(organization=other_org)
    out = use("docs.write", projectId=str(theirs.id), title="Quote", text=TEXT)
    assert (out["error"], Doc.objects.count()) == ("not_found", 0)


def test_write_into_a_doc_rewrites_it_as_the_next_version(use, doc):
    out = use("docs.write", docId=str(doc.id), title="Juniper Dental quote, revised", text="## Scope\n\nLogo only.")
    doc.refresh_from_db()
    assert (out["version"], doc.version, doc.title, doc.text) == (
        2, 2, "Juniper Dental quote, revised", "## Scope\n\nLogo only."
    )


def test_write_keeps_every_version(use, doc):
    use("docs.write", docId=str(doc.id), title="Quote", text="Second")
    use("docs.write", docId=str(doc.id), title="Quote", text="Third")
    assert [(v.number, v.text) for v in doc.versions.order_by("number")] == [(1, TEXT), (2, "Second"), (3, "Third")]


def test_write_into_a_doc_with_its_own_project_is_taken(use, doc, project):
    out = use("docs.write", docId=str(doc.id), projectId=str(project.id), title="Quote", text="Second")
    assert out["version"] == 2


def test_write_into_a_doc_with_another_project_is_refused(use, org, doc):
    other = ProjectFactory(organization=org)
    out = use("docs.write", docId=str(doc.id), projectId=str(other.id), title="Quote", text="Second")
    assert _bad(out, "projectId") and _state(doc)[1] == 1


def test_write_first_draft_of_a_doc_asked_for(use, org, project):
    asked = Doc.objects.create(organization=org, project=project, title="Onboarding checklist", brief="For new hires")
    out = use("docs.write", docId=str(asked.id), title="Onboarding checklist", text="- Laptop\n- Keys")
    asked.refresh_from_db()
    assert (out["version"], asked.text, asked.brief) == (1, "- Laptop\n- Keys", "For new hires")


def test_write_of_a_new_doc_needs_no_yes(ctx, project):
    assert not _checked(ctx, "docs.write", {"projectId": str(project.id), "title": "Quote", "text": TEXT})


def test_write_into_a_doc_that_has_text_is_checked(ctx, doc):
    assert _checked(ctx, "docs.write", {"docId": str(doc.id), "title": "Quote", "text": TEXT})


def test_write_of_a_first_draft_needs_no_yes(ctx, org, project):
    asked = Doc.objects.create(organization=org, project=project, title="Onboarding checklist")
    assert not _checked(ctx, "docs.write", {"docId": str(asked.id), "title": "Checklist", "text": TEXT})


def test_write_into_an_unknown_doc_is_checked(ctx):
    assert _checked(ctx, "docs.write", {"docId": str(uuid.uuid4()), "title": "Quote", "text": TEXT})


def test_write_of_a_new_doc_is_listed_on_home_as_made(use, project):
    out = use("docs.write", projectId=str(project.id), title="Quote", text=TEXT)
    change = Change.objects.get(tool="docs.write")
    assert (change.listing, change.kind, change.target_type, change.target_id, change.sentence, change.undo) == (
        "home", "makes", "doc", out["pageId"], 'wrote the doc "Quote"', None
    )


def test_write_of_a_rewrite_is_listed_on_home_as_a_change(use, doc):
    use("docs.write", docId=str(doc.id), title="Quote", text="Second")
    change = Change.objects.get(tool="docs.write")
    assert (change.listing, change.kind, change.sentence) == ("home", "changes", 'rewrote the doc "Quote"')


def test_write_of_a_first_draft_is_recorded_as_made(use, org, project):
    asked = Doc.objects.create(organization=org, project=project, title="Checklist")
    use("docs.write", docId=str(asked.id), title="Checklist", text="- Keys")
    change = Change.objects.get(tool="docs.write")
    assert (change.kind, change.sentence) == ("makes", 'wrote the first draft of the doc "Checklist"')


def test_write_replaces_gives_the_doc_and_its_whole_text(ctx, org, project):
    # Whole: the check compares line by line what a rewrite would drop, to the last line.
    doc = DocFactory(organization=org, project=project, title="Quote", text="x" * 600 + "\nLast line")
    tool = _tool("docs.write")
    inp = tool.input.model_validate({"docId": str(doc.id), "title": "Quote", "text": "New"})
    assert tool.replaces(ctx, inp) == {"doc": "Quote", "text": "x" * 600 + "\nLast line"}


def test_write_replaces_nothing_for_a_new_doc(ctx, project):
    tool = _tool("docs.write")
    inp = tool.input.model_validate({"projectId": str(project.id), "title": "Quote", "text": "New"})
    assert tool.replaces(ctx, inp) is None


def test_write_into_another_workspaces_doc_is_not_found(use, other_org):
    theirs = DocFactory(organization=other_org, text="Theirs")
    out = use("docs.write", docId=str(theirs.id), title="Mine", text="Mine")
    assert (out["error"], _state(theirs)[:2]) == ("not_found", ("Theirs", 1))


def test_write_takes_the_longest_text(use, project):
    assert use("docs.write", projectId=str(project.id), title="t" * 300, text="x" * 100_000)["version"] == 1


@pytest.mark.parametrize(
    "inp, field",
    [
        ({"text": TEXT}, "title"),
        ({"title": "Quote"}, "text"),
        ({"title": "", "text": TEXT}, "title"),
        ({"title": "x" * 301, "text": TEXT}, "title"),
        ({"title": "Quote", "text": ""}, "text"),
        ({"title": "Quote", "text": "x" * 100_001}, "text"),
        ({"title": "Quote", "text": TEXT, "lines": ["a line"] * 21}, "lines"),
        ({"title": "Quote", "text": TEXT, "lines": [""]}, "lines[0]"),
        ({"title": "Quote", "text": TEXT, "lines": ["ok", "x" * 301]}, "lines[1]"),
        ({"title": "Quote", "text": TEXT, "docId": "quote"}, "docId"),
        ({"title": "   ", "text": TEXT, "projectId": None}, "title"),
    ],
)
def test_write_limits(use, project, inp, field):
    if inp.get("projectId", "") is None:
        inp["projectId"] = str(project.id)
    assert _bad(use("docs.write", **inp), field)


# --- edit -----------------------------------------------------------------------------------------------


def _edit(use, doc, *edits, **more):
    return use("docs.edit", docId=str(doc.id), edits=[{"find": f, "replace": r} for f, r in edits], **more)


def test_edit_changes_the_parts_and_keeps_the_rest(use, doc):
    _edit(use, doc, ("$8,400", "$8,900"), ("two clinics", "both clinics"))
    assert _state(doc)[0] == TEXT.replace("$8,400", "$8,900").replace("two clinics", "both clinics")


def test_edit_returns_the_next_version(use, doc):
    out = _edit(use, doc, ("$8,400", "$8,900"))
    version = DocVersion.objects.get(doc=doc, number=2)
    assert out == {"pageId": str(doc.id), "versionId": str(version.id), "version": 2}


def test_edit_keeps_the_version_before(use, doc):
    _edit(use, doc, ("$8,400", "$8,900"))
    assert [(v.number, v.text) for v in doc.versions.order_by("number")] == [
        (1, TEXT), (2, TEXT.replace("$8,400", "$8,900"))
    ]


def test_edit_keeps_the_lines_on_the_version(use, doc):
    _edit(use, doc, ("$8,400", "$8,900"), lines=["Raised the total for the second sign."])
    assert DocVersion.objects.get(doc=doc, number=2).lines == ["Raised the total for the second sign."]


def test_edit_applies_none_when_a_find_is_missing(use, doc):
    before = _state(doc)
    out = _edit(use, doc, ("$8,400", "$8,900"), ("three clinics", "four clinics"))
    assert (_bad(out, "edits[1].find"), "found 0 times" in out["message"], _state(doc)) == (True, True, before)


def test_edit_refuses_a_find_that_occurs_twice(use, doc):
    before = _state(doc)
    out = _edit(use, doc, ("##", "###"))
    assert (_bad(out, "edits[0].find"), "found 2 times" in out["message"], _state(doc)) == (True, True, before)


def test_edit_refuses_finds_that_overlap(use, doc):
    out = _edit(use, doc, ("$8,400 in total", "$8,900 in total"), ("in total.", "all in."))
    assert _bad(out, "edits[1].find") and "overlaps edits[0].find" in out["message"]


def test_edit_finds_words_in_the_text_as_it_is_now_not_after_earlier_edits(use, doc):
    out = _edit(use, doc, ("$8,400", "$9,000"), ("$9,000", "$9,500"))
    assert _bad(out, "edits[1].find")


def test_edit_of_a_doc_with_no_text_is_refused(use, org, project):
    asked = Doc.objects.create(organization=org, project=project, title="Checklist")
    assert _bad(_edit(use, asked, ("a", "b")), "edits")


def test_edit_refuses_a_doc_over_the_limit(use, org, project):
    doc = DocFactory(organization=org, project=project, text="x" * 99_990 + "END")
    assert _bad(_edit(use, doc, ("END", "y" * 20)), "edits")


def test_edit_answers_the_owners_notes(use, doc, note):
    _edit(use, doc, ("$8,400 in total.", "$8,400 in total; half up front."),
          answers=[{"noteId": str(note.id), "outcome": "changed", "text": "Added: half up front."}])
    note.refresh_from_db()
    answer = note.answers.get()
    assert (note.state, answer.note, answer.state, answer.doc_id) == (
        "changed",
        "Added: half up front.",
        "changed",
        doc.id,
    )


def test_edit_answer_kept_keeps_the_note_as_kept(use, doc, note):
    _edit(
        use,
        doc,
        ("$8,400", "$8,900"),
        answers=[{"noteId": str(note.id), "outcome": "kept", "text": "Terms are in the contract"}],
    )
    note.refresh_from_db()
    assert note.state == "kept"


def test_edit_answer_to_a_note_of_another_doc_is_not_found_and_nothing_changes(use, ctx, org, doc, owner):
    elsewhere = DocFactory(organization=org)
    other_note = services.doc_note_add(org=org, actor=owner, doc=elsewhere, on="", note="Shorter")
    before = _state(doc)
    out = _edit(
        use, doc, ("$8,400", "$8,900"), answers=[{"noteId": str(other_note.id), "outcome": "kept", "text": "No"}]
    )
    assert (out["error"], out["message"].startswith("answers[0].noteId:"), _state(doc)) == ("not_found", True, before)


def test_edit_answer_to_an_answered_note_is_refused(use, ctx, doc, note):
    services.doc_note_answer(org=ctx.org, actor=ctx.actor, doc=doc, note_id=note.id, outcome="kept", text="No")
    out = _edit(use, doc, ("$8,400", "$8,900"), answers=[{"noteId": str(note.id), "outcome": "changed", "text": "Did"}])
    assert _bad(out, "answers[0].noteId") and _state(doc)[1] == 1


def test_edit_answering_one_note_twice_is_refused(use, doc, note):
    answer = {"noteId": str(note.id), "outcome": "changed", "text": "Did"}
    assert _bad(_edit(use, doc, ("$8,400", "$8,900"), answers=[answer, answer]), "answers[1].noteId")


def test_edit_answer_to_another_workspaces_note_is_not_found(use, doc, other_org):
    theirs = DocFactory(organization=other_org)
    their_note = services.doc_note_add(org=other_org, actor=Actor.system(), doc=theirs, on="", note="Theirs")
    out = _edit(
        use, doc, ("$8,400", "$8,900"), answers=[{"noteId": str(their_note.id), "outcome": "kept", "text": "No"}]
    )
    their_note.refresh_from_db()
    assert (out["error"], their_note.state) == ("not_found", "open")


def test_edit_is_checked(ctx, doc):
    assert _checked(ctx, "docs.edit", {"docId": str(doc.id), "edits": [{"find": "$8,400", "replace": "$8,900"}]})


def test_edit_replaces_gives_the_doc_and_its_finds(ctx, doc):
    tool = _tool("docs.edit")
    inp = tool.input.model_validate({"docId": str(doc.id), "edits": [{"find": "$8,400", "replace": "$8,900"}]})
    assert tool.replaces(ctx, inp) == {"doc": "Juniper Dental rebrand quote", "edits": ["$8,400"]}


def test_edit_is_listed_on_home(use, doc, note):
    _edit(use, doc, ("$8,400", "$8,900"), answers=[{"noteId": str(note.id), "outcome": "kept", "text": "No"}])
    change = Change.objects.get(tool="docs.edit")
    assert (change.listing, change.kind, change.target_id, change.sentence) == (
        "home", "changes", str(doc.id), 'edited the doc "Juniper Dental rebrand quote" (1 edit) and answered 1 note'
    )


def test_edit_of_another_workspaces_doc_is_not_found(use, other_org):
    theirs = DocFactory(organization=other_org, text="Theirs")
    assert (_edit(use, theirs, ("Theirs", "Mine"))["error"], _state(theirs)[0]) == ("not_found", "Theirs")


_EDIT = {"find": "$8,400", "replace": "$8,900"}
_ANSWER = {"noteId": str(uuid.uuid4()), "outcome": "kept", "text": "Why"}


@pytest.mark.parametrize(
    "inp, field",
    [
        ({}, "edits"),
        ({"edits": []}, "edits"),
        ({"edits": [_EDIT] * 31}, "edits"),
        ({"edits": [{"replace": "x"}]}, "edits[0].find"),
        ({"edits": [{"find": "x"}]}, "edits[0].replace"),
        ({"edits": [_EDIT, {"find": "", "replace": "x"}]}, "edits[1].find"),
        ({"edits": [{"find": "x" * 20_001, "replace": ""}]}, "edits[0].find"),
        ({"edits": [{"find": "x", "replace": "y" * 20_001}]}, "edits[0].replace"),
        ({"edits": [_EDIT], "lines": ["a"] * 21}, "lines"),
        ({"edits": [_EDIT], "lines": ["x" * 301]}, "lines[0]"),
        ({"edits": [_EDIT], "answers": [_ANSWER] * 41}, "answers"),
        ({"edits": [_EDIT], "answers": [{**_ANSWER, "outcome": "done"}]}, "answers[0].outcome"),
        ({"edits": [_EDIT], "answers": [{**_ANSWER, "text": ""}]}, "answers[0].text"),
        ({"edits": [_EDIT], "answers": [{**_ANSWER, "text": "x" * 1001}]}, "answers[0].text"),
        ({"edits": [_EDIT], "answers": [{**_ANSWER, "noteId": "n1"}]}, "answers[0].noteId"),
    ],
)
def test_edit_limits(use, inp, field):
    inp.setdefault("docId", str(uuid.uuid4()))
    assert _bad(use("docs.edit", **inp), field)


def test_edit_takes_30_edits(use, org, project):
    doc = DocFactory(organization=org, project=project, text=" ".join(f"<w{i}>" for i in range(30)))
    out = use("docs.edit", docId=str(doc.id), edits=[{"find": f"<w{i}>", "replace": f"[{i}]"} for i in range(30)])
    assert (out["version"], _state(doc)[0]) == (2, " ".join(f"[{i}]" for i in range(30)))


# --- answer ---------------------------------------------------------------------------------------------


def _answer(use, doc, note, outcome="kept", text="The terms are in the contract"):
    return use("docs.answer", docId=str(doc.id), noteId=str(note.id), outcome=outcome, text=text)


def test_answer_returns_the_answer_as_a_comment_under_the_note(use, ctx, doc, note):
    out = _answer(use, doc, note)
    reply = DocNote.objects.get(id=out["commentId"])
    assert (reply.parent_id, reply.doc_id, reply.note, reply.by) == (
        note.id, doc.id, "The terms are in the contract", ctx.actor.by()
    )


@pytest.mark.parametrize("outcome", ["kept", "done"])
def test_answer_sets_the_notes_state(use, doc, note, outcome):
    _answer(use, doc, note, outcome=outcome)
    note.refresh_from_db()
    assert note.state == outcome


def test_answer_leaves_the_doc_as_it_is(use, doc, note):
    before = _state(doc)
    _answer(use, doc, note)
    assert _state(doc) == before


def test_answer_to_an_answered_note_is_refused(use, doc, note):
    _answer(use, doc, note)
    assert _bad(_answer(use, doc, note, outcome="done"), "noteId")


def test_answer_to_a_note_on_another_doc_is_not_found(use, org, note):
    elsewhere = DocFactory(organization=org)
    assert _answer(use, elsewhere, note)["error"] == "not_found"


def test_answer_on_another_workspaces_doc_is_not_found(use, other_org):
    theirs = DocFactory(organization=other_org)
    their_note = services.doc_note_add(org=other_org, actor=Actor.system(), doc=theirs, on="", note="Theirs")
    out = _answer(use, theirs, their_note)
    their_note.refresh_from_db()
    assert (out["error"], their_note.state) == ("not_found", "open")


def test_answer_is_checked(ctx, doc, note):
    inp = {"docId": str(doc.id), "noteId": str(note.id), "outcome": "kept", "text": "Why"}
    assert _checked(ctx, "docs.answer", inp)


def test_answer_is_listed_on_home(use, doc, note):
    _answer(use, doc, note, outcome="done")
    change = Change.objects.get(tool="docs.answer")
    assert (change.listing, change.kind, change.target_id, change.sentence, change.undo) == (
        "home", "changes", str(doc.id), 'answered a note on the doc "Juniper Dental rebrand quote": done', None
    )


@pytest.mark.parametrize(
    "inp, field",
    [
        ({"outcome": "changed"}, "outcome"),
        ({"text": ""}, "text"),
        ({"text": "x" * 1001}, "text"),
        ({"noteId": "note"}, "noteId"),
        ({"docId": None}, "docId"),
    ],
)
def test_answer_limits(use, inp, field):
    full = {"docId": str(uuid.uuid4()), "noteId": str(uuid.uuid4()), "outcome": "kept", "text": "Why"}
    full.update(inp)
    full = {k: v for k, v in full.items() if v is not None}
    assert _bad(use("docs.answer", **full), field)
