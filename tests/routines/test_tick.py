"""The scheduler's tick, with time driven by a frozen clock."""

import datetime

import pytest
from freezegun import freeze_time

from agents import services as agent_services
from agents.models import Message, Work
from agents.runtime.model import say
from agents.runtime.scheduler import drain
from routines import engine, services
from routines.models import RoutineRun

UTC = datetime.UTC


def at(text):
    return datetime.datetime.fromisoformat(text)


@pytest.fixture
def weekly(org, keeper):
    with freeze_time("2026-10-20T12:00:00Z"):
        return services.routine_add(org=org, agent=keeper, name="Overdue invoices", when={"at": "0 9 * * 1"},
                                    note="Chase invoices more than 7 days overdue.")


def test_a_monday_nine_routine_is_next_due_at_nine_new_york_time(weekly):
    assert weekly.next_fire_at == at("2026-10-26T13:00:00+00:00")  # 9:00 EDT


@pytest.mark.parametrize("monday_utc", ["2026-10-26T13:00:00+00:00", "2026-11-02T14:00:00+00:00"])
def test_it_fires_at_nine_local_on_both_sides_of_the_dst_change(org, keeper, monday_utc):
    with freeze_time(at(monday_utc) - datetime.timedelta(days=2)):
        routine = services.routine_add(org=org, agent=keeper, name="Weekly", when={"at": "0 9 * * 1"})
    with freeze_time(at(monday_utc) - datetime.timedelta(seconds=1)):
        assert engine.tick() == 0
    with freeze_time(at(monday_utc)):
        assert engine.tick() == 1
    routine.refresh_from_db()
    assert routine.next_fire_at.astimezone(services.owner_zone(org)).strftime("%a %H:%M") == "Mon 09:00"


def test_the_next_time_after_the_change_is_nine_est(weekly):
    with freeze_time("2026-10-26T13:00:00Z"):
        engine.tick()
    weekly.refresh_from_db()
    assert weekly.next_fire_at == at("2026-11-02T14:00:00+00:00")


def test_after_downtime_a_missed_routine_fires_once_not_once_per_slot(weekly):
    with freeze_time("2026-11-18T15:00:00Z"):  # three Mondays missed
        assert engine.tick() == 1
        assert engine.tick() == 0
    weekly.refresh_from_db()
    assert (weekly.fired, weekly.next_fire_at) == (1, at("2026-11-23T14:00:00+00:00"))


def test_a_tick_fires_each_due_routine_exactly_once(weekly):
    with freeze_time("2026-10-26T13:00:30Z"):
        engine.tick()
        engine.tick()
    assert RoutineRun.objects.count() == 1


def test_the_run_message_is_the_specs(org, keeper, weekly):
    from routines.models import Skill

    weekly.skill = Skill.objects.create(organization=org, agent=keeper, slug="chase-an-invoice",
                                        name="Chase an invoice", steps="1. Read the invoice.")
    weekly.save()
    with freeze_time("2026-10-26T13:00:00Z"):
        engine.tick()
    message = Message.objects.get(role="routine")
    assert message.text == (
        f"[Routine run · trigger {weekly.id} · Overdue invoices] What started it: its time came\n"
        "Skill: Chase an invoice\n1. Read the invoice.\n"
        "This time: Chase invoices more than 7 days overdue.\n"
        "Do the work now. Your last reply says what you found or made. If something needs the owner first, ask in "
        "your reply. If nothing needs doing, say so in one line and stop."
    )


def test_every_run_goes_to_the_routines_own_thread_named_after_it(weekly):
    for monday in ("2026-10-26T13:00:00Z", "2026-11-02T14:00:00Z"):
        with freeze_time(monday):
            engine.tick()
            RoutineRun.objects.filter(state="running").update(state="done")
            services.routine_start_next_run(routine=weekly)
    threads = {m.conversation_id for m in Message.objects.filter(role="routine")}
    weekly.refresh_from_db()
    assert threads == {weekly.thread_id} and weekly.thread.title == "Overdue invoices"


def test_a_run_that_fires_while_the_last_is_going_waits_for_it(org, weekly, model):
    services.routine_fire(routine=weekly, started_by="its time came")
    services.routine_fire(routine=weekly, started_by="its time came")
    assert list(RoutineRun.objects.values_list("state", flat=True)) == ["running", "waiting"]
    assert Message.objects.filter(role="routine").count() == 1
    model.add(say("Nothing overdue."), say("Nothing overdue again."))
    drain(org_id=org.id)
    assert list(RoutineRun.objects.values_list("state", flat=True)) == ["done", "done"]
    assert Message.objects.filter(role="routine").count() == 2


def test_a_due_routine_fires_once_and_closes(org, keeper):
    with freeze_time("2026-11-10T12:00:00Z"):
        routine = services.routine_add(org=org, agent=keeper, name="Nudge", when={"due": "2026-11-17T09:00:00-05:00"})
    with freeze_time("2026-11-17T14:00:00Z"):
        assert engine.tick() == 1
    routine.refresh_from_db()
    assert (routine.status, routine.next_fire_at) == ("closed", None)


def test_a_once_routine_closes_after_it_fires(org, keeper):
    with freeze_time("2026-10-20T12:00:00Z"):
        routine = services.routine_add(org=org, agent=keeper, name="Once", when={"at": "0 9 * * 1"}, once=True)
    with freeze_time("2026-10-26T13:00:00Z"):
        engine.tick()
    with freeze_time("2026-11-02T14:00:00Z"):
        assert engine.tick() == 0
    routine.refresh_from_db()
    assert (routine.status, routine.fired) == ("closed", 1)


def test_an_off_routine_does_not_fire(weekly):
    services.routine_set_on(routine=weekly, on=False)
    with freeze_time("2026-10-26T13:00:00Z"):
        assert engine.tick() == 0


def test_a_check_fires_when_its_result_changed_since_the_last_time(org, keeper):
    from tests.factories import ContactFactory

    with freeze_time("2026-11-10T12:00:00Z"):
        routine = services.routine_add(org=org, agent=keeper, name="New people", when={
            "check": {"tool": "contacts", "action": "list", "everyMinutes": 15}})
    with freeze_time("2026-11-10T12:15:00Z"):
        assert engine.tick() == 0  # the first look only learns what is there
    with freeze_time("2026-11-10T12:30:00Z"):
        assert engine.tick() == 0  # nothing changed
    ContactFactory(organization=org, name="Rosa Ortiz")
    with freeze_time("2026-11-10T12:45:00Z"):
        assert engine.tick() == 1
    assert RoutineRun.objects.get().started_by == "the result of contacts.list changed"
    routine.refresh_from_db()
    assert routine.next_fire_at == at("2026-11-10T13:00:00+00:00")


def test_a_check_whose_tool_answers_null_fires_when_the_answer_comes(org, keeper):
    # contacts.find answers null for an address no contact has: the check reads that as a result, not a failure.
    from records.models import ContactEmail
    from tests.factories import ContactFactory

    with freeze_time("2026-11-10T12:00:00Z"):
        services.routine_add(org=org, agent=keeper, name="Rosa writes", when={
            "check": {"tool": "contacts", "action": "find", "input": {"email": "rosa@example.com"},
                      "everyMinutes": 15}})
    with freeze_time("2026-11-10T12:15:00Z"):
        assert engine.tick() == 0  # the first look learns that no contact has the address
    with freeze_time("2026-11-10T12:30:00Z"):
        assert engine.tick() == 0
    rosa = ContactFactory(organization=org, name="Rosa Ortiz")
    ContactEmail.objects.create(organization=org, contact=rosa, email="rosa@example.com", position=0)
    with freeze_time("2026-11-10T12:45:00Z"):
        assert engine.tick() == 1
    assert RoutineRun.objects.get().started_by == "the result of contacts.find changed"


def test_a_follow_up_wakes_the_agent_that_set_it_in_its_thread(org, keeper, model):
    from records.models import OpenItem
    from tests.factories import ContactFactory

    rosa = ContactFactory(organization=org, name="Rosa Ortiz")
    thread = agent_services.thread_start(agent=keeper, title="Overdue invoices")
    OpenItem.objects.create(organization=org, contact=rosa, kind="follow_up", text="Invoice 1042: paid?",
                            at=at("2026-11-17T14:00:00+00:00"), thread=str(thread.id), by_kind="agent",
                            by_id=str(keeper.id))
    with freeze_time("2026-11-17T13:59:00Z"):
        engine.tick()
    assert not Message.objects.filter(conversation=thread).exists()
    with freeze_time("2026-11-17T14:00:00Z"):
        engine.tick()
        engine.tick()
    [message] = Message.objects.filter(conversation=thread)
    assert message.text.startswith("[Follow-up · Rosa Ortiz] Invoice 1042: paid?")


def test_a_closed_follow_up_wakes_no_one(org, keeper):
    from records.models import OpenItem
    from tests.factories import ContactFactory

    rosa = ContactFactory(organization=org, name="Rosa Ortiz")
    OpenItem.objects.create(organization=org, contact=rosa, kind="follow_up", text="paid?", by_kind="agent",
                            by_id=str(keeper.id), at=at("2026-11-17T14:00:00+00:00"),
                            closed_at=at("2026-11-16T10:00:00+00:00"))
    with freeze_time("2026-11-17T15:00:00Z"):
        engine.tick()
    assert not Message.objects.filter(text__startswith="[Follow-up").exists()


def test_the_morning_summary_is_written_at_seven_local(org, model):
    from routines.models import Summary

    model.add(say("Morning, Sam. Nothing needs you today."))
    with freeze_time("2026-11-17T11:59:00Z"):  # 6:59 in New York
        engine.tick()
    assert not Summary.objects.exists()
    with freeze_time("2026-11-17T12:00:00Z"):
        engine.tick()
        engine.tick()
        drain(org_id=org.id)
    assert list(Summary.objects.values_list("text", flat=True)) == ["Morning, Sam. Nothing needs you today."]


def test_the_summary_tells_roadstar_what_happened_since_the_last(org, model):
    from core.actors import Actor
    from core.services import change_record

    change_record(org=org, actor=Actor.system(), tool="contacts.create", kind="makes",
                  sentence="added Dana Whitfield to Contacts", listing="home")
    model.add(say("Summary."))
    with freeze_time("2026-11-17T12:00:00Z"):
        engine.tick()
        drain(org_id=org.id)
    assert "- Roadstar added Dana Whitfield to Contacts" in model.requests[0]["messages"][-1]["content"]


def test_a_routine_runs_answer_reaches_the_owner(org, weekly, model):
    model.add(say("Chased one overdue invoice."))
    services.routine_fire(routine=weekly, started_by="its time came")
    drain(org_id=org.id)
    assert Work.objects.get().answer == "Chased one overdue invoice."
    chat = agent_services.chat_for(agent=weekly.agent)
    assert Message.objects.get(conversation=chat).text == (
        "[Answer from Bookkeeper · Overdue invoices] Chased one overdue invoice."
    )


@pytest.mark.django_db(transaction=True)
def test_a_check_that_reads_an_app_runs_with_no_transaction_open(org, keeper, monkeypatch):
    """The check tool may read Gmail or QuickBooks: it runs before the routine is claimed, not under its lock."""
    from django.db import connection

    from integrations import meetings
    from integrations.providers.local_calendar import LocalCalendarProvider
    from integrations.services import connection_create_local

    seen = []

    class Watched(LocalCalendarProvider):
        def meetings(self, **query):
            seen.append(connection.in_atomic_block)
            return super().meetings(**query)

    connection_create_local(org=org, account="sam@fernhill.test", groups=["calendar"])
    monkeypatch.setattr(meetings, "provider_for", lambda conn, group, **options: Watched(conn))
    with freeze_time("2026-11-10T12:00:00Z"):
        services.routine_add(org=org, agent=keeper, name="New meetings", when={"check": {
            "tool": "calendar", "action": "list", "everyMinutes": 15,
            "input": {"after": "2026-11-10", "before": "2026-11-20"}}})
    with freeze_time("2026-11-10T12:15:00Z"):
        engine.tick()
    assert seen == [False]
