"""Instructions for an agent that works outside Roadstar: an AI app connected over MCP, or a program on the
owner's Mac (Claude Code reads `CLAUDE.md`, Codex reads `AGENTS.md`).

Who it is, its job, the other agents, the About, its notes and skills are the same words a chat or thread opens
with (agents.runtime.instructions); only the rules of the place differ: an app or a Mac program keeps its own
conversation, reaches Roadstar's tools through the `roadstar` MCP server, and has no threads.
"""

from __future__ import annotations

import re

from agents.models import Agent, Conversation
from agents.runtime.instructions import CHAT_RULES, ROADSTAR_MAKES, instructions_for
from routines.services import skill_names

MAC_FILES = {"CLAUDE.md": "Claude Code", "AGENTS.md": "Codex"}

TOOLS_AND_CHECK = """Roadstar's tools come from its `roadstar` MCP server. Every tool group is reached through three tools: browse_tools to see a group's tools, find_tools to load them with their inputs, use_tool to run one. hand_off gives work that is another agent's job to that agent, by name; remember keeps a short note on how {owner} likes your work done; skills lists and reads your step-by-step how-tos (read one in full before doing that work).
Answers to work you hand off come back to you: with the result of your next Roadstar tool call, and all of them at the resource roadstar://answers.
Roadstar checks every action that sends outside the business, deletes, or changes what's there, and only {owner}'s own words give permission. Nothing you send carries their words: Roadstar doesn't see your conversation. So such an action comes back not_done_yet, and nothing ran: ask {owner} in your reply, what you would do and why, in a sentence or two, in their words, without tool names or ids; they answer on Roadstar's Home, and once they say yes, run it again. What you made yourself through this connection you may change without asking. When use_tool returns refused, tell {owner} and don't try another way. Never ask for something you can find out."""

OUTSIDE_RULES = """You work in an AI app of {owner}'s, connected to Roadstar as {agent}. The app keeps your conversation; Roadstar records what you do on {owner}'s Home, in your name, with Undo where the tool has it.
""" + TOOLS_AND_CHECK

MAC_RULES = """You run in {program} on {owner}'s Mac, in this folder, as {agent}. {program} keeps your conversation. Messages reach you from {owner} in Roadstar, from the other agents and from your routines: Roadstar's `messages` tool gives the ones waiting, and `reply` answers them; your reply goes back to whoever sent each message, so finish with one answer. You have no threads: routine runs come here too.
""" + TOOLS_AND_CHECK


def identity(agent: Agent, *, staff: list[Agent] | None = None) -> str:
    """Who the agent is, its job, the other agents, the About, its notes and its skills, in Roadstar's words."""
    org = agent.organization
    if staff is None:
        staff = list(Agent.objects.filter(organization=org).order_by("-is_roadstar", "name"))
    skills = skill_names(agent=agent)
    # An unsaved chat: instructions_for reads only its agent, workspace and kind.
    chat = Conversation(organization=org, agent=agent, kind=Conversation.Kind.CHAT)
    text = instructions_for(chat, staff=staff, skills=skills)
    rules = "\n\n" + CHAT_RULES.format(make_agent=ROADSTAR_MAKES if agent.is_roadstar else "")
    if not text.endswith(rules):
        raise RuntimeError("instructions_for no longer ends with the chat's rules; update mcp_server.instructions")
    # A part with nothing in it (a job description not written yet) leaves an empty paragraph behind.
    return re.sub(r"\n{3,}", "\n\n", text[: -len(rules)])


def outside_instructions(agent: Agent) -> str:
    """What an AI app connected over MCP as `agent` reads first (the server's instructions)."""
    owner = agent.organization.owner_first_name
    return identity(agent) + "\n\n" + OUTSIDE_RULES.format(owner=owner, agent=agent.name)


def mac_instructions(agent: Agent, *, filename: str = "CLAUDE.md") -> str:
    """The agent's `CLAUDE.md` (Claude Code) or `AGENTS.md` (Codex), for its folder on the owner's Mac."""
    if filename not in MAC_FILES:
        raise ValueError(f"{filename!r} is not one of {', '.join(MAC_FILES)}")
    owner = agent.organization.owner_first_name
    rules = MAC_RULES.format(program=MAC_FILES[filename], owner=owner, agent=agent.name)
    return f"# {agent.name}\n\n{identity(agent)}\n\n## Working from this Mac\n\n{rules}\n"
