"""spec/use-cases/kickoff-call.md end to end on the example workspace's calendar and mail: what Sam sees."""

import datetime
import json

from freezegun import freeze_time

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.scheduler import drain
from core.models import Change
from core.owner_zone import zone_named
from integrations.local.models_calendar import LocalEvent
from records.models import Contact, OpenItem
from tests.use_cases.staff_script import StaffScript

NY = zone_named("America/New_York")
SAM = "Juniper signed! Book a kickoff call with Dana next week, an hour, mornings are best for me."
OFFER = ("Hi Dana,\n\nThanks for signing! Could we do a one-hour kickoff on Tuesday, November 17 at 10:00 AM Eastern? "
         "If that doesn't suit, Thursday at 9:00 works too.\n\nSam")
ANSWER = ("I've held Tuesday 10 to 11 for the Juniper kickoff and offered it to Dana, with Thursday 9 as a backup. "
          "I'll check Friday if she hasn't answered.")


def free_mornings(request) -> list[tuple[str, str]]:
    """What a model would find: the weekday morning hours (9–12, New York) no meeting overlaps."""
    meetings = json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])

    def local(value: str) -> str:
        return datetime.datetime.fromisoformat(value).astimezone(NY).strftime("%Y-%m-%dT%H:%M")

    busy = [(local(m["start"]), local(m["end"])) for m in meetings]
    free = []
    for day in range(16, 21):
        for hour in (9, 10, 11):
            start, end = f"2026-11-{day}T{hour:02d}:00", f"2026-11-{day}T{hour + 1:02d}:00"
            if not any(s < end and e > start for s, e in busy):
                free.append((start, end))
    return free


def test_booking_a_kickoff_call_end_to_end(fernhill):
    org = fernhill
    desk = Agent.objects.get(organization=org, name="Client desk")
    dana = Contact.objects.get(organization=org, name="Dana Whitfield")
    found = {}

    def hold(request):
        found["free"] = free_mornings(request)
        start, end = found["free"][0]
        return call("use_tool", {"name": "calendar.hold", "input": {
            "title": "Juniper Dental kickoff (held)", "start": f"{start}:00-05:00", "end": f"{end}:00-05:00",
            "note": "Offered to Dana Whitfield. Thursday 9:00 is the backup."}})

    staff = StaffScript()
    staff.on("Client desk", "chat",
             call("start_thread", {"title": "Juniper Dental", "task": "Book a one-hour kickoff call with Dana next "
                                   "week; mornings are best for Sam."}),
             say("Sent to the Juniper Dental thread."))
    staff.on("Client desk", "Juniper Dental",
             call("use_tool", {"name": "calendar.list", "input": {
                 "after": "2026-11-16T00:00:00-05:00", "before": "2026-11-21T00:00:00-05:00"}}),
             hold,
             call("use_tool", {"name": "mail.send", "input": {
                 "to": ["dana@juniperdental.test"], "subject": "Kickoff for the Juniper Dental rebrand",
                 "text": OFFER}}),
             call("use_tool", {"name": "contacts.follow_up", "input": {
                 "contactId": str(dana.id),
                 "text": "Kickoff: did Dana pick Tuesday or Thursday? Move the hold if needed.",
                 "at": "2026-11-13T09:00:00-05:00"}}),
             say(ANSWER))
    set_model(staff)
    try:
        with freeze_time("2026-11-10T15:00:00Z"):
            agent_services.owner_message_send(org=org, agent=desk, text=SAM)
            drain(org_id=org.id)
    finally:
        set_model(None)

    # Tuesday 10 to 11 and Thursday 9 to 10 are the free mornings.
    assert found["free"] == [("2026-11-17T10:00", "2026-11-17T11:00"), ("2026-11-19T09:00", "2026-11-19T10:00")]
    thread = Conversation.objects.get(agent=desk, kind="thread", title="Juniper Dental")
    results = [json.loads(m.text) for m in Message.objects.filter(conversation=thread, role="tool")]
    # The hold invites nobody and needs no yes; Sam asked for the call with Dana, so the email goes (held first).
    assert LocalEvent.objects.filter(title="Juniper Dental kickoff (held)").exists()
    assert "held" in results[2], results[2]
    # What Sam sees: the hold on Home with Undo, the email with Undo, the follow-up on Dana, and the answer.
    assert set(Change.objects.filter(listing="home_undo").values_list("tool", flat=True)) == {
        "calendar.hold",
        "mail.send",
    }
    assert OpenItem.objects.get(contact=dana, kind="follow_up").thread == str(thread.id)
    chat = agent_services.chat_for(agent=desk)
    assert Message.objects.filter(conversation=chat, role="answer").last().text.endswith(ANSWER)
