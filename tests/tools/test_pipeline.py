"""tools.pipeline writes a checked call's decision with the call: a go that spent no yes goes out with the call's own
first statement (its transaction holds it: core.rows.holding_writes), and it is kept even when the call fails."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from checks.models import CheckDecision
from core import limits
from core.models import Change
from records.models import Contact, LogEntry
from tests.factories import ContactFactory


@pytest.fixture
def dana(org):
    return ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])


def test_a_checked_change_that_goes_writes_its_decision_log_entry_and_change_with_it(owner_says, use, dana):
    asked = owner_says("Set Dana Whitfield's job title to Office manager.")
    with CaptureQueriesContext(connection) as queries:
        result = use("contacts.update", _ctx=asked, contactId=str(dana.id), jobTitle="Office manager")
    assert result["jobTitle"] == "Office manager", result
    decision = CheckDecision.objects.get(organization=dana.organization)
    assert (decision.tool, decision.outcome, decision.input) == (
        "contacts.update", "go", {"contactId": str(dana.id), "jobTitle": "Office manager"})
    change = Change.objects.get(organization=dana.organization, tool="contacts.update")
    entry = LogEntry.objects.get(contact=dana, kind=LogEntry.Kind.UPDATED)
    assert entry.change_id == change.id and entry.after == "Office manager"
    if connection.vendor == "postgresql":
        ran = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
        # No round trip of their own: the decision goes with the contact's update, the log entry and the change
        # together as the call's transaction ends (in a turn, with the call's result).
        assert not any(q.startswith('INSERT INTO "checks_checkdecision"') for q in ran), ran
        update = next(q for q in ran if 'UPDATE "contacts_contact"' in q)
        assert update.startswith('WITH held0 AS (INSERT INTO "checks_checkdecision"')
        assert ran[-1].startswith('WITH held0 AS (INSERT INTO "contacts_logentry"') and "roadstar_change" in ran[-1]


def test_a_call_that_fails_after_its_check_went_keeps_the_decision_and_nothing_else(use, org, dana):
    # Dana keeps as many named values as a contact may: one more, found only once her row is read again under its
    # lock, fails the update inside its transaction, after the check let it go.
    Contact.objects.filter(id=dana.id).update(fields={f"f{i}": "x" for i in range(limits.CONTACT_FIELDS)})
    result = use("contacts.update", contactId=str(dana.id), fields={"one_more": "y"}, jobTitle="Office manager")
    assert result["error"] == "bad_input", result
    decisions = list(CheckDecision.objects.filter(organization=org).values_list("tool", "outcome"))
    assert decisions == [("contacts.update", "go")]  # written again by itself after the rollback
    dana.refresh_from_db()
    assert dana.job_title != "Office manager" and "one_more" not in dana.fields
    assert not Change.objects.filter(organization=org, tool="contacts.update").exists()
    assert not LogEntry.objects.filter(contact=dana, kind=LogEntry.Kind.UPDATED).exists()
