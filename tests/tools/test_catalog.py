"""browse_tools, find_tools and use_tool as a thread meets them."""

import pytest

from tools import registry
from tools.catalog import browse_tools, find_tools


def test_browse_lists_each_groups_tools_with_what_they_do(ctx):
    result = browse_tools(ctx, ["contacts"])
    assert result["contacts"]["contacts.find"] == registry.TOOLS["contacts.find"].description


def test_browse_shows_three_groups_and_names_the_rest_not_shown(ctx):
    result = browse_tools(ctx, ["contacts", "companies", "projects", "docs"])
    assert (sorted(k for k in result if k != "not_shown"), result["not_shown"]) == (
        ["companies", "contacts", "projects"],
        ["docs"],
    )


def test_browse_answers_a_wrong_group_with_the_groups_there_are(ctx):
    result = browse_tools(ctx, ["contact"])
    assert result["no_such_group"]["names"] == ["contact"] and "contacts" in result["no_such_group"]["groups"]


def test_find_returns_inputs_and_each_groups_how_to_once(ctx):
    result = find_tools(ctx, ["contacts.find", "contacts.create", "companies.create"])
    assert [f["name"] for f in result["found"]] == ["contacts.find", "contacts.create", "companies.create"]
    assert set(result["howTo"]) == {"contacts", "companies"}
    assert result["found"][0]["input"]["properties"]["email"]["type"] == "string"


def test_find_loads_at_most_eight_and_names_the_rest(ctx):
    names = [t.name for t in list(registry.TOOLS.values())[:10]]
    result = find_tools(ctx, names)
    assert (len(result["found"]), result["not_loaded"]) == (8, names[8:])


def test_found_tools_stay_loaded_in_the_thread(ctx):
    find_tools(ctx, ["contacts.find"])
    find_tools(ctx, ["companies.read"])
    assert ctx.loaded == {"contacts.find", "companies.read"}


def test_find_answers_a_wrong_name_with_that_groups_tools(ctx):
    result = find_tools(ctx, ["contacts.delete"])
    assert "contacts.find" in result["no_such_tool"]["contacts.delete"]


def test_use_tool_with_an_unknown_name_lists_the_groups_tools(use):
    result = use("contacts.delete")
    assert result["error"] == "bad_input" and "contacts.find" in result["message"]


def test_use_tool_bad_input_names_the_nested_field(use):
    result = use("companies.create", name="Juniper Dental", people=[{"contactId": "x", "role": ""}])
    assert result["error"] == "bad_input" and "people[0].contactId" in result["message"]


def test_use_tool_refuses_an_input_the_tool_does_not_take(use):
    result = use("contacts.create", name="Dana", nickname="D")
    assert result["error"] == "bad_input" and result["message"].startswith("nickname:")


def test_use_tool_never_returns_a_traceback_for_a_wrong_type(use):
    result = use("contacts.list", offset="ten")
    assert result["error"] == "bad_input" and "offset" in result["message"] and "Traceback" not in result["message"]


def test_use_tool_returns_not_found_as_an_error_envelope(use):
    result = use("contacts.read", contactId="8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22")
    assert set(result) == {"error", "message"} and result["error"] == "not_found"


# --- every group the spec has, built or not ---------------------------------------------------------------------


def _spec_group_lines() -> list[str]:
    from tests.spec import spec_page

    return [line[4:].strip() for line in spec_page("tools/catalog.md").splitlines() if line.startswith("> - ")]


def test_the_spec_groups_are_the_catalog_pages_groups_in_its_order():
    assert [f"{name}: {summary}" for name, summary in registry.SPEC_GROUPS.items()] == [
        line.rsplit(" (", 1)[0] for line in _spec_group_lines()
    ]


def test_browse_lists_every_spec_group_counted_when_built_and_not_available_when_not():
    from tools.catalog import browse_description

    ours = [line[2:] for line in browse_description().splitlines()[1:]]
    spec = _spec_group_lines()
    assert [line.split(":", 1)[0] for line in ours][: len(spec)] == [line.split(":", 1)[0] for line in spec]
    for mine, theirs in zip(ours, spec, strict=False):
        name = mine.split(":", 1)[0]
        if name in registry.GROUPS:
            assert mine == theirs, "a built group's line is the spec's, word for word, with its count"
        else:
            assert mine == f"{theirs.rsplit(' (', 1)[0]} (not available yet)", "an absent group is never counted"


@pytest.fixture
def absent_group(monkeypatch):
    """A spec group taken out of the registry for one test, as in a Roadstar that doesn't have it."""
    name = "web"
    tools = [t.name for t in registry.tools_of(name)]
    monkeypatch.setattr(registry, "GROUPS", registry.GROUPS.without(name))
    monkeypatch.setattr(registry, "TOOLS", registry.TOOLS.without(*tools))
    return name


def test_browsing_an_absent_group_says_it_is_not_available(ctx, absent_group):
    result = browse_tools(ctx, [absent_group, "contacts"])
    assert "contacts" in result and "no_such_group" not in result
    assert "isn't available in this Roadstar" in result["not_available"][absent_group]


def test_finding_a_tool_of_an_absent_group_says_so(ctx, absent_group):
    result = find_tools(ctx, [f"{absent_group}.search"])
    assert result["found"] == [] and "isn't available" in result["no_such_tool"][f"{absent_group}.search"][0]


def test_using_a_tool_of_an_absent_group_is_unsupported_with_words(use, absent_group):
    result = use(f"{absent_group}.search", query="mail")
    assert result["error"] == "unsupported" and f"The {absent_group} group" in result["message"]


@pytest.mark.django_db
def test_browse_lists_every_group_of_a_workspace_saying_which_are_off_and_what_turns_them_on(ctx):
    from research import services as research_services
    from tools.catalog import browse_description

    lines = browse_description(ctx.org).splitlines()[1:]
    assert [line[2:].split(":", 1)[0] for line in lines] == list(registry.SPEC_GROUPS)
    assert "- newsfeed: today's news (1; off here: the owner turns it on, on the Newsfeed page)" in lines
    research_services.research_settings_set(org=ctx.org, newsfeed=True)
    assert "- newsfeed: today's news (1)" in browse_description(ctx.org).splitlines()


@pytest.mark.django_db
def test_an_off_groups_tools_say_it_is_off_and_use_tool_refuses_them_saying_why(ctx, use):
    browsed = browse_tools(ctx, ["newsfeed"])
    assert browsed["newsfeed"] == {"newsfeed.read": registry.TOOLS["newsfeed.read"].description
                                   + " (off here: the owner turns it on, on the Newsfeed page)"}
    result = use("newsfeed.read")
    assert result["error"] == "unsupported" and "only the owner can turn them on" in result["message"]
