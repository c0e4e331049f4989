"""/api/projects/ and /api/docs/: projects (list, create, read, update), docs (list, read) and the owner's notes."""

from core.actors import Actor
from docs import services as doc_services
from records.models import DocNote, Project
from tests.factories import DocFactory, ProjectFactory


def test_projects_list_the_one_changed_last_first(api, org):
    old = ProjectFactory(organization=org, name="Old")
    new = ProjectFactory(organization=org, name="New")
    Project.objects.filter(id=old.id).update(updated_at=new.updated_at.replace(year=2020))
    assert [p["name"] for p in api.get("/api/projects/").json()["items"]] == ["New", "Old"]


def test_create_makes_a_project_by_the_owner(api, org):
    response = api.post("/api/projects/", {"name": "Juniper rebrand", "description": "Logo and signage"},
                        format="json")
    body = response.json()
    assert (response.status_code, body["name"], body["createdByUserId"]) == (201, "Juniper rebrand", str(org.owner_id))


def test_a_project_name_of_only_spaces_is_bad_input(api):
    assert api.post("/api/projects/", {"name": "   "}, format="json").json()["error"] == "bad_input"


def test_update_renames_and_keeps_the_description_not_given(api, org):
    project = ProjectFactory(organization=org, name="Rebrand", description="Logo")
    body = api.patch(f"/api/projects/{project.id}/", {"name": "Juniper rebrand"}, format="json").json()
    assert (body["name"], body["description"]) == ("Juniper rebrand", "Logo")


def test_a_project_reads(api, org):
    project = ProjectFactory(organization=org, name="Rebrand")
    assert api.get(f"/api/projects/{project.id}/").json()["name"] == "Rebrand"


def test_docs_list_filters_by_project_and_title(api, org):
    rebrand = ProjectFactory(organization=org, name="Rebrand")
    DocFactory(organization=org, project=rebrand, title="Juniper proposal")
    DocFactory(organization=org, project=rebrand, title="Brand guide")
    DocFactory(organization=org, title="Juniper invoice notes")
    body = api.get("/api/docs/", {"projectId": str(rebrand.id), "title": "juniper"}).json()
    assert [d["title"] for d in body["items"]] == ["Juniper proposal"]


def test_a_doc_reads_with_its_text_and_open_notes(api, mine):
    body = api.get(f"/api/docs/{mine.doc.id}/").json()
    assert (body["text"], body["notes"]) == ("# A doc\n\nIts text.", [{"noteId": str(mine.note.id), "on": "",
                                                                       "note": "Shorter?"}])


def test_the_owner_leaves_a_note_on_a_doc(api, org, mine):
    response = api.post(f"/api/docs/{mine.doc.id}/notes/", {"on": "Its text.", "note": "Say more"}, format="json")
    note = DocNote.objects.get(id=response.json()["id"])
    assert (response.status_code, note.on, note.note, note.by, note.state) == (
        201, "Its text.", "Say more", {"kind": "user", "id": str(org.owner_id)}, "open")


def test_a_note_without_words_is_bad_input(api, mine):
    assert api.post(f"/api/docs/{mine.doc.id}/notes/", {"note": ""}, format="json").json()["error"] == "bad_input"


def test_the_notes_come_with_the_agents_answers(api, mine):
    doc_services.doc_note_answer(org=mine.org, actor=Actor.for_agent(mine.agent), doc=mine.doc,
                                 note_id=mine.note.id, outcome="kept", text="It is as short as it can be")
    body = api.get(f"/api/docs/{mine.doc.id}/notes/").json()
    note = body["items"][0]
    assert (note["state"], [a["note"] for a in note["answers"]]) == ("kept", ["It is as short as it can be"])
