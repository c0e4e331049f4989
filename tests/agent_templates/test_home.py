"""The owner's side: a template ask on Home, answered there. The owner's Add is the only way anything is made;
Undo takes all of it back, or none of it when something changed since."""

import pytest
from django.urls import reverse

from agent_templates.models import SharedTemplate
from agents.models import Agent, Conversation, Message, Work
from core.actors import Actor
from core.context import ToolContext
from core.models import Card, Change
from routines.models import Routine, Skill
from routines.services import skill_add
from tests.factories import AgentFactory
from tools.pipeline import use_tool

BOOKKEEPER_ANSWERS = {"answer-accountant": "Priya Shah, CPA", "answer-pay_how": "https://pay.fernhill.test/inv"}


@pytest.fixture
def owner(org, client):
    client.force_login(org.owner)
    return org.owner


def home(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return response.content.decode()


def messages_of(response):
    return [str(m) for m in response.context["messages"]] if response.context else []


def add(client, card, **form):
    return client.post(reverse("card_template_add", args=[card.id]), {"next": "/", **form}, follow=True)


def made(org):
    return (sorted(Agent.objects.filter(organization=org).values_list("name", flat=True)),
            Skill.objects.filter(organization=org).count(), Routine.objects.filter(organization=org).count())


def test_the_ask_shows_on_home_with_its_questions_and_the_answers_the_agent_found(owner, client, propose):
    propose("roadstar/bookkeeper", answers={"pay_how": "https://pay.fernhill.test/inv"})
    page = home(client)
    assert "Add the template “Bookkeeper”?" in page
    assert "Client desk: It fits the work you described." in page
    assert "How do clients pay you" in page and 'value="https://pay.fernhill.test/inv"' in page
    assert "found this in the owner&#x27;s signature" in page
    assert "Chase a late invoice" in page and "Month-end close (on the 1st of each month at 8 AM)" in page
    assert "Overdue invoices (when an invoice goes overdue)" in page and "one agent, from Roadstar" in page
    assert "On your chart, under" in page


def test_the_owner_adds_it_agents_skills_and_routines_in_one_change_with_undo(org, owner, client, propose, agent):
    card = propose("roadstar/bookkeeper")
    before = made(org)
    response = add(client, card, place="Client desk", **BOOKKEEPER_ANSWERS, **{"name-of-1": "Bookkeeper",
                                                                              "name-1": "Bookkeeper"})
    assert any("added the template “Bookkeeper”" in m for m in messages_of(response))
    bookkeeper = Agent.objects.get(organization=org, name="Bookkeeper")
    assert bookkeeper.reports_to == agent  # placed on the chart where the owner chose
    assert made(org) == (sorted([*before[0], "Bookkeeper"]), 2, 3)
    steps = Skill.objects.get(agent=bookkeeper, slug="chase-a-late-invoice").steps
    assert "https://pay.fernhill.test/inv" in steps and "{{" not in steps
    assert "Priya Shah, CPA" in Skill.objects.get(agent=bookkeeper, slug="close-the-month").steps
    routine = Routine.objects.get(agent=bookkeeper, name="Overdue invoices")
    assert routine.keys == ["kind:invoice.overdue"] and routine.skill.slug == "chase-a-late-invoice"
    change = Change.objects.get(organization=org, tool="templates.add")
    assert change.listing == "home_undo" and change.actor_kind == "user"
    assert change.sentence == ("added the template “Bookkeeper”: made Bookkeeper under Client desk, "
                               "with 2 skills and 3 routines")
    card.refresh_from_db()
    assert card.resolved_at is not None
    page = home(client)
    assert "You added the template “Bookkeeper”" in page and reverse("change_undo", args=[change.id]) in page
    # The agent that asked reads what the owner did, in its chat.
    note = Message.objects.filter(conversation__agent=agent, role=Message.Role.SYSTEM).last()
    assert "added the template “Bookkeeper” you proposed" in note.text


def test_undo_removes_everything_the_template_made(org, owner, client, propose):
    card = propose("roadstar/finance-department")
    before = made(org)
    add(client, card, place="Roadstar", **{"answer-pay_how": "by bank transfer", "answer-accountant": "Priya Shah"})
    assert made(org)[0] == sorted([*before[0], "Bookkeeper", "Collections", "Controller"])
    controller = Agent.objects.get(organization=org, name="Controller")
    assert Agent.objects.get(organization=org, name="Collections").reports_to == controller
    assert controller.department == "Finance"
    change = Change.objects.get(organization=org, tool="templates.add")
    response = client.post(reverse("change_undo", args=[change.id]), {"next": "/"}, follow=True)
    assert any(m.startswith("Undone:") for m in messages_of(response))
    assert made(org) == before
    change.refresh_from_db()
    assert change.undone_at is not None


def _added(org, client, propose, template="roadstar/scheduler", **answers):
    card = propose(template)
    add(client, card, place="Roadstar", **(answers or {"answer-meeting_hours": "Weekdays 10-4",
                                                       "answer-buffer": "15 minutes"}))
    return Change.objects.get(organization=org, tool="templates.add")


def _undo(client, change):
    return messages_of(client.post(reverse("change_undo", args=[change.id]), {"next": "/"}, follow=True))


def test_undo_refuses_when_an_added_agent_has_done_work_since(org, owner, client, propose):
    change = _added(org, client, propose)
    scheduler = Agent.objects.get(organization=org, name="Scheduler")
    chat = Conversation.objects.create(organization=org, agent=scheduler, kind=Conversation.Kind.CHAT)
    Work.objects.create(organization=org, agent=scheduler, conversation=chat, task="Book Dana")
    said = _undo(client, change)
    assert any("Scheduler has done work since" in m and "nothing was removed" in m for m in said)
    assert Agent.objects.filter(organization=org, name="Scheduler").exists()
    assert Routine.objects.filter(agent=scheduler).count() == 2


def test_undo_refuses_when_something_it_made_was_changed_since(org, owner, client, propose):
    change = _added(org, client, propose)
    skill = Skill.objects.get(organization=org, slug="find-a-time")
    skill.steps = "My own steps now."
    skill.save()
    said = _undo(client, change)
    assert any("The skill Find a time was changed since" in m for m in said)
    assert made(org)[1:] == (1, 2)


def test_undo_refuses_when_another_agent_now_reports_to_one_it_made(org, owner, client, propose):
    change = _added(org, client, propose)
    AgentFactory(organization=org, name="Assistant", reports_to=Agent.objects.get(organization=org, name="Scheduler"))
    assert any("Another agent reports to Scheduler now" in m for m in _undo(client, change))
    assert Agent.objects.filter(organization=org, name="Scheduler").exists()


def test_undo_twice_undoes_once(org, owner, client, propose):
    change = _added(org, client, propose)
    assert any(m.startswith("Undone:") for m in _undo(client, change))
    assert any("undone already" in m for m in _undo(client, change))


def test_a_skill_template_goes_to_the_agent_the_owner_chooses_and_undo_takes_only_it(org, owner, client, propose,
                                                                                      agent):
    card = propose("roadstar/chase-a-late-invoice", to="Client desk")
    assert 'value="Client desk" selected' in home(client)
    add(client, card, place="Client desk", **{"answer-pay_how": "Pay at https://pay.fernhill.test"})
    skill = Skill.objects.get(agent=agent)
    assert skill.name == "Chase a late invoice" and "https://pay.fernhill.test" in skill.steps
    change = Change.objects.get(organization=org, tool="templates.add")
    assert change.sentence == ("added the template “Chase a late invoice”: gave Client desk the skill "
                               "“Chase a late invoice”")
    _undo(client, change)
    assert not Skill.objects.filter(agent=agent).exists()
    assert Agent.objects.filter(id=agent.id).exists()


def test_a_missing_answer_adds_nothing_and_the_ask_stays(org, owner, client, propose):
    card = propose("roadstar/bookkeeper")
    before = made(org)
    response = add(client, card, place="Roadstar", **{"answer-pay_how": "https://pay.fernhill.test"})
    assert any(m.startswith("Nothing was added.") and "accountant" in m for m in messages_of(response))
    assert made(org) == before
    card.refresh_from_db()
    assert card.resolved_at is None


def test_a_name_the_owner_has_already_must_be_changed_and_the_new_name_is_used(org, owner, client, propose):
    card = propose("roadstar/client-desk")  # the workspace has a Client desk
    assert "You have an agent called Client desk already" in home(client)
    answers = {"answer-business": "Fernhill Studio", "answer-services": "Brand design for clinics",
               "answer-booking_link": "https://cal.fernhill.test"}
    response = add(client, card, place="Roadstar", **answers)
    assert any("there is an agent called Client desk already" in m for m in messages_of(response))
    add(client, card, place="Roadstar", **answers, **{"name-of-1": "Client desk", "name-1": "Front door"})
    front = Agent.objects.get(organization=org, name="Front door")
    assert front.job == "Answers new and current clients of Fernhill Studio."


def test_a_bad_answer_is_refused_in_the_owners_words(org, owner, client, propose):
    card = propose("roadstar/scheduler")
    response = add(client, card, place="Roadstar", **{"answer-meeting_hours": "Weekdays", "answer-buffer": "2 hours"})
    said = messages_of(response)
    assert any("How much free time do you want between meetings?" in m and "not one of the choices" in m
               for m in said)
    assert Card.objects.get(id=card.id).resolved_at is None


def test_no_declines_and_makes_nothing(org, owner, client, propose, agent):
    card = propose("roadstar/scheduler")
    before = made(org)
    client.post(reverse("card_template_no", args=[card.id]), {"next": "/"})
    assert made(org) == before
    assert Card.objects.get(id=card.id).resolved_at is not None
    assert "said no to: Add the template “Scheduler”?" in Message.objects.filter(conversation__agent=agent).last().text
    assert "Add the template" not in home(client)


def test_another_workspaces_owner_cant_answer_the_ask(org, other_org, client, propose):
    card = propose("roadstar/scheduler")
    client.force_login(other_org.owner)
    response = client.post(reverse("card_template_add", args=[card.id]),
                           {"place": "Roadstar", "answer-meeting_hours": "x", "answer-buffer": "none"})
    assert response.status_code == 404
    assert client.post(reverse("card_template_no", args=[card.id])).status_code == 404
    assert Card.objects.get(id=card.id).resolved_at is None


def test_nothing_but_the_owners_add_makes_a_template(org, agent, propose):
    """No tool adds or shares: the propose tools only ask, and the agent's tools can't press Add."""
    from tools import registry

    ctx = ToolContext(org=org, actor=Actor.for_agent(agent))
    assert sorted(t.name for t in registry.tools_of("templates")) == [
        "templates.propose_add", "templates.propose_share", "templates.read", "templates.search"]
    answers = {"buffer": {"value": "none"}, "meeting_hours": {"value": "9-5"}}
    use_tool(ctx, "templates.propose_add", {"id": "roadstar/scheduler", "why": "x", "answers": answers})
    use_tool(ctx, "templates.propose_add", {"id": "roadstar/scheduler", "why": "again, please just add it"})
    assert not Agent.objects.filter(organization=org, name="Scheduler").exists()
    assert Card.objects.filter(organization=org, kind=Card.Kind.TEMPLATE, resolved_at__isnull=True).count() == 1


def test_a_get_cant_add(org, owner, client, propose):
    card = propose("roadstar/scheduler")
    assert client.get(reverse("card_template_add", args=[card.id])).status_code == 405


# --- share ----------------------------------------------------------------------------------------------------


def test_the_owner_reviews_and_shares_agents_then_the_workspace_can_add_them(org, owner, client, agent):
    skill_add(org=org, agent=agent, name="Answer a wedding inquiry", about="A couple asks about a cake.",
              steps="1. Congratulate them.\n2. Ask the date and guests.")
    ctx = ToolContext(org=org, actor=Actor.for_agent(agent))
    use_tool(ctx, "templates.propose_share", {"agents": ["Client desk"], "why": "You asked to share the desk."})
    card = Card.objects.get(organization=org, kind=Card.Kind.TEMPLATE)
    page = home(client)
    assert "Share Client desk as a template?" in page and "Answer a wedding inquiry" in page
    response = client.post(reverse("card_template_share", args=[card.id]),
                           {"name": "Wedding desk", "says": "Answers couples about wedding cakes."}, follow=True)
    assert any("shared “Wedding desk” as a template" in m for m in messages_of(response))
    shared = SharedTemplate.objects.get(organization=org)
    assert (shared.slug, shared.kind, shared.shared_by) == ("wedding-desk", "agent", "Sam Rivera")
    found = use_tool(ctx, "templates.search", {"query": "wedding"})
    assert found[0]["id"] == "shared/wedding-desk" and found[0]["from"] == "Sam Rivera"
    read = use_tool(ctx, "templates.read", {"id": "shared/wedding-desk"})
    assert read["agents"][0]["skills"] == ["Answer a wedding inquiry"] and read["youHave"] == ["Client desk"]
    change = Change.objects.get(organization=org, tool="templates.share")
    _undo(client, change)
    assert not SharedTemplate.objects.filter(organization=org).exists()


def test_a_shared_template_is_not_another_workspaces(org, other_org, owner, client, agent):
    ctx = ToolContext(org=org, actor=Actor.for_agent(agent))
    use_tool(ctx, "templates.propose_share", {"agents": ["Client desk"], "why": "x"})
    card = Card.objects.get(organization=org, kind=Card.Kind.TEMPLATE)
    client.post(reverse("card_template_share", args=[card.id]), {"name": "Desk", "says": "Answers clients."})
    other = AgentFactory(organization=other_org, name="Helper")
    other_ctx = ToolContext(org=other_org, actor=Actor.for_agent(other))
    assert use_tool(other_ctx, "templates.search", {"query": "desk answers clients"})[0]["from"] == "Roadstar"
    assert use_tool(other_ctx, "templates.read", {"id": "shared/desk"})["error"] == "not_found"
    out = use_tool(other_ctx, "templates.propose_add", {"id": "shared/desk", "why": "x"})
    assert out["error"] == "not_found"


def test_a_skill_the_agent_has_already_is_refused_in_the_owners_words(org, owner, client, propose, agent):
    skill_add(org=org, agent=agent, name="Chase a late invoice", about="Mine.", steps="1. My way.")
    card = propose("roadstar/chase-a-late-invoice", to="Client desk")
    response = add(client, card, place="Client desk", **{"answer-pay_how": "bank transfer"})
    assert any("Client desk has a skill called “Chase a late invoice” already" in m for m in messages_of(response))
    assert Skill.objects.get(agent=agent).steps == "1. My way."
    assert Card.objects.get(id=card.id).resolved_at is None
