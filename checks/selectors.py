"""Reads for the check: the request it decides on, built from the workspace, and the asks and decisions kept."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import OuterRef, Q, QuerySet

from checks.models import CheckDecision
from checks.rules import recipients_of
from checks.types import CONVERSATION, TURN_MODELS, Action, Business, CheckRequest, ContactRecord, Records, Turn
from checks.words import emails_in, first_name, fold
from core.inputs import Uuid, as_uuid
from core.models import Change, Organization
from core.rows import kept_cursor
from records.models import Company, CompanyPerson, Contact, ContactEmail

# Under this many contacts, the check sees them all; above, those the action and the conversation could name.
_ALL_CONTACTS_UP_TO = 200


@dataclass(frozen=True)
class MadeBy:
    """A piece of work, by its work's id, else by its conversation's: what it created is its `made_here`."""

    work_id: str = ""
    conversation_id: str = ""


def request_for_workspace(
    *, org: Organization, conversation: Iterable[Any], action: Action | dict[str, Any], made_here: Iterable[str] = (),
    made_by: MadeBy | None = None,
) -> CheckRequest:
    """The check's request for an action in `org`: the business and its records from the database, the
    conversation (turns as FORMAT.md gives them, or their models) and the action (`{tool, input, replaces?}`).

    What this piece of work made is `made_here` as given, or, with `made_by`, read from its changes in the same
    statement as the contacts (the check runs before every checked action)."""
    action = action if isinstance(action, Action) else Action.model_validate(action)
    turns = list(conversation)
    if not all(isinstance(t, TURN_MODELS) for t in turns):  # (a turn's are the check's models already)
        turns = CONVERSATION.validate_python(turns)
    business = Business(
        name=org.name,
        owner=org.owner_name,
        owner_email=org.owner_email or "",
        domains=list(org.domains or []),
        payment_details=[str(p) for p in org.payment_details or []],
    )
    contacts, made = _contacts(org, turns, action, made_by)
    # Built of its parts as they are, each validated as it was made: validating the whole again at each checked call
    # cost as much as validating the conversation's turns from dicts did.
    return CheckRequest.model_construct(
        business=business,
        records=Records(contacts=contacts, made_here=list(made_here) if made_by is None else made),
        conversation=turns,
        action=action,
    )


def _turn_texts(turns: list[Turn]) -> list[str]:
    texts = []
    for t in turns:
        texts += [str(getattr(t, k, "") or "") for k in ("text", "task", "notes")]
        texts += [w.text for w in getattr(t, "owner_words", [])]
    return texts


def made_here(*, org: Organization, made_by: MadeBy) -> list[str]:
    """What this piece of work made (`contact:<id>`, `doc:<id>` …), newest first: the check lets it change those
    freely."""
    where, params = _made_where(org, made_by)
    with kept_cursor(connection) as cursor:
        cursor.execute(f'SELECT ch.target_type, ch.target_id FROM "{Change._meta.db_table}" ch WHERE {where} '
                       "ORDER BY ch.at DESC", params)
        return _made_items(cursor.fetchall())


def _made_where(org: Organization, made_by: MadeBy) -> tuple[str, list[Any]]:
    # Only what this work created and is not undone: a "makes" change on a record that was there (a note on a
    # contact, an item on a company) must not make that record this work's own, or a note would unlock a checked
    # rewrite of it.
    column, value = ("work_id", made_by.work_id) if made_by.work_id else ("conversation_id", made_by.conversation_id)
    return (f"ch.organization_id = %s AND ch.created = %s AND ch.undone_at IS NULL AND ch.{column} = %s",
            [Change._meta.get_field("organization").get_db_prep_value(org.pk, connection),
             Change._meta.get_field("created").get_db_prep_value(True, connection), value])


def _made_items(rows: Iterable[tuple[Any, ...]]) -> list[str]:
    return [f"{kind}:{target}" for kind, target in rows if kind and target]


def _contacts(
    org: Organization, turns: list[Turn], action: Action, made_by: MadeBy | None
) -> tuple[list[ContactRecord], list[str]]:
    """The contacts the check reads, and (with `made_by`) what this work made, read with them."""
    made, rows = _contact_rows(org, limit=_ALL_CONTACTS_UP_TO + 1, made_by=made_by)
    if len(rows) > _ALL_CONTACTS_UP_TO:
        # Naming is by address or by a first or full name unique among contacts: keep every contact whose
        # address or first name appears, so a name shared by two contacts still resolves to neither.
        contacts = Contact.objects.filter(organization=org).exclude(status=Contact.Status.IGNORED)
        texts = _turn_texts(turns) + [str(action.input)]
        addresses = set(recipients_of(action.input or {})) | {e for t in texts for e in emails_in(t)}
        words = {w.lower() for t in texts for w in re.findall(r"[A-Za-z][A-Za-z'\-]+", fold(t))}
        # By the first name the naming rule reads ("Dr. Hana Sato" is Hana; "Zoë" is written "Zoe" too).
        wanted = {pk for pk, name in contacts.values_list("id", "name") if name and first_name(name) in words}
        wanted |= {
            pk for pk, email in ContactEmail.objects.filter(organization=org).values_list("contact_id", "email")
            if email.lower() in addresses
        }
        rows = _contact_rows(org, ids=sorted(wanted, key=str))[1] if wanted else []
    out = []
    for pk, name, fields, emails, companies in rows:
        companies = _json(companies) or []
        fields = _json(fields) or {}
        out.append(ContactRecord(
            id=str(as_uuid(pk)),
            name=name,
            emails=_json(emails) or [],
            company=companies[0][0] if companies else None,
            always_ask=bool(isinstance(fields, dict) and fields.get("ask")) or any(bool(c[1]) for c in companies),
        ))
    return out, made


def _json(value: object) -> Any:
    # SQLite gives JSON as text; PostgreSQL as text too (cast), or, for a jsonb column, as Django's loader reads it.
    return json.loads(value) if isinstance(value, str) else value


def _contact_rows(
    org: Organization, *, limit: int | None = None, ids: list[Any] | None = None, made_by: MadeBy | None = None,
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The workspace's contacts (not ignored) as the check reads them, in one query: id, name, fields, their
    addresses (a JSON list, in their order) and the companies they are at now (a JSON list of [name, always_ask],
    oldest link first), by name. One query whatever the count, where loading the rows and prefetching their
    addresses and companies took three (and a count, a fourth): the check runs before every checked action.

    With `made_by`, what that work made (`made_here`) comes in the same statement, as rows of their own ahead of
    the contacts' (UNION ALL: part 0, newest first, then part 1, the contacts by name): one statement, not two."""
    contact, email = Contact._meta.db_table, ContactEmail._meta.db_table
    link, company = CompanyPerson._meta.db_table, Company._meta.db_table
    if connection.vendor == "postgresql":
        emails = (f'SELECT CAST(json_agg(e.email ORDER BY e.position, e.id) AS text) FROM "{email}" e '
                  'WHERE e.contact_id = c.id')
        companies = (f'SELECT CAST(json_agg(json_build_array(co.name, co.always_ask) ORDER BY l.created_at, l.id) '
                     f'AS text) FROM "{link}" l JOIN "{company}" co ON co.id = l.company_id '
                     'WHERE l.contact_id = c.id AND l.ended IS NULL')
    else:
        # SQLite (3.40 here) has no ORDER BY inside an aggregate: it aggregates an ordered subquery's rows in order.
        emails = (f'SELECT json_group_array(email) FROM (SELECT e.email FROM "{email}" e '
                  'WHERE e.contact_id = c.id ORDER BY e.position, e.id)')
        companies = (f'SELECT json_group_array(json_array(name, always_ask)) FROM (SELECT co.name, co.always_ask '
                     f'FROM "{link}" l JOIN "{company}" co ON co.id = l.company_id '
                     'WHERE l.contact_id = c.id AND l.ended IS NULL ORDER BY l.created_at, l.id)')
    params: list[Any] = [org.pk, Contact.Status.IGNORED.value]
    where = ""
    if ids is not None:
        field = Contact._meta.pk
        where = f" AND c.id IN ({', '.join(['%s'] * len(ids))})"
        params += [field.get_db_prep_value(i, connection) for i in ids]
    sql = (f'SELECT c.id, c.name, c.fields, ({emails}), ({companies}) FROM "{contact}" c '
           f"WHERE c.organization_id = %s AND c.status <> %s{where} ORDER BY c.name, c.id")
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    params[0] = Contact._meta.get_field("organization").get_db_prep_value(org.pk, connection)
    if made_by is None:
        with kept_cursor(connection) as cursor:
            cursor.execute(sql, params)
            return [], cursor.fetchall()
    # The two parts' columns line up by type (PostgreSQL's UNION needs it, and types a bare NULL of a subquery as
    # text, hence the casts; SQLite takes them as they are): part, the change's time, the contact's id, then text
    # (the change's target type or the contact's name), the contact's fields, text again (the target's id or the
    # addresses) and the companies.
    made_where, made_params = _made_where(org, made_by)
    made_sql = (f"SELECT 0, ch.at, CAST(NULL AS uuid), ch.target_type, CAST(NULL AS jsonb), ch.target_id, "
                f'CAST(NULL AS text) FROM "{Change._meta.db_table}" ch WHERE {made_where}')
    contacts_sql = sql.replace("SELECT c.id,", "SELECT 1, CAST(NULL AS timestamp with time zone), c.id,", 1)
    union = (f"SELECT * FROM ({made_sql}) AS made UNION ALL SELECT * FROM ({contacts_sql}) AS picked "
             "ORDER BY 1, 2 DESC, 4, 3")
    with kept_cursor(connection) as cursor:
        cursor.execute(union, made_params + params)
        rows = cursor.fetchall()
    made = _made_items((row[3], row[5]) for row in rows if row[0] == 0)
    return made, [row[2:] for row in rows if row[0] == 1]


def known_recipients(*, org: Organization, tool_input: dict[str, Any] | None) -> list[str]:
    """The names of the action's recipients when every one of them is a contact of the workspace (the owner's
    people), else []: the owner's words for a NOT_NAMED ask depend on it (home.ask_words). A known contact's send
    is asked about for another reason than being a stranger: a standing rule of the owner's ("I see every quote
    first"), Always ask, or words of the owner's in another conversation."""
    addresses = recipients_of(tool_input or {})
    if not addresses:
        return []
    names: dict[str, str] = {}
    for email, name in ContactEmail.objects.filter(organization=org, email__in=addresses).values_list(
            "email", "contact__name"):
        names[email.lower()] = name
    # (stored addresses are lower case, as recipients_of gives them; one not among them is a stranger)
    if any(a not in names for a in addresses):
        return []
    return list(dict.fromkeys(names[a] for a in addresses))


def went_since(*, exclude: Uuid | None = None) -> QuerySet[CheckDecision, CheckDecision]:
    """For an `Ask` queryset (OuterRef): the runs of the same action that went after it was asked, newest first.
    The same action: the same fingerprint anywhere in the workspace, or, in the ask's conversation, the same tool to
    the same people or records (`action_key`)."""
    same = Q(fingerprint=OuterRef("fingerprint")) | (
        Q(action_key=OuterRef("action_key"), conversation_id=OuterRef("decision__conversation_id"))
        & ~Q(action_key="")
    )
    went = CheckDecision.objects.filter(same, organization=OuterRef("organization"),
                                        outcome=CheckDecision.Outcome.GO,
                                        created_at__gt=OuterRef("decision__created_at"))
    if exclude is not None:
        went = went.exclude(pk=exclude)
    return went.order_by("-created_at")
