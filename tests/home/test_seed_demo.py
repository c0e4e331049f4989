"""`manage.py seed_demo`: the spec's example workspace, Fernhill Studio, made once whatever the runs."""

import io
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from agents.models import Agent
from core.models import Organization
from records.models import Company, CompanyPerson, Contact, Doc, Project, TimelineEntry

APPS = ("roadstar", "agents", "records", "auth")


def seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {
        m._meta.label: m._default_manager.count() for app in APPS for m in apps.get_app_config(app).get_models()
    }


@pytest.fixture
def fernhill(db):
    seed()
    return Organization.objects.get(owner__username="sam")


def test_running_it_twice_changes_nothing(db):
    seed()
    before = counts()
    seed()
    assert counts() == before


def test_a_second_run_says_nothing_changed(db):
    seed()
    assert "nothing changed" in seed()


def test_a_second_run_keeps_what_the_owner_changed(fernhill):
    fernhill.about = "Sam's own words."
    fernhill.save()
    Agent.objects.filter(organization=fernhill, name="Bookkeeper").update(job="Keeps the books")
    seed()
    fernhill.refresh_from_db()
    assert fernhill.about == "Sam's own words."
    assert Agent.objects.get(organization=fernhill, name="Bookkeeper").job == "Keeps the books"


def test_it_prints_how_to_sign_in(db):
    out = seed()
    assert "http://127.0.0.1:8000" in out and "user:     sam" in out and "password: fernhill" in out
    assert "/admin/" in out


def test_sam_signs_in_with_the_default_password(fernhill, client):
    assert client.login(username="sam", password="fernhill")


def test_the_password_comes_from_demo_password(db, client, settings):
    settings.DEMO_PASSWORD = "another-secret"
    out = seed()
    assert client.login(username="sam", password="another-secret") and "password: another-secret" in out


def test_the_sign_in_line_names_the_port_it_serves_on(db, settings):
    settings.PORT = "8123"
    assert "Sign in at http://127.0.0.1:8123" in seed()


def test_production_refuses_the_public_default_password(db, settings):
    settings.ROADSTAR_ENV = "production"
    with pytest.raises(CommandError, match="DEMO_PASSWORD"):
        seed()
    assert not get_user_model().objects.filter(username="sam").exists()


def test_production_makes_the_example_with_a_password_of_its_own(db, client, settings):
    settings.ROADSTAR_ENV, settings.DEMO_PASSWORD = "production", "a-password-of-our-own"
    seed()
    assert client.login(username="sam", password="a-password-of-our-own")


def test_sam_can_open_the_admin(fernhill):
    sam = get_user_model().objects.get(username="sam")
    assert (sam.is_staff, sam.is_superuser, sam.email) == (True, True, "sam@fernhill.test")


def test_the_workspace_is_fernhill_studio(fernhill):
    assert (fernhill.name, fernhill.owner_name, fernhill.owner_email, fernhill.time_zone, fernhill.domains) == (
        "Fernhill Studio", "Sam Rivera", "sam@fernhill.test", "America/New_York", ["fernhill.test"]
    )


def test_the_about_describes_the_studio(fernhill):
    assert "design studio" in fernhill.about and "rate card" in fernhill.about


def test_payment_details_are_the_specs(fernhill):
    assert fernhill.payment_details == [
        "IBAN GB33 BUKB 2020 1555 5555 55",
        "Routing 021000021, account 7720193844 (Fernhill Studio LLC)",
    ]


def test_the_agents_are_roadstar_and_the_three_of_the_spec(fernhill):
    agents = {a.name: a for a in Agent.objects.filter(organization=fernhill)}
    assert set(agents) == {"Roadstar", "Client desk", "Proposal writer", "Bookkeeper"}
    assert [a.name for a in agents.values() if a.is_roadstar] == ["Roadstar"]


@pytest.mark.parametrize(
    "name, job",
    [
        ("Client desk", "Answers new and current clients, and keeps Contacts and Companies up to date"),
        ("Proposal writer", "Prices and writes proposals and quotes from the rate card"),
        ("Bookkeeper", "Sends invoices on time and chases what's overdue"),
    ],
)
def test_each_agent_has_its_job_from_the_spec(fernhill, name, job):
    assert Agent.objects.get(organization=fernhill, name=name).job == job


@pytest.mark.parametrize("name", ["Roadstar", "Client desk", "Proposal writer", "Bookkeeper"])
def test_each_job_description_has_four_parts_within_600_characters(fernhill, name):
    agent = Agent.objects.get(organization=fernhill, name=name)
    parts = [agent.owns, agent.good, agent.works, agent.asks_first]
    assert all(parts) and sum(len(p) for p in parts) <= 600


def test_proposal_writer_reports_to_client_desk(fernhill):
    writer = Agent.objects.get(organization=fernhill, name="Proposal writer")
    assert (writer.reports_to.name, writer.department) == ("Client desk", "Clients")


def test_the_companies_are_the_specs(fernhill):
    names = set(Company.objects.filter(organization=fernhill).values_list("name", flat=True))
    assert names == {"Juniper Dental", "Ortiz Bakery", "Ruiz Print Co.", "Harbor Florists"}


@pytest.mark.parametrize(
    "company, person, email, role",
    [
        ("Juniper Dental", "Dana Whitfield", "dana@juniperdental.test", "Practice manager"),
        ("Ortiz Bakery", "Rosa Ortiz", "rosa@ortizbakery.test", "Owner"),
        ("Ruiz Print Co.", "Marco Ruiz", "marco@ruizprint.test", "Print manager"),
    ],
)
def test_each_client_has_its_person_with_address_and_role(fernhill, company, person, email, role):
    link = CompanyPerson.objects.select_related("contact").get(company__name=company, contact__name=person)
    assert (link.role, link.contact.job_title) == (role, role)
    assert [e.email for e in link.contact.emails.all()] == [email]


def test_juniper_dental_has_its_domain(fernhill):
    assert Company.objects.get(organization=fernhill, name="Juniper Dental").domains == ["juniperdental.test"]


def test_rosas_context_is_the_specs(fernhill):
    rosa = Contact.objects.get(organization=fernhill, name="Rosa Ortiz")
    assert rosa.context == "Pays by bank transfer at month end; a nudge is enough."


def test_each_contact_was_added_on_its_own_log(fernhill):
    for contact in Contact.objects.filter(organization=fernhill):
        assert contact.log.filter(kind="created").count() == 1


def test_each_company_was_added_on_its_own_log(fernhill):
    for company in Company.objects.filter(organization=fernhill):
        assert company.log.filter(kind="created").count() == 1


def test_the_quote_request_is_on_juniper_dentals_timeline(fernhill):
    entry = TimelineEntry.objects.get(company__name="Juniper Dental")
    assert (entry.title, entry.kind, entry.state) == ("Rebrand quote request", "mail", "waiting_you")


def test_the_rebrand_project_holds_the_quote_in_mdx(fernhill):
    project = Project.objects.get(organization=fernhill, name="Juniper Dental rebrand")
    doc = Doc.objects.get(project=project)
    assert doc.title == "Juniper Dental rebrand quote" and "| **Total** | **$8,400** |" in doc.text
    assert doc.version == 1 and doc.versions.get().lines == [
        "Priced from the 2026 rate card: logo $4,800, signage $3,600."
    ]


def test_dana_is_linked_to_the_rebrand_project(fernhill):
    project = Project.objects.get(organization=fernhill, name="Juniper Dental rebrand")
    assert [link.contact.name for link in project.links.all()] == ["Dana Whitfield"]


def test_make_run_prints_the_sign_in_last_and_only_once(db, settings):
    """`make run` makes the workspace quietly, installs the sandbox, then prints the sign-in just before the
    server starts, so the first run's install doesn't scroll it away."""
    settings.PORT = "8000"
    made, sign_in = io.StringIO(), io.StringIO()
    call_command("seed_demo", "--no-sign-in", stdout=made)
    before = counts()
    call_command("seed_demo", "--sign-in-only", stdout=sign_in)
    assert "Fernhill Studio is ready" in made.getvalue() and "Sign in" not in made.getvalue()
    assert counts() == before  # the sign-in alone makes nothing
    assert sign_in.getvalue().strip().splitlines()[:2] == [
        "Roadstar is starting (web and worker; Ctrl-C stops both).", "Sign in at http://127.0.0.1:8000"]
    makefile = (Path(settings.BASE_DIR) / "Makefile").read_text()
    recipe = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert recipe.index("seed_demo --sign-in-only") < recipe.index("honcho start")
    assert "workspace" in recipe.splitlines()[0]  # the sandbox's install runs before the recipe's lines
