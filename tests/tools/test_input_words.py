"""What a model reads about each input: every input the spec says what it is carries those words in the schema the
model is given (group tools through find_tools, agent tools in a turn's tool list and over MCP, all made by
Tool.input_schema), and no registered input goes without a description."""

import json

import pytest

from routines import services as routine_services
from tests.spec import spec_input_words
from tools import registry
from tools.catalog import find_tools


def _all_tools() -> dict[str, registry.Tool]:
    return {**registry.TOOLS, **registry.AGENT_TOOLS}


def _at(schema: dict, path: str) -> list[dict]:
    """The properties at a dotted path in a JSON Schema, through $ref, array items and anyOf's branches."""
    defs = schema.get("$defs", {})

    def resolved(node: dict) -> list[dict]:
        if "$ref" in node:
            return resolved(defs[node["$ref"].rsplit("/", 1)[-1]])
        if "anyOf" in node:
            return [r for branch in node["anyOf"] for r in resolved(branch)]
        if "items" in node and isinstance(node["items"], dict):
            return [node, *resolved(node["items"])]
        return [node]

    nodes = [schema]
    for part in path.split("."):
        nodes = [prop for node in nodes for holder in resolved(node)
                 if (prop := holder.get("properties", {}).get(part)) is not None]
    return nodes


def test_every_input_the_spec_describes_carries_its_words():
    described = spec_input_words()
    tools = _all_tools()
    checked, wrong = 0, []
    for tool_name, inputs in described.items():
        if tool_name not in tools:
            continue  # a tool this Roadstar doesn't have (the spec's catalog test names those)
        schema = tools[tool_name].input_schema()
        for path, words in inputs.items():
            found = _at(schema, path)
            checked += 1
            if not found:
                wrong.append(f"{tool_name}.{path}: not in the registered schema")
            elif found[0].get("description") != words:
                wrong.append(f"{tool_name}.{path}: {found[0].get('description')!r}, the spec says {words!r}")
    assert wrong == []
    assert checked >= 90  # the spec's pages describe 94 inputs: a parser that found none would pass vacuously


def test_no_registered_input_lacks_a_description():
    assert registry.undescribed() == []


def test_the_nested_inputs_a_model_writes_are_described_too():
    when = registry.AGENT_TOOLS["triggers"].input_schema()["properties"]["when"]
    check = when["properties"]["check"]
    unsaid = [name for name, prop in [*when["properties"].items(), *check["properties"].items()]
              if not prop.get("description")]
    assert unsaid == []


def test_triggers_when_is_typed_as_its_kinds_with_their_limits():
    when = registry.AGENT_TOOLS["triggers"].input_schema()["properties"]["when"]
    assert set(when["properties"]) == {"keys", "ask", "at", "due", "check"}
    assert (when["additionalProperties"], when["minProperties"]) == (False, 1)
    keys = when["properties"]["keys"]
    assert (keys["type"], keys["items"]["type"], keys["maxItems"]) == ("array", "string", routine_services.MAX_KEYS)
    assert "kind:form.submitted" in keys["description"]
    every = when["properties"]["check"]["properties"]["everyMinutes"]
    assert (every["type"], every["minimum"]) == ("integer", 15)
    assert set(when["properties"]["check"]["required"]) == {"tool", "action", "everyMinutes"}


@pytest.mark.django_db
def test_what_the_schema_says_of_when_is_what_triggers_holds_it_to(org):
    # The schema's limits are the service's: everyMinutes 14 is refused naming the part, 15 passes that part.
    from core.errors import ToolError

    with pytest.raises(ToolError) as refused:
        routine_services._validate_when(org=org, when={"check": {"tool": "books", "action": "invoices",
                                                                  "everyMinutes": 14}})
    assert "when.check.everyMinutes: 15 or more" in refused.value.message
    clean = routine_services._validate_when(org=org, when={"check": {"tool": "books", "action": "invoices",
                                                                      "everyMinutes": 15}})
    assert clean["check"]["everyMinutes"] == 15
    with pytest.raises(ToolError) as unknown:
        routine_services._validate_when(org=org, when={"cron": "0 9 * * 1"})
    assert "when.cron" in unknown.value.message


def test_find_tools_sends_each_input_with_what_it_is(ctx):
    found = {f["name"]: f["input"] for f in find_tools(ctx, ["mail.send", "files.save", "docs.write"])["found"]}
    assert found["mail.send"]["properties"]["threadId"]["description"] == "To reply in a thread: its id from search"
    assert found["files.save"]["properties"]["over"]["description"].startswith("The Drive file it was opened from")
    assert found["docs.write"]["properties"]["lines"]["description"] == (
        "what changed, one plain sentence each, for the owner")


def test_describing_an_input_a_tool_does_not_take_is_refused():
    with pytest.raises(registry.RegistryError, match="takes no input"):
        registry.describe_inputs({"mail.send": {"threadID": "a typo"}})
    with pytest.raises(registry.RegistryError, match="no tool"):
        registry.describe_inputs({"mail.sned": {"to": "a typo"}})


def test_descriptions_come_first_and_leave_the_schema_valid_json():
    schema = registry.TOOLS["contacts.find"].input_schema()
    assert next(iter(schema["properties"]["email"])) == "description"
    json.dumps(schema)


@pytest.mark.django_db
def test_an_outside_app_reads_every_input_with_what_it_is_over_mcp(org):
    from mcp_server.server import outside_tools

    listed = outside_tools(org=org)
    unsaid = [f"{tool.name}.{name}" for tool in listed
              for name, prop in tool.input_schema.get("properties", {}).items() if not prop.get("description")]
    assert listed and unsaid == []
    use = next(t for t in listed if t.name == "use_tool")
    assert use.input_schema["properties"]["input"]["description"] == "The tool's input, as find_tools gave it"


def test_the_help_pages_catalog_tools_are_the_registered_ones():
    from tools.catalog import agent_tool_specs

    specs = {s["name"]: s for s in agent_tool_specs()}
    assert specs["find_tools"] == registry.AGENT_TOOLS["find_tools"].spec()
    assert specs["use_tool"]["parameters"]["properties"]["name"]["description"] == (
        'The tool\'s name, such as "mail.send"')
