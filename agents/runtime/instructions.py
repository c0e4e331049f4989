"""An agent's instructions: who it is, its job, the other agents, its notes, the About and its skills.

They open every prompt and change only when the agent, its notes or the staff change, so they stay a stable
prefix across steps and turns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agents.models import Agent, Conversation
from core.registry import Registry


# How an agent's instructions name its skills ("Chase an invoice (id chase-an-invoice)"). Skills are the routines
# app's, a layer above this one: it registers its function when it loads (routines/hooks.py).
@dataclass(frozen=True)
class SkillNames:
    name: str
    names: Callable[..., list[str]]  # names(*, agent) -> the agent's skills as its instructions name them


SKILL_NAMES: Registry[str, SkillNames] = Registry("skill names", SkillNames, single=True)


def skill_names(*, agent: Agent) -> list[str]:
    source = SKILL_NAMES.only()
    return source.names(agent=agent) if source is not None else []


CHAT_RULES = """You are in your chat. A chat sends work and answers; it holds no work tools. In at most 4 steps, decide where the work goes, in this order:
1. If you can answer from what you know, your memory or a thread's answer, answer.
2. If a thread holds the work, send it there with message_thread, even a thread that stopped or is idle.
3. If it's another agent's job, hand it off with hand_off.{make_agent}
4. Otherwise start a thread with start_thread (fresh unless the work needs this conversation).
5. If it's unclear, ask the owner one question.
After sending work, say in a few words where it went, and stop. The thread's answer reaches the owner on its own."""

ROADSTAR_MAKES = " Make an agent first with make_agent if no agent's job covers lasting work like it."

THREAD_RULES = """You are in a thread: a long-lived workstream with its own memory. Do the work with every tool group: browse_tools, find_tools, then use_tool. Hand work that is another agent's job to it with hand_off. Finish with one answer: your last reply goes back to whoever asked.
When use_tool returns not_done_yet, ask the owner in your reply: what you would do and why, in a sentence or two, in the owner's words, without tool names or ids, as the last thing in your reply; then stop. When it returns refused, tell the owner and don't try another way. Never ask for something you can find out."""


def agent_line(agent: Agent) -> str:
    paused = " (paused)" if agent.paused else ""
    return f"- {agent.name}{paused}: {agent.job or 'work no one else’s job covers'}"


def instructions_for(conversation: Conversation, *, staff: list[Agent], skills: list[str] | None = None) -> str:
    agent = conversation.agent
    org = conversation.organization
    parts = [
        f"You are {agent.name}, one of {org.owner_name}'s AI agents at {org.name}. "
        f"{org.owner_first_name} is the owner; you work for them."
    ]
    if agent.is_roadstar:
        parts.append(
            "You are Roadstar, the owner's chief of staff: you answer the owner, start work, hand it to the agent "
            "whose job it is, and make and change agents for lasting jobs (never for a single task). You keep the "
            "About."
        )
    else:
        parts.append(f"Your job: {agent.job}")
        description = [
            ("You own", agent.owns), ("Good work is", agent.good), ("You work", agent.works),
            ("You ask the owner first about", agent.asks_first),
        ]
        parts.append("\n".join(f"{label}: {text}" for label, text in description if text))
    others = [a for a in staff if a.id != agent.id]
    if others:
        parts.append(
            "The owner's other agents (hand work to any of them by name; Roadstar for work no one's job covers):\n"
            + "\n".join(agent_line(a) for a in others)
        )
    if org.about:
        parts.append(f"About the owner and the business:\n{org.about}")
    if agent.notes:
        parts.append("Your notes on how the owner likes your work done:\n" + "\n".join(f"- {n}" for n in agent.notes))
    if skills:
        parts.append("Your skills (read one in full with skills before doing that work): " + ", ".join(skills))
    if conversation.kind == Conversation.Kind.CHAT:
        parts.append(CHAT_RULES.format(make_agent=ROADSTAR_MAKES if agent.is_roadstar else ""))
    else:
        parts.append(f"This thread: {conversation.title}.\n{THREAD_RULES}")
    return "\n\n".join(parts)
