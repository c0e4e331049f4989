"""What one step of a thread costs the database: the same number of queries at step 20 as at step 60 (a thread's
history is read once a turn and then only what is new), and a small number in all (bench/PERFORMANCE.md lists
them). Query counts, not times: they are the same on any machine."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents import services
from agents.runtime import turn
from agents.runtime.model import call, say
from agents.runtime.scheduler import drain

FIND = {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}
# One step of a tool that needs no yes (bench/PERFORMANCE.md lists them): the conversation's counter and the
# agent's pause read at once; the usage, the step counted on the work, the step's message (its seq taken from the
# counter) and its call, in one transaction; the tool's own query; the call's result and its message (its seq
# taken), in another. The same on SQLite and PostgreSQL: the counter's UPDATE is what makes writers take turns.
MOST_QUERIES_A_STEP = 10


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
    assert per_step <= MOST_QUERIES_A_STEP, per_step
