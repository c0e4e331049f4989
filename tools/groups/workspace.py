"""The workspace group: the agents' sandboxed computer. Thin declarations over workspace.services.

`workspace.bash` also serves tools from code: the run's `roadstar` module (Python and Node) sends each call over
the run's own socket, and `CallsFromCode` answers it through `use_tool` in the agent's own context, so the
same check holds it back and the change lands on Home exactly as if the agent had called the tool.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from core.context import ToolContext
from core.inputs import AppItem, Chars, Whole
from integrations.services import Asker
from tools.pipeline import apart_from_caller, use_tool
from tools.registry import Group, Tool, ToolInput, ToolResult, describe_inputs, register, register_group
from workspace import services

register_group(
    Group(
        name="workspace",
        summary="your own folder: files, spreadsheets and code",
        how_to=(
            "A small computer the owner's agents share, where files stay between runs: Python 3 with pandas, "
            "numpy, openpyxl, XlsxWriter, python-pptx, python-docx, pypdf and matplotlib, Node and a shell, and no "
            "internet. Runs start in your own folder; /work/inbox holds files opened from Drive and mail, and "
            "/work/shared is for what you leave another agent. Edit Office files here with code. Files leave "
            "through your other tools, which take a workspace path: files.save puts one in Drive, and mail's "
            "attach takes {workspace: path}. Code calls your other tools as `group.action(...)`, with the same "
            "input and checks: in Python, `from roadstar import mail`; in JavaScript, in a script in your folder, "
            "`import { mail } from \"roadstar\"` and await each call. A call the check holds back returns "
            "{not_done_yet} or {refused} and the code carries on; ask the owner in your reply once the run is "
            "done. A refused call raises ToolError. Write scripts to files and run them, such as `python "
            "report.py`, and write results to files from code: the shell can't pipe or redirect node's or "
            "python's output. Only a run's output reaches you, cut to 20,000 characters, so print what you need. "
            "Formulas are saved, not worked out: Excel and Sheets do that on open. A run stops after 120 s or 300 "
            "tool calls."
        ),
    )
)

Path = Annotated[str, Chars(1, 500)]
# Held-back calls listed in `calls` with what the check said, at most this many per tool (the count has them all).
HELD_LISTED = 5


# --- tools from code -------------------------------------------------------------------------------------------


class CallsFromCode:
    """What a run's code calls: each call through use_tool in the agent's context, counted in `tally` for
    `calls`. The sandbox calls it with the tool's name and input, as a CallHandler."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.tally: dict[str, dict[str, Any]] = {}

    def __call__(self, name: object, tool_input: object) -> ToolResult:
        if not isinstance(name, str):
            return {"error": "bad_input", "message": "tool: give the tool's name, such as mail.search"}
        result: ToolResult
        if name == "workspace.bash":
            result = {"error": "bad_input", "message": "workspace.bash can't be called from code: run the "
                                                      "command from this same code instead"}
        else:
            # A call from code is its own call: the agent's record of workspace.bash is written by bash alone.
            with apart_from_caller():
                result = use_tool(self.ctx, name, tool_input if isinstance(tool_input, dict) else tool_input or {})
        _count(self.tally, name, tool_input, result)
        return result


def _count(tally: dict[str, Any], name: str, tool_input: object, result: object) -> None:
    entry = tally.setdefault(name if len(name) <= 100 else name[:100], {"calls": 0, "done": 0})
    entry["calls"] += 1
    if isinstance(result, dict) and "not_done_yet" in result:
        _held(entry, "notDoneYet", tool_input, result["not_done_yet"])
    elif isinstance(result, dict) and "refused" in result:
        _held(entry, "refused", tool_input, result["refused"])
    elif isinstance(result, dict) and "error" in result:
        entry["errors"] = entry.get("errors", 0) + 1
    else:
        entry["done"] += 1


def _held(entry: dict[str, Any], kind: str, tool_input: object, words: str) -> None:
    held = entry.setdefault(kind, [])
    if len(held) < HELD_LISTED:
        held.append({"input": tool_input, "message": words})


# --- bash ------------------------------------------------------------------------------------------------------


class BashInput(ToolInput):
    command: Annotated[str, Chars(1, 20_000)]


def bash(ctx: ToolContext, inp: BashInput) -> dict[str, Any]:
    calls = CallsFromCode(ctx)
    answer = services.workspace_run(org=ctx.org, actor=ctx.actor, command=inp.command, on_call=calls)
    answer["calls"] = calls.tally
    return answer


register(
    Tool(
        name="workspace.bash",
        description="Run a shell command in your folder, such as `python report.py`: its output, exit code and the "
                    "tools its code called",
        input=BashInput,
        run=bash,
        kind="reads",
        # A run takes up to two minutes and its code may call apps: no transaction stays open across it. Its code
        # may send or change things through tools, so a run a dead worker left is never run again.
        calls_apps=True,
        calls_tools=True,
    )
)


# --- read ------------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    path: Path
    offset: Annotated[int, Whole(1)] | None = None
    limit: Annotated[int, Whole(1, 2000)] | None = None


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    return services.file_read(org=ctx.org, actor=ctx.actor, path=inp.path, offset=inp.offset, limit=inp.limit)


register(
    Tool(
        name="workspace.read",
        description="A text file's lines from offset (1 is the first), 2,000 at a time; nextOffset gives the rest. "
                    "A binary file, such as .xlsx, gives its size: work on it with code",
        input=ReadInput,
        run=read,
        kind="reads",
        calls_apps=True,  # files on disk, not the database: nothing to hold a transaction open for
    )
)


# --- write -----------------------------------------------------------------------------------------------------


class WriteInput(ToolInput):
    path: Path
    content: Annotated[str, Chars(0, 2_000_000)]


def write(ctx: ToolContext, inp: WriteInput) -> dict[str, Any]:
    return services.file_write(org=ctx.org, actor=ctx.actor, path=inp.path, text=inp.content)


register(
    Tool(
        name="workspace.write",
        description="Write a text file, making its folders; replaces one that's there",
        input=WriteInput,
        run=write,
        kind="reads",
        calls_apps=True,
    )
)


# --- edit ------------------------------------------------------------------------------------------------------


class EditInput(ToolInput):
    path: Path
    old_text: Annotated[str, Chars(1, 200_000)]
    new_text: Annotated[str, Chars(0, 200_000)]


def edit(ctx: ToolContext, inp: EditInput) -> dict[str, Any]:
    return services.file_edit(org=ctx.org, actor=ctx.actor, path=inp.path, old_text=inp.old_text,
                              new_text=inp.new_text)


register(
    Tool(
        name="workspace.edit",
        description="Replace exact text in a text file; oldText must appear once",
        input=EditInput,
        run=edit,
        kind="reads",
        calls_apps=True,
    )
)


# --- open ------------------------------------------------------------------------------------------------------


class OpenAttachment(ToolInput):
    email: Annotated[str, Chars(3, 500), AppItem] | None = None
    attachment: Annotated[str, Chars(3, 300), AppItem]


class OpenInput(ToolInput):
    files: Annotated[list[Annotated[str, Chars(3, 500), AppItem]], Field(max_length=20)] | None = None
    attachments: Annotated[list[OpenAttachment], Field(max_length=20)] | None = None


def open_files(ctx: ToolContext, inp: OpenInput) -> dict[str, Any]:
    return services.files_open(org=ctx.org, actor=ctx.actor, asker=Asker.of(ctx), files=inp.files or [],
                               attachments=[(a.email, a.attachment) for a in inp.attachments or []])


register(
    Tool(
        name="workspace.open",
        description="Copy Drive files and email attachments into /work/inbox. Google Sheets, Docs and Slides arrive "
                    "as .xlsx, .docx and .pptx. Each file's path, and from: the Drive file it came from, for "
                    "files.save's over",
        input=OpenInput,
        run=open_files,
        kind="reads",
        calls_apps=True,
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "workspace.bash": {
        "command": "A shell command, run in your folder",
    },
    "workspace.read": {
        "path": "The file's path in your folder",
        "offset": "The line to start at, from 1",
        "limit": "How many lines at most",
    },
    "workspace.write": {
        "path": "The file's path in your folder",
        "content": "The whole file's text",
    },
    "workspace.edit": {
        "path": "The file's path in your folder",
        "oldText": "The text to replace, word for word, found once",
        "newText": "What replaces it",
    },
    "workspace.open": {
        "files": "Drive files: ids from search or the files tools, or links",
        "attachments": (
            "An attachment's id from search; for mail not in search, the thread's id from mail search and the id "
            "mail read listed"
        ),
    },
})
