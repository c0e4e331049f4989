"""The files group: the owner's Drive (and Roadstar's own files). Thin declarations over integrations.files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from core.actors import Actor
from core.inputs import AppItem, Chars, Number, Offset, TimeText, Whole
from core.models import Change, Organization
from integrations.files import services
from integrations.services import Asker
from search import takeover
from tools.registry import GROUPS, Done, Group, Tool, ToolInput, describe_inputs, register, register_group
from workspace import services as workspace_services

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="files",
        summary="the owner's Drive: files, Google Docs and Sheets",
        how_to=(
            "The owner's files, such as Google Drive, searched live across every account they connected. Read a "
            "folder to work through it. A Drive link the owner pastes opens directly. Spreadsheets read tab by "
            "tab, pictures as images; a scanned PDF has no text, so search for its words instead. Google Drive: "
            "Drive matches words in names and file text, by relevance, not meaning: try other words when a search "
            "misses. OneDrive: OneDrive searches the files the owner can open in OneDrive and SharePoint with "
            "Microsoft Search: words, \"exact phrases\", filetype:xlsx, author:\"Name\". Older Office files such as "
            ".doc and .ppt are read from a PDF copy."
        ),
        # Where search is on: which accounts search holds, whose files this group's search and read leave to it.
        how_to_for=lambda ctx: takeover.how_to(ctx.org, "files", GROUPS["files"].how_to),
    )
)


FileId = Annotated[str, Chars(3, 500), AppItem]
Name = Annotated[str, Chars(1, 200)]
Range = Annotated[str, Chars(0, 200)]
# A sheet's cell: text of up to what a Google Sheets cell holds, or a number.
Cell = Annotated[str, Chars(0, 50_000)] | Annotated[int, Whole(-(10**15), 10**15)] | Number
Rows = Annotated[list[list[Cell]], Field(min_length=1, max_length=200)]


def _asker(ctx: ToolContext) -> Asker:
    return Asker.of(ctx)


def _done(outcome: services.Outcome) -> Done:
    return Done(result=outcome.result, sentence=outcome.sentence, target_type="file", target_id=outcome.target_id,
                undo=outcome.undo, created=outcome.created)


def undo(*, org: Organization, actor: Actor, change: Change) -> None:
    services.file_change_undo(org=org, actor=actor, change=change)


# --- search ---------------------------------------------------------------------------------------------------


class SearchInput(ToolInput):
    query: Annotated[str, Chars(1, 500)]
    source: Annotated[str, Chars(0, 120)] | None = None
    modified_after: TimeText | None = None
    limit: Annotated[int, Whole(1, 20)] = 10
    page: Annotated[str, Chars(0, 4000)] | None = None


def search(ctx: ToolContext, inp: SearchInput) -> dict[str, Any]:
    return services.files_search(org=ctx.org, asker=_asker(ctx), query=inp.query, source=inp.source,
                                 modified_after=inp.modified_after, limit=inp.limit, page=inp.page,
                                 skip_accounts=takeover.skipped_keys(ctx.org, "files"))


register(
    Tool(
        name="files.search",
        description="Files whose name or text match, across the owner's accounts, and which accounts failed. "
                    "nextPage, passed as page, gives more.",
        input=SearchInput,
        run=search,
        kind="reads",
    )
)


# --- read -----------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    id: FileId
    offset: Offset = 0
    page: Annotated[str, Chars(0, 4000)] | None = None


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    takeover.refuse_held(takeover.held_file(ctx.org, inp.id), "file")
    return services.files_read(org=ctx.org, asker=_asker(ctx), id=inp.id, offset=inp.offset, page=inp.page)


register(
    Tool(
        name="files.read",
        description="A file's text by id or Drive link, 30,000 characters at a time (nextOffset gives the rest), or "
                    "a folder's items (nextPage gives more). A picture comes back as an image.",
        input=ReadInput,
        run=read,
        kind="reads",
    )
)


# --- copy -----------------------------------------------------------------------------------------------------


class CopyInput(ToolInput):
    id: FileId
    name: Name
    folder_id: FileId | None = None


def copy(ctx: ToolContext, inp: CopyInput) -> Done:
    return _done(services.file_copy(org=ctx.org, asker=_asker(ctx), id=inp.id, name=inp.name,
                                    folder_id=inp.folder_id))


register(
    Tool(
        name="files.copy",
        description="A copy of a file, such as a template, under a new name, in a folder (an id from search or "
                    "folder) when given",
        input=CopyInput,
        run=copy,
        kind="makes",
        your_work="home_undo",
        undo=undo,
    )
)


# --- folder ---------------------------------------------------------------------------------------------------


class FolderInput(ToolInput):
    name: Name
    parent_id: FileId | None = None


def folder(ctx: ToolContext, inp: FolderInput) -> Done:
    return _done(services.folder_create(org=ctx.org, asker=_asker(ctx), name=inp.name, parent_id=inp.parent_id))


register(
    Tool(
        name="files.folder",
        description="A new folder, inside another when parentId is given",
        input=FolderInput,
        run=folder,
        kind="makes",
        your_work="home_undo",
        undo=undo,
    )
)


# --- move -----------------------------------------------------------------------------------------------------


class MoveInput(ToolInput):
    ids: Annotated[list[FileId], Field(min_length=1, max_length=50)]
    folder_id: FileId


def move(ctx: ToolContext, inp: MoveInput) -> Done:
    return _done(services.files_move(org=ctx.org, asker=_asker(ctx), ids=inp.ids, folder_id=inp.folder_id))


register(
    Tool(
        name="files.move",
        description="Move files or folders into a folder, up to 50 at once",
        input=MoveInput,
        run=move,
        kind="changes",
        your_work="home_undo",
        undo=undo,
        replaces=lambda ctx, inp: services.move_replaces(org=ctx.org, asker=_asker(ctx), ids=inp.ids),
    )
)


# --- rename ---------------------------------------------------------------------------------------------------


class RenameInput(ToolInput):
    id: FileId
    name: Name


def rename(ctx: ToolContext, inp: RenameInput) -> Done:
    return _done(services.file_rename(org=ctx.org, asker=_asker(ctx), id=inp.id, name=inp.name))


register(
    Tool(
        name="files.rename",
        description="Rename a file or folder",
        input=RenameInput,
        run=rename,
        kind="changes",
        your_work="home_undo",
        undo=undo,
        replaces=lambda ctx, inp: services.rename_replaces(org=ctx.org, asker=_asker(ctx), id=inp.id),
    )
)


# --- create_doc -----------------------------------------------------------------------------------------------


class CreateDocInput(ToolInput):
    name: Name
    markdown: Annotated[str, Chars(1, 200_000)]
    folder_id: FileId | None = None


def create_doc(ctx: ToolContext, inp: CreateDocInput) -> Done:
    return _done(services.doc_create(org=ctx.org, asker=_asker(ctx), name=inp.name, markdown=inp.markdown,
                                     folder_id=inp.folder_id))


register(
    Tool(
        name="files.create_doc",
        description="A new Google Doc written from Markdown: headings, lists, tables, bold and links",
        input=CreateDocInput,
        run=create_doc,
        kind="makes",
        your_work="home_undo",
        undo=undo,
    )
)


# --- append_text ----------------------------------------------------------------------------------------------


class AppendTextInput(ToolInput):
    id: FileId
    text: Annotated[str, Chars(1, 50_000)]


def append_text(ctx: ToolContext, inp: AppendTextInput) -> Done:
    return _done(services.text_append(org=ctx.org, asker=_asker(ctx), id=inp.id, text=inp.text))


register(
    Tool(
        name="files.append_text",
        description="Add text as a new paragraph at the end of a Google Doc",
        input=AppendTextInput,
        run=append_text,
        kind="changes",
        your_work="home_undo",
        undo=undo,
        replaces=lambda ctx, inp: services.file_replaces(org=ctx.org, asker=_asker(ctx), id=inp.id),
    )
)


# --- create_sheet ---------------------------------------------------------------------------------------------


class CreateSheetInput(ToolInput):
    name: Name
    rows: Rows
    folder_id: FileId | None = None


def create_sheet(ctx: ToolContext, inp: CreateSheetInput) -> Done:
    return _done(services.sheet_create(org=ctx.org, asker=_asker(ctx), name=inp.name, rows=inp.rows,
                                       folder_id=inp.folder_id))


register(
    Tool(
        name="files.create_sheet",
        description="A new Google Sheet from rows, the first row its headings",
        input=CreateSheetInput,
        run=create_sheet,
        kind="makes",
        your_work="home_undo",
        undo=undo,
    )
)


# --- save -----------------------------------------------------------------------------------------------------


class SaveInput(ToolInput):
    workspace: Annotated[str, Chars(1, 500)]
    folder_id: FileId | None = None
    name: Name | None = None
    as_google: bool | None = None
    over: FileId | None = None


def save(ctx: ToolContext, inp: SaveInput) -> Done:
    return _done(workspace_services.workspace_file_save(
        org=ctx.org, actor=ctx.actor, asker=_asker(ctx), workspace=inp.workspace, folder_id=inp.folder_id,
        name=inp.name, as_google=inp.as_google, over=inp.over,
    ))


register(
    Tool(
        name="files.save",
        description="Put a workspace file in Drive: a new file, or with over, a new version of the Drive file it "
                    "was opened from",
        input=SaveInput,
        run=save,
        kind=lambda ctx, inp: "changes" if inp.over else "makes",
        your_work="home_undo",
        undo=undo,
        replaces=lambda ctx, inp: (services.file_replaces(org=ctx.org, asker=_asker(ctx), id=inp.over,
                                                          version="a new version from the workspace")
                                   if inp.over else None),
    )
)


# --- save_attachment ------------------------------------------------------------------------------------------


class SaveAttachmentInput(ToolInput):
    email: Annotated[str, Chars(3, 500)] | None = None
    attachment: Annotated[str, Chars(3, 300)]
    folder_id: FileId | None = None
    name: Name | None = None


def save_attachment(ctx: ToolContext, inp: SaveAttachmentInput) -> Done:
    return _done(services.attachment_save(org=ctx.org, asker=_asker(ctx), email=inp.email,
                                          attachment=inp.attachment, folder_id=inp.folder_id, name=inp.name))


register(
    Tool(
        name="files.save_attachment",
        description="Save an email's attachment into Drive: attachment is its id from search (gmail:…:a:…). For "
                    "mail not in search, email is the thread's id from mail search and attachment the id mail read "
                    "listed",
        input=SaveAttachmentInput,
        run=save_attachment,
        kind="makes",
        your_work="home_undo",
        undo=undo,
    )
)


# --- sheet_rows -----------------------------------------------------------------------------------------------


class SheetRowsInput(ToolInput):
    id: FileId
    range: Range


def sheet_rows(ctx: ToolContext, inp: SheetRowsInput) -> dict[str, Any]:
    return services.sheet_rows(org=ctx.org, asker=_asker(ctx), id=inp.id, range_=inp.range)


register(
    Tool(
        name="files.sheet_rows",
        description="A sheet's cells, such as \"Projects!A1:H50\"",
        input=SheetRowsInput,
        run=sheet_rows,
        kind="reads",
    )
)


# --- append_rows ----------------------------------------------------------------------------------------------


class AppendRowsInput(ToolInput):
    id: FileId
    range: Range
    values: Rows


def append_rows(ctx: ToolContext, inp: AppendRowsInput) -> Done:
    return _done(services.rows_append(org=ctx.org, asker=_asker(ctx), id=inp.id, range_=inp.range,
                                      values=inp.values))


register(
    Tool(
        name="files.append_rows",
        description="Add rows after a sheet's table, such as range \"Leads!A:F\"",
        input=AppendRowsInput,
        run=append_rows,
        kind="changes",
        your_work="home_undo",
        undo=undo,
        replaces=lambda ctx, inp: services.file_replaces(org=ctx.org, asker=_asker(ctx), id=inp.id,
                                                         range=inp.range),
    )
)


# --- update_cells ---------------------------------------------------------------------------------------------


class UpdateCellsInput(ToolInput):
    id: FileId
    range: Range
    values: Rows


def update_cells(ctx: ToolContext, inp: UpdateCellsInput) -> Done:
    return _done(services.cells_update(org=ctx.org, asker=_asker(ctx), id=inp.id, range_=inp.range,
                                       values=inp.values))


register(
    Tool(
        name="files.update_cells",
        description="Write over cells, such as a date in \"Projects!F12\"; their old values are kept for Undo",
        input=UpdateCellsInput,
        run=update_cells,
        kind="changes",
        your_work="home_undo",
        undo=undo,
        replaces=lambda ctx, inp: services.cells_replaces(org=ctx.org, asker=_asker(ctx), id=inp.id,
                                                          range_=inp.range, values=inp.values),
    )
)


# --- replace_text ---------------------------------------------------------------------------------------------


class ReplaceTextInput(ToolInput):
    id: FileId
    find: Annotated[str, Chars(1, 2000)]
    replace: Annotated[str, Chars(0, 5000)]


def replace_text(ctx: ToolContext, inp: ReplaceTextInput) -> Done | dict[str, Any]:
    outcome = services.text_replace(org=ctx.org, asker=_asker(ctx), id=inp.id, find=inp.find, replace=inp.replace)
    # Nothing matched: nothing changed, so nothing is listed on Home.
    return _done(outcome) if isinstance(outcome, services.Outcome) else outcome


register(
    Tool(
        name="files.replace_text",
        description="Replace every match of some text in a Google Doc",
        input=ReplaceTextInput,
        run=replace_text,
        kind="changes",
        your_work="home_undo",
        undo=undo,
        replaces=lambda ctx, inp: services.file_replaces(org=ctx.org, asker=_asker(ctx), id=inp.id,
                                                         text=inp.find),
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "files.search": {
        "query": "Words in a file's name or text",
        "source": "Only accounts whose name contains this, e.g. an email address",
        "modifiedAfter": "Only files changed after this, YYYY-MM-DD",
        "limit": "How many files at most",
        "page": "nextPage from the last search, for more",
    },
    "files.read": {
        "id": "The file's id from search or the files tools, or its Drive link",
        "offset": "nextOffset from the last read, for the rest; 0 from the start",
        "page": "nextPage from the last read of a folder, for more",
    },
    "files.copy": {
        "id": "The file's id from search or the files tools, or its Drive link",
        "name": "The copy's name",
        "folderId": "The folder the copy goes in; the original's when left out",
    },
    "files.folder": {
        "name": "The folder's name",
        "parentId": "The folder it goes in; My Drive when left out",
    },
    "files.move": {
        "ids": "The files' ids",
        "folderId": "The folder they go to",
    },
    "files.rename": {
        "id": "The file's id from search or the files tools, or its Drive link",
        "name": "The new name",
    },
    "files.create_doc": {
        "name": "The Google Doc's name",
        "markdown": "Its text, in Markdown",
        "folderId": "The Drive folder's id; the owner's My Drive when left out",
    },
    "files.append_text": {
        "id": "The Google Doc's id",
        "text": "Text to add at its end",
    },
    "files.create_sheet": {
        "name": "The Google Sheet's name",
        "rows": "Rows of cells, each row a list of text, numbers, true/false or null",
        "folderId": "The Drive folder's id; the owner's My Drive when left out",
    },
    "files.save": {
        "workspace": "Its path, such as shared/report.xlsx",
        "folderId": "Where a new file goes",
        "name": "The Drive file's name; the workspace file's when left out",
        "asGoogle": "Makes an .xlsx, .docx or .pptx a Google file",
        "over": "The Drive file it was opened from: open's from. Never a Google file",
    },
    "files.save_attachment": {
        "email": "The message's id, from mail search",
        "attachment": "The attachment's id, from search or mail read",
        "folderId": "The Drive folder's id; the owner's My Drive when left out",
        "name": "The file's name; the attachment's when left out",
    },
    "files.sheet_rows": {
        "id": "The Google Sheet's id",
        "range": "Cells in A1 notation, such as Sheet1!A1:D20",
    },
    "files.append_rows": {
        "id": "The Google Sheet's id",
        "range": "The table to add to, such as Sheet1!A:D",
        "values": "Rows of cells, each row a list of text, numbers, true/false or null",
    },
    "files.update_cells": {
        "id": "The Google Sheet's id",
        "range": "Cells in A1 notation, such as Sheet1!A1:D20",
        "values": "Rows of cells, each row a list of text, numbers, true/false or null",
    },
    "files.replace_text": {
        "id": "The Google Doc's id",
        "find": "The text to find, word for word",
        "replace": "What replaces it everywhere",
    },
})
