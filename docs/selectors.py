"""Reads of projects, docs, the owner's notes and the workspace's activity, always scoped by the workspace.

Another workspace's project, doc or note is `not_found`, never a leak. Lists page by offset, PAGE_SIZE at a
time, loading one row past the page to know whether there is a next one (no count query).
"""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from core.errors import ToolError
from core.inputs import as_uuid
from core.models import Change
from records.models import Company, Contact, Doc, DocNote, Project

PAGE_SIZE = 50


def page(queryset: QuerySet, *, offset: int, size: int = PAGE_SIZE) -> tuple[list, int | None]:
    """One page of rows and the offset of the next page, or None when this is the last."""
    rows = list(queryset[offset : offset + size + 1])
    if len(rows) > size:
        return rows[:size], offset + size
    return rows, None


# --- projects ---------------------------------------------------------------------------------------------


def project_get(*, org, project_id, field: str = "projectId") -> Project:
    project = Project.objects.filter(organization=org, id=project_id).first()
    if project is None:
        raise ToolError("not_found", f"{field}: no project with id {project_id} in this workspace.")
    return project


def project_page(*, org, offset: int = 0) -> tuple[list[Project], int | None]:
    """Every project, the one changed last first."""
    return page(Project.objects.filter(organization=org).order_by("-updated_at", "-id"), offset=offset)


# --- docs -------------------------------------------------------------------------------------------------


def doc_get(*, org, doc_id, field: str = "docId") -> Doc:
    doc = Doc.objects.filter(organization=org, id=doc_id).select_related("project").first()
    if doc is None:
        raise ToolError("not_found", f"{field}: no doc with id {doc_id} in this workspace.")
    return doc


def doc_page(*, org, project: Project | None = None, title: str | None = None, offset: int = 0):
    """Docs, the one written last first; in one project, and whose title holds `title` in any letter case."""
    docs = Doc.objects.filter(organization=org).select_related("project")
    if project is not None:
        docs = docs.filter(project=project)
    if title:
        docs = docs.filter(title__icontains=title)
    # `text` can be 100,000 characters a doc; a list never shows it.
    docs = docs.defer("text", "brief", "read_first").order_by("-updated_at", "-id")
    return page(docs, offset=offset)


def doc_open_notes(*, doc: Doc) -> list[DocNote]:
    """The owner's notes on the doc that no one has answered yet, oldest first."""
    return list(DocNote.objects.filter(doc=doc, parent__isnull=True, state=DocNote.State.OPEN).order_by("created_at"))


def doc_note_get(*, org, doc: Doc, note_id, field: str = "noteId") -> DocNote:
    """One of the owner's notes on this doc (not an answer). A note on another doc is `not_found` here."""
    note = DocNote.objects.filter(organization=org, doc=doc, parent__isnull=True, id=note_id).first()
    if note is None:
        raise ToolError("not_found", f"{field}: no note with id {note_id} on the doc \"{doc.title}\".")
    return note


def doc_notes_by_id(*, org, doc: Doc, note_ids) -> dict[str, DocNote]:
    """The owner's notes on this doc among these ids, by id, in one query."""
    notes = DocNote.objects.filter(organization=org, doc=doc, parent__isnull=True, id__in=list(note_ids))
    return {str(n.id): n for n in notes}


# --- activity ---------------------------------------------------------------------------------------------


def activity_page(*, org, offset: int = 0) -> tuple[list[Change], dict, int | None]:
    """The workspace's changes, newest first, with the records they name: `{(target_type, id): record}`.

    The records are loaded one query per kind of record, however many changes the page holds.
    """
    changes, next_offset = page(Change.objects.filter(organization=org).order_by("-at", "-id"), offset=offset)
    wanted: dict[str, set[str]] = {}
    for change in changes:
        if change.target_id:
            wanted.setdefault(change.target_type, set()).add(change.target_id)
    loaders = {
        "project": lambda ids: Project.objects.filter(organization=org, id__in=ids),
        "doc": lambda ids: Doc.objects.filter(organization=org, id__in=ids)
        .select_related("project")
        .only("id", "title", "type", "project__id", "project__name"),
        "contact": lambda ids: Contact.objects.filter(organization=org, id__in=ids).only("id", "name"),
        "company": lambda ids: Company.objects.filter(organization=org, id__in=ids).only("id", "name"),
    }
    targets = {}
    for target_type, ids in wanted.items():
        loader = loaders.get(target_type)
        valid = [i for i in ids if as_uuid(i) is not None]
        if loader is None or not valid:
            continue
        for record in loader(valid):
            targets[(target_type, str(record.pk))] = record
    return changes, targets, next_offset




def doc_notes_with_answers(*, doc: Doc) -> list[DocNote]:
    """The owner's notes on the doc, oldest first, each with the agents' answers to it (`answers_loaded`): the doc
    page and the REST API show them alike."""
    answers = DocNote.objects.order_by("created_at", "id")
    return list(
        DocNote.objects.filter(doc=doc, parent__isnull=True)
        .order_by("created_at", "id")
        .prefetch_related(Prefetch("answers", queryset=answers, to_attr="answers_loaded"))
    )
