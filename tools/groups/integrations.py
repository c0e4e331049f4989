"""The integrations group: the apps the owner has connected or could connect. Thin declarations over integrations/."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from core.errors import ToolError
from core.inputs import Chars
from integrations import catalog, selectors, services
from integrations.providers.registry import registered
from tools.registry import (
    Done,
    Group,
    Tool,
    ToolInput,
    describe_inputs,
    register,
    register_group,
    tools_of,
    workspace_group,
)

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="integrations",
        summary="the apps the owner has connected or could connect",
        how_to=(
            "The owner's connected apps and the ones they could connect. When work needs an app that isn't "
            "connected, offer the card with connect, saying in a line what it lets you do."
        ),
    )
)


# --- list -----------------------------------------------------------------------------------------------------


class ListInput(ToolInput):
    pass


def list_(ctx: ToolContext, inp: ListInput) -> dict[str, Any]:
    def tool_count(group: str) -> int:
        # An app connected by its MCP address has the group its workspace's own: its tools are counted there.
        own = workspace_group(ctx.org, group)
        return len(own[1]) if own is not None else len(tools_of(group))

    return selectors.apps_overview(org=ctx.org, tool_count=tool_count)


register(
    Tool(
        name="integrations.list",
        description="The apps connected now, the ones the owner could connect, and those not ready yet",
        input=ListInput,
        run=list_,
        kind="reads",
    )
)


# --- connect --------------------------------------------------------------------------------------------------


class ConnectInput(ToolInput):
    integration: Annotated[str, Chars(1, 100)]
    why: Annotated[str, Chars(0, 200)] | None = None


def _keys_line() -> str:
    keys = ", ".join(f"{k} ({catalog.app(k).label})" for k in (*catalog.CONNECTABLE, catalog.OTHER_APPS))
    return f"the keys are {keys}; integrations.list shows them"


def connect(ctx: ToolContext, inp: ConnectInput) -> dict[str, Any] | Done:
    key = catalog.normalize_key(inp.integration)
    if key in catalog.NOT_YET:
        return {"notYet": f"{catalog.NOT_YET[key]} can't be connected yet: Roadstar doesn't have it. Carry on "
                          "without it."}
    if key not in catalog.CONNECTABLE and key != catalog.OTHER_APPS:
        raise ToolError("bad_input", f"integration: no app {inp.integration!r}; {_keys_line()}")
    info = catalog.app(key)
    if key != catalog.OTHER_APPS and not any(app == key for app, _ in registered()):
        return {"notYet": f"{info.label} isn't built into this Roadstar yet, so it can't be connected. Carry on "
                          "without it."}
    why = (inp.why or "").strip()
    card, made = services.connection_offer(org=ctx.org, app=key, why=why, asked_by=services.Asker.of(ctx))
    text = f"{card.title}: {why}" if why else card.title
    if not made:
        # The card was on Home already; this ask is added to it, and nothing new is listed.
        return {"card": text}
    return Done(
        result={"card": text},
        sentence=f"asked {ctx.org.owner_first_name} to connect {info.label}" + (f": {why}" if why else ""),
        target_type="card",
        target_id=str(card.id),
        created=True,
    )


register(
    Tool(
        name="integrations.connect",
        description="Offer the owner a card that connects an app, by its key from list",
        input=ConnectInput,
        run=connect,
        kind="makes",
        your_work="record",
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "integrations.connect": {
        "integration": "The app, by name, as integrations.list shows it",
        "why": "One line to the owner",
    },
})
