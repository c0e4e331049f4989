"""spec/use-cases/make-an-agent.md end to end on the scripted model: what Sam sees."""

from agents import services
from agents.models import Agent, Message, Work
from agents.runtime.model import call, say
from agents.runtime.turn import drain
from core.models import Change
from tests.factories import ContactFactory

SAM_ASKS = (
    "I'm spending my evenings on proposals. Can someone take them on? Start with the Ortiz Bakery packaging one: "
    "Rosa wants it by Friday."
)


def test_roadstar_makes_proposal_writer_and_hands_it_the_first_work(org, model):
    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    desk = Agent.objects.create(organization=org, name="Client desk", job="Answers new and current clients")
    rosa = ContactFactory(organization=org, name="Rosa Ortiz")
    model.add(
        call("make_agent", {
            "name": "Proposal writer", "job": "Prices and writes proposals and quotes from the rate card",
            "owns": "Every proposal and quote Fernhill Studio sends: scope, price and timeline.",
            "good": "Priced from the current rate card, in Sam's voice, one page where it can be, sent to Sam the "
                    "same day it's asked for.",
            "works": "When a client asks for a price or another agent hands one over.",
            "asksFirst": "Anything off the rate card, discounts, and before any proposal goes to a client.",
            "reportsTo": "Client desk", "department": "Clients",
        }),
        call("hand_off", {
            "agent": "Proposal writer",
            "task": "Write the Ortiz Bakery packaging redesign proposal for Rosa Ortiz, due Friday.",
            "notes": "Sam's first proposal for you. Rosa wants it by Friday.",
            "links": [f"contact:{rosa.id}"],
        }),
        say("I've made Proposal writer, under Client desk, and handed it the Ortiz Bakery proposal for Friday."),
        # Proposal writer's chat starts a thread for it (its work is another use case).
        call("start_thread", {"title": "Ortiz Bakery", "task": "Write the packaging proposal, due Friday."}),
        say("Started a thread on the Ortiz Bakery proposal."),
        say("The Ortiz Bakery proposal is drafted for Sam to read."),  # the thread answers
        say("Proposal writer has drafted the Ortiz Bakery proposal."),  # Roadstar, woken by the answer
    )
    services.owner_message_send(org=org, agent=roadstar, text=SAM_ASKS)
    drain(org_id=org.id)

    writer = Agent.objects.get(organization=org, name="Proposal writer")
    # What Sam sees: the new agent on Home with Undo, on the chart under Client desk …
    change = Change.objects.get(tool="make_agent")
    assert (change.listing, change.can_undo, writer.reports_to) == ("home_undo", True, desk)
    # … Roadstar's short reply in its chat …
    chat = services.chat_for(agent=roadstar)
    replies = [m.text for m in Message.objects.filter(conversation=chat, role="agent") if m.text]
    assert (
        replies[0]
        == "I've made Proposal writer, under Client desk, and handed it the Ortiz Bakery proposal for Friday."
    )
    # … the work handed over with Sam's words, done by Proposal writer, its answer back with Roadstar.
    packet = Message.objects.get(conversation=services.chat_for(agent=writer), role="handoff")
    assert packet.data["owner_words"][0]["text"] == SAM_ASKS
    done = Work.objects.get(agent=writer, conversation__kind="thread")
    assert (done.state, done.requester) == ("answered", chat)
    assert Message.objects.filter(conversation=chat, role="answer").get().text == (
        "[Answer from Proposal writer · Ortiz Bakery] The Ortiz Bakery proposal is drafted for Sam to read."
    )


def test_a_note_for_the_new_agent_is_read_by_its_threads(org, model):
    writer = Agent.objects.create(organization=org, name="Proposal writer", job="Proposals")
    model.add(call("remember", {"note": "Sam wants proposals as Google Docs."}), say("Noted."))
    services.owner_message_send(org=org, agent=writer, text="Remember, proposals come to me as Google Docs.")
    drain(org_id=org.id)
    model.add(call("start_thread", {"title": "Ortiz", "task": "proposal"}), say("Started."), say("Written."))
    services.owner_message_send(org=org, agent=writer, text="Write Ortiz's proposal")
    drain(org_id=org.id)
    thread_system = model.requests[-1]["messages"][0]["content"]
    assert "- Sam wants proposals as Google Docs." in thread_system
