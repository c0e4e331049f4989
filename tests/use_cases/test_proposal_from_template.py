"""spec/use-cases/proposal-from-template.md end to end on the example workspace's local files, with the check on
and the scripted model: what Sam sees."""

import json

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.turn import drain
from core.models import Change
from tests.use_cases.staff_script import StaffScript

FILLED = {
    "{{CLIENT}}": "Ortiz Bakery", "{{CONTACT}}": "Rosa Ortiz",
    "{{SCOPE}}": "New packaging for six bread and pastry lines: box, bag and label designs, print-ready files, and "
                 "a one-page packaging guide.",
    "{{PRICE}}": "$6,200", "{{DATE}}": "Friday, November 13, 2026",
}
ANSWER = ("The Ortiz Bakery packaging proposal is ready for you in Drive: six product lines, $6,200, four weeks. "
          "Shall I send it to Rosa?")


def results(request):
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def test_a_proposal_from_the_template_end_to_end(fernhill):
    org = fernhill
    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    staff = StaffScript()
    staff.on("Roadstar", "chat",
             call("hand_off", {"agent": "Proposal writer",
                               "task": "Write the Ortiz Bakery packaging redesign proposal for Rosa Ortiz, due Friday.",
                               "notes": "Sam's first proposal for you. Rosa wants it by Friday."}),
             say("I've handed the Ortiz Bakery proposal to Proposal writer."),
             say("Proposal writer has the Ortiz Bakery proposal ready for you."))
    staff.on("Proposal writer", "chat",
             call("start_thread", {"title": "Ortiz Bakery", "task": "Write the Ortiz Bakery packaging redesign "
                                   "proposal for Rosa Ortiz from the template, due Friday."}),
             say("Started a thread on Ortiz Bakery."))
    thread_steps = [
        call("use_tool", {"name": "files.search", "input": {"query": "proposal template"}}),
        call("use_tool", {"name": "contacts.find", "input": {"email": "rosa@ortizbakery.test"}}),
        lambda r: call("use_tool", {"name": "files.copy", "input": {
            "id": results(r)[0]["hits"][0]["id"], "name": "Ortiz Bakery: packaging redesign proposal"}}),
    ]
    for find, replace in FILLED.items():
        thread_steps.append(lambda r, find=find, replace=replace: call("use_tool", {
            "name": "files.replace_text", "input": {
                "id": next(x for x in results(r) if x.get("name") == "Ortiz Bakery: packaging redesign proposal")["id"],
                "find": find, "replace": replace}}))
    thread_steps.append(lambda r: call("use_tool", {"name": "files.read", "input": {
        "id": next(x for x in results(r) if x.get("name") == "Ortiz Bakery: packaging redesign proposal")["id"]}}))
    thread_steps.append(say(ANSWER))
    staff.on("Proposal writer", "Ortiz Bakery", *thread_steps)
    set_model(staff)
    try:
        agent_services.owner_message_send(org=org, agent=roadstar, text=(
            "I'm spending my evenings on proposals. Can someone take them on? Start with the Ortiz Bakery packaging "
            "one: Rosa wants it by Friday."))
        drain(org_id=org.id)
    finally:
        set_model(None)

    thread = Conversation.objects.get(kind="thread", title="Ortiz Bakery")
    tool_results = [json.loads(m.text) for m in Message.objects.filter(conversation=thread, role="tool")]
    replaced = tool_results[3:8]
    # Each replacement changed only the copy this work made, so none was asked about.
    assert all("not_done_yet" not in r and "error" not in r for r in replaced), replaced
    final = tool_results[8]["text"]
    assert "{{" not in final and "Ortiz Bakery" in final and "$6,200" in final
    # What Sam sees: the copy and each replacement on Home with Undo, and the answer back with Roadstar.
    undoable = list(Change.objects.filter(listing="home_undo").values_list("tool", flat=True))
    assert sorted(undoable) == ["files.copy"] + ["files.replace_text"] * 5
    roadstar_chat = agent_services.chat_for(agent=roadstar)
    assert Message.objects.filter(conversation=roadstar_chat, role="answer").last().text == (
        f"[Answer from Proposal writer · Ortiz Bakery] {ANSWER}")
