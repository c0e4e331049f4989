"""The agents' own agent tools: hand_off, remember, make_agent, change_agent, the threads, memory, browse/find/use,
and a Mac agent's messages and reply (spec/tools/team.md, threads.md, memory.md, catalog.md).

Found by convention: the tool registry imports every app's `agent_tools` module once, when Django loads the apps
(tools.registry.load_all), the way it finds tool groups; routines/agent_tools.py declares triggers and skills the
same way. How to add one: declare its input as a ToolInput, write `run(ctx, inp)` (the turn or outside session
running it is `ctx.host`), and declare it with `agent_tool(...)`: its description word for word, the places that
hold it, its kind (the owner's yes), its Home listing and undo, as a group tool's. It runs through the same
pipeline (tools.pipeline.run_tool): validated, checked when its kind says so, run in one transaction with its
recorded change (or with no transaction open when it `calls_apps`: it calls out to a model or to tools that may),
the change recorded from the `Done` it returns. The dispatcher that finds and runs them is
agents/runtime/agent_tools.py.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from agents import services
from agents.models import Agent, Conversation, Message, Work
from agents.runtime import memory
from agents.runtime.host import host_of, routing_host_of
from agents.runtime.packets import check_packet, packet_text
from agents.runtime.scheduler import wake
from core import limits
from core.errors import ToolError
from core.inputs import Chars, Whole
from core.models import Change
from core.timefmt import iso
from core.undo import undo_data
from tools.catalog import FIND_DESCRIPTION, USE_DESCRIPTION, browse_tools, find_tools
from tools.pipeline import use_tool
from tools.registry import CHAT, MAC, OUTSIDE, ROADSTAR_CHAT, THREAD, Done, ToolInput, agent_tool, describe_inputs

MAX_DEPTH = 3
READ_THREAD_BYTES = limits.READ_THREAD_BYTES


# --- hand_off -------------------------------------------------------------------------------------------------


# A packet's task, notes and links are measured by check_packet, which asks the sender to shorten them in the
# spec's words; the JSON schema bounds them only far past that, so a runaway input is refused before it is read.
PacketText = Annotated[str, Chars(0, 100_000)]


class HandOffInput(ToolInput):
    agent: Annotated[str, Chars(1, limits.AGENT_NAME)]
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
    kind="works",
)
def hand_off(ctx, inp: HandOffInput):
    turn = host_of(ctx)
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
    # The packet, the new work and the wake-up commit together: the pipeline runs this in one transaction.
    chat = services.chat_for(agent=target)
    services.message_append(
        conversation=chat, role=Message.Role.HANDOFF,
        text=packet_text(sender=turn.agent.name, task=inp.task, notes=inp.notes, links=inp.links,
                         owner_words=owner_words, org=turn.org),
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
    note: Annotated[str, Chars(0, limits.NOTE)] | None = None
    forget: Annotated[str, Chars(0, limits.NOTE)] | None = None
    about: Annotated[str, Chars(0, limits.ABOUT)] | None = None


@agent_tool(
    "remember",
    "Keep a short note on how the owner likes your work done, when they say remember or agree to one. Your "
    "threads read it too.",
    RememberInput,
    {ROADSTAR_CHAT, CHAT, THREAD, OUTSIDE},
    kind="works",
)
def remember(ctx, inp: RememberInput):
    return services.agent_remember(agent=host_of(ctx).agent, note=inp.note, forget=inp.forget, about=inp.about)


# --- make_agent, change_agent ---------------------------------------------------------------------------------

ModelId = Literal["gpt-6-luna", "gpt-6.1-terra", "gpt-6.1-sol", "gpt-6-astra"]


# The four parts together are at most limits.JOB_DESCRIPTION, which the service measures and says in the spec's
# words; each part alone is bounded only far past it, so a runaway input is refused before it is read.
JobPart = Annotated[str, Chars(0, 100_000)]


class MakeAgentInput(ToolInput):
    name: Annotated[str, Chars(1, limits.AGENT_NAME)]
    job: Annotated[str, Chars(1, limits.AGENT_JOB)]
    owns: JobPart
    good: JobPart
    works: JobPart
    asks_first: JobPart
    model: ModelId | None = None
    reports_to: Annotated[str, Chars(1, limits.AGENT_NAME)] | None = None
    department: Annotated[str, Chars(0, limits.AGENT_DEPARTMENT)] | None = None


def undo_make_agent(*, org, actor, change: Change) -> None:
    agent = Agent.objects.filter(organization=org, id=undo_data(change)["agent_id"]).first()
    if agent is None:
        raise ToolError("not_found", "That agent is gone already; nothing was undone.")
    if Work.objects.filter(agent=agent).exists() or Change.objects.filter(actor_id=str(agent.id)).exists():
        raise ToolError(
            "changed", f"{agent.name} has done work since it was made, so Undo would lose it; nothing was undone."
        )
    agent.delete()


@agent_tool(
    "make_agent",
    "Make one agent for a lasting job, from a short job description. Then hand it the work that led to it with "
    "hand_off.",
    MakeAgentInput,
    {ROADSTAR_CHAT},
    kind="makes",
    your_work="home_undo",
    undo=undo_make_agent,
)
def make_agent(ctx, inp: MakeAgentInput):
    agent = services.agent_make(
        org=ctx.org, actor=ctx.actor, name=inp.name, job=inp.job, owns=inp.owns, good=inp.good,
        works=inp.works, asks_first=inp.asks_first, model=inp.model, reports_to=inp.reports_to,
        department=inp.department,
    )
    return Done(
        {"made": agent.name, "next": "Hand it the work with hand_off."}, sentence=f"made {agent.name}: {agent.job}",
        target_type="agent", target_id=str(agent.id), undo={"agent_id": str(agent.id)}, created=True,
    )


class ChangeAgentInput(ToolInput):
    agent: Annotated[str, Chars(1, limits.AGENT_NAME)]
    name: Annotated[str, Chars(1, limits.AGENT_NAME)] | None = None
    job: Annotated[str, Chars(1, limits.AGENT_JOB)] | None = None
    owns: JobPart | None = None
    good: JobPart | None = None
    works: JobPart | None = None
    asks_first: JobPart | None = None
    model: ModelId | None = None
    reports_to: Annotated[str, Chars(1, limits.AGENT_NAME)] | None = None
    department: Annotated[str, Chars(0, limits.AGENT_DEPARTMENT)] | None = None


def _agent_and_changes(ctx, inp: ChangeAgentInput) -> tuple[Agent, dict]:
    agent = services.agent_by_name(org=ctx.org, name=inp.agent)
    changes = {k: getattr(inp, k) for k in services.AGENT_FIELDS if getattr(inp, k) is not None}
    if not changes:
        raise ToolError(
            "bad_input", "Give at least one of name, job, owns, good, works, asksFirst, model, reportsTo, department."
        )
    return agent, changes


def _agent_value(agent: Agent, key: str):
    if key == "reports_to":
        return agent.reports_to.name if agent.reports_to is not None else None
    return getattr(agent, key)


def _change_agent_replaces(ctx, inp: ChangeAgentInput) -> dict:
    # The check reads what the change would replace; an unknown agent or a change of nothing stops here, unasked.
    agent, changes = _agent_and_changes(ctx, inp)
    return {"name": agent.name, **{k: _agent_value(agent, k) for k in changes}}


@agent_tool(
    "change_agent",
    "Change an agent: its name, job, description, model, or where it sits on the chart.",
    ChangeAgentInput,
    {ROADSTAR_CHAT},
    kind="changes",
    your_work="home",
    replaces=_change_agent_replaces,
)
def change_agent(ctx, inp: ChangeAgentInput):
    agent, changes = _agent_and_changes(ctx, inp)
    services.agent_change(org=ctx.org, actor=ctx.actor, agent=agent, changes=dict(changes))
    return Done({"changed": agent.name}, sentence=f"changed {agent.name}: {', '.join(sorted(changes))}",
                target_type="agent", target_id=str(agent.id))


# --- threads --------------------------------------------------------------------------------------------------


class StartThreadInput(ToolInput):
    title: Annotated[str, Chars(1, limits.THREAD_TITLE)]
    kind: Literal["fresh", "fork"] = "fresh"
    task: PacketText
    notes: PacketText | None = None
    links: list[PacketText] = []
    and_then: Annotated[str, Chars(0, limits.AND_THEN)] | None = None


@agent_tool(
    "start_thread",
    "Start a thread for work no thread holds: one per client, project or job. Fresh starts empty with the packet; "
    "fork starts from this chat's memory. Its answer comes back on its own.",
    StartThreadInput,
    {ROADSTAR_CHAT, CHAT},
    kind="works",
)
def start_thread(ctx, inp: StartThreadInput):
    turn = routing_host_of(ctx)
    check_packet(task=inp.task, notes=inp.notes, links=inp.links)
    thread = services.thread_start(agent=turn.agent, title=inp.title)
    if inp.kind == "fork":
        services.message_append(
            conversation=thread, role=Message.Role.SYSTEM,
            text="This thread starts from your chat's memory:\n" + turn.memory_text(),
        )
    turn.send_to_thread(thread, task=inp.task, notes=inp.notes, links=inp.links, and_then=inp.and_then)
    return {"started": thread.title, "kind": inp.kind}


class MessageThreadInput(ToolInput):
    thread: Annotated[str, Chars(1, limits.THREAD_TITLE)]
    task: PacketText
    notes: PacketText | None = None
    links: list[PacketText] = []


@agent_tool(
    "message_thread",
    "Send a thread more work or a correction. A running thread takes it at its next step; an idle or stopped one "
    "starts on it, with all it did before.",
    MessageThreadInput,
    {ROADSTAR_CHAT, CHAT},
    kind="works",
)
def message_thread(ctx, inp: MessageThreadInput):
    turn = routing_host_of(ctx)
    check_packet(task=inp.task, notes=inp.notes, links=inp.links)
    thread = services.thread_by_title(agent=turn.agent, title=inp.thread)
    services.thread_reopen(thread=thread)
    turn.send_to_thread(thread, task=inp.task, notes=inp.notes, links=inp.links, and_then=None)
    return {"sent": thread.title}


class ReadThreadInput(ToolInput):
    thread: Annotated[str, Chars(1, limits.THREAD_TITLE)]
    id: Annotated[int, Whole(0)] | None = None
    n: Annotated[int, Whole(1)] | None = None
    page: Annotated[int, Whole(0)] | None = None


# The memory readers call out: zooming may ask the cheapest model for a summary, so they run with no transaction
# open (no database lock held while a model is asked), and their result is recorded after.
@agent_tool(
    "read_thread",
    "Read what a thread did: its memory from the top, or with id a line or message of it, down to the exact words.",
    ReadThreadInput,
    {ROADSTAR_CHAT, CHAT},
    kind="reads",
    calls_apps=True,
)
def read_thread(ctx, inp: ReadThreadInput):
    thread = services.thread_by_title(agent=host_of(ctx).agent, title=inp.thread)
    if inp.id is not None:
        result = memory.zoom(thread, start=inp.id, n=inp.n or 1, at=(inp.page or 0) * memory.PAGE,
                             read_on=lambda seq: read_thread_pointer(thread, seq))
        if "nextAt" in result:  # read_thread goes on by page, not by character
            result["nextPage"] = result.pop("nextAt") // memory.PAGE
        return {"thread": thread.title, **result}
    text = memory.memory_text(thread, read_on=lambda seq: read_thread_pointer(thread, seq))
    encoded = text.encode()
    if len(encoded) > READ_THREAD_BYTES:
        text = encoded[:READ_THREAD_BYTES].decode(errors="ignore")  # never half a character
        more = len(encoded) - len(text.encode())
        text += f"\n[… {more} more bytes: read a line or message by id]"
    return {"thread": thread.title, "memory": text}


def read_thread_pointer(thread: Conversation, seq: int) -> str:
    return f"read_thread thread {thread.title!r} id {seq} page {memory.MESSAGE_HEAD // memory.PAGE}"


class CloseThreadInput(ToolInput):
    thread: Annotated[str, Chars(1, limits.THREAD_TITLE)]


@agent_tool(
    "close_thread",
    "Close a thread whose work is over: a finished project or a one-off job. It stays readable, and a message "
    "reopens it.",
    CloseThreadInput,
    {ROADSTAR_CHAT, CHAT},
    kind="works",
)
def close_thread(ctx, inp: CloseThreadInput):
    thread = services.thread_by_title(agent=host_of(ctx).agent, title=inp.thread, include_closed=False)
    services.thread_close(thread=thread)
    return {"closed": thread.title}


# --- memory ---------------------------------------------------------------------------------------------------


class ZoomInput(ToolInput):
    id: Annotated[int, Whole(0)]
    n: Annotated[int, Whole(1)] = 1
    at: Annotated[int, Whole(0)] = 0


@agent_tool(
    "zoom_memory",
    "Open line id+n of your memory into the two lines it was made from (n a power of 2, id a multiple of n), or "
    "with n = 1 read message id whole; a long one a page at a time from at.",
    ZoomInput,
    {ROADSTAR_CHAT, CHAT, THREAD},
    kind="reads",
    calls_apps=True,
)
def zoom_memory(ctx, inp: ZoomInput):
    return memory.zoom(host_of(ctx).conversation, start=inp.id, n=inp.n, at=inp.at)


class MessageDateInput(ToolInput):
    id: Annotated[int, Whole(0)]


@agent_tool("message_date", "The date and time of message id.", MessageDateInput, {ROADSTAR_CHAT, CHAT, THREAD},
            kind="reads", calls_apps=True)
def message_date(ctx, inp: MessageDateInput):
    message = Message.objects.filter(conversation=host_of(ctx).conversation, seq=inp.id).first()
    if message is None:
        raise ToolError("not_found", f"There is no message {inp.id} in this memory.")
    return {"id": inp.id, "at": iso(message.created_at)}


# --- browse, find, use ----------------------------------------------------------------------------------------


class BrowseInput(ToolInput):
    groups: Annotated[list[Annotated[str, Chars(0, 100)]], Field(max_length=50)]


class FindInput(ToolInput):
    names: Annotated[list[Annotated[str, Chars(0, 100)]], Field(max_length=50)]


class UseInput(ToolInput):
    name: Annotated[str, Chars(0, 100)]
    # An object; as models send it, sometimes the object written as a JSON string, which use_tool reads
    # (core.lenient_json) and answers with the fix when it can't. The schema a model reads says object.
    input: Annotated[dict | str | None, WithJsonSchema({"additionalProperties": True, "type": "object"})] = {}


# browse_tools' description lists the groups, so it is built when the prompt is (see turn.tool_specs).
@agent_tool("browse_tools", "", BrowseInput, {THREAD, OUTSIDE}, kind="reads")
def browse(ctx, inp: BrowseInput):
    return browse_tools(ctx, inp.groups)


# The tools it loads stay loaded for the rest of the thread: the thread's own working state.
@agent_tool("find_tools", FIND_DESCRIPTION, FindInput, {THREAD, OUTSIDE}, kind="works")
def find(ctx, inp: FindInput):
    result = find_tools(ctx, inp.names)
    host_of(ctx).remember_loaded(ctx.loaded)
    return result


# The tool it runs is checked and recorded by its own declaration (tools.pipeline.use_tool), and may call an app or
# the check's judge: so nothing is checked or recorded for use_tool itself, and it runs with no transaction open.
# A tool's result may be null (contacts.find for an unknown address): use_tool passes it through.
@agent_tool("use_tool", USE_DESCRIPTION, UseInput, {THREAD, OUTSIDE}, kind="works", calls_apps=True, nullable=True)
def use(ctx, inp: UseInput):
    return use_tool(ctx, inp.name, inp.input)


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
    kind="reads",
)
def messages(ctx, inp: MessagesInput):
    return {"messages": [
        {"id": m.seq, "from": _sender(m), "at": iso(m.created_at), "text": m.text} for m in _waiting(host_of(ctx).agent)
    ]}


def _sender(message: Message) -> str:
    if message.role == Message.Role.OWNER:
        return "the owner"
    if message.role == Message.Role.ROUTINE:
        return f"your routine {message.data.get('name', '')}".strip()
    return message.data.get("from") or message.role


class ReplyInput(ToolInput):
    text: Annotated[str, Chars(1, limits.MESSAGE)]


@agent_tool(
    "reply",
    "Answer the messages waiting for you: your reply goes back to whoever sent each of them.",
    ReplyInput,
    {MAC},
    kind="works",
)
def reply(ctx, inp: ReplyInput):
    # The tool registry reads this module in ready(): at the top, the turn would load the agent runtime into
    # django.setup() (routines/apps.py says why it shouldn't).
    from agents.runtime.sql_storage import answer_work

    chat = services.chat_for(agent=host_of(ctx).agent)
    # The reply and the answers it gives commit together: the pipeline runs this in one transaction.
    services.message_append(conversation=chat, role=Message.Role.AGENT, text=inp.text)
    open_work = list(Work.objects.filter(conversation=chat, state=Work.State.OPEN)
                     .select_related("conversation", "agent", "requester"))
    answered = [work for work in open_work if answer_work(work, inp.text)]
    return {"replied": len(answered), "to": sorted({
        work.requester.agent.name if work.requester is not None else "the owner" for work in answered})}


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "hand_off": {
        "agent": "The agent, by name",
        "task": "What to do, in a sentence or two",
        "notes": "Facts it needs that no link holds: names, dates, choices",
        "links": "What to read, as mail:, file:, contact:, doc: or web: with the id or address a tool gave you",
        "answer": "You by default; whoever asked you, when you pass their work on whole",
    },
    "remember": {
        "note": "A note every agent keeps: one fact about the owner or the business",
        "forget": "A note to drop, word for word",
        "about": (
            "What every agent should know about the owner and the business (what it does, its site, customers, "
            "prices, voice), given whole, rewritten with what you learned"
        ),
    },
    "make_agent": {
        "name": "The agent's name",
        "job": "Its job in one line",
        "owns": "What it owns, in a line or two",
        "good": "What good looks like",
        "works": "When it works: as mail arrives, Fridays at 4 PM",
        "asksFirst": "What it asks the owner before doing",
        "model": (
            "Leave it out for the default. Luna is cheapest, for simple repeated work; Sol and Astra cost 2× and "
            "10×, for harder judgement"
        ),
        "reportsTo": "Who it sits under on the chart, by name; Roadstar if none",
        "department": "Its department on the chart",
    },
    "change_agent": {
        "agent": "The agent, by name",
        "name": "A new name",
        "job": "Its job in one line",
        "owns": "What it owns, in a line or two",
        "good": "What good looks like",
        "works": "When it works: as mail arrives, Fridays at 4 PM",
        "asksFirst": "What it asks the owner before doing",
        "model": (
            "Leave it out for the default. Luna is cheapest, for simple repeated work; Sol and Astra cost 2× and "
            "10×, for harder judgement"
        ),
        "reportsTo": "Who it sits under, by name",
        "department": "Its department on the chart",
    },
    "start_thread": {
        "title": "What it's about, in a few words: Juniper Dental",
        "kind": "fresh unless the work needs this conversation",
        "task": "What to do, in a sentence or two",
        "notes": "Facts it needs that no link holds: names, dates, choices",
        "links": "What to read, as mail:, file:, contact:, doc: or web: with the id or address a tool gave you",
        "andThen": (
            "When you start several threads and write one answer from all of them: what to do once the last "
            "answers"
        ),
    },
    "message_thread": {
        "thread": "The thread, by title",
        "task": "What to do, in a sentence or two",
        "notes": "Facts it needs that no link holds: names, dates, choices",
        "links": "What to read, as mail:, file:, contact:, doc: or web: with the id or address a tool gave you",
    },
    "read_thread": {
        "thread": "The thread, by title",
        "id": "A line's or message's id",
        "n": "The line's n; 1 for a message",
        "page": "Where in a long message",
    },
    "close_thread": {
        "thread": "The thread, by title",
    },
    "zoom_memory": {
        "id": "The line's first message",
        "n": "How many messages the line covers; 1 for a message",
        "at": "Where to go on in a long message",
    },
    "message_date": {
        "id": "The message's id",
    },
    "browse_tools": {
        "groups": "Group names from the list",
    },
    "find_tools": {
        "names": "Tool names, such as \"contacts.update\"",
    },
    "use_tool": {
        "name": "The tool's name, such as \"mail.send\"",
        "input": "The tool's input, as find_tools gave it",
    },
    "reply": {
        "text": "Your answer to the message, as the owner or app reads it",
    },
})
