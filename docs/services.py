"""Writes to projects, docs and the owner's notes on them.

Every write or edit of a doc is a new DocVersion (numbered one past the last), and the doc keeps the current
text and number. A version is claimed with a conditional UPDATE on the number the writer read, so two writers
can't both make version n + 1, on PostgreSQL or SQLite alike: the later one gets `changed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.actors import Actor
from core.errors import ToolError, bad_input
from core.models import Change
from docs.selectors import doc_note_get, doc_notes_by_id
from records.models import Doc, DocNote, DocVersion, Project
from team.models import Agent

MAX_TEXT = 100_000


def _acting_user_id(org, actor: Actor):
    """The owner's user id when the owner acts; agents and the system are no user."""
    return org.owner_id if actor.kind == "user" else None


def _name(value: str, field: str) -> str:
    value = value.strip()
    if not value:
        raise bad_input(field, "must have words, not only spaces")
    return value


# --- projects ---------------------------------------------------------------------------------------------


def project_create(*, org, actor: Actor, name: str, description: str = "") -> Project:
    user_id = _acting_user_id(org, actor)
    return Project.objects.create(
        organization=org, name=_name(name, "name"), description=description, created_by_user_id=user_id,
        updated_by_user_id=user_id,
    )


def project_update(*, org, actor: Actor, project: Project, name: str, description: str) -> Project:
    """Set the name and description. When both are as they were, nothing is saved."""
    name = _name(name, "name")
    if project.name == name and project.description == description:
        return project
    project.name = name
    project.description = description
    project.updated_by_user_id = _acting_user_id(org, actor)
    project.save(update_fields=["name", "description", "updated_by_user", "updated_at"])
    return project


def project_filed_into(*, org, actor: Actor, conversation_id: str | None) -> Project:
    """The project a doc goes in when the writer names none: the one its work files into.

    That is the project this chat or thread last wrote a doc in or made (so a thread on Juniper Dental keeps its
    docs together); else, for an agent, its own project, made the first time it is needed. The owner and the
    system have no project of their own: they name one.
    """
    if conversation_id:
        latest = (
            Change.objects.filter(organization=org, conversation_id=conversation_id, target_type__in=["doc", "project"],
                                  undone_at__isnull=True)
            .order_by("-at").values_list("target_type", "target_id").first()
        )
        if latest is not None:
            kind, target = latest
            found = (Project.objects.filter(organization=org, id=target) if kind == "project"
                     else Project.objects.filter(organization=org, docs__id=target)).first()
            if found is not None:
                return found
    agent = actor.agent
    if actor.kind != "agent" or not isinstance(agent, Agent):  # an agent's actor holds its Agent
        raise bad_input(
            "projectId",
            "every doc goes in a project; give the project the work belongs to (projects.list), or make one named "
            "after the job with projects.create",
        )
    project, _ = Project.objects.get_or_create(
        organization=org, agent=agent,
        defaults={"name": f"{agent.name}'s docs"[:120],
                  "description": f"Docs {agent.name} wrote without a project named."},
    )
    return project


# --- docs -------------------------------------------------------------------------------------------------


def _check_text(text: str, field: str = "text") -> None:
    # The text is MDX; it is not parsed here (the owner's page renders it), only held to the spec's length.
    if not text:
        raise bad_input(field, "a doc needs some text")
    if len(text) > MAX_TEXT:
        raise bad_input(field, f"the doc would be {len(text):,} characters; a doc holds up to {MAX_TEXT:,}")


def doc_write(
    *, org, actor: Actor, title: str, text: str, lines: Sequence[str] = (), doc: Doc | None = None,
    project: Project | None = None,
) -> DocVersion:
    """Set a doc's whole text: a new doc in `project`, or, given `doc`, its first draft or a rewrite."""
    title = _name(title, "title")
    _check_text(text)
    with transaction.atomic():
        if doc is None:
            if project is None:
                raise bad_input("projectId", "every doc goes in a project; give the project the work belongs to")
            doc = Doc.objects.create(organization=org, project=project, title=title, created_by=actor.by())
        elif project is not None and project.id != doc.project_id:
            raise bad_input(
                "projectId",
                f"the doc \"{doc.title}\" is in the project \"{doc.project.name}\"; leave projectId out to write "
                "it where it is",
            )
        return _new_version(actor=actor, doc=doc, title=title, text=text, lines=lines)


def _new_version(*, actor: Actor, doc: Doc, title: str, text: str, lines: Sequence[str]) -> DocVersion:
    number = doc.version + 1
    now = timezone.now()
    # Claim the next number only if no one wrote the doc since it was loaded.
    claimed = Doc.objects.filter(id=doc.id, version=doc.version).update(
        version=number, text=text, title=title, updated_at=now
    )
    if not claimed:
        raise _written_since(doc)
    try:
        with transaction.atomic():
            version = DocVersion.objects.create(
                doc=doc, number=number, title=title, text=text, lines=list(lines), by=actor.by()
            )
    except IntegrityError as exc:
        raise _written_since(doc) from exc
    doc.version, doc.text, doc.title, doc.updated_at = number, text, title, now
    return version


def _written_since(doc: Doc) -> ToolError:
    return ToolError("changed", f"The doc \"{doc.title}\" was written again since it was read; read it again first.")


class Edit(NamedTuple):
    find: str
    replace: str


class NoteAnswer(NamedTuple):
    note_id: str
    outcome: str  # changed, kept or done: the note's state once answered
    text: str


def _occurrences(text: str, find: str) -> int:
    # Overlapping ones count too: "aa" is in "aaa" twice, and an edit there would be ambiguous.
    count, at = 0, text.find(find)
    while at != -1:
        count += 1
        at = text.find(find, at + 1)
    return count


def apply_edits(text: str | None, edits: Sequence[Edit], field: str = "edits") -> str:
    """The text with every edit made, each find matched in `text` as it is now; all apply, or `bad_input`."""
    if not text:
        raise bad_input(field, "the doc has no text yet; write it whole with docs.write")
    problems, spans = [], []
    for i, edit in enumerate(edits):
        count = _occurrences(text, edit.find)
        if count == 0:
            problems.append(
                f"{field}[{i}].find: found 0 times in the doc's current text; a find must be words the doc has "
                "now, exactly as written (read it again)"
            )
        elif count > 1:
            problems.append(
                f"{field}[{i}].find: found {count} times in the doc's current text; a find must occur exactly "
                "once (take in more of the words around it)"
            )
        else:
            start = text.find(edit.find)
            spans.append((start, start + len(edit.find), i, edit.replace))
    spans.sort()
    for (_, end, i, _), (start, _, j, _) in zip(spans, spans[1:], strict=False):
        if start < end:
            first, second = sorted((i, j))
            problems.append(
                f"{field}[{second}].find: overlaps {field}[{first}].find; each edit must change different words"
            )
    if problems:
        raise ToolError("bad_input", "; ".join(problems))
    parts, at = [], 0
    for start, end, _, replace in spans:
        parts += [text[at:start], replace]
        at = end
    parts.append(text[at:])
    return "".join(parts)


def _open_notes_for(*, org, doc: Doc, answers: Sequence[NoteAnswer], field: str) -> list[DocNote]:
    """The note each answer answers, in order: each an open note of this doc, and none twice."""
    notes = doc_notes_by_id(org=org, doc=doc, note_ids={a.note_id for a in answers})
    found, seen = [], set()
    for i, answer in enumerate(answers):
        note = notes.get(answer.note_id)
        where = f"{field}[{i}].noteId"
        if note is None:
            raise ToolError("not_found", f"{where}: no note with id {answer.note_id} on the doc \"{doc.title}\".")
        if answer.note_id in seen:
            raise bad_input(where, "answers the same note as an earlier answer; give each note one answer")
        seen.add(answer.note_id)
        _require_open(note, where)
        found.append(note)
    return found


def _require_open(note: DocNote, where: str) -> None:
    if note.state != DocNote.State.OPEN:
        raise bad_input(where, f"that note was answered already ({note.state}); docs.read lists the open ones")


def _answer(*, org, actor: Actor, note: DocNote, outcome: str, text: str) -> DocNote:
    # The note closes only if it is still open: two answers racing for one note can't both land.
    if not DocNote.objects.filter(id=note.id, state=DocNote.State.OPEN).update(state=outcome):
        raise ToolError("changed", "That note was answered since it was read; read the doc again first.")
    note.state = outcome
    return DocNote.objects.create(
        organization=org, doc_id=note.doc_id, parent=note, on=note.on, note=text, by=actor.by(), state=outcome
    )


def doc_edit(
    *, org, actor: Actor, doc: Doc, edits: Sequence[Edit], lines: Sequence[str] = (),
    answers: Sequence[NoteAnswer] = (),
) -> DocVersion:
    """Make every edit to the doc's current text as one new version, and answer the owner's notes with it."""
    text = apply_edits(doc.text, edits)
    _check_text(text, "edits")
    notes = _open_notes_for(org=org, doc=doc, answers=answers, field="answers")
    with transaction.atomic():
        version = _new_version(actor=actor, doc=doc, title=doc.title, text=text, lines=lines)
        for note, answer in zip(notes, answers, strict=False):
            _answer(org=org, actor=actor, note=note, outcome=answer.outcome, text=answer.text)
    return version


def doc_note_answer(*, org, actor: Actor, doc: Doc, note_id, outcome: str, text: str) -> DocNote:
    """Answer one of the owner's open notes without changing the doc; the answer is a note under it."""
    note = doc_note_get(org=org, doc=doc, note_id=note_id)
    _require_open(note, "noteId")
    with transaction.atomic():
        return _answer(org=org, actor=actor, note=note, outcome=outcome, text=text)


def doc_note_add(*, org, actor: Actor, doc: Doc, on: str, note: str | None) -> DocNote:
    """The owner leaves a note on a doc: on `on`, the doc's words it is about ("" for the whole doc)."""
    if doc.organization_id != org.id:
        raise ToolError("not_found", f"No doc with id {doc.id} in this workspace.")
    return DocNote.objects.create(organization=org, doc=doc, on=on, note=note, by=actor.by())
