"""The records a tool call names, found before the check asks the owner about it.

An input typed as a record id (core.inputs: ContactId, CompanyId, ProjectId, DocId, DocNoteId) names a record of
the workspace. Before a checked action goes to the check, the pipeline finds each one here, in this workspace: an
id of another workspace's record, or of none, is `not_found` at once, and the owner is never asked about an
action that could not run (the ask would show on Home, and the yes would end in not_found anyway).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, get_args, get_origin

from django.apps import apps
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from core.errors import ToolError
from core.inputs import Record
from integrations.ids import split_id

if TYPE_CHECKING:
    from core.context import ToolContext

# Each kind: the model holding it and how the owner calls it. Every one is scoped by `organization`.
KINDS = {
    "contact": ("records.Contact", "contact"),
    "company": ("records.Company", "company"),
    "project": ("records.Project", "project"),
    "doc": ("records.Doc", "doc"),
    "note": ("records.DocNote", "note"),
    "dataset": ("research.Dataset", "table"),
    "page": ("research.ResearchPage", "page"),
}


def named_records(inp: BaseModel, prefix: str = "") -> list[tuple[str, str, str]]:
    """(kind, id, where) for each record id given in the input, nested inputs and lists included."""
    found = []
    for name, field in type(inp).model_fields.items():
        value = getattr(inp, name)
        if value is None:
            continue
        where = f"{prefix}{field.alias or name}"
        kind = next((m.kind for m in _metadata(field) if isinstance(m, Record)), None)
        values = value if isinstance(value, list) else [value]
        for i, item in enumerate(values):
            at = f"{where}[{i}]" if isinstance(value, list) else where
            if kind is not None and isinstance(item, str):
                found.append((kind, item, at))
            elif isinstance(item, BaseModel):
                found.extend(named_records(item, f"{at}."))
    return found


def _metadata(field: FieldInfo) -> list[Any]:
    """The field's annotations' metadata, looking inside `X | None` and `list[X]`."""
    found, pending = list(field.metadata), [field.annotation]
    while pending:
        annotation = pending.pop()
        found.extend(getattr(annotation, "__metadata__", ()))
        if get_origin(annotation) is not None or get_args(annotation):
            pending.extend(get_args(annotation))
    return found


def find_named_records(ctx: ToolContext, inp: BaseModel, *, found: Collection[tuple[str, str]] = ()) -> None:
    """Raise not_found, naming the input, for the first record id that is no record of this workspace.

    `found`: (kind, id) of records the tool's own read for the check found in this workspace already
    (`Tool.reads_first`), not looked for again."""
    wanted: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for kind, value, where in named_records(inp):
        if (kind, value) not in found:
            wanted[kind].append((value, where))
    _find_app_items(ctx, wanted.pop("item", []))
    for kind, named in wanted.items():
        label, word = KINDS[kind]
        model = apps.get_model(label)
        held = {str(pk) for pk in model.objects.filter(organization=ctx.org, id__in=[v for v, _ in named])
                .values_list("id", flat=True)}
        for value, where in named:
            if value not in held:
                raise ToolError("not_found", f"{where}: no {word} with id {value} in this workspace.")


def _find_app_items(ctx: ToolContext, named: list[tuple[str, str]]) -> None:
    """Ids of things in the owner's apps carry their account: one of another workspace (or of none) is not_found.
    Only the account is looked at, which needs no call to the app; the tool finds the thing itself."""
    for value, where in named:
        if not value.strip() or value.strip().startswith(("http://", "https://")):
            continue
        try:
            split_id(value, org=ctx.org)
        except ToolError as error:
            raise ToolError(error.kind, f"{where}: {error.message}") from error
