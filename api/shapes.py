"""The API's JSON for records no app shapes yet: agents, conversations and messages, work, cards, Your-work lines
and the owner's doc notes. Contacts, companies, projects and docs answer with their apps' own shapes (the spec's
result types), as the tools do.

Each function reads only what `api.selectors` loaded for it, so a page costs no query per row.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from core.timefmt import iso


def _money(value: Decimal | None) -> str | None:
    # Money is Decimal and goes out as text to the cent, so no client reads 0.1 + 0.2 dollars.
    return None if value is None else f"{value:.2f}"


def iso_exact(value: datetime.datetime | None) -> str | None:
    """A time to the microsecond, for keyset paging: lines a microsecond apart must not be skipped."""
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def agent_ref(agent) -> dict | None:
    return None if agent is None else {"id": str(agent.id), "name": agent.name}


def agent_shape(agent, *, spent: Decimal) -> dict:
    """An agent as the owner's chart shows it: job description, model, budget and spend this month.
    Needs `reports_to` loaded."""
    return {
        "id": str(agent.id),
        "name": agent.name,
        "isRoadstar": agent.is_roadstar,
        "job": agent.job,
        "jobDescription": {
            "owns": agent.owns,
            "good": agent.good,
            "works": agent.works,
            "asksFirst": agent.asks_first,
        },
        "model": agent.model,
        "thinking": agent.thinking,
        "reportsTo": agent_ref(agent.reports_to),
        "department": agent.department,
        "monthlyBudget": _money(agent.monthly_budget),
        "spentThisMonth": _money(spent),
        "paused": agent.paused,
        "runsOn": agent.runs_on,
        "createdAt": iso(agent.created_at),
        "updatedAt": iso(agent.updated_at),
    }


def conversation_shape(conversation) -> dict:
    """A chat or thread. Needs `agent` loaded."""
    return {
        "id": str(conversation.id),
        "agent": agent_ref(conversation.agent),
        "kind": conversation.kind,
        "title": conversation.title,
        "state": conversation.state,
        "open": conversation.closed_at is None,
        "createdAt": iso(conversation.created_at),
        "updatedAt": iso(conversation.updated_at),
    }


def message_shape(message) -> dict:
    return {
        "seq": message.seq,
        "role": message.role,
        "text": message.text,
        "data": dict(message.data or {}),
        "at": iso(message.created_at),
    }


def work_shape(work) -> dict:
    """A piece of work on Home. Needs `agent`, `conversation` and `requested_by` loaded."""
    return {
        "id": str(work.id),
        "agent": agent_ref(work.agent),
        "conversationId": str(work.conversation_id),
        "conversationKind": work.conversation.kind,
        "conversationTitle": work.conversation.title,
        "requestedBy": agent_ref(work.requested_by),
        "task": work.task,
        "state": work.state,
        "latestReply": work.latest_reply,
        "answer": work.answer,
        "createdAt": iso(work.created_at),
        "answeredAt": iso(work.answered_at),
    }


def card_shape(card) -> dict:
    return {
        "id": str(card.id),
        "kind": card.kind,
        "title": card.title,
        "body": card.body,
        "actionLabel": card.action_label,
        "actionUrl": card.action_url,
        "data": dict(card.data or {}),
        "createdAt": iso(card.created_at),
        "resolvedAt": iso(card.resolved_at),
    }


def change_line_shape(change, *, owner_id) -> dict:
    """A line of Your work: who did what, in a sentence, and whether Undo applies (as Home shows it)."""
    is_owner = change.actor_kind == "user" and change.actor_id == str(owner_id)
    who = "You" if is_owner else change.actor_name
    return {
        "id": str(change.id),
        "text": f"{who} {change.sentence}",
        "sentence": change.sentence,
        "actor": {"kind": change.actor_kind, "id": change.actor_id, "name": change.actor_name},
        "tool": change.tool,
        "kind": change.kind,
        "at": iso_exact(change.at),
        "canUndo": change.can_undo and change.listing == "home_undo",
        "undoneAt": iso(change.undone_at),
        "isUndo": change.undoes_id is not None,
        "targetType": change.target_type,
        "targetId": change.target_id,
    }


def doc_note_shape(note) -> dict:
    """The owner's note on a doc, with the agents' answers to it when `answers` is loaded."""
    shape = {
        "id": str(note.id),
        "docId": str(note.doc_id),
        "on": note.on,
        "note": note.note,
        "by": dict(note.by or {}),
        "state": note.state,
        "at": iso(note.created_at),
    }
    if hasattr(note, "answers_loaded"):
        shape["answers"] = [
            {"id": str(a.id), "note": a.note, "by": dict(a.by or {}), "state": a.state, "at": iso(a.created_at)}
            for a in note.answers_loaded
        ]
    return shape
