"""`use_tool`: the one path every caller takes to run a tool (a thread, code in the workspace, an MCP client).

1. resolve the name; 2. validate the input; 3. find the records it names, then the check (go / ask / stop);
4. run the service in one transaction; 5. record the change (Home's Your work, or the record's own log) with what Undo needs;
6. return the result as JSON. Failures come back in-band as `{error, message, card?}`, never as exceptions.
"""

from __future__ import annotations

import json
import logging

from django.db import transaction
from pydantic import ValidationError

from integrations.durable import kept
from core.models import Change
from core.services import change_record
from tools import registry
from core.context import ToolContext
from core.errors import ToolError
from core.inputs import describe_validation_error
from tools.targets import find_named_records

logger = logging.getLogger(__name__)


def use_tool(ctx: ToolContext, name: str, raw_input: dict | None) -> dict | None:
    registry.load_all()
    tool = registry.get_tool(name) if isinstance(name, str) else None
    if tool is None:
        return _no_such_tool(name)
    if raw_input is None:
        raw_input = {}
    if not isinstance(raw_input, dict):
        return ToolError("bad_input", f"input: must be an object of {name}'s inputs").as_result()
    try:
        inp = tool.input.model_validate(raw_input)
    except ValidationError as error:
        return ToolError("bad_input", describe_validation_error(error, tool)).as_result()

    try:
        held = _check(ctx, tool, inp, raw_input)
        if held is not None:
            return held
        # kept(): writes a failing tool must leave standing (the card its error points to, a refreshed token)
        # are written again after its transaction rolls back. See integrations/durable.py.
        with kept(), transaction.atomic():
            outcome = tool.run(ctx, inp)
            result = _record(ctx, tool, inp, outcome)
    except ToolError as error:
        return error.as_result()
    if result is None:
        return None if tool.nullable else {"done": True}
    return result


def _no_such_tool(name) -> dict:
    group = name.partition(".")[0] if isinstance(name, str) else ""
    if group in registry.GROUPS:
        known = ", ".join(t.name for t in registry.tools_of(group))
        message = f"There is no tool {name!r}. The {group} group has: {known}."
    else:
        message = f"There is no tool {name!r}. The groups are: {', '.join(registry.GROUPS)}."
    return {"error": "bad_input", "message": message}


def _check(ctx: ToolContext, tool: registry.Tool, inp, raw_input: dict) -> dict | None:
    """Ask the owner's yes for a checked action; the answer to return instead of running, or None for go."""
    if not tool.is_checked(ctx, inp):
        return None
    # The records it names are found first: another workspace's id is not_found, never an ask on Home.
    find_named_records(ctx, inp)
    action = {"tool": tool.name, "input": raw_input}
    if tool.replaces is not None:
        replaced = tool.replaces(ctx, inp)
        if replaced is not None:
            action["replaces"] = replaced
    if tool.check_note is not None:
        action["note"] = tool.check_note(ctx, inp)
    # The yes is stored against the input as validated: the same action written another way is the same action.
    return check_action(ctx, action, validated=inp.model_dump(mode="json", by_alias=True, exclude_unset=True))


def check_action(ctx: ToolContext, action: dict, *, validated: dict | None = None) -> dict | None:
    """The owner's yes for one action (`{tool, input, replaces?}`): None for go, else what to return instead.

    The same check serves tools run through use_tool and the agent tools that are checked (change_agent).
    `validated` is the input after the tool's validation, when the caller has it, for the yes's fingerprint.
    """
    from checks.selectors import request_for_workspace
    from checks.services import check_tool_call

    request = request_for_workspace(
        org=ctx.org, conversation=ctx.conversation(), action=action, made_here=made_here(ctx)
    )
    decision = check_tool_call(
        org=ctx.org,
        request=request,
        actor_kind=ctx.actor.kind,
        actor_id=ctx.actor.id,
        conversation_id=ctx.conversation_id,
        validated_input=validated,
    )
    return decision.as_tool_result(ctx.org.owner_first_name)


def made_here(ctx: ToolContext) -> list[str]:
    """What this same piece of work made (`contact:<id>`, `doc:<id>` …): the check lets it change those freely."""
    if ctx.work_id:
        scope = {"work_id": ctx.work_id}
    elif ctx.conversation_id:
        scope = {"conversation_id": ctx.conversation_id}
    else:
        return []
    # Only what this work created: a "makes" change on a record that was there (a note on a contact, an item on a
    # company) must not make that record this work's own, or a note would unlock a checked rewrite of it.
    rows = Change.objects.filter(
        organization=ctx.org, created=True, undone_at__isnull=True, **scope
    ).values_list("target_type", "target_id")
    return [f"{kind}:{target}" for kind, target in rows if kind and target]


def _record(ctx: ToolContext, tool: registry.Tool, inp, outcome) -> dict | None:
    # A tool that made no change (a read, or a create that found the address on a contact already) returns
    # its result bare; one that changed something returns Done with the change to record.
    if not isinstance(outcome, registry.Done):
        return _jsonable(outcome)
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
    )
    if outcome.log_entry is not None:
        outcome.log_entry.change = change
        outcome.log_entry.save(update_fields=["change"])
    return _jsonable(outcome.result)


def _jsonable(result):
    # Results are built from the spec's types and are JSON already; this proves it before the model sees them.
    if result is None:
        return None
    json.dumps(result)
    return result
