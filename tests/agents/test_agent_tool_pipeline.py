"""The agent tools run through the tool pipeline (tools.pipeline.run_tool), as declared in the tool registry."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from agents import services
from agents.models import Agent, Run
from agents.runtime.agent_tools import run_agent_tool
from agents.runtime.sql_storage import SqlTurnStorage
from agents.runtime.turn import Turn
from core import limits
from core.models import Change
from tests.integrations.probe import probe_tool  # noqa: F401
from tools import registry
from tools.pipeline import recording
from tools.registry import RegistryError, Tool, ToolInput


def thread_turn(agent) -> Turn:
    thread = services.thread_start(agent=agent, title="Probe")
    run = Run.objects.create(organization=agent.organization, conversation=thread, agent=agent,
                             started_at=timezone.now())
    return Turn(SqlTurnStorage(thread), run)


def test_a_group_tools_result_past_the_limit_is_recorded_as_too_large(agent, probe_tool):  # noqa: F811
    # What the turn records is what the model reads next: the limit holds there too, not only in what returns.
    probe_tool(lambda ctx, inp: {"text": "r" * limits.TOOL_RESULT}, calls_apps=False)
    recorded = []
    with recording(recorded.append) as record:
        result = run_agent_tool(thread_turn(agent), "use_tool", {"name": "integrations.probe", "input": {}})
    assert record.done and result["error"] == "too_large" and recorded == [result]


@pytest.mark.django_db(transaction=True)
def test_a_tool_that_only_reads_runs_with_no_transaction_open_and_its_result_is_recorded(agent, probe_tool):  # noqa: F811
    # Nothing of its own to commit with the record: no BEGIN and COMMIT a call, and on SQLite no write lock held.
    seen = []
    probe_tool(lambda ctx, inp: seen.append(connection.in_atomic_block) or {"read": True}, calls_apps=False)
    recorded = []
    with recording(recorded.append) as record:
        result = run_agent_tool(thread_turn(agent), "use_tool", {"name": "integrations.probe", "input": {}})
    assert seen == [False] and record.done and recorded == [result] == [{"read": True}]


def test_make_agent_is_recorded_by_the_pipeline_with_its_undo(org):
    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    chat = services.chat_for(agent=roadstar)
    turn = Turn(SqlTurnStorage(chat), Run.objects.create(organization=org, conversation=chat, agent=roadstar,
                                         started_at=timezone.now()))
    result = run_agent_tool(turn, "make_agent", {"name": "Bookkeeper", "job": "Keeps the books", "owns": "Invoices",
                                                 "good": "Paid on time", "works": "Fridays", "asksFirst": "Refunds"})
    made = Agent.objects.get(organization=org, name="Bookkeeper")
    change = Change.objects.get(organization=org, tool="make_agent")
    assert result == {"made": "Bookkeeper", "next": "Hand it the work with hand_off."}
    assert (change.kind, change.listing, change.undo, change.created, change.conversation_id) == (
        "makes", "home_undo", {"agent_id": str(made.id)}, True, str(chat.id))


BOOKKEEPER = {"name": "Bookkeeper", "job": "Keeps the books", "owns": "Invoices", "good": "Paid on time",
              "works": "Fridays", "asksFirst": "Refunds"}


@pytest.mark.django_db(transaction=True)
def test_an_agent_tools_writes_commit_with_its_recorded_result_and_a_failed_call_leaves_nothing(org):
    # Every agent tool a turn runs, as a group tool does: called with no transaction open, its writes and the record
    # of its result in the one transaction the pipeline opens (no savepoint in a turn's own transaction).
    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    chat = services.chat_for(agent=roadstar)
    turn = Turn(SqlTurnStorage(chat), Run.objects.create(organization=org, conversation=chat, agent=roadstar,
                                                         started_at=timezone.now()))
    seen = []

    def write(result):
        seen.append((connection.in_atomic_block, Agent.objects.filter(organization=org, name="Bookkeeper").count()))

    assert not connection.in_atomic_block
    with recording(write) as record:
        result = run_agent_tool(turn, "make_agent", BOOKKEEPER)
    assert result["made"] == "Bookkeeper" and record.done and seen == [(True, 1)]
    with recording(write) as record:  # the same name again: refused, and nothing of it is written
        refused = run_agent_tool(turn, "make_agent", BOOKKEEPER)
    assert refused["error"] == "bad_input" and not record.done and len(seen) == 1
    assert Change.objects.filter(organization=org, tool="make_agent").count() == 1


def test_an_agent_tool_is_declared_with_a_group_tools_rules():
    class NoInput(ToolInput):
        pass

    with pytest.raises(RegistryError, match="must say how its change shows"):
        registry.register_agent_tool(Tool(name="forget_all", description="x", input=NoInput,
                                          run=lambda ctx, inp: None, kind="changes", places=frozenset({"chat"})))
    with pytest.raises(RegistryError, match="no such place"):
        registry.register_agent_tool(Tool(name="wander", description="x", input=NoInput,
                                          run=lambda ctx, inp: None, kind="reads", places=frozenset({"garden"})))
    with pytest.raises(RegistryError, match="registered twice"):
        registry.register_agent_tool(registry.AGENT_TOOLS["hand_off"])
    assert "forget_all" not in registry.AGENT_TOOLS
