from roadstar.models import Change
from roadstar.services import change_undo


def test_create_then_context_then_undo(use, ctx):
    made = use("contacts.create", name="Dana Whitfield", emails=["dana@juniperdental.test"])
    assert made["name"] == "Dana Whitfield"
    set_ = use("contacts.context", contactId=made["id"], text="Prefers a call.", why="She said so")
    assert set_["contact"]["context"] == "Prefers a call."
    change = Change.objects.get(tool="contacts.context")
    change_undo(org=ctx.org, change_id=change.id, actor=ctx.actor)
    from contacts.models import Contact
    assert Contact.objects.get(id=made["id"]).context is None


def test_bad_input_names_field(use):
    out = use("contacts.create", name="")
    assert out["error"] == "bad_input" and out["message"].startswith("name:")
