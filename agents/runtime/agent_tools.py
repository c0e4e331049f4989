"""The agent tools' dispatcher: which agent tools a place holds, and running one the model (or an outside app)
called, in-band, through the same pipeline as a group's tools (tools.pipeline.run_tool).

The tools themselves are declared in the tool registry (tools.registry.AGENT_TOOLS) by each app's `agent_tools`
module, found by convention when Django loads the apps: agents/agent_tools.py (hand_off, make_agent, the threads,
memory, browse/find/use, …) and routines/agent_tools.py (triggers, skills).
"""

from __future__ import annotations

import json

from agents.models import Conversation
from agents.runtime.model import UNPARSED
from core import limits
from core.errors import ToolError
from tools import registry
from tools.pipeline import recording, run_tool, take_recording
from tools.registry import AGENT_TOOLS, CHAT, MAC, OUTSIDE, ROADSTAR_CHAT, THREAD, Tool

__all__ = ["AGENT_TOOLS", "CHAT", "MAC", "OUTSIDE", "ROADSTAR_CHAT", "THREAD", "holds_transaction", "place_of",
           "run_agent_tool", "tools_for_place", "within_limit", "writes_to_an_app"]


def place_of(conversation: Conversation) -> str:
    if conversation.kind == Conversation.Kind.THREAD:
        return THREAD
    return ROADSTAR_CHAT if conversation.agent.is_roadstar else CHAT


def tools_for_place(place: str) -> list[Tool]:
    # A program on the owner's Mac holds an outside app's tools, and its own (messages, reply).
    return registry.agent_tools_in({OUTSIDE, MAC} if place == MAC else {place})


def holds_transaction(name: str) -> bool:
    """Whether a turn may run the call inside its own transaction: only a tool that never calls out (a model, an
    app, tools that may) and is never checked (the check's judge is a model). The others run with no transaction
    open, and their writes commit with the call's recorded result (tools.pipeline.recording)."""
    tool = AGENT_TOOLS.get(name)
    return tool is None or (not tool.calls_apps and tool.owners_yes == "No")


def writes_to_an_app(name: str, arguments) -> bool:
    """A use_tool call of a tool that may change something in an app: it can't be undone by a rollback, so it is
    marked started (committed) before it runs, and a worker that dies mid-call never runs it again."""
    if name != "use_tool" or not isinstance(arguments, dict) or not isinstance(arguments.get("name"), str):
        return False
    tool = registry.get_tool(arguments["name"])
    return tool is not None and bool(tool.calls_apps) and (tool.kind != "reads" or tool.calls_tools)


def run_agent_tool(host, name: str, arguments: dict) -> dict | None:
    """Run one agent tool the model called, as `host` (a Turn or an OutsideSession); every failure comes back
    in-band, never as an exception."""
    tool = AGENT_TOOLS.get(name)
    if tool is None or tool not in tools_for_place(host.place):
        held = ", ".join(t.name for t in tools_for_place(host.place))
        return {"error": "bad_input", "message": f"You don't hold a tool {name!r} here. You hold: {held}."}
    if isinstance(arguments, dict) and set(arguments) == {UNPARSED}:
        written = str(arguments[UNPARSED])
        shown = written if len(written) <= 300 else written[:300] + "…"
        return {"error": "bad_input", "message": f"Your arguments to {name} weren't valid JSON: give them as one "
                                                 f"JSON object of its inputs. Nothing ran. They came as: {shown}"}
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


def within_limit(result: dict | None) -> dict | None:
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
