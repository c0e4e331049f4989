"""The chats and Home's agent parts: talking to each agent, answers from threads, an ask answered in place on Home
and routed to the thread that holds the work, the agents' work with its latest reply, held lines, the summary."""

import datetime
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from agents import services as agent_services
from agents.models import Conversation, Message, Work
from agents.runtime.model import ScriptedModel, call, say, set_model
from agents.runtime.scheduler import drain
from checks.models import Ask, CheckDecision
from core import held, limits
from core.models import Card, Change
from records.models import Contact
from routines.models import Summary
from tests.factories import AgentFactory, ContactFactory

ASK = "Set Dana's Context to “Prefers a call to email”? She said so on the phone."


@pytest.fixture
def model():
    scripted = ScriptedModel()
    set_model(scripted)
    yield scripted
    set_model(None)


@pytest.fixture
def desk(org):
    return AgentFactory(organization=org, name="Client desk", job="Answers new and current clients")


@pytest.fixture
def owner(client, org):
    client.force_login(org.owner)
    return org.owner


def chat_url(agent):
    return reverse("chat", args=[agent.id])


def chat_page(client, agent) -> str:
    response = client.get(chat_url(agent))
    assert response.status_code == 200
    return response.content.decode()


def home(client, **params) -> str:
    response = client.get(reverse("home"), params)
    assert response.status_code == 200
    return response.content.decode()


# --- the chat page ----------------------------------------------------------------------------------------


def test_chats_open_on_roadstars_chat(client, owner, org, desk):
    roadstar = org.agents.get(is_roadstar=True)
    response = client.get(reverse("chats"))
    assert response.status_code == 302 and response["Location"] == chat_url(roadstar)


def test_a_chat_lists_every_agent_to_talk_to(client, owner, org, desk):
    html = chat_page(client, desk)
    assert "Roadstar" in html and "Client desk" in html and 'aria-current="page"' in html


def test_a_chat_shows_the_owners_messages_and_the_agents_replies(client, owner, desk):
    chat = agent_services.chat_for(agent=desk)
    agent_services.message_append(conversation=chat, role="owner", text="Find Dana's number")
    agent_services.message_append(conversation=chat, role="agent", text="It's 555-0142.")
    html = chat_page(client, desk)
    assert html.index("Find Dana&#x27;s number") < html.index("It&#x27;s 555-0142.")


def test_a_chat_leaves_out_tool_steps_and_results(client, owner, desk):
    chat = agent_services.chat_for(agent=desk)
    agent_services.message_append(conversation=chat, role="agent", text="", data={"tool_calls": []})
    agent_services.message_append(conversation=chat, role="tool", text='{"secret_tool_output": 1}')
    assert "secret_tool_output" not in chat_page(client, desk)


def test_an_answer_from_a_thread_shows_who_answered(client, owner, desk):
    chat = agent_services.chat_for(agent=desk)
    agent_services.message_append(conversation=chat, role="answer",
                                  text="[Answer from Client desk · Juniper Dental] Sent.")
    html = chat_page(client, desk)
    assert "From Client desk · Juniper Dental" in html and "[Answer from" not in html


def test_reading_a_chat_never_makes_one(client, owner, desk):
    chat_page(client, desk)
    assert not Conversation.objects.filter(agent=desk).exists()


def test_another_workspaces_agent_is_not_found(client, owner, other_org):
    theirs = other_org.agents.get(is_roadstar=True)
    assert client.get(chat_url(theirs)).status_code == 404
    assert client.post(chat_url(theirs), {"text": "Hi"}).status_code == 404
    assert client.get(reverse("chat_live", args=[theirs.id])).status_code == 404
    assert not Message.objects.filter(conversation__agent=theirs).exists()


def test_a_chat_sends_a_visitor_to_sign_in(client, desk):
    response = client.get(chat_url(desk))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_writing_in_a_chat_sends_the_owners_message_as_work(client, owner, desk, org):
    response = client.post(chat_url(desk), {"text": "Quote Juniper Dental for the signage"})
    assert response.status_code == 302 and response["Location"] == chat_url(desk)
    work = Work.objects.get(agent=desk)
    assert work.task == "Quote Juniper Dental for the signage" and work.requester is None
    assert work.conversation.state == Conversation.State.QUEUED


def test_a_message_sent_by_the_page_script_gets_no_redirect(client, owner, desk):
    response = client.post(chat_url(desk), {"text": "Hi"}, headers={"X-Requested-With": "fetch"})
    assert response.status_code == 204 and Message.objects.filter(role="owner", text="Hi").exists()


def test_a_message_past_the_limit_is_refused_whole_never_cut(client, owner, desk):
    long = "w" * (limits.MESSAGE + 1)
    response = client.post(chat_url(desk), {"text": long}, follow=True)
    assert f"a message here holds up to {limits.MESSAGE:,}" in response.content.decode()
    fetched = client.post(chat_url(desk), {"text": long}, headers={"X-Requested-With": "fetch"})
    assert fetched.status_code == 400 and "nothing was sent" in fetched.content.decode()
    assert not Message.objects.exists()


def test_an_empty_message_is_not_sent(client, owner, desk):
    response = client.post(chat_url(desk), {"text": "   "}, follow=True)
    assert "Write something first." in response.content.decode()
    assert not Message.objects.exists()


def test_the_chats_live_part_holds_its_messages_and_its_conversation(client, owner, desk):
    message = agent_services.owner_message_send(org=desk.organization, agent=desk, text="Anything new?")
    html = client.get(reverse("chat_live", args=[desk.id])).content.decode()
    assert "Anything new?" in html and f'data-chat-id="{message.conversation_id}"' in html and "<html" not in html


def test_a_chat_says_when_the_agent_is_replying(client, owner, desk, settings):
    settings.MODEL_CONFIGURED = True  # with none, it says it can't work yet (test_without_a_model_…)
    agent_services.owner_message_send(org=desk.organization, agent=desk, text="Anything new?")
    assert "Client desk is replying" in chat_page(client, desk)


def test_a_chat_reads_in_a_fixed_number_of_queries(client, owner, desk):
    chat = agent_services.chat_for(agent=desk)
    agent_services.message_append(conversation=chat, role="owner", text="one")
    with CaptureQueriesContext(connection) as few:
        chat_page(client, desk)
    for i in range(40):
        agent_services.message_append(conversation=chat, role="agent" if i % 2 else "owner", text=f"line {i}")
    with CaptureQueriesContext(connection) as many:
        chat_page(client, desk)
    assert len(many) == len(few)


def test_talking_to_an_agent_end_to_end_on_the_scripted_model(client, owner, desk, model):
    """The owner writes; the chat starts a thread; the thread's answer comes back into the chat on its own."""
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Find when Dana is free"}),
        say("Started a thread on Juniper Dental."),
        say("Dana is free Thursday at 10."),
    )
    client.post(chat_url(desk), {"text": "When is Dana free?"})
    drain(org_id=desk.organization_id)
    html = chat_page(client, desk)
    assert "When is Dana free?" in html and "Started a thread on Juniper Dental." in html
    assert "From Client desk · Juniper Dental" in html and "Dana is free Thursday at 10." in html


# --- an ask, answered in place on Home --------------------------------------------------------------------


@pytest.fixture
def asked(org, desk, model):
    """Client desk's thread "Juniper Dental" held back a change to Dana's Context and asked Sam about it."""
    dana = ContactFactory(organization=org, name="Dana Whitfield", context="Email is fine for anything.")
    action = {"name": "contacts.context",
              "input": {"contactId": str(dana.id), "text": "Prefers a call to email", "why": "She said so."}}
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Keep Dana's record up to date"}),
        say("Started a thread on Juniper Dental."),
        call("use_tool", action),
        say(ASK),
    )
    agent_services.owner_message_send(org=org, agent=desk, text="Keep Dana's record up to date.")
    drain(org_id=org.id)
    return {"ask": Ask.objects.get(organization=org), "dana": dana, "action": action,
            "thread": Conversation.objects.get(agent=desk, kind="thread")}


def answer_url(ask):
    return reverse("ask_answer", args=[ask.id])


def test_home_shows_the_agents_ask_in_its_own_words_with_a_box_to_answer(client, owner, asked):
    html = home(client)
    assert "Client desk asks" in html and "Juniper Dental" in html
    assert "Set Dana&#x27;s Context to “Prefers a call to email”?" in html
    assert f'action="{answer_url(asked["ask"])}"' in html and 'name="answer"' in html


def test_the_work_that_asked_waits_for_the_owner_on_home(client, owner, asked):
    html = home(client)
    work = html[html.index('data-key="agent-'):]
    assert "Juniper Dental" in work and ">waiting for you<" in work


def test_yes_on_home_reaches_the_thread_and_lets_the_held_action_go(client, owner, org, desk, asked, model):
    def thread_runs_it(request):
        # Home's Yes went straight to the thread that asked: the chat's model passed nothing on.
        seen = json.dumps(request["messages"])
        assert "Yes, go ahead." in seen and "message_thread" not in json.dumps(request["tools"])
        return call("use_tool", asked["action"])

    model.add(thread_runs_it, say("Dana's Context now says she prefers a call."))
    response = client.post(answer_url(asked["ask"]), {"answer": "", "yes": "1", "next": "/"})
    assert response.status_code == 302 and response["Location"] == "/"
    drain(org_id=org.id)
    assert Contact.objects.get(id=asked["dana"].id).context == "Prefers a call to email"
    assert Ask.objects.get(id=asked["ask"].id).state == Ask.State.YES
    assert "Client desk asks" not in home(client)
    # The chat says what was answered, to what, and what happened next: never an empty "Your answer:".
    page = chat_page(client, desk)
    assert "It asked about: Rewrite a contact&#x27;s Context: Dana Whitfield" in page
    note = page[page.index("You answered"):]
    assert "Your answer: Yes" in note and "Then: it went ahead." in note, note[:400]


def test_no_on_home_keeps_the_action_held_and_the_chat_says_so(client, owner, org, desk, asked):
    client.post(answer_url(asked["ask"]), {"answer": "", "no": "1"})
    assert Ask.objects.get(id=asked["ask"].id).state == Ask.State.DECLINED
    # The No went straight to the thread that asked, as the owner's words; the chat only shows it.
    to_thread = Message.objects.filter(conversation=asked["thread"], role="handoff", data__from_home=True)
    assert [m.data["owner_words"][0]["text"] for m in to_thread] == ["No, don't do that."]
    assert not Message.objects.filter(role="owner").exclude(text="Keep Dana's record up to date.").exists()
    page = chat_page(client, desk)
    assert "Your answer: No" in page and "Then: it stays held back; nothing went." in page
    assert Contact.objects.get(id=asked["dana"].id).context == "Email is fine for anything."


def test_words_on_home_go_to_the_agents_chat_as_the_owners_own(client, owner, org, desk, asked):
    client.post(answer_url(asked["ask"]), {"answer": "Only once she confirms by email.", "send": "1"})
    chat = agent_services.chat_for(agent=desk)
    note, words = Message.objects.filter(conversation=chat).order_by("-seq")[:2][::-1]
    assert note.role == "system" and "Juniper Dental" in note.text
    assert (words.role, words.text) == ("owner", "Only once she confirms by email.")
    page = chat_page(client, desk)
    assert "You answered the question from “Juniper Dental” on Home." in page
    assert "Your answer: In your words, below" in page
    assert "Then: Client desk reads your answer and goes on from it." in page
    # Words are read by the check when the thread tries again; only Yes is a yes to exactly that action.
    assert Ask.objects.get(id=asked["ask"].id).state == Ask.State.DECLINED


def test_an_empty_answer_is_not_sent(client, owner, desk, asked):
    response = client.post(answer_url(asked["ask"]), {"answer": " ", "send": "1"}, follow=True)
    assert "Write your answer to Client desk, or press Yes or No." in response.content.decode()
    assert Ask.objects.get(id=asked["ask"].id).state == Ask.State.WAITING


def test_an_ask_answered_already_is_not_answered_twice(client, owner, desk, asked):
    client.post(answer_url(asked["ask"]), {"yes": "1"})
    response = client.post(answer_url(asked["ask"]), {"yes": "1"}, follow=True)
    assert "That was answered already." in response.content.decode()
    assert Message.objects.filter(role="handoff", data__from_home=True).count() == 1


def test_another_workspaces_ask_is_not_found(client, other_org, asked):
    client.force_login(other_org.owner)
    assert client.post(answer_url(asked["ask"]), {"yes": "1"}).status_code == 404
    assert Ask.objects.get(id=asked["ask"].id).state == Ask.State.WAITING


def test_an_ask_answered_in_the_chat_leaves_home_once_the_action_goes(client, owner, org, desk, asked, model):
    model.add(call("message_thread", {"thread": "Juniper Dental", "task": "Sam says: yes, set it."}), say("Sent."),
              call("use_tool", asked["action"]), say("Done."))
    agent_services.owner_message_send(org=org, agent=desk,
                                      text="Yes, change Dana's Context to prefers a call to email.")
    drain(org_id=org.id)
    assert Contact.objects.get(id=asked["dana"].id).context == "Prefers a call to email"
    # It stays on Home a while, shown done, with no Yes or No: a stale Yes can't send it again.
    html = home(client)
    card = html[html.index(f'data-key="ask-{asked["ask"].id}"'):]
    card = card[:card.index("</li>")]
    assert "Done: it went ahead" in card and answer_url(asked["ask"]) not in card and 'name="yes"' not in card
    response = client.post(answer_url(asked["ask"]), {"yes": "1"}, follow=True)
    assert "That was answered already." in response.content.decode()
    assert CheckDecision.objects.filter(tool="contacts.context", outcome="go").count() == 1


def test_an_ask_whose_action_went_on_other_words_is_done_on_home_and_its_yes_does_nothing(
        client, owner, org, desk, asked, model):
    """The owner asks for the change in their own words instead of answering: it goes, and the open ask closes."""
    model.add(call("message_thread", {"thread": "Juniper Dental", "task": "Sam wants it."}), say("Sent."),
              call("use_tool", asked["action"]), say("Done."))
    agent_services.owner_message_send(org=org, agent=desk,
                                      text="Change Dana's Context to say she prefers a call to email.")
    drain(org_id=org.id)
    html = home(client)
    card = html[html.index(f'data-key="ask-{asked["ask"].id}"'):]
    assert "Done: it went ahead" in card[:card.index("</li>")]
    response = client.post(answer_url(asked["ask"]), {"yes": "1"}, follow=True)
    assert "That was done already" in response.content.decode()
    assert not Message.objects.filter(role="handoff", data__from_home=True).exists()
    assert Ask.objects.get(id=asked["ask"].id).state == Ask.State.DONE


def test_an_ask_card_is_answered_in_place_too(client, owner, org, desk):
    card = Card.objects.create(organization=org, kind="ask", title="Which template for Ortiz Bakery?",
                               data={"agent_id": str(desk.id)}, subject="ask:1")
    assert reverse("card_answer", args=[card.id]) in home(client)
    client.post(reverse("card_answer", args=[card.id]), {"answer": "The spring one."})
    assert Message.objects.filter(conversation__agent=desk, role="owner", text="The spring one.").exists()
    assert Card.objects.get(id=card.id).resolved_at is not None


# --- Your work: the agents' work, held lines; the morning summary ---------------------------------------------


def test_your_work_lists_each_piece_of_work_under_its_agent_with_its_latest_reply(client, owner, desk, model):
    model.add(call("start_thread", {"title": "Juniper Dental", "task": "Draft the signage quote"}),
              say("Started a thread on Juniper Dental."), say("The quote is drafted: $8,400."))
    agent_services.owner_message_send(org=desk.organization, agent=desk, text="Quote Juniper Dental's signage")
    drain(org_id=desk.organization_id)
    html = home(client)
    section = html[html.index('data-key="agent-'):]
    assert "Client desk" in section and "Juniper Dental" in section and "Draft the signage quote" in section
    assert "The quote is drafted: $8,400." in section and ">done<" in section
    # The chat passed the work on whole: only the thread's piece is listed.
    assert "Quote Juniper Dental&#x27;s signage" not in section


def test_work_still_open_says_where_it_stands(client, owner, org, desk, settings):
    settings.MODEL_CONFIGURED = True  # with none, it "can't start" (tests/home/test_first_hour.py)
    agent_services.owner_message_send(org=org, agent=desk, text="Find Dana's number")
    assert ">up next<" in home(client)


def test_a_held_line_counts_down_and_offers_undo(client, owner, org, monkeypatch):
    until = timezone.now() + datetime.timedelta(seconds=90)
    line = held.HeldLine(id="m1", text="Client desk is sending Dana Whitfield “Your quote”",
                              held_until=until, undo_url="/mail/held/m1/undo")
    source = held.HeldSource("mail", lambda o: [line] if o == org else [])
    monkeypatch.setattr(held, "HELD_SOURCES", held.HELD_SOURCES.with_entry(source))
    html = home(client)
    assert "Client desk is sending Dana Whitfield “Your quote”" in html
    assert f'data-held-until-ms="{int(until.timestamp() * 1000)}"' in html
    assert 'action="/mail/held/m1/undo"' in html and re.search(r">1:(29|30)<", html)


def test_the_latest_morning_summary_shows_on_home(client, owner, org):
    Summary.objects.create(organization=org, text="Yesterday: two quotes sent.")
    Summary.objects.create(organization=org, text="This morning: Dana booked a call.")
    html = home(client)
    assert "This morning: Dana booked a call." in html and "two quotes sent" not in html


def test_another_workspaces_work_and_summary_stay_theirs(client, owner, other_org):
    theirs = other_org.agents.get(is_roadstar=True)
    agent_services.owner_message_send(org=other_org, agent=theirs, text="Alex's secret plan")
    Summary.objects.create(organization=other_org, text="Alex's summary")
    html = home(client)
    assert "Alex&#x27;s secret plan" not in html and "Alex&#x27;s summary" not in html


def make_ask(org, agent, title, question):
    thread = agent_services.thread_start(agent=agent, title=title)
    decision = CheckDecision.objects.create(
        organization=org, tool="contacts.context", outcome="ask", reason="it removes or rewrites something",
        decided_by="rules", fingerprint=title, actor_kind="agent", actor_id=str(agent.id),
        conversation_id=str(thread.id),
    )
    agent_services.message_append(conversation=thread, role="agent", text=question)
    return Ask.objects.create(organization=org, fingerprint=title, decision=decision)


def fill_home(org, agents, n, start=0):
    for i in range(start, start + n):
        agent = agents[i % len(agents)]
        make_ask(org, agent, f"Thread {i}", f"Question {i}?")
        chat = agent_services.chat_for(agent=agent)
        agent_services.work_open(org=org, agent=agent, conversation=chat, task=f"Task {i}", requester=None)
        Card.objects.create(organization=org, kind="connect", title=f"Connect app {i}", subject=f"app:{i}")
        Change.objects.create(organization=org, actor_kind="agent", actor_id="a1", actor_name=agent.name,
                              tool="contacts.create", kind="makes", sentence=f"added Person {i}", listing="home")
        Summary.objects.create(organization=org, text=f"Summary {i}")


def test_home_reads_in_a_fixed_number_of_queries_however_much_waits_on_it(client, owner, org, desk):
    agents = [desk, AgentFactory(organization=org, name="Proposal writer")]
    fill_home(org, agents, 1)
    with CaptureQueriesContext(connection) as few:
        home(client)
    fill_home(org, agents + [AgentFactory(organization=org, name="Bookkeeper")], 12, start=1)
    with CaptureQueriesContext(connection) as many:
        html = home(client)
    assert html.count("card--ask") == 13 and "Question 12?" in html and "Task 12" in html
    assert len(many) == len(few)


def _pause_for_budget(org, agent):
    from decimal import Decimal

    from agents.runtime.model import ModelUsage

    agent.monthly_budget = Decimal("1.00")
    agent.save(update_fields=["monthly_budget"])
    agent_services.usage_record(org=org, agent=agent, conversation=None, purpose="turn", model_id="gpt-6.1-terra",
                                usage=ModelUsage(input_tokens=1_250_000))
    agent.refresh_from_db()
    assert agent.paused


def test_a_chat_shows_the_budget_pause_instead_of_replying(client, owner, org, desk, model):
    _pause_for_budget(org, desk)
    agent_services.owner_message_send(org=org, agent=desk, text="Anything new?")
    drain(org_id=org.id)  # the turn finds the agent paused: the conversation waits in the queue
    html = chat_page(client, desk)
    assert "is replying" not in html
    assert ("<strong>Client desk is paused</strong>: it has spent $1.25 this month, past its budget of $1.00. What "
            "you write waits, and it replies once you raise its budget.") in html
    card = Card.objects.get(organization=org, kind="budget", resolved_at__isnull=True)
    assert f'action="{reverse("card_raise_budget", args=[card.id])}"' in html
    assert model.requests == []


def test_raising_the_budget_from_the_chat_lets_the_agent_reply(client, owner, org, desk, model):
    _pause_for_budget(org, desk)
    agent_services.owner_message_send(org=org, agent=desk, text="Anything new?")
    drain(org_id=org.id)
    card = Card.objects.get(organization=org, kind="budget", resolved_at__isnull=True)
    response = client.post(reverse("card_raise_budget", args=[card.id]),
                           {"monthly_budget": "5", "next": chat_url(desk)})
    assert response.status_code == 302 and response["Location"] == chat_url(desk)
    html = chat_page(client, desk)
    assert "is paused" not in html and "Client desk is replying" in html
    model.add(say("Nothing new."))
    drain(org_id=org.id)
    assert "Nothing new." in chat_page(client, desk)


def test_the_chats_live_part_shows_the_pause_too(client, owner, org, desk):
    _pause_for_budget(org, desk)
    html = client.get(reverse("chat_live", args=[desk.id])).content.decode()
    assert "Client desk is paused" in html
