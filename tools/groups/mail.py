"""The mail group: the owner's mail, read live, with drafting and sending. Thin declarations over
integrations.mail_service (search, read, draft) and integrations.mail_hold (mail.send's two-minute hold)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from pydantic import AfterValidator, Field, model_validator

from contacts.shapes import local_time_words
from core.actors import Actor
from core.inputs import AppItem, Chars, Offset, Whole, in_range
from core.models import Change, Organization
from core.timefmt import iso
from core.undo import undo_data
from integrations.mail_hold import email_hold, email_undo
from integrations.mail_service import Outgoing, mail_draft, mail_read, mail_search, outgoing_prepare
from integrations.providers.base import FileData, MailQuery
from integrations.services import Asker
from search import takeover
from tools.pipeline import check_action
from tools.registry import GROUPS, Done, Group, Tool, ToolInput, Writes, describe_inputs, register, register_group
from workspace import services as workspace_services

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="mail",
        summary="the owner's Gmail",
        how_to=(
            "The owner's mail, such as Gmail, searched live. A thread reads as its messages without quoted text; "
            "attachments read like files. Gmail's web links don't open here: search by sender and subject. Gmail: "
            "Gmail's query takes its search box syntax, and results come back newest first."
        ),
        # Where search is on: which accounts search holds, and, once it holds every one, only draft and send.
        how_to_for=lambda ctx: takeover.how_to(ctx.org, "mail", GROUPS["mail"].how_to),
        tool_on=takeover.mail_tool_on,
    )
)



def _email(value: str) -> str:
    value = value.strip()
    try:
        validate_email(value)
    except DjangoValidationError as exc:
        raise ValueError(f"{value!r} is not an email address such as dana@juniperdental.test") from exc
    return value


def _day(value: str | None) -> datetime.date | None:
    if value is None or not value.strip():
        return None
    try:
        day = datetime.date.fromisoformat(value.strip().replace("/", "-"))
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a date; give YYYY-MM-DD") from exc
    return in_range(day)


Email = Annotated[str, Chars(0, 200), AfterValidator(_email)]
def _reads_as_day(value: str | None) -> str | None:
    _day(value)  # a date it can't read is bad_input, naming the field
    return value


# A day as the agent writes it (2026-03-01, or 2026/03/01): checked as it comes in, read with _day where it is used.
Day = Annotated[Annotated[str, Chars(0, 40)] | None, AfterValidator(_reads_as_day)]


def _who(addresses: list[str]) -> str:
    return addresses[0] if len(addresses) == 1 else f"{', '.join(addresses[:-1])} and {addresses[-1]}"


# --- search ---------------------------------------------------------------------------------------------------


class SearchInput(ToolInput):
    query: Annotated[str, Chars(0, 500)] | None = None
    from_: Annotated[str, Chars(0, 200)] | None = Field(default=None, alias="from")
    to: Annotated[str, Chars(0, 200)] | None = None
    after: Day = None
    before: Day = None
    has_attachment: bool | None = None
    source: Annotated[str, Chars(0, 120)] | None = None
    limit: Annotated[int, Whole(1, 20)] = 10
    page: Annotated[str, Chars(0, 4000)] | None = None


def search(ctx: ToolContext, inp: SearchInput) -> dict[str, Any]:
    query = MailQuery(text=inp.query, sender=inp.from_, to=inp.to, after=_day(inp.after), before=_day(inp.before),
                      has_attachment=inp.has_attachment)
    return mail_search(org=ctx.org, asker=Asker.of(ctx), query=query, source=inp.source or None, limit=inp.limit,
                       page=inp.page or None, skip_accounts=takeover.skipped_keys(ctx.org, "mail"))


register(
    Tool(
        name="mail.search",
        description=(
            "Threads, newest first, across the owner's mail accounts, each with everyone on it but the owner; query "
            "takes the mail's own search words, such as in:sent; dates as YYYY-MM-DD. nextPage, passed as page, gives "
            "older threads"
        ),
        input=SearchInput,
        run=search,
        kind="reads",
    )
)


# --- read -----------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    id: Annotated[str, Chars(3, 500)]
    attachment: Annotated[str, Chars(0, 300)] | None = None
    offset: Offset = 0


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    if not inp.attachment:
        takeover.refuse_held(takeover.held_mail_thread(ctx.org, inp.id), "thread")
    return mail_read(org=ctx.org, asker=Asker.of(ctx), thread_id=inp.id, attachment=inp.attachment or None,
                     offset=inp.offset)


register(
    Tool(
        name="mail.read",
        description=(
            "A thread's messages with sender, recipients, date and text, and its attachments. With an attachment's "
            "id, that file's text."
        ),
        input=ReadInput,
        run=read,
        kind="reads",
    )
)


# --- what draft and send take ---------------------------------------------------------------------------------


class Attach(ToolInput):
    """One of `{ file }` (a Drive file's id or link), `{ email?, attachment }` (an attachment's id from read) or
    `{ workspace }` (a workspace file's path)."""

    file: Annotated[str, Chars(1, 500), AppItem] | None = None
    email: Annotated[str, Chars(1, 300), AppItem] | None = None
    attachment: Annotated[str, Chars(1, 300), AppItem] | None = None
    workspace: Annotated[str, Chars(1, 500)] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Attach:
        given = [k for k in ("file", "attachment", "workspace") if getattr(self, k) is not None]
        if len(given) != 1 or (self.email is not None and self.attachment is None):
            raise ValueError("give one of { file }, { email?, attachment } or { workspace }")
        return self


class OutgoingInput(ToolInput):
    to: Annotated[list[Email], Field(max_length=20)] = []
    cc: Annotated[list[Email], Field(max_length=20)] | None = None
    subject: Annotated[str, Chars(0, 300)]
    thread_id: Annotated[str, Chars(0, 300), AppItem] | None = None
    reply_all: bool = False
    attach: Annotated[list[Attach], Field(max_length=10)] | None = None
    signature: bool = True


def _workspace_file(ctx: ToolContext) -> Callable[[str, str], FileData]:
    """`{ workspace: path }` in attach: the file in the agent's own folder (or shared), read as files.save does."""
    return lambda path, field: workspace_services.workspace_file(org=ctx.org, actor=ctx.actor, path=path,
                                                                 field=field)


def _prepare(ctx: ToolContext, inp: OutgoingInput) -> Outgoing:
    return outgoing_prepare(org=ctx.org, asker=Asker.of(ctx), to=inp.to, cc=inp.cc or [],
                            thread_id=inp.thread_id or None, reply_all=inp.reply_all, attach=inp.attach or [],
                            workspace_file=_workspace_file(ctx))


# --- draft ----------------------------------------------------------------------------------------------------


class DraftInput(OutgoingInput):
    text: Annotated[str, Chars(0, 20000)]


def draft(ctx: ToolContext, inp: DraftInput) -> Writes:
    result, log = mail_draft(
        org=ctx.org, actor=ctx.actor, asker=Asker.of(ctx), to=inp.to, cc=inp.cc or [], subject=inp.subject,
        text=inp.text, thread_id=inp.thread_id or None, reply_all=inp.reply_all, attach=inp.attach or [],
        signature=inp.signature, workspace_file=_workspace_file(ctx),
    )

    def write() -> Done:
        entries = log()
        return Done(
            result=result,
            sentence=f"drafted an email to {_who(result['to'] or ['nobody yet'])}: “{inp.subject}”",
            target_type="mail_draft",
            target_id=result["draftId"],
            created=True,
            log_entry=entries[0] if entries else None,
        )

    return Writes(write)


register(
    Tool(
        name="mail.draft",
        description="Make a draft in the owner's Gmail, in its thread when replying. Sends nothing.",
        input=DraftInput,
        run=draft,
        kind="makes",
        your_work="home",
    )
)


# --- send -----------------------------------------------------------------------------------------------------


class SendInput(OutgoingInput):
    text: Annotated[str, Chars(1, 20000)]


def _check_whom_it_reaches(ctx: ToolContext, inp: SendInput, to: list[str], cc: list[str]) -> dict[str, Any] | None:
    """The check read the input, whose `to` may leave out whom a reply reaches (the thread's sender, replyAll's
    everyone): when it does, the check reads the email again with every recipient, before anything is held."""
    given = {a.strip().lower() for a in [*inp.to, *(inp.cc or [])]}
    if not ctx.org.check_enabled or set(to + cc) <= given:
        return None
    action_input = inp.model_dump(by_alias=True, exclude_none=True) | {"to": to, "cc": cc}
    return check_action(ctx, {"tool": "mail.send", "input": action_input})


class SendUndo(TypedDict):
    """What mail.send's Undo reads: the held email, and when it goes (after which there is nothing to undo)."""

    held: str
    goesAt: str


def send(ctx: ToolContext, inp: SendInput) -> dict[str, Any] | Writes:
    outgoing = _prepare(ctx, inp)  # reads the thread and the attachments from the apps
    held_back = _check_whom_it_reaches(ctx, inp, outgoing.to, outgoing.cc)
    if held_back is not None:
        return held_back

    def write() -> Done:
        held, thread_id, entries = email_hold(
            org=ctx.org, actor=ctx.actor, conversation_id=ctx.conversation_id, outgoing=outgoing,
            subject=inp.subject, text=inp.text, signature=inp.signature,
        )
        goes = local_time_words(held.goes_at, ctx.org.time_zone)
        also = f" (cc {_who(held.cc)})" if held.cc else ""
        return Done(
            result={
                "held": {"trigger": held.number, "at": iso(held.goes_at), "to": list(held.to)},
                "threadId": thread_id,
                "note": f"Held on Home for two minutes, where {ctx.org.owner_first_name} can Undo it; it goes to "
                        f"{_who(held.to or held.cc)}{also} at {goes}. It's done: don't send it again.",
            },
            sentence=f"emailed {_who(held.to or held.cc)}: “{inp.subject}”",
            target_type="email",
            target_id=str(held.id),
            undo=SendUndo(held=str(held.id), goesAt=iso(held.goes_at)),
            log_entry=entries[0] if entries else None,
        )

    return Writes(write)


def undo_send(*, org: Organization, actor: Actor, change: Change) -> None:
    undo: SendUndo = undo_data(change)
    email_undo(org=org, held_id=undo["held"], actor=actor)


register(
    Tool(
        name="mail.send",
        description="Send an email from the owner's Gmail. It goes after a two-minute Undo.",
        input=SendInput,
        run=send,
        kind="sends",
        your_work="home_undo",
        undo=undo_send,
        undo_calls_apps=False,  # Undo within the hold only stops it here
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
# A draft and a send take the same inputs, so they read the same.
_OUTGOING_INPUTS = {
    "to": "Who it's to: email addresses",
    "cc": "Who is copied: email addresses",
    "subject": "The subject line",
    "threadId": "To reply in a thread: its id from search",
    "replyAll": "Answer everyone on the thread",
    "attach": (
        "Drive files (Google files go as PDFs), attachments by their id from search, or workspace files by "
        "path, 25 MB in all"
    ),
    "signature": "false leaves off the owner's Gmail signature",
    "text": "The message, as plain text",
}

describe_inputs({
    "mail.search": {
        "query": "The mail's own search words, such as in:sent or subject:quote",
        "from": "The sender: a name or address",
        "to": "A recipient: a name or address",
        "after": "Mail from this day on, YYYY-MM-DD",
        "before": "Mail before this day, YYYY-MM-DD",
        "hasAttachment": "true: only mail with attachments",
        "source": "Only accounts whose name contains this, e.g. an email address",
        "limit": "How many threads at most",
        "page": "nextPage from the last search, for older threads",
    },
    "mail.read": {
        "id": "The thread's id, from search",
        "attachment": "An attachment's id, for its text",
        "offset": "nextOffset from the last read, for the rest; 0 from the start",
    },
    "mail.draft": _OUTGOING_INPUTS,
    "mail.send": _OUTGOING_INPUTS,
})
