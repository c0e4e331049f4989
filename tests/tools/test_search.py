"""The search group's declarations match the spec (tools.json and tools/search.md) word for word, and every limit is
bad_input naming the field."""

import pytest

from tests.spec import spec_page, spec_tool_names, spec_tools
from tools import registry
from tools.catalog import find_tools
from tools.pipeline import use_tool


def search_spec():
    return {n: t for n, t in spec_tools().items() if t["group"] == "search"}


def test_the_group_has_the_spec_tools():
    assert sorted(t.name for t in registry.tools_of("search")) == sorted(search_spec())


@pytest.mark.parametrize("name", sorted(spec_tool_names(lambda t: t["group"] == "search"), key=str))
def test_declaration_matches_spec(name):
    tool, spec = registry.get_tool(name).describe(), search_spec()[name]
    assert (tool["description"], tool["owners_yes"], tool["your_work"]) == (
        spec["does"], spec["owners_yes"], spec["your_work"]
    )


@pytest.mark.parametrize("name", sorted(spec_tool_names(lambda t: t["group"] == "search"), key=str))
def test_inputs_match_spec(name):
    schema = registry.get_tool(name).input_schema()
    spec = search_spec()[name]
    assert (set(schema["properties"]), set(schema.get("required", []))) == (
        {i["name"] for i in spec["inputs"]}, {i["name"] for i in spec["inputs"] if i["required"]}
    )


def how_to_of_the_page():
    block = spec_page("tools/search.md").split("## How to use it", 1)[1].split("## Tools", 1)[0]
    return " ".join(line[2:] for line in block.splitlines() if line.startswith("> ")).strip()


def test_the_how_to_is_the_specs_word_for_word(ctx):
    assert registry.GROUPS["search"].how_to == how_to_of_the_page()
    # A workspace with no account in search gets the page's how-to itself.
    assert find_tools(ctx, ["search.search"])["howTo"]["search"] == how_to_of_the_page()


@pytest.mark.django_db
def test_the_how_to_names_the_accounts_in_search_and_since_when(ctx, org, tmp_path, settings):
    from integrations.services import connection_create_local, connection_search_set
    from search import sync

    settings.ROADSTAR_MAIL_ROOT = tmp_path / "mail"
    box = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail", "calendar"])
    copy = connection_search_set(org=org, account_key=box.account_key, on=True)
    assert "still being copied" in find_tools(ctx, ["search.read"])["howTo"]["search"]
    sync.copy_run(box)
    how_to = find_tools(ctx, ["search.read"])["howTo"]["search"]
    assert (f"In search: the workspace's docs, tables, contacts and projects; sam@fernhill.test's mail and meetings "
            f"since {copy.on_since:%Y-%m-%d}.") in how_to


def bad_input_on(out: dict, field: str) -> bool:
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


@pytest.mark.django_db
@pytest.mark.parametrize("tool, inp, field", [
    ("search.search", {"query": "q" * 301}, "query"),
    ("search.search", {"from": ["f"] * 11}, "from"),
    ("search.search", {"from": ["f" * 201]}, "from[0]"),
    ("search.search", {"from": [""]}, "from[0]"),
    ("search.search", {"to": ["t"] * 11}, "to"),
    ("search.search", {"to": ["t" * 201]}, "to[0]"),
    ("search.search", {"with": ["w"] * 11}, "with"),
    ("search.search", {"with": [""]}, "with[0]"),
    ("search.search", {"after": "a" * 41}, "after"),
    ("search.search", {"after": "not a date"}, "after"),
    ("search.search", {"before": "2026-13-01"}, "before"),
    ("search.search", {"before": "b" * 41}, "before"),
    ("search.search", {"type": ["email"] * 9}, "type"),
    ("search.search", {"type": ["invoice"]}, "type[0]"),
    ("search.search", {"in": ["x"] * 6}, "in"),
    ("search.search", {"in": ["x" * 201]}, "in[0]"),
    ("search.search", {"has": ["attachment", "star", "star"]}, "has"),
    ("search.search", {"has": ["label"]}, "has[0]"),
    ("search.search", {"dir": "both"}, "dir"),
    ("search.search", {"bulk": "yes"}, "bulk"),
    ("search.search", {"waiting": "you"}, "waiting"),
    ("search.search", {"thread": "t" * 201}, "thread"),
    ("search.search", {"sort": "best"}, "sort"),
    ("search.search", {"limit": 0}, "limit"),
    ("search.search", {"limit": 51}, "limit"),
    ("search.search", {"cursor": "c" * 401}, "cursor"),
    ("search.search", {"cursor": "not-a-cursor"}, "cursor"),
    ("search.search", {"query": "!!!"}, "query"),
    ("search.search", {"format": "json"}, "format"),
    ("search.read", {"id": "ab"}, "id"),
    ("search.read", {"id": "i" * 501}, "id"),
    ("search.read", {"id": "doc:x", "offset": -1}, "offset"),
    ("search.read", {}, "id"),
])
def test_limits_are_bad_input_naming_the_field(ctx, tool, inp, field):
    out = use_tool(ctx, tool, inp)
    assert bad_input_on(out, field), out


@pytest.mark.django_db
def test_within_the_limits_is_taken(ctx):
    out = use_tool(ctx, "search.search", {
        "query": "q" * 300, "from": ["f" * 200] * 10, "to": ["t"] * 10, "with": ["w"] * 10, "after": "2026-01-01",
        "before": "2026-12-31", "type": ["email", "doc", "sheet", "slides", "pdf", "image", "file", "meeting"],
        "in": ["x"] * 5, "has": ["attachment", "star"], "dir": "sent", "bulk": False, "waiting": "me",
        "thread": "t" * 200, "sort": "oldest", "limit": 50,
    })
    assert out["total"] == 0 and out["results"] == [] and out["next"] is None
