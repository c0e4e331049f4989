"""The owner's first hour on Home: with no model connected, with work that stopped or waits, and with no judge
model for the owner's yes. Each line of Your work links to where the work happens and says why it isn't moving."""

import html as html_module
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from agents import services as agent_services
from agents.models import Conversation, Message, Run
from agents.runtime.sql_storage import try_again_card
from agents.runtime.turn import MODEL_DOWN, drain
from core.models import Card, Organization
from tests.factories import AgentFactory


@pytest.fixture
def desk(org):
    return AgentFactory(organization=org, name="Client desk", job="Answers new and current clients")


@pytest.fixture
def owner(client, org):
    client.force_login(org.owner)
    return org.owner


@pytest.fixture
def no_model(settings):
    settings.MODEL_CONFIGURED = False


@pytest.fixture
def a_model(settings):
    settings.MODEL_CONFIGURED = True


def get(client, url, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200
    return response.content.decode()


def home(client) -> str:
    return get(client, reverse("home"))


def work_item(html: str, task: str) -> str:
    """The Your work item whose task is `task`, as HTML."""
    for item in re.findall(r'<li class="work-item".*?</li>', html, re.DOTALL):
        if task in item:
            return item
    raise AssertionError(f"no work item for {task!r}")


def thread_with_work(agent, title="Juniper Dental", task="Quote Juniper Dental's signage"):
    thread = agent_services.thread_start(agent=agent, title=title)
    work = agent_services.work_open(org=agent.organization, agent=agent, conversation=thread, task=task,
                                    requester=None)
    return thread, work


def finished_run(conversation, outcome):
    Run.objects.create(organization=conversation.organization, conversation=conversation, agent=conversation.agent,
                       started_at=timezone.now(), finished_at=timezone.now(), outcome=outcome)


# --- no model ---------------------------------------------------------------------------------------------


def test_with_no_model_home_says_how_to_connect_one_from_the_start(client, owner, org, no_model):
    html = home(client)
    assert "Connect an AI model so your agents can work" in html
    assert "OPENAI_API_KEY" not in html and "MODEL_GPT_6_1_TERRA" not in html  # the owner's words, not the server's
    assert f'href="{reverse("model_settings")}"' in html
    assert "Nothing needs you right now" not in html


def test_the_old_help_address_opens_the_settings_page(client, owner, no_model):
    response = client.get(reverse("model_help"))
    assert response.status_code == 302 and response["Location"] == reverse("model_settings")
    html = get(client, reverse("model_settings"))
    assert "No model is connected yet." in html and "{%" not in html


def test_with_a_model_connected_there_is_no_model_card(client, owner, org, a_model):
    # A card a turn left while there was none is not shown once one is connected.
    Card.objects.create(organization=org, kind=Card.Kind.MODEL, subject="model", title="Connect a model so …")
    html = home(client)
    assert "Connect an AI model" not in html and "Connect a model so" not in html


def test_the_turns_model_card_is_not_shown_twice(client, owner, org, desk, no_model):
    agent_services.owner_message_send(org=org, agent=desk, text="Find Dana's number")
    drain(org_id=org.id)
    assert Card.objects.filter(organization=org, kind=Card.Kind.MODEL).exists()
    assert home(client).count("card--model") == 1


def test_with_no_model_work_says_it_cant_start_and_why(client, owner, org, desk, no_model):
    agent_services.owner_message_send(org=org, agent=desk, text="Find Dana's number")
    drain(org_id=org.id)
    item = work_item(home(client), "Find Dana&#x27;s number")
    assert ">can&#x27;t start<" in item and "no AI model is connected to Roadstar yet" in item
    assert "/try-again" not in item  # no button: it would fail the same way


def test_with_no_model_a_chat_doesnt_claim_to_work(client, owner, org, no_model):
    roadstar = org.agents.get(is_roadstar=True)
    thread_with_work(roadstar, title="Morning summary", task="Write the morning summary")
    agent_services.owner_message_send(org=org, agent=roadstar, text="Hello")
    html = get(client, reverse("chat", args=[roadstar.id]))
    assert "Roadstar can't work yet" in html and "is replying" not in html
    assert "Working on:" not in html and "Its threads: Morning summary (can&#x27;t start)" in html


def test_a_chat_says_where_its_threads_stand_as_home_does(client, owner, org, a_model):
    roadstar = org.agents.get(is_roadstar=True)
    thread, _ = thread_with_work(roadstar, title="Morning summary", task="Write the morning summary")
    html = get(client, reverse("chat", args=[roadstar.id]))
    assert "Its threads: Morning summary (waiting)" in html  # Home: "Nothing is running on it now"
    assert ">waiting<" in work_item(home(client), "Write the morning summary")
    Conversation.objects.filter(id=thread.id).update(state=Conversation.State.RUNNING)
    assert "Its threads: Morning summary (working)" in get(client, reverse("chat", args=[roadstar.id]))


def test_work_that_couldnt_start_before_a_model_offers_try_again(client, owner, org, desk, a_model):
    thread, work = thread_with_work(desk)
    finished_run(thread, Run.Outcome.NO_MODEL)
    item = work_item(home(client), "Quote Juniper Dental")
    assert "Try again starts it now" in item and reverse("work_try_again", args=[work.id]) in item

    client.post(reverse("work_try_again", args=[work.id]), {"next": reverse("home")})
    assert Conversation.objects.get(id=thread.id).state == Conversation.State.QUEUED


def test_try_again_with_no_model_says_so_and_starts_nothing(client, owner, org, desk, no_model):
    thread, work = thread_with_work(desk)
    response = client.post(reverse("work_try_again", args=[work.id]), {"next": reverse("home")}, follow=True)
    assert "No AI model is connected yet" in response.content.decode()
    assert Conversation.objects.get(id=thread.id).state == Conversation.State.IDLE


# --- where each line leads, and why it waits -----------------------------------------------------------------


def test_a_line_links_to_its_thread_or_chat(client, owner, org, desk, a_model):
    thread, _ = thread_with_work(desk)
    agent_services.owner_message_send(org=org, agent=desk, text="Find Dana's number")
    html = home(client)
    assert reverse("thread", args=[desk.id, thread.id]) in work_item(html, "Quote Juniper Dental")
    assert f'href="{reverse("chat", args=[desk.id])}"' in work_item(html, "Find Dana&#x27;s number")


def test_the_thread_page_shows_its_work_and_what_was_said(client, owner, org, desk, a_model):
    thread, _ = thread_with_work(desk)
    agent_services.message_append(conversation=thread, role="agent", text="Drafted the quote: $8,400.")
    html = get(client, reverse("thread", args=[desk.id, thread.id]))
    assert "<title>Juniper Dental · Client desk · Chats · Roadstar</title>" in html
    assert "Quote Juniper Dental" in html and "Drafted the quote: $8,400." in html


def test_another_workspaces_thread_is_not_found(client, owner, other_org):
    stranger = AgentFactory(organization=other_org, name="Their desk")
    thread, _ = thread_with_work(stranger)
    assert client.get(reverse("thread", args=[stranger.id, thread.id])).status_code == 404


def test_work_that_stopped_says_why_with_try_again(client, owner, org, desk, a_model):
    thread, work = thread_with_work(desk)
    finished_run(thread, Run.Outcome.FAILED)
    try_again_card(thread, body=MODEL_DOWN)
    item = work_item(home(client), "Quote Juniper Dental")
    assert ">couldn&#x27;t finish<" in item and "even after trying again five times" in item
    assert reverse("work_try_again", args=[work.id]) in item

    client.post(reverse("work_try_again", args=[work.id]), {"next": reverse("home")})
    assert Conversation.objects.get(id=thread.id).state == Conversation.State.QUEUED
    assert not Card.objects.filter(organization=org, kind=Card.Kind.TRY_AGAIN, resolved_at__isnull=True).exists()


def test_work_waiting_on_another_agent_names_it(client, owner, org, desk, a_model):
    thread, _ = thread_with_work(desk)
    keeper = AgentFactory(organization=org, name="Bookkeeper")
    theirs = agent_services.thread_start(agent=keeper, title="Juniper invoices")
    agent_services.work_open(org=org, agent=keeper, conversation=theirs, task="Any open invoices?", requester=thread)
    assert "Waiting for an answer from Bookkeeper." in work_item(home(client), "Quote Juniper Dental")


def test_work_of_a_paused_agent_says_it_is_paused_for_its_budget(client, owner, org, desk, a_model):
    thread_with_work(desk)
    desk.paused = True
    desk.save(update_fields=["paused"])
    item = work_item(home(client), "Quote Juniper Dental")
    assert ">paused<" in item and "went past its monthly budget" in item


def test_another_workspaces_work_cant_be_tried_again(client, owner, other_org, a_model):
    stranger = AgentFactory(organization=other_org, name="Their desk")
    thread, work = thread_with_work(stranger)
    assert client.post(reverse("work_try_again", args=[work.id])).status_code == 404
    assert Conversation.objects.get(id=thread.id).state == Conversation.State.IDLE


# --- the owner's yes without a judge model ----------------------------------------------------------------------


def test_home_says_what_the_check_does_without_a_judge_and_the_owner_chooses(client, owner, org, no_model):
    assert "So your agents <strong>ask you first</strong>" in home(client)

    client.post(reverse("without_judge_set"), {"without_judge": "run", "next": reverse("home")})
    assert Organization.objects.get(id=org.id).without_judge == "run"
    html = home(client)
    assert "<strong>run without asking you</strong>" in html and "mail to someone you haven't named waits" in html


def test_a_choice_that_isnt_one_is_refused(client, owner, org):
    response = client.post(reverse("without_judge_set"), {"without_judge": "maybe"}, follow=True)
    assert "Choose Ask me or Let it run." in response.content.decode()
    assert Organization.objects.get(id=org.id).without_judge == "ask"


def test_with_a_judge_set_up_home_says_nothing_of_it(client, owner, monkeypatch):
    from home import views

    monkeypatch.setattr(views, "configured_judge", lambda org=None: object())
    assert "Your yes, with no judge model" not in home(client)


def test_a_thread_page_shows_what_started_its_work_not_the_internal_prompt_nor_a_card_above(client, owner, org,
                                                                                              no_model):
    roadstar = org.agents.get(is_roadstar=True)
    thread, _ = thread_with_work(roadstar, title="Morning summary", task="Morning summary")
    agent_services.message_append(conversation=thread, role=Message.Role.SYSTEM, text=(
        "[Morning summary] Write Sam's morning summary of what happened since Tue Nov 10, 07:00: a few short lines, "
        "what needs them first. What happened:\n- Nothing changed."))
    html = html_module.unescape(get(client, reverse("thread", args=[roadstar.id, thread.id])))
    assert "Morning summary, started by Roadstar." in html
    assert "Write Sam's morning summary" not in html and "What happened:" not in html
    assert "Connect one on Settings, AI model" in html and "card above" not in html
