"""Reads of the research groups' data, scoped by the workspace: another workspace's company, feed or filing is
`not_found` (filings are stored once for everyone, but a workspace reads only those of companies it follows)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from core import rows
from core.errors import ToolError, not_found
from core.inputs import as_uuid
from core.memo import kept
from core.owner_zone import owner_today, owner_zone
from records.models import Company
from research.models import (
    CompanyListing,
    Dataset,
    DatasetRow,
    DatasetRun,
    DatasetSource,
    Feed,
    Filing,
    NewsfeedBrief,
    ResearchSettings,
    Story,
)

OPTIONAL_GROUPS = ("filings", "newsfeed", "tables", "pages", "comments")
# The setting each optional group follows: comments are on research pages, so they come and go with them.
SETTING_OF = {"filings": "filings_on", "newsfeed": "newsfeed_on", "tables": "tables_on", "pages": "pages_on",
              "comments": "pages_on"}


@kept  # read once for a whole browse_tools description (tools.catalog): each optional group asks
def research_settings(*, org) -> ResearchSettings:
    """The workspace's settings, unsaved defaults (every group off) when it never set them. (A kept statement:
    every thread's turn asks, for browse_tools' description.)"""
    found = rows.select(ResearchSettings, [("organization_id", "=", org.pk)], limit=1)
    return found[0] if found else ResearchSettings(organization=org)


def group_on(*, org, group: str) -> bool:
    """Whether the workspace has the optional research group `group` on."""
    if group not in OPTIONAL_GROUPS:
        raise ValueError(f"{group!r} is not an optional research group")
    return bool(getattr(research_settings(org=org), SETTING_OF[group]))


# --- filings ----------------------------------------------------------------------------------------------------


def companies_get(*, org, company_ids: list[str]) -> list[Company]:
    """The workspace's companies, in the order asked, once each; not_found names the first id it doesn't hold."""
    wanted = list(dict.fromkeys(company_ids))
    ids = [as_uuid(i) for i in wanted]
    found = {c.id: c for c in Company.objects.filter(organization=org, id__in=[i for i in ids if i])}
    companies = []
    for raw, parsed in zip(wanted, ids, strict=True):
        company = found.get(parsed) if parsed is not None else None
        if company is None:
            raise not_found("company", raw)
        companies.append(company)
    return companies


def latest_filings(*, cik: int, limit: int) -> list[Filing]:
    return list(Filing.objects.filter(edgar_id=cik).order_by("-filed_at", "-accession")[:limit])


def filing_get(*, org, accession: str) -> Filing:
    """A filing of a company the workspace follows; any other (or none) is not_found."""
    filing = Filing.objects.filter(accession=accession).select_related("edgar").first()
    if filing is None or not CompanyListing.objects.filter(organization=org, edgar_id=filing.edgar_id).exists():
        raise ToolError(
            "not_found",
            f"No filing {accession} among the workspace's companies' filings. Get accessions from filings.latest.",
        )
    return filing


# --- newsfeed ---------------------------------------------------------------------------------------------------


def feeds_of(*, org) -> list[Feed]:
    return list(Feed.objects.filter(organization=org).select_related("project").order_by("created_at"))


def feed_get(*, org, feed_id) -> Feed:
    parsed = as_uuid(feed_id)
    feed = Feed.objects.filter(organization=org, id=parsed).first() if parsed else None
    if feed is None:
        raise not_found("feed", feed_id)
    return feed


def _owner_today_span(org, now: datetime.datetime | None = None) -> tuple[datetime.datetime, datetime.datetime]:
    """The owner's today, as a span of aware times."""
    local = (now or timezone.now()).astimezone(owner_zone(org))
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + datetime.timedelta(days=1)


def stories_seen_today(*, org, now: datetime.datetime | None = None) -> int:
    start, end = _owner_today_span(org, now)
    return Story.objects.filter(organization=org, seen_at__gte=start, seen_at__lt=end).count()


@dataclass(frozen=True)
class TodayStory:
    """A story of today, with every project whose feed carried its link (one feed's project, or several)."""

    story: Story
    project_ids: list[str]


def stories_today(*, org, now: datetime.datetime | None = None, limit: int = 60) -> list[TodayStory]:
    """Stories of the owner's today (published today, or first seen today when the feed gives no date), newest
    first, one per link across feeds, with every project whose feed carried it. A feed's backlog of older items,
    read the day it is added, is not today's news."""
    start, end = _owner_today_span(org, now)
    stories = (
        Story.objects.filter(organization=org)
        .annotate(happened=Coalesce("published_at", "seen_at"))
        .filter(happened__gte=start, happened__lt=end)
        .select_related("feed", "feed__project")
        .order_by("-happened", "-seen_at")
    )
    kept: dict[str, Story] = {}
    projects: dict[str, set[str]] = {}
    for story in stories[: limit * 4]:
        same = story.link or f"story:{story.id}"
        projects.setdefault(same, set())
        if story.feed.project_id:
            projects[same].add(str(story.feed.project_id))
        kept.setdefault(same, story)
    return [TodayStory(story, sorted(projects[same])) for same, story in list(kept.items())[:limit]]


def brief_today(*, org, now: datetime.datetime | None = None) -> NewsfeedBrief | None:
    """Today's brief row (written, or saying why it isn't), or None when none was tried today."""
    return NewsfeedBrief.objects.filter(organization=org, day=owner_today(org, now)).first()


def workspaces_with_newsfeed() -> list:
    """The ids of the workspaces that have the newsfeed on, for the worker's brief sweep."""
    return list(ResearchSettings.objects.filter(newsfeed_on=True).values_list("organization_id", flat=True))


# --- tables -----------------------------------------------------------------------------------------------------


def dataset_get(*, org, dataset_id) -> Dataset:
    """One of the workspace's tables; another workspace's is not_found."""
    wanted = as_uuid(dataset_id)
    found = Dataset.objects.filter(organization=org, id=wanted).first() if wanted is not None else None
    if found is None:
        raise not_found("table", dataset_id)
    return found


def datasets_of(*, org, project=None) -> list[Dataset]:
    found = Dataset.objects.filter(organization=org).prefetch_related("projects")
    if project is not None:
        found = found.filter(projects=project)
    return list(found.order_by("-updated_at"))


def dataset_latest_runs(*, datasets: list[Dataset]) -> dict:
    """Each table's latest run, by table id, in one query."""
    latest: dict = {}
    for run in DatasetRun.objects.filter(dataset__in=datasets).order_by("dataset_id", "-created_at"):
        latest.setdefault(run.dataset_id, run)
    return latest


def dataset_spent(*, dataset: Dataset) -> int:
    """Micro-dollars the table cost: its planning and every run."""
    runs = DatasetRun.objects.filter(dataset=dataset).aggregate(total=Sum("spent_micros"))["total"] or 0
    return dataset.plan_micros + runs


def dataset_rows(*, dataset: Dataset) -> list[DatasetRow]:
    return list(DatasetRow.objects.filter(dataset=dataset).order_by("position", "id"))


def dataset_source_get(*, org, dataset_id, source_id) -> DatasetSource:
    table, source = as_uuid(dataset_id), as_uuid(source_id)
    found = DatasetSource.objects.filter(
        dataset__organization=org, dataset_id=table, id=source
    ).first() if table is not None and source is not None else None
    if found is None:
        raise not_found("source", source_id)
    return found
