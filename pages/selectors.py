"""Reads for the owner's pages that the record apps' own selectors don't give, always scoped by the workspace.

Each loads what a page shows in a fixed number of queries, however many rows there are; another workspace's id
finds nothing (None, or an empty result), which the views answer with a 404.
"""

from __future__ import annotations

from agents.models import Agent
from core.inputs import as_uuid
from core.models import Change, Organization
from records.models import Company, Contact, Doc, DocVersion, LogEntry, Project

LOG_PAGE = 50


# --- who did it -------------------------------------------------------------------------------------------


def agent_names(*, org: Organization) -> dict[str, str]:
    """Every agent's name by its id (as text, the way `by` and `ours` name agents)."""
    return {str(agent_id): name for agent_id, name in Agent.objects.filter(organization=org).values_list("id", "name")}


# --- logs and their Undo ----------------------------------------------------------------------------------


def company_log(*, company: Company, limit: int = LOG_PAGE) -> list[LogEntry]:
    """The company's log, newest first (contacts.selectors.contact_log is the contact's)."""
    return list(LogEntry.objects.filter(company=company).order_by("-at", "-id")[:limit])


def changes_by_id(*, org: Organization, ids) -> dict:
    """The changes behind these log entries, by id, in one query: their Undo is offered where they allow it."""
    wanted = [i for i in ids if i is not None]
    if not wanted:
        return {}
    return {c.id: c for c in Change.objects.filter(organization=org, id__in=wanted)}


def log_entry_get(*, org: Organization, entry_id, contact_id=None, company_id=None) -> LogEntry | None:
    """One entry of this contact's or company's log in this workspace, or None."""
    entry_id = as_uuid(entry_id)
    if entry_id is None:
        return None
    entries = LogEntry.objects.filter(organization=org, id=entry_id)
    if contact_id is not None:
        entries = entries.filter(contact_id=contact_id, contact__organization=org)
    elif company_id is not None:
        entries = entries.filter(company_id=company_id, company__organization=org)
    else:
        return None
    return entries.first()


# --- docs -------------------------------------------------------------------------------------------------


def project_get(*, org: Organization, project_id) -> Project | None:
    project_id = as_uuid(project_id)
    return Project.objects.filter(organization=org, id=project_id).first() if project_id else None


def doc_versions(*, doc: Doc) -> list[DocVersion]:
    """Every version of the doc, newest first, without their text (a doc can be 100,000 characters a version)."""
    return list(doc.versions.defer("text").order_by("-number"))


def doc_version(*, doc: Doc, number: int) -> DocVersion | None:
    return doc.versions.filter(number=number).first()


# --- agents -----------------------------------------------------------------------------------------------


def agents_of(*, org: Organization) -> list[Agent]:
    """Roadstar first, then every agent by name."""
    return list(Agent.objects.filter(organization=org).order_by("-is_roadstar", "name", "id"))


def agent_get(*, org: Organization, agent_id) -> Agent | None:
    agent_id = as_uuid(agent_id)
    return Agent.objects.filter(organization=org, id=agent_id).first() if agent_id else None


# --- roadstar links ---------------------------------------------------------------------------------------


def records_by_id(*, org: Organization, kind: str, ids) -> set[str]:
    """Which of these ids are records of this kind in the workspace (one query), as text."""
    models: dict[str, type[Contact | Company | Doc | Agent | Project]] = {
        "contact": Contact, "company": Company, "doc": Doc, "agent": Agent, "project": Project,
    }
    model = models.get(kind)
    valid = [u for u in (as_uuid(i) for i in ids) if u is not None]
    if model is None or not valid:
        return set()
    return {str(i) for i in model.objects.filter(organization=org, id__in=valid).values_list("id", flat=True)}
