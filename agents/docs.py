"""The agent tools' page of Roadstar's docs (/tools/agent-tools/), written from their declarations here.

The docs library lives in tools/, below this app, so this app hands it a page source when Django starts
(`AgentsConfig.ready`)."""

from __future__ import annotations

from agents.runtime.packets import LINKS_LIMIT, NOTES_LIMIT, TASK_LIMIT
from core import limits
from tools.catalog import browse_description
from tools.help.generate import agent_tools_page
from tools.registry import AGENT_TOOLS

# Limits these tools check when they run, so that the agent is told to shorten and nothing is cut, instead of in
# their input schema (whose 100,000 characters only bounds what is read at all): the docs say the real ones.
_PACKET = {
    "task": f"up to {TASK_LIMIT:,} characters",
    "notes": f"up to {NOTES_LIMIT:,} characters",
    "links": f"up to {LINKS_LIMIT} links, each up to {limits.PACKET_LINK:,} characters",
}
_JOB = f"the four together up to {limits.JOB_DESCRIPTION:,} characters"
CHECKED_LIMITS = {
    "hand_off": _PACKET,
    "start_thread": _PACKET,
    "message_thread": _PACKET,
    "make_agent": {part: _JOB for part in ("owns", "good", "works", "asksFirst")},
    "change_agent": {part: _JOB for part in ("owns", "good", "works", "asksFirst")},
}


def agent_tool_pages() -> dict[str, str]:
    tools = [
        {
            "name": tool.name,
            # browse_tools' description lists the groups, so it is made when it is read.
            "description": browse_description() if tool.name == "browse_tools" else tool.description,
            "schema": tool.spec()["parameters"],
            "places": tool.places,
            "limits": CHECKED_LIMITS.get(tool.name, {}),
        }
        for tool in AGENT_TOOLS.values()
    ]
    return {"/tools/agent-tools/": agent_tools_page(tools)}
