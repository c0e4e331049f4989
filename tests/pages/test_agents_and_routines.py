"""Agents as a chart (who reports to whom, departments, job descriptions, models, budgets, spend, paused) with
the budget form; Routines per agent with their on/off toggles; the nav bar on every page."""

from __future__ import annotations

import datetime
import decimal
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from agents import selectors as agent_selectors
from agents import services as agent_services
from agents.models import Agent, Usage
from core.models import Card
from core.services import card_open
from routines import services as routine_services
from routines.models import Routine
from tests.factories import AgentFactory
from tests.pages.test_contacts import text_of

pytestmark = pytest.mark.django_db


def spend(agent, dollars) -> None:
    Usage.objects.create(
        organization=agent.organization, agent=agent, model="gpt-6.1-terra", cost=decimal.Decimal(dollars)
    )


@pytest.fixture
def staff(org):
    """Roadstar <- Client desk (Clients) <- Intake (Clients); Roadstar <- Bookkeeper (Finance); Scout (none)."""
    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    desk = AgentFactory(organization=org, name="Client desk", department="Clients", reports_to=roadstar,
                        job="Answers new and current clients", owns="Client mail", good="Replies within a day",
                        works="As mail arrives", asks_first="Before quoting", model="gpt-6.1-sol",
                        monthly_budget=decimal.Decimal("60"))
    intake = AgentFactory(organization=org, name="Intake", department="Clients", reports_to=desk,
                          job="Sorts new enquiries")
    books = AgentFactory(organization=org, name="Bookkeeper", department="Finance", reports_to=roadstar,
                         job="Keeps the books", paused=True, monthly_budget=decimal.Decimal("10"))
    scout = AgentFactory(organization=org, name="Scout", reports_to=None, job="Looks for leads")
    return {"roadstar": roadstar, "desk": desk, "intake": intake, "books": books, "scout": scout}


def agents_page(owner) -> str:
    response = owner.get(reverse("pages:agents"))
    assert response.status_code == 200
    return response.content.decode()


def card_of(body: str, agent) -> str:
    """The text of one agent's card on the chart."""
    card = re.search(rf'<article [^>]*id="agent-{agent.id}".*?</article>', body, re.S).group(0)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", card))


def test_roadstar_is_at_the_top_and_each_agent_under_its_manager(owner, staff):
    body = agents_page(owner)
    order = [body.index(f'id="agent-{staff[k].id}"') for k in ("roadstar", "desk", "intake")]
    desk_card_end = body.index("</article>", order[1])
    intake_tree = body.index('class="chart-reports"', desk_card_end)
    assert order == sorted(order) and intake_tree < order[2]


def test_reports_are_grouped_by_department(owner, staff):
    page = text_of(owner.get(reverse("pages:agents")))
    assert re.search(r"Clients Client desk .* Intake .* Finance Bookkeeper .* No department Scout", page)


def test_an_agent_with_no_manager_sits_under_roadstar(owner, staff):
    body = agents_page(owner)
    roadstar_reports = body.index('class="chart-reports"')
    assert body.index(f'id="agent-{staff["scout"].id}"') > roadstar_reports


def test_a_loop_of_reports_still_shows_every_agent(owner, staff):
    Agent.objects.filter(id=staff["desk"].id).update(reports_to=staff["intake"])
    body = agents_page(owner)
    assert all(f'id="agent-{a.id}"' in body for a in staff.values())


def test_each_agent_shows_job_description_model_and_budget(owner, staff):
    card = card_of(agents_page(owner), staff["desk"])
    assert (
        "Answers new and current clients" in card
        and "Owns Client mail" in card
        and "Good is Replies within a day" in card
        and "Works When asked: no routine of its own" in card  # its description's "As mail arrives" keeps none
        and "Asks first Before quoting" in card
        and "Model GPT-6.1 Sol" in card
        and "Budget $60.00 a month" in card
    )


def test_each_agent_shows_its_spend_this_month(owner, staff):
    spend(staff["desk"], "12.345")
    spend(staff["desk"], "0.655")
    old = Usage.objects.create(organization=staff["desk"].organization, agent=staff["desk"], model="m", cost=50)
    Usage.objects.filter(id=old.id).update(at=timezone.now() - datetime.timedelta(days=40))
    assert "Spent this month $13.00" in card_of(agents_page(owner), staff["desk"])


def test_spend_this_month_matches_the_agents_own_count(org, staff):
    spend(staff["desk"], "3.10")
    spend(staff["books"], "11")
    by_agent = agent_selectors.spend_this_month(org=org)
    assert {k: by_agent.get(staff[k].id, 0) for k in ("desk", "books", "scout")} == {
        k: agent_services.agent_spend_this_month(agent=staff[k]) for k in ("desk", "books", "scout")
    }


def test_a_paused_agent_shows_paused(owner, staff):
    card = card_of(agents_page(owner), staff["books"])
    assert "paused" in card and "Raise the budget" in card


def test_raising_the_budget_unpauses_the_agent_and_resolves_its_card(owner, org, staff):
    spend(staff["books"], "11")
    card_open(org=org, kind="budget", subject=f"budget:{staff['books'].id}", title="Bookkeeper is paused",
              data={"agent_id": str(staff["books"].id)})
    response = owner.post(
        reverse("pages:agent_budget", args=[staff["books"].id]), {"monthly_budget": "$25"}, follow=True
    )
    books = Agent.objects.get(id=staff["books"].id)
    assert (
        (books.monthly_budget, books.paused) == (decimal.Decimal("25.00"), False)
        and Card.objects.get(subject=f"budget:{books.id}").resolved_at is not None
        and "Bookkeeper's budget is $25.00 a month." in text_of(response)
    )


def test_a_budget_below_the_spend_keeps_it_paused_and_says_why(owner, staff):
    spend(staff["books"], "11")
    response = owner.post(reverse("pages:agent_budget", args=[staff["books"].id]), {"monthly_budget": "5"}, follow=True)
    assert Agent.objects.get(id=staff["books"].id).paused and "still paused: it has spent $11.00" in text_of(response)


@pytest.mark.parametrize("typed", ["", "abc", "-5", "0", "1e99", "NaN"])
def test_a_budget_that_is_not_dollars_is_refused(owner, staff, typed):
    response = owner.post(
        reverse("pages:agent_budget", args=[staff["desk"].id]), {"monthly_budget": typed}, follow=True
    )
    assert Agent.objects.get(id=staff["desk"].id).monthly_budget == decimal.Decimal("60") and (
        "monthly budget in dollars" in text_of(response)
    )


def test_budget_needs_a_post(owner, staff):
    assert owner.get(reverse("pages:agent_budget", args=[staff["desk"].id])).status_code == 405


# --- routines ---------------------------------------------------------------------------------------------


@pytest.fixture
def routine(org, staff):
    skill = routine_services.skill_add(org=org, agent=staff["desk"], name="Chase an invoice", about="Overdue",
                                       steps="1. Friendly email")
    made = routine_services.routine_add(org=org, agent=staff["desk"], name="Overdue invoices",
                                        when={"at": "0 9 * * 1", "keys": ["kind:invoice.overdue"]},
                                        note="Chase invoices more than 7 days overdue.", skill=skill.slug)
    Routine.objects.filter(id=made.id).update(fired=3)
    return Routine.objects.get(id=made.id)


def test_the_agents_page_says_when_an_agent_works_from_its_routines_not_its_description(owner, routine, staff):
    Agent.objects.filter(id=staff["books"].id).update(works="Mondays at 9 AM, and when Sam asks for figures.")
    body = agents_page(owner)
    assert "Works Mondays at 9 AM; or when this happens: invoice overdue (Overdue invoices)" in card_of(
        body, staff["desk"])
    books = card_of(body, staff["books"])
    assert "Works When asked: no routine of its own" in books and "Mondays" not in books
    Routine.objects.filter(id=routine.id).update(status=Routine.Status.OFF)
    assert "Works When asked: no routine of its own" in card_of(agents_page(owner), staff["desk"])


def test_routines_are_listed_per_agent_with_when_note_skill_status_and_fired(owner, routine, staff):
    page = text_of(owner.get(reverse("pages:routines")))
    assert re.search(
        r"Client desk Overdue invoices on Mondays at 9 AM; or when this happens: invoice overdue "
        r"Chase invoices more than 7 days overdue\. Follows the skill “Chase an invoice” · fired 3 times",
        page,
    )


def test_an_agent_with_no_routines_says_so(owner, routine, staff):
    assert re.search(r"Bookkeeper paused No routines\.", text_of(owner.get(reverse("pages:routines"))))


def test_turning_a_routine_off_stops_it_firing(owner, routine):
    response = owner.post(reverse("pages:routine_on", args=[routine.id]), {"on": "0"})
    routine.refresh_from_db()
    assert (
        response.url == reverse("pages:routines") + f"#routine-{routine.id}"
        and (routine.status, routine.next_fire_at) == ("off", None)
    )


def test_turning_it_on_again_schedules_it(owner, routine):
    owner.post(reverse("pages:routine_on", args=[routine.id]), {"on": "0"})
    owner.post(reverse("pages:routine_on", args=[routine.id]), {"on": "1"})
    routine.refresh_from_db()
    assert routine.status == "on" and routine.next_fire_at is not None


def test_the_toggle_says_what_it_will_do(owner, routine):
    body = owner.get(reverse("pages:routines")).content.decode()
    assert '<input type="hidden" name="on" value="0">' in body and ">Turn off</button>" in body


def test_a_closed_routine_has_no_toggle_and_stays_closed(owner, routine):
    Routine.objects.filter(id=routine.id).update(status="closed")
    body = owner.get(reverse("pages:routines")).content.decode()
    response = owner.post(reverse("pages:routine_on", args=[routine.id]), {"on": "1"}, follow=True)
    assert reverse("pages:routine_on", args=[routine.id]) not in body and (
        Routine.objects.get(id=routine.id).status == "closed" and "can't be turned on again" in text_of(response)
    )


def test_a_routine_id_that_is_not_one_is_404(owner, routine):
    assert owner.post(reverse("pages:routine_on", args=[routine.id + 1000]), {"on": "0"}).status_code == 404


# --- the nav bar ------------------------------------------------------------------------------------------

NAV = ["/", "/chat/", "/contacts/", "/companies/", "/docs/", "/mail/", "/agents/", "/routines/", "/workspace/",
       "/research/", "/newsfeed/", "/tables/", "/connections/"]


@pytest.mark.parametrize("url", ["/", "/contacts/", "/companies/", "/docs/", "/agents/", "/routines/", "/connections/",
                                 "/mail/", "/invoices/"])
def test_every_page_has_the_nav_bar(owner, url):
    body = owner.get(url).content.decode()
    nav = re.search(r'<nav class="nav" aria-label="Pages">(.*?)</nav>', body, re.S).group(1)
    assert re.findall(r'href="([^"]+)"', nav) == NAV


def test_the_nav_marks_the_page_you_are_on(owner):
    body = owner.get("/docs/").content.decode()
    assert re.findall(r'href="([^"]+)" class="nav__link nav__link--current" aria-current="page"', body) == ["/docs/"]


def test_sign_in_has_no_nav_bar(client, org):
    assert 'class="nav"' not in client.get(reverse("login")).content.decode()
