"""The tool registry: one declaration per tool, checked when it is registered.

How to add a tool: in the group's module under `tools/groups/`, declare its input model (a `ToolInput`
carrying the spec's limits), write a `run(ctx, inp)` that calls one service, and `register(Tool(...))` with the
spec's one-line description word for word, its owner's-yes kind and its Home listing. How to add a group:
`register_group(Group(...))` with the line `browse_tools` shows and the group's how-to word for word, in a new
module found by convention, with no edit anywhere else: `tools/groups/<group>.py` for a group over the apps below
tools, or the `tool_groups.py` module of an app above tools (agent_templates'), which tools can't import by name.
Django's app loading imports them all once (ToolsConfig.ready calls `load_all()`), the way Wagtail finds
`wagtail_hooks`. The registry refuses a duplicate name, a tool of an unknown group, and a declaration whose parts
disagree (an Undo without a Home listing that offers it, …).

The agent tools (hand_off, make_agent, triggers, …: held directly, without find_tools, in the places spec/tools.md
marks) are declared the same way, `register_agent_tool(Tool(..., places={...}))`, in the `agent_tools.py` module
of the app that has them (agents', routines'), found by the same convention; they run through the same pipeline
(tools.pipeline.run_tool), called by the agents app's dispatcher (agents/runtime/agent_tools.py). Their `run`
reads the turn or outside session that runs them from `ctx.host`.
"""

from __future__ import annotations

import difflib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from django.apps import apps
from django.utils.module_loading import module_has_submodule
from pydantic import BaseModel, ConfigDict, field_validator
from pydantic.alias_generators import to_camel

from core.errors import ERROR_KINDS, ErrorKind
from core.inputs import Uuid, refuse_bad_characters
from core.registry import Registry, RegistryError
from core.undo import UNDOS, Undo, UndoHandler

if TYPE_CHECKING:
    from core.context import ToolContext
    from core.models import Organization
    from records.models import LogEntry

# What a tool does to the owner's things, as the spec's "Owner's yes" says. An agent tool may also be "works": it
# arranges the agents' own work (a hand-off, a thread, an agent's notes or skills, a routine turned on or off),
# nothing of the owner's, so it needs no yes and shows nothing on Your work.
Kind = Literal["reads", "works", "makes", "changes", "deletes", "sends"]
UNLISTED_KINDS = frozenset({"reads", "works"})
CHECKED_KINDS = frozenset({"changes", "deletes", "sends"})

# How a tool's change shows to the owner: on Home's Your work, with Undo or not, or on the record's own log.
Listing = Literal["home", "home_undo", "record"]
LISTING_WORDS = {
    "home": "listed on Home",
    "home_undo": "listed on Home, with Undo",
    "record": "not listed on Home; the change shows on the record itself",
}


class ToolInput(BaseModel):
    """Base of every tool's input: the spec's camelCase names, and nothing the tool doesn't take."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=False,
        serialize_by_alias=True,
        str_strip_whitespace=False,
    )

    @field_validator("*", mode="before")
    @classmethod
    def _no_bad_characters(cls, value: object) -> object:
        # Every input, whatever its type says: NUL and lone surrogates never reach a record (core.inputs).
        refuse_bad_characters(value)
        return value


@dataclass(frozen=True)
class Group:
    name: str
    summary: str  # the line browse_tools shows, such as "the people the business deals with"
    how_to: str  # what find_tools sends with the group's tools, word for word
    # The how-to as it reads in one workspace, when it depends on it (search names the accounts in search and since
    # when); `how_to` is then the spec's text for a workspace with none.
    how_to_for: Callable[[ToolContext], str] | None = None
    # An optional group (the research tools): whether a workspace has it on. Off, browse_tools lists it and its
    # tools saying so and what turns it on (`turn_on`), find_tools loads none of them, and use_tool refuses them.
    # None: every workspace has it.
    enabled: Callable[[Organization], bool] | None = None
    # What a thread is told when it reaches for the group while it is off, when the generic words don't fit (the
    # web group is off where no search provider is set up: only whoever runs Roadstar can turn it on).
    off_message: str = ""
    # Whether one of the group's tools is there for a workspace, when that depends on it: mail's search and read
    # are absent once search's copy holds every mail account whole (search/takeover.py). None: all of them are.
    tool_on: Callable[[Organization, str], bool] | None = None
    # What turns an optional group on, as browse_tools' line and its tools' lines say while it is off: "the owner
    # turns it on, on the Newsfeed page" unless the group says otherwise.
    turn_on: str = ""

    def how_to_in(self, ctx: ToolContext) -> str:
        return self.how_to_for(ctx) if self.how_to_for is not None else self.how_to

    def on_for(self, org: Organization | None) -> bool:
        return self.enabled is None or org is None or bool(self.enabled(org))


# What a tool answers, as JSON: an object mostly, a list for some reads (calendar.list, tables.list), null for a
# nullable one (contacts.find).
type ToolResult = dict[str, Any] | list[Any] | str | int | float | bool | None


@dataclass
class Done:
    """What a tool that changed something returns: its result, and the change to record."""

    result: ToolResult
    sentence: str  # for Home, without the actor: "added Dana Whitfield to Contacts"
    target_type: str = ""
    target_id: str = ""
    undo: Mapping[str, object] | None = None  # what the tool's undo needs; None when there is nothing to undo
    log_entry: LogEntry | None = None  # the record's own log entry, linked to the change so Undo can be offered there
    # The id the change is to be recorded with, when the tool wrote `log_entry` pointing to it already (the change
    # is written after, in the same transaction; the link is a deferred constraint): no UPDATE links them after.
    change_id: Uuid | None = None
    # The target is a record this run created (a new contact, file, doc, entry). Only such a record counts as made
    # by this piece of work, which the check lets it change without a yes; a note, a follow-up, a link or an item
    # on a record that was there never does. Off unless a tool says so: forgetting it asks more, never less.
    created: bool = False
    # A tool that makes things changed one that was there instead (recording the same thread again): it is
    # recorded as a change.
    changed_existing: bool = False


@dataclass
class Writes:
    """What a tool that called an app returns when it has writes of its own to make here (a held email, the
    contacts' log lines): `write()` runs in the short transaction that records the change, after every call to
    the app is done, and returns what the tool would have (a Done, or a result)."""

    write: Callable[[], Done | ToolResult]


# The groups whose tools call the owner's apps (Gmail, Drive, Google Calendar, QuickBooks, and the local ones):
# their tools run with no transaction open (tools/pipeline.py).
APP_GROUPS = frozenset({"mail", "files", "calendar", "books"})


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input: type[ToolInput]
    run: Callable[[ToolContext, Any], Done | Writes | ToolResult]
    # A kind, or for the spec's "Depends" tools a function of the context and input that gives one.
    kind: Kind | Callable[[ToolContext, Any], Kind]
    your_work: Listing | None = None
    undo: UndoHandler | None = None
    # What the action would overwrite or remove, for the check: `{"name": "Ortiz Bakery", "context": "…"}`.
    replaces: Callable[[ToolContext, Any], dict[str, Any] | None] | None = None
    # The tool's own read of records its input names, for the check (what `replaces` reads), made before the
    # pipeline looks for the records the input names (tools.targets): (kind, id) of those it found in this
    # workspace, which aren't looked for again. A record it didn't find is looked for, and is not_found there.
    reads_first: Callable[[ToolContext, Any], frozenset[tuple[str, str]]] | None = None
    # A note the check weighs whatever the kind (a cost): makes the tool checked always.
    check_note: Callable[[ToolContext, Any], str] | None = None
    # Why the tool can't do its work on this server at all (pages.request with no web search set up), in words the
    # agent can pass on to the owner; None when it can. Asked before the owner is, so no ask is raised for it.
    unavailable: Callable[[ToolContext], str | None] | None = None
    # The result may be null (contacts.find when no one has the address); else a None result is `{"done": true}`.
    nullable: bool = False
    # Its body calls an app over the network (by default, the tools of APP_GROUPS): it runs with no transaction
    # open, and what it writes here goes in one short transaction after (return `Writes` for writes of its own).
    calls_apps: bool | None = None
    # Its undo calls an app (by default, when the tool does): Undo then runs with no transaction open.
    undo_calls_apps: bool | None = None
    # Its body may call other tools (code in the workspace calling tools from code): what it does can't be rolled
    # back, so a turn marks it started first and never runs it again after a worker died in it.
    calls_tools: bool = False
    # The error kinds it can return, where what it declares can't tell them (the help pages read them from here):
    # the web tools call out like an app's but have no account, so never answer not_connected or reauth.
    errors: tuple[ErrorKind, ...] | None = None
    # An agent tool's places (see PLACES): where it is held directly, without find_tools. It is named without a
    # group (hand_off), and `calls_apps` says it calls out at all (a model, or tools that may call an app).
    places: frozenset[str] = frozenset()
    group: str = field(init=False)

    def __post_init__(self) -> None:
        if self.places:
            if "." in self.name:
                raise ValueError(f"agent tool name {self.name!r} has no group")
            object.__setattr__(self, "group", "")
            object.__setattr__(self, "places", frozenset(self.places))
        else:
            group, _, action = self.name.partition(".")
            if not group or not action:
                raise ValueError(f"tool name {self.name!r} must be group.action")
            object.__setattr__(self, "group", group)
        if self.calls_apps is None:
            object.__setattr__(self, "calls_apps", self.group in APP_GROUPS)
        if self.undo_calls_apps is None:
            object.__setattr__(self, "undo_calls_apps", self.calls_apps)

    @property
    def owners_yes(self) -> str:
        """The spec's label: No, Checked or Depends."""
        if callable(self.kind):
            return "Depends"
        if self.kind in CHECKED_KINDS or self.check_note is not None:
            return "Checked"
        return "No"

    def kind_for(self, ctx: ToolContext, inp: ToolInput) -> Kind:
        return self.kind(ctx, inp) if callable(self.kind) else self.kind

    def is_checked(self, ctx: ToolContext, inp: ToolInput) -> bool:
        return self.kind_for(ctx, inp) in CHECKED_KINDS or self.check_note is not None

    def input_schema(self) -> dict[str, Any]:
        """The input's JSON Schema as a model reads it: each input with what it is (INPUT_WORDS)."""
        if self.name not in _described:
            _described[self.name] = _with_words(_schema_for(self.input), INPUT_WORDS.get(self.name, {}))
        return _described[self.name]

    def spec(self) -> dict[str, Any]:
        """The tool as a model is offered it."""
        return {"name": self.name, "description": self.description, "parameters": self.input_schema()}

    def describe(self) -> dict[str, Any]:
        """One entry of `manage.py tools --json`."""
        return {
            "name": self.name,
            "group": self.group,
            "description": self.description,
            "owners_yes": self.owners_yes,
            "your_work": LISTING_WORDS.get(self.your_work) if self.your_work else None,
            "input_schema": self.input_schema(),
        }


_schemas: dict[type, dict[str, Any]] = {}
_described: dict[str, dict[str, Any]] = {}

# What each input of a tool is, by tool and input name as the model writes it: the spec's "What it is" words where
# it has them, the same plain style where it doesn't. A model knows an input only by its schema, so an input without
# its meaning is one it guesses at; each tool's module declares them with `describe_inputs`, and load_all refuses
# a tool with an input left undescribed.
INPUT_WORDS: dict[str, dict[str, str]] = {}


def describe_inputs(words: dict[str, dict[str, str]]) -> None:
    """Declare what the inputs of tools registered already are, `{tool: {input: words}}`; an input the tool doesn't
    take, or a tool not registered, is refused (a description of nothing is a typo)."""
    for name, inputs in words.items():
        tool = TOOLS.get(name) or AGENT_TOOLS.get(name)
        if tool is None:
            raise RegistryError(f"describe_inputs: no tool {name!r} is registered")
        taken = set(_schema_for(tool.input).get("properties", {}))
        if set(inputs) - taken:
            raise RegistryError(f"describe_inputs: {name} takes no input {sorted(set(inputs) - taken)}")
        if any(not isinstance(text, str) or not text.strip() for text in inputs.values()):
            raise RegistryError(f"describe_inputs: {name}: every description is words")
        INPUT_WORDS.setdefault(name, {}).update(inputs)
        _described.pop(name, None)


def _with_words(schema: dict[str, Any], words: dict[str, str]) -> dict[str, Any]:
    """The schema with each described input's words first in its property (a property's own `description`, from
    its model's Field, stays where no words are declared)."""
    if not words:
        return schema
    properties = {key: ({"description": words[key], **{k: v for k, v in prop.items() if k != "description"}}
                        if key in words else prop)
                  for key, prop in schema.get("properties", {}).items()}
    return {**schema, "properties": properties}


def undescribed() -> list[str]:
    """Every registered tool's input (group and agent tools) that a model would read without what it is."""
    missing = []
    for tool in [*TOOLS.values(), *AGENT_TOOLS.values()]:
        for key, prop in tool.input_schema().get("properties", {}).items():
            if not (isinstance(prop, dict) and isinstance(prop.get("description"), str) and prop["description"]):
                missing.append(f"{tool.name}.{key}")
    return missing


def _schema_for(model: type[BaseModel]) -> dict[str, Any]:
    # Schemas are built once: find_tools and every model call send them, and building one is not cheap.
    if model not in _schemas:
        _schemas[model] = _without_titles(model.model_json_schema(by_alias=True))
    return _schemas[model]


def _without_titles(schema: Any) -> Any:
    """The schema as the model reads it on every step, without what it learns nothing from: pydantic's titles
    (each field's own name again; a property literally named "title" stays), `"default": null` (leaving an input
    out means that already), and `anyOf: [{type: X, …}, {type: null}]` written as `type: [X, "null"]`."""
    if isinstance(schema, dict):
        cleaned = {}
        for key, value in schema.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "default" and value is None:
                continue
            if key == "properties" and isinstance(value, dict):
                cleaned[key] = {name: _without_titles(prop) for name, prop in value.items()}
            else:
                cleaned[key] = _without_titles(value)
        options = cleaned.get("anyOf")
        if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
            other = next(o for o in options if o != {"type": "null"})
            if isinstance(other, dict) and isinstance(other.get("type"), str) and "anyOf" not in other:
                cleaned.pop("anyOf")
                cleaned = {**other, "type": [other["type"], "null"], **cleaned}
        return cleaned
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    return schema


# RegistryError is core.registry's (imported above): a tool's declaration that can't stand is refused with it too.
GROUPS: Registry[str, Group] = Registry("group", Group)
TOOLS: Registry[str, Tool] = Registry("tool", Tool)

# Every group the spec has (spec/tools/catalog.md), in the order browse_tools lists them, with the line it shows.
# A group registers its own declaration (whose summary the tests hold to these words); one this Roadstar doesn't
# have, not built yet or not set up here, stays listed as not available, and its tools answer `unsupported`.
SPEC_GROUPS: dict[str, str] = {
    "contacts": "the people the business deals with",
    "companies": "the businesses the owner deals with: clients, suppliers, their conversations",
    "web": "search the web and read pages",
    "pages": "research pages",
    "comments": "comments on pages",
    "projects": "projects that hold docs, pages and tables",
    "tables": "research tables",
    "filings": "public companies' filings",
    "newsfeed": "today's news",
    "docs": "the business's docs: proposals, briefs, checklists",
    "files": "the owner's Drive: files, Google Docs and Sheets",
    "mail": "the owner's Gmail",
    "calendar": "the owner's calendar: meetings and time held",
    "books": "invoices and what customers owe, from the owner's accounting app",
    "workspace": "your own folder: files, spreadsheets and code",
    "templates": "agents, teams, departments and skills shared in the workspace",
    "help": "these docs: how Roadstar works, and every tool",
    "search": "Search",
    "integrations": "the apps the owner has connected or could connect",
}


def absent_group_message(group: str) -> str:
    """What a thread is told when it reaches for a group the spec has and this Roadstar doesn't."""
    return (f"The {group} group ({SPEC_GROUPS[group]}) isn't available in this Roadstar yet, so none of its tools "
            "can run. Carry on without it, or tell the owner what it would have needed.")


def off_group_message(group: str) -> str:
    """What a thread is told when it reaches for an optional group its workspace has off."""
    declared = GROUPS.get(group)
    if declared is not None and declared.off_message:
        return declared.off_message
    return (f"The {group} tools are off in this workspace, so none of its tools can run; only the owner can turn "
            "them on (on the Newsfeed page). Carry on without them, or tell the owner what they would be for.")


OWNER_TURNS_ON = "the owner turns it on, on the Newsfeed page"


def off_words(group: str) -> str:
    """What browse_tools says of an optional group the workspace has off, on its line and each of its tools':
    that it's off, and what turns it on."""
    declared = GROUPS.get(group)
    return f"off here: {(declared.turn_on if declared is not None and declared.turn_on else OWNER_TURNS_ON)}"


def register_group(group: Group) -> Group:
    return GROUPS.add(group)


def register(tool: Tool) -> Tool:
    if tool.places:
        raise RegistryError(f"tool {tool.name!r} is held in places, so it is an agent tool: register_agent_tool")
    if tool.group not in GROUPS:
        raise RegistryError(f"tool {tool.name!r} is in group {tool.group!r}, which is not registered")
    if tool.kind == "works":
        raise RegistryError(f"tool {tool.name!r}: only an agent tool arranges the agents' own work")
    _check_declaration(tool)
    TOOLS.add(tool)
    _register_undo(tool)
    return tool


# The places an agent tool is held (spec/tools.md, "Where each is offered"): Roadstar's chat, another agent's chat,
# a thread, an outside app over MCP, and a program on the owner's Mac working as one of the agents (an outside
# app's tools, and the messages that reach its chat, which it answers itself).
ROADSTAR_CHAT, CHAT, THREAD, OUTSIDE, MAC = "roadstar_chat", "chat", "thread", "outside", "mac"
PLACES = frozenset({ROADSTAR_CHAT, CHAT, THREAD, OUTSIDE, MAC})
# browse_tools' description lists the groups of the workspace reading it, so it is made when a prompt is.
DESCRIBED_WHEN_READ = frozenset({"browse_tools"})
AGENT_TOOLS: Registry[str, Tool] = Registry("agent tool", Tool)


def register_agent_tool(tool: Tool) -> Tool:
    if not tool.places:
        raise RegistryError(f"agent tool {tool.name!r} is held nowhere: give its places")
    if tool.places - PLACES:
        raise RegistryError(f"agent tool {tool.name!r}: no such place {sorted(tool.places - PLACES)}")
    _check_declaration(tool)
    AGENT_TOOLS.add(tool)
    _register_undo(tool)
    return tool


RunF = TypeVar("RunF", bound=Callable[..., Any])


def agent_tool(
    name: str, description: str, input: type[ToolInput], places: set[str], **declared: Any
) -> Callable[[RunF], RunF]:
    """Declare the decorated `run(ctx, inp)` as the agent tool `name`, held in `places`; `declared` are the rest of
    its Tool fields (kind, your_work, undo, replaces, calls_apps, nullable), as a group tool declares them."""

    def declare(run: RunF) -> RunF:
        register_agent_tool(Tool(name=name, description=description, input=input, run=run,
                                 places=frozenset(places), **declared))
        return run

    return declare


def agent_tools_in(places: set[str]) -> list[Tool]:
    """The agent tools held in any of `places`, in the order they were declared."""
    return [tool for tool in AGENT_TOOLS.values() if places & tool.places]


def _check_declaration(tool: Tool) -> None:
    """What a group tool's and an agent tool's declarations must both hold to."""
    if not tool.description and tool.name not in DESCRIBED_WHEN_READ:
        raise RegistryError(f"tool {tool.name!r} has no description")
    if not (isinstance(tool.input, type) and issubclass(tool.input, ToolInput)):
        raise RegistryError(f"tool {tool.name!r}: its input must be a ToolInput")
    if tool.kind in UNLISTED_KINDS and tool.your_work is not None:
        what = "only reads" if tool.kind == "reads" else "arranges only the agents' own work"
        raise RegistryError(f"tool {tool.name!r} {what}, so it has nothing to list on Home")
    if tool.kind not in UNLISTED_KINDS and tool.your_work is None:
        raise RegistryError(f"tool {tool.name!r} changes things, so it must say how its change shows")
    if tool.your_work == "home_undo" and tool.undo is None:
        raise RegistryError(f"tool {tool.name!r} is listed with Undo but declares no undo")
    unknown_errors = set(tool.errors or ()) - set(ERROR_KINDS)
    if unknown_errors:
        raise RegistryError(f"tool {tool.name!r} names errors the spec doesn't have: {sorted(unknown_errors)}")


def _register_undo(tool: Tool) -> None:
    if tool.undo is not None:
        UNDOS.add(Undo(tool.name, tool.undo, calls_apps=bool(tool.undo_calls_apps)))


def group_on(name: str, org: Organization) -> bool:
    """Whether the group `name` is there for the workspace `org` (an optional group may be off)."""
    group = GROUPS.get(name)
    return group is not None and group.on_for(org)


def tools_of(group: str) -> list[Tool]:
    return [t for t in TOOLS.values() if t.group == group]


def tool_on(tool: Tool, org: Organization | None) -> bool:
    """Whether `tool` is there for the workspace `org`: its group is, and the group keeps that tool there."""
    group = GROUPS.get(tool.group)
    if group is None:
        return True  # a group of the workspace's own (an app connected by its MCP address): there while it is
    if not group.on_for(org):
        return False
    return group.tool_on is None or org is None or bool(group.tool_on(org, tool.name))


def tools_on(group: str, org: Organization | None) -> list[Tool]:
    """The group's tools a workspace has (all of them without `org`)."""
    return [t for t in tools_of(group) if tool_on(t, org)]


def get_tool(name: str) -> Tool | None:
    return TOOLS.get(name)


def tool_name_as_meant(name: str) -> str:
    """A group tool's name as models misspell it in ways that leave no doubt: capitals, a `functions.` prefix,
    `mail_send` or `mail/send` for `mail.send`, hyphens for underscores. Not a guess between tools: closest_tool
    names one to the model instead."""
    name = name.strip().lower()
    for prefix in ("functions.", "tools."):
        name = name.removeprefix(prefix)
    name = name.replace("-", "_").replace("/", ".").replace(" ", "_")
    if "." not in name:
        group, _, action = name.partition("_")
        name = f"{group}.{action}"
    return name


def closest_tool(name: str) -> str | None:
    """The registered tool a wrong name most likely meant (`contacts.search` → `contacts.find`?), or None."""
    close = difflib.get_close_matches(tool_name_as_meant(name), list(TOOLS), n=1, cutoff=0.75)
    return close[0] if close else None


# The modules an installed app declares its tool groups and its agent tools in, by convention; and the package whose
# every module is one of the tools app's own groups.
GROUPS_MODULE = "tool_groups"
AGENT_TOOLS_MODULE = "agent_tools"
OWN_GROUPS_PACKAGE = "tools.groups"
_loaded = False


def group_modules(app: ModuleType) -> list[str]:
    """The names of the group modules the app package `app` holds by convention: its `tool_groups` module, and
    for the tools app every module in tools/groups/ (in name order)."""
    names = [f"{app.__name__}.{GROUPS_MODULE}"] if module_has_submodule(app, GROUPS_MODULE) else []
    if app.__name__ == OWN_GROUPS_PACKAGE.partition(".")[0]:
        package = import_module(OWN_GROUPS_PACKAGE)
        names += [f"{OWN_GROUPS_PACKAGE}.{m.name}" for m in pkgutil.iter_modules(package.__path__)]
    return names


def load_groups_of(app: ModuleType) -> None:
    """Import the app's group modules, each of which registers its group and tools."""
    for name in group_modules(app):
        import_module(name)


def load_agent_tools_of(app: ModuleType) -> None:
    """Import the app's `agent_tools` module, which registers its agent tools (and their undo)."""
    if module_has_submodule(app, AGENT_TOOLS_MODULE):
        import_module(f"{app.__name__}.{AGENT_TOOLS_MODULE}")


def load_all() -> None:
    """Import every installed app's group modules and agent tools modules, in INSTALLED_APPS order. Django's app
    loading does it once (ToolsConfig.ready), so every process has every tool, and every undo, before it serves
    anything; later calls do nothing."""
    global _loaded
    if _loaded:
        return
    for config in apps.get_app_configs():
        if config.module is not None:  # None only for an app config made by hand, never an installed app
            load_groups_of(config.module)
            load_agent_tools_of(config.module)
    missing = undescribed()
    if missing:
        raise RegistryError(f"inputs a model would read without what they are (describe_inputs): {missing}")
    _loaded = True


# --- a workspace's own groups: the owner's other apps, each a group named after it ----------------------------------
#
# Roadstar's groups are declared once, in code, for every workspace. An app the owner connects by its MCP address
# (integrations/mcp_apps.py) adds a group only to its workspace, with the tools the app declares: a source
# registered here (tools/groups/apps.py) makes them from what the workspace has connected, when asked.
# browse_tools, find_tools and use_tool look there after the declared groups.


@dataclass(frozen=True)
class DeclaredTool(Tool):
    """A tool whose input schema is the app's own declaration (its JSON Schema), sent as declared."""

    declared_schema: dict[str, Any] = field(default_factory=dict)

    def input_schema(self) -> dict[str, Any]:
        return self.declared_schema


@dataclass(frozen=True)
class WorkspaceGroups:
    """A source of workspace groups: `groups(org, only)`, the workspace's own groups and their tools (only the
    group `only`, when given)."""

    name: str
    groups: Callable[[Organization, str | None], list[tuple[Group, list[Tool]]]]


WORKSPACE_GROUPS: Registry[str, WorkspaceGroups] = Registry("workspace groups source", WorkspaceGroups)


def workspace_groups(org: Organization | None, only: str | None = None) -> list[tuple[Group, list[Tool]]]:
    if org is None:
        return []
    return [found for source in WORKSPACE_GROUPS.values() for found in source.groups(org, only)]


def workspace_group(org: Organization, name: str) -> tuple[Group, list[Tool]] | None:
    if name in GROUPS or name in SPEC_GROUPS:
        return None  # a declared group's name is never a workspace's
    return next(iter(workspace_groups(org, name)), None)


def workspace_tool(org: Organization, name: str) -> Tool | None:
    found = workspace_group(org, name.partition(".")[0]) if isinstance(name, str) else None
    if found is None:
        return None
    return next((t for t in found[1] if t.name == name), None)
