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
    company = models.OneToOneField("companies.Company", on_delete=models.CASCADE, related_name="listing")
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
    project = models.ForeignKey("docs.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
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
