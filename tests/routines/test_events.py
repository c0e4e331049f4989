"""Events matched to routines: by key through the index, with filters, and `ask` routines by meaning."""

import json

import pytest

from agents.models import Message
from agents.runtime.model import say
from core.models import Card
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


def test_matching_costs_per_key_not_per_routine(org, keeper, django_assert_num_queries):
    for i in range(200):
        services.routine_add(org=org, agent=keeper, name=f"Client {i}", when={"keys": [f"from:c{i}@x.test"]})
    event = Event.objects.create(organization=org, kind="mail.received", keys=["from:nobody@x.test"])
    with django_assert_num_queries(1):  # the statement that reads the index and marks the event
        assert engine.match_event(event) == []
    event.refresh_from_db()
    assert event.matched_at is not None


def test_another_workspaces_keys_do_not_hold_an_event_back(org, other_org, keeper, django_assert_num_queries):
    # The one statement reads this workspace's keys only: the other's routine on the same key neither fires nor
    # sends the event down the path that looks for what listens.
    from tests.factories import AgentFactory

    other_agent = AgentFactory(organization=other_org, name="Bookkeeper")
    services.routine_add(org=other_org, agent=other_agent, name="Dana", when={"keys": ["from:dana@x.test"]})
    event = Event.objects.create(organization=org, kind="mail.received", keys=["kind:mail.received",
                                                                               "from:dana@x.test"])
    with django_assert_num_queries(1):
        assert engine.match_event(event) == []
    assert not RoutineRun.objects.exists()


def test_an_event_with_no_keys_is_marked_and_fires_nothing(org, keeper):
    services.routine_add(org=org, agent=keeper, name="Overdue", when={"keys": ["kind:invoice.overdue"]})
    event = Event.objects.create(organization=org, kind="invoice.overdue", keys=[])
    assert engine.match_event(event) == []
    event.refresh_from_db()
    assert event.matched_at is not None


def test_an_event_already_matched_fires_nothing_again(org, keeper):
    services.routine_add(org=org, agent=keeper, name="Overdue", when={"keys": ["kind:invoice.overdue"]})
    event = Event.objects.create(organization=org, kind="mail.received", keys=["kind:mail.received"])
    stale = Event.objects.get(id=event.id)
    assert engine.match_event(event) == [] and engine.match_event(stale) == []
    first = Event.objects.get(id=event.id).matched_at
    assert first is not None
    Event.objects.filter(id=event.id).update(keys=["kind:invoice.overdue"])  # now a routine listens for it
    assert engine.match_event(Event.objects.get(id=event.id)) == []
    assert Event.objects.get(id=event.id).matched_at == first and not RoutineRun.objects.exists()


def elsewhere(work):
    """Run `work` on a connection of its own, as another process would: nothing this process holds sees it."""
    import threading

    from django.db import connection

    def target():
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()


@pytest.mark.django_db(transaction=True)
def test_a_routine_added_changed_or_turned_off_elsewhere_counts_for_the_next_event(org, keeper):
    from routines.models import Routine

    assert emit(org, "mail.received", ["from:dana@x.test"]) == []  # this process has matched before
    elsewhere(lambda: services.routine_add(org=org, agent=keeper, name="Dana", when={"keys": ["from:dana@x.test"]}))
    assert [run.routine.name for run in emit(org, "mail.received", ["from:dana@x.test"])] == ["Dana"]

    elsewhere(lambda: services.routine_change(routine=Routine.objects.get(name="Dana"),
                                              when={"keys": ["from:rosa@x.test"]}))
    assert emit(org, "mail.received", ["from:dana@x.test"]) == []
    assert len(emit(org, "mail.received", ["from:rosa@x.test"])) == 1

    elsewhere(lambda: services.routine_set_on(routine=Routine.objects.get(name="Dana"), on=False))
    assert emit(org, "mail.received", ["from:rosa@x.test"]) == []
    assert RoutineRun.objects.count() == 2


def matches(*names_or_ids):
    """A scripted answer of the matching model: {"matches": [...]}, by routine id, or by routine name looked up in
    the prompt's "<number>: <ask>" lines (so the test also proves the prompt numbers each routine)."""

    def answer(request):
        from routines.models import Routine

        ids = [n if isinstance(n, int) else Routine.objects.get(name=n).id for n in names_or_ids]
        prompt = request["messages"][1]["content"]
        for routine_id in ids:
            assert f"\n{routine_id}: " in prompt, f"routine {routine_id} was not offered"
        return say(json.dumps({"matches": ids}))

    return answer


ENQUIRIES = "a new client asking about a project or a quote"


def test_an_ask_routine_fires_when_the_model_names_it(org, staff, model):
    desk = staff["Client desk"]
    services.routine_add(org=org, agent=desk, name="New client enquiries", when={"ask": ENQUIRIES},
                         note="Answer the same day.")
    model.add(matches("New client enquiries"))
    runs = emit(org, "mail.received", ["from:dana@juniperdental.test"],
                text="From: Dana Whitfield\nSubject: Rebrand\nCould you send us a quote for a new logo?")
    assert len(runs) == 1
    [request] = model.requests
    assert (request["model_id"], request["tools"], request["json_schema"]) == ("gpt-6-luna", [], engine.MATCH_SCHEMA)


def test_an_ask_routine_does_not_fire_when_the_model_names_none(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    model.add(say('{"matches": []}'))
    assert emit(org, "mail.received", [], text="Your quote of the day: be kind.") == []


def test_mail_sharing_no_word_with_an_ask_still_reaches_the_model(org, staff, model):
    # The enquiry that was missed over the wire: nothing in it is a word of the ask once stop words are gone.
    text = "From: Dana Whitfield\nSubject: Signs\nHi Sam, what would that cost for our second clinic?"
    assert services.ask_words(text) & services.ask_words(ENQUIRIES) == set()
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    model.add(matches("Enquiries"))
    assert len(emit(org, "mail.received", [], text=text)) == 1


# Paraphrased items, each sharing no word with the ask it is for (checked below), and one that is for none.
ASKS = {
    "New client enquiries": ("Client desk", ENQUIRIES),
    "Supplier bills": ("Bookkeeper", "a supplier's bill or invoice to pay"),
    "Press": ("Client desk", "a journalist or podcast wanting an interview"),
    "Complaints": ("Client desk", "an unhappy client complaining about our work"),
    "Briefs": ("Proposal writer", "a brief for new design work"),
}
PARAPHRASED = [
    ("Hi Sam, what would that cost for our second clinic's signs?", "New client enquiries"),
    ("Could you price up menu boards for the bakery? Thinking three of them.", "New client enquiries"),
    ("Attached: amount due for the paper stock we delivered, payable within 30 days.", "Supplier bills"),
    ("I host a show about small studios and would love to have you on next month.", "Press"),
    ("Honestly the menus look nothing like what we agreed and I'm disappointed.", "Complaints"),
    ("Here's what we'd want the packaging to say, and the sizes, before you start sketching.", "Briefs"),
    ("Lunch on Friday?", None),
]


def test_recall_on_paraphrased_items_is_every_one_with_every_ask_offered_in_one_call(org, staff, model):
    """Recall of ask matching, measured: each paraphrased item reaches the model in one batched call that offers
    every ask routine of the workspace, and the routine the model names runs. With words as a filter, none of
    these would have reached the model at all."""
    from routines.models import Routine

    for name, (agent, ask) in ASKS.items():
        services.routine_add(org=org, agent=staff[agent], name=name, when={"ask": ask})
    found = 0
    for text, expected in PARAPHRASED:
        if expected:
            assert services.ask_words(text) & services.ask_words(ASKS[expected][1]) == set(), text
        model.requests.clear()
        model.add(matches(*([expected] if expected else [])))
        runs = emit(org, "mail.received", ["from:someone@elsewhere.test"], text=f"From: someone\n\n{text}")
        [request] = model.requests
        prompt = request["messages"][1]["content"]
        assert all(f"{r.id}: {r.ask}" in prompt for r in Routine.objects.filter(organization=org))
        assert text in prompt
        assert [run.routine.name for run in runs] == ([expected] if expected else [])
        found += bool(expected and runs)
    expected_total = sum(1 for _, e in PARAPHRASED if e)
    assert found / expected_total == 1.0


def test_one_item_can_be_for_several_routines_of_several_agents(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    services.routine_add(org=org, agent=staff["Proposal writer"], name="Briefs", when={"ask": ASKS["Briefs"][1]})
    model.add(matches("Enquiries", "Briefs"))
    runs = emit(org, "mail.received", [], text="Here is our brief; what would it cost?")
    assert sorted(r.routine.agent.name for r in runs) == ["Client desk", "Proposal writer"]
    assert len(model.requests) == 1


def test_no_ask_routine_means_no_model_call(org, keeper, model):
    services.routine_add(org=org, agent=keeper, name="Dana", when={"keys": ["from:dana@juniperdental.test"]})
    emit(org, "mail.received", ["from:rosa@ortizbakery.test"], text="What would that cost?")
    assert model.requests == []


def test_routines_turned_off_and_other_workspaces_routines_are_not_offered(org, other_org, staff, model):
    from tests.factories import AgentFactory

    on = services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    off = services.routine_add(org=org, agent=staff["Client desk"], name="Press", when={"ask": ASKS["Press"][1]})
    services.routine_set_on(routine=off, on=False)
    theirs = services.routine_add(org=other_org, agent=AgentFactory(organization=other_org, name="Desk"),
                                  name="Theirs", when={"ask": ENQUIRIES})
    # A model that names what it wasn't offered (another workspace's routine) fires nothing of it.
    model.add(say(json.dumps({"matches": [on.id, off.id, theirs.id]})))
    runs = emit(org, "mail.received", [], text="What would that cost?")
    prompt = model.requests[0]["messages"][1]["content"]
    assert f"{on.id}: " in prompt and f"{off.id}: " not in prompt and f"{theirs.id}: " not in prompt
    assert [r.routine_id for r in runs] == [on.id]


@pytest.mark.parametrize("answer", ["yes", '{"matches": "all"}', '{"matches": [1], "why": "x"}', "", "[1]",
                                    '{"matches": [true]}'])
def test_an_answer_that_is_not_the_json_asked_for_is_asked_again_and_then_fires_nothing(org, staff, model, answer,
                                                                                         caplog):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    model.add(*[say(answer)] * engine.ASK_TRIES)
    assert emit(org, "mail.received", [], text="What would that cost?") == []
    assert len(model.requests) == engine.ASK_TRIES
    assert "not the JSON asked for" in caplog.text


def test_a_bad_answer_then_a_good_one_fires_the_routine(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    model.add(say("Sure! The first one."), matches("Enquiries"))
    runs = emit(org, "mail.received", [], text="What would that cost?")
    assert [r.routine.name for r in runs] == ["Enquiries"] and len(model.requests) == 2
    assert not Card.objects.filter(organization=org, kind="try_again").exists()


def test_no_model_fires_no_ask_says_why_in_the_log_and_leaves_a_card(org, staff, settings, caplog):
    settings.MODEL_CONFIGURED = False
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    event_runs = emit(org, "mail.received", [], text="What would that cost?")
    assert event_runs == []
    assert "could not weigh 1 ask routines" in caplog.text
    [card] = Card.objects.filter(organization=org, kind="try_again", resolved_at__isnull=True)
    assert card.action_label == "Try again" and len(card.data["event_ids"]) == 1


def test_asks_that_cant_be_weighed_leave_one_card_that_try_again_weighs_and_fires(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    keyed = services.routine_add(org=org, agent=staff["Client desk"], name="Dana",
                                 when={"keys": ["from:dana@juniperdental.test"]})
    model.add(*[say("no idea")] * (2 * engine.ASK_TRIES))
    first = emit(org, "mail.received", ["from:dana@juniperdental.test"], text="What would that cost?")
    emit(org, "mail.received", [], text="Could you price menu boards?")
    assert [r.routine_id for r in first] == [keyed.id]  # its keys' routine fires all the same
    [card] = Card.objects.filter(organization=org, kind="try_again", resolved_at__isnull=True)
    assert card.title == engine.ASK_FAILED_TITLE and len(card.data["event_ids"]) == 2
    assert "2 items waiting since" in card.body and "Nothing is lost" in card.body and "{" not in card.body
    assert "ask" not in card.title.lower() or "routine" in card.title  # owner's words, no field names
    # Try again: the card is taken once; a second click finds it dealt with.
    model.add(matches("Enquiries"), matches())
    queued = engine.asks_try_again(org=org, card_id=card.id)
    assert (queued, engine.asks_try_again(org=org, card_id=card.id)) == (2, 0)
    runs = engine.match_asks_again(org_id=org.id, event_ids=card.data["event_ids"])
    assert [r.routine.name for r in runs] == ["Enquiries"]
    card.refresh_from_db()
    assert card.resolved_at is not None


def test_try_again_that_fails_again_opens_the_card_again(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    model.add(*[say("no idea")] * (2 * engine.ASK_TRIES))
    emit(org, "mail.received", [], text="What would that cost?")
    [card] = Card.objects.filter(organization=org, kind="try_again", resolved_at__isnull=True)
    engine.asks_try_again(org=org, card_id=card.id)
    assert engine.match_asks_again(org_id=org.id, event_ids=card.data["event_ids"]) == []
    [again] = Card.objects.filter(organization=org, kind="try_again", resolved_at__isnull=True)
    assert again.id != card.id and again.data["event_ids"] == card.data["event_ids"]


def test_a_routine_with_keys_and_an_ask_fires_once_for_an_item_its_keys_catch(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Dana",
                         when={"keys": ["from:dana@juniperdental.test"], "ask": ENQUIRIES})
    runs = emit(org, "mail.received", ["from:dana@juniperdental.test"], text="What would that cost?")
    assert len(runs) == 1 and model.requests == []


def test_an_ask_routines_filter_narrows_what_is_offered(org, staff, model):
    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES},
                         filter={"source": "studio@fernhill.test"})
    assert emit(org, "mail.received", [], payload={"source": "sam@fernhill.test"}, text="A quote?") == []
    assert model.requests == []


def test_many_ask_routines_go_in_batches_of_bounded_size_the_likeliest_first(org, staff, model):
    desk = staff["Client desk"]
    for i in range(engine.ASK_BATCH + 5):
        services.routine_add(org=org, agent=desk, name=f"Ask {i}", when={"ask": f"topic{i} " + "x" * 1000})
    likely = services.routine_add(org=org, agent=desk, name="Signage", when={"ask": "signage for a clinic"})
    model.add(say('{"matches": []}'), say('{"matches": []}'))
    emit(org, "mail.received", [], text="Signage for our clinic? " + "y" * 20_000)
    assert len(model.requests) == 2
    first, second = (r["messages"][1]["content"] for r in model.requests)
    assert first.startswith(f"The owner's requests, by number:\n{likely.id}: signage for a clinic\n")
    assert first.count("\n") - second.count("\n") == engine.ASK_BATCH - 6
    assert max(len(first), len(second)) < engine.ASK_BATCH * (engine.ASK_CHARS + 10) + engine.ITEM_CHARS + 200


def test_the_matching_costs_the_workspace_not_an_agents_budget(org, staff, model):
    from agents.models import Usage

    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    model.add(say('{"matches": []}'))
    emit(org, "mail.received", [], text="What would that cost?")
    assert list(Usage.objects.values_list("purpose", "agent", "model")) == [("match", None, "gpt-6-luna")]


def test_the_run_message_says_what_started_it_and_the_check_reads_the_note(org, staff, model):
    from agents.runtime.check_turns import check_turns

    desk = staff["Client desk"]
    services.routine_add(org=org, agent=desk, name="Enquiries", when={"keys": ["domain:juniperdental.test"]},
                         note="Sam sees every quote before it goes out.")
    emit(org, "mail.received", ["domain:juniperdental.test"], text="Hi Sam, could you quote a logo?")
    message = Message.objects.get(role="routine")
    assert "What started it: the event mail.received (kind:mail.received, domain:juniperdental.test)" in message.text
    turns = check_turns(message.conversation)
    assert turns[0] == {"role": "routine", "name": "Enquiries", "text": "Sam sees every quote before it goes out."}
    assert turns[1]["role"] == "read" and "could you quote a logo" in turns[1]["text"]


def test_the_run_message_names_the_mail_its_sender_subject_and_ids(org, staff, model):
    # spec/how-it-works/routines-and-skills.md: the run's message says "what started it (the event and its keys,
    # or the time)", so the thread can read the mail at once rather than search for it.
    desk = staff["Client desk"]
    services.routine_add(org=org, agent=desk, name="New client enquiries", when={"ask": ENQUIRIES},
                         note="Answer the same day.")
    model.add(matches("New client enquiries"))
    emit(org, "mail.received", ["from:dana@juniperdental.test", "thread:7c41e2d0:19a2c4e07d5b3f18"],
         payload={"id": "7c41e2d0:19a2c4e07d5b3f18", "threadId": "7c41e2d0:19a2c4e07d5b3f18",
                  "from": "Dana Whitfield <dana@juniperdental.test>", "subject": "Rebrand for our\nsecond clinic",
                  "source": "sam@fernhill.test"},
         text="From: Dana Whitfield\nSubject: Rebrand\nWhat would that cost?")
    message = Message.objects.get(role="routine")
    assert message.text.startswith(
        f"[Routine run · trigger {message.data['routine_id']} · New client enquiries] What started it: the event "
        "mail.received (kind:mail.received, from:dana@juniperdental.test, thread:7c41e2d0:19a2c4e07d5b3f18), matching "
        "its words: from Dana Whitfield <dana@juniperdental.test>, subject “Rebrand for our second clinic”, mail id "
        "7c41e2d0:19a2c4e07d5b3f18, thread 7c41e2d0:19a2c4e07d5b3f18\nThis time: Answer the same day.\nDo the work now."
    )


@pytest.mark.parametrize("kind,keys,payload,about", [
    ("invoice.overdue", ["invoice:qb:1042", "customer:qb:58"],
     {"id": "1042", "number": "1042", "customer": "Ortiz Bakery", "balance": 1250, "currency": "USD", "daysLate": 10},
     "invoice 1042, to Ortiz Bakery, 1250 USD owed, 10 days late, invoice id 1042"),
    ("meeting.added", ["with:dana@juniperdental.test"],
     {"id": "7c41e2d0:ev1", "title": "Kickoff", "start": "2026-11-12T15:00:00Z", "guests": ["dana@juniperdental.test"],
      "withGuests": True},
     "the meeting “Kickoff”, at 2026-11-12T15:00:00Z, with dana@juniperdental.test, meeting id 7c41e2d0:ev1"),
    ("doc.changed", ["doc:7c41e2d0:1QmR"], {"id": "7c41e2d0:1QmR", "title": "Rate card 2026", "who": "Sam Rivera"},
     "the doc “Rate card 2026”, changed by Sam Rivera, file id 7c41e2d0:1QmR"),
])
def test_each_kind_of_event_says_what_it_was_about(org, keeper, kind, keys, payload, about):
    services.routine_add(org=org, agent=keeper, name="Watch", when={"keys": [f"kind:{kind}"]})
    [run] = emit(org, kind, keys, payload=payload)
    assert run.started_by == f"the event {kind} ({', '.join([f'kind:{kind}', *keys])}): {about}"


def test_an_ask_routine_is_not_in_the_key_index(org, keeper):
    routine = services.routine_add(org=org, agent=keeper, name="Q", when={"ask": "quotes for new projects"})
    assert not RoutineKey.objects.filter(routine=routine).exists()


@pytest.mark.django_db(transaction=True)
def test_event_emit_matches_after_commit_in_a_worker_task(org, keeper, settings):
    from django_q.models import OrmQ

    services.routine_add(org=org, agent=keeper, name="Overdue", when={"keys": ["kind:invoice.overdue"]})
    engine.event_emit(org=org, kind="invoice.overdue", keys=["invoice:qb:1042"])
    assert OrmQ.objects.count() == 1 and RoutineRun.objects.count() == 0


def test_an_event_handed_to_two_workers_fires_its_routines_once(org, keeper):
    services.routine_add(org=org, agent=keeper, name="Overdue", when={"keys": ["kind:invoice.overdue"]})
    event = Event.objects.create(organization=org, kind="invoice.overdue", keys=["kind:invoice.overdue"])
    stale = Event.objects.get(id=event.id)  # the second worker read the event before the first marked it
    assert len(engine.match_event(event)) == 1
    assert engine.match_event(stale) == []
    assert RoutineRun.objects.filter(event=event).count() == 1


def test_a_routine_the_owner_turns_off_while_an_event_is_matched_does_not_fire(org, keeper, monkeypatch):
    """The routines an event names are read, then read again under their locks where they fire: one turned off
    in between (the owner, on its page) is not fired."""
    kept = services.routine_add(org=org, agent=keeper, name="Kept", when={"keys": ["kind:invoice.overdue"]})
    stopped = services.routine_add(org=org, agent=keeper, name="Stopped", when={"keys": ["kind:invoice.overdue"]})
    event = Event.objects.create(organization=org, kind="invoice.overdue", keys=["kind:invoice.overdue"])
    locked = services.routines_locked

    def turned_off_first(**kwargs):
        services.routine_set_on(routine=stopped, on=False)
        return locked(**kwargs)

    monkeypatch.setattr(services, "routines_locked", turned_off_first)
    assert [run.routine_id for run in engine.match_event(event)] == [kept.id]
    assert not RoutineRun.objects.filter(routine=stopped).exists()


def test_a_worker_that_dies_mid_match_leaves_nothing_fired_for_the_retry(org, keeper, monkeypatch):
    for name in ("First", "Second"):
        services.routine_add(org=org, agent=keeper, name=name, when={"keys": ["kind:invoice.overdue"]})
    event = Event.objects.create(organization=org, kind="invoice.overdue", keys=["kind:invoice.overdue"])
    # An event's match fires the routines it read under their locks (routine_fire_locked).
    fire = services.routine_fire_locked

    def dies_at_the_second(*, routine, **kwargs):
        if routine.name == "Second":
            raise SystemExit("killed")
        return fire(routine=routine, **kwargs)

    monkeypatch.setattr(services, "routine_fire_locked", dies_at_the_second)
    with pytest.raises(SystemExit):
        engine.match_event(event)
    event.refresh_from_db()
    assert event.matched_at is None and not RoutineRun.objects.filter(event=event).exists()

    monkeypatch.setattr(services, "routine_fire_locked", fire)
    assert sorted(run.routine.name for run in engine.match_event(event)) == ["First", "Second"]
    assert RoutineRun.objects.filter(event=event).count() == 2


def test_the_cards_try_again_on_home_takes_it_and_queues_the_weighing(org, staff, model, client, monkeypatch,
                                                                    django_capture_on_commit_callbacks):
    from django.urls import reverse

    services.routine_add(org=org, agent=staff["Client desk"], name="Enquiries", when={"ask": ENQUIRIES})
    model.add(*[say("no idea")] * engine.ASK_TRIES)
    emit(org, "mail.received", [], text="What would that cost?")
    [card] = Card.objects.filter(organization=org, kind="try_again", resolved_at__isnull=True)
    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda *args, **kwargs: queued.append(args))
    client.force_login(org.owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("card_try_again", args=[card.id]))
    card.refresh_from_db()
    assert card.resolved_at is not None
    assert queued == [("routines.tasks.match_asks_again", str(org.id), card.data["event_ids"])]
