"""What one step of a thread costs the database: the same number of queries at step 20 as at step 60 (a thread's
history is read once a turn and then only what is new), and a small number in all (bench/PERFORMANCE.md lists
them). Query counts, not times: they are the same on any machine."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents import services
from agents.runtime import turn
from agents.runtime.model import call, say
from agents.runtime.turn import drain
from checks.models import CheckDecision
from records.models import ContactEmail
from tests.factories import ContactFactory

FIND = {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}
# One step of a tool that needs no yes (bench/PERFORMANCE.md lists them). On SQLite: the conversation's counter and
# the agent's pause read at once; the usage, the step counted on the work, the step's message (its seq taken from
# the counter) and its call, in one transaction; the tool's own query; the call's result and its message (its seq
# taken), in the same transaction (a step that only reads is saved after its calls ran, with their results:
# Turn._step_after_calls). The counter's UPDATE is what makes writers take turns. On PostgreSQL 2, a round trip each
# (agents/runtime/sql_storage.py): the tool's query; then the step's rows, the call done with its result, the
# result's message and the counter and pause the next step reads, in one statement (it was 10, then 8, then 3).
MOST_QUERIES_A_STEP = {"sqlite": 10, "postgresql": 2}
# One step of a checked tool that goes (contacts.update of a contact's job title, which the owner asked for): the
# runtime's (as above, less the tool's own), then 6: the contact with what its record shows, in one query (read
# once a call: for the check's `replaces`, which also finds the record the input names in this workspace, for the
# update and for the result); the workspace's contacts as the check reads them and what this work made, in one
# statement; the decision's row; the update (compare-and-set on the title as read, which reads the row back); its
# log entry (written linked to the change, whose id is made first); the change on the record's log. The step is
# written after its call, inside the call's transaction, with the result (Turn._step_after_calls): the same
# statements, in one transaction where there were two. It was 23 (bench/PERFORMANCE.md lists them); the issue's
# target is 15. On PostgreSQL 4: the tool's reads (2) and its update, then the step with the call done, its result
# and the counter and pause, in one statement, as the call's transaction holds its rows for its next statement
# (core.rows.holding_writes): the decision goes with the update, the log entry and the change with the step (it
# was 15, then 13, then 8, then 5).
MOST_QUERIES_A_CHECKED_STEP = {"sqlite": 15, "postgresql": 4}


def queries_of_a_turn(org, agent, model, steps: int) -> int:
    org.check_enabled = False
    org.save()
    model.add(call("start_thread", {"title": f"Juniper Dental {steps}", "task": "Find Dana"}), say("Started."))
    model.add(*[call("use_tool", FIND) for _ in range(steps)], say("Found."))
    services.owner_message_send(org=org, agent=agent, text="Find Dana")
    with CaptureQueriesContext(connection) as queries:
        drain(org_id=org.id)
    return len([q for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]])


@pytest.mark.parametrize("more", [20, 60])
def test_a_step_costs_the_same_few_queries_however_long_the_thread(org, staff, model, more, monkeypatch):
    monkeypatch.setattr(turn, "THREAD_STEPS", 1000)  # a long piece of work, past the spec's 40 steps, to measure
    few = queries_of_a_turn(org, staff["Client desk"], model, 2)
    many = queries_of_a_turn(org, staff["Proposal writer"], model, 2 + more)
    per_step = (many - few) / more
    assert per_step == int(per_step), (few, many)  # every step the same
    assert per_step <= MOST_QUERIES_A_STEP[connection.vendor], per_step


# What a chat's turn and its thread's cost around their steps, with one step each but the chat's two (the chat
# starts the thread and says so; the thread answers): each turn's claim (2), its conversation with agent and
# workspace, its run, its open work, memory's lines, the staff, the agent's skills and the messages (7), and its
# end (the run's end, the counter under its lock, the hand-back: 3); the thread's browse_tools description (the
# research settings, once, and the workspace's connections with their search copies, once: which mail tools it
# has, search/takeover.py); start_thread's own writes; the answers' updates and the routines' hook; each
# transaction's BEGIN (SQLite's IMMEDIATE one; PostgreSQL's is implicit, but each claim locks the workspace's
# row). bench/PERFORMANCE.md lists them. It was 73 on SQLite. Issues 28 and 30 added one each: the description's groups
# of the workspace's own (the apps the owner connected by their MCP address), and its connections with their
# search copies, each read once. On PostgreSQL each message's seq and INSERT are one statement (64 before), and
# an answer's step one statement with its usage and count (58 before); start_thread reads its title and the open
# threads' count in one query, on both. (In the test's transaction, as here, a turn's start and end take their
# transaction's way: run outside one, a worker's, each is one statement on PostgreSQL, test_step_statements.py.)
MOST_QUERIES_TWO_TURNS = {"sqlite": 60, "postgresql": 46}


def test_a_turn_costs_a_few_queries_besides_its_steps(org, staff, model):
    assert queries_of_a_turn(org, staff["Client desk"], model, 0) <= MOST_QUERIES_TWO_TURNS[connection.vendor]


# --- a checked tool that goes ---------------------------------------------------------------------------------

ASKED = "Dana Whitfield's job title keeps changing: update it to Practice manager or Office manager as I say."
TITLES = ["Practice manager", "Office manager"]


def update_title(dana, i: int):
    return call("use_tool", {"name": "contacts.update",
                             "input": {"contactId": str(dana.id), "jobTitle": TITLES[i % 2]}})


def queries_of_a_checked_turn(org, agent, model, dana, steps: int) -> int:
    model.add(call("start_thread", {"title": f"Dana {steps}", "task": ASKED}), say("Started."))
    model.add(*[update_title(dana, i) for i in range(steps)], say("Updated."))
    services.owner_message_send(org=org, agent=agent, text=ASKED)
    with CaptureQueriesContext(connection) as queries:
        drain(org_id=org.id)
    return len([q for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]])


@pytest.fixture
def checked(org):
    org.check_enabled = True
    org.save(update_fields=["check_enabled"])
    dana = ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    ContactFactory(organization=org, name="Lee Park", emails=["lee@juniperdental.test"])
    return dana


@pytest.mark.parametrize("more", [20, 200])
def test_a_checked_step_that_goes_costs_the_same_few_queries(org, staff, model, checked, more, monkeypatch):
    monkeypatch.setattr(turn, "THREAD_STEPS", 1000)
    few = queries_of_a_checked_turn(org, staff["Client desk"], model, checked, 2)
    many = queries_of_a_checked_turn(org, staff["Proposal writer"], model, checked, 2 + more)
    decisions = CheckDecision.objects.filter(organization=org, tool="contacts.update")
    assert decisions.count() == 4 + more
    assert set(decisions.values_list("outcome", flat=True)) == {"go"}  # the owner asked: no yes needed
    checked.refresh_from_db()
    assert checked.job_title == TITLES[(1 + more) % 2]
    per_step = (many - few) / more
    assert per_step == int(per_step), (few, many)
    assert per_step <= MOST_QUERIES_A_CHECKED_STEP[connection.vendor], per_step


def _meanwhile(write, response):
    """A step's response that, before it is given, has another process (the owner on Home) write something."""
    def step(request):
        write()
        return response
    return step


ASKED_TWO = ("Dana Whitfield is Practice manager now: change her job title, and add dana@juniper-billing.test to her "
             "addresses.")


@pytest.mark.parametrize("meanwhile", [False, True])
def test_a_contact_changed_between_steps_is_checked_as_it_is_now(org, staff, model, checked, meanwhile):
    """The contact a checked update would change is read for each call, not held from an earlier step: an address
    the owner added between two steps of a turn is one the next update would take off, and the check is shown it
    as what the update replaces (held from the step before, the update would look like it only adds one). Whether
    that needs the owner's yes is the check's rules' to say (tests/checks); here, that they see it."""
    def owner_adds_an_address():
        if meanwhile:
            ContactEmail.objects.create(organization=org, contact=checked, email="dana.home@example.test",
                                        position=1)

    both = ["dana@juniperdental.test", "dana@juniper-billing.test"]
    model.add(call("start_thread", {"title": "Dana", "task": ASKED_TWO}), say("Started."))
    model.add(
        update_title(checked, 0),
        _meanwhile(owner_adds_an_address, call("use_tool", {"name": "contacts.update",
                                                            "input": {"contactId": str(checked.id), "emails": both}})),
        say("Done."),
    )
    services.owner_message_send(org=org, agent=staff["Client desk"], text=ASKED_TWO)
    drain(org_id=org.id)
    decisions = list(CheckDecision.objects.filter(organization=org).order_by("created_at"))
    assert [d.outcome for d in decisions][0] == "go"
    if meanwhile:
        assert decisions[1].replaces == {"name": "Dana Whitfield", "emails": ["dana.home@example.test"]}
    else:
        assert decisions[1].replaces is None
        assert decisions[1].outcome == "go"
        assert list(ContactEmail.objects.filter(contact=checked).values_list("email", flat=True)) == both
