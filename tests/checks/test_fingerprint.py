"""The fingerprint a yes is stored against: everything the owner saw when saying yes, for any tool, taken from the
whole input; the same action written another way matches, a neighbouring action doesn't."""

import pytest

from checks.fingerprint import fingerprint
from checks.types import Action


def mail(to, text="Hi Dana,\n\nThe quote is $8,400.", cc=(), subject="Quote", **more):
    return Action(tool="mail.send", input={"to": to, "cc": list(cc), "subject": subject, "text": text, **more})


DANA = ["dana@juniperdental.test"]


def test_the_same_send_again_has_the_same_fingerprint():
    assert fingerprint(mail(DANA)) == fingerprint(mail(DANA))


def test_addresses_match_in_any_case_order_and_with_display_names():
    a = mail(["dana@juniperdental.test", "greg@juniperdental.test"])
    b = mail(["Greg Hale <Greg@JuniperDental.test>", "DANA@juniperdental.test"])
    assert fingerprint(a) == fingerprint(b)


def test_spacing_that_carries_no_meaning_is_the_same_text():
    assert fingerprint(mail(DANA, "Hi Dana,\n\nThe quote is $8,400.")) == fingerprint(
        mail(DANA, "Hi Dana,  \n\n The quote is $8,400.\n"))


@pytest.mark.parametrize("other", [
    mail(DANA, "Hi Dana,\n\nThanks for the referral!"),  # another text
    mail(DANA, subject="Invoice 1042"),  # another subject
    mail(DANA, "Hi Dana,\n\nThe quote is $9,400."),  # another amount
    mail(DANA, attach=[{"attachment": "drive:abc:Quote.pdf"}]),  # an attachment added
    mail(["greg@juniperdental.test"]),  # someone else
    mail(DANA, cc=["x@y.test"]),  # a cc added
    mail(DANA, bcc=["x@y.test"]),  # a hidden copy added
    mail(DANA, threadId="7c41e2d0:19a2"),  # into another thread
], ids=["text", "subject", "amount", "attachment", "recipient", "cc", "bcc", "thread"])
def test_a_different_email_to_the_same_person_has_another_fingerprint(other):
    assert fingerprint(mail(DANA)) != fingerprint(other)


def test_a_change_to_another_thing_has_another_fingerprint():
    a = Action(tool="files.rename", input={"id": "f1", "name": "A"})
    b = Action(tool="files.rename", input={"id": "f2", "name": "A"})
    assert fingerprint(a) != fingerprint(b)


def test_every_changed_value_counts_for_any_tool():
    # No list of fields per tool: a value the owner never saw is another action, whichever tool and field.
    a = Action(tool="contacts.update", input={"contactId": "c1", "phone": "503-555-0101"})
    b = Action(tool="contacts.update", input={"contactId": "c1", "phone": "503-555-0199"})
    c = Action(tool="some.future_tool", input={"thingId": "t1", "colour": "red"})
    d = Action(tool="some.future_tool", input={"thingId": "t1", "colour": "blue"})
    assert fingerprint(a) != fingerprint(b) and fingerprint(c) != fingerprint(d)


def test_cells_and_edits_count_value_by_value():
    def cells(v):
        return Action(tool="files.update_cells", input={"id": "s1", "range": "A1", "values": [[v]]})

    def edits(r):
        return Action(tool="docs.edit", input={"docId": "d1", "edits": [{"find": "$8,400", "replace": r}]})

    assert fingerprint(cells("$4,800")) != fingerprint(cells("$4,900"))
    assert fingerprint(edits("$9,000")) != fingerprint(edits("$9,500"))


def test_what_it_replaces_is_part_of_what_the_owner_said_yes_to():
    a = Action(tool="contacts.update", input={"contactId": "c1", "phone": "1"}, replaces={"name": "Rosa", "phone": "2"})
    b = Action(tool="contacts.update", input={"contactId": "c1", "phone": "1"}, replaces={"name": "Rosa", "phone": "3"})
    assert fingerprint(a) != fingerprint(b)


def test_the_agents_own_why_is_not_part_of_the_action():
    a = Action(tool="companies.context", input={"companyId": "k1", "text": "Pays late.", "why": "Rosa said so"})
    b = Action(tool="companies.context", input={"companyId": "k1", "text": "Pays late.", "why": "from her mail"})
    assert fingerprint(a) == fingerprint(b)


def test_another_kind_of_action_on_the_same_thing_has_another_fingerprint():
    rename = Action(tool="files.rename", input={"id": "f1", "name": "A"})
    move = Action(tool="files.move", input={"ids": ["f1"], "folderId": "x"})
    assert fingerprint(rename) != fingerprint(move)


def test_a_move_elsewhere_has_another_fingerprint():
    a = Action(tool="files.move", input={"ids": ["f1"], "folderId": "x"})
    b = Action(tool="files.move", input={"ids": ["f1"], "folderId": "y"})
    assert fingerprint(a) != fingerprint(b)


def test_the_validated_input_is_what_counts_when_given():
    # The pipeline passes the input as the tool validated it: an id in capitals is the same id.
    raw = Action(tool="contacts.update", input={"contactId": "8D2E6B14-3A7C-4F09-B5D1-6E0A9C3F7B22", "name": "D"})
    valid = {"contactId": "8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22", "name": "D"}
    same = Action(tool="contacts.update", input=valid)
    assert fingerprint(raw, valid) == fingerprint(same, valid) == fingerprint(same)
