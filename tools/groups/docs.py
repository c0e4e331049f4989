"""The docs group: docs agents write and keep for the owner. Thin declarations over docs' services."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, PrivateAttr

from core.inputs import Chars, DocId, DocNoteId, Offset, ProjectId
from docs import selectors, services
from docs.shapes import doc_list_item, doc_read_shape, version_shape
from records.models import Doc
from tools.registry import Done, Group, Kind, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

# The spec's page lost what was written in angle brackets; the components and the link form are restored as
# spec/README.md reads them ("Where the source lost text").
register_group(
    Group(
        name="docs",
        summary="the business's docs: proposals, briefs, checklists",
        how_to=(
            "Docs you write for the owner and keep: SOPs and briefs, write-ups of your work, reports that recur. "
            "Write a doc when the work is long, structured or worth keeping; answer in a message otherwise. A doc "
            "you were asked to write already exists: write into its docId. A doc's text is MDX: Markdown "
            "(## headings, lists, tables, **bold**, links) plus <Callout>…</Callout>, <Figure src=\"…\" "
            "caption=\"…\" />, <Columns><Column>…</Column></Columns>, and a chart as <Chart> holding one "
            "```vega-lite JSON block with its data inline. Link people and things you read as roadstar links: "
            "[Juniper Dental](roadstar:contact/<id>); kinds: contact, email, file, invoice, bill, agent, doc, "
            "page, table, project. A report or tracker reads like a dashboard: one line on as of when and from "
            "what; a MetricGrid of the three or four figures that matter; a short table of what needs the owner; "
            "then one table of every item, a row each, in short cells: dates like Nov 6, amounts right-aligned "
            "(|---:|), a status of a word or two, each row's name linked to its source. A recurring one opens with "
            "what moved since the last. What you couldn't check goes in one line at the end; your own working "
            "notes stay out of it."
        ),
    )
)

Lines = Annotated[list[Annotated[str, Chars(1, 300)]], Field(max_length=20)]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# --- list -------------------------------------------------------------------------------------------------


class ListInput(ToolInput):
    project_id: ProjectId | None = None
    title: Annotated[str, Chars(0, 300)] | None = None
    offset: Offset = 0


def list_(ctx: ToolContext, inp: ListInput) -> dict[str, Any]:
    project = selectors.project_get(org=ctx.org, project_id=inp.project_id) if inp.project_id else None
    docs, next_offset = selectors.doc_page(org=ctx.org, project=project, title=inp.title, offset=inp.offset)
    return {"items": [doc_list_item(d) for d in docs], "nextOffset": next_offset}


register(Tool(name="docs.list", description="Docs, newest first", input=ListInput, run=list_, kind="reads"))


# --- read -------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    doc_id: DocId


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    doc = selectors.doc_get(org=ctx.org, doc_id=inp.doc_id)
    return doc_read_shape(doc, selectors.doc_open_notes(doc=doc))


register(
    Tool(
        name="docs.read",
        description=(
            "A doc's current text, the brief it was asked with, what to read first, and the notes the owner sent "
            "you on it"
        ),
        input=ReadInput,
        run=read,
        kind="reads",
    )
)


# --- write ------------------------------------------------------------------------------------------------


class WriteInput(ToolInput):
    doc_id: DocId | None = None
    project_id: ProjectId | None = None
    title: Annotated[str, Chars(1, 300)]
    text: Annotated[str, Chars(1, services.MAX_TEXT)]
    lines: Lines = []

    # The kind, once decided: the pipeline asks before the run (for the check) and after it (to record the
    # change), and by then the first draft has made the doc's text.
    _kind: Kind | None = PrivateAttr(default=None)


def write_kind(ctx: ToolContext, inp: WriteInput) -> Kind:
    """A new doc makes something; so does the first draft of a doc that has no text yet (one the owner asked
    for). Writing over a doc's text changes what's there. An unknown docId counts as a change, so the check
    sees it; the run then answers not_found."""
    if inp._kind is None:
        if inp.doc_id is None:
            inp._kind = "makes"
        else:
            doc = Doc.objects.filter(organization=ctx.org, id=inp.doc_id).only("text").first()
            inp._kind = "makes" if doc is not None and not doc.text else "changes"
    return inp._kind


def write(ctx: ToolContext, inp: WriteInput) -> Done:
    write_kind(ctx, inp)  # decided on the doc as it is before the write, however the pipeline asked
    doc = selectors.doc_get(org=ctx.org, doc_id=inp.doc_id) if inp.doc_id else None
    project = selectors.project_get(org=ctx.org, project_id=inp.project_id) if inp.project_id else None
    filed = ""
    if doc is None and project is None:
        # projectId is optional: the doc goes in the project the agent's work files into, and Home says which.
        project = services.project_filed_into(org=ctx.org, actor=ctx.actor, conversation_id=ctx.conversation_id)
        filed = f' in "{project.name}"'
    if doc is None:
        what = "wrote the doc"
    elif not doc.text:
        what = "wrote the first draft of the doc"
    else:
        what = "rewrote the doc"
    version = services.doc_write(
        org=ctx.org, actor=ctx.actor, title=inp.title, text=inp.text, lines=inp.lines, doc=doc, project=project
    )
    return Done(
        result=version_shape(version),
        sentence=f"{what} \"{version.title}\"{filed}",
        target_type="doc",
        target_id=str(version.doc_id),
        # Only a new doc is this work's own; a first draft goes into a doc that was there (the owner's).
        created=doc is None,
    )


def write_replaces(ctx: ToolContext, inp: WriteInput) -> dict[str, Any] | None:
    if inp.doc_id is None:
        return None
    doc = Doc.objects.filter(organization=ctx.org, id=inp.doc_id).only("title", "text").first()
    if doc is None or not doc.text:
        return None
    return {"doc": doc.title, "text": doc.text}


register(
    Tool(
        name="docs.write",
        description=(
            "Write a doc's whole text: a new doc, the first draft of one you were asked for, or a full rewrite such "
            "as a routine's."
        ),
        input=WriteInput,
        run=write,
        kind=write_kind,
        your_work="home",
        replaces=write_replaces,
    )
)


# --- edit -------------------------------------------------------------------------------------------------


class EditItem(ToolInput):
    find: Annotated[str, Chars(1, 20_000)]
    replace: Annotated[str, Chars(0, 20_000)]


class EditAnswer(ToolInput):
    note_id: DocNoteId
    outcome: Literal["changed", "kept"]
    text: Annotated[str, Chars(1, 1000)]


class EditInput(ToolInput):
    doc_id: DocId
    edits: Annotated[list[EditItem], Field(min_length=1, max_length=30)]
    lines: Lines = []
    answers: Annotated[list[EditAnswer], Field(max_length=40)] = []


def edit(ctx: ToolContext, inp: EditInput) -> Done:
    doc = selectors.doc_get(org=ctx.org, doc_id=inp.doc_id)
    version = services.doc_edit(
        org=ctx.org,
        actor=ctx.actor,
        doc=doc,
        edits=[services.Edit(e.find, e.replace) for e in inp.edits],
        lines=inp.lines,
        answers=[services.NoteAnswer(a.note_id, a.outcome, a.text) for a in inp.answers],
    )
    sentence = f"edited the doc \"{doc.title}\" ({_plural(len(inp.edits), 'edit')})"
    if inp.answers:
        sentence += f" and answered {_plural(len(inp.answers), 'note')}"
    return Done(result=version_shape(version), sentence=sentence, target_type="doc", target_id=str(doc.id))


def edit_replaces(ctx: ToolContext, inp: EditInput) -> dict[str, Any] | None:
    doc = Doc.objects.filter(organization=ctx.org, id=inp.doc_id).only("title").first()
    if doc is None:
        return None
    return {"doc": doc.title, "edits": [e.find for e in inp.edits]}


register(
    Tool(
        name="docs.edit",
        description=(
            "Change parts of a doc you've read: each find is words it has now, once. All edits apply together or "
            "none; the rest stays as it is."
        ),
        input=EditInput,
        run=edit,
        kind="changes",
        your_work="home",
        replaces=edit_replaces,
    )
)


# --- answer -----------------------------------------------------------------------------------------------


class AnswerInput(ToolInput):
    doc_id: DocId
    note_id: DocNoteId
    outcome: Literal["kept", "done"]
    text: Annotated[str, Chars(1, 1000)]


def answer(ctx: ToolContext, inp: AnswerInput) -> Done:
    doc = selectors.doc_get(org=ctx.org, doc_id=inp.doc_id)
    reply = services.doc_note_answer(
        org=ctx.org, actor=ctx.actor, doc=doc, note_id=inp.note_id, outcome=inp.outcome, text=inp.text
    )
    return Done(
        result={"commentId": str(reply.id)},
        sentence=f"answered a note on the doc \"{doc.title}\": {inp.outcome}",
        target_type="doc",
        target_id=str(doc.id),
    )


register(
    Tool(
        name="docs.answer",
        description=(
            "Answer a note without changing the doc: kept, with why; or done, for a note that asked you to do "
            "something else, with what you did"
        ),
        input=AnswerInput,
        run=answer,
        kind="changes",
        your_work="home",
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "docs.list": {
        "projectId": "Only docs in this project",
        "title": "Part of a title",
        "offset": "nextOffset from the last page, for the next; 0 for the first",
    },
    "docs.read": {
        "docId": "The doc's id, from docs.list",
    },
    "docs.write": {
        "docId": "A doc to rewrite; left out, a new doc",
        "projectId": "The project a new doc goes in",
        "title": "The doc's title",
        "text": "MDX, as the docs how-to says",
        "lines": "what changed, one plain sentence each, for the owner",
    },
    "docs.edit": {
        "docId": "The doc's id, from docs.list",
        "edits": "Each a passage to find, word for word, and what replaces it",
        "lines": "what changed, one plain sentence each, for the owner",
        "answers": "When the owner sent notes, answer every one: changed with what you did, or kept with why",
    },
    "docs.answer": {
        "docId": "The doc's id, from docs.list",
        "noteId": "The owner's note, from docs.read",
        "outcome": "kept, or done",
        "text": "What you did, or why you kept it",
    },
})
