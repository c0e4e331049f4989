"""Events matched to routines: by key through the index, with filters, and by the words of `ask`."""

import pytest

from agents.models import Message
from agents.runtime.model import say
from routines import engine, services
from routines.models import Event, RoutineKey, RoutineRun


def emit(org, kind, keys, payload=None, text=""):
    # Match in the test's own transaction: on_commit never runs inside a test's rolled-back transaction.
    event = Event.objects.create(organization=org, kind=kind, keys=[f"kind:{kind}", *keys], payload=payload or {},
                                 text=text)
    return engine.match_event(event)


def test_an_event_with_one_of_the_keys_fires_the_routine(org, keeper):
    services.routine_add(org=org, agent=keeper, name="Overdue", when={"keys": ["kind:invoice.overdue"]})
    runs = emit(org, "invoice.overdue", ["invoice:qb:1042", "customer:qb:58"])
    assert len(runs) == 1
    assert runs[0].started_by == "the event invoice.overdue (kind:invoice.overdue, invoice:qb:1042, customer:qb:58)"


def test_an_event_without_its_keys_fires_nothing(org, keeper):
    services.routine_add(org=org, agent=keeper, name="Dana", when={"keys": ["from:dana@juniperdental.test"]})
    assert emit(org, "mail.received", ["from:rosa@ortizbakery.test"]) == []


def test_a_filter_narrows_an_event(org, keeper):
    services.routine_add(org=org, agent=keeper, name="Meetings", when={"keys": ["kind:meeting.added"]},
                         filter={"withGuests": True})
    assert emit(org, "meeting.added", [], payload={"withGuests": False}) == []
    assert len(emit(org, "meeting.added", [], payload={"withGuests": True})) == 1


def test_another_workspaces_routine_is_not_matched(org, other_org, keeper):
    from tests.factories import AgentFactory

    other_agent = AgentFactory(organization=other_org, name="Bookkeeper")
    services.routine_add(org=other_org, agent=other_agent, name="Overdue", when={"keys": ["kind:invoice.overdue"]})
    assert emit(org, "invoice.overdue", []) == []


def test_matching_costs_per_key_not_per_routine(org, keeper, django_assert_max_num_queries):
    for i in range(200):
        services.routine_add(org=org, agent=keeper, name=f"Client {i}", when={"keys": [f"from:c{i}@x.test"]})
    event = Event.objects.create(organization=org, kind="mail.received", keys=["from:nobody@x.test"])
    with django_assert_max_num_queries(3):
        engine.match_event(event)


def test_an_ask_routine_fires_when_the_model_confirms(org, staff, model):
    desk = staff["Client desk"]
    services.routine_add(org=org, agent=desk, name="New client enquiries",
                         when={"ask": "a new client asking about a project or a quote"}, note="Answer the same day.")
    model.add(say("yes"))
    runs = emit(org, "mail.received", ["from:dana@juniperdental.test"],
                text="From: Dana Whitfield\nSubject: Rebrand\nCould you send us a quote for a new logo?")
    assert len(runs) == 1 and model.requests[0]["model_id"] == "gpt-6-luna"


def test_an_ask_routine_does_not_fire_when_the_model_says_no(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries",
                         when={"ask": "a new client asking about a project or a quote"})
    model.add(say("no"))
    assert emit(org, "mail.received", [], text="Your quote of the day: be kind.") == []


def test_mail_sharing_no_word_with_an_ask_costs_no_model_call(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries",
                         when={"ask": "a new client asking about a project or a quote"})
    emit(org, "mail.received", [], text="Lunch on Friday?")
    assert model.requests == []


def test_the_run_message_says_what_started_it_and_the_check_reads_the_note(org, staff, model):
    from agents.runtime.turn import check_turns

    desk = staff["Client desk"]
    services.routine_add(org=org, agent=desk, name="Enquiries", when={"keys": ["domain:juniperdental.test"]},
                         note="Sam sees every quote before it goes out.")
    emit(org, "mail.received", ["domain:juniperdental.test"], text="Hi Sam, could you quote a logo?")
    message = Message.objects.get(role="routine")
    assert "What started it: the event mail.received (kind:mail.received, domain:juniperdental.test)" in message.text
    turns = check_turns(message.conversation)
    assert turns[0] == {"role": "routine", "name": "Enquiries", "text": "Sam sees every quote before it goes out."}
    assert turns[1]["role"] == "read" and "could you quote a logo" in turns[1]["text"]


def test_an_ask_routine_is_indexed_by_its_words(org, keeper):
    routine = services.routine_add(org=org, agent=keeper, name="Q", when={"ask": "quotes for new projects"})
    assert set(RoutineKey.objects.filter(routine=routine).values_list("key", flat=True)) == {
        "word:quot", "word:project"}


@pytest.mark.django_db(transaction=True)
def test_event_emit_matches_after_commit_in_a_worker_task(org, keeper, settings):
    from django_q.models import OrmQ

    services.routine_add(org=org, agent=keeper, name="Overdue", when={"keys": ["kind:invoice.overdue"]})
    engine.event_emit(org=org, kind="invoice.overdue", keys=["invoice:qb:1042"])
    assert OrmQ.objects.count() == 1 and RoutineRun.objects.count() == 0
