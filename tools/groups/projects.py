"""The projects group: projects that hold the business's docs, tables and contacts. Thin declarations over docs'
services (the docs app holds Project)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from core import limits
from core.inputs import Chars, Offset, ProjectId
from docs import selectors, services
from docs.shapes import activity_item, project_shape
from records.models import Project
from tools.registry import Done, Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="projects",
        summary="projects that hold docs, pages and tables",
        how_to=(
            "Projects group the owner's docs, tables and contacts, and every doc goes in one. Use the project the "
            "owner named; else list them and pick the one the work belongs to, or create one named after the job."
        ),
    )
)


# --- list -------------------------------------------------------------------------------------------------


class ListInput(ToolInput):
    offset: Offset = 0


def list_(ctx: ToolContext, inp: ListInput) -> dict[str, Any]:
    projects, next_offset = selectors.project_page(org=ctx.org, offset=inp.offset)
    return {"items": [project_shape(p) for p in projects], "nextOffset": next_offset}


register(
    Tool(name="projects.list", description="Every project in the workspace", input=ListInput, run=list_, kind="reads")
)


# --- activity ---------------------------------------------------------------------------------------------


class ActivityInput(ToolInput):
    offset: Offset = 0


def activity(ctx: ToolContext, inp: ActivityInput) -> dict[str, Any]:
    changes, targets, next_offset = selectors.activity_page(org=ctx.org, offset=inp.offset)
    return {"items": [activity_item(c, targets) for c in changes], "nextOffset": next_offset}


register(
    Tool(
        name="projects.activity",
        description="Recent changes across the workspace",
        input=ActivityInput,
        run=activity,
        kind="reads",
    )
)


# --- create -----------------------------------------------------------------------------------------------


class CreateInput(ToolInput):
    name: Annotated[str, Chars(1, limits.PROJECT_NAME)]
    description: Annotated[str, Chars(0, limits.PROJECT_DESCRIPTION)] = ""


def create(ctx: ToolContext, inp: CreateInput) -> Done:
    project = services.project_create(org=ctx.org, actor=ctx.actor, name=inp.name, description=inp.description)
    return Done(
        result=project_shape(project),
        sentence=f"created the project \"{project.name}\"",
        target_type="project",
        target_id=str(project.id),
        created=True,
    )


register(
    Tool(
        name="projects.create",
        description="Create a project",
        input=CreateInput,
        run=create,
        kind="makes",
        your_work="home",
    )
)


# --- update -----------------------------------------------------------------------------------------------


class UpdateInput(ToolInput):
    project_id: ProjectId
    name: Annotated[str, Chars(1, limits.PROJECT_NAME)]
    description: Annotated[str, Chars(0, limits.PROJECT_DESCRIPTION)]


def _update_sentence(before_name: str, before_description: str, project: Project) -> str:
    renamed = before_name != project.name
    described = before_description != project.description
    if renamed and described:
        return f"renamed the project \"{before_name}\" to \"{project.name}\" and changed its description"
    if renamed:
        return f"renamed the project \"{before_name}\" to \"{project.name}\""
    return f"changed the description of the project \"{project.name}\""


def update(ctx: ToolContext, inp: UpdateInput) -> dict[str, Any] | Done:
    project = selectors.project_get(org=ctx.org, project_id=inp.project_id)
    before_name, before_description = project.name, project.description
    project = services.project_update(
        org=ctx.org, actor=ctx.actor, project=project, name=inp.name, description=inp.description
    )
    if (project.name, project.description) == (before_name, before_description):
        return project_shape(project)  # nothing changed, so nothing to list on Home
    return Done(
        result=project_shape(project),
        sentence=_update_sentence(before_name, before_description, project),
        target_type="project",
        target_id=str(project.id),
    )


def update_replaces(ctx: ToolContext, inp: UpdateInput) -> dict[str, Any] | None:
    """The old name, and the old description when it would be overwritten; None when nothing would be."""
    project = Project.objects.filter(organization=ctx.org, id=inp.project_id).only("name", "description").first()
    if project is None:
        return None
    renamed = project.name != inp.name.strip()
    redescribed = bool(project.description) and project.description != inp.description
    if not (renamed or redescribed):
        return None
    replaced = {"name": project.name}
    if redescribed:
        replaced["description"] = project.description
    return replaced


register(
    Tool(
        name="projects.update",
        description="Rename a project or change its description",
        input=UpdateInput,
        run=update,
        kind="changes",
        your_work="home",
        replaces=update_replaces,
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "projects.list": {
        "offset": "nextOffset from the last page, for the next; 0 for the first",
    },
    "projects.activity": {
        "offset": "nextOffset from the last page, for the next; 0 for the first",
    },
    "projects.create": {
        "name": "The project's name",
        "description": "What it's for",
    },
    "projects.update": {
        "projectId": "The project's id, from projects.list",
        "name": "The new name",
        "description": "What it's for",
    },
})
