"""The research writer: what turns a page asked for with pages.request into a written page.

It works in a thread of the agent that asked ("Research page: <question>"), whose monthly budget pays for it: every
model call is a `Usage` of that agent and thread (purpose "research"), so the spend shows on the agents chart like
any other, and an agent paused for its budget stops its pages (they fail saying so). Research has no price up
front, which is why the request is checked with its cost note; MAX_QUERIES and MAX_SOURCES bound what one page
can spend.

One run, in a worker (`run`, queued by `start` when the request commits, or by the sweep every minute):
1. **researching**: the model plans web queries (strict JSON), the web group's search runs them, and the best
   pages are read (`integrations.web.services`: the address check on every fetch) and kept as numbered sources;
   the plan's searches of the workspace's own records (its docs, tables, contacts, companies, projects and other
   pages) run through the workspace's search (search.selectors, that workspace's alone), and what they find is
   kept as sources too, marked as the workspace's records, so the page can say what the business itself knows;
2. **writing**: the model writes the page in the spec's GeneratedPageDocumentModel shape from those sources, each
   figure, table row and timeline item naming its sources (`s1`, `s2` …), the body citing them as [1], [2];
3. **verifying**: source names become the sources' ids, a figure, row or item naming no source it was given is
   dropped, a citation to no source is removed; then the first revision is published.

Each phase's result is kept on the page (`ResearchPage.plan`, sources as rows) before the next starts, so a run
picked up after a worker died goes on from there and pays for nothing twice; the claim (research.page_services)
means one run at a time, and the page itself was made once, by the request. No transaction is open across a model
call or a fetch.
"""

from __future__ import annotations

import json
import logging
from decimal import Decimal

from django.db import transaction
from django.urls import reverse
from pydantic import ValidationError

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import ModelNotConfigured, ModelUnavailable, cost_of, get_model
from agents.runtime.scheduler import wake
from agents.selectors import agent_spend_this_month
from core.errors import ToolError
from core.inputs import as_uuid
from core.models import Card, Change
from core.network import network_call
from core.services import card_open
from integrations.web import services as web
from research import page_selectors, page_services
from research.models import PageComment, PageSource, ResearchPage
from research.page_shapes import CITATION, Artifact, page_url
from search import selectors as search
from search.models import WORKSPACE

logger = logging.getLogger(__name__)

MAX_QUERIES = 6
RESULTS = 10
MAX_SOURCES = 8
READ_BATCH = 5  # web.read's own limit
SOURCE_CHARS = 6000  # of each source's text, in the writing prompt
KEPT_CHARS = 30_000  # of each source's text, kept as its snapshot
PURPOSE = "research"
RECORD_QUERIES = 3  # searches of the workspace's own records a plan may make
RECORDS = 5  # of the workspace's records kept as sources, at most
# The kinds the workspace's own records are in search as (a copied Drive file may be a doc or a sheet too: only
# those whose source is the workspace are kept), and how a source's title names each.
RECORD_TYPES = {"doc": "doc", "sheet": "sheet", "slides": "slides", "table": "research table",
                "contact": "contact", "company": "company", "project": "project", "page": "research page"}

# (task, schedule name, every so many minutes): `manage.py schedule_ticks` makes the schedule.
SCHEDULES = (("agents.research_writer.sweep", "research pages sweep", 1),)


class WriterFailed(Exception):
    """The page can't be written; the message is for the owner (shown on the page and in pages.read)."""


# --- starting and picking up ------------------------------------------------------------------------------------


def start(page_id: str) -> None:
    """Queue a run of the page in a worker (handed to research.page_services in AgentsConfig.ready)."""
    from django_q.tasks import async_task

    async_task("agents.research_writer.run", page_id, task_name=f"research page {page_id}", group="research")


def sweep() -> int:
    """Every minute: run pages no worker holds (a task lost with its process, a worker killed mid-run)."""
    ran = 0
    for page_id in page_services.pages_due():
        if run(str(page_id)) == "completed":
            ran += 1
    return ran


def run(page_id: str) -> str:
    """One run of the page's generation: how it ended ("completed", "failed", or "not claimed")."""
    page = page_services.page_claim(page_id=page_id)
    if page is None:
        return "not claimed"
    thread = None
    try:
        agent = _agent_of(page)
        thread = _thread_of(page, agent)
        _write(page, agent, thread)
        _note(thread, f"Wrote the page “{page.title}”. It is published in {page.project.name}.")
        return "completed"
    except page_services.ClaimLost:
        logger.warning("research page %s: another run took it over; this one stops", page_id)
        return "not claimed"
    except WriterFailed as failed:
        if page_services.page_fail(page=page, message=str(failed)):
            _report_failure(page, str(failed))
        _note(thread, f"Couldn't write the page: {failed}")
        return "failed"
    except Exception:
        logger.exception("research page %s: the writer broke", page_id)
        broke = "The research writer ran into a problem of Roadstar's own and stopped. Ask for the page again."
        if page_services.page_fail(page=page, message=broke):
            _report_failure(page, broke)
        _note(thread, "Couldn't write the page: the research writer ran into a problem of its own.")
        return "failed"
    finally:
        if thread is not None:
            agent_services.thread_close(thread=thread)


def _report_failure(page: ResearchPage, message: str) -> None:
    """A page that couldn't be written is said where it was asked for, not only on /research/: in the chat or
    thread whose pages.request made it (a notice from its agent, which its next turn reads as news, not as its own
    reply), and on Home, a card that opens the page."""
    title = f"The research page “{page.title}” couldn't be written"
    asked_in = (Change.objects.filter(organization_id=page.organization_id, tool="pages.request",
                                      target_type="page", target_id=str(page.id))
                .values_list("conversation_id", flat=True).first())
    conversation = None
    # An outside app's call may carry a conversation id that isn't one of ours: then no conversation.
    if (conversation_id := as_uuid(asked_in)) is not None:
        conversation = Conversation.objects.filter(organization_id=page.organization_id, id=conversation_id).first()
    with transaction.atomic():
        if conversation is not None:
            agent_services.message_append(
                conversation=conversation, role=Message.Role.AGENT, text=f"{title}. {message}",
                data={"notice": True, "page_failed": str(page.id)},
            )
        card_open(org=page.organization, kind=Card.Kind.TRY_AGAIN, subject=f"page_failed:{page.id}", title=title,
                  body=f"{message} What was found so far is on the page.", action_label="Open the page",
                  action_url=reverse("pages:research_page", args=[page.id]))


def _agent_of(page: ResearchPage) -> Agent:
    """The agent whose budget pays: the one that asked, else (the owner asked through the API) Roadstar."""
    agents = Agent.objects.filter(organization_id=page.organization_id)
    agent = agents.filter(id=page.agent_id).first() if page.agent_id else None
    agent = agent or agents.filter(is_roadstar=True).first()
    if agent is None:
        raise WriterFailed("No agent is on the staff to research it.")
    return agent


def _thread_of(page: ResearchPage, agent: Agent) -> Conversation:
    """The thread the writer works in: made on the first run, the same one on every run after."""
    thread = (Conversation.objects.filter(id=page.conversation_id, agent=agent).first()
              if page.conversation_id else None)
    if thread is None:
        with transaction.atomic():
            thread = Conversation.objects.create(organization_id=page.organization_id, agent=agent, kind="thread",
                                                 title=f"Research page: {page.title}"[:200])
            agent_services.message_append(
                conversation=thread, role=Message.Role.SYSTEM,
                text=f"Research the question and write the page.\nQuestion: {page.question}"
                     + (f"\nContext: {page.context}" if page.context else ""),
            )
            page_services.page_progress(page=page, conversation_id=thread.id)
    elif thread.closed_at is not None:
        Conversation.objects.filter(id=thread.id).update(closed_at=None)
        thread.closed_at = None
    return thread


def _note(thread: Conversation | None, text: str) -> None:
    if thread is not None:
        agent_services.message_append(conversation=thread, role=Message.Role.AGENT, text=text)


# --- the run ----------------------------------------------------------------------------------------------------


def _write(page: ResearchPage, agent: Agent, thread: Conversation) -> None:
    plan = dict(page.plan or {})
    if "queries" not in plan:
        page_services.page_progress(page=page, phase=ResearchPage.Phase.RESEARCHING)
        plan.update(_plan(page, agent, thread))
        page_services.page_progress(page=page, plan=plan)
        _note(thread, "Searching the web for: " + "; ".join(plan["queries"]))
    if "results" not in plan:
        plan["results"] = _search(plan)
        page_services.page_progress(page=page, plan=plan)
    if not _read(page, plan):
        raise WriterFailed("Nothing the web search found could be read, so there is nothing to write the page "
                           "from. Ask again with other words, or later.")
    if "record_urls" not in plan:
        plan["record_urls"] = _records(page, plan)
        page_services.page_progress(page=page, plan=plan)
        if plan["record_urls"]:
            _note(thread, f"Found {len(plan['record_urls'])} of the workspace's own records on it.")
    sources = page_selectors.sources_of(page=page)
    if "draft" not in plan:
        page_services.page_progress(page=page, phase=ResearchPage.Phase.WRITING)
        plan["draft"] = _draft(page, agent, thread, sources, records=set(plan["record_urls"]))
        page_services.page_progress(page=page, plan=plan)
    page_services.page_progress(page=page, phase=ResearchPage.Phase.VERIFYING)
    title, artifact, dropped = verify(plan["draft"], sources)
    if dropped:
        _note(thread, f"Left out {dropped} figure(s) or row(s) that named no source they were read from.")
    if page_services.page_complete(page=page, title=title or page.title, artifact=artifact) is None:
        raise page_services.ClaimLost(page.id)


PLAN_SCHEMA = {
    "name": "research_plan",
    "schema": {
        "type": "object",
        "properties": {
            "objective": {"type": "string"},
            "queries": {"type": "array", "items": {"type": "string"}},
            "records": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["objective", "queries", "records"],
        "additionalProperties": False,
    },
}

PLAN_INSTRUCTIONS = f"""You are Roadstar's research writer, planning the web research for one question page.
Write up to {MAX_QUERIES} short web search queries (a few words each, as a person would type them) that together find \
the facts, figures and dates the question needs, from primary sources where there are any, and one sentence saying \
what the page must establish (the objective). Also write up to {RECORD_QUERIES} searches of the workspace's own \
records (its docs, tables, contacts, companies and projects) for what the business itself knows about the question \
(records): one to three words each, such as a name, a company or a product, every word of which a record must \
hold. Answer with only the JSON asked for."""


def _plan(page: ResearchPage, agent: Agent, thread: Conversation) -> dict:
    asked = f"Question: {page.question}" + (f"\nContext from whoever asked: {page.context}" if page.context else "")
    answer = _complete(page, agent, thread, [{"role": "system", "content": PLAN_INSTRUCTIONS},
                                              {"role": "user", "content": asked}], json_schema=PLAN_SCHEMA)
    try:
        found = json.loads(answer)
        queries = [" ".join(str(q).split())[:120] for q in found["queries"] if str(q).strip()]
        objective = " ".join(str(found["objective"]).split())[:500]
    except (ValueError, TypeError, KeyError) as error:
        raise WriterFailed("The model's research plan wasn't in the shape asked for, so the research couldn't "
                           "start. Ask again.") from error
    if not queries:
        raise WriterFailed("The model planned no web searches for the question. Ask again with more to go on.")
    records = found.get("records") if isinstance(found.get("records"), list) else []
    records = [" ".join(str(q).split())[:80] for q in records if str(q).strip()]
    return {"objective": objective or page.question[:500], "queries": list(dict.fromkeys(queries))[:MAX_QUERIES],
            "records": list(dict.fromkeys(records))[:RECORD_QUERIES]}


def _search(plan: dict) -> list[dict]:
    try:
        found = web.web_search(objective=plan["objective"], queries=plan["queries"], limit=RESULTS)
    except ToolError as error:
        if error.kind == "unsupported":
            raise WriterFailed(page_services.NO_WEB_SEARCH) from error
        raise WriterFailed(f"The web search failed: {error.message}") from error
    return [{"url": r["url"], "title": r["title"] or "", "published": r.get("published")} for r in found["results"]]


def _read(page: ResearchPage, plan: dict) -> list[PageSource]:
    """Read the search's best pages until MAX_SOURCES were read, batch by batch, each batch kept as it comes.
    Returns the web's sources (the workspace's records, kept after, aren't among them)."""
    records = set(plan.get("record_urls", []))
    kept = [s for s in page_selectors.sources_of(page=page) if s.url not in records]
    tried = set(plan.get("failed", [])) | {s.url for s in kept}
    waiting = [r for r in plan["results"] if r["url"] not in tried]
    while len(kept) < MAX_SOURCES and waiting:
        batch, waiting = waiting[:READ_BATCH], waiting[READ_BATCH:]
        try:
            found = web.web_read(urls=[r["url"] for r in batch], objective=None)
        except ToolError as error:
            logger.warning("research page %s: a read failed whole: %s", page.id, error.message)
            found = {"pages": [], "failed": [{"url": r["url"]} for r in batch]}
        by_url = {r["url"]: r for r in batch}
        for read in found["pages"]:
            if len(kept) >= MAX_SOURCES or not read["text"].strip():
                continue
            hit = by_url.get(read["url"], {})
            kept.append(page_services.page_source_add(
                page=page, url=read["url"], title=read.get("title") or hit.get("title") or "",
                published=hit.get("published"), text=read["text"][:KEPT_CHARS],
            ))
        plan["failed"] = sorted(set(plan.get("failed", [])) | {f["url"] for f in found["failed"]})
        page_services.page_progress(page=page, plan=plan)
    return kept


def _records(page: ResearchPage, plan: dict) -> list[str]:
    """Search the workspace's own records with the plan's record searches (that workspace's search only, and only
    its own content, not the copies of the owner's accounts), keep the best RECORDS as sources, and return their
    addresses. A search that fails is left out: the page is written from the web without it."""
    urls: list[str] = []
    seen: set[str] = set()
    for query in plan.get("records", []):
        try:
            results = search.search(org=page.organization,
                                    filters=search.Filters(query=query, types=list(RECORD_TYPES), limit=RESULTS))
        except ToolError as error:
            logger.warning("research page %s: the records search %r failed: %s", page.id, query, error.message)
            continue
        for hit in results["results"]:
            if len(urls) >= RECORDS or hit["id"] in seen:
                continue
            seen.add(hit["id"])
            try:
                record = search.read(org=page.organization, item_id=hit["id"])
            except ToolError:
                continue
            # Only the workspace's own (not a copy of the owner's files), and not the page being written.
            if record["source"] != WORKSPACE or not record["url"] or record["url"] == page_url(page):
                continue
            # A record's address is its page in Roadstar (a path), never a web page's, so the two never merge.
            source = page_services.page_source_add(
                page=page, url=record["url"], title=f"Your {RECORD_TYPES[hit['type']]}: {record['title']}",
                published=None, text=record["text"][:KEPT_CHARS],
            )
            urls.append(source.url)
    return urls


WRITE_INSTRUCTIONS = """You are Roadstar's research writer, writing a question page from the numbered sources given \
and from nothing else: no figure, date or claim that isn't in a source. Sources marked as the workspace's own \
records are what the business itself holds (its docs, tables, contacts …): cite them like the others, and say in \
the text that it comes from the workspace's records.

Answer with only one JSON object:
{"title": "the page's title",
 "artifact": {"version": 1,
   "synopsisMarkdown": "the answer in two or three sentences",
   "bodyMdx": "the page in Markdown (MDX components allowed: <Callout tone=\\"info\\">…</Callout>, <MetricGrid>), \
citing sources as [1], [2] after each claim",
   "charts": [{"id": "c1", "title": "…", "type": "bar|line|area|donut", "description": null, "noteMarkdown": null, \
"xLabel": null, "yLabel": null, "series": [{"key": "k", "label": "…", "unit": null}], \
"rows": [{"x": "2024", "values": [1.0], "sourceDocumentIds": ["s1"]}]}],
   "dataTables": [{"id": "t1", "title": "…", "columns": ["…"], \
"rows": [{"cells": ["…"], "sourceDocumentIds": ["s2"]}]}],
   "timelines": [{"id": "primary_timeline", "items": [{"id": "e1", "title": "…", "date": "2024-03-01", \
"datePrecision": "day", "bodyMarkdown": "…", "analysisMarkdown": "…", "sourceDocumentIds": ["s1"]}]}],
   "counterViewMarkdown": "the strongest case against the page's answer, cited"}}

Every chart row, table row and timeline item names the sources its figures come from, by their names (s1, s2 …). \
Leave out any figure no source gives. Charts, tables and the timeline may be empty lists."""


def _draft(page: ResearchPage, agent: Agent, thread: Conversation, sources: list[PageSource],
           records: set[str]) -> dict:
    listed = "\n\n".join(
        f"Source s{s.citation_number} (cite as [{s.citation_number}])"
        + (", one of the workspace's own records" if s.url in records else "")
        + f": {s.title or s.url}\n{s.url}"
        + (f"\nPublished: {s.published_date}" if s.published_date else "")
        + f"\n{s.text[:SOURCE_CHARS]}"
        for s in sources
    )
    asked = (f"Question: {page.question}" + (f"\nContext from whoever asked: {page.context}" if page.context else "")
             + f"\n\nSources:\n\n{listed}")
    messages = [{"role": "system", "content": WRITE_INSTRUCTIONS}, {"role": "user", "content": asked}]
    answer = _complete(page, agent, thread, messages)
    problem = _problem(answer)
    if problem:
        # One more try, told what was wrong; a second bad answer fails the page rather than spend on.
        messages += [{"role": "assistant", "content": answer},
                     {"role": "user", "content": f"That isn't the JSON asked for: {problem}. Answer again with "
                                                 "only the corrected JSON object."}]
        answer = _complete(page, agent, thread, messages)
        problem = _problem(answer)
        if problem:
            raise WriterFailed("The model's page wasn't in the shape a page needs, twice, so nothing was "
                               "published. Ask again.")
    return json.loads(_json_text(answer))


def _json_text(answer: str) -> str:
    text = answer.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text


def _problem(answer: str) -> str | None:
    try:
        found = json.loads(_json_text(answer))
    except ValueError as error:
        return f"not JSON ({error})"
    if not isinstance(found, dict) or not isinstance(found.get("artifact"), dict):
        return "no artifact object"
    if not isinstance(found.get("title", ""), str):
        return "the title must be text"
    try:
        Artifact.model_validate(found["artifact"])
    except ValidationError as error:
        return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()[:8])
    return None


def verify(draft: dict, sources: list[PageSource]) -> tuple[str, dict, int]:
    """The draft with every source named by the model (s3, 3, [3] or its id) turned into that source's id, and
    every figure, row or item naming none of the given sources left out; body citations to no source removed.
    Returns the title, the artifact, and how many were left out."""
    artifact = Artifact.model_validate(draft["artifact"]).model_dump(mode="json", exclude_none=False)
    ids = {str(s.id): str(s.id) for s in sources}
    for s in sources:
        ids[f"s{s.citation_number}"] = ids[str(s.citation_number)] = ids[f"[{s.citation_number}]"] = str(s.id)

    def traced(names: list[str]) -> list[str]:
        return list(dict.fromkeys(ids[n.strip().lower()] for n in names if n.strip().lower() in ids))

    dropped = 0

    def keep(items: list[dict]) -> list[dict]:
        nonlocal dropped
        kept = []
        for item in items:
            item["sourceDocumentIds"] = traced(item["sourceDocumentIds"])
            if item["sourceDocumentIds"]:
                kept.append(item)
            else:
                dropped += 1
        return kept

    for chart in artifact["charts"]:
        chart["rows"] = keep(chart["rows"])
    artifact["charts"] = [c for c in artifact["charts"] if c["rows"]]
    for table in artifact["dataTables"]:
        table["rows"] = keep(table["rows"])
    artifact["dataTables"] = [t for t in artifact["dataTables"] if t["rows"]]
    for timeline in artifact["timelines"]:
        timeline["items"] = keep(timeline["items"])
    artifact["timelines"] = [t for t in artifact["timelines"] if t["items"]]
    if artifact.get("visualizations") is not None:
        artifact["visualizations"] = keep(artifact["visualizations"])
    else:
        artifact.pop("visualizations", None)
    if artifact.get("counterViewMarkdown") is None:
        artifact.pop("counterViewMarkdown", None)
    numbers = {str(s.citation_number) for s in sources}
    for key in ("bodyMdx", "synopsisMarkdown", "counterViewMarkdown"):
        if isinstance(artifact.get(key), str):
            artifact[key] = CITATION.sub(lambda m: m.group(0) if m.group(1) in numbers else "", artifact[key])
    title = " ".join(str(draft.get("title") or "").split())[:300]
    return title, artifact, dropped


# --- model calls, metered ---------------------------------------------------------------------------------------


def _complete(page: ResearchPage, agent: Agent, thread: Conversation, messages: list[dict],
              json_schema: dict | None = None) -> str:
    """One model call for the page, paid from the asking agent's budget: refused before it is made when the agent
    is paused or its month's budget is spent, and recorded (tokens and cost) after."""
    agent.refresh_from_db(fields=["paused", "monthly_budget"])
    budget = agent.monthly_budget
    if agent.paused or (budget is not None and agent_spend_this_month(agent=agent) >= budget):
        raise WriterFailed(f"{agent.name} has spent its monthly budget, so the research stopped; raise its budget "
                           "on the agents page and ask again.")
    network_call("the research writer's model call")
    try:
        response = get_model(page.organization_id).complete(model_id=agent.model, messages=messages, tools=[],
                                                            json_schema=json_schema)
    except ModelNotConfigured as error:
        raise WriterFailed("No model is connected, so the page can't be written.") from error
    except ModelUnavailable as error:
        logger.warning("research page %s: %s", page.id, error)
        raise WriterFailed("The model couldn't be reached after every try, so the page wasn't written. Ask again "
                           "later.") from error
    agent_services.usage_record(org=agent.organization, agent=agent, conversation=thread, purpose=PURPOSE,
                                model_id=agent.model, usage=response.usage)
    page_services.page_cost_add(page_id=page.id, cost=Decimal(cost_of(agent.model, response.usage)))
    return response.text or ""


# --- the owner's comments wake the agents that follow the page -----------------------------------------------------


def wake_followers(comment: PageComment) -> int:
    """An owner's comment on a page: each agent following it gets the comment in its thread on the page, as the
    owner's words, and a turn. Handed to research.page_services in AgentsConfig.ready. Returns how many."""
    page = comment.page
    org = page.organization
    woken = 0
    for agent in Agent.objects.filter(organization=org, id__in=page_selectors.followers_of(page=page)):
        where = _comment_thread(agent, page)
        reply_to = comment.parent_id or comment.id
        with transaction.atomic():
            agent_services.message_append(
                conversation=where, role=Message.Role.SYSTEM,
                text=(f"{org.owner_first_name} commented on the research page “{page.title}” you follow (pageId "
                      f"{page.id}, commentId {comment.id}). Their comment follows. To answer on the page, use "
                      f"comments.comment with parentId {reply_to}."),
                data={"page_id": str(page.id), "comment_id": str(comment.id)},
            )
            message = agent_services.message_append(conversation=where, role=Message.Role.OWNER, text=comment.text)
            agent_services.work_open(
                org=org, agent=agent, conversation=where, task=comment.text, requester=None,
                owner_words=[{"text": comment.text, "where": f"a comment on the research page “{page.title}”",
                              "at": message.created_at.isoformat()}],
            )
            wake(conversation=where)
        woken += 1
    return woken


def _comment_thread(agent: Agent, page: ResearchPage) -> Conversation:
    title = f"Comments on {page.title}"[:200]
    try:
        return agent_services.thread_by_title(agent=agent, title=title, include_closed=False)
    except ToolError:
        pass
    try:
        return agent_services.thread_start(agent=agent, title=title)
    except ToolError:
        return agent_services.chat_for(agent=agent)  # its threads are full: the chat takes it
