"""The agent tools' dispatcher: which agent tools a place holds, and running one the model (or an outside app)
called, in-band, through the same pipeline as a group's tools (tools.pipeline.run_tool).

The tools themselves are declared in the tool registry (tools.registry.AGENT_TOOLS) by each app's `agent_tools`
module, found by convention when Django loads the apps: agents/agent_tools.py (hand_off, make_agent, the threads,
memory, browse/find/use, …) and routines/agent_tools.py (triggers, skills).
"""

from __future__ import annotations

import difflib
import json

from agents.models import Conversation
from agents.runtime.model import UNPARSED, UNPARSED_WHY
from core import limits
from core.errors import ToolError
from tools import registry
from tools.pipeline import recording, run_tool, take_recording
from tools.registry import AGENT_TOOLS, CHAT, MAC, OUTSIDE, ROADSTAR_CHAT, THREAD, Tool

__all__ = ["AGENT_TOOLS", "CHAT", "MAC", "OUTSIDE", "ROADSTAR_CHAT", "THREAD", "place_of", "run_agent_tool",
           "tools_for_place", "within_limit", "writes_to_an_app"]


def place_of(conversation: Conversation) -> str:
    if conversation.kind == Conversation.Kind.THREAD:
        return THREAD
    return ROADSTAR_CHAT if conversation.agent.is_roadstar else CHAT


def tools_for_place(place: str) -> list[Tool]:
    # A program on the owner's Mac holds an outside app's tools, and its own (messages, reply).
    return registry.agent_tools_in({OUTSIDE, MAC} if place == MAC else {place})


def writes_to_an_app(name: str, arguments) -> bool:
    """A use_tool call of a tool that may change something in an app: it can't be undone by a rollback, so it is
    marked started (committed) before it runs, and a worker that dies mid-call never runs it again."""
    tool = _group_tool(name, arguments)  # (a misspelt `Mail.Send` is mail.send, and is marked started like it)
    return tool is not None and bool(tool.calls_apps) and (tool.kind != "reads" or tool.calls_tools)


def only_reads_here(name: str, arguments) -> bool:
    """A use_tool call of a tool that only reads Roadstar's own records: it changes nothing, calls nothing out,
    and the check never asks about it, so running it twice is the same as once. A step of nothing but such calls
    is saved after they ran, with their results (Turn._step_after_calls): its rows in one write, not two."""
    tool = _group_tool(name, arguments)
    return (tool is not None and tool.kind == "reads" and not tool.calls_apps and not tool.calls_tools
            and tool.check_note is None)


def only_here(name: str, arguments) -> bool:
    """A use_tool call of a tool that works on Roadstar's own records alone, calling nothing out: its writes and
    their record commit together (tools.pipeline.in_one_transaction) or not at all, so a step whose last call is
    one (after only reads) is saved in that transaction, with its results (Turn._step_after_calls)."""
    tool = _group_tool(name, arguments)
    return tool is not None and not tool.calls_apps and not tool.calls_tools


def _group_tool(name: str, arguments) -> Tool | None:
    """The group's tool a use_tool call runs, by the name as use_tool reads it (`Contacts.Find` is contacts.find),
    or None: another agent tool, a name no tool has, or a tool of an app the owner connected by its address."""
    if name != "use_tool" or not isinstance(arguments, dict) or not isinstance(arguments.get("name"), str):
        return None
    return registry.get_tool(arguments["name"]) or registry.get_tool(registry.tool_name_as_meant(arguments["name"]))


def run_agent_tool(host, name: str, arguments: dict) -> registry.ToolResult:
    """Run one agent tool the model called, as `host` (a Turn or an OutsideSession); every failure comes back
    in-band, never as an exception."""
    held_tools = tools_for_place(host.place)
    tool = AGENT_TOOLS.get(name)
    if tool is None or tool not in held_tools:
        tool = _held_as_written(name, held_tools)
        if tool is None:
            return {"error": "bad_input", "message": _not_held(name, held_tools)}
        name = tool.name
    if isinstance(arguments, dict) and UNPARSED in arguments:
        written = str(arguments[UNPARSED])
        shown = written if len(written) <= 300 else written[:300] + "…"
        why = arguments.get(UNPARSED_WHY) or (f"Your arguments to {name} weren't valid JSON: give them as one JSON "
                                              "object of its inputs")
        return {"error": "bad_input", "message": f"{why}. Nothing ran. They came as: {shown}"}
    ctx = host.tool_context()
    raw_input = arguments if isinstance(arguments, dict) else {}
    caller = take_recording()
    if caller is None:
        return within_limit(run_tool(ctx, tool, raw_input))
    # The caller's record of the call (a turn's ToolCall and the message the model reads next) holds the result
    # as the model may read it: within the limit too.
    with recording(lambda result: caller.write(within_limit(result))) as record:
        result = within_limit(run_tool(ctx, tool, raw_input))
    caller.done = record.done
    return result


def _normal(name: str) -> str:
    """A tool's name as models misspell it in ways that leave no doubt: a `functions.` prefix, capitals, hyphens
    or spaces for underscores."""
    name = name.strip()
    for prefix in ("functions.", "functions:", "tools.", "tool:"):
        if name.lower().startswith(prefix):
            name = name[len(prefix):]
    return name.lower().replace("-", "_").replace(" ", "_")


def _held_as_written(name: object, held: list[Tool]) -> Tool | None:
    """The held tool a misspelt name can only mean (`functions.hand_off`, `Hand-Off`), or None."""
    if not isinstance(name, str):
        return None
    wanted = _normal(name)
    return next((t for t in held if t.name == wanted), None)


def _not_held(name: object, held: list[Tool]) -> str:
    """One line for a tool name not held here: the nearest held name, or how a group's tool is run."""
    names = [t.name for t in held]
    written = name if isinstance(name, str) else ""
    group_tool = registry.get_tool(written) or registry.get_tool(registry.tool_name_as_meant(written))
    if group_tool is not None:
        if "use_tool" in names:
            return (f"{group_tool.name} is a group's tool: run it with use_tool, "
                    f"{{\"name\": \"{group_tool.name}\", \"input\": {{…}}}}. Nothing ran.")
        return (f"{group_tool.name} is a group's tool, and a chat holds none: hand the work to a thread or an agent "
                f"that does it. You hold: {', '.join(names)}. Nothing ran.")
    close = difflib.get_close_matches(_normal(written), names, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]}?" if close else ""
    return f"You don't hold a tool {written!r} here.{hint} You hold: {', '.join(names)}. Nothing ran."


def within_limit(result: registry.ToolResult) -> registry.ToolResult:
    """A result the model can read: past limits.TOOL_RESULT characters (as the model reads it) it is not kept,
    and the agent is told to ask for less. A tool that changed something answers in a few lines, so only a read
    ever comes to this."""
    size = len(json.dumps(result, separators=(",", ":"), ensure_ascii=False))
    if size <= limits.TOOL_RESULT:
        return result
    return ToolError(
        "too_large",
        f"The result came to {size:,} characters, more than the {limits.TOOL_RESULT:,} one result may hold, so it "
        "isn't shown. Ask for less at a time: a page, fewer items, a narrower search.",
    ).as_result()
