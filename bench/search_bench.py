"""Search over 100,000 messages and 10,000 files: the median time of search.search's selector (exact total, the
counts by type, source, year, direction and people, one page of results one per thread) against a plain
`COUNT(*)` over the same table, in the same run.

    .venv/bin/python bench/search_bench.py                    # a fresh SQLite database in a temporary folder
    DATABASE_URL=postgres://…/empty_db .venv/bin/python bench/search_bench.py    # PostgreSQL (an empty database)

The copy is written through the search app's own writer (search.index.put, the triggers keeping the full-text
index), so the load time is the copy's throughput too. Target: under 100 ms at 100,000 messages on this machine;
the ratio to COUNT(*) is what to compare across machines.
"""

from __future__ import annotations

import datetime
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TMP = tempfile.mkdtemp(prefix="roadstar-search-bench-")
os.environ.setdefault("SQLITE_PATH", str(Path(TMP) / "bench.sqlite3"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.development")
os.environ.setdefault("SECRET_KEY", "bench-only-key")
os.environ.setdefault("DEBUG", "0")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from bench.common import make_workspace  # noqa: E402

MESSAGES = int(os.environ.get("BENCH_MESSAGES", "100000"))
FILES = int(os.environ.get("BENCH_FILES", "10000"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "15"))
OWNER = "sam@fernhill.test"


def vocabulary(rng: random.Random) -> list[str]:
    syllables = ["ka", "ro", "mi", "den", "tal", "vo", "qui", "sen", "lor", "pa", "ne", "tri", "mon", "zu", "bel"]
    words = {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(6000)}
    return sorted(words) + ["invoice", "proposal", "logo", "signage", "quote", "delivery", "meeting", "contract"]


def load(org) -> float:
    from search import index

    rng = random.Random(7)
    words = vocabulary(rng)
    people = [(f"Person {i}", f"person{i}@client{i % 120}.test") for i in range(400)]
    start_day = datetime.datetime(2022, 1, 1, tzinfo=datetime.UTC)
    began = time.perf_counter()
    batch: list = []
    for n in range(MESSAGES):
        name, address = people[int(rng.paretovariate(1.2)) % len(people)]
        sent = rng.random() < 0.35
        bulk = not sent and rng.random() < 0.15
        thread = f"mail:bench0001:t:{n // 3}"
        body = " ".join(rng.choice(words) for _ in range(rng.randint(30, 120)))
        if n % 997 == 0:
            body += f" PO {4000 + n // 997}"
        owner_role, other_role = ("from", "to") if sent else ("to", "from")
        batch.append(index.Entry(
            key=f"mail:bench0001:m:{n}", type="email", source=OWNER,
            title=" ".join(rng.choice(words) for _ in range(5)),
            body=body, date=start_day + datetime.timedelta(minutes=25 * n), thread=thread,
            people=[(owner_role, "Sam Rivera", OWNER, True), (other_role, name, address, False)],
            sender=f"Sam Rivera <{OWNER}>" if sent else f"{name} <{address}>",
            recipients=[f"{name} <{address}>"] if sent else [OWNER], dir="sent" if sent else "received", bulk=bulk,
            places=["label:SENT" if sent else "label:INBOX"],
        ))
        if len(batch) == 3000:
            index.put(org, batch)
            batch = []
    for n in range(FILES):
        batch.append(index.Entry(
            key=f"files:bench0001:f{n}", type=rng.choice(["doc", "sheet", "pdf", "file"]), source=OWNER,
            title=" ".join(rng.choice(words) for _ in range(3)),
            body=" ".join(rng.choice(words) for _ in range(rng.randint(100, 400))),
            date=start_day + datetime.timedelta(hours=4 * n), places=[f"Clients › Client {n % 50}"],
        ))
        if len(batch) == 3000:
            index.put(org, batch)
            batch = []
    index.put(org, batch)
    return time.perf_counter() - began


def median_ms(fn) -> float:
    fn()  # warm the caches once, as a running server's would be
    samples = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    from core.models import Organization
    from search.models import SearchItem
    from search.selectors import Filters, search

    call_command("migrate", verbosity=0)
    org = Organization.objects.filter(name="search-bench").first()
    if org is None:
        _, org, _ = make_workspace("search-bench")
        org.owner_email = OWNER
        org.save()
        seconds = load(org)
    else:  # SQLITE_PATH or DATABASE_URL of an earlier run: measure its copy again
        seconds = None
    rows = SearchItem.objects.filter(organization=org).count()
    with connection.cursor() as cursor:
        # As a running server's database would be: statistics gathered, and on PostgreSQL the visibility map set
        # (autovacuum's work), so a COUNT(*) may read the index alone.
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")

    def plain_count():
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM search_searchitem WHERE organization_id = %s", [org.id.hex
                           if connection.vendor == "sqlite" else org.id])
            cursor.fetchone()

    baseline = median_ms(plain_count)
    cases = [
        ("a common word (invoice)", Filters(query="invoice")),
        ("an identifier (PO 4471)", Filters(query="PO 4071")),
        ("two words, newest first", Filters(query="invoice logo", sort="newest")),
        ("sent mail from people since a date (the use case)", Filters(dir="sent", bulk=False, after="2025-01-01",
                                                                        limit=20)),
        ("from one person", Filters(sender=["person3@client3.test"])),
        ("everything, newest first", Filters()),
    ]
    vendor = connection.vendor
    copied = f"copied in {seconds:.0f} s ({rows / seconds:,.0f} items/s)" if seconds else "copied in an earlier run"
    print(f"search bench on {vendor}: {rows:,} items ({MESSAGES:,} messages, {FILES:,} files) {copied}")
    print(f"plain COUNT(*) over the table: {baseline:.2f} ms (median of {REPEAT})")
    print("| search | matches | median | x COUNT(*) |")
    print("| --- | --- | --- | --- |")
    for label, filters in cases:
        out = search(org=org, filters=filters)
        taken = median_ms(lambda f=filters: search(org=org, filters=f))
        print(f"| {label} | {out['total']:,} | {taken:.1f} ms | {taken / baseline:.1f}x |")
    related_ranking()


def related_ranking() -> None:
    """What ranking related results costs (search/embeddings.py): every candidate's sign bits against the query's,
    then the nearest 200 ranked exactly by their full vectors, at 1,536 dimensions; and for comparison every
    candidate's full vector ranked exactly (10,000 of them). The vectors are random: the time doesn't depend on what
    they say. The database's part (reading the candidates' bits) is not in it."""
    from search import embeddings

    rng = random.Random(3)
    dims = 1536
    query = [rng.uniform(-1, 1) for _ in range(dims)]
    full = [(n, embeddings.pack([rng.uniform(-1, 1) for _ in range(dims)])) for n in range(10_000)]
    for candidates in (10_000, 100_000):
        bits = [(n, rng.randbytes(dims // 8)) for n in range(candidates)]

        def rank(bits=bits):
            near = set(embeddings.shortlist(embeddings.signs(query), bits, embeddings.SHORTLIST))
            embeddings.nearest(embeddings.unpack(embeddings.pack(query)), [r for r in full if r[0] in near], 15, -1.0)

        print(f"related results: {candidates:,} candidates of {dims} dimensions, bits then the nearest "
              f"{embeddings.SHORTLIST} exactly: {median_ms(rank):.0f} ms (median)")
    exact = median_ms(lambda: embeddings.nearest(embeddings.unpack(embeddings.pack(query)), full, 15, -1.0))
    print(f"related results: 10,000 candidates of {dims} dimensions, every full vector exactly: {exact:.0f} ms")


if __name__ == "__main__":
    main()
