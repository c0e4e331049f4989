"""`use_tool`: the one path every caller takes to run a tool (a thread, code in the workspace, an MCP client).
The agent tools (hand_off, make_agent, …) take the same path from step 2 (`run_tool`), called by the agents'
dispatcher (agents/runtime/agent_tools.py), which resolves them where the caller holds them.

1. resolve the name; 2. validate the input; 3. find the records it names, then the check (go / ask / stop), with no
transaction open (its judge is a model); 4. run the service; 5. record the change (Home's Your work, or the record's
own log) with what Undo needs; 6. return the result as JSON. Failures come back in-band as `{error, message,
card?}`, never as exceptions.

No transaction stays open across a network call (under SQLite it would hold the one write lock). A tool that only
works on Roadstar's own records runs in one transaction with its change, so it happens whole or not at all. A tool
that calls an app (`Tool.calls_apps`: mail, files, calendar, books) runs with none open; its writes here (returned
as `Writes`) and its change go in one short transaction after the app's work. Either way the caller's record of
the call (a thread's ToolCall: `recording`) commits in that same transaction, so a call that ran is recorded once.

A write that waits for the database longer than its busy timeout (SQLite's lock held by another process) answers
`unavailable`, "busy, try again", and nothing of the call is kept.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

from django.db import OperationalError, transaction
from pydantic import ValidationError

from checks.models import CheckDecision
from checks.selectors import MadeBy, request_for_workspace
from checks.selectors import made_here as checks_made_here
from checks.services import check_tool_call
from core import rows
from core.context import ToolContext
from core.errors import ToolError, busy_error, is_busy
from core.inputs import describe_validation_error
from core.lenient_json import NotAnObject, read_object
from core.services import change_record
from integrations.durable import keep, kept
from tools import registry
from tools.registry import ToolInput
from tools.targets import find_named_records

logger = logging.getLogger(__name__)


class Recording:
    """A caller's record of one call, written in the transaction that commits the call's own writes."""

    def __init__(self, write: Callable[[registry.ToolResult], None]) -> None:
        self.write = write
        self.done = False


_recording: ContextVar[Recording | None] = ContextVar("tools_pipeline_recording", default=None)


@contextmanager
def recording(write: Callable[[registry.ToolResult], None]) -> Iterator[Recording]:
    """`with recording(lambda result: ...) as record:` around a call: `write(result)` runs inside the transaction
    that commits what the call did, and `record.done` says it committed. When it isn't done (the call asked, failed
    or changed nothing of its own), the caller records the result itself."""
    record = Recording(write)
    token = _recording.set(record)
    try:
        yield record
    finally:
        _recording.reset(token)


@contextmanager
def apart_from_caller() -> Iterator[None]:
    """A call made while another runs (code in the workspace calling a tool during workspace.bash): it must not
    take the running call's record, which that call writes when it finishes."""
    token = _recording.set(None)
    try:
        yield
    finally:
        _recording.reset(token)


def take_recording() -> Recording | None:
    """The caller's record of this call, taken once: a call nested in this one can't write it."""
    record = _recording.get()
    if record is not None:
        _recording.set(None)
    return record


def use_tool(ctx: ToolContext, name: str, raw_input: object) -> registry.ToolResult:
    """Find the tool `name` and run it (run_tool) with `raw_input`, as an agent or code sent it: anything, which
    must be an object of the tool's inputs (None reads as no inputs)."""
    tool = registry.get_tool(name) if isinstance(name, str) else None
    if tool is None and isinstance(name, str):
        tool = registry.get_tool(registry.tool_name_as_meant(name))  # `Mail.Send`, `functions.mail.send`
    if tool is None and isinstance(name, str):
        tool = registry.workspace_tool(ctx.org, name)  # a tool of an app the owner connected by its address
    if tool is None:
        return _no_such_tool(name)
    if tool.group in registry.GROUPS and not registry.group_on(tool.group, ctx.org):
        return ToolError("unsupported", registry.off_group_message(tool.group)).as_result()
    if not registry.tool_on(tool, ctx.org):
        # mail.search and mail.read once search's copy holds every mail account whole (search/takeover.py).
        return ToolError("unsupported", f"{tool.name} isn't there in this workspace: every account it reads is in "
                                        "search, so use search.search and search.read.").as_result()
    try:
        # As models send it: an object, or the object written as a JSON string (with a trailing comma, …).
        raw_input = read_object(raw_input, what=f"input: {tool.name}'s input")
    except NotAnObject as problem:
        return ToolError("bad_input", f"{problem}. Nothing ran.").as_result()
    return run_tool(ctx, tool, raw_input)


def run_tool(ctx: ToolContext, tool: registry.Tool, raw_input: dict[str, Any]) -> registry.ToolResult:
    """Validate → check → run → record one resolved tool: a group's, found by use_tool, or an agent tool, found by
    the agents' dispatcher where the caller holds it (`ctx.host` is then the turn or session running it)."""
    try:
        inp = tool.input.model_validate(raw_input)
    except ValidationError as error:
        return ToolError("bad_input", describe_validation_error(error, tool)).as_result()

    try:
        held, decision = _check(ctx, tool, inp, raw_input)
        if held is not None:
            return held
        return _run(ctx, tool, inp, decision=decision)
    except ToolError as error:
        return error.as_result()
    except OperationalError as error:
        if not is_busy(error):
            raise
        logger.warning("%s: the database stayed busy: %s", tool.name, error)
        return busy_error().as_result()


def _run(ctx: ToolContext, tool: registry.Tool, inp: ToolInput, *,
         decision: CheckDecision | None = None) -> registry.ToolResult:
    # `decision`: the check's row of a go that spent no yes, written here with the action (_check).
    def finish(outcome: registry.Done | registry.Writes | registry.ToolResult) -> registry.ToolResult:
        if isinstance(outcome, registry.Writes):
            outcome = outcome.write()
        result = _record(ctx, tool, inp, outcome)
        return {"done": True} if result is None and not tool.nullable else result

    # kept(): writes a failing tool must leave standing (the card its error points to, a refreshed token) are
    # written again after its transaction rolls back. See integrations/durable.py.
    with kept():
        if not tool.calls_apps:
            return in_one_transaction(lambda: finish(tool.run(ctx, inp)), reads_only=tool.kind == "reads",
                                      decision=decision)
        outcome = tool.run(ctx, inp)  # the app is called with no transaction open
        if not isinstance(outcome, registry.Done | registry.Writes) and _recording.get() is None:
            return finish(outcome)  # it read: nothing to write here, so no lock to wait for
        try:
            return in_one_transaction(lambda: finish(outcome))
        except OperationalError as error:
            if is_busy(error) and isinstance(outcome, registry.Done):
                # The app made its change; only Roadstar's record of it couldn't be written.
                raise ToolError("unknown_outcome", f"{tool.name} was done in the app, but Roadstar's database was "
                                "busy, so it isn't recorded and has no Undo: look in the app before doing it "
                                "again.") from error
            raise


def in_one_transaction(work: Callable[[], registry.ToolResult], *, reads_only: bool = False,
                       decision: CheckDecision | None = None) -> registry.ToolResult:
    """Run a call's writes (`work`, returning the call's result) in one transaction with the caller's record of the
    call: the call happens, and is known to have happened, or neither.

    `reads_only`: a tool that only reads Roadstar's records has nothing to commit with its record, so it runs with
    no transaction open and the record is written by itself (the turn's storage makes that one statement on
    PostgreSQL, one transaction elsewhere): a transaction's BEGIN and COMMIT less a call, and on SQLite no write
    lock held while it reads.

    `decision`: the check's row for this call (a go that spent no yes), written with the call: in its transaction,
    held to go out with its result (core.rows.holding_writes); written again by itself should the call fail, as a go
    is kept whatever came of it (integrations.durable.keep); before the work where there is no transaction."""
    record = take_recording()
    if reads_only:
        if decision is not None:
            rows.insert(decision, wait_for_disk=False)
        result = work()
        if record is not None:
            record.write(result)
            record.done = True
        return result
    # The rows the call writes that nothing reads back (the check's decision, log entries, the change's record, a
    # new thread or piece of work) go out as parts of its next statement on PostgreSQL (core.rows.holding_writes).
    with transaction.atomic(), rows.holding_writes():
        if decision is not None:
            row = decision
            keep(lambda: rows.insert(row, held=True))
        result = work()
        if record is not None:
            record.write(result)
    if record is not None:
        record.done = True
    return result


def _no_such_tool(name: object) -> dict[str, Any]:
    group = name.partition(".")[0] if isinstance(name, str) else ""
    close = registry.closest_tool(name) if isinstance(name, str) else None
    if group in registry.GROUPS:
        known = ", ".join(t.name for t in registry.tools_of(group))
        message = f"There is no tool {name!r}. The {group} group has: {known}."
    elif group in registry.SPEC_GROUPS:
        return ToolError("unsupported", registry.absent_group_message(group)).as_result()
    elif close is not None:  # a group's name misspelt (contact.find): the tool it means
        message = f"There is no tool {name!r}. Did you mean {close}? Nothing ran."
    else:
        message = f"There is no tool {name!r}. The groups are: {', '.join(registry.GROUPS)}."
    return {"error": "bad_input", "message": message}


def _check(ctx: ToolContext, tool: registry.Tool, inp: ToolInput,
           raw_input: dict[str, Any]) -> tuple[dict[str, Any] | None, CheckDecision | None]:
    """Ask the owner's yes for a checked action: the answer to return instead of running (None for go), and for a
    go in Roadstar's own records that spent no yes, the decision's row, not yet written, for `_run` to write with
    the action (a round trip less: checks.services.check_tool_call's `write_go`)."""
    if not tool.is_checked(ctx, inp):
        _refuse_if_unavailable(ctx, tool)
        return None, None
    # The records it names are found first: another workspace's id is not_found, never an ask on Home.
    found = tool.reads_first(ctx, inp) if tool.reads_first is not None else frozenset()
    find_named_records(ctx, inp, found=found)
    _refuse_if_unavailable(ctx, tool)  # then what can't work here says so, before the owner is asked about it
    action = {"tool": tool.name, "input": raw_input}
    if tool.replaces is not None:
        replaced = tool.replaces(ctx, inp)
        if replaced is not None:
            action["replaces"] = replaced
    if tool.check_note is not None:
        action["note"] = tool.check_note(ctx, inp)
    # The yes is stored against the input as validated: the same action written another way is the same action.
    decision: list[CheckDecision] = []
    answer = check_action(ctx, action, validated=inp.model_dump(mode="json", by_alias=True, exclude_unset=True),
                          in_apps=bool(tool.calls_apps), write_go=None if tool.calls_apps else decision.append)
    return answer, decision[0] if decision else None


def _refuse_if_unavailable(ctx: ToolContext, tool: registry.Tool) -> None:
    why = tool.unavailable(ctx) if tool.unavailable is not None else None
    if why:
        raise ToolError("unsupported", why)


def check_action(
    ctx: ToolContext, action: dict[str, Any], *, validated: dict[str, Any] | None = None, in_apps: bool = True,
    write_go: Callable[[CheckDecision], None] | None = None,
) -> dict[str, Any] | None:
    """The owner's yes for one action (`{tool, input, replaces?}`): None for go, else what to return instead.

    `validated` is the input after the tool's validation, when the caller has it, for the yes's fingerprint.
    `in_apps=False`: the action changes Roadstar's own records only, so a "go" needn't wait for the disk
    (checks.services.check_tool_call's `wait_for_disk`). `write_go`: the caller writes a go's row itself (as there).
    """
    request = request_for_workspace(
        org=ctx.org, conversation=ctx.conversation(), action=action, made_by=_made_by(ctx)
    )
    decision = check_tool_call(
        org=ctx.org,
        request=request,
        actor_kind=ctx.actor.kind,
        actor_id=ctx.actor.id,
        conversation_id=ctx.conversation_id,
        validated_input=validated,
        wait_for_disk=in_apps,
        write_go=write_go,
    )
    return decision.as_tool_result(ctx.org.owner_first_name)


def made_here(ctx: ToolContext) -> list[str]:
    """What this same piece of work made (`contact:<id>`, `doc:<id>` …): the check lets it change those freely.
    (The check reads it with the workspace's contacts: `check_action`.)"""
    made_by = _made_by(ctx)
    return checks_made_here(org=ctx.org, made_by=made_by) if made_by is not None else []


def _made_by(ctx: ToolContext) -> MadeBy | None:
    # The piece of work: its work's id, else its conversation's; code with neither has made nothing of its own.
    if ctx.work_id:
        return MadeBy(work_id=str(ctx.work_id))
    if ctx.conversation_id:
        return MadeBy(conversation_id=str(ctx.conversation_id))
    return None


def _record(
    ctx: ToolContext, tool: registry.Tool, inp: ToolInput, outcome: registry.Done | registry.ToolResult
) -> registry.ToolResult:
    # A tool that made no change (a read, or a create that found the address on a contact already) returns
    # its result bare; one that changed something returns Done with the change to record.
    if not isinstance(outcome, registry.Done):
        return _jsonable(outcome)
    if tool.your_work is None:
        # The registry refuses a tool that changes things without saying how its change shows, and one that
        # reads or arranges work with a listing: a Done from the latter is a programming error, not a record.
        raise RuntimeError(f"{tool.name} {tool.kind} only, yet returned a change to record")
    change = change_record(
        org=ctx.org,
        actor=ctx.actor,
        tool=tool.name,
        kind="changes" if tool.kind_for(ctx, inp) == "makes" and outcome.changed_existing else tool.kind_for(ctx, inp),
        sentence=outcome.sentence,
        listing=tool.your_work,
        target_type=outcome.target_type,
        target_id=outcome.target_id,
        undo=outcome.undo if tool.undo is not None else None,
        conversation_id=ctx.conversation_id,
        work_id=ctx.work_id,
        created=outcome.created,
        change_id=outcome.change_id,
    )
    if outcome.log_entry is not None and outcome.log_entry.change_id != change.id:
        outcome.log_entry.change = change
        outcome.log_entry.save(update_fields=["change"])
    return _jsonable(outcome.result)


def _jsonable(result: object) -> registry.ToolResult:
    # Results are built from the spec's types and are JSON already; this proves it before the model sees them.
    if result is None:
        return None
    json.dumps(result)
    return cast(registry.ToolResult, result)
