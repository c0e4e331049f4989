"""/api/agents/: the owner's agents with job descriptions, models, budgets and spend; setting a budget."""

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone
from freezegun import freeze_time

from agents.models import Agent, Usage
from core.models import Card
from core.services import card_open
from tests.factories import AgentFactory


def spend(agent, dollars: str, at=None) -> Usage:
    usage = Usage.objects.create(organization=agent.organization, agent=agent, model="gpt-6.1-terra",
                                 cost=Decimal(dollars))
    if at is not None:
        Usage.objects.filter(id=usage.id).update(at=at)
    return usage


@pytest.fixture
def desk(org):
    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    return AgentFactory(organization=org, name="Client desk", job="Answers clients", owns="Client mail",
                        good="Same-day answers", works="As mail arrives", asks_first="Discounts",
                        model="gpt-6.1-sol", reports_to=roadstar, department="Clients", monthly_budget=Decimal("40"))


def test_list_gives_roadstar_first_then_agents_by_name(api, desk):
    AgentFactory(organization=desk.organization, name="Bookkeeper")
    names = [a["name"] for a in api.get("/api/agents/").json()["items"]]
    assert names == ["Roadstar", "Bookkeeper", "Client desk"]


def test_read_gives_job_description_model_budget_and_chart(api, desk):
    body = api.get(f"/api/agents/{desk.id}/").json()
    assert body["jobDescription"] == {"owns": "Client mail", "good": "Same-day answers", "works": "As mail arrives",
                                      "asksFirst": "Discounts"}
    assert (body["model"], body["monthlyBudget"], body["department"]) == ("gpt-6.1-sol", "40.00", "Clients")
    assert body["reportsTo"]["name"] == "Roadstar"


@freeze_time("2026-11-20 15:00:00")
def test_spend_this_month_counts_only_this_month(api, desk):
    spend(desk, "3.25")
    spend(desk, "1.50")
    spend(desk, "9.00", at=timezone.now() - datetime.timedelta(days=40))
    assert api.get(f"/api/agents/{desk.id}/").json()["spentThisMonth"] == "4.75"


@freeze_time("2026-11-20 15:00:00")
def test_list_and_read_give_the_same_spend(api, desk):
    spend(desk, "2.10")
    listed = next(a for a in api.get("/api/agents/").json()["items"] if a["id"] == str(desk.id))
    assert listed["spentThisMonth"] == api.get(f"/api/agents/{desk.id}/").json()["spentThisMonth"] == "2.10"


def test_list_costs_the_same_queries_whatever_the_number_of_agents(api, desk, django_assert_max_num_queries):
    for i in range(10):
        spend(AgentFactory(organization=desk.organization, name=f"Agent {i}"), "1")
    with django_assert_max_num_queries(6):
        assert len(api.get("/api/agents/").json()["items"]) == 12


def test_patch_sets_the_monthly_budget(api, desk):
    response = api.patch(f"/api/agents/{desk.id}/", {"monthlyBudget": "75.50"}, format="json")
    assert response.status_code == 200
    desk.refresh_from_db()
    assert desk.monthly_budget == Decimal("75.50")


def test_raising_a_paused_agents_budget_over_its_spend_unpauses_it_and_resolves_the_card(api, desk):
    spend(desk, "45")
    Agent.objects.filter(id=desk.id).update(paused=True)
    card = card_open(org=desk.organization, kind="budget", subject=f"budget:{desk.id}", title="Raise it")
    body = api.patch(f"/api/agents/{desk.id}/", {"monthlyBudget": 60}, format="json").json()
    card.refresh_from_db()
    assert (body["paused"], card.resolved_at is not None) == (False, True)


def test_a_budget_under_the_months_spend_leaves_the_agent_paused(api, desk):
    spend(desk, "45")
    Agent.objects.filter(id=desk.id).update(paused=True)
    body = api.patch(f"/api/agents/{desk.id}/", {"monthlyBudget": "44"}, format="json").json()
    assert body["paused"] is True
    assert Card.objects.filter(subject=f"budget:{desk.id}").count() == 0  # nothing opened by the API itself


@pytest.mark.parametrize("budget", ["0", "-5", "abc", "1.234", "NaN", "100000000", None])
def test_a_budget_that_isnt_dollars_to_the_cent_is_bad_input(api, desk, budget):
    response = api.patch(f"/api/agents/{desk.id}/", {"monthlyBudget": budget}, format="json")
    assert (response.status_code, response.json()["error"]) == (400, "bad_input")
    desk.refresh_from_db()
    assert desk.monthly_budget == Decimal("40")


def test_patch_without_a_budget_is_bad_input(api, desk):
    assert api.patch(f"/api/agents/{desk.id}/", {}, format="json").status_code == 400
