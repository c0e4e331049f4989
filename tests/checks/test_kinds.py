"""Which actions are checked, pinned to the spec's tool list (shared/spec/tools.json, "Owner's yes")."""

import pytest

from checks.kinds import action_kind, is_checked
from tests.spec import spec_tool_names, spec_tools


@pytest.mark.parametrize("name", spec_tool_names(lambda t: t["owners_yes"] in ("Checked", "No")))
def test_every_spec_tool_is_checked_exactly_when_the_spec_says(name):
    assert is_checked(name, {}) == (spec_tools()[name]["owners_yes"] == "Checked")


@pytest.mark.parametrize("tool,given,checked", [
    ("docs.write", {"docId": "d1", "title": "t", "text": "x"}, True),
    ("docs.write", {"projectId": "p1", "title": "t", "text": "x"}, False),
    ("companies.open", {"companyId": "c1", "done": "item-1"}, True),
    ("companies.open", {"companyId": "c1", "add": {"kind": "you", "text": "call"}}, False),
    ("files.save", {"workspace": "a.xlsx", "over": "f1"}, True),
    ("files.save", {"workspace": "a.xlsx"}, False),
    ("triggers", {"action": "change", "id": 12}, True),
    ("triggers", {"action": "add", "name": "x"}, False),
    ("change_agent", {"agent": "Bookkeeper", "job": "x"}, True),
])
def test_the_depends_tools_are_checked_by_their_input(tool, given, checked):
    assert is_checked(tool, given) == checked


def test_the_tools_that_carry_a_note_for_the_check_are_checked():
    assert all(action_kind(t, {}) == "costs" for t in ("pages.request", "tables.build", "tables.research_rows"))


def test_a_tool_the_check_does_not_know_is_checked():
    assert is_checked("books.void_invoice", {"id": "1"})
