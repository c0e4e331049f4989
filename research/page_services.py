"""Writes of research pages and their comments.

A page is made by pages.request (queued) and written by the research writer, which lives in `agents` (above
research: it calls models and meters them against the asking agent's budget). The writer hands itself in when
agents loads (`RESEARCH_WRITERS`, from agents/hooks.py), as do the agents woken by the owner's comments
(`COMMENT_LISTENERS`): research never imports agents.

Generation is claimed like a feed's read: a conditional UPDATE takes a page whose claim is free or lapsed, so two
workers never write one page, and a worker killed mid-run leaves a claim the sweep takes again after it lapses. The
page row is made once, by the request; the run only fills it, so a run done twice can't make two pages, and its
first revision is unique per page.
"""

from __future__ import annotations

import copy
import datetime
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.utils import timezone
from django.utils.text import slugify

from core import live
from core.errors import ToolError, bad_input
from core.registry import Registry
from research.models import PageComment, PageMark, PageRevision, PageSource, ResearchPage
from research.page_shapes import set_at, text_fields

logger = logging.getLogger(__name__)

CLAIM = datetime.timedelta(minutes=15)  # longer than a run's model calls and reads; a dead worker's hold lapses
# Why no page can be researched where no web search is set up (a page is researched on the web), in words the agent
# passes on to the owner as they are: pages.request says it before any ask, and a page asked for before then fails
# with it.
NO_WEB_SEARCH = ("This Roadstar has no web search set up, so there is nothing to research a question with: whoever "
                 "runs your Roadstar can set one up.")
MAX_ATTEMPTS = 3  # runs of one page (a worker killed mid-run, a model that failed every try) before it fails

# --- hooks handed in by agents -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ResearchWriter:
    """`start(page_id)` queues the research writer's run of a page; agents hands it in when it loads."""

    name: str
    start: Callable[[str], None]


@dataclass(frozen=True)
class CommentListener:
    """`listener(comment)` runs after an owner's comment commits (agents wakes the page's followers)."""

    name: str
    listener: Callable[[PageComment], None]


RESEARCH_WRITERS: Registry[str, ResearchWriter] = Registry("research writer", ResearchWriter)
COMMENT_LISTENERS: Registry[str, CommentListener] = Registry("comment listener", CommentListener)


def _writer_start(page_id) -> None:
    if not RESEARCH_WRITERS:
        logger.warning("research page %s is queued, but no research writer is loaded to start it", page_id)
    for writer in RESEARCH_WRITERS.values():
        writer.start(str(page_id))


# --- request --------------------------------------------------------------------------------------------------


def _title_of(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= 300 else line[:299].rstrip() + "…"


def page_request(*, org, project, question: str, context: str = "", agent_id=None) -> ResearchPage:
    """A new page, queued; the writer starts once it commits."""
    title = _title_of(question)
    page = ResearchPage.objects.create(
        organization=org, project=project, title=title, slug=slugify(title)[:120] or "page", question=question,
        context=context or "", agent_id=agent_id,
    )
    live.notify(org.id, "pages")
    transaction.on_commit(lambda: _writer_start(page.id), robust=True)
    return page


# --- generation (the writer's steps) ----------------------------------------------------------------------------


def page_claim(*, page_id, now: datetime.datetime | None = None) -> ResearchPage | None:
    """Take the page for one run: queued, or running with a lapsed claim. None: another worker holds it, it is
    done, or it failed. A page past MAX_ATTEMPTS runs fails instead of running again."""
    now = now or timezone.now()
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    taken = ResearchPage.objects.filter(
        free, id=page_id, generation__in=[ResearchPage.Generation.QUEUED, ResearchPage.Generation.RUNNING]
    ).update(generation=ResearchPage.Generation.RUNNING, claimed_until=now + CLAIM, attempts=F("attempts") + 1,
             updated_at=now)
    if not taken:
        return None
    page = ResearchPage.objects.select_related("project", "organization").get(id=page_id)
    if page.attempts > MAX_ATTEMPTS:
        page_fail(page=page, message="The research writer stopped more than once before it finished; ask again.")
        return None
    live.notify(page.organization_id, "pages")
    return page


def pages_due(*, now: datetime.datetime | None = None, limit: int = 20) -> list:
    """Pages a run should pick up: queued ones nobody started, and running ones whose worker's claim lapsed."""
    now = now or timezone.now()
    return list(
        ResearchPage.objects.filter(generation__in=[ResearchPage.Generation.QUEUED, ResearchPage.Generation.RUNNING])
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .order_by("created_at").values_list("id", flat=True)[:limit]
    )


def _held(page: ResearchPage) -> Q:
    return Q(id=page.id, generation=ResearchPage.Generation.RUNNING, claimed_until=page.claimed_until)


def page_progress(*, page: ResearchPage, phase: str | None = None, plan: dict | None = None,
                  conversation_id=None) -> None:
    """Keep what the run finished (its phase, its plan so far), while it still holds the claim."""
    fields: dict = {"updated_at": timezone.now()}
    if phase is not None:
        fields["phase"] = page.phase = phase
    if plan is not None:
        page.plan = plan
        fields["plan"] = plan
    if conversation_id is not None:
        fields["conversation_id"] = page.conversation_id = conversation_id
    if not ResearchPage.objects.filter(_held(page)).update(**fields):
        raise ClaimLost(page.id)
    live.notify(page.organization_id, "pages")


class ClaimLost(Exception):
    """Another run took the page (this one's claim lapsed while it worked): this run stops and keeps nothing."""


def page_cost_add(*, page_id, cost: Decimal) -> None:
    ResearchPage.objects.filter(id=page_id).update(cost=F("cost") + cost)


def page_source_add(*, page: ResearchPage, url: str, title: str, published: str | None, text: str) -> PageSource:
    """A page the writer read, numbered next; the same address read again (a run picked up again) is the same
    source."""
    with transaction.atomic():
        found = PageSource.objects.filter(page=page, url=url).first()
        if found is not None:
            return found
        # The page's claim is this run's alone, so numbers are given out by one run at a time.
        last = PageSource.objects.filter(page=page).aggregate(last=Max("citation_number"))["last"] or 0
        return PageSource.objects.create(
            page=page, citation_number=last + 1, url=url[:2000], title=(title or "")[:500],
            published_date=_date_text(published), text=text,
        )


def _date_text(value: str | None) -> str:
    value = (value or "").strip()[:10]
    for length, form in ((10, "%Y-%m-%d"), (7, "%Y-%m"), (4, "%Y")):
        try:
            # Only whether it reads as a date: the zone is any.
            datetime.datetime.strptime(value[:length], form).replace(tzinfo=datetime.UTC)
            return value[:length]
        except ValueError:
            continue
    return ""


def page_complete(*, page: ResearchPage, title: str, artifact: dict) -> PageRevision | None:
    """Publish the page's first revision and mark it completed, once: a run that lost its claim keeps nothing."""
    now = timezone.now()
    with transaction.atomic():
        held = ResearchPage.objects.select_for_update().filter(_held(page)).first()
        if held is None or held.current_revision_id is not None:
            return None
        revision = PageRevision.objects.create(page=held, number=1, title=title[:300], artifact=artifact,
                                               note="written by the research writer")
        ResearchPage.objects.filter(id=page.id).update(
            generation=ResearchPage.Generation.COMPLETED, phase=ResearchPage.Phase.VERIFYING,
            status=ResearchPage.Status.PUBLISHED, current_revision=revision, published_at=now, claimed_until=None,
            error_message="", title=title[:300], updated_at=now,
        )
        live.notify(page.organization_id, "pages")
    return revision


def page_fail(*, page: ResearchPage, message: str) -> bool:
    """The page couldn't be written: it says why, in the owner's words."""
    done = ResearchPage.objects.filter(
        id=page.id, generation__in=[ResearchPage.Generation.QUEUED, ResearchPage.Generation.RUNNING]
    ).update(generation=ResearchPage.Generation.FAILED, error_message=message[:500], claimed_until=None,
             updated_at=timezone.now())
    if done:
        live.notify(page.organization_id, "pages")
    return bool(done)


# --- update, move, mark ------------------------------------------------------------------------------------------


def _ready(page: ResearchPage) -> PageRevision:
    if page.generation != ResearchPage.Generation.COMPLETED or page.current_revision is None:
        state = {"failed": "failed", "queued": "still being written", "running": "still being written"}
        raise ToolError("bad_input", f"pageId: the page is {state.get(page.generation, 'not ready')}; only a "
                                     "written page's figures can change")
    return page.current_revision


def page_update(*, page: ResearchPage, title: str | None, edits: list[dict], sentence: dict | None,
                source: dict, quote: str | None) -> tuple[PageRevision, PageRevision, list[str]]:
    """A new revision with each edit's `find` replaced; the source of the new figures joins the page's sources.

    Each `find` must be words the page has now, once (else the figure meant is unclear): bad_input names the edit.
    Returns the new revision, the one it replaced, and a line per edit ("label: was → now").
    """
    with transaction.atomic():
        locked = ResearchPage.objects.select_for_update().get(id=page.id)
        before = _ready(locked)
        artifact = copy.deepcopy(before.artifact)
        done = []
        for i, edit in enumerate(edits):
            fields = text_fields(artifact)
            hits = [(path, text) for path, text in fields if edit["find"] in text]
            count = sum(text.count(edit["find"]) for _, text in hits)
            if count == 0:
                raise bad_input(f"edits[{i}].find", "the page doesn't have these words now; copy them from "
                                                    "pages.read as they are")
            if count > 1:
                raise bad_input(f"edits[{i}].find", f"these words are on the page {count} times; give more of "
                                                    "the sentence around the figure so it is found once")
            path, text = hits[0]
            set_at(artifact, path, text.replace(edit["find"], edit["replace"], 1))
            was, now = edit.get("was") or edit["find"], edit.get("now") or edit["replace"]
            done.append(f"{edit['label']}: {was} → {now}")
        if sentence is not None:
            fields = [(p, t) for p, t in text_fields(artifact) if sentence["before"] in t]
            if not fields:
                raise bad_input("sentence.before", "the page doesn't have this sentence now (after the edits)")
            path, text = fields[0]
            set_at(artifact, path, text.replace(sentence["before"], sentence["after"], 1))
        url = source["href"].strip()
        known = PageSource.objects.filter(page=locked, url=url).first()
        if known is None:
            last = PageSource.objects.filter(page=locked).aggregate(last=Max("citation_number"))["last"] or 0
            PageSource.objects.create(page=locked, citation_number=last + 1, url=url, title=source["label"],
                                      text=quote or "", added_by_edit=True)
        number = PageRevision.objects.filter(page=locked).aggregate(last=Max("number"))["last"] + 1
        revision = PageRevision.objects.create(
            page=locked, number=number, title=(title or before.title)[:300], artifact=artifact,
            note="; ".join(done)[:500],
        )
        locked.current_revision = revision
        if title:
            locked.title = title
        locked.save(update_fields=["current_revision", "title", "updated_at"])
        live.notify(locked.organization_id, "pages")
    return revision, before, done


def page_revision_restore(*, page: ResearchPage, restore_id, expect_id) -> PageRevision:
    """Undo of an update: publish again, as a new revision, the one it replaced, if the page still shows the
    update's revision; else it changed since, and nothing is restored."""
    with transaction.atomic():
        locked = ResearchPage.objects.select_for_update().get(id=page.id)
        if str(locked.current_revision_id) != str(expect_id):
            raise ToolError("changed", f"“{locked.title}” changed again since, so Undo would lose that later "
                                       "change; nothing was restored.")
        old = PageRevision.objects.get(page=locked, id=restore_id)
        number = PageRevision.objects.filter(page=locked).aggregate(last=Max("number"))["last"] + 1
        revision = PageRevision.objects.create(page=locked, number=number, title=old.title, artifact=old.artifact,
                                               note=f"revision {old.number} restored by Undo")
        locked.current_revision = revision
        locked.title = old.title
        locked.save(update_fields=["current_revision", "title", "updated_at"])
        live.notify(locked.organization_id, "pages")
    return revision


def page_move(*, page: ResearchPage, project) -> ResearchPage:
    ResearchPage.objects.filter(id=page.id).update(project=project, updated_at=timezone.now())
    page.project = project
    live.notify(page.organization_id, "pages")
    return page


def page_mark(*, page: ResearchPage, agent_id, action: str, enabled: bool) -> bool:
    """Star or follow (or stop), for an agent or (agent_id None) the owner. Whether anything changed."""
    rows = PageMark.objects.filter(page=page, action=action)
    rows = rows.filter(agent_id=agent_id) if agent_id else rows.filter(agent_id__isnull=True)
    if not enabled:
        return rows.delete()[0] > 0
    if rows.exists():
        return False
    try:
        with transaction.atomic():
            PageMark.objects.create(page=page, action=action, agent_id=agent_id)
    except IntegrityError:
        return False  # the same mark, made at the same moment by another call
    return True


# --- comments ---------------------------------------------------------------------------------------------------

COMMENT_LIMIT = 10_000


def comment_add(*, page: ResearchPage, text: str, parent: PageComment | None = None, agent_id=None) -> PageComment:
    """A comment, or a reply. Replies nest one level: a reply to a reply answers the comment it is under. An
    owner's comment wakes the agents that follow the page once it commits."""
    if not text.strip():
        raise bad_input("text", "write something")
    if len(text) > COMMENT_LIMIT:
        raise bad_input("text", f"up to {COMMENT_LIMIT:,} characters")
    if parent is not None and parent.parent_id is not None:
        parent = parent.parent
    comment = PageComment.objects.create(page=page, parent=parent, text=text, agent_id=agent_id)
    live.notify(page.organization_id, "pages")
    if agent_id is None:
        for each in COMMENT_LISTENERS.values():
            transaction.on_commit(functools.partial(each.listener, comment), robust=True)
    return comment
