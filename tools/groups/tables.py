"""The tables group (optional per workspace): research tables whose rows agents find and whose cells they fill from
sources. Thin declarations over research.services; the worker does the research (research/table_run.py).

tables.build plans before the check weighs it: the plan, its estimate and its cap are the note the check reads
(made by a model call, with no transaction open, and kept, so the build asked again after the owner's yes runs on
the same plan at the same price).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, field_validator

from core.errors import not_found
from core.inputs import Chars, DatasetId, ProjectId, Uuid, Whole
from docs.services import project_filed_into
from records.models import Project
from research import selectors, services
from research.models import Dataset, DatasetPlanDraft, DatasetRun
from research.shapes import dataset_item, dataset_shape, row_shape
from research.table_run import money_words
from tools.registry import Done, Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="tables",
        summary="research tables",
        how_to=("Research tables: agents find rows and fill each cell from a source. Builds cost money; Pro "
                "estimates the cost first."),
        enabled=lambda org: selectors.group_on(org=org, group="tables"),
    )
)



def _not_blank[T](value: T) -> T:
    if isinstance(value, str) and not value.strip():
        raise ValueError("must have words, not only spaces")
    if isinstance(value, list):
        for item in value:
            _not_blank(item)
    if isinstance(value, dict):
        for item in value.values():
            _not_blank(item)
    return value


def _project(ctx: ToolContext, project_id: Uuid | str) -> Project:
    project = Project.objects.filter(organization=ctx.org, id=project_id).first()
    if project is None:
        raise not_found("project", project_id)
    return project


def _dataset_result(dataset: Dataset, run: DatasetRun | None = None) -> dict[str, Any]:
    if run is None:
        run = selectors.dataset_latest_runs(datasets=[dataset]).get(dataset.id)
    return dataset_shape(dataset, run=run, spent_micros=selectors.dataset_spent(dataset=dataset))


# --- list -------------------------------------------------------------------------------------------------------


class ListInput(ToolInput):
    project_id: ProjectId | None = None


def list_tables(ctx: ToolContext, inp: ListInput) -> list[dict[str, Any]]:
    project = _project(ctx, inp.project_id) if inp.project_id else None
    datasets = selectors.datasets_of(org=ctx.org, project=project)
    runs = selectors.dataset_latest_runs(datasets=datasets)
    return [dataset_item(d, run=runs.get(d.id)) for d in datasets]


register(Tool(name="tables.list", description="Tables", input=ListInput, run=list_tables, kind="reads"))


# --- read -------------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    dataset_id: DatasetId


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    dataset = selectors.dataset_get(org=ctx.org, dataset_id=inp.dataset_id)
    rows = selectors.dataset_rows(dataset=dataset)
    return {"dataset": _dataset_result(dataset), "rows": [row_shape(r) for r in rows]}


register(Tool(name="tables.read", description="A table's columns, rows and cell values", input=ReadInput, run=read,
              kind="reads"))


# --- build ------------------------------------------------------------------------------------------------------


class BuildInput(ToolInput):
    project_id: ProjectId | None = None
    question: Annotated[str, Chars(1, 2000)]
    max_rows: Annotated[int, Whole(1, services.MAX_TABLE_ROWS)] = 25

    _words = field_validator("question")(_not_blank)


def _draft(ctx: ToolContext, inp: BuildInput, *, make: bool = True) -> DatasetPlanDraft:
    return services.table_plan_draft(org=ctx.org, actor=ctx.actor, conversation_id=ctx.conversation_id,
                                     project_id=inp.project_id, question=inp.question, max_rows=inp.max_rows,
                                     make=make)


def _build_note(ctx: ToolContext, inp: BuildInput) -> str:
    return services.table_build_note(draft=_draft(ctx, inp), max_rows=inp.max_rows)


def _project_for(ctx: ToolContext, project_id: Uuid | str | None) -> Project | None:
    """The project the owner named, else the one the agent's work files into (the owner, naming none, gets none)."""
    if project_id:
        return _project(ctx, project_id)
    if ctx.actor.kind != "agent":
        return None
    return project_filed_into(org=ctx.org, actor=ctx.actor, conversation_id=ctx.conversation_id)


def build(ctx: ToolContext, inp: BuildInput) -> Done:
    draft = _draft(ctx, inp, make=False)  # made for the check's note a moment ago
    dataset, run = services.table_build(
        org=ctx.org, actor=ctx.actor, conversation_id=ctx.conversation_id, project=_project_for(ctx, inp.project_id),
        question=inp.question, max_rows=inp.max_rows, draft=draft,
    )
    return Done(
        result=_dataset_result(dataset, run),
        sentence=(f"started building the table {dataset.name!r} (estimated {money_words(run.estimate_micros)}, "
                  f"capped at {money_words(run.cap_micros)})"),
        target_type="dataset",
        target_id=str(dataset.id),
        created=True,
    )


register(
    Tool(
        name="tables.build",
        description=("Plan and build a new table, in the project the owner names, else the one you file into. It "
                     "costs money by the row"),
        input=BuildInput,
        run=build,
        kind="makes",
        your_work="home",
        check_note=_build_note,
        errors=("bad_input", "not_found", "unsupported", "unavailable", "changed"),
    )
)


# --- add_row ----------------------------------------------------------------------------------------------------


class AddRowInput(ToolInput):
    dataset_id: DatasetId
    identity: Annotated[
        dict[Annotated[str, Chars(1, 40)], Annotated[str, Chars(1, services.MAX_IDENTITY_VALUE)]], Field(min_length=1)
    ]

    _words = field_validator("identity")(_not_blank)


def add_row(ctx: ToolContext, inp: AddRowInput) -> Done:
    dataset = selectors.dataset_get(org=ctx.org, dataset_id=inp.dataset_id)
    row = services.table_add_row(org=ctx.org, actor=ctx.actor, dataset=dataset, identity=inp.identity)
    return Done(result={"key": row.key}, sentence=f"added the row {row.key!r} to the table {dataset.name!r}",
                target_type="dataset", target_id=str(dataset.id))


register(
    Tool(name="tables.add_row", description="Add a row by the columns that identify it", input=AddRowInput,
         run=add_row, kind="makes", your_work="home")
)


# --- research_rows ----------------------------------------------------------------------------------------------


class ResearchRowsInput(ToolInput):
    dataset_id: DatasetId
    row_keys: Annotated[list[Annotated[str, Chars(1, 300)]], Field(min_length=1, max_length=services.MAX_TABLE_ROWS)]


def _research_note(ctx: ToolContext, inp: ResearchRowsInput) -> str:
    dataset = selectors.dataset_get(org=ctx.org, dataset_id=inp.dataset_id)
    return services.table_research_note(dataset=dataset, row_keys=inp.row_keys)


def _research_replaces(ctx: ToolContext, inp: ResearchRowsInput) -> dict[str, Any] | None:
    # What the check weighs as replaced: the rows' values now, which the research writes over.
    dataset = selectors.dataset_get(org=ctx.org, dataset_id=inp.dataset_id)
    rows = [r for r in selectors.dataset_rows(dataset=dataset) if r.key in set(inp.row_keys)]
    return {"name": dataset.name, "rows": {r.key: r.values for r in rows[:20]}}


def research_rows(ctx: ToolContext, inp: ResearchRowsInput) -> Done:
    dataset = selectors.dataset_get(org=ctx.org, dataset_id=inp.dataset_id)
    run = services.table_research_rows(org=ctx.org, dataset=dataset, row_keys=inp.row_keys)
    return Done(
        result=_dataset_result(dataset, run),
        sentence=(f"started researching {run.rows_total} row{'s' if run.rows_total != 1 else ''} of the table "
                  f"{dataset.name!r} again (estimated {money_words(run.estimate_micros)}, capped at "
                  f"{money_words(run.cap_micros)})"),
        target_type="dataset",
        target_id=str(dataset.id),
        changed_existing=True,
    )


register(
    Tool(
        name="tables.research_rows",
        description="Research some rows again. It costs money by the row",
        input=ResearchRowsInput,
        run=research_rows,
        kind="changes",
        your_work="home",
        replaces=_research_replaces,
        check_note=_research_note,
    )
)


# --- accept_cell ------------------------------------------------------------------------------------------------


class AcceptCellInput(ToolInput):
    dataset_id: DatasetId
    key: Annotated[str, Chars(1, 300)]
    column: Annotated[str, Chars(1, 40)]


def _accept_replaces(ctx: ToolContext, inp: AcceptCellInput) -> dict[str, Any] | None:
    dataset = selectors.dataset_get(org=ctx.org, dataset_id=inp.dataset_id)
    row = dataset.rows.filter(key=inp.key).first()
    if row is None:
        return None
    return {"name": f"{dataset.name}: {inp.key}", "value": (row.values or {}).get(inp.column),
            "source": (row.sources or {}).get(inp.column)}


def accept_cell(ctx: ToolContext, inp: AcceptCellInput) -> Done:
    dataset = selectors.dataset_get(org=ctx.org, dataset_id=inp.dataset_id)
    services.table_accept_cell(dataset=dataset, key=inp.key, column=inp.column, actor=ctx.actor)
    return Done(result=None, sentence=f"accepted {inp.column} of {inp.key!r} in the table {dataset.name!r}",
                target_type="dataset", target_id=str(dataset.id))


register(
    Tool(
        name="tables.accept_cell",
        description="Accept a value waiting for review",
        input=AcceptCellInput,
        run=accept_cell,
        kind="changes",
        your_work="home",
        replaces=_accept_replaces,
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "tables.list": {
        "projectId": "Only tables in this project",
    },
    "tables.read": {
        "datasetId": "The table's id, from tables.list",
    },
    "tables.build": {
        "projectId": "The project the table goes in",
        "question": "What the table answers, such as \"US banks over $10bn\"",
        "maxRows": "How many rows at most",
    },
    "tables.add_row": {
        "datasetId": "The table's id, from tables.list",
        "identity": "The row's key columns and their values",
    },
    "tables.research_rows": {
        "datasetId": "The table's id, from tables.list",
        "rowKeys": "The rows to research again, by key",
    },
    "tables.accept_cell": {
        "datasetId": "The table's id, from tables.list",
        "key": "The row's key",
        "column": "The column's name",
    },
})
