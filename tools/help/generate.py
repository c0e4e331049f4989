"""The docs' tool pages and /tools.json, written from the registry's declarations so they can't drift from the code.

Every group page (`/tools/<group>/`) says what its group is, the how-to `find_tools` sends word for word, then
each tool: its name, description, owner's yes, how its change shows, its inputs with their limits (read from the
input model's JSON Schema, which is what `use_tool` validates against) and the errors it can return (from what
the declaration says it does: every tool can answer `bad_input`, one that takes a record's id `not_found`, one
that calls an app the app's errors, one with an undo `changed`).
"""

from __future__ import annotations

from typing import Any

from core.inputs import Record
from tools import registry
from tools.catalog import (
    FIND_DESCRIPTION,
    MAX_BROWSE_GROUPS,
    MAX_FIND_TOOLS,
    USE_DESCRIPTION,
    agent_tool_specs,
    browse_description,
)

# The title each group's page has; a group not named here is titled by its name.
TITLES = {
    "integrations": "Connected apps",
    "pages": "Research pages",
    "tables": "Research tables",
}

YES_NOTES = {
    "reads": "No. Nothing of the owner's changes.",
    "makes": "No. It makes something new.",
    "changes": "Checked. It changes what's there.",
    "deletes": "Checked. It deletes.",
    "sends": "Checked. It sends outside the business.",
}
DEPENDS_NOTE = "Depends on the input: checked when it changes what's there, not when it makes something new."
NOTE_ONLY = "Checked. It carries a note for the check to weigh, such as a cost."
NOTE_TOO = "It can also carry a note for the check to weigh."

APP_ERRORS = ("not_connected", "reauth", "forbidden", "rate_limited", "unavailable", "vendor")


def group_title(name: str) -> str:
    return TITLES.get(name, name.capitalize())


def group_address(name: str) -> str:
    return f"/tools/{name}/"


def yes_note(tool: registry.Tool) -> str:
    if callable(tool.kind):
        return DEPENDS_NOTE
    if tool.check_note is None:
        return YES_NOTES[tool.kind]
    return f"{YES_NOTES[tool.kind]} {NOTE_TOO}" if tool.kind in registry.CHECKED_KINDS else NOTE_ONLY


# --- inputs, from the input model's JSON Schema ------------------------------------------------------------------


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return {**defs.get(ref.rsplit("/", 1)[1], {}), **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _types(schema: dict[str, Any]) -> tuple[list[str], bool]:
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    nullable = "null" in kinds
    return [k for k in kinds if k != "null"], nullable


def type_words(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """An input's type as the docs say it: text, id, whole number, list of text, one of `a`, `b`…"""
    schema = _resolve(schema, defs)
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"] if v is not None)
    if "const" in schema:
        return f"`{schema['const']}`"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [o for o in schema[key] if o.get("type") != "null"]
            return " or ".join(type_words(o, defs) for o in options) or "anything"
    kinds, _ = _types(schema)
    kind = kinds[0] if kinds else None
    fmt = schema.get("format") or ""
    if kind == "string":
        return {"uuid": "id", "date": "date (YYYY-MM-DD)", "date-time": "date and time (ISO 8601)",
                "email": "email address", "uri": "link"}.get(fmt, "text")
    if kind == "integer":
        return "whole number"
    if kind == "number":
        return "number"
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        return "list of " + type_words(schema.get("items", {}), defs)
    if kind == "object":
        properties = schema.get("properties")
        if properties:
            required = set(schema.get("required", []))
            names = ", ".join(n if n in required else f"{n}?" for n in properties)
            return f"`{{ {names} }}`"
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return "named values of " + type_words(extra, defs)
        return "object"
    return "anything"


def limit_words(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """An input's limits as the docs say them: "1–200 characters", "1–20", "up to 10"."""
    schema = _resolve(schema, defs)
    parts = []
    low, high = schema.get("minLength"), schema.get("maxLength")
    if high is not None:
        parts.append(f"{low or 0}–{high:,} characters" if low else f"up to {high:,} characters")
    elif low:
        parts.append(f"at least {low} characters")
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        parts.append(f"{low:,}–{high:,}")
    elif high is not None:
        parts.append(f"at most {high:,}")
    elif low is not None:
        parts.append(f"at least {low:,}")
    low, high = schema.get("minItems"), schema.get("maxItems")
    if high is not None:
        parts.append(f"{low}–{high} items" if low else f"up to {high} items")
    elif low:
        parts.append(f"at least {low} items")
    items = schema.get("items")
    if isinstance(items, dict):
        inner = limit_words(items, defs)
        if inner:
            parts.append(f"each {inner}")
    return "; ".join(parts)


def inputs_of(tool: registry.Tool) -> list[dict[str, Any]]:
    """The tool's inputs, nested ones as `people[].role`, each with its type, whether it's required, its limits
    and what it is (the field's own description, where the declaration gives one)."""
    return schema_rows(tool.input_schema())


def schema_rows(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """An input schema's properties as rows of the docs' input tables (two levels of nesting at most)."""
    defs = schema.get("$defs", {})
    rows: list[dict[str, Any]] = []

    def walk(properties: dict[str, Any], required: set[Any], prefix: str, depth: int) -> None:
        for name, prop in properties.items():
            resolved = _resolve(prop, defs)
            kinds, nullable = _types(resolved)
            words = type_words(prop, defs)
            if nullable and name in required:
                words += " or null"
            rows.append({
                "name": prefix + name,
                "type": words,
                "required": name in required,
                "limits": limit_words(prop, defs),
                "about": (resolved.get("description") or "").replace("\n", " "),
            })
            inner = _resolve(resolved.get("items", {}), defs) if "array" in kinds else resolved
            if depth < 2 and inner.get("properties") and inner is not schema:
                walk(inner["properties"], set(inner.get("required", [])),
                     f"{prefix}{name}[]." if "array" in kinds else f"{prefix}{name}.", depth + 1)

    walk(schema.get("properties", {}), set(schema.get("required", [])), "", 0)
    return rows


def input_table(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return ["No input."]
    return [
        "| Input | Type | Required | Limits | What it is |",
        "| --- | --- | --- | --- | --- |",
        *[
            f"| `{r['name']}` | {_cell(r['type'])} | {'yes' if r['required'] else 'no'} | {_cell(r['limits'])} "
            f"| {_cell(r['about'])} |"
            for r in rows
        ],
    ]


def errors_of(tool: registry.Tool) -> list[str]:
    """The error kinds a tool can return, from what its declaration says it does (spec/reference/errors)."""
    if tool.errors is not None:
        return list(tool.errors)
    kinds = ["bad_input"]
    takes_records = any(
        isinstance(meta, Record)
        for field in tool.input.model_fields.values()
        for meta in field.metadata
    )
    if takes_records or tool.calls_apps:
        kinds.append("not_found")
    if tool.calls_apps:
        kinds += [*APP_ERRORS, "too_large", "unsupported", "unknown_outcome"]
    if tool.undo is not None:
        kinds.append("changed")
    if "unavailable" not in kinds:
        kinds.append("unavailable")  # the database busy past its timeout: "busy, try again"
    return kinds


# --- the pages ---------------------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def group_page(name: str) -> str:
    group = registry.GROUPS[name]
    tools = registry.tools_of(name)
    count = f"{len(tools)} tool" + ("" if len(tools) == 1 else "s")
    lines = [
        f"# {group_title(name)}",
        "",
        f"The `{name}` group: {group.summary}. {count}.",
        "",
        "## How to use it",
        "",
        "What `find_tools` sends with these tools, word for word:",
        "",
        *[f"> {line}" if line else ">" for line in group.how_to.splitlines()],
        "",
        "## Tools",
        "",
        "| Tool | What it does | Owner's yes |",
        "| --- | --- | --- |",
        *[f"| [{t.name}](#{t.name.partition('.')[2]}) | {_cell(t.description)} | {t.owners_yes} |" for t in tools],
    ]
    for tool in tools:
        lines += ["", *tool_section(tool)]
    return "\n".join(lines) + "\n"


def tool_section(tool: registry.Tool) -> list[str]:
    listing = registry.LISTING_WORDS[tool.your_work] if tool.your_work else "nothing is listed: it only reads"
    lines = [
        f"## {tool.name.partition('.')[2]}",
        "",
        f"`{tool.name}` · {tool.description}",
        "",
        f"**Owner's yes:** {yes_note(tool)} **On Home:** {listing[0].upper() + listing[1:]}.",
        "",
    ]
    lines += input_table(inputs_of(tool))
    lines += ["", "**Errors it can return:** " + ", ".join(f"`{k}`" for k in errors_of(tool)) +
              ". See [errors](/reference/errors/)."]
    return lines


def all_tools_page() -> str:
    lines = [
        "# All tools",
        "",
        "Every tool group, what's in it and how many tools it has, and the three tools that reach them.",
        "",
        ("In a thread (and in a program on the owner's Mac or an outside AI app) every agent has every group. "
        "Browse a group with `browse_tools`, load tools with `find_tools`, run one with `use_tool`: see "
        "[browse, find, use](/tools/catalog/)."),
        "",
        "## Tool groups",
        "",
        "| Group | What's in it | Tools |",
        "| --- | --- | --- |",
    ]
    names = list(registry.SPEC_GROUPS) + [g for g in registry.GROUPS if g not in registry.SPEC_GROUPS]
    for name in names:
        if name in registry.GROUPS:
            lines.append(f"| [{group_title(name)}]({group_address(name)}) `{name}` | "
                         f"{_cell(registry.GROUPS[name].summary)} | {len(registry.tools_of(name))} |")
        else:
            lines.append(f"| {group_title(name)} `{name}` | {_cell(registry.SPEC_GROUPS[name])} | "
                         "not available yet |")
    lines += [
        "",
        ("A group marked not available yet isn't in this Roadstar: `browse_tools` lists it so you know it exists, "
        "and its tools answer `unsupported`. A group can also be off for one workspace, such as the optional "
        "research tools until the owner turns them on: `browse_tools` then leaves it out of its list, and names "
        "it `not_available` if you ask for it."),
        "",
        "## Agent tools",
        "",
        ("Besides the groups, an agent holds some tools directly: `hand_off` and `remember` everywhere, "
        "`start_thread` and the other thread tools in a chat, `make_agent` and `change_agent` in Roadstar's "
        "own chat, `skills` and `triggers` for routines, and `zoom_memory` and `message_date` for reading back "
        "further in memory. [Agent tools](/tools/agent-tools/) has each one, its input and where it is offered."),
    ]
    return "\n".join(lines) + "\n"


def catalog_page() -> str:
    spec = {s["name"]: s for s in agent_tool_specs()}
    lines = [
        "# browse, find, use",
        "",
        "The three tools through which a thread reaches every tool group, with what each one reads.",
        "",
        (f"1. `browse_tools` with up to {MAX_BROWSE_GROUPS} group names returns each group's tools and what each "
        "does. More come back as `not_shown`; a wrong name as `no_such_group`, with the groups there are; a "
        "group this Roadstar doesn't have yet as `not_available`."),
        (f"2. `find_tools` with up to {MAX_FIND_TOOLS} tool names returns `found` (each tool's name, what it does "
        "and its input) and `howTo`, each group's how-to once. A wrong name comes back in `no_such_tool`."),
        ("3. `use_tool` runs one tool by name with its input and returns its result as JSON: an error as "
        "`{ \"error\", \"message\", \"card\"? }` (see [errors](/reference/errors/)), `{ \"not_done_yet\": … }` or "
        "`{ \"refused\": … }` when the check held it back and nothing ran (see "
        "[the owner's yes](/how-it-works/the-owners-yes/)), and `{ \"done\": true }` for a tool that returns "
        "nothing."),
    ]
    for name, words in (("browse_tools", browse_description()), ("find_tools", FIND_DESCRIPTION),
                        ("use_tool", USE_DESCRIPTION)):
        lines += ["", f"## {name}", "", "What the agent reads, word for word:", ""]
        lines += [f"> {line}" for line in words.splitlines()]
        properties = spec[name]["parameters"]["properties"]
        required = set(spec[name]["parameters"].get("required", []))
        lines += ["", "| Input | Type | Required | What it is |", "| --- | --- | --- | --- |"]
        lines += [
            f"| `{p}` | {type_words(s, {})} | {'yes' if p in required else 'no'} | {_cell(s.get('description', ''))} |"
            for p, s in properties.items()
        ]
    return "\n".join(lines) + "\n"


# Where an agent tool is offered, as the docs name the places (agents/runtime/agent_tools.py's place names).
PLACES = {
    "roadstar_chat": "Roadstar's chat",
    "chat": "An agent's chat",
    "thread": "A thread",
    "outside": "An outside app",
    "mac": "A Mac program",
}


def agent_tools_page(tools: list[dict[str, Any]]) -> str:
    """The agent tools: those an agent holds directly, without find_tools. Each of `tools` is a dict of name,
    description, schema (its input's JSON Schema), places (keys of PLACES), and limits: the limits the tool checks
    when it runs, by input, where they are not in its schema."""
    lines = [
        "# Agent tools",
        "",
        "The tools an agent holds directly, without `find_tools`, and where each one is offered.",
        "",
        "Which tools an agent holds depends on where it is working: a chat passes work on and answers, a thread "
        "does the work with every tool group, and an outside app or a program on the owner's Mac works like a "
        "thread. See [chats and threads](/how-it-works/chats-and-threads/).",
        "",
        "## Where each is offered",
        "",
        "| Tool | " + " | ".join(PLACES.values()) + " |",
        "| --- |" + " --- |" * len(PLACES),
    ]
    for tool in tools:
        # A Mac program holds an outside app's tools too.
        places = set(tool["places"]) | ({"mac"} if "outside" in tool["places"] else set())
        marks = " | ".join("Yes" if place in places else "—" for place in PLACES)
        lines.append(f"| [{tool['name']}](#{tool['name']}) | {marks} |")
    for tool in tools:
        lines += ["", f"## {tool['name']}", "", f"`{tool['name']}` · {_cell(tool['description'])}", ""]
        rows = schema_rows(tool["schema"])
        for row in rows:
            row["limits"] = tool.get("limits", {}).get(row["name"], row["limits"])
        lines += input_table(rows)
    return "\n".join(lines) + "\n"


def generated_pages() -> dict[str, str]:
    """Every generated page's markdown by its address."""
    pages = {"/tools/": all_tools_page(), "/tools/catalog/": catalog_page()}
    for name in registry.GROUPS:
        pages[group_address(name)] = group_page(name)
    return pages


# --- /tools.json -------------------------------------------------------------------------------------------------


def tools_json() -> list[dict[str, Any]]:
    """Every tool as declared, in spec/tools.json's shape (name, group, does, owners_yes, yes_note, your_work,
    inputs of name, type, required), with each input's limits and the tool's whole input schema besides."""
    return [
        {
            "name": tool.name,
            "group": tool.group,
            "does": tool.description,
            "owners_yes": tool.owners_yes,
            "yes_note": yes_note(tool),
            "your_work": registry.LISTING_WORDS[tool.your_work] if tool.your_work else None,
            "inputs": [{k: row[k] for k in ("name", "type", "required", "limits")} for row in inputs_of(tool)],
            "input_schema": tool.input_schema(),
        }
        for tool in registry.TOOLS.values()
    ]
