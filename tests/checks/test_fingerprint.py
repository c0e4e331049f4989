"""The fingerprint a yes is stored against: the same action again matches, another action doesn't."""

from checks.fingerprint import fingerprint
from checks.types import Action


def mail(to, text="Hi Dana", cc=()):
    return Action(tool="mail.send", input={"to": to, "cc": list(cc), "subject": "Quote", "text": text})


def test_the_same_send_reworded_has_the_same_fingerprint():
    assert fingerprint(mail(["dana@juniperdental.test"], "Hi Dana,")) == fingerprint(mail(["Dana@JuniperDental.test"], "Hello Dana"))


def test_a_send_to_someone_else_has_another_fingerprint():
    assert fingerprint(mail(["dana@juniperdental.test"])) != fingerprint(mail(["greg@juniperdental.test"]))


def test_a_send_with_an_added_cc_has_another_fingerprint():
    assert fingerprint(mail(["dana@juniperdental.test"])) != fingerprint(mail(["dana@juniperdental.test"], cc=["x@y.test"]))


def test_a_change_to_another_thing_has_another_fingerprint():
    a = Action(tool="files.rename", input={"id": "f1", "name": "A"})
    b = Action(tool="files.rename", input={"id": "f2", "name": "A"})
    assert fingerprint(a) != fingerprint(b)


def test_another_kind_of_action_on_the_same_thing_has_another_fingerprint():
    rename = Action(tool="files.rename", input={"id": "f1", "name": "A"})
    move = Action(tool="files.move", input={"ids": ["f1"], "folderId": "x"})
    assert fingerprint(rename) != fingerprint(move)


def test_a_move_elsewhere_has_another_fingerprint():
    a = Action(tool="files.move", input={"ids": ["f1"], "folderId": "x"})
    b = Action(tool="files.move", input={"ids": ["f1"], "folderId": "y"})
    assert fingerprint(a) != fingerprint(b)
