"""The spec's JSON for filings and the newsfeed (spec/tools/filings.md, newsfeed.md)."""

from __future__ import annotations

from core.timefmt import iso
from research.models import Feed, Filing, NewsfeedBrief, Story

# filings.read gives at most this much of a filing's text; the rest is at its url. A 10-K runs to 300,000
# characters and more, past what a model reads in one step.
TEXT_LIMIT = 60_000


def filing_pick(filing: Filing, *, company, edgar_company) -> dict:
    """One of filings.latest's items: the spec's FilingItem, with the company it is of."""
    return {
        "accession": filing.accession,
        "form": filing.form,
        "what": filing.what or filing.form,
        "period": filing.period.isoformat() if filing.period else None,
        "filedAt": filing.filed_at.isoformat(),
        "companyId": str(company.id),
        "company": edgar_company.name or company.name,
        "ticker": edgar_company.ticker or None,
    }


def filing_text_shape(filing: Filing) -> dict:
    text = filing.text
    if len(text) > TEXT_LIMIT:
        rest = len(text) - TEXT_LIMIT
        text = text[:TEXT_LIMIT] + f"\n\n[… {rest:,} more characters; the whole filing is at {filing.url}]"
    return {"title": filing.title, "url": filing.url, "text": text}


def story_shape(story: Story, project_ids: list[str]) -> dict:
    """A story as the newsfeed's tools give it; `project_ids` are the projects whose feeds carried its link."""
    feed = story.feed
    happened = story.published_at or story.seen_at
    return {
        "id": str(story.id),
        "kind": "web",
        "headline": story.headline,
        "summary": story.summary,
        "reason": None,
        "watchLabel": feed.title or feed.url,
        "fromMarket": False,
        "projectIds": project_ids,
        "tickers": [],
        "sources": [{"url": story.link, "title": feed.title or None}] if story.link else [],
        "posts": [],
        "happenedAt": iso(happened),
    }


def brief_shape(brief: NewsfeedBrief | None) -> dict | None:
    """The spec's `brief`: today's, once the model wrote it; null until then (or when it couldn't be written)."""
    if brief is None or brief.written_at is None:
        return None
    return {"writtenAt": iso(brief.written_at), "projects": list(brief.projects)}


def feed_label(feed: Feed) -> str:
    return feed.title or feed.url


# --- tables (spec/tools/tables.md) ---------------------------------------------------------------------------------


def _usd(micros: int) -> float:
    return round(micros / 1_000_000, 6)


def run_shape(run) -> dict | None:
    if run is None:
        return None
    return {
        "id": str(run.id),
        "kind": run.kind,
        "status": run.status,
        "estimateUsd": _usd(run.estimate_micros),
        "capUsd": _usd(run.cap_micros),
        "spentUsd": _usd(run.spent_micros),
        "rowsTotal": run.rows_total,
        "rowsDone": run.rows_done,
        "message": run.message,
        "createdAt": iso(run.created_at),
        "completedAt": iso(run.completed_at),
    }


def _projects(dataset) -> list[dict]:
    return [{"id": str(p.id), "name": p.name} for p in dataset.projects.all()]


def dataset_shape(dataset, *, run, spent_micros: int) -> dict:
    """The spec's dataset: tables.build's and research_rows' result, and tables.read's `dataset`."""
    return {
        "id": str(dataset.id),
        "projects": _projects(dataset),
        "name": dataset.name,
        "question": dataset.question,
        "plan": dataset.plan,
        "createdAt": iso(dataset.created_at),
        "agentId": str(dataset.agent_id) if dataset.agent_id else None,
        "spentUsd": _usd(spent_micros),
        "run": run_shape(run),
    }


def dataset_item(dataset, *, run) -> dict:
    """One of tables.list's items."""
    return {
        "id": str(dataset.id),
        "name": dataset.name,
        "question": dataset.question,
        "projects": _projects(dataset),
        "row": dataset.plan.get("row", ""),
        "columns": len(dataset.plan.get("columns", [])),
        "updatedAt": iso(dataset.updated_at),
        "run": run_shape(run),
    }


def row_shape(row) -> dict:
    """The spec's StoredRow."""
    return {"key": row.key, "values": row.values, "sources": row.sources}
