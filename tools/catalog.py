"""browse_tools, find_tools and use_tool: the three agent tools through which a thread reaches every group."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.context import ToolContext
from core.memo import reads_kept
from tools import registry
from tools.pipeline import use_tool

if TYPE_CHECKING:
    from core.models import Organization

MAX_BROWSE_GROUPS = 3
MAX_FIND_TOOLS = 8

BROWSE_INTRO = (
    "Every tool you have is in one of these groups. Browse up to 3 to see their tools, then load the ones you "
    "need with find_tools."
)
FIND_DESCRIPTION = (
    'Load tools by name, as browse_tools lists them, such as "mail.send": each with its input and how to use '
    "its group well. Up to 8 at once."
)
USE_DESCRIPTION = (
    "Run one tool by its name, with its input. One that sends outside the business, deletes, or changes what's "
    "there is checked first."
)

# What browse_tools' line shows, in place of the count, for a group the spec has and this Roadstar doesn't.
NOT_AVAILABLE = "not available yet"


def ordered_groups(org: Organization | None = None) -> list[registry.Group]:
    """The registered groups, in the spec's order; a group the spec doesn't list goes last. Given a workspace,
    only those it has (an optional group may be off)."""
    rank = {name: i for i, name in enumerate(registry.SPEC_GROUPS)}
    groups = sorted(registry.GROUPS.values(), key=lambda g: rank.get(g.name, len(rank)))
    return [g for g in groups if g.on_for(org)] if org is not None else groups


def browse_description(org: Organization | None = None) -> str:
    """browse_tools' own description: every group, one line each, so a thread always sees them. A group the spec
    has that this Roadstar doesn't (not built, or not set up here) keeps its line, marked not available rather
    than counted, so a thread knows it exists and doesn't try it. Given a workspace, an optional group it has off
    keeps its line too, saying it's off and what turns it on, so an agent can tell the owner."""
    with reads_kept():  # the optional groups' settings, read once for all of them
        return _browse_description(org)


def _browse_description(org: Organization | None) -> str:
    lines = [BROWSE_INTRO]
    for name, summary in _all_group_lines():
        if name in registry.GROUPS:
            if org is not None and not registry.group_on(name, org):
                lines.append(f"- {name}: {summary} ({len(registry.tools_of(name))}; {registry.off_words(name)})")
                continue
            lines.append(f"- {name}: {summary} ({len(registry.tools_on(name, org))})")
        else:
            lines.append(f"- {name}: {summary} ({NOT_AVAILABLE})")
    # The workspace's own groups: the apps the owner connected by their MCP address.
    lines += [f"- {group.name}: {group.summary} ({len(tools)})" for group, tools in registry.workspace_groups(org)]
    return "\n".join(lines)


def _all_group_lines() -> list[tuple[str, str]]:
    lines = [(name, registry.GROUPS[name].summary if name in registry.GROUPS else summary)
             for name, summary in registry.SPEC_GROUPS.items()]
    lines += [(g.name, g.summary) for g in ordered_groups() if g.name not in registry.SPEC_GROUPS]
    return lines


def browse_tools(ctx: ToolContext, groups: list[str]) -> dict[str, Any]:
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        return {"error": "bad_input", "message": "groups: must be a list of group names"}
    with reads_kept():  # each group asked for is looked up twice or more; the settings are read once
        return _browse(ctx, groups)


def _browse(ctx: ToolContext, groups: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    # An optional group the workspace has off is browsed like any: its tools, each saying it's off and what
    # turns it on (use_tool refuses them, saying the same). The workspace's own groups (the apps the owner
    # connected by their MCP address) come after the declared ones.
    own = {g: found for g in dict.fromkeys(groups) if (found := registry.workspace_group(ctx.org, g)) is not None}
    unknown = [g for g in groups if g not in registry.GROUPS and g not in own]
    known = [g for g in dict.fromkeys(groups) if g in registry.GROUPS or g in own]
    for name in known[:MAX_BROWSE_GROUPS]:
        if name in own:
            result[name] = {t.name: t.description for t in own[name][1]}
        elif registry.group_on(name, ctx.org):
            result[name] = {t.name: t.description for t in registry.tools_on(name, ctx.org)}
        else:
            off = f" ({registry.off_words(name)})"
            result[name] = {t.name: t.description + off for t in registry.tools_of(name)}
    if len(known) > MAX_BROWSE_GROUPS:
        result["not_shown"] = known[MAX_BROWSE_GROUPS:]
    # Groups the spec has and this Roadstar doesn't: named, with why.
    absent = [g for g in dict.fromkeys(unknown) if g in registry.SPEC_GROUPS]
    unknown = [g for g in unknown if g not in absent]
    if absent:
        result["not_available"] = {
            name: registry.absent_group_message(name)
            for name in absent
        }
    if unknown:
        result["no_such_group"] = {"names": unknown, "groups": [g.name for g in ordered_groups()]
                                   + [g.name for g, _ in registry.workspace_groups(ctx.org)]}
    return result


def find_tools(ctx: ToolContext, names: list[str]) -> dict[str, Any]:
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return {"error": "bad_input", "message": "names: must be a list of tool names"}
    found, no_such_tool = [], {}
    how_to: dict[str, str] = {}
    wanted = list(dict.fromkeys(names))
    for name in wanted[:MAX_FIND_TOOLS]:
        tool = registry.get_tool(name)
        if tool is not None and not registry.tool_on(tool, ctx.org):
            tool = None  # an optional group the workspace has off, or a tool its group keeps out here, is not there
        own = registry.workspace_group(ctx.org, name.partition(".")[0]) if tool is None else None
        if own is not None:
            tool = next((t for t in own[1] if t.name == name), None)
            if tool is None:
                no_such_tool[name] = [t.name for t in own[1]]
                continue
            found.append({"name": tool.name, "does": tool.description, "input": tool.input_schema()})
            how_to.setdefault(tool.group, own[0].how_to_in(ctx))
            ctx.loaded.add(tool.name)
            continue
        if tool is None:
            group = name.partition(".")[0]
            if group in registry.GROUPS and not registry.group_on(group, ctx.org):
                no_such_tool[name] = [registry.off_group_message(group)]
            elif group in registry.GROUPS:
                no_such_tool[name] = [t.name for t in registry.tools_on(group, ctx.org)]
            elif group in registry.SPEC_GROUPS:
                no_such_tool[name] = [registry.absent_group_message(group)]
            else:
                no_such_tool[name] = [f"no group {group!r}; the groups are " + ", ".join(registry.GROUPS)]
            continue
        found.append({"name": tool.name, "does": tool.description, "input": tool.input_schema()})
        if tool.group not in how_to:
            how_to[tool.group] = registry.GROUPS[tool.group].how_to_in(ctx)
        ctx.loaded.add(tool.name)
    result: dict[str, Any] = {"found": found, "howTo": how_to}
    if no_such_tool:
        result["no_such_tool"] = no_such_tool
    if len(wanted) > MAX_FIND_TOOLS:
        result["not_loaded"] = wanted[MAX_FIND_TOOLS:]
    return result


def agent_tool_specs() -> list[dict[str, Any]]:
    """The three catalog tools as a model sees them (name, description, JSON Schema of the input with what each
    input is): their registered declarations (agents/agent_tools.py), browse_tools' description listing every
    group."""
    specs = []
    for name in ("browse_tools", "find_tools", "use_tool"):
        spec = registry.AGENT_TOOLS[name].spec()
        specs.append({**spec, "description": browse_description()} if name == "browse_tools" else spec)
    return specs


__all__ = ["browse_tools", "find_tools", "use_tool", "agent_tool_specs", "browse_description"]
