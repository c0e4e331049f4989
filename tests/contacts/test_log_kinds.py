"""The log's kinds as tools give them are the spec's list (spec tools/contacts.md's log kinds): the finer kinds
Roadstar keeps map onto it, and every kind the model knows is one the spec names."""

import re

import pytest

from contacts.shapes import SPEC_LOG_KIND, log_entry_shape
from records.models import LogEntry
from tests.factories import ContactFactory
from tests.spec import spec_page

pytestmark = pytest.mark.django_db


def spec_kinds() -> set[str]:
    page = spec_page("tools/contacts.md")
    found = re.search(r'kind: ("removed"[^;]*);', page)
    assert found, "the log's kinds are in the spec's contacts page"
    return set(re.findall(r'"(\w+)"', found.group(1)))


def test_every_kind_the_log_holds_reads_as_one_the_spec_lists():
    kinds = spec_kinds()
    for kind in LogEntry.Kind.values:
        assert SPEC_LOG_KIND.get(kind, kind) in kinds, kind
    assert set(SPEC_LOG_KIND.values()) <= kinds


def test_a_link_reads_as_context_keeping_what_changed(org):
    contact = ContactFactory(organization=org)
    entry = LogEntry.objects.create(organization=org, contact=contact, by_kind="agent", by_id="a-1", kind="linked",
                                    text="linked to Juniper Dental")
    shape = log_entry_shape(entry)
    assert (shape["kind"], shape["text"]) == ("context", "linked to Juniper Dental")
