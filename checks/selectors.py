"""Reads for the check: the request it decides on, built from the workspace, and the asks and decisions kept."""

from __future__ import annotations

import re
from collections.abc import Iterable

from checks.rules import recipients_of
from checks.types import Action, Business, CheckRequest, ContactRecord, Records
from checks.words import emails_in, first_name, fold

# Under this many contacts, the check sees them all; above, those the action and the conversation could name.
_ALL_CONTACTS_UP_TO = 200


def request_for_workspace(*, org, conversation: Iterable, action, made_here: Iterable[str]) -> CheckRequest:
    """The check's request for an action in `org`: the business and its records from the database, the
    conversation (turns as FORMAT.md gives them, or their models) and the action (`{tool, input, replaces?}`)."""
    action = action if isinstance(action, Action) else Action.model_validate(action)
    turns = [t if isinstance(t, dict) else t.model_dump(by_alias=True) for t in conversation]
    business = Business(
        name=org.name,
        owner=org.owner_name,
        owner_email=org.owner_email or "",
        domains=list(org.domains or []),
        payment_details=[str(p) for p in org.payment_details or []],
    )
    return CheckRequest.model_validate({
        "business": business.model_dump(),
        "records": Records(contacts=_contacts(org, turns, action), made_here=list(made_here)).model_dump(
            by_alias=True
        ),
        "conversation": turns,
        "action": action.model_dump(),
    })


def _turn_texts(turns: list[dict]) -> list[str]:
    texts = []
    for t in turns:
        texts += [str(t.get(k) or "") for k in ("text", "task", "notes")]
        texts += [str(w.get("text") or "") for w in t.get("owner_words") or [] if isinstance(w, dict)]
    return texts


def _contacts(org, turns: list[dict], action: Action) -> list[ContactRecord]:
    from contacts.models import Contact, ContactEmail

    contacts = Contact.objects.filter(organization=org).exclude(status=Contact.Status.IGNORED)
    if contacts.count() > _ALL_CONTACTS_UP_TO:
        # Naming is by address or by a first or full name unique among contacts: keep every contact whose
        # address or first name appears, so a name shared by two contacts still resolves to neither.
        texts = _turn_texts(turns) + [str(action.input)]
        addresses = set(recipients_of(action.input or {})) | {e for t in texts for e in emails_in(t)}
        words = {w.lower() for t in texts for w in re.findall(r"[A-Za-z][A-Za-z'\-]+", fold(t))}
        # By the first name the naming rule reads ("Dr. Hana Sato" is Hana; "Zoë" is written "Zoe" too).
        wanted = {pk for pk, name in contacts.values_list("id", "name") if name and first_name(name) in words}
        wanted |= {
            pk for pk, email in ContactEmail.objects.filter(organization=org).values_list("contact_id", "email")
            if email.lower() in addresses
        }
        contacts = contacts.filter(id__in=wanted)
    out = []
    for c in contacts.prefetch_related("emails", "company_links__company"):
        companies = [link.company for link in c.company_links.all() if link.ended is None]
        out.append(ContactRecord(
            id=str(c.id),
            name=c.name,
            emails=[e.email for e in c.emails.all()],
            company=companies[0].name if companies else None,
            always_ask=c.always_ask or any(co.always_ask for co in companies),
        ))
    return out
