"""The contacts group: the people the business deals with. Thin declarations over contacts' services."""

from __future__ import annotations

from contacts import selectors, services
from contacts.models import Contact, LogEntry
from contacts.shapes import contact_record
from roadstar.undo import restore, snapshot
from tools.errors import ToolError
from tools.inputs import Id, Text
from tools.registry import Done, Group, Tool, ToolInput, register, register_group

register_group(
    Group(
        name="contacts",
        summary="the people the business deals with",
        how_to=(
            "The people the business deals with, shared by all the owner's agents. Add and update the ones your "
            "work touches on your own judgement: no yes is needed, and every change can be undone. Use add_many for "
            "several at once; to fill Contacts from mail, search mail the owner sent (dir sent, bulk false): its "
            "counts.people says who they write to most; read their latest messages for names, roles and phones, "
            "then save them. Read someone's Context with find before you write to them. The businesses they work "
            "at are in companies."
        ),
    )
)


def _record(ctx, contact_id) -> dict:
    return contact_record(selectors.contact_get(org=ctx.org, contact_id=contact_id))


# --- create -----------------------------------------------------------------------------------------------


class CreateInput(ToolInput):
    name: Text(1, 200)
    emails: list[Text(0, 254)] = []
    phone: Text(0, 80) | None = None
    job_title: Text(0, 200) | None = None
    labels: list[Text(1, 40)] = []
    company_ids: list[Id] = []
    fields: dict = {}


def create(ctx, inp: CreateInput):
    try:
        contact = services.contact_create(
            org=ctx.org, actor=ctx.actor, name=inp.name, emails=inp.emails, phone=inp.phone,
            job_title=inp.job_title, labels=inp.labels, company_ids=inp.company_ids, fields=inp.fields,
        )
    except services.ContactExists as exists:
        return {
            "id": str(exists.contact.id),
            "message": f"{exists.email} is already on {exists.contact.name}; nothing was added. Read or update them.",
        }
    return Done(
        result=_record(ctx, contact.id),
        sentence=f"added {contact.name} to Contacts",
        target_type="contact",
        target_id=str(contact.id),
    )


register(
    Tool(
        name="contacts.create",
        description="Add a contact",
        input=CreateInput,
        run=create,
        kind="makes",
        your_work="home",
    )
)


# --- context ----------------------------------------------------------------------------------------------


class ContextInput(ToolInput):
    contact_id: Id
    text: Text(0, 1500)
    why: Text(1, 2000)


def context(ctx, inp: ContextInput):
    contact = selectors.contact_get(org=ctx.org, contact_id=inp.contact_id)
    before = snapshot(contact, ["context"])
    entry = services.contact_set_context(org=ctx.org, actor=ctx.actor, contact=contact, text=inp.text, why=inp.why)
    return Done(
        result={"contact": _record(ctx, contact.id), "entryId": str(entry.id)},
        sentence=f"set {contact.name}'s Context: {inp.why}",
        target_type="contact",
        target_id=str(contact.id),
        undo={"before": before, "after": snapshot(contact, ["context"])},
        log_entry=entry,
    )


def context_replaces(ctx, inp: ContextInput) -> dict | None:
    contact = Contact.objects.filter(organization=ctx.org, id=inp.contact_id).only("name", "context").first()
    if contact is None or not contact.context:
        return None
    return {"name": contact.name, "context": contact.context}


def undo_context(*, org, actor, change):
    contact = Contact.objects.filter(organization=org, id=change.target_id).first()
    if contact is None:
        raise ToolError("not_found", "That contact is no longer in Contacts; nothing was restored.")
    after = change.undo["after"]
    restore(contact, before=change.undo["before"], after=after, what=f"{contact.name}'s Context")
    services.log_write(
        org=org, actor=actor, kind=LogEntry.Kind.RESTORED, contact=contact, before=after["context"],
        after=contact.context, text="Undid a change to Context",
    )


register(
    Tool(
        name="contacts.context",
        description="Set Context and record why it changed; can be undone",
        input=ContextInput,
        run=context,
        kind="changes",
        your_work="home_undo",
        undo=undo_context,
        replaces=context_replaces,
    )
)
