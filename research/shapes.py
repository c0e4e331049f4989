"""The spec's JSON for filings and the newsfeed (spec/tools/filings.md, newsfeed.md)."""

from __future__ import annotations

from core.timefmt import iso
from research.models import Feed, Filing, Story

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


def story_shape(story: Story) -> dict:
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
        "projectIds": getattr(story, "project_ids", [str(feed.project_id)] if feed.project_id else []),
        "tickers": [],
        "sources": [{"url": story.link, "title": feed.title or None}] if story.link else [],
        "posts": [],
        "happenedAt": iso(happened),
    }


def feed_label(feed: Feed) -> str:
    return feed.title or feed.url
