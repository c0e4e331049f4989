"""One time zone rule, the owner's, everywhere a page shows or reads a time.

The database keeps UTC; a signed-in owner's pages run in their workspace's zone (core.owner_zone), and a time
given without an offset (an agent's `at`, a `before` typed into the address) is in that zone, never UTC.
Zones here are not New York (the default) and not UTC, so a page that forgot the rule shows a different hour.
"""

import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from agents.models import Agent
from core.actors import Actor
from core.context import ToolContext
from core.models import Organization
from records.models import Company, Contact, TimelineEntry
from tools.pipeline import use_tool


def text_of(response) -> str:
    body = response.content.decode()
    main = re.search(r'<main class="page">(.*)</main>', body, re.DOTALL).group(1)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main)).replace("&#x27;", "'").replace("&amp;", "&")


def timeline_of(response) -> str:
    """The company page's Timeline section, as text."""
    page = text_of(response)
    return page[page.index("Timeline"):page.index("Log")]


def line_time(page: str, title: str) -> str:
    """The time the page shows on the line that names `title`."""
    found = re.search(re.escape(title) + r".*?(\w{3} \d+, \d{4}, \d+:\d\d [AP]M)", page)
    assert found, f"no line with a time for {title!r}"
    return found.group(1)


@pytest.fixture
def fernhill(db, client):
    call_command("seed_demo", stdout=io.StringIO())
    org = Organization.objects.get(owner__username="sam")
    client.force_login(org.owner)
    return org


def test_one_email_shows_one_time_on_the_contact_and_the_company(fernhill, client):
    # Dana's enquiry came at 10:12 in New York; the owner has since moved to Los Angeles: 7:12 on both pages.
    fernhill.time_zone = "America/Los_Angeles"
    fernhill.save(update_fields=["time_zone"])
    dana = Contact.objects.get(organization=fernhill, emails__email="dana@juniperdental.test")
    juniper = Company.objects.get(organization=fernhill, name="Juniper Dental")

    contact_page = text_of(client.get(reverse("pages:contact", args=[dana.id])))
    company_page = text_of(client.get(reverse("pages:company", args=[juniper.id])))

    assert line_time(contact_page, "Rebrand for our second clinic") == "Nov 10, 2026, 7:12 AM"
    assert line_time(company_page, "Rebrand quote request") == "Nov 10, 2026, 7:12 AM"


def test_an_agents_time_without_an_offset_is_the_owners(fernhill, client):
    fernhill.time_zone = "Asia/Kolkata"  # UTC+5:30: an hour off either way shows
    fernhill.check_enabled = False
    fernhill.save(update_fields=["time_zone", "check_enabled"])
    agent = Agent.objects.get(organization=fernhill, name="Client desk")
    juniper = Company.objects.get(organization=fernhill, name="Juniper Dental")
    ctx = ToolContext(org=fernhill, actor=Actor.for_agent(agent), conversation_id="tz")

    out = use_tool(ctx, "companies.record", {
        "companyId": str(juniper.id), "kind": "call", "title": "Call about signage", "summary": "Dana called.",
        "at": "2026-11-12T10:12:00",
    })

    assert out["entry"]["at"] == "2026-11-12T04:42:00Z"
    page = text_of(client.get(reverse("pages:company", args=[juniper.id])))
    assert line_time(page, "Call about signage") == "Nov 12, 2026, 10:12 AM"


def test_a_before_typed_without_an_offset_is_the_owners(fernhill, client):
    fernhill.time_zone = "Asia/Kolkata"
    fernhill.save(update_fields=["time_zone"])
    juniper = Company.objects.get(organization=fernhill, name="Juniper Dental")
    entry = TimelineEntry.objects.get(company=juniper, title="Rebrand quote request")  # 15:12 UTC, 20:42 Kolkata

    url = reverse("pages:company", args=[juniper.id])
    just_after = timeline_of(client.get(url, {"before": "2026-11-10T20:43:00"}))
    just_before = timeline_of(client.get(url, {"before": "2026-11-10T20:42:00"}))

    assert entry.title in just_after and entry.title not in just_before
