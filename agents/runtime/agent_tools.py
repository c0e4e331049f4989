"""The agent tools: held directly (without find_tools) in the places spec/tools.md marks.

How to add one: declare its input as a ToolInput, write a handler `(turn, inp) -> dict`, and `agent_tool(...)`
it with its description word for word and the places that hold it. Duplicates are refused at import.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from django.db import transaction
from django.utils.module_loading import autodiscover_modules
from pydantic import Field, ValidationError

from agents import services
from agents.models import Agent, Conversation, Message, Work
from agents.runtime import memory
from agents.runtime.model import UNPARSED
from core import limits
from core.errors import ToolError
from core.inputs import Int, Text, describe_validation_error
from core.models import Change
from core.undo import register_undo
from tools.pipeline import in_one_transaction
from tools.registry import ToolInput

ROADSTAR_CHAT, CHAT, THREAD, OUTSIDE = "roadstar_chat", "chat", "thread", "outside"
# A program on the owner's Mac (Claude Code, Codex) working as one of the agents: an outside app's tools, and the
# messages that reach its chat, which it answers itself.
MAC = "mac"

TASK_LIMIT = limits.PACKET_TASK
NOTES_LIMIT = limits.PACKET_NOTES
LINKS_LIMIT = limits.PACKET_LINKS
LINK_PREFIXES = ("mail:", "file:", "contact:", "doc:", "web:")
MAX_DEPTH = 3
READ_THREAD_BYTES = limits.READ_THREAD_BYTES


@dataclass(frozen=True)
class AgentTool:
    name: str
    description: str
    input: type[ToolInput]
    handler: Callable
    places: frozenset[str]

    def spec(self) -> dict:
        from tools.registry import _schema_for

        return {"name": self.name, "description": self.description, "parameters": _schema_for(self.input)}


AGENT_TOOLS: dict[str, AgentTool] = {}


def agent_tool(name: str, description: str, input: type[ToolInput], places: set[str]):
    def register(handler):
        if name in AGENT_TOOLS:
            raise ValueError(f"agent tool {name!r} is declared twice")
        AGENT_TOOLS[name] = AgentTool(name, description, input, handler, frozenset(places))
        return handler

    return register


def place_of(conversation: Conversation) -> str:
    if conversation.kind == Conversation.Kind.THREAD:
        return THREAD
    return ROADSTAR_CHAT if conversation.agent.is_roadstar else CHAT


def tools_for_place(place: str) -> list[AgentTool]:
    places = {OUTSIDE, MAC} if place == MAC else {place}
    return [tool for tool in AGENT_TOOLS.values() if places & tool.places]


# Tools that only read memory (and may write a summary of it with the cheapest model on the way): they run
# outside the transaction that records their result, so no database lock is held while a model is asked.
MEMORY_READERS = frozenset({"zoom_memory", "read_thread", "message_date"})
# Tools that may call out (an app, the check's judge) before they write: they run with no transaction open, and
# their writes commit with the call's recorded result (tools.pipeline.in_one_transaction).
CALL_OUT = frozenset({"use_tool", "change_agent", "triggers"})


def holds_transaction(name: str) -> bool:
    return name not in MEMORY_READERS and name not in CALL_OUT


def writes_to_an_app(name: str, arguments) -> bool:
    """A use_tool call of a tool that may change something in an app: it can't be undone by a rollback, so it is
    marked started (committed) before it runs, and a worker that dies mid-call never runs it again."""
    from tools import registry

    if name != "use_tool" or not isinstance(arguments, dict) or not isinstance(arguments.get("name"), str):
        return False
    tool = registry.get_tool(arguments["name"])
    return tool is not None and bool(tool.calls_apps) and (tool.kind != "reads" or tool.calls_tools)


def run_agent_tool(turn, name: str, arguments: dict) -> dict | None:
    """Run one agent tool the model called; every failure comes back in-band, never as an exception."""
    tool = AGENT_TOOLS.get(name)
    if tool is None or tool not in tools_for_place(turn.place):
        held = ", ".join(t.name for t in tools_for_place(turn.place))
        return {"error": "bad_input", "message": f"You don't hold a tool {name!r} here. You hold: {held}."}
    if isinstance(arguments, dict) and set(arguments) == {UNPARSED}:
        written = str(arguments[UNPARSED])
        shown = written if len(written) <= 300 else written[:300] + "…"
        return {"error": "bad_input", "message": f"Your arguments to {name} weren't valid JSON: give them as one "
                                                 f"JSON object of its inputs. Nothing ran. They came as: {shown}"}
    try:
        inp = tool.input.model_validate(arguments if isinstance(arguments, dict) else {})
    except ValidationError as error:
        return {"error": "bad_input", "message": describe_validation_error(error, tool)}
    try:
        result = tool.handler(turn, inp)
    except ToolError as error:
        return error.as_result()
    if result is None and tool.name != "use_tool":
        return {"done": True}
    # use_tool answers with the tool's own result, and a tool whose result may be null (contacts.find for an
    # unknown address) answers null: the pipeline has already said `{"done": true}` for a tool that returns nothing.
    return within_limit(result)


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


# --- packets --------------------------------------------------------------------------------------------------


def check_packet(*, task: str, notes: str | None, links: list[str] | None) -> None:
    """Past a limit the sender is asked to shorten; nothing is cut and nothing is sent."""
    problems = []
    if len(task) > TASK_LIMIT:
        problems.append(f"task: {len(task)} characters; a packet's task is at most {TASK_LIMIT}")
    if notes and len(notes) > NOTES_LIMIT:
        problems.append(f"notes: {len(notes)} characters; a packet's notes are at most {NOTES_LIMIT}")
    links = links or []
    if len(links) > LINKS_LIMIT:
        problems.append(f"links: {len(links)} links; a packet holds at most {LINKS_LIMIT}")
    for i, link in enumerate(links):
        if len(link) > limits.PACKET_LINK:
            problems.append(f"links[{i}]: {len(link)} characters; a link is at most {limits.PACKET_LINK}")
        elif not link.startswith(LINK_PREFIXES):
            problems.append(f"links[{i}]: {link!r} must start with one of {', '.join(LINK_PREFIXES)}")
    if problems:
        raise ToolError("bad_input", "; ".join(problems) + ". Shorten it and send it again; nothing was sent.")


def packet_text(*, sender: str, task: str, notes: str | None, links: list[str] | None, owner_words: list) -> str:
    text = f"[From {sender}] {task}"
    if notes:
        text += f" Notes: {notes}"
    if links:
        text += " Links: " + " ".join(links)
    for words in owner_words:
        text += f'\n{words.get("who", "The owner")} said, in {words["where"]} at {words["at"]}: "{words["text"]}"'
    return text


# --- hand_off -------------------------------------------------------------------------------------------------


# A packet's task, notes and links are measured by check_packet, which asks the sender to shorten them in the
# spec's words; the JSON schema bounds them only far past that, so a runaway input is refused before it is read.
PacketText = Text(0, 100_000)


class HandOffInput(ToolInput):
    agent: Text(1, limits.AGENT_NAME)
    task: PacketText
    notes: PacketText | None = None
    links: list[PacketText] = []
    answer: Literal["me", "whoever asked me"] = "me"


@agent_tool(
    "hand_off",
    "Give work to another of the owner's agents, by name: the task, notes and links to what it needs. It hasn't "
    "seen your chat. Its answer comes back to you; don't wait for it.",
    HandOffInput,
    {ROADSTAR_CHAT, CHAT, THREAD, OUTSIDE},
)
def hand_off(turn, inp: HandOffInput):
    from agents.runtime.scheduler import wake

    check_packet(task=inp.task, notes=inp.notes, links=inp.links)
    target = services.agent_by_name(org=turn.org, name=inp.agent)
    current = turn.current_work()
    depth = (current.depth if current else 0) + 1
    chain = [*(current.chain if current else []), str(turn.agent.id)]
    if target.id == turn.agent.id:
        raise ToolError("bad_input", "agent: that's you. Do the work here, or hand it to another agent.")
    if depth > MAX_DEPTH:
        raise ToolError(
            "bad_input",
            f"This work has been handed on {MAX_DEPTH} deep already: do it yourself, or answer with what you have.",
        )
    if str(target.id) in chain:
        raise ToolError(
            "bad_input", f"{target.name} is already working on this further up: answer with what you have."
        )
    owner_words = current.owner_words if current else []
    passing_on = inp.answer == "whoever asked me"
    requester = (current.requester if current else None) if passing_on else turn.conversation
    with transaction.atomic():
        chat = services.chat_for(agent=target)
        services.message_append(
            conversation=chat, role=Message.Role.HANDOFF,
            text=packet_text(sender=turn.agent.name, task=inp.task, notes=inp.notes, links=inp.links,
                             owner_words=owner_words),
            data={"from": turn.agent.name, "task": inp.task, "notes": inp.notes or "", "links": inp.links,
                  "owner_words": owner_words},
        )
        services.work_open(
            org=turn.org, agent=target, conversation=chat, task=inp.task, requester=requester,
            requested_by=turn.agent, chain=chain, depth=depth, owner_words=owner_words,
        )
        if passing_on:
            turn.pass_on(requester.id if requester else None)
        else:
            turn.keep()
        wake(conversation=chat)
    if passing_on:
        return {"handed": target.name, "answer": "goes straight to whoever asked you"}
    return {"handed": target.name, "answer": "comes back to you"}


# --- remember -------------------------------------------------------------------------------------------------


class RememberInput(ToolInput):
    note: Text(0, limits.NOTE) | None = None
    forget: Text(0, limits.NOTE) | None = None
    about: Text(0, limits.ABOUT) | None = None


@agent_tool(
    "remember",
    "Keep a short note on how the owner likes your work done, when they say remember or agree to one. Your "
    "threads read it too.",
    RememberInput,
    {ROADSTAR_CHAT, CHAT, THREAD, OUTSIDE},
)
def remember(turn, inp: RememberInput):
    return services.agent_remember(agent=turn.agent, note=inp.note, forget=inp.forget, about=inp.about)


# --- make_agent, change_agent ---------------------------------------------------------------------------------

ModelId = Literal["gpt-6-luna", "gpt-6.1-terra", "gpt-6.1-sol", "gpt-6-astra"]


# The four parts together are at most limits.JOB_DESCRIPTION, which the service measures and says in the spec's
# words; each part alone is bounded only far past it, so a runaway input is refused before it is read.
JobPart = Text(0, 100_000)


class MakeAgentInput(ToolInput):
    name: Text(1, limits.AGENT_NAME)
    job: Text(1, limits.AGENT_JOB)
    owns: JobPart
    good: JobPart
    works: JobPart
    asks_first: JobPart
    model: ModelId | None = None
    reports_to: Text(1, limits.AGENT_NAME) | None = None
    department: Text(0, limits.AGENT_DEPARTMENT) | None = None


@agent_tool(
    "make_agent",
    "Make one agent for a lasting job, from a short job description. Then hand it the work that led to it with "
    "hand_off.",
    MakeAgentInput,
    {ROADSTAR_CHAT},
)
def make_agent(turn, inp: MakeAgentInput):
    with transaction.atomic():
        agent = services.agent_make(
            org=turn.org, actor=turn.actor, name=inp.name, job=inp.job, owns=inp.owns, good=inp.good,
            works=inp.works, asks_first=inp.asks_first, model=inp.model, reports_to=inp.reports_to,
            department=inp.department,
        )
        turn.record_change(
            tool="make_agent", kind="makes", sentence=f"made {agent.name}: {agent.job}", listing="home_undo",
            target_type="agent", target_id=str(agent.id), undo={"agent_id": str(agent.id)}, created=True,
        )
    return {"made": agent.name, "next": "Hand it the work with hand_off."}


class ChangeAgentInput(ToolInput):
    agent: Text(1, limits.AGENT_NAME)
    name: Text(1, limits.AGENT_NAME) | None = None
    job: Text(1, limits.AGENT_JOB) | None = None
    owns: JobPart | None = None
    good: JobPart | None = None
    works: JobPart | None = None
    asks_first: JobPart | None = None
    model: ModelId | None = None
    reports_to: Text(1, limits.AGENT_NAME) | None = None
    department: Text(0, limits.AGENT_DEPARTMENT) | None = None


@agent_tool(
    "change_agent",
    "Change an agent: its name, job, description, model, or where it sits on the chart.",
    ChangeAgentInput,
    {ROADSTAR_CHAT},
)
def change_agent(turn, inp: ChangeAgentInput):
    agent = services.agent_by_name(org=turn.org, name=inp.agent)
    changes = {k: getattr(inp, k) for k in services.AGENT_FIELDS if getattr(inp, k) is not None}
    if not changes:
        raise ToolError(
            "bad_input", "Give at least one of name, job, owns, good, works, asksFirst, model, reportsTo, department."
        )
    replaces = {"name": agent.name, **{k: _agent_value(agent, k) for k in changes}}
    held = turn.check(
        action={"tool": "change_agent", "input": inp.model_dump(by_alias=True, exclude_none=True), "replaces": replaces}
    )
    if held is not None:
        return held

    def change() -> dict:
        services.agent_change(org=turn.org, actor=turn.actor, agent=agent, changes=dict(changes))
        turn.record_change(
            tool="change_agent", kind="changes", sentence=f"changed {agent.name}: {', '.join(sorted(changes))}",
            listing="home", target_type="agent", target_id=str(agent.id), undo=None,
        )
        return {"changed": agent.name}

    return in_one_transaction(change)


def _agent_value(agent: Agent, key: str):
    if key == "reports_to":
        return agent.reports_to.name if agent.reports_to_id else None
    return getattr(agent, key)


def undo_make_agent(*, org, actor, change: Change) -> None:
    agent = Agent.objects.filter(organization=org, id=change.undo["agent_id"]).first()
    if agent is None:
        raise ToolError("not_found", "That agent is gone already; nothing was undone.")
    if Work.objects.filter(agent=agent).exists() or Change.objects.filter(actor_id=str(agent.id)).exists():
        raise ToolError(
            "changed", f"{agent.name} has done work since it was made, so Undo would lose it; nothing was undone."
        )
    agent.delete()


register_undo("make_agent", undo_make_agent)


# --- threads --------------------------------------------------------------------------------------------------


class StartThreadInput(ToolInput):
    title: Text(1, limits.THREAD_TITLE)
    kind: Literal["fresh", "fork"] = "fresh"
    task: PacketText
    notes: PacketText | None = None
    links: list[PacketText] = []
    and_then: Text(0, limits.AND_THEN) | None = None


@agent_tool(
    "start_thread",
    "Start a thread for work no thread holds: one per client, project or job. Fresh starts empty with the packet; "
    "fork starts from this chat's memory. Its answer comes back on its own.",
    StartThreadInput,
    {ROADSTAR_CHAT, CHAT},
)
def start_thread(turn, inp: StartThreadInput):
    check_packet(task=inp.task, notes=inp.notes, links=inp.links)
    with transaction.atomic():
        thread = services.thread_start(agent=turn.agent, title=inp.title)
        if inp.kind == "fork":
            services.message_append(
                conversation=thread, role=Message.Role.SYSTEM,
                text="This thread starts from your chat's memory:\n" + turn.memory_text(),
            )
        turn.send_to_thread(thread, task=inp.task, notes=inp.notes, links=inp.links, and_then=inp.and_then)
    return {"started": thread.title, "kind": inp.kind}


class MessageThreadInput(ToolInput):
    thread: Text(1, limits.THREAD_TITLE)
    task: PacketText
    notes: PacketText | None = None
    links: list[PacketText] = []


@agent_tool(
    "message_thread",
    "Send a thread more work or a correction. A running thread takes it at its next step; an idle or stopped one "
    "starts on it, with all it did before.",
    MessageThreadInput,
    {ROADSTAR_CHAT, CHAT},
)
def message_thread(turn, inp: MessageThreadInput):
    check_packet(task=inp.task, notes=inp.notes, links=inp.links)
    thread = services.thread_by_title(agent=turn.agent, title=inp.thread)
    with transaction.atomic():
        services.thread_reopen(thread=thread)
        turn.send_to_thread(thread, task=inp.task, notes=inp.notes, links=inp.links, and_then=None)
    return {"sent": thread.title}


class ReadThreadInput(ToolInput):
    thread: Text(1, limits.THREAD_TITLE)
    id: Int(0) | None = None
    n: Int(1) | None = None
    page: Int(0) | None = None


@agent_tool(
    "read_thread",
    "Read what a thread did: its memory from the top, or with id a line or message of it, down to the exact words.",
    ReadThreadInput,
    {ROADSTAR_CHAT, CHAT},
)
def read_thread(turn, inp: ReadThreadInput):
    thread = services.thread_by_title(agent=turn.agent, title=inp.thread)
    if inp.id is not None:
        result = memory.zoom(thread, start=inp.id, n=inp.n or 1, at=(inp.page or 0) * memory.PAGE,
                             read_on=lambda seq: read_thread_pointer(thread, seq))
        if "nextAt" in result:  # read_thread goes on by page, not by character
            result["nextPage"] = result.pop("nextAt") // memory.PAGE
        return {"thread": thread.title, **result}
    text = memory_text(thread, read_on=lambda seq: read_thread_pointer(thread, seq))
    encoded = text.encode()
    if len(encoded) > READ_THREAD_BYTES:
        text = encoded[:READ_THREAD_BYTES].decode(errors="ignore")  # never half a character
        more = len(encoded) - len(text.encode())
        text += f"\n[… {more} more bytes: read a line or message by id]"
    return {"thread": thread.title, "memory": text}


def read_thread_pointer(thread: Conversation, seq: int) -> str:
    return f"read_thread thread {thread.title!r} id {seq} page {memory.MESSAGE_HEAD // memory.PAGE}"


class CloseThreadInput(ToolInput):
    thread: Text(1, limits.THREAD_TITLE)


@agent_tool(
    "close_thread",
    "Close a thread whose work is over: a finished project or a one-off job. It stays readable, and a message "
    "reopens it.",
    CloseThreadInput,
    {ROADSTAR_CHAT, CHAT},
)
def close_thread(turn, inp: CloseThreadInput):
    thread = services.thread_by_title(agent=turn.agent, title=inp.thread, include_closed=False)
    services.thread_close(thread=thread)
    return {"closed": thread.title}


def memory_text(conversation: Conversation, *, read_on=None) -> str:
    """A conversation's memory as text from the top: its lines, then its newest messages.

    With `read_on` (how the reader reads on, given a message's id) a long message shows its head and how much
    more there is; without it (a fork carries a chat's memory into a thread) every message is carried whole:
    the thread reads its copy a page at a time with zoom_memory.
    """
    lines = memory.top_lines(conversation)
    rows = [f"[{memory.line_label(line.start, line.n)}] {line.summary}" for line in lines]
    upto = memory.folded_upto(lines)
    for message in Message.objects.filter(conversation=conversation, seq__gte=upto):
        text = memory.message_text_whole(message)
        if read_on is not None:
            text = memory.head(text, message.seq, read_on)
        rows.append(f"#{message.seq} {message.role}: {text}")
    return "\n".join(rows)


# --- memory ---------------------------------------------------------------------------------------------------


class ZoomInput(ToolInput):
    id: Int(0)
    n: Int(1) = 1
    at: Int(0) = 0


@agent_tool(
    "zoom_memory",
    "Open line id+n of your memory into the two lines it was made from (n a power of 2, id a multiple of n), or "
    "with n = 1 read message id whole; a long one a page at a time from at.",
    ZoomInput,
    {ROADSTAR_CHAT, CHAT, THREAD},
)
def zoom_memory(turn, inp: ZoomInput):
    return memory.zoom(turn.conversation, start=inp.id, n=inp.n, at=inp.at)


class MessageDateInput(ToolInput):
    id: Int(0)


@agent_tool("message_date", "The date and time of message id.", MessageDateInput, {ROADSTAR_CHAT, CHAT, THREAD})
def message_date(turn, inp: MessageDateInput):
    from core.timefmt import iso

    message = Message.objects.filter(conversation=turn.conversation, seq=inp.id).first()
    if message is None:
        raise ToolError("not_found", f"There is no message {inp.id} in this memory.")
    return {"id": inp.id, "at": iso(message.created_at)}


# --- browse, find, use ----------------------------------------------------------------------------------------


class BrowseInput(ToolInput):
    groups: Annotated[list[Text(0, 100)], Field(max_length=50)]


class FindInput(ToolInput):
    names: Annotated[list[Text(0, 100)], Field(max_length=50)]


class UseInput(ToolInput):
    name: Text(0, 100)
    input: dict = {}


def _browse(turn, inp: BrowseInput):
    from tools.catalog import browse_tools

    return browse_tools(turn.tool_context(), inp.groups)


def _find(turn, inp: FindInput):
    from tools.catalog import find_tools

    ctx = turn.tool_context()
    result = find_tools(ctx, inp.names)
    turn.remember_loaded(ctx.loaded)
    return result


def _use(turn, inp: UseInput):
    from tools.pipeline import use_tool

    return use_tool(turn.tool_context(), inp.name, inp.input)


def _register_catalog():
    from tools.catalog import FIND_DESCRIPTION, USE_DESCRIPTION

    places = {THREAD, OUTSIDE}
    # browse_tools' description lists the groups, so it is built when the prompt is (see turn.tool_specs).
    agent_tool("browse_tools", "", BrowseInput, places)(_browse)
    agent_tool("find_tools", FIND_DESCRIPTION, FindInput, places)(_find)
    agent_tool("use_tool", USE_DESCRIPTION, UseInput, places)(_use)


_register_catalog()


# --- an agent on the owner's Mac: its chat's messages, and its replies ------------------------------------------


class MessagesInput(ToolInput):
    pass


def _waiting(agent) -> list[Message]:
    chat = services.chat_for(agent=agent)
    last_reply = Message.objects.filter(conversation=chat, role=Message.Role.AGENT).order_by("-seq").first()
    waiting = Message.objects.filter(conversation=chat).exclude(role__in=[Message.Role.AGENT, Message.Role.TOOL])
    if last_reply is not None:
        waiting = waiting.filter(seq__gt=last_reply.seq)
    return list(waiting.order_by("seq"))


@agent_tool(
    "messages",
    "The messages waiting for you in Roadstar: from the owner, from the other agents and from your routines. "
    "Do the work, then answer with reply.",
    MessagesInput,
    {MAC},
)
def messages(turn, inp: MessagesInput):
    from core.timefmt import iso

    return {"messages": [
        {"id": m.seq, "from": _sender(m), "at": iso(m.created_at), "text": m.text} for m in _waiting(turn.agent)
    ]}


def _sender(message: Message) -> str:
    if message.role == Message.Role.OWNER:
        return "the owner"
    if message.role == Message.Role.ROUTINE:
        return f"your routine {message.data.get('name', '')}".strip()
    return message.data.get("from") or message.role


class ReplyInput(ToolInput):
    text: Text(1, limits.MESSAGE)


@agent_tool(
    "reply",
    "Answer the messages waiting for you: your reply goes back to whoever sent each of them.",
    ReplyInput,
    {MAC},
)
def reply(turn, inp: ReplyInput):
    from agents.runtime.turn import answer_work

    chat = services.chat_for(agent=turn.agent)
    with transaction.atomic():
        services.message_append(conversation=chat, role=Message.Role.AGENT, text=inp.text)
        open_work = list(Work.objects.filter(conversation=chat, state=Work.State.OPEN)
                         .select_related("conversation", "agent", "requester"))
        answered = [work for work in open_work if answer_work(work, inp.text)]
    return {"replied": len(answered), "to": sorted({
        work.requester.agent.name if work.requester_id else "the owner" for work in answered})}


# Every app's agent_tools module registers its agent tools on import (routines': triggers and skills), found by
# name so this app names none above it. Last, as they import this module's declarations.
autodiscover_modules("agent_tools")
