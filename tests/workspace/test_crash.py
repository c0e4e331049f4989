"""A worker that dies in the middle of workspace.bash: the code may have called tools that sent or changed things,
so the run is not run again; the turn answers unknown_outcome instead."""

import pytest

from agents import services
from agents.models import Conversation, Message, ToolCall
from agents.runtime import scheduler
from agents.runtime.agent_tools import writes_to_an_app
from agents.runtime.model import ScriptedModel, call, say, set_model
from agents.runtime.turn import drain, run_turn
from tests.factories import AgentFactory
from workspace import sandbox


def test_bash_is_marked_started_before_it_runs_and_the_file_tools_are_not():
    assert writes_to_an_app("use_tool", {"name": "workspace.bash", "input": {"command": "ls"}})
    for name in ("workspace.read", "workspace.write", "workspace.edit", "workspace.open"):
        assert not writes_to_an_app("use_tool", {"name": name, "input": {}}), name


def test_a_run_its_worker_died_in_is_not_run_again(org, monkeypatch):
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    desk = AgentFactory(organization=org, name="Client desk")
    monkeypatch.setattr(scheduler, "dispatch", lambda **kwargs: [])
    runs = []

    class Died(BaseException):
        pass

    def dies(**kwargs):
        runs.append(kwargs["command"])
        raise Died

    monkeypatch.setattr(sandbox, "run", dies)
    monkeypatch.setattr(sandbox, "_availability", None)
    model = ScriptedModel()
    model.add(call("start_thread", {"title": "Report", "task": "Run the report"}), say("Started."),
              call("use_tool", {"name": "workspace.bash", "input": {"command": "python send_invoices.py"}}),
              say("I'll look before running it again."))
    set_model(model)
    try:
        services.owner_message_send(org=org, agent=desk, text="Run the report")
        with pytest.raises(Died):
            drain(org_id=org.id)
        [thread] = Conversation.objects.filter(kind=Conversation.Kind.THREAD)
        run_turn(str(thread.id))  # the broker hands the dead worker's task out again
    finally:
        set_model(None)
    [result] = Message.objects.filter(role=Message.Role.TOOL, data__name="use_tool")
    assert runs == ["python send_invoices.py"]
    assert '"error":"unknown_outcome"' in result.text
    assert ToolCall.objects.get(name="use_tool").started_at is not None
