"""browse_tools, find_tools and use_tool as a thread meets them."""

import pytest

from tools import registry
from tools.catalog import browse_tools, find_tools


@pytest.fixture(autouse=True)
def loaded():
    registry.load_all()


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
