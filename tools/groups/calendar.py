"""The calendar group: the owner's calendar, meetings and time held. Thin declarations over integrations.meetings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from contacts.shapes import local_time_words
from core.inputs import Chars, TimeText, Whole
from integrations import meetings
from integrations.services import Asker
from tools.registry import Done, Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="calendar",
        summary="the owner's calendar: meetings and time held",
        how_to="The owner's own Google Calendar, read and written as them.",
    )
)


# --- list -----------------------------------------------------------------------------------------------------


class ListInput(ToolInput):
    after: TimeText
    before: TimeText
    query: Annotated[str, Chars(0, 200)] | None = None
    limit: Annotated[int, Whole(1, 50)] = 20


def list_(ctx: ToolContext, inp: ListInput) -> list[dict[str, Any]]:
    return meetings.meeting_list(org=ctx.org, after=inp.after, before=inp.before, query=inp.query, limit=inp.limit,
                                 asked_by=Asker.of(ctx))


register(
    Tool(
        name="calendar.list",
        description="Meetings between two times, soonest first, with guests",
        input=ListInput,
        run=list_,
        kind="reads",
    )
)


# --- hold -----------------------------------------------------------------------------------------------------


class HoldInput(ToolInput):
    title: Annotated[str, Chars(1, 200)]
    start: TimeText
    end: TimeText
    note: Annotated[str, Chars(0, 2000)] | None = None


def hold(ctx: ToolContext, inp: HoldInput) -> Done:
    connection, written = meetings.meeting_hold(org=ctx.org, title=inp.title, start=inp.start, end=inp.end,
                                                note=inp.note, asked_by=Asker.of(ctx))
    meeting = written.value
    return Done(
        result={"id": meeting.id, "url": meeting.url},
        sentence=f"held time on the calendar: “{meeting.title}”, {local_time_words(meeting.start, ctx.org.time_zone)}",
        target_type="meeting",
        target_id=meeting.id,
        created=True,
        undo={"connection": str(connection.id), "provider": written.undo},
    )


register(
    Tool(
        name="calendar.hold",
        description="Hold time on the owner's own calendar; invites nobody",
        input=HoldInput,
        run=hold,
        kind="makes",
        your_work="home_undo",
        undo=meetings.meeting_hold_undo,
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "calendar.list": {
        "after": "From this time, ISO 8601 or YYYY-MM-DD",
        "before": "Up to this time, ISO 8601 or YYYY-MM-DD",
        "query": "Words in the meeting's title, notes or guests",
        "limit": "How many meetings at most",
    },
    "calendar.hold": {
        "title": "What the time is held for",
        "start": "When it starts, ISO 8601 in the owner's time",
        "end": "When it ends, ISO 8601 in the owner's time",
        "note": "A note on the event",
    },
})
