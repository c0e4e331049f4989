"""The search copy: one row per thing search finds, whatever it came from.

- `SearchItem`: a workspace record (doc, contact, company, project) or an item copied from a connected account
  (an email, a file, a meeting). `key` is the id search.read takes (`doc:<uuid>`, `mail:7c41e2d0:m:<key>`), unique
  per workspace, so copying one item twice writes one row. The full-text index over `title`, `people` and `body`
  is kept by the database itself, so it never drifts from the rows: on SQLite an FTS5 external-content table
  (`search_item_fts`) kept by triggers, on PostgreSQL the `vector` column kept by a trigger, with a GIN index
  (both made in migration 0001 for the database it runs on).
- `SearchPerson`: everyone on an item, one row each (address, name, role), for from/to/with and the exact counts
  by person.
- `SearchPlace`: the folders and labels an item is in, for `in`.
- `SearchTally`, `SearchPeopleTally`: the exact counts of broad searches, summed ahead by triggers (search/tallies.py).
- `SearchEmbedding`: an item's vector for related results (search/embeddings.py).
- `WorkspaceMark`: how far the workspace's own records have been copied in (the newest `updated_at` seen per
  kind), so records written without signals (bulk writes) are still caught up before a search.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchVectorField
from django.db import models

# What a workspace record's or an app item's `source` is when it is the workspace's own.
WORKSPACE = "workspace"


class SearchItem(models.Model):
    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    connection = models.ForeignKey(
        "integrations.Connection", null=True, blank=True, on_delete=models.CASCADE, related_name="+",
        help_text="The account it was copied from; none for the workspace's own records.")
    key = models.CharField(max_length=300, help_text="The id search.read takes.")
    type = models.CharField(max_length=10)
    source = models.CharField(max_length=254, help_text='"workspace", or the account it was copied from.')
    thread = models.CharField(max_length=300, blank=True, help_text="The thread's id, for mail.")
    group = models.CharField(max_length=300, help_text="What one result stands for: the thread, else the item.")
    title = models.CharField(max_length=1000, blank=True)
    people = models.TextField(blank=True, help_text="Every name and address on it, for free words.")
    body = models.TextField(blank=True)
    sender = models.CharField(max_length=1000, blank=True)
    recipients = models.JSONField(default=list, blank=True)
    date = models.DateTimeField()
    year = models.PositiveSmallIntegerField()
    dir = models.CharField(max_length=8, blank=True, help_text="sent or received, for mail.")
    bulk = models.BooleanField(default=False, help_text="A newsletter or automated mail.")
    has_attachment = models.BooleanField(default=False)
    starred = models.BooleanField(default=False)
    thread_last_dir = models.CharField(
        max_length=8, blank=True, help_text="Who wrote last in its thread (people's mail only): for waiting.")
    attachments = models.JSONField(default=list, blank=True, help_text="[{id, name}]")
    url = models.CharField(max_length=2000, blank=True)
    added_by = models.CharField(max_length=200, blank=True)
    vector = SearchVectorField(null=True, editable=False, help_text="PostgreSQL only: kept by a trigger.")
    copied_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "key"], name="search_item_key_unique")]
        indexes = [
            models.Index(fields=["organization", "-date"], name="search_item_org_date_idx"),
            models.Index(fields=["organization", "dir", "-date"], name="search_item_org_dir_idx"),
            # Covers the counts (GROUP BY type, source, year, dir) and the common filters, so a search over every
            # item of a workspace reads this index alone, never the rows with their bodies.
            models.Index(fields=["organization", "type", "source", "year", "dir", "date", "bulk", "thread_last_dir",
                                 "connection"], name="search_item_facets_idx"),
            models.Index(fields=["organization", "group"], name="search_item_org_group_idx"),
            models.Index(fields=["organization", "thread", "-date"], name="search_item_org_thread_idx"),
            models.Index(fields=["connection"], name="search_item_connection_idx"),
        ]

    def __str__(self):
        return f"{self.type}: {self.title}"


class SearchPerson(models.Model):
    id = models.BigAutoField(primary_key=True)
    item = models.ForeignKey(SearchItem, on_delete=models.CASCADE, related_name="persons")
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    role = models.CharField(max_length=10, help_text="from, to (to, cc, guests) or author")
    address = models.CharField(max_length=320, blank=True, help_text="Lower case.")
    domain = models.CharField(max_length=254, blank=True, help_text="Lower case.")
    name = models.CharField(max_length=200, blank=True)
    name_key = models.CharField(max_length=200, blank=True, help_text="The name, lower case, for exact matching.")
    owner = models.BooleanField(default=False, help_text="The owner's own address: left out of counts.people.")
    counted = models.BooleanField(
        default=False, db_default=False,
        help_text="Counted in counts.people: not the owner, an address, and one row per item and address (the one "
                  "with the greatest name), so the count is of items without a COUNT(DISTINCT).")

    class Meta:
        indexes = [
            # Covers from/to/with by address and counts.people (GROUP BY address) without reading the rows.
            models.Index(fields=["organization", "address", "owner", "role", "name", "item"],
                         name="search_person_address_idx"),
            models.Index(fields=["organization", "domain"], name="search_person_domain_idx"),
            # counts.people over a set of items: each item's counted people read from this index alone.
            models.Index(fields=["item", "counted", "address", "name"], name="search_person_counted_idx"),
            models.Index(fields=["organization", "name_key"], name="search_person_name_idx"),
        ]


class SearchEmbedding(models.Model):
    """An item's embedding, for related results (search/embeddings.py): float32 values, little-endian, scaled to
    length 1 (so a dot product is the cosine). `digest` is of the text embedded (and the model), so an item whose
    text changes loses it and is embedded again; an empty `vector` is an item the endpoint refused, not tried again
    until its text changes."""

    item = models.OneToOneField(SearchItem, primary_key=True, on_delete=models.CASCADE, related_name="embedding")
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=200)
    digest = models.CharField(max_length=64)
    vector = models.BinaryField()
    signs = models.BinaryField(default=b"", help_text="One bit a dimension, set where it is above zero: the cheap "
                                                       "first comparison (search/embeddings.py).")

    class Meta:
        indexes = [models.Index(fields=["organization", "model"], name="search_embedding_org_idx")]


class SearchTally(models.Model):
    """How many items a workspace has in each bucket of the facets (source, type, year, dir, bulk) and UTC month:
    a broad search (no words, no people, only type, dir, bulk and dates) reads its exact total and counts from here
    rather than from every match. Kept by triggers on search_searchitem (search/tallies.py), so it never drifts from
    the rows, whatever writes or deletes them."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=254)
    type = models.CharField(max_length=10)
    year = models.PositiveSmallIntegerField(help_text="The item's year, as counts.year shows it.")
    month = models.CharField(max_length=7, help_text='The UTC month of its date, "2026-09": where a date range cuts.')
    dir = models.CharField(max_length=8, blank=True)
    bulk = models.BooleanField()
    n = models.IntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(
            fields=["organization", "source", "type", "year", "month", "dir", "bulk"], name="search_tally_bucket")]


class SearchPeopleTally(models.Model):
    """How many items of each bucket (as SearchTally's) each person is on, counted rows of SearchPerson only: the
    exact counts.people of a broad search. Kept by triggers on search_searchperson and search_searchitem."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    address = models.CharField(max_length=320)
    name = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=254)
    type = models.CharField(max_length=10)
    year = models.PositiveSmallIntegerField()
    month = models.CharField(max_length=7)
    dir = models.CharField(max_length=8, blank=True)
    bulk = models.BooleanField()
    n = models.IntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(
            fields=["organization", "month", "source", "type", "year", "dir", "bulk", "address", "name"],
            name="search_people_tally_bucket")]


class SearchPlace(models.Model):
    id = models.BigAutoField(primary_key=True)
    item = models.ForeignKey(SearchItem, on_delete=models.CASCADE, related_name="places")
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    place = models.CharField(max_length=500, help_text='Lower case: "label:sent", "clients › juniper dental".')

    class Meta:
        indexes = [models.Index(fields=["organization", "place"], name="search_place_idx")]


class WorkspaceMark(models.Model):
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "kind"], name="search_mark_unique")]
