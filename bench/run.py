"""Benchmarks, as ratios against a baseline measured in the same run. `make bench` runs them.

1. use_tool's overhead (validation, check, Change record) for contacts.create and contacts.find, against the
   same service and result shape called directly. Target: under 2x.
2. Home's server time and query count with 10,000 Your-work lines, against the same page with 10 lines (and
   50, a full page), each workspace with 5,000 contacts. Targets: under 100 ms, a query count that does not grow
   with the data, and (issue 13) 10,000 lines within 1.2x of 10.

It runs on a fresh SQLite database in a temporary folder (or DATABASE_URL's, if set: then it must be empty).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TMP = tempfile.mkdtemp(prefix="roadstar-bench-")
os.environ.setdefault("SQLITE_PATH", str(Path(TMP) / "bench.sqlite3"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.development")
os.environ.setdefault("SECRET_KEY", "bench-only-key")
os.environ.setdefault("DEBUG", "0")  # DEBUG keeps every query in memory: not what is measured
# Worker tasks run inline, in this process, so a benchmark measures the work and not the queue.
os.environ.setdefault("Q_SYNC", "1")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402


def timed(fn, repeat: int) -> list[float]:
    samples = []
    for i in range(repeat):
        start = time.perf_counter()
        fn(i)
        samples.append(time.perf_counter() - start)
    return samples


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


from bench.common import make_workspace  # noqa: E402


def bench_use_tool(repeat: int = 300) -> list[tuple[str, float, float]]:
    from contacts import selectors, services
    from contacts.shapes import contact_record
    from core.actors import Actor
    from core.context import ToolContext
    from tools.pipeline import use_tool

    _, org, agent = make_workspace("tool-bench")
    actor = Actor.for_agent(agent)
    ctx = ToolContext(org=org, actor=actor, conversation_id="bench")

    def bare_create(i):
        with transaction.atomic():
            contact = services.contact_create(org=org, actor=actor, name=f"Bare {i}", emails=[f"bare{i}@x.test"])
            contact_record(selectors.contact_get(org=org, contact_id=contact.id))

    def tool_create(i):
        use_tool(ctx, "contacts.create", {"name": f"Tool {i}", "emails": [f"tool{i}@x.test"]})

    def bare_find(i):
        contact_record(selectors.contact_by_email(org=org, email=f"bare{i}@x.test"))

    def tool_find(i):
        use_tool(ctx, "contacts.find", {"email": f"bare{i}@x.test"})

    rows = []
    for label, bare, tool in (("contacts.create", bare_create, tool_create), ("contacts.find", bare_find, tool_find)):
        # Interleave the two so drift of the machine (caches, other load) falls on both alike.
        bare_samples, tool_samples = [], []
        for i in range(repeat):
            bare_samples += timed(lambda _: bare(i), 1)  # noqa: B023  (timed calls it at once)
            tool_samples += timed(lambda _: tool(i), 1)  # noqa: B023  (timed calls it at once)
        b, t = statistics.median(bare_samples), statistics.median(tool_samples)
        rows.append((label, b, t))
    return rows


def home_workspace(lines: int, contacts: int, label: str):
    """A workspace with `lines` Your-work lines and `contacts` contacts, and a signed-in client on its Home.

    The lines are what contacts.create and contacts.context leave: two in three a contact added (no Undo), one in
    three a Context set (Undo, with the values before and after), so a page shows Undo forms as an owner's does."""
    from core.models import Change
    from records.models import Contact

    user, org, agent = make_workspace(label)
    Contact.objects.bulk_create(
        [Contact(organization=org, name=f"Person {i}") for i in range(contacts)], batch_size=1000
    )

    def line(i: int) -> Change:
        common = dict(organization=org, actor_kind="agent", actor_id=str(agent.id), actor_name=agent.name,
                      target_type="contact", target_id=str(i))
        if i % 3 == 2:
            return Change(**common, tool="contacts.context", kind="changes", listing="home_undo",
                          sentence=f"set Person {i}'s Context: she asked for quotes by email",
                          undo={"before": {"context": ""}, "after": {"context": "Quotes by email."}})
        return Change(**common, tool="contacts.create", kind="makes", sentence=f"added Person {i} to Contacts",
                      listing="home")

    Change.objects.bulk_create([line(i) for i in range(lines)], batch_size=1000)
    client = Client(HTTP_HOST="localhost")  # development allows only this machine's names, not "testserver"
    client.force_login(user)
    client.get("/")  # warm: templates compiled, connection open
    return org, client


# Home's workspaces, alike but for their number of lines (the same contacts, agents, owner and kinds of line): the
# issue's pair (10 lines against 10,000), and a full first page (50 lines, what the big one shows) to tell the
# page's growth with the workspace from the cost of showing 40 more lines.
HOME_CONTACTS = 5_000
HOME_WORKSPACES = {"10 lines": 10, "50 lines": 50, "10,000 lines": 10_000}
HOME_BIG, HOME_BASE = "10,000 lines", "10 lines"


def bench_home(reps: int = 7, per_rep: int = 15):
    """Interleaved: each repetition asks every workspace's Home `per_rep` times (the order turned each time).
    Each request's wall time and its thread's CPU time (on SQLite the database's work runs in this thread too;
    CPU time is what a loaded machine disturbs least)."""
    from core.selectors import _lines
    from home.selectors import LINE_FIELDS

    made = {label: home_workspace(lines, HOME_CONTACTS, f"home-{lines}") for label, lines in HOME_WORKSPACES.items()}
    queries = {}
    for label, (_org, client) in made.items():
        seen = []

        def count(execute, sql, params, many, context):
            seen.append(sql)  # noqa: B023  (used at once, within this iteration)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            response = client.get("/")
        assert response.status_code == 200, response.status_code
        queries[label] = len(seen)
    wall: dict[str, list[float]] = {label: [] for label in made}
    cpu: dict[str, list[float]] = {label: [] for label in made}
    labels = list(made)
    for rep in range(reps):
        order = labels[rep % len(labels):] + labels[:rep % len(labels)]
        for label in (order if rep % 2 == 0 else list(reversed(order))):
            client = made[label][1]
            walls, cpus = [], []
            for _ in range(per_rep):
                start, start_cpu = time.perf_counter(), time.thread_time()
                client.get("/")
                cpus.append(time.thread_time() - start_cpu)
                walls.append(time.perf_counter() - start)
            wall[label].append(statistics.median(walls))
            cpu[label].append(statistics.median(cpus))
    big_org = made[HOME_BIG][0]
    sql, params = _lines(big_org, LINE_FIELDS)[:51].query.sql_with_params()  # Home's own query
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
            plan = [row[-1] for row in cursor.fetchall()]
        else:
            cursor.execute("EXPLAIN " + sql, params)
            plan = [row[0] for row in cursor.fetchall()]
    return {"wall": wall, "cpu": cpu}, queries, plan


def main():
    call_command("migrate", verbosity=0)
    print("# Roadstar benchmarks\n")
    from bench import pickup, prompts, routines_bench, step_cost, throughput, workspace_bench
    from bench.common import postgres_available

    step_cost.run(print)
    pickup.run(print)
    throughput.run(print)
    if os.environ.get("BENCH_POSTGRES", "1") == "1" and postgres_available():
        pickup.run(print, postgres=True)
        throughput.run(print, postgres=True)
    prompts.run(print)
    routines_bench.run(print)
    workspace_bench.run(print)
    print("## use_tool overhead (median of interleaved runs)\n")
    print("| tool | service called directly | through use_tool | ratio (target < 2x) |")
    print("| --- | ---: | ---: | ---: |")
    for label, bare, tool in bench_use_tool():
        print(f"| {label} | {ms(bare)} | {ms(tool)} | {tool / bare:.2f}x |")
    report_home()
    print(f"\nDatabase: {connection.vendor}; Python {sys.version.split()[0]}")


def _loaders() -> str:
    """The template loaders Home is rendered with, as the settings give them (what production uses too)."""
    from django.template import engines

    def names(loaders) -> list[str]:
        return [f"{type(x).__module__}.{type(x).__name__}" + (f"({', '.join(names(x.loaders))})"
                                                              if hasattr(x, "loaders") else "") for x in loaders]

    return ", ".join(names(engines["django"].engine.template_loaders))


def report_home(reps: int = 7):
    from django.conf import settings

    print("\n## Home\n")
    load_before = os.getloadavg()
    times, queries, plan = bench_home(reps=reps)
    load_after = os.getloadavg()
    print(f"Home interleaved, {reps} repetitions of 15 requests each; each figure the repetitions' medians, median "
          f"(min–max). Load average (1, 5, 15 min) before {load_before[0]:.2f}, {load_before[1]:.2f}, "
          f"{load_before[2]:.2f}; after {load_after[0]:.2f}, {load_after[1]:.2f}, {load_after[2]:.2f} "
          f"({os.cpu_count()} cores). Templates: {_loaders()}; DEBUG {settings.DEBUG}.\n")
    print(f"| workspace ({HOME_CONTACTS:,} contacts each) | server time | CPU time | queries |")
    print("| --- | ---: | ---: | ---: |")
    for label in times["wall"]:
        cells = [f"{ms(statistics.median(v))} ({ms(min(v))}–{ms(max(v))})" for v in (times["wall"][label],
                                                                                times["cpu"][label])]
        print(f"| {label} | {cells[0]} | {cells[1]} | {queries[label]} |")
    print()
    for kind, values in times.items():
        big = values[HOME_BIG]
        for base_label in (HOME_BASE, "50 lines"):
            ratios = [b / s for b, s in zip(big, values[base_label], strict=True)]
            print(f"- {kind}: 10,000 lines against {base_label}: {statistics.median(ratios):.2f}x "
                  f"({min(ratios):.2f}–{max(ratios):.2f}x)")
    print("\nYour work's query plan at 10,000 lines (the first page):\n")
    print("\n".join(f"    {line}" for line in plan))


if __name__ == "__main__":
    if sys.argv[1:2] == ["home"]:  # Home's section alone; `home 9` for 9 repetitions
        call_command("migrate", verbosity=0)
        report_home(reps=int(sys.argv[2]) if sys.argv[2:] else 7)
    else:
        main()
