"""The research groups' data: which optional groups a workspace has on, what EDGAR gave (stored once, shared by
every workspace, as SEC filings are public), and the feeds a workspace follows with the stories they carried."""

import uuid

from django.db import models


class ResearchSettings(models.Model):
    """Which optional research groups a workspace has. Off by default: they are for finance research, not the
    business's own work, and a group that is off is absent from browse_tools and refused by use_tool."""

    organization = models.OneToOneField(
        "roadstar.Organization", on_delete=models.CASCADE, related_name="research_settings"
    )
    filings_on = models.BooleanField(
        default=False, verbose_name="filings", help_text="SEC filings of public companies."
    )
    newsfeed_on = models.BooleanField(default=False, verbose_name="newsfeed", help_text="Today's stories from feeds.")
    tables_on = models.BooleanField(
        default=False, verbose_name="tables", help_text="Research tables agents build from web sources, at a cost."
    )
    pages_on = models.BooleanField(
        default=False, verbose_name="research pages",
        help_text="Question pages the research writer makes, and comments on them.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "research settings"

    def __str__(self):
        return f"research groups of {self.organization_id}"


# --- EDGAR ------------------------------------------------------------------------------------------------------


class EdgarCompany(models.Model):
    """A company EDGAR knows (from company_tickers.json), and when its submissions were last read."""

    cik = models.PositiveIntegerField(primary_key=True)
    ticker = models.CharField(max_length=20, blank=True, db_index=True)
    name = models.CharField(max_length=300)
    submissions_fetched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "EDGAR company"
        verbose_name_plural = "EDGAR companies"

    def __str__(self):
        return f"{self.name} ({self.ticker or self.cik})"


class EdgarDirectory(models.Model):
    """When EDGAR's ticker list was last read into EdgarCompany: one row, so the list is read about once a day."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    fetched_at = models.DateTimeField(null=True, blank=True)


class CompanyListing(models.Model):
    """A workspace's company linked to the public company EDGAR files it under."""

    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    company = models.OneToOneField("records.Company", on_delete=models.CASCADE, related_name="listing")
    edgar = models.ForeignKey(EdgarCompany, on_delete=models.PROTECT, related_name="listings")
    created_at = models.DateTimeField(auto_now_add=True)


class Filing(models.Model):
    """One filing as EDGAR's submissions list it, and its text once a worker fetched it (once, for everyone)."""

    class State(models.TextChoices):
        LISTED = "listed", "listed, text not fetched"
        FETCHING = "fetching", "being fetched"
        FETCHED = "fetched", "fetched"
        FAILED = "failed", "could not be fetched"

    accession = models.CharField(max_length=20, primary_key=True)  # 0000320193-24-000123
    edgar = models.ForeignKey(EdgarCompany, on_delete=models.CASCADE, related_name="filings")
    form = models.CharField(max_length=20)
    what = models.CharField(max_length=300, blank=True)  # EDGAR's primaryDocDescription, else the form's name
    period = models.DateField(null=True, blank=True)  # reportDate
    filed_at = models.DateField()
    primary_document = models.CharField(max_length=300, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.LISTED)
    # When a read asked for its text: a request whose task was lost (a worker killed before it ran) is made again
    # once this is old and no worker holds the claim.
    requested_at = models.DateTimeField(null=True, blank=True)
    # A worker's claim on fetching it: another worker (or a retry after kill -9) takes it only once this passed.
    claimed_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.CharField(max_length=500, blank=True)
    title = models.CharField(max_length=500, null=True, blank=True)
    text = models.TextField(blank=True)
    fetched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-filed_at", "-accession"]
        indexes = [models.Index(fields=["edgar", "-filed_at"], name="filing_edgar_filed_idx")]

    def __str__(self):
        return f"{self.form} {self.accession}"

    @property
    def url(self) -> str | None:
        if not self.primary_document:
            return None
        folder = self.accession.replace("-", "")
        return f"https://www.sec.gov/Archives/edgar/data/{self.edgar_id}/{folder}/{self.primary_document}"


class RateWindow(models.Model):
    """The shared request budget for one service (EDGAR: 10 a second): the times of the last requests, changed by
    compare-and-set on `version`, so every process of every worker takes from one budget without a row lock."""

    name = models.CharField(max_length=40, primary_key=True)
    times = models.JSONField(default=list)  # epoch seconds of the newest requests, oldest first
    version = models.PositiveBigIntegerField(default=0)


# --- Newsfeed ---------------------------------------------------------------------------------------------------


class Feed(models.Model):
    """An RSS or Atom feed a workspace follows, for the whole workspace or for one project."""

    class State(models.TextChoices):
        NEW = "new", "not read yet"
        OK = "ok", "read"
        MALFORMED = "malformed", "not a feed Roadstar can read"
        UNREACHABLE = "unreachable", "didn't answer"
        REFUSED = "refused", "address refused"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey("records.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    url = models.CharField(max_length=2000)
    title = models.CharField(max_length=300, blank=True)
    state = models.CharField(max_length=12, choices=State.choices, default=State.NEW)
    problem = models.CharField(max_length=500, blank=True, help_text="What went wrong on the last read, for the owner.")
    every_minutes = models.PositiveIntegerField(default=30)
    next_fetch_at = models.DateTimeField(db_index=True)
    # A worker's claim on reading it (a conditional write), so two workers read a due feed once; a claim left by a
    # worker that died lapses and the feed is read again.
    claimed_until = models.DateTimeField(null=True, blank=True)
    fetched_at = models.DateTimeField(null=True, blank=True)
    fetches = models.PositiveIntegerField(default=0)
    etag = models.CharField(max_length=300, blank=True)
    modified = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "project", "url"], name="feed_unique_per_project"),
            # NULLs are distinct in a unique index: the workspace-wide feeds need their own.
            models.UniqueConstraint(
                fields=["organization", "url"], condition=models.Q(project__isnull=True), name="feed_unique_workspace"
            ),
        ]

    def __str__(self):
        return self.title or self.url


class Story(models.Model):
    """One item a feed carried, kept once per feed however often the feed is read (by guid, else link)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    feed = models.ForeignKey(Feed, on_delete=models.CASCADE, related_name="stories")
    key = models.CharField(max_length=64)  # sha256 of the guid, else the link, else the title and date
    link = models.CharField(max_length=2000, blank=True)
    headline = models.CharField(max_length=500)
    summary = models.TextField(blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-seen_at"]
        constraints = [models.UniqueConstraint(fields=["feed", "key"], name="story_unique_per_feed")]
        indexes = [models.Index(fields=["organization", "-seen_at"], name="story_org_seen_idx")]
        verbose_name_plural = "stories"

    def __str__(self):
        return self.headline


class NewsfeedBrief(models.Model):
    """The model's brief over one of the owner's days of stories (the spec's `brief`): for each project the feed
    follows, how the day's news bears on it. One a workspace a day, written by the worker
    (agents.newsfeed_brief) and written again when new stories came since, at most every few hours; `problem` says
    in the owner's words why there is none yet (no model connected, the budget spent)."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    day = models.DateField()  # the owner's day, in the workspace's time zone
    projects = models.JSONField(default=list)  # [{projectId, effect, text}], as the spec's brief has them
    story_ids = models.JSONField(default=list)  # the stories it was written over
    written_at = models.DateTimeField(null=True, blank=True)
    rewrites = models.PositiveSmallIntegerField(default=0)
    problem = models.CharField(max_length=500, blank=True)
    # A worker writing it holds it until then (a conditional update takes it), so two never pay for one brief.
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "day"], name="newsfeed_brief_one_a_day")]


# --- Research tables --------------------------------------------------------------------------------------------


class Dataset(models.Model):
    """A research table: the question, the plan (row rule, queries, typed columns, which identify a row), and the
    agent that asked for it. Its rows are DatasetRow; each build or re-research is a DatasetRun."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    projects = models.ManyToManyField("records.Project", related_name="datasets", blank=True)
    name = models.CharField(max_length=200)
    question = models.TextField()
    # {row, rule, queries, columns: [{name, label, type, unit, options, instructions, identifies}]}
    plan = models.JSONField()
    max_rows = models.PositiveIntegerField(default=25)
    # The agent that asked (agents are above research: its id, not a relation); none when the owner did.
    agent_id = models.UUIDField(null=True, blank=True)
    conversation_id = models.UUIDField(null=True, blank=True)
    # The model its researchers use: the asking agent's, else the cheapest.
    model = models.CharField(max_length=40)
    # What planning cost, in millionths of a dollar (the runs keep their own spend). Money here is whole
    # micro-dollars, so the cap's conditional writes compare exactly on every database; a call's cost is rounded up.
    plan_micros = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["organization", "-updated_at"], name="dataset_org_updated_idx")]

    def __str__(self):
        return self.name


class DatasetPlanDraft(models.Model):
    """A plan made for tables.build before the check weighs its cost: the same build asked again (after the owner's
    yes) runs on this plan and its estimate, rather than planning, and paying, again."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)  # sha256 of the conversation, project, question and maxRows
    name = models.CharField(max_length=200)
    plan = models.JSONField()
    model = models.CharField(max_length=40)
    estimate_micros = models.BigIntegerField()
    cap_micros = models.BigIntegerField()
    plan_micros = models.BigIntegerField(default=0)
    used_by = models.OneToOneField(Dataset, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["organization", "key"], name="dataset_draft_key_idx")]


class DatasetRun(models.Model):
    """One build or re-research of a table, with its estimate, its cap and what it spent. Every model call it makes
    reserves its most possible cost against the cap first (a conditional write), so spend never passes the cap."""

    class Kind(models.TextChoices):
        BUILD = "build"
        RERUN = "rerun"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        STOPPED = "stopped"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="runs")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    status = models.CharField(max_length=7, choices=Status.choices, default=Status.QUEUED)
    # Millionths of a dollar (see Dataset.plan_micros).
    estimate_micros = models.BigIntegerField()
    cap_micros = models.BigIntegerField()
    spent_micros = models.BigIntegerField(default=0)
    # Held for model calls under way: their most possible cost, settled to what they cost when they answer.
    reserved_micros = models.BigIntegerField(default=0)
    rows_total = models.PositiveIntegerField(default=0)
    rows_done = models.PositiveIntegerField(default=0)
    message = models.CharField(max_length=500, null=True, blank=True)
    # A build finds its rows first; the worker finding them holds this claim (a dead worker's lapses).
    rows_found = models.BooleanField(default=False)
    finding_claimed_until = models.DateTimeField(null=True, blank=True)
    finding_reserved_micros = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "status"], name="dataset_run_org_status_idx")]


class DatasetRow(models.Model):
    """One row: its key (from the columns that identify it), its values and each value's source, and its research
    state. A worker claims a pending row with a conditional write (state and lease), so no row is researched by two
    workers, and one a dead worker held is taken over once its lease lapses."""

    class State(models.TextChoices):
        IDLE = "idle"  # nothing to do
        PENDING = "pending"  # waiting for a worker of `run`
        RESEARCHING = "researching"  # a worker holds it until `claimed_until`

    id = models.BigAutoField(primary_key=True)
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="rows")
    key = models.CharField(max_length=300)
    position = models.PositiveIntegerField(default=0)
    identity = models.JSONField(default=dict)
    values = models.JSONField(default=dict)  # {column: CellValue}
    sources = models.JSONField(default=dict)  # {column: CellSource}
    found_at_url = models.CharField(max_length=2000, blank=True)
    state = models.CharField(max_length=11, choices=State.choices, default=State.IDLE)
    run = models.ForeignKey(DatasetRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="rows")
    claim = models.UUIDField(null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    # The most the row's model call under way may cost: kept as spent if its worker dies mid-call.
    reserved_micros = models.BigIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)
    researched = models.PositiveIntegerField(default=0)  # research results written, over every run
    researched_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(fields=["dataset", "key"], name="dataset_row_key_unique")]
        indexes = [models.Index(fields=["run", "state"], name="dataset_row_run_state_idx")]


class DatasetSource(models.Model):
    """A page a cell was filled from: its address and the text the researcher read, which a QuoteRef's start and
    end point into, so the owner sees the very words."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="sources")
    url = models.CharField(max_length=2000)
    title = models.CharField(max_length=500, blank=True)
    text = models.TextField()
    read_at = models.DateTimeField(auto_now_add=True)


# --- Research pages ---------------------------------------------------------------------------------------------


class ResearchPage(models.Model):
    """A question page Roadstar's research writer makes on an agent's request (pages.request): the request, where
    its generation stands, and the page it wrote (spec GeneratedPageDocumentModel), kept as numbered revisions.

    The generation is a claim, like a feed's read: `claimed_until` is a worker's hold, taken by a conditional write,
    so two workers never write the same page and one that died leaves a claim that lapses; `plan` holds what each
    phase finished (the queries, what was searched), so a run picked up again goes on where the last one stopped.
    """

    class Type(models.TextChoices):
        QUESTION = "question"
        THESIS = "thesis"

    class Status(models.TextChoices):
        DRAFT = "draft"
        PUBLISHED = "published"
        ARCHIVED = "archived"

    class Generation(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FAILED = "failed"
        COMPLETED = "completed"

    class Phase(models.TextChoices):
        QUEUED = "queued"
        RESEARCHING = "researching"
        WRITING = "writing"
        VERIFYING = "verifying"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey("records.Project", on_delete=models.PROTECT, related_name="research_pages")
    type = models.CharField(max_length=10, choices=Type.choices, default=Type.QUESTION)
    title = models.CharField(max_length=300)
    slug = models.SlugField(max_length=120)
    question = models.TextField()
    context = models.TextField(blank=True)
    # The agent that asked (its budget pays) and the thread the writer works in; ids, as agents sit above research.
    agent_id = models.UUIDField(null=True, blank=True)
    conversation_id = models.UUIDField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    generation = models.CharField(max_length=10, choices=Generation.choices, default=Generation.QUEUED)
    phase = models.CharField(max_length=12, choices=Phase.choices, default=Phase.QUEUED)
    generation_token = models.UUIDField(default=uuid.uuid4, editable=False)
    plan = models.JSONField(default=dict, blank=True)
    error_message = models.CharField(max_length=500, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    current_revision = models.ForeignKey(
        "research.PageRevision", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["organization", "-created_at"], name="page_org_created_idx"),
            models.Index(fields=["generation", "claimed_until"], name="page_generation_idx"),
        ]

    def __str__(self):
        return self.title


class PageSource(models.Model):
    """A page the writer read, numbered in the order it was read: what the page's citations and figures point to.
    Its text is the snapshot the page was written from."""

    class Crawl(models.TextChoices):
        QUEUED = "queued"
        CRAWLING = "crawling"
        IDLE = "idle"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    page = models.ForeignKey(ResearchPage, on_delete=models.CASCADE, related_name="sources")
    citation_number = models.PositiveIntegerField()
    url = models.CharField(max_length=2000)
    title = models.CharField(max_length=500, blank=True)
    published_date = models.CharField(max_length=10, blank=True)  # 2026, 2026-03 or 2026-03-14, as precise as known
    text = models.TextField(blank=True)
    crawl_status = models.CharField(max_length=10, choices=Crawl.choices, default=Crawl.IDLE)
    added_by_edit = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["page", "citation_number"]
        constraints = [
            models.UniqueConstraint(fields=["page", "citation_number"], name="page_source_number_unique"),
            models.UniqueConstraint(fields=["page", "url"], name="page_source_url_unique"),
        ]


class PageRevision(models.Model):
    """One published state of a page's document: the writer's first, then one per pages.update (and its Undo)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    page = models.ForeignKey(ResearchPage, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=300)
    artifact = models.JSONField()
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["page", "number"]
        constraints = [models.UniqueConstraint(fields=["page", "number"], name="page_revision_number_unique")]


class PageMark(models.Model):
    """A star or a follow on a page, by an agent (`agent_id`) or by the owner (none). A follower is woken by the
    owner's comments on the page."""

    class Action(models.TextChoices):
        STAR = "star"
        FOLLOW = "follow"

    page = models.ForeignKey(ResearchPage, on_delete=models.CASCADE, related_name="marks")
    action = models.CharField(max_length=6, choices=Action.choices)
    agent_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["page", "action", "agent_id"], name="page_mark_unique"),
            models.UniqueConstraint(fields=["page", "action"], condition=models.Q(agent_id__isnull=True),
                                    name="page_mark_owner_unique"),
        ]


class PageComment(models.Model):
    """A comment on a page, or a reply to one (replies nest one level). What an agent writes shows as Roadstar."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    page = models.ForeignKey(ResearchPage, on_delete=models.CASCADE, related_name="comments")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies")
    text = models.TextField()
    agent_id = models.UUIDField(null=True, blank=True)  # the agent that wrote it; none: the owner
    created_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["page", "created_at", "id"]
        indexes = [models.Index(fields=["page", "parent", "created_at"], name="page_comment_idx")]
