"""The projects group: list, activity, create, update, as spec/tools/projects.md says."""

import datetime
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.actors import Actor
from core.context import ToolContext
from core.errors import ToolError
from core.models import Change
from core.services import change_undo
from core.timefmt import iso
from records.models import Project
from tests.factories import DocFactory, ProjectFactory
from tools import registry


@pytest.fixture
def owner_ctx(ctx):
    """The owner acting themself (from Home), in the same workspace."""
    return ToolContext(org=ctx.org, actor=Actor.for_user(ctx.org.owner))


def _bad(out: dict, field: str) -> bool:
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


def _tool(name: str) -> registry.Tool:
    return registry.get_tool(name)


def _aged(rows, start: datetime.datetime):
    """Give rows distinct times, the first oldest, so orders don't hang on microseconds."""
    for i, row in enumerate(rows):
        type(row).objects.filter(pk=row.pk).update(
            **{"at" if isinstance(row, Change) else "updated_at": start + datetime.timedelta(minutes=i)}
        )


# --- list -----------------------------------------------------------------------------------------------


def test_list_gives_each_project_in_the_spec_shape(use, org):
    project = ProjectFactory(organization=org, name="Juniper Dental rebrand", description="Logo and signage")
    item = use("projects.list")["items"][0]
    assert item == {
        "id": str(project.id),
        "organizationId": str(org.id),
        "name": "Juniper Dental rebrand",
        "description": "Logo and signage",
        "createdByUserId": None,
        "updatedByUserId": None,
        "createdAt": iso(project.created_at),
        "updatedAt": iso(project.updated_at),
    }


def test_list_puts_the_project_changed_last_first(use, org):
    older, newer = ProjectFactory(organization=org), ProjectFactory(organization=org)
    _aged([newer, older], timezone.now() - datetime.timedelta(days=1))
    assert [i["id"] for i in use("projects.list")["items"]] == [str(older.id), str(newer.id)]


def test_list_pages_by_50_with_next_offset(use, org):
    ProjectFactory.create_batch(51, organization=org)
    first = use("projects.list")
    second = use("projects.list", offset=first["nextOffset"])
    assert (len(first["items"]), first["nextOffset"], len(second["items"]), second["nextOffset"]) == (50, 50, 1, None)


def test_list_leaves_out_other_workspaces(use, org, other_org):
    ProjectFactory(organization=other_org)
    assert use("projects.list")["items"] == []


@pytest.mark.parametrize("offset", [-1, "3", 1.5])
def test_list_refuses_a_bad_offset(use, offset):
    assert _bad(use("projects.list", offset=offset), "offset")


# --- create ---------------------------------------------------------------------------------------------


def test_create_makes_the_project(use, org):
    out = use("projects.create", name="Bookkeeping 2026", description="Receipts and quarterly filings")
    project = Project.objects.get(id=out["id"])
    assert (project.organization_id, project.name, project.description) == (
        org.id, "Bookkeeping 2026", "Receipts and quarterly filings"
    )


def test_create_returns_the_project(use, org):
    out = use("projects.create", name="Bookkeeping 2026")
    assert {k: out[k] for k in ("organizationId", "name", "description")} == {
        "organizationId": str(org.id), "name": "Bookkeeping 2026", "description": ""
    }


def test_create_by_an_agent_has_no_user(use):
    out = use("projects.create", name="Bookkeeping 2026")
    assert (out["createdByUserId"], out["updatedByUserId"]) == (None, None)


def test_create_by_the_owner_names_their_user(use, org, owner_ctx):
    out = use("projects.create", _ctx=owner_ctx, name="Bookkeeping 2026")
    assert (out["createdByUserId"], out["updatedByUserId"]) == (str(org.owner_id), str(org.owner_id))


def test_create_is_listed_on_home(use):
    out = use("projects.create", name="Bookkeeping 2026")
    change = Change.objects.get(tool="projects.create")
    assert (change.listing, change.kind, change.target_type, change.target_id, change.sentence, change.undo) == (
        "home", "makes", "project", out["id"], 'created the project "Bookkeeping 2026"', None
    )


def test_create_needs_no_yes(ctx):
    tool = _tool("projects.create")
    assert not tool.is_checked(ctx, tool.input.model_validate({"name": "Bookkeeping 2026"}))


def test_create_refuses_a_name_of_only_spaces(use):
    assert _bad(use("projects.create", name="   "), "name")


@pytest.mark.parametrize(
    "inp, field",
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "x" * 121}, "name"),
        ({"name": "Ok", "description": "x" * 4001}, "description"),
        ({"name": "Ok", "owner": "me"}, "owner"),
    ],
)
def test_create_limits(use, inp, field):
    assert _bad(use("projects.create", **inp), field)


def test_create_takes_the_longest_name_and_description(use):
    out = use("projects.create", name="x" * 120, description="y" * 4000)
    assert (len(out["name"]), len(out["description"])) == (120, 4000)


# --- update ---------------------------------------------------------------------------------------------


@pytest.fixture
def project(org):
    return ProjectFactory(organization=org, name="Juniper rebrand", description="Logo")


def test_update_renames_and_changes_the_description(use, project):
    out = use("projects.update", projectId=str(project.id), name="Juniper Dental rebrand", description="Logo, signage")
    project.refresh_from_db()
    assert (out["name"], out["description"], project.name, project.description) == (
        "Juniper Dental rebrand", "Logo, signage", "Juniper Dental rebrand", "Logo, signage"
    )


def test_update_is_listed_on_home_saying_what_changed(use, project):
    use("projects.update", projectId=str(project.id), name="Juniper Dental rebrand", description="Logo")
    change = Change.objects.get(tool="projects.update")
    assert (change.listing, change.kind, change.target_id, change.sentence) == (
        "home", "changes", str(project.id), 'renamed the project "Juniper rebrand" to "Juniper Dental rebrand"'
    )


def test_update_of_the_description_only_says_so(use, project):
    use("projects.update", projectId=str(project.id), name="Juniper rebrand", description="Logo, signage")
    assert (
        Change.objects.get(tool="projects.update").sentence
        == 'changed the description of the project "Juniper rebrand"'
    )


def test_update_with_nothing_different_records_no_change(use, project):
    out = use("projects.update", projectId=str(project.id), name="Juniper rebrand", description="Logo")
    assert (out["name"], Change.objects.filter(tool="projects.update").exists()) == ("Juniper rebrand", False)


def test_update_by_an_agent_clears_the_updating_user(use, org, project):
    Project.objects.filter(id=project.id).update(updated_by_user=org.owner)
    out = use("projects.update", projectId=str(project.id), name="Juniper Dental", description="Logo")
    assert out["updatedByUserId"] is None


def test_update_by_the_owner_names_their_user(use, org, project, owner_ctx):
    out = use("projects.update", _ctx=owner_ctx, projectId=str(project.id), name="Juniper Dental", description="Logo")
    assert (out["updatedByUserId"], out["createdByUserId"]) == (str(org.owner_id), None)


def test_update_is_checked(ctx, project):
    tool = _tool("projects.update")
    inp = tool.input.model_validate({"projectId": str(project.id), "name": "A", "description": ""})
    assert tool.is_checked(ctx, inp)


def test_update_has_no_undo(use, ctx, project):
    use("projects.update", projectId=str(project.id), name="Juniper Dental", description="Logo")
    change = Change.objects.get(tool="projects.update")
    with pytest.raises(ToolError) as error:
        change_undo(org=ctx.org, change_id=change.id, actor=ctx.actor)
    assert error.value.kind == "unsupported"


@pytest.mark.parametrize(
    "name, description, replaced",
    [
        ("Juniper Dental", "Logo", {"name": "Juniper rebrand"}),
        ("Juniper rebrand", "Signage", {"name": "Juniper rebrand", "description": "Logo"}),
        ("Juniper Dental", "Signage", {"name": "Juniper rebrand", "description": "Logo"}),
        ("Juniper rebrand", "Logo", None),
    ],
)
def test_update_replaces_gives_what_would_be_overwritten(ctx, project, name, description, replaced):
    tool = _tool("projects.update")
    inp = tool.input.model_validate({"projectId": str(project.id), "name": name, "description": description})
    assert tool.replaces(ctx, inp) == replaced


def test_update_replaces_nothing_when_only_an_empty_description_is_filled(ctx, org):
    project = ProjectFactory(organization=org, name="Juniper rebrand", description="")
    tool = _tool("projects.update")
    inp = tool.input.model_validate({"projectId": str(project.id), "name": "Juniper rebrand", "description": "Logo"})
    assert tool.replaces(ctx, inp) is None


def test_update_of_another_workspaces_project_is_not_found(use, other_org):
    theirs = ProjectFactory(organization=other_org, name="Theirs")
    out = use("projects.update", projectId=str(theirs.id), name="Mine now", description="")
    theirs.refresh_from_db()
    assert (out["error"], theirs.name) == ("not_found", "Theirs")


@pytest.mark.parametrize(
    "inp, field",
    [
        ({"name": "A"}, "description"),
        ({"description": "A"}, "name"),
        ({"name": "", "description": ""}, "name"),
        ({"name": "x" * 121, "description": ""}, "name"),
        ({"name": "A", "description": "x" * 4001}, "description"),
        ({"name": "A", "description": "", "projectId": "not-an-id"}, "projectId"),
    ],
)
def test_update_limits(use, inp, field):
    inp.setdefault("projectId", str(uuid.uuid4()))
    assert _bad(use("projects.update", **inp), field)


# --- activity -------------------------------------------------------------------------------------------


def _change(org, **fields) -> Change:
    values = dict(
        organization=org, actor_kind="agent", actor_id="a1", actor_name="Client desk", tool="mail.send",
        kind="sends", sentence="sent Dana the quote", listing="home_undo", target_type="email",
        target_id="7c41e2d0:19a2c4e07d5b3f18",
    )
    values.update(fields)
    return Change.objects.create(**values)


def test_activity_gives_changes_newest_first(use, org):
    first, second = _change(org, sentence="sent one"), _change(org, sentence="sent two")
    _aged([first, second], timezone.now() - datetime.timedelta(hours=1))
    assert [i["id"] for i in use("projects.activity")["items"]] == [str(second.id), str(first.id)]


def test_activity_item_for_a_project(use, org):
    made = use("projects.create", name="Bookkeeping 2026")
    item = use("projects.activity")["items"][0]
    change = Change.objects.get(tool="projects.create")
    assert {k: v for k, v in item.items() if k != "occurredAt"} == {
        "id": str(change.id),
        "kind": "project",
        "title": "Bookkeeping 2026",
        "summary": 'Client desk created the project "Bookkeeping 2026"',
        "actorName": "Client desk",
        "projectId": made["id"],
        "projectName": "Bookkeeping 2026",
        "target": {"type": "project", "id": made["id"]},
        "private": False,
    }


def test_activity_item_time_is_when_it_happened(use, org):
    change = _change(org)
    Change.objects.filter(id=change.id).update(at=datetime.datetime(2026, 11, 10, 10, 12, tzinfo=datetime.UTC))
    assert use("projects.activity")["items"][0]["occurredAt"] == "2026-11-10T10:12:00Z"


def test_activity_item_for_a_doc_is_a_page_in_its_project(use, org):
    doc = DocFactory(organization=org, title="Juniper Dental rebrand quote")
    _change(org, tool="docs.write", kind="makes", target_type="doc", target_id=str(doc.id), sentence="wrote it")
    item = use("projects.activity")["items"][0]
    assert (item["kind"], item["title"], item["target"], item["projectId"], item["projectName"]) == (
        "annotation", "Juniper Dental rebrand quote", {"type": "page", "id": str(doc.id)}, str(doc.project_id),
        doc.project.name,
    )


def test_activity_item_for_a_question_doc_is_a_question(use, org):
    doc = DocFactory(organization=org, type="question")
    _change(org, tool="docs.write", target_type="doc", target_id=str(doc.id))
    assert use("projects.activity")["items"][0]["kind"] == "question"


def test_activity_item_for_an_answered_note_is_a_comment(use, org):
    doc = DocFactory(organization=org)
    _change(org, tool="docs.answer", target_type="doc", target_id=str(doc.id))
    assert use("projects.activity")["items"][0]["kind"] == "comment"


def test_activity_item_for_a_contact_names_them_in_the_workspace(use, org):
    use("contacts.create", name="Dana Whitfield")
    item = use("projects.activity")["items"][0]
    assert (item["kind"], item["title"], item["target"], item["projectId"]) == (
        "company", "Dana Whitfield", {"type": "workspace", "id": str(org.id)}, None
    )


def test_activity_item_for_a_company_targets_it(use, org):
    from tests.factories import CompanyFactory

    company = CompanyFactory(organization=org, name="Juniper Dental")
    _change(org, tool="companies.create", target_type="company", target_id=str(company.id))
    item = use("projects.activity")["items"][0]
    assert (item["kind"], item["title"], item["target"]) == (
        "company", "Juniper Dental", {"type": "company", "id": str(company.id)}
    )


def test_activity_item_for_an_agent_is_a_member(use, org):
    _change(org, tool="change_agent", target_type="agent", target_id=str(uuid.uuid4()))
    assert use("projects.activity")["items"][0]["kind"] == "member"


def test_activity_item_for_other_work_is_a_chat_in_the_workspace(use, org):
    _change(org)
    item = use("projects.activity")["items"][0]
    assert (item["kind"], item["title"], item["target"]) == (
        "chat", "Sent Dana the quote", {"type": "workspace", "id": str(org.id)}
    )


def test_activity_item_falls_back_to_the_sentence_when_the_record_is_gone(use, org):
    _change(org, tool="projects.create", target_type="project", target_id=str(uuid.uuid4()), sentence="created X")
    item = use("projects.activity")["items"][0]
    assert (item["title"], item["projectId"]) == ("Created X", None)


def test_activity_item_says_when_a_change_was_undone(use, org):
    _change(org, undone_at=timezone.now())
    assert use("projects.activity")["items"][0]["summary"] == "Client desk sent Dana the quote (undone since)"


def test_activity_pages_by_50(use, org):
    for i in range(51):
        _change(org, sentence=f"sent {i}")
    first = use("projects.activity")
    second = use("projects.activity", offset=50)
    assert (len(first["items"]), first["nextOffset"], len(second["items"]), second["nextOffset"]) == (50, 50, 1, None)


def test_activity_leaves_out_other_workspaces(use, other_org):
    _change(other_org)
    assert use("projects.activity")["items"] == []


def test_activity_does_not_name_another_workspaces_record(use, org, other_org):
    theirs = ProjectFactory(organization=other_org, name="Their secret project")
    _change(org, tool="projects.create", target_type="project", target_id=str(theirs.id), sentence="created X")
    item = use("projects.activity")["items"][0]
    assert (item["title"], item["projectName"]) == ("Created X", None)


def _activity_queries(ctx) -> int:
    from tools.pipeline import use_tool

    with CaptureQueriesContext(connection) as queries:
        use_tool(ctx, "projects.activity", {})
    return len(queries)


def _mixed_changes(org, count):
    from tests.factories import CompanyFactory, ContactFactory

    for _ in range(count):
        doc = DocFactory(organization=org)
        _change(org, tool="docs.write", target_type="doc", target_id=str(doc.id))
        _change(org, tool="projects.create", target_type="project", target_id=str(doc.project_id))
        _change(org, tool="contacts.create", target_type="contact", target_id=str(ContactFactory(organization=org).id))
        _change(org, tool="companies.create", target_type="company", target_id=str(CompanyFactory(organization=org).id))
        _change(org)


def test_activity_costs_the_same_queries_for_a_long_page(ctx, org):
    _mixed_changes(org, 1)
    few = _activity_queries(ctx)
    _mixed_changes(org, 8)
    assert _activity_queries(ctx) == few


@pytest.mark.parametrize("offset", [-1, "0"])
def test_activity_refuses_a_bad_offset(use, offset):
    assert _bad(use("projects.activity", offset=offset), "offset")
