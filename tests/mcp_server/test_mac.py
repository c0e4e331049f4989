"""An agent that runs on the owner's Mac: its chat's messages reach the program there over MCP, Roadstar runs no
turn of its own for it, and the program's reply goes back to whoever sent each message."""

import pytest

from agents import services as agent_services
from agents.models import Agent, Message, Work
from agents.runtime.model import ScriptedModel, call, say, set_model
from agents.runtime.turn import drain
from mcp_server.server import outside_tools
from mcp_server.services import mcp_token_make
from mcp_server.session import OutsideSession
from routines import services as routine_services
from tests.agents.conftest import staff  # noqa: F401  (fixture)


@pytest.fixture
def mac(org):
    agent = Agent.objects.create(organization=org, name="Designer", job="Designs logos and signage",
                                 runs_on=Agent.RunsOn.MAC)
    token, _ = mcp_token_make(org=org, agent=agent, name="Claude Code")
    return agent, token


@pytest.fixture
def no_model():
    """A model that fails the test if Roadstar asks it anything."""
    scripted = ScriptedModel([])
    set_model(scripted)
    yield scripted
    set_model(None)


def session(token):
    token.refresh_from_db()
    return OutsideSession(token)


def test_roadstar_runs_no_turn_for_a_mac_agents_chat(org, mac, no_model):
    agent, _ = mac
    agent_services.owner_message_send(org=org, agent=agent, text="Sketch three logo ideas for Juniper.")
    drain(org_id=org.id)
    assert no_model.requests == []


def test_the_program_on_the_mac_reads_the_messages_waiting_in_its_chat(org, mac):
    agent, token = mac
    agent_services.owner_message_send(org=org, agent=agent, text="Sketch three logo ideas for Juniper.")
    result = session(token).run("messages", {})
    assert [(m["from"], m["text"]) for m in result["messages"]] == [
        ("the owner", "Sketch three logo ideas for Juniper.")
    ]


def test_its_reply_answers_the_owner_and_clears_what_waited(org, mac):
    agent, token = mac
    agent_services.owner_message_send(org=org, agent=agent, text="Sketch three logo ideas for Juniper.")
    result = session(token).run("reply", {"text": "Three sketches are in the Juniper folder."})
    assert result == {"replied": 1, "to": ["the owner"]}
    assert Work.objects.get(agent=agent).answer == "Three sketches are in the Juniper folder."
    assert session(token).run("messages", {}) == {"messages": []}


def test_its_reply_to_a_hand_off_goes_back_to_the_agent_that_asked(org, mac, staff):  # noqa: F811  (the pytest fixture imported above)
    agent, token = mac
    desk = staff["Client desk"]
    model = ScriptedModel([call("hand_off", {"agent": "Designer", "task": "Sketch a logo for Juniper"}),
                           say("Handed to Designer."), say("Designer sent sketches.")])
    set_model(model)
    try:
        agent_services.owner_message_send(org=org, agent=desk, text="Get Juniper a logo sketch")
        drain(org_id=org.id)
        assert session(token).run("messages", {})["messages"][0]["from"] == "Client desk"
        assert session(token).run("reply", {"text": "Sketch attached."}) == {"replied": 1, "to": ["Client desk"]}
        drain(org_id=org.id)
    finally:
        set_model(None)
    desk_chat = agent_services.chat_for(agent=desk)
    assert (
        Message.objects.filter(conversation=desk_chat, role="answer").last().text
        == "[Answer from Designer] Sketch attached."
    )


def test_a_routine_run_reaches_the_mac_agents_chat(org, mac, no_model):
    agent, token = mac
    routine = routine_services.routine_add(org=org, agent=agent, name="Weekly moodboard", when={"at": "0 9 * * 1"})
    routine_services.routine_fire(routine=routine, started_by="its time came")
    drain(org_id=org.id)
    [waiting] = session(token).run("messages", {})["messages"]
    assert waiting["from"] == "your routine Weekly moodboard" and "[Routine run" in waiting["text"]


def test_only_a_mac_agent_holds_messages_and_reply(org, mac, staff):  # noqa: F811  (the pytest fixture imported above)
    _, token = mac
    desk_token, _ = mcp_token_make(org=org, agent=staff["Client desk"], name="An app")
    mac_tools = {t.name for t in outside_tools(session(token).place)}
    app_tools = {t.name for t in outside_tools(session(desk_token).place)}
    assert mac_tools - app_tools == {"messages", "reply"}
    assert session(desk_token).run("reply", {"text": "x"})["error"] == "bad_input"
