"""The pages and comments groups through use_tool: every limit and error of the spec, the group off, reads scoped
to the workspace, the check on every checked tool (and the cost note on pages.request), update's find-and-replace
with Undo, move, mark, and comments nested one level."""

import re

import pytest

from checks.models import Ask, CheckDecision
from core.models import Change
from core.services import change_undo
from research import page_services
from research.models import PageComment, PageMark, PageRevision, PageSource, ResearchPage
from tests.factories import ProjectFactory
from tests.spec import spec_page
from tools import registry
from tools.catalog import browse_description, browse_tools
from tools.pipeline import use_tool

# --- the group's declarations and its setting -------------------------------------------------------------------


def _limits_of(page: str, name: str) -> dict[str, str]:
    section = spec_page(f"tools/{page}.md").split(f"`{name}` ·", 1)[1].split("Returns:", 1)[0]
    rows = re.findall(r"^\| `([\w.\[\]]+)` \| [^|]+ \| (?:yes|no) \| ([^|]*) \|$", section, flags=re.M)
    return {k: v.strip() for k, v in rows if v.strip()}


def test_the_limits_tested_here_are_the_spec_pages():
    assert _limits_of("pages", "pages.list") == {"title": "up to 300 characters", "offset": "0 or more"}
    assert _limits_of("pages", "pages.request") == {"question": "1–2,000 characters",
                                                    "context": "up to 4,000 characters"}
    assert _limits_of("pages", "pages.update") == {
        "title": "up to 200 characters", "edits": "1–12 items", "edits[].label": "1–120 characters",
        "edits[].find": "1–2,000 characters", "edits[].replace": "up to 2,000 characters",
        "edits[].was": "up to 60 characters", "edits[].now": "up to 60 characters",
        "sentence.before": "1–2,000 characters", "sentence.after": "1–2,000 characters",
        "source.label": "1–200 characters", "source.href": "1–2,000 characters", "quote": "up to 1,000 characters"}
    assert _limits_of("comments", "comments.comment") == {"text": "1–10,000 characters"}


def test_request_carries_the_specs_cost_note_and_is_checked_whatever_its_kind():
    tool = registry.TOOLS["pages.request"]
    assert tool.kind == "makes" and tool.owners_yes == "Checked"
    assert tool.check_note(None, None) == "A page costs money and has no price up front."
    assert "A page costs money and has no price up front" in spec_page("tools/pages.md")


@pytest.mark.parametrize("group", ["pages", "comments"])
def test_off_by_default_listed_as_off_in_browse_and_refused(ctx, use, group):
    [line] = [line for line in browse_description(ctx.org).splitlines() if line.startswith(f"- {group}:")]
    assert line.endswith("; off here: the owner turns it on, on the Newsfeed page)")
    assert all("(off here: the owner turns it on" in words for words in browse_tools(ctx, [group])[group].values())
    name = "pages.list" if group == "pages" else "comments.list"
    result = use(name, **({} if group == "pages" else {"pageId": "5b3c9a1e-0000-4000-8000-000000000000"}))
    assert result["error"] == "unsupported" and "turn" in result["message"]


def test_on_the_groups_are_in_browse_with_the_specs_lines(pages_on, ctx):
    lines = browse_description(pages_on).splitlines()
    assert "- pages: research pages (6)" in lines and "- comments: comments on pages (2)" in lines


# --- limits -------------------------------------------------------------------------------------------------------

PAGE = "5b3c9a1e-0000-4000-8000-000000000000"
EDIT = {"label": "Outlets", "find": "9,600 outlets", "replace": "9,700 outlets"}
SOURCE = {"label": "Allegra 2026", "href": "https://allegra.test/2026"}


@pytest.mark.parametrize(
    ("name", "inp", "where"),
    [
        ("pages.list", {"title": "x" * 301}, "title"),
        ("pages.list", {"type": "doc"}, "type"),
        ("pages.list", {"status": "completed"}, "status"),
        ("pages.list", {"offset": -1}, "offset"),
        ("pages.list", {"projectId": "nope"}, "projectId"),
        ("pages.read", {}, "pageId"),
        ("pages.read", {"pageId": "nope"}, "pageId"),
        ("pages.request", {}, "question"),
        ("pages.request", {"question": ""}, "question"),
        ("pages.request", {"question": "   "}, "question"),
        ("pages.request", {"question": "q" * 2001}, "question"),
        ("pages.request", {"question": "q", "context": "c" * 4001}, "context"),
        ("pages.request", {"question": "q", "projectId": 7}, "projectId"),
        ("pages.update", {"pageId": PAGE, "source": SOURCE}, "edits"),
        ("pages.update", {"pageId": PAGE, "edits": [], "source": SOURCE}, "edits"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT] * 13, "source": SOURCE}, "edits"),
        ("pages.update", {"pageId": PAGE, "edits": [{**EDIT, "label": ""}], "source": SOURCE}, "edits[0].label"),
        ("pages.update", {"pageId": PAGE, "edits": [{**EDIT, "label": "l" * 121}], "source": SOURCE},
         "edits[0].label"),
        ("pages.update", {"pageId": PAGE, "edits": [{**EDIT, "find": ""}], "source": SOURCE}, "edits[0].find"),
        ("pages.update", {"pageId": PAGE, "edits": [{**EDIT, "find": "f" * 2001}], "source": SOURCE},
         "edits[0].find"),
        ("pages.update", {"pageId": PAGE, "edits": [{**EDIT, "replace": "r" * 2001}], "source": SOURCE},
         "edits[0].replace"),
        ("pages.update", {"pageId": PAGE, "edits": [{**EDIT, "was": "w" * 61}], "source": SOURCE}, "edits[0].was"),
        ("pages.update", {"pageId": PAGE, "edits": [{**EDIT, "now": "n" * 61}], "source": SOURCE}, "edits[0].now"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": SOURCE, "title": "t" * 201}, "title"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT]}, "source"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": {**SOURCE, "label": ""}}, "source.label"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": {**SOURCE, "label": "l" * 201}},
         "source.label"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": {**SOURCE, "href": ""}}, "source.href"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT],
                          "source": {**SOURCE, "href": "https://a.test/" + "h" * 2000}}, "source.href"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": {**SOURCE, "href": "javascript:alert(1)"}},
         "source.href"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": SOURCE, "quote": "q" * 1001}, "quote"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": SOURCE, "sentence": {"before": "b"}},
         "sentence.after"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": SOURCE,
                          "sentence": {"before": "", "after": "a"}}, "sentence.before"),
        ("pages.update", {"pageId": PAGE, "edits": [EDIT], "source": SOURCE,
                          "sentence": {"before": "b", "after": "a" * 2001}}, "sentence.after"),
        ("pages.move", {"pageId": PAGE}, "projectId"),
        ("pages.mark", {"pageId": PAGE, "action": "like", "enabled": True}, "action"),
        ("pages.mark", {"pageId": PAGE, "action": "star"}, "enabled"),
        ("pages.mark", {"pageId": PAGE, "action": "star", "enabled": "yes"}, "enabled"),
        ("comments.list", {}, "pageId"),
        ("comments.comment", {"pageId": PAGE}, "text"),
        ("comments.comment", {"pageId": PAGE, "text": ""}, "text"),
        ("comments.comment", {"pageId": PAGE, "text": "t" * 10_001}, "text"),
        ("comments.comment", {"pageId": PAGE, "text": "t", "parentId": "nope"}, "parentId"),
    ],
)
def test_limits_name_the_field(pages_on, use, name, inp, where):
    result = use(name, **inp)
    assert result["error"] == "bad_input" and result["message"].startswith(where), result


def test_limits_are_taken_exactly(ready_page, use):
    page = ready_page()
    assert use("pages.request", question="q" * 2000, context="c" * 4000)["status"] == "queued"
    assert use("comments.comment", pageId=str(page.id), text="t" * 10_000)["commentId"]
    assert use("pages.list", title="x" * 300)["items"] == []
    result = use("pages.update", pageId=str(page.id), title="T" * 200, source=SOURCE, quote="q" * 1000,
                 edits=[{"label": "l" * 120, "find": "9,600 outlets", "replace": "r" * 2000, "was": "w" * 60,
                         "now": "n" * 60}])
    assert result["published"]["revisionNumber"] == 2


# --- another workspace's pages ----------------------------------------------------------------------------------


@pytest.fixture
def their_page(other_org):
    project = ProjectFactory(organization=other_org, name="Theirs")
    page = page_services.page_request(org=other_org, project=project, question="Their question")
    page_services.comment_add(page=page, text="theirs")
    return page


@pytest.mark.parametrize("name", ["pages.read", "pages.move", "pages.mark", "pages.update", "comments.list",
                                  "comments.comment"])
def test_another_workspaces_page_is_not_found(pages_on, use, their_page, project, name):
    inp = {"pageId": str(their_page.id), "projectId": str(project.id), "action": "star", "enabled": True,
           "text": "hello", "edits": [EDIT], "source": SOURCE}
    fields = set(registry.TOOLS[name].input_schema()["properties"])
    result = use(name, **{k: v for k, v in inp.items() if k in fields})
    assert result["error"] == "not_found" and str(their_page.id) in result["message"], result
    assert not PageMark.objects.filter(page=their_page).exists()
    assert PageComment.objects.filter(page=their_page).count() == 1


def test_another_workspaces_pages_are_not_listed_and_its_projects_not_taken(pages_on, use, their_page, ready_page):
    ready_page()
    assert [i["title"] for i in use("pages.list")["items"]] == ["How many coffee shops does the UK have?"]
    assert use("pages.request", question="q", projectId=str(their_page.project_id))["error"] == "not_found"
    page = ready_page("Second")
    assert use("pages.move", pageId=str(page.id), projectId=str(their_page.project_id))["error"] == "not_found"


def test_a_reply_to_another_pages_comment_is_not_found(ready_page, use):
    one, two = ready_page("One"), ready_page("Two")
    theirs = page_services.comment_add(page=two, text="on two")
    result = use("comments.comment", pageId=str(one.id), text="reply", parentId=str(theirs.id))
    assert result["error"] == "not_found" and result["message"].startswith("parentId")


# --- list and read -----------------------------------------------------------------------------------------------


def test_list_newest_first_with_filters_and_paging(ready_page, use, project, pages_on):
    first = ready_page("Coffee shops")
    queued = page_services.page_request(org=pages_on, project=project, question="Tea rooms?")
    failed = page_services.page_request(org=pages_on, project=project, question="Bakeries?")
    page_services.page_fail(page=failed, message="No sources.")
    items = use("pages.list")["items"]
    assert [i["title"] for i in items] == ["Bakeries?", "Tea rooms?", "Coffee shops"]
    assert items[2] == {"id": str(first.id), "title": "Coffee shops", "type": "question",
                        "projectId": str(project.id), "projectName": "Market research", "status": "published",
                        "generationStatus": "completed", "updatedAt": items[2]["updatedAt"]}
    assert [i["id"] for i in use("pages.list", status="queued")["items"]] == [str(queued.id)]
    assert [i["id"] for i in use("pages.list", status="failed")["items"]] == [str(failed.id)]
    assert [i["id"] for i in use("pages.list", status="published")["items"]] == [str(first.id)]
    assert [i["title"] for i in use("pages.list", title="TEA")["items"]] == ["Tea rooms?"]
    assert use("pages.list", type="thesis")["items"] == []
    other = ProjectFactory(organization=pages_on)
    assert use("pages.list", projectId=str(other.id))["items"] == []
    for n in range(20):
        page_services.page_request(org=pages_on, project=project, question=f"Question {n}")
    listed = use("pages.list")
    assert len(listed["items"]) == 20 and listed["nextOffset"] == 20
    rest = use("pages.list", offset=20)
    assert len(rest["items"]) == 3 and rest["nextOffset"] is None


def test_read_while_generating_and_after_failing(pages_on, project, use):
    page = page_services.page_request(org=pages_on, project=project, question="Tea rooms?")
    head = {"id": str(page.id), "slug": "tea-rooms", "title": "Tea rooms?", "type": "question"}
    base = {"projectId": str(project.id), "organizationId": str(pages_on.id), "agentId": None}
    assert use("pages.read", pageId=str(page.id)) == {**base, "page": head, "phase": "queued", "state": "generating"}
    page_services.page_fail(page=page, message="Nothing could be read.")
    assert use("pages.read", pageId=str(page.id)) == {**base, "errorMessage": "Nothing could be read.", "page": head,
                                                      "state": "failed"}


# --- request and the check ------------------------------------------------------------------------------------------


def test_request_goes_in_the_project_named_else_the_one_the_agent_files_into(pages_on, use, project, agent):
    named = use("pages.request", question="Coffee?", projectId=str(project.id))
    assert ResearchPage.objects.get(id=named["pageId"]).project == project
    assert set(named) == {"pageId", "slug", "generationToken", "status"} and named["slug"] == "coffee"
    filed = ResearchPage.objects.get(id=use("pages.request", question="Tea?")["pageId"])
    assert filed.project.name == "Client desk's docs" and filed.agent_id == agent.id
    change = Change.objects.get(tool="pages.request", target_id=str(filed.id))
    assert change.listing == "home" and change.sentence == 'asked for a research page, “Tea?” in "Client desk\'s docs"'


def test_request_is_asked_about_with_its_cost_note_even_when_the_owner_asked(pages_on, owner_says, project):
    result = use_tool(owner_says("Get a research page on how many coffee shops the UK has."), "pages.request",
                      {"question": "How many coffee shops does the UK have?", "projectId": str(project.id)})
    assert "not_done_yet" in result and not ResearchPage.objects.exists()
    decision = CheckDecision.objects.get(tool="pages.request")
    assert decision.outcome == "ask"


def test_without_web_search_request_says_so_before_any_ask(pages_on, owner_says, project, monkeypatch):
    monkeypatch.setattr("integrations.web.services.configured_provider", lambda: None)
    result = use_tool(owner_says("Get a research page on how many coffee shops the UK has."), "pages.request",
                      {"question": "How many coffee shops does the UK have?", "projectId": str(project.id)})
    assert result == {"error": "unsupported", "message": "This Roadstar has no web search set up, so there is "
                      "nothing to research a question with: whoever runs your Roadstar can set one up. No page was "
                      "asked for."}
    assert (ResearchPage.objects.count(), CheckDecision.objects.count(), Ask.objects.count()) == (0, 0, 0)


@pytest.mark.parametrize("name", ["pages.update", "pages.move"])
def test_changes_the_owner_did_not_ask_for_are_held(ready_page, owner_says, project, pages_on, name):
    page = ready_page()
    other = ProjectFactory(organization=pages_on, name="Elsewhere")
    inp = {"pageId": str(page.id), "projectId": str(other.id), "edits": [EDIT], "source": SOURCE}
    fields = set(registry.TOOLS[name].input_schema()["properties"])
    result = use_tool(owner_says("Thanks, that's all."), name, {k: v for k, v in inp.items() if k in fields})
    assert "not_done_yet" in result
    page.refresh_from_db()
    assert page.project == project and page.current_revision.number == 1


@pytest.mark.parametrize("name", ["pages.mark", "comments.comment"])
def test_marks_and_comments_are_not_checked(ready_page, owner_says, name):
    page = ready_page()
    inp = {"pageId": str(page.id), "action": "follow", "enabled": True, "text": "Worth a look."}
    fields = set(registry.TOOLS[name].input_schema()["properties"])
    result = use_tool(owner_says("Thanks, that's all."), name, {k: v for k, v in inp.items() if k in fields})
    assert "not_done_yet" not in result and "error" not in result


# --- update -------------------------------------------------------------------------------------------------------


def test_update_replaces_the_words_adds_the_source_and_undo_restores(ready_page, use, agent):
    page = ready_page()
    result = use("pages.update", pageId=str(page.id), source=SOURCE, quote="9,700 outlets in 2025",
                 edits=[{"label": "Outlets in 2025", "find": "9,600 outlets", "replace": "9,700 outlets",
                         "was": "9,600", "now": "9,700"},
                        {"label": "2024 outlets", "find": "9,300", "replace": "9,350"}],
                 sentence={"before": "Growth was 3% [2].", "after": "Growth was 4% [3]."})
    revision = PageRevision.objects.get(id=result["published"]["revisionId"])
    assert result == {"pageId": str(page.id), "replaced": "Outlets in 2025: 9,600 → 9,700; 2024 outlets: 9,300 → 9,350",
                      "published": {"revisionId": str(revision.id), "revisionNumber": 2}}
    assert "9,700 outlets in 2025 [1]" in revision.artifact["bodyMdx"] and "Growth was 4% [3]" in revision.artifact[
        "bodyMdx"]
    assert revision.artifact["dataTables"][0]["rows"][0]["cells"] == ["2024", "9,350"]
    added = PageSource.objects.get(page=page, citation_number=3)
    assert (added.url, added.title, added.text, added.added_by_edit) == (
        "https://allegra.test/2026", "Allegra 2026", "9,700 outlets in 2025", True)
    read = use("pages.read", pageId=str(page.id))
    assert read["currentRevisionId"] == str(revision.id) and len(read["model"]["sources"]) == 3

    change = Change.objects.get(tool="pages.update")
    assert change.listing == "home_undo" and "9,600 → 9,700" in change.sentence
    change_undo(org=page.organization, change_id=change.id, actor=change_actor(agent))
    page.refresh_from_db()
    assert page.current_revision.number == 3 and page.current_revision.artifact == PageRevision.objects.get(
        page=page, number=1).artifact


def change_actor(agent):
    from core.actors import Actor

    return Actor.for_agent(agent)


def test_undo_after_a_later_update_changes_nothing(ready_page, use, agent):
    page = ready_page()
    done = use("pages.update", pageId=str(page.id), source=SOURCE,
               edits=[{"label": "Outlets", "find": "9,600 outlets", "replace": "9,700 outlets"}])
    use("pages.update", pageId=str(page.id), source=SOURCE, edits=[{"label": "Sales", "find": "£5.8 billion",
                                                                    "replace": "£5.9 billion"}])
    [first] = [c for c in Change.objects.filter(tool="pages.update")
               if c.undo["expect"] == done["published"]["revisionId"]]
    from core.errors import ToolError

    with pytest.raises(ToolError) as raised:
        change_undo(org=page.organization, change_id=first.id, actor=change_actor(agent))
    assert raised.value.kind == "changed"
    page.refresh_from_db()
    body = page.current_revision.artifact["bodyMdx"]
    assert "9,700" in body and "£5.9 billion" in body  # both updates kept, neither lost


@pytest.mark.parametrize(
    ("find", "problem"),
    [("9,500 outlets", "doesn't have these words now"), ("[1]", "on the page 3 times")],
)
def test_update_words_the_page_lacks_or_has_twice_are_refused(ready_page, use, find, problem):
    page = ready_page()
    result = use("pages.update", pageId=str(page.id), source=SOURCE,
                 edits=[EDIT, {"label": "x", "find": find, "replace": "y"}])
    assert result["error"] == "bad_input" and result["message"].startswith("edits[1].find") and problem in result[
        "message"]
    assert PageRevision.objects.filter(page=page).count() == 1  # the first edit wasn't kept either


def test_update_of_a_page_not_written_yet_is_refused(pages_on, project, use):
    page = page_services.page_request(org=pages_on, project=project, question="Tea?")
    result = use("pages.update", pageId=str(page.id), source=SOURCE, edits=[EDIT])
    assert result["error"] == "bad_input" and "still being written" in result["message"]


# --- move and mark ------------------------------------------------------------------------------------------------


def test_move(ready_page, use, pages_on):
    page = ready_page()
    other = ProjectFactory(organization=pages_on, name="Expansion")
    assert use("pages.move", pageId=str(page.id), projectId=str(other.id)) == {"id": str(page.id),
                                                                            "projectId": str(other.id)}
    page.refresh_from_db()
    assert page.project == other
    assert Change.objects.get(tool="pages.move").sentence.endswith("from “Market research” to “Expansion”")


def test_mark_star_and_follow(ready_page, use, agent):
    page = ready_page()
    assert use("pages.mark", pageId=str(page.id), action="star", enabled=True) == {
        "pageId": str(page.id), "action": "star", "enabled": True}
    use("pages.mark", pageId=str(page.id), action="star", enabled=True)  # again: nothing new
    use("pages.mark", pageId=str(page.id), action="follow", enabled=True)
    read = use("pages.read", pageId=str(page.id))
    assert (read["isStarred"], read["isFollowing"], read["starCount"]) == (True, True, 1)
    assert Change.objects.filter(tool="pages.mark").count() == 2
    use("pages.mark", pageId=str(page.id), action="follow", enabled=False)
    assert use("pages.read", pageId=str(page.id))["isFollowing"] is False


# --- comments -----------------------------------------------------------------------------------------------------


def test_comments_nest_one_level_and_an_agents_show_as_roadstar(ready_page, use, pages_on):
    page = ready_page()
    owners = page_services.comment_add(page=page, text="Does this count kiosks?")
    reply = use("comments.comment", pageId=str(page.id), text="It doesn't: outlets only.", parentId=str(owners.id))
    deeper = use("comments.comment", pageId=str(page.id), text="And drive-throughs.", parentId=reply["commentId"])
    top = use("comments.comment", pageId=str(page.id), text="A new point.")
    window = use("comments.list", pageId=str(page.id))["comments"]
    assert window["nextCursor"] is None
    first, second = window["items"]
    assert (first["author"]["name"], first["bodyMarkdown"], first["parentId"], first["directReplyCount"]) == (
        "Sam", "Does this count kiosks?", None, 2)
    assert [c["id"] for c in first["children"]["items"]] == [reply["commentId"], deeper["commentId"]]
    assert {c["parentId"] for c in first["children"]["items"]} == {str(owners.id)}
    assert all(c["author"] == {"image": None, "name": "Roadstar", "username": None} and c["children"] is None
               for c in first["children"]["items"])
    assert second["id"] == top["commentId"] and second["author"]["name"] == "Roadstar"
    assert Change.objects.filter(tool="comments.comment").count() == 3
