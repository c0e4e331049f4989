"""The research writer reads the workspace's own records through its search (search.md: one search over the copy
"and the workspace's own docs, tables and contacts"): the plan's record searches run on the asking workspace's
search, what they find reaches the writing prompt as sources marked as the workspace's records (citable like the
web's), and another workspace's records never do."""

import json

import pytest

from agents import research_writer
from agents.runtime.model import ModelResponse
from records.models import CompanyPerson
from research.models import PageSource
from research.page_services import page_request
from tests.factories import CompanyFactory, ContactFactory, DocFactory, ProjectFactory
from tests.research_pages.conftest import PLAN, draft

pytestmark = pytest.mark.django_db


@pytest.fixture
def records(pages_on, other_org):
    """Harbor Coffee in this workspace (a contact there, a doc on its order) and in another workspace."""
    dana = ContactFactory(organization=pages_on, name="Dana Reyes", emails=["dana@harborcoffee.test"],
                          context="Buys for Harbor Coffee's six shops; asked about oat milk pricing.")
    CompanyPerson.objects.create(organization=pages_on, contact=dana,
                                 company=CompanyFactory(organization=pages_on, name="Harbor Coffee"))
    DocFactory(organization=pages_on, title="Harbor Coffee order notes",
               text="Harbor Coffee orders 40 kg of beans a week for its six shops.")
    DocFactory(organization=other_org, title="Harbor Coffee secret terms",
               text="Harbor Coffee gets 30% off: the other workspace's own terms.")
    return pages_on


def test_the_workspaces_records_reach_the_writer_as_its_records_and_no_other_workspaces(records, web, model):
    project = ProjectFactory(organization=records, name="Market research")
    page = page_request(org=records, project=project, question="How many coffee shops does the UK have?")
    model.add(ModelResponse(text=json.dumps(PLAN | {"records": ["Harbor Coffee"]})),
              ModelResponse(text=json.dumps(draft())))
    assert research_writer.run(str(page.id)) == "completed"

    plan_request, write_request = model.requests
    assert plan_request["json_schema"]["schema"]["required"] == ["objective", "queries", "records"]
    sent = write_request["messages"][1]["content"]
    assert "one of the workspace's own records: Your doc: Harbor Coffee order notes" in sent
    assert "40 kg of beans a week" in sent
    assert "one of the workspace's own records: Your contact: Dana Reyes" in sent
    assert "oat milk pricing" in sent
    assert "30% off" not in sent and "secret terms" not in sent
    # They are the page's sources after the web's, each citable by its number, pointing at its page in Roadstar.
    sources = list(PageSource.objects.filter(page=page).order_by("citation_number"))
    assert [s.url.startswith("http") for s in sources] == [True, True, False, False, False]
    assert {s.title for s in sources[2:]} == {"Your doc: Harbor Coffee order notes", "Your contact: Dana Reyes",
                                              "Your company: Harbor Coffee"}
    assert all(s.url.startswith("/") for s in sources[2:])
    page.refresh_from_db()
    assert page.plan["record_urls"] == [s.url for s in sources[2:]]


def test_a_plan_without_record_searches_reads_only_the_web(records, web, model):
    project = ProjectFactory(organization=records, name="Market research")
    page = page_request(org=records, project=project, question="How many coffee shops does the UK have?")
    model.add(ModelResponse(text=json.dumps(PLAN)), ModelResponse(text=json.dumps(draft())))
    assert research_writer.run(str(page.id)) == "completed"
    assert "the workspace's own records" not in model.requests[1]["messages"][1]["content"]
    assert PageSource.objects.filter(page=page).count() == 2


def test_another_workspace_asking_finds_its_own_records_only(records, web, model, other_org):
    from research import services as research_services

    research_services.research_settings_set(org=other_org, pages=True)
    project = ProjectFactory(organization=other_org, name="Theirs")
    page = page_request(org=other_org, project=project, question="How many coffee shops does the UK have?")
    model.add(ModelResponse(text=json.dumps(PLAN | {"records": ["Harbor Coffee"]})),
              ModelResponse(text=json.dumps(draft())))
    assert research_writer.run(str(page.id)) == "completed"
    sent = model.requests[1]["messages"][1]["content"]
    assert "30% off" in sent and "Dana Reyes" not in sent and "40 kg" not in sent
