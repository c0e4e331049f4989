"""The templates group through use_tool, as a thread calls it: search, read, and the two asks."""

import pytest

from agent_templates.models import SharedTemplate
from agents.models import Agent
from core.actors import Actor
from core.context import ToolContext
from core.models import Card, Change
from routines.models import Routine, Skill
from routines.services import skill_add
from tests.factories import AgentFactory
from tools.pipeline import use_tool


def _bad(out, field):
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


def _shared(org, slug="ortiz-client-desk", name="Ortiz client desk", shared_by="Sam Rivera"):
    body = {"slug": slug, "name": name, "kind": "skill", "version": 1, "says": "How Ortiz answers a wedding inquiry.",
            "skill": {"name": "Answer a wedding inquiry", "when": "A couple asks about a wedding cake.",
                      "steps": "1. Congratulate them.\n2. Ask the date and the number of guests."}}
    return SharedTemplate.objects.create(organization=org, slug=slug, name=name, kind="skill", says=body["says"],
                                         body=body, shared_by=shared_by)


# --- search -------------------------------------------------------------------------------------------------


def test_search_puts_the_template_named_by_the_words_first_and_says_what_matched(use):
    found = use("templates.search", query="late invoice")
    assert found[0] == {
        "id": "roadstar/chase-a-late-invoice", "name": "Chase a late invoice", "kind": "skill",
        "says": found[0]["says"], "from": "Roadstar", "matched": "Name: Chase a late invoice",
    }
    # Others that deal with late invoices come after the one named so.
    assert "roadstar/bookkeeper" in [f["id"] for f in found[1:]]


def test_search_finds_by_what_a_template_is_about_not_only_its_name(use):
    found = use("templates.search", query="dentist")
    assert found[0]["id"] == "roadstar/dental-receptionist"
    assert found[0]["matched"].startswith("About: ")


def test_search_gives_at_most_8_best_first(use):
    found = use("templates.search", query="clients invoices meetings projects orders sales")
    assert len(found) == 8
    again = use("templates.search", query="clients invoices meetings projects orders sales")
    assert found == again  # the same order every time


def test_search_with_nothing_matching_is_an_empty_list(use):
    assert use("templates.search", query="submarine periscope") == []


@pytest.mark.parametrize("query", ["", "x" * 121])
def test_search_limits_the_query(use, query):
    assert _bad(use("templates.search", query=query), "query")


def test_search_finds_the_workspaces_shared_templates_with_who_shared_them(use, org):
    _shared(org)
    found = use("templates.search", query="wedding")
    assert found[0]["id"] == "shared/ortiz-client-desk"
    assert found[0]["from"] == "Sam Rivera"


def test_another_workspaces_shared_template_is_invisible(use, other_org):
    _shared(other_org)
    assert use("templates.search", query="wedding") == []
    out = use("templates.read", id="shared/ortiz-client-desk")
    assert out["error"] == "not_found"


# --- read ---------------------------------------------------------------------------------------------------


def test_read_gives_the_whole_template_and_which_agents_you_have(use):
    # The workspace has an agent called Client desk (the fixture): the template's agent of that name is youHave.
    out = use("templates.read", id="roadstar/client-desk")
    assert out["id"] == "roadstar/client-desk"
    assert out["kind"] == "agent" and out["version"] == 1
    assert out["youHave"] == ["Client desk"]
    [agent] = out["agents"]
    assert agent["name"] == "Client desk"
    assert agent["skills"] == ["Answer a new inquiry", "Follow up a quiet inquiry"]
    assert agent["routines"][1] == "Morning sweep of unanswered mail (at 0 9 * * 1-5)"
    assert {q["blank"] for q in out["questions"]} == {"business", "services", "booking_link"}
    assert {q["kind"] for q in out["questions"]} == {"text", "web"}
    assert "skill" not in out


def test_read_youhave_is_empty_when_no_name_is_taken(use):
    out = use("templates.read", id="roadstar/bookkeeper")
    assert out["youHave"] == []


def test_read_youhave_matches_names_in_any_case(use, org):
    AgentFactory(organization=org, name="BOOKKEEPER")
    assert use("templates.read", id="roadstar/bookkeeper")["youHave"] == ["Bookkeeper"]


def test_read_a_team_gives_each_agent_and_where_it_sits(use):
    out = use("templates.read", id="roadstar/finance-department")
    assert out["department"] == "Finance"
    unders = {a["name"]: a.get("under") for a in out["agents"]}
    assert unders == {"Controller": None, "Bookkeeper": "Controller", "Collections": "Controller"}


def test_read_a_skill_gives_its_steps(use):
    out = use("templates.read", id="roadstar/chase-a-late-invoice")
    assert out["agents"] == [] and out["youHave"] == []
    assert out["skill"]["name"] == "Chase a late invoice"
    assert "{{pay_how}}" in out["skill"]["steps"]


def test_read_a_choice_question_lists_its_choices(use):
    out = use("templates.read", id="roadstar/bakery-order-desk")
    lead = next(q for q in out["questions"] if q["blank"] == "lead_time")
    assert lead["kind"] == "choice" and "a week" in lead["choices"]


@pytest.mark.parametrize("template_id", ["roadstar/nope", "client-desk", "shared/none", "roadstar/../client-desk"])
def test_read_an_unknown_id_is_not_found(use, template_id):
    assert use("templates.read", id=template_id)["error"] == "not_found"


@pytest.mark.parametrize("template_id", ["", "x" * 121])
def test_read_limits_the_id(use, template_id):
    assert _bad(use("templates.read", id=template_id), "id")


# --- propose_add ----------------------------------------------------------------------------------------------


def test_propose_add_asks_on_home_and_adds_nothing(use, org):
    agents_before = Agent.objects.filter(organization=org).count()
    out = use("templates.propose_add", id="roadstar/bookkeeper", why="You asked for help with late invoices.",
              answers={"pay_how": {"value": "https://pay.fernhill.test", "found": "the invoice footer"}})
    assert set(out) == {"asked"} and "waits on Home" in out["asked"]
    card = Card.objects.get(organization=org, kind=Card.Kind.TEMPLATE)
    assert card.resolved_at is None and card.body == "You asked for help with late invoices."
    assert card.data["answers"] == {"pay_how": {"value": "https://pay.fernhill.test", "found": "the invoice footer"}}
    assert Agent.objects.filter(organization=org).count() == agents_before
    assert not Skill.objects.filter(organization=org).exists() and not Routine.objects.filter(organization=org).exists()
    change = Change.objects.get(organization=org, tool="templates.propose_add")
    assert change.listing == "home" and change.undo is None


def test_propose_add_goes_without_a_yes_even_where_the_check_is_on(org, agent):
    checked = ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="t", conversation=list)
    out = use_tool(checked, "templates.propose_add", {"id": "roadstar/scheduler", "why": "Meetings pile up."})
    assert "asked" in out


def test_propose_add_twice_keeps_one_card(use, org):
    use("templates.propose_add", id="roadstar/scheduler", why="one")
    out = use("templates.propose_add", id="roadstar/scheduler", why="two")
    assert "already" in out["asked"]
    assert Card.objects.filter(organization=org, kind=Card.Kind.TEMPLATE).count() == 1


def test_propose_add_of_an_unknown_template_is_not_found(use):
    assert use("templates.propose_add", id="roadstar/nope", why="x")["error"] == "not_found"


def test_propose_add_refuses_an_answer_to_no_question(use):
    out = use("templates.propose_add", id="roadstar/scheduler", why="x", answers={"colour": {"value": "blue"}})
    assert _bad(out, "answers.colour.value")


def test_propose_add_refuses_a_choice_that_isnt_one(use):
    out = use("templates.propose_add", id="roadstar/scheduler", why="x", answers={"buffer": {"value": "an hour"}})
    assert _bad(out, "answers.buffer.value") and "15 minutes" in out["message"]


def test_propose_add_refuses_a_web_answer_that_isnt_an_address(use):
    out = use("templates.propose_add", id="roadstar/client-desk", why="x",
              answers={"booking_link": {"value": "javascript:alert(1)"}})
    assert _bad(out, "answers.booking_link.value")


def test_propose_add_under_an_agent_the_owner_hasnt_got_is_not_found(use):
    out = use("templates.propose_add", id="roadstar/scheduler", why="x", under="Nobody")
    assert out["error"] == "not_found" and out["message"].startswith("under:")


def test_propose_add_to_is_for_a_skill_and_under_for_the_rest(use):
    assert _bad(use("templates.propose_add", id="roadstar/scheduler", why="x", to="Client desk"), "to")
    assert _bad(use("templates.propose_add", id="roadstar/chase-a-late-invoice", why="x", under="Client desk"),
                "under")
    assert "asked" in use("templates.propose_add", id="roadstar/chase-a-late-invoice", why="x", to="Client desk")


@pytest.mark.parametrize(("inp", "field"), [
    ({"id": "roadstar/scheduler", "why": ""}, "why"),
    ({"id": "roadstar/scheduler", "why": "x" * 401}, "why"),
    ({"id": "roadstar/scheduler"}, "why"),
    ({"id": "", "why": "x"}, "id"),
    ({"id": "x" * 121, "why": "x"}, "id"),
    ({"id": "roadstar/scheduler", "why": "x", "under": "x" * 61}, "under"),
    ({"id": "roadstar/chase-a-late-invoice", "why": "x", "to": "x" * 61}, "to"),
    ({"id": "roadstar/scheduler", "why": "x", "answers": {"buffer": {"value": "x" * 301}}}, "answers"),
    ({"id": "roadstar/scheduler", "why": "x", "answers": {"buffer": "15 minutes"}}, "answers"),
])
def test_propose_add_limits(use, inp, field):
    out = use("templates.propose_add", **inp)
    assert out["error"] == "bad_input" and out["message"].startswith(field), out


def test_propose_add_takes_the_longest_inputs(use, org):
    AgentFactory(organization=org, name="A" * 60)
    out = use("templates.propose_add", id="roadstar/scheduler", why="w" * 400, under="A" * 60)
    assert "asked" in out


# --- propose_share --------------------------------------------------------------------------------------------


def test_propose_share_of_agents_asks_on_home(use, org):
    out = use("templates.propose_share", agents=["Client desk"], why="The owner wants Ortiz's desk shared.")
    assert "waits on Home" in out["asked"]
    card = Card.objects.get(organization=org, kind=Card.Kind.TEMPLATE)
    assert card.data["action"] == "share" and card.title == "Share Client desk as a template?"
    assert not SharedTemplate.objects.exists()


def test_propose_share_of_a_skill(use, org, agent):
    skill_add(org=org, agent=agent, name="Answer a wedding inquiry", about="A couple asks.", steps="1. Congratulate.")
    out = use("templates.propose_share", skill={"agent": "Client desk", "name": "answer a wedding inquiry"}, why="x")
    assert "asked" in out


def test_propose_share_of_a_skill_the_agent_hasnt_got_is_not_found(use):
    out = use("templates.propose_share", skill={"agent": "Client desk", "name": "Juggling"}, why="x")
    assert out["error"] == "not_found" and out["message"].startswith("skill.name:")


def test_propose_share_refuses_roadstar_and_unknown_agents(use):
    assert _bad(use("templates.propose_share", agents=["Roadstar"], why="x"), "agents[0]")
    out = use("templates.propose_share", agents=["Client desk", "Ghost"], why="x")
    assert out["error"] == "not_found" and out["message"].startswith("agents[1]:")


@pytest.mark.parametrize(("inp", "field"), [
    ({"why": "x"}, "agents, skill"),
    ({"agents": ["Client desk"], "skill": {"agent": "Client desk", "name": "s"}, "why": "x"}, "agents, skill"),
    ({"agents": ["a"] * 17, "why": "x"}, "agents"),
    ({"agents": ["x" * 61], "why": "x"}, "agents"),
    ({"agents": [""], "why": "x"}, "agents"),
    ({"skill": {"agent": "x" * 61, "name": "s"}, "why": "x"}, "skill.agent"),
    ({"skill": {"agent": "Client desk", "name": "s" * 61}, "why": "x"}, "skill.name"),
    ({"skill": {"agent": "Client desk"}, "why": "x"}, "skill.name"),
    ({"agents": ["Client desk"], "why": "x" * 401}, "why"),
    ({"agents": ["Client desk"]}, "why"),
])
def test_propose_share_limits(use, inp, field):
    out = use("templates.propose_share", **inp)
    assert out["error"] == "bad_input" and field in out["message"], out


@pytest.mark.parametrize(("cron", "words"), [
    ("30 7 * * 1-5", "weekdays at 7:30 AM"), ("0 15 * * *", "every day at 3 PM"), ("0 9 * * 1", "Mondays at 9 AM"),
    ("0 8 1 * *", "on the 1st of each month at 8 AM"), ("0 8 2 * *", "on the 2nd of each month at 8 AM"),
    ("0 12 11 * *", "on the 11th of each month at 12 PM"), ("*/5 * * * *", "on the schedule */5 * * * *"),
])
def test_routine_times_are_said_in_words_for_the_owner(cron, words):
    from agent_templates.selectors import cron_words

    assert cron_words(cron) == words


def test_every_catalogue_routine_is_said_in_words():
    from agent_templates.catalogue import roadstar_templates
    from agent_templates.selectors import when_for_owner

    for body in roadstar_templates().values():
        for agent in body.agents:
            for routine in agent.routines:
                assert "schedule" not in when_for_owner(routine.when) and "kind:" not in when_for_owner(routine.when)


@pytest.mark.parametrize(("query", "first"), [
    ("hire", "roadstar/hiring-coordinator"), ("schedule meetings", "roadstar/scheduler"),
    ("cake orders", "roadstar/bakery-order-desk"), ("bookkeeping", "roadstar/bookkeeper"),
    ("lawyer", "roadstar/legal-intake"), ("Weekly Pipeline Review", "roadstar/weekly-pipeline-review"),
])
def test_search_finds_what_an_owner_would_call_it(use, query, first):
    assert use("templates.search", query=query)[0]["id"] == first


def test_a_shared_template_that_no_longer_holds_is_left_out_of_search_and_unsupported_to_read(use, org):
    row = _shared(org)
    SharedTemplate.objects.filter(id=row.id).update(body={"slug": "ortiz-client-desk", "kind": "robot"})
    assert use("templates.search", query="wedding") == []
    assert use("templates.read", id="shared/ortiz-client-desk")["error"] == "unsupported"
