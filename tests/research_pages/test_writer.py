"""The research writer on the scripted model and the local web: a page researched, written and verified, every
figure traced to a source it read; a worker dying mid-run resumed without a second page or a second plan; two runs
never write one page; the asking agent's budget stops it; failures say why."""

import json

import pytest

from agents import research_writer
from agents.models import Conversation, Usage
from agents.runtime.model import ModelResponse
from core.actors import Actor
from core.context import ToolContext
from research import page_services
from research.models import PageRevision, PageSource, ResearchPage
from tests.factories import ProjectFactory
from tests.research_pages.conftest import PLAN, draft, writer_script
from tools.pipeline import use_tool


@pytest.fixture
def request_page(pages_on, agent):
    """pages.request as Client desk's thread makes it, with the check off (the check's own test is elsewhere)."""
    pages_on.check_enabled = False
    pages_on.save(update_fields=["check_enabled"])
    project = ProjectFactory(organization=pages_on, name="Market research")
    ctx = ToolContext(org=pages_on, actor=Actor.for_agent(agent), conversation_id="thread-1")

    def make(question="How many coffee shops does the UK have?"):
        result = use_tool(ctx, "pages.request", {"question": question, "projectId": str(project.id),
                                                  "context": "For the expansion plan."})
        assert result["status"] == "queued", result
        return ResearchPage.objects.get(id=result["pageId"])

    return make


def test_a_page_is_researched_written_and_every_figure_traced_to_a_source(request_page, web, model, agent):
    page = request_page()
    writer_script(model)
    assert research_writer.run(str(page.id)) == "completed"

    page.refresh_from_db()
    assert (page.generation, page.status, page.phase) == ("completed", "published", "verifying")
    sources = {s.citation_number: s for s in PageSource.objects.filter(page=page)}
    assert [sources[n].url for n in (1, 2)] == [web.site.url("/market"), web.site.url("/stats")]
    assert "9,600 outlets" in sources[1].text and sources[1].published_date == "2025-06-02"
    assert len(sources) == 2  # the 404 is not a source
    artifact = page.current_revision.artifact
    known = {str(s.id) for s in sources.values()}
    traced = [row for chart in artifact["charts"] for row in chart["rows"]]
    traced += [row for table in artifact["dataTables"] for row in table["rows"]]
    traced += [item for timeline in artifact["timelines"] for item in timeline["items"]]
    assert traced and all(row["sourceDocumentIds"] and set(row["sourceDocumentIds"]) <= known for row in traced)
    # The row naming a source it never read (s9) and the one naming none are left out; [7] cites nothing.
    assert [r["x"] for r in artifact["charts"][0]["rows"]] == ["2023", "2024", "2025"]
    assert [r["cells"][0] for r in artifact["dataTables"][0]["rows"]] == ["2025"]
    assert "[7]" not in artifact["bodyMdx"] and "[1]" in artifact["bodyMdx"]
    assert artifact["counterViewMarkdown"].startswith("Independents")
    assert page.title == "How many coffee shops does the UK have?"

    # The plan was asked with the question and context; the writing prompt held the sources' text.
    plan_request, write_request = model.requests
    assert "For the expansion plan." in plan_request["messages"][1]["content"]
    assert plan_request["json_schema"]["name"] == "research_plan"
    assert "9,600 outlets in 2025" in write_request["messages"][1]["content"]
    assert web.queries == PLAN["queries"]

    # It worked in a thread of the agent that asked, whose budget paid for both calls; the thread is closed.
    thread = Conversation.objects.get(id=page.conversation_id)
    assert (thread.agent_id, thread.kind, thread.closed_at is not None) == (agent.id, "thread", True)
    assert thread.title == "Research page: How many coffee shops does the UK have?"
    usage = Usage.objects.filter(agent=agent, purpose="research", conversation=thread)
    assert usage.count() == 2 and page.cost == sum(u.cost for u in usage) and page.cost > 0


def test_the_read_shape_of_a_ready_page(request_page, web, model, agent, use):
    page = request_page()
    writer_script(model)
    research_writer.run(str(page.id))
    read = use("pages.read", pageId=str(page.id))
    assert read["state"] == "ready" and read["type"] == "question"
    assert read["model"]["title"] == "How many coffee shops does the UK have?"
    assert [s["citationNumber"] for s in read["model"]["sources"]] == [1, 2]
    assert read["model"]["sources"][0] == {
        "citationNumber": 1, "crawlStatus": "idle", "datePrecision": "day",
        "id": str(PageSource.objects.get(page=page, citation_number=1).id), "hasSnapshot": True,
        "publishedDate": "2025-06-02", "title": "UK coffee shop market", "url": web.site.url("/market"),
    }
    assert (read["agentId"], read["isStarred"], read["isFollowing"], read["starCount"]) == (
        str(agent.id), False, False, 0)
    assert read["author"] == {"image": None, "name": "Roadstar"} and read["wordCount"] > 20
    page.refresh_from_db()
    assert read["currentRevisionId"] == str(page.current_revision_id) == str(
        PageRevision.objects.get(page=page, number=1).id)


class WorkerKilled(BaseException):
    """What a kill -9 leaves: the run stops mid-way, nothing after it runs (not even an except Exception)."""


def test_a_worker_killed_mid_run_is_picked_up_where_it_stopped_and_makes_one_page(request_page, web, model):
    page = request_page()

    def killed(request):
        raise WorkerKilled

    model.add(ModelResponse(text=json.dumps(PLAN)), killed)
    with pytest.raises(WorkerKilled):
        research_writer.run(str(page.id))
    page.refresh_from_db()
    assert (page.generation, page.phase) == ("running", "writing")
    assert PageSource.objects.filter(page=page).count() == 2
    # While the dead worker's claim holds, nobody runs it; the sweep does once it lapses.
    assert research_writer.sweep() == 0
    ResearchPage.objects.filter(id=page.id).update(claimed_until=page.claimed_until.replace(year=2000))
    model.add(ModelResponse(text=json.dumps(draft())))
    assert research_writer.sweep() == 1
    page.refresh_from_db()
    assert page.generation == "completed" and page.attempts == 2
    # No second page, no second plan or search, the same two sources, one first revision.
    assert ResearchPage.objects.count() == 1 and PageRevision.objects.filter(page=page).count() == 1
    assert len(model.requests) == 3 and len(web.queries) == len(PLAN["queries"])
    assert PageSource.objects.filter(page=page).count() == 2
    assert research_writer.run(str(page.id)) == "not claimed"


def test_two_runs_at_once_write_the_page_once(request_page, web, model):
    page = request_page()
    inner = {}

    def second_run_meanwhile(request):
        inner["result"] = research_writer.run(str(page.id))  # another worker, while this one holds the claim
        return ModelResponse(text=json.dumps(PLAN))

    model.add(second_run_meanwhile, ModelResponse(text=json.dumps(draft())))
    assert research_writer.run(str(page.id)) == "completed"
    assert inner["result"] == "not claimed"
    assert PageRevision.objects.filter(page=page).count() == 1


def test_a_run_whose_claim_was_taken_over_keeps_nothing(request_page, web, model):
    page = request_page()

    def taken_over(request):
        from django.utils import timezone

        ResearchPage.objects.filter(id=page.id).update(claimed_until=timezone.now().replace(year=2099))
        return ModelResponse(text=json.dumps(draft()))

    model.add(ModelResponse(text=json.dumps(PLAN)), taken_over)
    assert research_writer.run(str(page.id)) == "not claimed"
    page.refresh_from_db()
    assert page.generation == "running" and page.current_revision is None


def test_a_run_after_too_many_tries_fails_the_page(request_page):
    page = request_page()
    ResearchPage.objects.filter(id=page.id).update(attempts=page_services.MAX_ATTEMPTS)
    assert research_writer.run(str(page.id)) == "not claimed"
    page.refresh_from_db()
    assert page.generation == "failed" and "stopped more than once" in page.error_message


def test_the_asking_agents_spent_budget_stops_the_page_before_any_model_call(request_page, web, model, agent):
    from decimal import Decimal

    agent.monthly_budget = Decimal("1.00")
    agent.save(update_fields=["monthly_budget"])
    Usage.objects.create(organization=agent.organization, agent=agent, purpose="turn", model=agent.model,
                         cost=Decimal("1.50"))
    page = request_page()
    assert research_writer.run(str(page.id)) == "failed"
    page.refresh_from_db()
    assert "spent its monthly budget" in page.error_message and model.requests == []


def test_spend_past_the_budget_mid_run_stops_it(request_page, web, model, agent):
    from decimal import Decimal

    from agents.runtime.model import ModelUsage

    agent.monthly_budget = Decimal("0.01")
    agent.save(update_fields=["monthly_budget"])
    page = request_page()
    model.add(ModelResponse(text=json.dumps(PLAN), usage=ModelUsage(input_tokens=10_000_000, output_tokens=10)))
    assert research_writer.run(str(page.id)) == "failed"
    page.refresh_from_db()
    agent.refresh_from_db()
    assert agent.paused and "spent its monthly budget" in page.error_message and len(model.requests) == 1


def test_a_draft_in_the_wrong_shape_is_asked_again_once_then_the_page_fails(request_page, web, model):
    page = request_page()
    model.add(ModelResponse(text=json.dumps(PLAN)), ModelResponse(text="Here is your page!"),
              ModelResponse(text=json.dumps({"title": "x", "artifact": {"bodyMdx": ""}})))
    assert research_writer.run(str(page.id)) == "failed"
    page.refresh_from_db()
    assert "wasn't in the shape" in page.error_message
    assert "That isn't the JSON asked for: not JSON" in model.requests[2]["messages"][-1]["content"]


def test_a_draft_fixed_on_the_second_try_is_published(request_page, web, model):
    page = request_page()
    model.add(ModelResponse(text=json.dumps(PLAN)), ModelResponse(text="{}"),
              ModelResponse(text="```json\n" + json.dumps(draft()) + "\n```"))
    assert research_writer.run(str(page.id)) == "completed"


def test_nothing_readable_fails_the_page_saying_so(request_page, web, model):
    web.hits = web.hits[2:]  # only the 404
    page = request_page()
    model.add(ModelResponse(text=json.dumps(PLAN)))
    assert research_writer.run(str(page.id)) == "failed"
    page.refresh_from_db()
    assert page.error_message.startswith("Nothing the web search found could be read")


def test_without_web_search_the_page_fails_saying_who_sets_it_up(request_page, model, settings, monkeypatch):
    page = request_page()  # asked for while a search was set up; it is gone when the writer runs
    monkeypatch.setattr("integrations.web.services.configured_provider", lambda: None)
    model.add(ModelResponse(text=json.dumps(PLAN)))
    assert research_writer.run(str(page.id)) == "failed"
    page.refresh_from_db()
    assert page.error_message == page_services.NO_WEB_SEARCH


def test_the_request_queues_the_writer_once_it_commits(request_page, django_capture_on_commit_callbacks):
    from django_q.models import OrmQ

    with django_capture_on_commit_callbacks(execute=True):
        page = request_page()
    [queued] = [q for q in OrmQ.objects.all() if q.task.get("name") == f"research page {page.id}"]
    assert queued.task["func"] == "agents.research_writer.run" and queued.task["args"] == (str(page.id),)
