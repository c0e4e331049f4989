"""Projects, docs and the workspace's activity as the spec's result types, built from rows already loaded.

Each function reads only what its selector loaded (see `docs.selectors`), so a page costs no query per row.
"""

from __future__ import annotations

from core.timefmt import iso


def _user_id(value) -> str | None:
    return str(value) if value is not None else None


def project_shape(project) -> dict:
    return {
        "id": str(project.id),
        "organizationId": str(project.organization_id),
        "name": project.name,
        "description": project.description,
        "createdByUserId": _user_id(project.created_by_user_id),
        "updatedByUserId": _user_id(project.updated_by_user_id),
        "createdAt": iso(project.created_at),
        "updatedAt": iso(project.updated_at),
    }


def doc_list_item(doc) -> dict:
    """An item of docs.list. Needs `project` loaded."""
    return {
        "id": str(doc.id),
        "title": doc.title,
        "type": doc.type,
        "projectId": str(doc.project_id),
        "projectName": doc.project.name,
        "status": doc.status,
        # Docs are written by agents in their own turns, never generated in the background: there is no run.
        "generationStatus": None,
        "updatedAt": iso(doc.updated_at),
    }


def doc_read_shape(doc, open_notes) -> dict:
    return {
        "id": str(doc.id),
        "title": doc.title,
        "projectId": str(doc.project_id) if doc.project_id else None,
        "brief": doc.brief,
        "readFirst": [dict(item) for item in doc.read_first or []],
        "updates": doc.updates,
        "text": doc.text,
        "notes": [{"noteId": str(n.id), "on": n.on, "note": n.note} for n in open_notes],
    }


def version_shape(version) -> dict:
    """What docs.write and docs.edit return. A doc is the page the owner reads it on: its id is the pageId."""
    return {"pageId": str(version.doc_id), "versionId": str(version.id), "version": version.number}


# --- activity ---------------------------------------------------------------------------------------------
#
# WorkspaceActivityItem's kinds and target types name things of a research workspace (questions, theses,
# datasets); a Change's target_type names Roadstar's own records. They map so:
#
#   Change.target_type   kind                                   target                 project
#   project              "project"                              {project, id}          the project itself
#   doc                  "comment" for docs.answer; else the    {page, id}: a doc is   the doc's project
#                        doc's type when "question"/"thesis",   the page it is read
#                        else "annotation" (an agent's writing  on (docs.write returns
#                        on a page)                             its id as pageId)
#   page                 "question" (a research page)           {page, id}             —
#   table                "dataset"                              {dataset, id}          —
#   company              "company"                              {company, id}          —
#   contact              "company" (the business's relations)   {workspace, org id}: a contact has no target type
#   agent                "member" (the owner's staff)           {workspace, org id}
#   anything else        "chat": work an agent did from a       {workspace, org id}: a chat target needs a project,
#   (mail, files, …)     conversation                                                  which these don't have
#
# The title is the record's current name when it is still there, else the change's own sentence.

_KIND_BY_TARGET = {"project": "project", "page": "question", "table": "dataset", "company": "company",
                   "contact": "company", "agent": "member"}
_TARGET_TYPE_BY_TARGET = {"project": "project", "doc": "page", "page": "page", "table": "dataset",
                          "company": "company"}


def _capitalized(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _activity_kind(change, record) -> str:
    if change.target_type == "doc":
        if change.tool == "docs.answer":
            return "comment"
        doc_type = getattr(record, "type", None)
        return doc_type if doc_type in ("question", "thesis") else "annotation"
    return _KIND_BY_TARGET.get(change.target_type, "chat")


def activity_item(change, targets: dict) -> dict:
    """A WorkspaceActivityItem of one Change; `targets` holds the records of the page's changes by (type, id)."""
    record = targets.get((change.target_type, change.target_id))
    project = None
    if change.target_type == "project":
        project = record
    elif change.target_type == "doc" and record is not None:
        project = record.project
    target_type = _TARGET_TYPE_BY_TARGET.get(change.target_type) if change.target_id else None
    if target_type is None:
        target = {"type": "workspace", "id": str(change.organization_id)}
    else:
        target = {"type": target_type, "id": change.target_id}
    name = getattr(record, "name", None) or getattr(record, "title", None)
    summary = f"{change.actor_name} {change.sentence}" if change.actor_name else _capitalized(change.sentence)
    if change.undone_at is not None:
        summary += " (undone since)"
    return {
        "id": str(change.id),
        "kind": _activity_kind(change, record),
        "title": name or _capitalized(change.sentence),
        "summary": summary,
        "occurredAt": iso(change.at),
        "actorName": change.actor_name or None,
        "projectId": str(project.id) if project is not None else None,
        "projectName": project.name if project is not None else None,
        "target": target,
        # Everything in the workspace is the owner's, and every agent works for the owner: nothing is private.
        "private": False,
    }
