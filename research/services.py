"""Writes of the research groups: which groups a workspace has on, the feeds it follows and what they carried,
and the filings read from EDGAR (stored once, so a filing is fetched once whoever asks).

Nothing here holds a transaction across a network call: EDGAR and the feeds are called with none open, and what
they gave is written after, in short transactions. Claims (a feed due to be read, a filing's text to fetch) are
conditional UPDATEs, so two workers never do the same fetch, and a claim left by a worker that died lapses.
"""

from __future__ import annotations

import datetime
import logging
import re
import unicodedata
from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django_q.models import Schedule

from core.errors import ToolError, bad_input
from core.inputs import as_uuid
from core.owner_zone import owner_today
from integrations.web.services import NOT_SET_UP, web_available
from records.models import Company, Project
from research import edgar as edgar_client
from research import feeds as feed_reader
from research import netguard, table_run
from research.filing_text import document_title, filing_text
from research.models import (
    CompanyListing,
    Dataset,
    DatasetPlanDraft,
    DatasetRow,
    DatasetRun,
    EdgarCompany,
    EdgarDirectory,
    Feed,
    Filing,
    NewsfeedBrief,
    ResearchSettings,
    Story,
)
from research.selectors import companies_get, latest_filings
from research.shapes import filing_pick
from research.table_run import identifying, money_words, rerun_costs, row_key

logger = logging.getLogger(__name__)

# --- which groups are on ----------------------------------------------------------------------------------------


def research_settings_set(*, org, filings: bool | None = None, newsfeed: bool | None = None,
                          tables: bool | None = None, pages: bool | None = None) -> ResearchSettings:
    with transaction.atomic():
        row, _ = ResearchSettings.objects.get_or_create(organization=org)
        if filings is not None:
            row.filings_on = filings
        if newsfeed is not None:
            row.newsfeed_on = newsfeed
        if tables is not None:
            row.tables_on = tables
        if pages is not None:
            row.pages_on = pages
        row.save()
    return row


# --- filings ----------------------------------------------------------------------------------------------------

DIRECTORY_FRESH = datetime.timedelta(days=1)  # EDGAR's ticker list changes a few times a day at most
SUBMISSIONS_FRESH = datetime.timedelta(minutes=30)  # new filings show in the submissions within minutes
FETCH_CLAIM = datetime.timedelta(minutes=10)  # a worker's hold on fetching a filing (longer than any fetch)
LOST_REQUEST = datetime.timedelta(minutes=15)  # a request whose task never ran is made again after this
RATE_LIMITED_WAIT = datetime.timedelta(seconds=60)
MAX_FETCH_ATTEMPTS = 3
FILING_TASK = "research.tasks.fetch_filing"
# What each common form is, for `what` when EDGAR's own description only repeats the form.
FORM_WORDS = {
    "10-K": "Annual report", "10-K/A": "Annual report (amended)", "10-Q": "Quarterly report",
    "10-Q/A": "Quarterly report (amended)", "8-K": "Current report", "8-K/A": "Current report (amended)",
    "20-F": "Annual report of a foreign company", "40-F": "Annual report of a Canadian company",
    "6-K": "Current report of a foreign company", "DEF 14A": "Proxy statement", "DEFA14A": "Additional proxy material",
    "PRE 14A": "Preliminary proxy statement", "S-1": "Registration statement", "S-3": "Registration statement",
    "424B2": "Prospectus", "4": "Insider's change in ownership", "3": "Insider's first ownership",
    "SC 13G": "Holder of over 5%", "SC 13G/A": "Holder of over 5% (amended)", "SC 13D": "Holder of over 5%, active",
    "13F-HR": "Institutional holdings", "11-K": "Employee plan annual report", "144": "Proposed sale of stock",
}
SUFFIXES = re.compile(
    r"\b(incorporated|inc|corp|corporation|co|company|ltd|limited|plc|llc|lp|holdings?|group|sa|ag|nv|the)\b"
)


def _normal_name(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"\s*/[a-z]{2,3}/?\s*$", "", text)  # EDGAR's state marks: "COSTCO WHOLESALE CORP /NEW", "/DE/"
    text = SUFFIXES.sub(" ", re.sub(r"[^a-z0-9 ]+", " ", text.replace("&", " and ")))
    return re.sub(r"\s+", " ", text).strip()


def edgar_directory_refresh(*, client: edgar_client.EdgarClient, now: datetime.datetime | None = None) -> bool:
    """Read EDGAR's ticker list into EdgarCompany when the stored one is a day old. Whether it read it."""
    now = now or timezone.now()
    directory = EdgarDirectory.objects.filter(id=1).first()
    if directory and directory.fetched_at and now - directory.fetched_at < DIRECTORY_FRESH:
        return False
    rows = client.company_tickers()  # no transaction open: a network call
    by_cik: dict[int, dict] = {}
    for row in rows:
        by_cik.setdefault(row["cik"], row)  # EDGAR lists a company once per ticker; its first is its main one
    with transaction.atomic():
        EdgarCompany.objects.bulk_create(
            [EdgarCompany(cik=r["cik"], ticker=r["ticker"][:20], name=r["name"][:300]) for r in by_cik.values()],
            update_conflicts=True, unique_fields=["cik"], update_fields=["ticker", "name"], batch_size=2000,
        )
        EdgarDirectory.objects.update_or_create(id=1, defaults={"fetched_at": now})
    return True


def _detail(company: Company, *names: str) -> str:
    for key, value in (company.details or {}).items():
        if key.strip().lower() in names and isinstance(value, str | int) and str(value).strip():
            return str(value).strip()
    return ""


def company_listing_resolve(*, org, company: Company, client: edgar_client.EdgarClient) -> CompanyListing | None:
    """The public company EDGAR files `company` under: the one linked before, else the one its details name (a
    `CIK` or `Ticker` detail), else the one listed under exactly its name. None when it isn't listed."""
    existing = CompanyListing.objects.filter(organization=org, company=company).select_related("edgar").first()
    if existing is not None:
        return existing
    cik_text, ticker = _detail(company, "cik"), _detail(company, "ticker", "stock ticker", "symbol").upper()
    edgar_company = None
    if cik_text.isdigit():
        edgar_company = EdgarCompany.objects.filter(cik=int(cik_text)).first()
        if edgar_company is None:
            edgar_company = EdgarCompany.objects.get_or_create(cik=int(cik_text), defaults={"name": company.name})[0]
    else:
        edgar_directory_refresh(client=client)
        if ticker:
            edgar_company = EdgarCompany.objects.filter(ticker__iexact=ticker).first()
        if edgar_company is None:
            wanted = _normal_name(company.name)
            first_word = wanted.split(" ")[0] if wanted else ""
            candidates = [
                c for c in EdgarCompany.objects.filter(name__icontains=first_word)[:500]
                if _normal_name(c.name) == wanted
            ] if first_word else []
            edgar_company = candidates[0] if len(candidates) == 1 else None
    if edgar_company is None:
        return None
    try:
        with transaction.atomic():
            return CompanyListing.objects.create(organization=org, company=company, edgar=edgar_company)
    except IntegrityError:  # made by another call meanwhile
        return CompanyListing.objects.select_related("edgar").get(company=company)


def _date(text: str | None) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(text) if text else None
    except ValueError:
        return None


def filings_store(*, edgar_company: EdgarCompany, submissions: dict, now: datetime.datetime) -> int:
    """Store the filings a submissions answer lists (their listing only; texts are fetched when read)."""
    rows = []
    for f in submissions["filings"]:
        filed = _date(f["filed"])
        if not filed or not re.fullmatch(r"\d{10}-\d{2}-\d{6}", str(f["accession"])):
            continue
        what = FORM_WORDS.get(f["form"]) or (f["what"] if f["what"] and f["what"] != f["form"] else f["form"])
        rows.append(Filing(
            accession=f["accession"], edgar=edgar_company, form=str(f["form"])[:20], what=str(what)[:300],
            period=_date(f["period"]), filed_at=filed, primary_document=str(f["document"])[:300],
        ))
    with transaction.atomic():
        Filing.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["accession"],
            update_fields=["form", "what", "period", "filed_at", "primary_document"], batch_size=500,
        )
        EdgarCompany.objects.filter(cik=edgar_company.cik).update(
            submissions_fetched_at=now, **({"name": submissions["name"][:300]} if submissions["name"] else {})
        )
    return len(rows)


def edgar_error(error: edgar_client.EdgarError) -> ToolError:
    """An EDGAR failure in the spec's error kinds, for the agent."""
    if isinstance(error, edgar_client.EdgarNotSetUp):
        return ToolError("unsupported", f"Filings aren't set up on this server: {error}")
    if isinstance(error, edgar_client.EdgarRateLimited):
        return ToolError("rate_limited", "SEC EDGAR is limiting requests right now: wait a minute, then try once more.")
    if isinstance(error, edgar_client.EdgarUnavailable):
        return ToolError("unavailable", f"{error}. Try again later.")
    if isinstance(error, edgar_client.EdgarNotFound):
        return ToolError("not_found", str(error))
    if isinstance(error, edgar_client.EdgarTooLarge):
        return ToolError("too_large", f"The filing's document is too large to read here ({error}).")
    return ToolError("vendor", f"SEC EDGAR: {error}")


def filings_latest(
    *, org, company_ids: list[str], per_company: int = 10,
    client_factory: Callable[[], edgar_client.EdgarClient] = edgar_client.EdgarClient,
    now: datetime.datetime | None = None,
) -> dict:
    """Each company's latest filings, from EDGAR's submissions (read again when older than SUBMISSIONS_FRESH).

    Call with no transaction open: EDGAR is called between the short writes that store what it gave."""
    now = now or timezone.now()
    companies = companies_get(org=org, company_ids=company_ids)  # not_found before anything goes out
    items, not_listed = [], []
    try:
        with client_factory() as client:
            for company in companies:
                listing = company_listing_resolve(org=org, company=company, client=client)
                if listing is None:
                    not_listed.append(company)
                    continue
                edgar_company = EdgarCompany.objects.get(cik=listing.edgar_id)
                fetched = edgar_company.submissions_fetched_at
                if fetched is None or now - fetched >= SUBMISSIONS_FRESH:
                    try:
                        submissions = client.submissions(edgar_company.cik)
                    except edgar_client.EdgarNotFound:
                        # A CIK detail EDGAR doesn't know: the link is dropped, so a corrected detail is read.
                        CompanyListing.objects.filter(id=listing.id).delete()
                        not_listed.append(company)
                        continue
                    filings_store(edgar_company=edgar_company, submissions=submissions, now=now)
                    edgar_company.refresh_from_db()
                for filing in latest_filings(cik=edgar_company.cik, limit=per_company):
                    items.append(filing_pick(filing, company=company, edgar_company=edgar_company))
    except edgar_client.EdgarError as error:
        raise edgar_error(error) from error
    result: dict = {"items": items}
    if not_listed:
        # Not in the spec's shape: without it a company with no SEC listing would silently have no filings.
        result["notListed"] = [
            {"companyId": str(c.id), "name": c.name,
             "why": "not found on SEC EDGAR; give the company a Ticker or CIK detail if it is listed"}
            for c in not_listed
        ]
    return result


def filing_request_text(*, filing: Filing, now: datetime.datetime | None = None) -> bool:
    """Ask a worker to fetch the filing's text, unless one was asked already and is still on it. Whether a task
    was queued (after commit)."""
    now = now or timezone.now()
    unclaimed = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    asked = Filing.objects.filter(accession=filing.accession).filter(
        (Q(state=Filing.State.LISTED) & unclaimed)
        | (Q(state=Filing.State.FETCHING) & Q(requested_at__lt=now - LOST_REQUEST) & unclaimed)
    ).update(state=Filing.State.FETCHING, requested_at=now)
    if asked:
        from django_q.tasks import async_task

        transaction.on_commit(lambda: async_task(FILING_TASK, filing.accession, group="filings"))
    return bool(asked)


def filing_fetch(
    *, accession: str, client_factory: Callable[[], edgar_client.EdgarClient] = edgar_client.EdgarClient,
    now: datetime.datetime | None = None,
) -> str:
    """A worker fetching one filing's text, once: it claims the filing (a conditional write), fetches with no
    transaction open, and stores the text. Returns what happened: fetched, skipped (another has it, or it's
    done), retry (EDGAR was limiting or down: scheduled again) or failed."""
    now = now or timezone.now()
    filing = Filing.objects.filter(accession=accession).first()
    if filing is None or filing.state != Filing.State.FETCHING:
        return "skipped"
    claimed = Filing.objects.filter(accession=accession, state=Filing.State.FETCHING).filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    ).update(claimed_until=now + FETCH_CLAIM, attempts=F("attempts") + 1)
    if not claimed:
        return "skipped"
    filing.refresh_from_db()
    if not filing.primary_document:
        _filing_failed(filing, "EDGAR lists no main document for this filing")
        return "failed"
    try:
        with client_factory() as client:
            body, content_type = client.document(
                cik=filing.edgar_id, accession=filing.accession, document=filing.primary_document
            )
    except (edgar_client.EdgarRateLimited, edgar_client.EdgarUnavailable) as error:
        if filing.attempts >= MAX_FETCH_ATTEMPTS:
            _filing_failed(filing, str(error))
            return "failed"
        wait = RATE_LIMITED_WAIT
        if isinstance(error, edgar_client.EdgarRateLimited) and error.retry_after:
            wait = max(wait, datetime.timedelta(seconds=min(error.retry_after, 600)))
        _filing_retry_later(filing, now + wait, str(error))
        return "retry"
    except edgar_client.EdgarError as error:
        _filing_failed(filing, str(error))
        return "failed"
    if "pdf" in content_type.lower():
        _filing_failed(filing, "its main document is a PDF, whose text Roadstar doesn't read")
        return "failed"
    text = filing_text(body, content_type)
    Filing.objects.filter(accession=accession).update(
        state=Filing.State.FETCHED, text=text, title=(document_title(body) or None), fetched_at=timezone.now(),
        claimed_until=None, error="",
    )
    return "fetched"


def _filing_failed(filing: Filing, why: str) -> None:
    Filing.objects.filter(accession=filing.accession).update(
        state=Filing.State.FAILED, error=why[:500], claimed_until=None
    )


def _filing_retry_later(filing: Filing, at: datetime.datetime, why: str) -> None:
    """Hold the claim until `at` (nobody fetches before) and schedule the task then."""
    with transaction.atomic():
        Filing.objects.filter(accession=filing.accession).update(claimed_until=at, error=why[:500])
        Schedule.objects.create(
            name=f"filing {filing.accession} at {at.isoformat()}"[:100], func=FILING_TASK, args=repr(filing.accession),
            schedule_type=Schedule.ONCE, next_run=at, repeats=1,
        )


# --- newsfeed ---------------------------------------------------------------------------------------------------

FEED_CLAIM = datetime.timedelta(minutes=5)  # longer than a feed's read (timeouts are 20 s)
MAX_FEEDS = 100  # per workspace


def feed_add(*, org, url: str, project: Project | None = None, every_minutes: int = 30) -> Feed:
    """Follow a feed, for the workspace or one project. The address is checked now (a private or local one is
    refused with words) and again on every read."""
    url = url.strip()
    if not url.startswith(("http://", "https://")) or len(url) > 2000 or any(c.isspace() for c in url):
        raise bad_input("url", "give the feed's web address, starting with http:// or https://")
    if project is not None and project.organization_id != org.id:
        raise ToolError("not_found", f"No project with id {project.id} in this workspace.")
    try:
        netguard.check_url(url)
    except netguard.AddressRefused as error:
        raise bad_input("url", f"Roadstar doesn't read this address: {error}") from error
    if Feed.objects.filter(organization=org, url=url, project=project).exists():
        raise bad_input("url", "the newsfeed follows this feed already" + (" for this project" if project else ""))
    if Feed.objects.filter(organization=org).count() >= MAX_FEEDS:
        raise bad_input("url", f"the newsfeed follows {MAX_FEEDS} feeds already; remove one first")
    try:
        with transaction.atomic():
            return Feed.objects.create(
                organization=org, project=project, url=url, every_minutes=every_minutes, next_fetch_at=timezone.now()
            )
    except IntegrityError as error:
        raise bad_input("url", "the newsfeed follows this feed already") from error


def feed_remove(*, feed: Feed) -> None:
    feed.delete()  # its stories go with it


def feeds_due(*, now: datetime.datetime | None = None, limit: int = 200) -> list[str]:
    """Ids of feeds due to be read (in workspaces with the newsfeed on) that no worker holds."""
    now = now or timezone.now()
    on = ResearchSettings.objects.filter(newsfeed_on=True).values("organization_id")
    return [str(i) for i in Feed.objects.filter(organization_id__in=on, next_fetch_at__lte=now).filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    ).order_by("next_fetch_at").values_list("id", flat=True)[:limit]]


def feed_claim(*, feed_id, now: datetime.datetime) -> bool:
    """Take a due feed for reading: a conditional write only one worker wins."""
    return bool(Feed.objects.filter(id=feed_id, next_fetch_at__lte=now).filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    ).update(claimed_until=now + FEED_CLAIM))


def feed_refresh(*, feed_id, now: datetime.datetime | None = None) -> str | None:
    """Read one due feed if this worker wins its claim: the new items stored once each, the feed's state set.
    Returns the feed's state after, or None when it wasn't due or another worker had it."""
    now = now or timezone.now()
    if not feed_claim(feed_id=feed_id, now=now):
        return None
    feed = Feed.objects.get(id=feed_id)
    result = feed_reader.read(feed.url, etag=feed.etag, modified=feed.modified)
    return feed_store(feed=feed, result=result, now=now)


def feed_store(*, feed: Feed, result: feed_reader.FeedRead, now: datetime.datetime) -> str:
    """Store one read: its items (a story once per feed: the unique key skips those kept already), the state."""
    state = Feed.State.OK if result.state in ("ok", "not_modified") else result.state
    with transaction.atomic():
        if result.state == "ok":
            Story.objects.bulk_create([
                Story(organization_id=feed.organization_id, feed=feed, key=item.key, link=item.link,
                      headline=item.headline, summary=item.summary, published_at=item.published_at)
                for item in result.items
            ], ignore_conflicts=True)
        changes = {
            "state": state, "problem": result.problem[:500], "fetched_at": now, "claimed_until": None,
            "next_fetch_at": now + datetime.timedelta(minutes=feed.every_minutes), "fetches": F("fetches") + 1,
        }
        if result.state == "ok":
            changes.update(etag=result.etag, modified=result.modified)
            if result.title:
                changes["title"] = result.title
        Feed.objects.filter(id=feed.id).update(**changes)
    return state


# --- the day's brief -------------------------------------------------------------------------------------------

BRIEF_CLAIM = datetime.timedelta(minutes=5)  # longer than the brief's one model call with its retries
BRIEF_AGAIN = datetime.timedelta(hours=3)  # a written brief is written again over new stories, at most this often


def brief_claim(*, org, story_ids: list[str], now: datetime.datetime | None = None) -> NewsfeedBrief | None:
    """Take today's brief for writing over `story_ids` (today's stories), or None: another worker holds it, or it
    was written over these stories already, or less than BRIEF_AGAIN ago. A conditional write only one worker
    wins, so two never pay for the same brief."""
    now = now or timezone.now()
    day = owner_today(org, now)
    try:
        with transaction.atomic():
            NewsfeedBrief.objects.get_or_create(organization=org, day=day)
    except IntegrityError:  # another worker made it first: the claim below decides
        pass
    due = NewsfeedBrief.objects.filter(organization=org, day=day).filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    ).filter(Q(written_at__isnull=True) | Q(written_at__lte=now - BRIEF_AGAIN))
    brief = due.first()
    if brief is None or (brief.written_at is not None and set(story_ids) <= set(brief.story_ids)):
        return None
    if not due.filter(id=brief.id).update(claimed_until=now + BRIEF_CLAIM):
        return None
    return brief


def brief_write(*, brief: NewsfeedBrief, projects: list[dict], story_ids: list[str],
                now: datetime.datetime | None = None) -> None:
    """Keep the written brief and let its claim go."""
    again = brief.written_at is not None
    NewsfeedBrief.objects.filter(id=brief.id).update(
        projects=projects, story_ids=story_ids, written_at=now or timezone.now(), problem="", claimed_until=None,
        rewrites=F("rewrites") + 1 if again else F("rewrites"),
    )


def brief_problem(*, brief: NewsfeedBrief, problem: str) -> None:
    """Say why the brief couldn't be written (a brief written earlier today stays), and let its claim go."""
    NewsfeedBrief.objects.filter(id=brief.id).update(problem=problem[:500], claimed_until=None)


def filing_failure(filing: Filing) -> ToolError:
    """What filings.read answers for a filing whose text couldn't be fetched."""
    why = filing.error or "EDGAR didn't give its text"
    if "pdf" in why.lower():
        return ToolError("unsupported", f"Filing {filing.accession}'s text can't be read here: {why}. It is at "
                                        f"{filing.url}.")
    return ToolError("unavailable", f"Filing {filing.accession}'s text couldn't be fetched from SEC EDGAR: {why}.")


# --- tables -----------------------------------------------------------------------------------------------------

MAX_TABLE_ROWS = 250  # a table's rows, found and added together (the spec's maxRows and rowKeys go to 250)
MAX_IDENTITY_VALUE = 300
DRAFT_KEPT = datetime.timedelta(days=2)  # a plan waits this long for the owner's yes before it is made again


def _table_model(actor) -> str:
    """The model a table's researchers use: the asking agent's, else the cheapest."""
    from django.conf import settings

    agent = getattr(actor, "agent", None)
    model = getattr(agent, "model", None)
    return model if model in settings.ROADSTAR_MODELS else settings.CHEAPEST_MODEL


def _draft_key(*, org, actor, conversation_id, project_id, question: str, max_rows: int) -> str:
    import hashlib
    import json

    parts = [str(org.id), actor.kind, actor.id, str(conversation_id or ""), str(project_id or ""), question, max_rows]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def table_plan_draft(*, org, actor, conversation_id, project_id, question: str, max_rows: int,
                     make: bool = True) -> DatasetPlanDraft:
    """The plan for a build, made before the check weighs its cost (a model call, so called with no transaction
    open), or the one made when the same build was asked before and not run yet. With `make` False, only the
    one made before (the build itself runs in a transaction, after the check made it)."""
    key = _draft_key(org=org, actor=actor, conversation_id=conversation_id, project_id=project_id,
                     question=question, max_rows=max_rows)
    draft = (DatasetPlanDraft.objects.filter(organization=org, key=key, used_by__isnull=True,
                                             created_at__gte=timezone.now() - DRAFT_KEPT)
             .order_by("-created_at").first())
    if draft is not None:
        return draft
    if not make:
        raise ToolError("changed", "This build's plan was used a moment ago by the same build: tables.list shows "
                                   "the table. Ask again for another.")
    if not web_available():
        raise ToolError("unsupported", NOT_SET_UP)
    model_id = _table_model(actor)
    agent = getattr(actor, "agent", None)
    name, plan, cost = table_run.plan_make(org=org, agent_id=agent.id if agent is not None else None,
                                           model_id=model_id, question=question, max_rows=max_rows)
    estimate, cap = table_run.build_costs(model_id, plan, max_rows)
    return DatasetPlanDraft.objects.create(organization=org, key=key, name=name, plan=plan, model=model_id,
                                           estimate_micros=estimate, cap_micros=cap, plan_micros=cost)


def table_plan_words(plan: dict) -> str:
    columns = ", ".join(f"{c['label']} ({c['type']}{', identifies' if c['identifies'] else ''})"
                        for c in plan["columns"])
    return (f"One row per {plan['row']} ({plan['rule']}). Searches: {'; '.join(plan['queries'])}. "
            f"Columns: {columns}.")


def table_build_note(*, draft: DatasetPlanDraft, max_rows: int) -> str:
    return (f"It costs money: building this table of up to {max_rows} rows is estimated at "
            f"{money_words(draft.estimate_micros)} and stops at a cap of {money_words(draft.cap_micros)} "
            f"(planning it cost {money_words(draft.plan_micros)}). {table_plan_words(draft.plan)}")


def table_build(*, org, actor, conversation_id, project: Project | None, question: str, max_rows: int,
                draft: DatasetPlanDraft) -> tuple[Dataset, DatasetRun]:
    """Make the table on its plan and queue its build: a worker finds the rows, then researches them."""
    agent = getattr(actor, "agent", None)
    dataset = Dataset.objects.create(
        organization=org, name=draft.name, question=question, plan=draft.plan, max_rows=max_rows, model=draft.model,
        agent_id=agent.id if agent is not None else None, conversation_id=as_uuid(conversation_id),
        plan_micros=draft.plan_micros,
    )
    if not DatasetPlanDraft.objects.filter(id=draft.id, used_by__isnull=True).update(used_by=dataset):
        raise ToolError("changed", "This table is being built already (the same build ran a moment ago): "
                                   "tables.list shows it.")
    if project is not None:
        dataset.projects.add(project)
    run = DatasetRun.objects.create(
        organization=org, dataset=dataset, kind=DatasetRun.Kind.BUILD, estimate_micros=draft.estimate_micros,
        cap_micros=draft.cap_micros, rows_total=max_rows,
    )
    table_run.dispatch(run.id, tasks=1)  # one finds the rows, then queues the rest
    return dataset, run


def table_add_row(*, org, actor, dataset: Dataset, identity: dict[str, str]) -> DatasetRow:
    """A row named by the columns that identify it, not researched yet (tables.research_rows does that)."""
    names = identifying(dataset.plan)
    unknown = [k for k in identity if k not in names]
    if unknown:
        raise bad_input(f"identity.{unknown[0]}", f"not a column that identifies a row; those are {', '.join(names)}")
    missing = [n for n in names if not str(identity.get(n) or "").strip()]
    if missing:
        raise bad_input("identity", f"give {', '.join(missing)}: every column that identifies a row "
                                    f"({', '.join(names)})")
    for name in names:
        if len(identity[name]) > MAX_IDENTITY_VALUE:
            raise bad_input(f"identity.{name}", f"at most {MAX_IDENTITY_VALUE} characters")
    values = {n: identity[n].strip() for n in names}
    key = row_key(dataset.plan, values)
    if not key.replace("|", ""):
        raise bad_input("identity", "the values name nothing (only punctuation)")
    # The table's row lock: two rows added at once get their places one after the other.
    Dataset.objects.select_for_update().filter(id=dataset.id).first()
    if DatasetRow.objects.filter(dataset=dataset, key=key).exists():
        raise bad_input("identity", f"the table has this row already, as {key!r}")
    count = DatasetRow.objects.filter(dataset=dataset).count()
    if count >= MAX_TABLE_ROWS:
        raise bad_input("identity", f"the table has {MAX_TABLE_ROWS} rows, as many as a table holds")
    source = {"status": "edited", "from": actor.name} | ({"human": True} if actor.kind == "user" else {})
    row = DatasetRow.objects.create(dataset=dataset, key=key, position=count, identity=values, values=dict(values),
                                    sources={n: dict(source) for n in names})
    Dataset.objects.filter(id=dataset.id).update(updated_at=timezone.now())
    return row


def _rows_by_keys(dataset: Dataset, row_keys: list[str]) -> list[DatasetRow]:
    wanted = list(dict.fromkeys(row_keys))
    rows = {r.key: r for r in DatasetRow.objects.filter(dataset=dataset, key__in=wanted)}
    for i, key in enumerate(row_keys):
        if key not in rows:
            raise bad_input(f"rowKeys[{i}]", f"the table has no row {key!r}; tables.read lists its rows' keys")
    return [rows[k] for k in wanted]


def table_rerun_costs(*, dataset: Dataset, row_keys: list[str]) -> tuple[int, int]:
    return rerun_costs(dataset.model, dataset.plan, len(_rows_by_keys(dataset, row_keys)))


def table_research_note(*, dataset: Dataset, row_keys: list[str]) -> str:
    rows = len(_rows_by_keys(dataset, row_keys))
    estimate, cap = table_rerun_costs(dataset=dataset, row_keys=row_keys)
    return (f"It costs money: researching {rows} row{'s' if rows != 1 else ''} of {dataset.name!r} again is "
            f"estimated at {money_words(estimate)} and stops at a cap of {money_words(cap)}. Their values are "
            "replaced by what the research finds.")


def table_research_rows(*, org, dataset: Dataset, row_keys: list[str]) -> DatasetRun:
    """Queue the rows for research again, in a run of their own with its estimate and cap."""
    rows = _rows_by_keys(dataset, row_keys)
    Dataset.objects.select_for_update().filter(id=dataset.id).first()
    for row in rows:
        row.refresh_from_db(fields=["state"])
        if row.state != DatasetRow.State.IDLE:
            raise bad_input(f"rowKeys[{row_keys.index(row.key)}]",
                            f"row {row.key!r} is being researched now; ask again once its run is done")
    estimate, cap = table_run.rerun_costs(dataset.model, dataset.plan, len(rows))
    run = DatasetRun.objects.create(
        organization=org, dataset=dataset, kind=DatasetRun.Kind.RERUN, estimate_micros=estimate, cap_micros=cap,
        rows_total=len(rows), rows_found=True,
    )
    DatasetRow.objects.filter(id__in=[r.id for r in rows], state=DatasetRow.State.IDLE).update(
        state=DatasetRow.State.PENDING, run=run, attempts=0)
    Dataset.objects.filter(id=dataset.id).update(updated_at=timezone.now())
    table_run.dispatch(run.id, tasks=min(table_run.ROWS_AT_ONCE, len(rows)))
    return run


def table_edit_cell(*, dataset: Dataset, key: str, column: str, value: str, actor) -> DatasetRow:
    """Write a cell by hand (the owner on the table's page): the spec's `edited` state, `human: true` for the owner
    (else `from` the agent), the value and source it had kept as `was`. Research again leaves it as written.
    An empty value clears the cell. The value must be the column's type, as research's are."""
    columns = {c["name"]: c for c in dataset.plan["columns"]}
    if column not in columns:
        raise bad_input("column", f"the table has no column {column!r}; its columns are {', '.join(columns)}")
    found = DatasetRow.objects.filter(dataset=dataset, key=key).values_list("id", flat=True).first()
    if found is None:
        raise bad_input("key", f"the table has no row {key!r}; tables.read lists its rows' keys")
    if columns[column].get("identifies"):
        raise bad_input("column", f"{column} names the row; its cells aren't changed by hand")
    if len(value) > 2000:
        raise bad_input("value", f"{len(value):,} characters is over a cell's 2,000")
    kind = columns[column]["type"]
    try:
        typed = table_run.typed_value(columns[column], value) if value.strip() else None
    except (ValueError, TypeError):
        what = {"number": "a number", "rating": "a number", "date": "a date as YYYY-MM-DD",
                "yes_no": "yes or no", "choice": "one of " + ", ".join(columns[column].get("options") or [])}
        raise bad_input("value", f"{value!r} isn't {what.get(kind, 'text')}, which {column} takes") from None
    row = DatasetRow.objects.select_for_update().get(id=found)
    if row.state != DatasetRow.State.IDLE:
        raise bad_input("key", f"row {key!r} is being researched now; change its values once that is done")
    before = (row.sources or {}).get(column)
    edited: dict = {"status": "edited", "human": True,
                    "was": {"value": (row.values or {}).get(column), "source": before}}
    if actor.kind != "user":
        edited.pop("human")
        edited["from"] = actor.name
    row.values = {**(row.values or {}), column: typed}
    row.sources = {**(row.sources or {}), column: edited}
    row.save(update_fields=["values", "sources"])
    Dataset.objects.filter(id=dataset.id).update(updated_at=timezone.now())
    return row


def table_accept_cell(*, dataset: Dataset, key: str, column: str, actor) -> DatasetRow:
    """Accept a value waiting for review: it counts as filled, confirmed by whoever accepted it, and the source it
    had is kept as `was`."""
    names = [c["name"] for c in dataset.plan["columns"]]
    if column not in names:
        raise bad_input("column", f"the table has no column {column!r}; its columns are {', '.join(names)}")
    found = DatasetRow.objects.filter(dataset=dataset, key=key).values_list("id", flat=True).first()
    if found is None:
        raise bad_input("key", f"the table has no row {key!r}; tables.read lists its rows' keys")
    row = DatasetRow.objects.select_for_update().get(id=found)
    if row.state != DatasetRow.State.IDLE:
        raise bad_input("key", f"row {key!r} is being researched now; accept its values once that is done")
    source = (row.sources or {}).get(column) or {}
    if source.get("status") != "needs_review":
        status = source.get("status") or "empty"
        raise bad_input("column", f"{column} of {key!r} isn't waiting for review (it is {status})")
    value = (row.values or {}).get(column)
    accepted = {k: v for k, v in source.items() if k in ("quote", "url", "agree")}
    accepted |= {"status": "filled", "human": True, "was": {"value": value, "source": source}}
    if actor.kind != "user":
        accepted.pop("human")
        accepted["from"] = actor.name
    row.sources = {**row.sources, column: accepted}
    row.save(update_fields=["sources"])
    Dataset.objects.filter(id=dataset.id).update(updated_at=timezone.now())
    return row
