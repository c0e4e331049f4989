"""A research page end to end, on the scripted model and the local web, as Sam sees it: Client desk asks for a page,
the check asks Sam with the cost note, Sam says yes on Home, the writer researches and writes it in a worker, every
figure traced to a source, the page renders like a doc with numbered citations, and Sam's comment wakes Client desk,
which follows the page and answers on it as Roadstar."""

import json

from django.urls import reverse

from agents import research_writer
from agents.models import Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.turn import drain
from agents.tasks import run_turn
from checks.models import CheckDecision
from home.selectors import home_asks
from research.models import PageComment, PageMark, ResearchPage
from tests.factories import AgentFactory, ProjectFactory
from tests.research_pages.conftest import PLAN, draft
from tests.use_cases.staff_script import StaffScript

QUESTION = "How many coffee shops does the UK have?"
ASK = "Shall I get a research page on how many coffee shops the UK has? It costs money, with no price up front."


def _last_result(request):
    return json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])


def test_a_page_requested_written_and_commented_on(pages_on, web, client, settings,
                                                   django_capture_on_commit_callbacks):
    settings.CHECK_JUDGE = False
    org = pages_on
    client.force_login(org.owner)
    desk = AgentFactory(organization=org, name="Client desk")
    project = ProjectFactory(organization=org, name="Expansion plan")
    request_input = {"question": QUESTION, "projectId": str(project.id), "context": "For the expansion plan."}
    staff = StaffScript()
    set_model(staff)
    try:
        # 1. Sam asks Client desk; its chat starts a thread, whose request for the page the check holds back.
        chat = {"routed": False}

        def chat_turn(request):
            last = request["messages"][-1]
            if not chat.get("started"):
                chat["started"] = True
                return call("start_thread", {"title": "Coffee shop research", "task": "Get a research page on "
                                             "how many coffee shops the UK has, for the expansion plan."})
            if "Yes, go ahead." in json.dumps(request["messages"][-3:]) and not chat["routed"]:
                chat["routed"] = True
                return call("message_thread", {"thread": "Coffee shop research",
                                               "task": "Sam says yes: ask for the research page."})
            return say("On it." if last["role"] == "tool" else "Noted.")

        staff.on("Client desk", "chat", *[chat_turn] * 12)
        held = {}
        staff.on("Client desk", "Coffee shop research",
                 call("use_tool", {"name": "pages.request", "input": request_input}),
                 lambda r: (held.setdefault("first", _last_result(r)), say(ASK))[1])
        client.post(reverse("chat", args=[desk.id]), {"text": "Get me a research page on how many coffee shops "
                                                               "the UK has, for the expansion plan."})
        drain(org_id=org.id)
        assert "not_done_yet" in held["first"] and not ResearchPage.objects.exists()
        decision = CheckDecision.objects.get(tool="pages.request")
        assert decision.outcome == "ask"  # no judge here: the note is left for the owner to weigh

        # 2. On Home, Sam sees the ask with the cost note, and says yes.
        [ask] = home_asks(org=org)
        assert (ask.agent_name, ask.where, ask.question) == ("Client desk", "Coffee shop research", ASK)
        home = client.get(reverse("home")).content.decode()
        assert "A page costs money and has no price up front." in home
        made = {}
        staff.on("Client desk", "Coffee shop research",
                 call("use_tool", {"name": "pages.request", "input": request_input}),
                 lambda r: (made.setdefault("page", _last_result(r)), call("use_tool", {
                     "name": "pages.mark", "input": {"pageId": _last_result(r)["pageId"], "action": "follow",
                                                     "enabled": True}}))[1],
                 say("I've asked for the page; it shows under Research when it's written."))
        assert client.post(reverse("ask_answer", args=[ask.id]), {"yes": "1", "answer": ""}).status_code == 302
        drain(org_id=org.id)
        assert made["page"]["status"] == "queued"
        page = ResearchPage.objects.get(id=made["page"]["pageId"])
        assert PageMark.objects.filter(page=page, agent_id=desk.id, action="follow").exists()
        # While it is written, the owner's page says so (and refreshes on the live "pages" message).
        waiting = client.get(reverse("pages:research_page", args=[page.id])).content.decode()
        assert "being written" in waiting and 'data-live-on="pages"' in waiting

        # 3. The worker's sweep runs the writer: it plans, searches, reads the local pages and writes the page.
        staff.on("Roadstar's research writer", "chat", say(json.dumps(PLAN)), say(json.dumps(draft())))
        assert research_writer.sweep() == 1
        page.refresh_from_db()
        assert (page.generation, page.status) == ("completed", "published")
        artifact = page.current_revision.artifact
        sources = {str(s.id) for s in page.sources.all()}
        figures = [r for c in artifact["charts"] for r in c["rows"]] + [
            r for t in artifact["dataTables"] for r in t["rows"]] + [
            i for t in artifact["timelines"] for i in t["items"]]
        assert figures and all(f["sourceDocumentIds"] and set(f["sourceDocumentIds"]) <= sources for f in figures)

        # 4. Sam reads it: rendered like a doc, a chart, numbered citations linked to the sources.
        shown = client.get(reverse("pages:research_page", args=[page.id])).content.decode()
        assert '<a href="#source-1" aria-label="Source 1">[1]</a>' in shown
        assert 'id="source-2"' in shown and web.site.url("/stats") in shown
        assert "page-chart-1-spec" in shown and "The other view" in shown
        assert "A figure with no source ." in shown  # its [7] cited no source it read, so it was taken out

        # 5. Sam comments on the page; Client desk, which follows it, is woken in its thread on the page and
        # answers there, as Roadstar.
        def answer(request):
            note = json.dumps(request["messages"])
            assert "Does this count kiosks?" in note and "comments.comment" in note
            owner_comment = PageComment.objects.get(page=page, agent_id__isnull=True)
            return call("use_tool", {"name": "comments.comment", "input": {
                "pageId": str(page.id), "parentId": str(owner_comment.id),
                "text": "It counts branded outlets only; kiosks aren't in the 9,600 [1]."}})

        staff.on("Client desk", f"Comments on {page.title}", answer, say("Answered Sam on the page."))
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("pages:research_page_comment", args=[page.id]),
                                   {"text": "Does this count kiosks?"})
        assert response.status_code == 302
        thread = Conversation.objects.get(agent=desk, kind="thread", title=f"Comments on {page.title}")
        assert Message.objects.filter(conversation=thread, role="owner", text="Does this count kiosks?").exists()
        # Woken: dispatched to a worker (a django-q task), which runs its turn.
        assert thread.state == "running"
        run_turn(str(thread.id))
        drain(org_id=org.id)
    finally:
        set_model(None)

    reply = PageComment.objects.get(page=page, agent_id=desk.id)
    assert reply.parent.text == "Does this count kiosks?"
    after = client.get(reverse("pages:research_page", args=[page.id])).content.decode()
    assert "kiosks aren&#x27;t in the 9,600" in after and "<strong>Roadstar</strong>" in after
