"""The registry against the spec: names, owner's-yes kinds, Home listings and how-tos, word for word."""

import re

import pytest

from tests.spec import spec_page, spec_tool_names, spec_tools
from tools import registry
from tools.registry import Group, RegistryError, Tool, ToolInput

# The groups this build has, each complete: every tool its spec page lists.
BUILT_GROUPS = (
    "contacts", "companies", "projects", "docs", "integrations", "mail", "files", "calendar", "books", "filings",
    "newsfeed", "tables", "pages", "comments", "templates", "help", "web", "workspace",
)


def _spec_names_of(group):
    return sorted(name for name, t in spec_tools().items() if t["group"] == group)


@pytest.mark.parametrize("group", BUILT_GROUPS)
def test_every_spec_tool_of_a_built_group_is_registered(group):
    assert sorted(t.name for t in registry.tools_of(group)) == _spec_names_of(group)


def test_no_tool_is_registered_that_the_spec_does_not_have():
    assert set(registry.TOOLS) - set(spec_tools()) == set()


@pytest.mark.parametrize("name", sorted(spec_tool_names(lambda t: t["group"] in BUILT_GROUPS), key=str))
def test_owners_yes_and_home_listing_match_the_spec(name):
    tool, spec = registry.TOOLS[name], spec_tools()[name]
    assert (tool.owners_yes, tool.describe()["your_work"]) == (spec["owners_yes"], spec["your_work"])


@pytest.mark.parametrize("name", sorted(spec_tool_names(lambda t: t["group"] in BUILT_GROUPS), key=str))
def test_description_is_the_spec_line_word_for_word(name):
    assert registry.TOOLS[name].description == spec_tools()[name]["does"]


@pytest.mark.parametrize("name", sorted(spec_tool_names(lambda t: t["group"] in BUILT_GROUPS), key=str))
def test_every_spec_input_is_an_input_of_the_tool(name):
    schema = registry.TOOLS[name].input_schema()
    top_level = {i["name"].split(".")[0].split("[")[0] for i in spec_tools()[name]["inputs"]}
    assert top_level <= set(schema.get("properties", {}))


@pytest.mark.parametrize("name", sorted(spec_tool_names(lambda t: t["group"] in BUILT_GROUPS), key=str))
def test_required_inputs_match_the_spec(name):
    schema = registry.TOOLS[name].input_schema()
    required = {i["name"] for i in spec_tools()[name]["inputs"] if i["required"] and "." not in i["name"]}
    assert required == set(schema.get("required", []))


def _how_to_of(page: str) -> str:
    block = page.split("## How to use it", 1)[1].split("## Tools", 1)[0]
    quoted = [line[2:] for line in block.splitlines() if line.startswith("> ")]
    return " ".join(quoted).strip()


def _as_exported(text: str) -> str:
    # The spec's pages came from an export that dropped everything in angle brackets (spec/README.md, "Where the
    # source lost text"); a how-to that restores those parts (docs: its MDX components, roadstar:contact/<id>)
    # is compared as the export would have left it.
    return re.sub(r"\s+", " ", re.sub(r"<[^<>]*>", "", text)).strip()


@pytest.mark.parametrize("group", BUILT_GROUPS)
def test_group_how_to_is_the_spec_text_word_for_word(group):
    assert _as_exported(registry.GROUPS[group].how_to) == _how_to_of(spec_page(f"tools/{group}.md"))


@pytest.mark.parametrize("group", BUILT_GROUPS)
def test_group_line_in_browse_description_is_the_specs(group):
    from tools.catalog import browse_description

    spec_lines = [line.strip() for line in spec_page("tools/catalog.md").splitlines() if line.startswith("> - ")]
    ours = [line for line in browse_description().splitlines() if line.startswith(f"- {group}:")]
    assert ours and f"> {ours[0]}" in spec_lines


class _Input(ToolInput):
    pass


def _tool(**overrides):
    fields = dict(name="contacts.example", description="An example", input=_Input, run=lambda ctx, inp: None,
                  kind="reads")
    fields.update(overrides)
    return Tool(**fields)


def test_registering_a_name_twice_is_refused():
    with pytest.raises(RegistryError, match="twice"):
        registry.register(_tool(name="contacts.find"))


def test_a_tool_of_an_unknown_group_is_refused():
    with pytest.raises(RegistryError, match="not registered"):
        registry.register(_tool(name="nogroup.thing"))


def test_a_group_registered_twice_is_refused():
    with pytest.raises(RegistryError, match="twice"):
        registry.register_group(Group(name="contacts", summary="", how_to=""))


def test_a_reading_tool_that_lists_on_home_is_refused():
    with pytest.raises(RegistryError, match="only reads"):
        registry.register(_tool(your_work="home"))


def test_a_changing_tool_without_a_listing_is_refused():
    with pytest.raises(RegistryError, match="must say how"):
        registry.register(_tool(kind="changes"))


def test_a_tool_listed_with_undo_must_declare_one():
    with pytest.raises(RegistryError, match="no undo"):
        registry.register(_tool(kind="changes", your_work="home_undo"))


def test_a_tool_name_must_be_group_dot_action():
    with pytest.raises(ValueError, match="group.action"):
        _tool(name="noaction")


def test_tools_command_prints_every_tool_as_json(capsys):
    import json

    from django.core.management import call_command

    call_command("tools", "--json")
    listed = json.loads(capsys.readouterr().out)
    assert {t["name"] for t in listed} == set(registry.TOOLS)
    assert set(listed[0]) == {"name", "group", "description", "owners_yes", "your_work", "input_schema"}


def test_the_tools_whose_result_may_be_null_are_the_ones_the_spec_says_so():
    """A tool's null result reaches the caller as null only where the spec's return allows it ("…, or null");
    every other tool that returns nothing answers `{"done": true}` (spec/how-it-works/tools.md)."""
    from tests.spec import SPEC

    if not SPEC.exists():
        pytest.skip(f"the spec is not at {SPEC}")
    says_null = {name for name, t in spec_tools().items() if re.search(r"\bor null$", t["does"])}
    assert says_null == {"contacts.find"}
    assert {name for name, tool in registry.TOOLS.items() if tool.nullable} == says_null & set(registry.TOOLS)


def test_a_tool_naming_an_error_the_spec_does_not_have_is_refused():
    with pytest.raises(RegistryError, match="errors the spec doesn't have"):
        registry.register(_tool(name="contacts.example_errors", errors=("bad_input", "oops")))
