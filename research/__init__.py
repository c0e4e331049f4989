"""Research
========

The optional research groups' data, just above `integrations` (it imports core, companies, docs, and the web group's
address check and pinned client in `integrations/web/`). `ResearchSettings` says which optional groups a workspace
has (`filings_on`, `newsfeed_on`, `tables_on`, `pages_on`; off by default, set on the owner's Newsfeed page,
`/newsfeed/`). A tool group may declare `Group.enabled(org)`: off, its line is absent from browse_tools' description
as a turn's prompt builds it with the workspace; browsing it answers `not_available` and `find_tools`
`no_such_tool`, each saying the owner can turn it on, and `use_tool` answers `unsupported` without running it. The
MCP server's listing builds browse_tools' description with the token's workspace the same way.

- **Filings** (`edgar.py`, `ratelimit.py`): an httpx client for SEC EDGAR's ticker list, submissions JSON and filing
  documents. Every request carries `EDGAR_USER_AGENT` (a setting; without a contact address in it no request is made
  and the tools answer `unsupported`) and takes a turn from `SharedRateLimit`, a budget of 10 requests a second
  shared by every process through one database row changed by compare-and-set (no row lock, nothing held while
  waiting; clock and sleep injectable, so the tests don't sleep). EDGAR's 429 and its 403 "Request Rate Threshold
  Exceeded" page are `rate_limited`. Filings are stored once for everyone (`EdgarCompany`, `Filing`); a workspace's
  company is linked to its listing (`CompanyListing`) by a `CIK` or `Ticker` detail, else an exact name match, and a
  workspace reads only filings of companies it follows. `filings.latest` reads the submissions when the stored ones
  are 30 minutes old (no transaction open: `calls_apps`) and adds `notListed` for companies EDGAR doesn't list (not
  in the spec's shape). `filings.read` answers `{state: "fetching"}` and queues `research.tasks.fetch_filing` until
  the text is stored; the task claims the filing with a conditional write, fetches with no transaction open,
  schedules itself again (a django-q ONCE schedule) after a rate limit or an outage, and fails after 3 tries. The
  text is the main document without markup or the hidden inline-XBRL header; `filings.read` gives its first 60,000
  characters and says where the rest is.
- **Newsfeed** (`feeds.py`, `netguard.py`): feeds per workspace or per project (`Feed`), read by the worker's
  `research.tasks.feeds_sweep` (every minute via `schedule_ticks`; each feed every 30 minutes) through feedparser. A
  due feed is claimed by a conditional write (`claimed_until`), so two workers read it once, and a dead worker's
  claim lapses after 5 minutes. Stories are kept once per feed by a key of the guid, else the link (a unique
  constraint), and shown once per link across feeds. Malformed answers, web pages, HTTP errors and refused addresses
  set the feed's state and a problem in words. `netguard` runs the web group's check (`core/web_addresses.py`
  `check_url`: one policy for both, NAT64/6to4, decimal or octal spellings and metadata addresses too) when a feed
  is added and on every read and redirect, and connects only to the checked address
  (`integrations.web.fetch.pinned_client`, so DNS rebinding reaches nothing); it reads at most 5 MB. `newsfeed.read`
  gives the owner's today's stories, the feeds as `topics`, their projects and publishers; what Roadstar doesn't
  have (X accounts, the market strip, the brief) is empty.

Research tables (research/table_run.py, tools/groups/tables.py, pages/tables.py)
--------------------------------------------------------------------------------

A table is a `Dataset` (question, plan: row, rule, queries, typed columns and which identify a row), its
`DatasetRow`s (key from the identifying values; values and a `CellSource` per cell) and the `DatasetSource` pages
cells were filled from (the text read, which a quote's start and end point into). `tables.build` plans before the
check weighs it: `check_note` asks the model for the plan (no transaction open) and keeps it as a `DatasetPlanDraft`
with its estimate and cap, so the note the check reads (and Home shows with the ask: `CheckDecision.note`) is the
plan and its price, and the build asked again after the owner's yes runs on that plan without planning again. Each
build or re-research is a `DatasetRun` worked by django-q tasks (`research.tasks.table_work`, and `tables_sweep`
every minute for what a dead worker left): a build's rows are found once under a leased claim (the plan's searches,
one model call), then rows are claimed one at a time by a conditional write, with the workspace row locked, at most
3 of a run and 8 of a workspace at once (its threads' limits); each row's search and page reads, then one model call
whose quotes must be found word for word in a page read for a value to be `filled` (else `needs_review`; `agree`
counts the sources quoted). Money is whole micro-dollars: before each call its most possible cost (the prompt's
bytes as tokens plus the answer's `max_tokens`) is reserved against the cap by a conditional UPDATE, settled to the
metered cost after; a call the cap can't hold stops the run, so spend never passes the cap. A reservation left by a
worker killed mid-call counts as spent when its lapsed row is taken over; results are written only under the row's
claim, so no row is written twice, and a row whose workers died 3 times gets failed cells. The model is above
research: agents hands `research.table_run` its metered call (`agents/tables.py`, a `Usage` of purpose `table` of
the asking agent, so the spend is on the agents chart and counts towards its budget; a paused agent stops the run).
The owner's `/tables/` pages show each run's estimate, cap and spend, mark values waiting for review (with Accept,
keeping `was`), and link each cell to its source's text with the quote marked. Read one way of two: an accepted
value becomes `filled` with `human: true` (the owner) or `from` (an agent), the value it had and its source kept as
`was`; a page is read whole (its first 6,000 characters), not cut to the passages the objective picks, as a value's
words often aren't the column's. Not built: tables of a workspace's own records, and editing a cell's value by hand.

Research pages and comments (research/page_*.py, agents/research_writer.py)
---------------------------------------------------------------------------

`ResearchSettings.pages_on` turns on both optional groups, `pages` and `comments` (set on the Newsfeed page). A page
(`ResearchPage`) is made once, queued, by `pages.request` (kind "makes", checked through its cost note: "A page
costs money and has no price up front", which Home's ask shows beside the action); the research writer fills it. The
writer is above research, in `agents/research_writer.py`, handed to `research.page_services` in `agents/hooks.py`
(`RESEARCH_WRITERS`), and runs in a worker (a django-q task queued on commit, and a sweep every minute for pages
nobody holds). A run claims the page by a conditional write (`claimed_until`, 15 minutes, at most 3 runs), works in
a thread of the agent that asked ("Research page: …", closed when done) and keeps each phase's result on the page
before the next: **researching** (the model plans up to 6 queries, strict JSON; the web group's search; up to 8
pages read through `web_read`'s address checks, kept as numbered `PageSource`s with their text), **writing** (the
model writes the spec's GeneratedPageDocumentModel artifact from those sources only, held to a pydantic model of it,
one more try when it isn't), **verifying** (each chart row, table row and timeline item keeps only the sources it
was given, by id, and is left out when it names none; body citations to no source are removed), then revision 1 is
published in one transaction with the completed state, only while the run still holds the claim. A worker killed
mid-run is picked up after its claim lapses, where it stopped: no second page, plan, search or revision. Every model
call is a `Usage` of the asking agent and thread (purpose "research"), so it shows on the agents chart and counts in
its budget; an agent paused or past its budget fails the page saying so. The writer has no tools: what the web pages
say reaches only the page's words. `pages.update` publishes a new revision with each `find` replaced where the page
has it exactly once (its source joins the sources), and its Undo publishes the replaced revision again unless the
page changed since. Comments nest one level (a reply to a reply answers its top comment); what an agent writes shows
as Roadstar. An owner's comment (the page's form, `/research/<id>/`) is handed, after commit, to
`agents.research_writer.wake_followers` (`COMMENT_LISTENERS`, from `agents/hooks.py`): each agent that follows the
page gets it as the owner's words, with a piece of work, in its thread "Comments on <title>", and a turn. The
owner's page draws the artifact as one MDX text through `pages/mdx.py` (charts as vega-lite with inline data,
tables, the timeline, the counter-view as a callout), with each `[n]` a link to source n; its progress and comments
refresh on the live message `pages`. Not built: thesis pages (the writer makes question pages), reading the
workspace's own search while researching, and a cursor for `comments.list` (it takes none: one window of 200).
"""
