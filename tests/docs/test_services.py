"""docs' services where the tools don't reach: the owner's notes, edits as a pure step, and racing writers."""

import pytest

from core.actors import Actor
from core.errors import ToolError
from docs import selectors, services
from docs.services import Edit
from records.models import Doc, DocNote
from tests.factories import DocFactory, ProjectFactory


@pytest.fixture
def owner(org):
    return Actor.for_user(org.owner)


@pytest.fixture
def doc(org):
    return DocFactory(organization=org, text="## Price\n\n$8,400 in total.")


def test_note_add_leaves_an_open_note_by_the_owner(org, owner, doc):
    note = services.doc_note_add(org=org, actor=owner, doc=doc, on="$8,400", note="Is this with tax?")
    assert (note.state, note.parent_id, note.on, note.note, note.by) == (
        "open", None, "$8,400", "Is this with tax?", {"kind": "user", "id": str(org.owner_id)}
    )


def test_note_add_on_another_workspaces_doc_is_not_found(org, owner, other_org):
    theirs = DocFactory(organization=other_org)
    with pytest.raises(ToolError) as error:
        services.doc_note_add(org=org, actor=owner, doc=theirs, on="", note="Mine?")
    assert (error.value.kind, DocNote.objects.count()) == ("not_found", 0)


def test_apply_edits_counts_overlapping_occurrences():
    with pytest.raises(ToolError) as error:
        services.apply_edits("aaa", [Edit("aa", "b")])
    assert "found 2 times" in error.value.message


def test_apply_edits_names_every_problem():
    with pytest.raises(ToolError) as error:
        services.apply_edits("one two", [Edit("three", "3"), Edit("four", "4")])
    assert error.value.message.count("found 0 times") == 2


def test_apply_edits_replaces_by_position_in_the_text_as_it_was():
    assert services.apply_edits("one two three", [Edit("three", "3"), Edit("one", "1 one")]) == "1 one two 3"


def test_a_writer_working_from_an_old_read_gets_changed(org, doc):
    agent = Actor.system()
    stale = Doc.objects.get(id=doc.id)
    services.doc_write(org=org, actor=agent, doc=Doc.objects.get(id=doc.id), title="Quote", text="Newer")
    with pytest.raises(ToolError) as error:
        services.doc_write(org=org, actor=agent, doc=stale, title="Quote", text="Older")
    doc.refresh_from_db()
    assert (error.value.kind, doc.text, doc.version) == ("changed", "Newer", 2)


def test_an_answer_to_a_note_answered_meanwhile_gets_changed(org, owner, doc):
    note = services.doc_note_add(org=org, actor=owner, doc=doc, on="", note="Shorter")
    stale = DocNote.objects.get(id=note.id)
    services.doc_note_answer(org=org, actor=Actor.system(), doc=doc, note_id=note.id, outcome="kept", text="No")
    with pytest.raises(ToolError) as error:
        services._answer(org=org, actor=Actor.system(), note=stale, outcome="done", text="Did")
    assert (error.value.kind, DocNote.objects.filter(parent=note).count()) == ("changed", 1)


def test_versions_are_numbered_one_past_the_last(org):
    project = ProjectFactory(organization=org)
    agent = Actor.system()
    first = services.doc_write(org=org, actor=agent, project=project, title="Report", text="One")
    doc = selectors.doc_get(org=org, doc_id=first.doc_id)
    second = services.doc_write(org=org, actor=agent, doc=doc, title="Report", text="Two")
    third = services.doc_edit(org=org, actor=agent, doc=doc, edits=[Edit("Two", "Three")])
    assert [first.number, second.number, third.number, doc.version] == [1, 2, 3, 3]
