"""Routines: events matched per second against 10,000 routines with keys, and one tick over 10,000 `at` routines.

Baselines in the same run: matching against 10 routines, and a tick over 10 routines.
"""

from __future__ import annotations

import datetime
import statistics
import time

from django.utils import timezone


def _workspace(name):
    from bench.common import make_workspace

    return make_workspace(name)


def _key_routines(org, agent, count):
    from routines.models import Routine, RoutineKey

    routines = Routine.objects.bulk_create(
        [
            Routine(organization=org, agent=agent, name=f"Client {i}", keys=[f"from:client{i}@x.test"])
            for i in range(count)
        ],
        batch_size=2000,
    )
    RoutineKey.objects.bulk_create(
        [RoutineKey(organization=org, routine=r, key=r.keys[0]) for r in routines], batch_size=2000
    )


def _events(org, count):
    from routines.models import Event

    # One event in ten is from a client a routine listens for (it fires that routine); the rest match nothing, as
    # most mail doesn't. "Matched" means match_event is done with it: fired what listens, or marked it heard by none.
    rows = [Event(organization=org, kind="mail.received",
                  keys=["kind:mail.received", f"from:{'client' if i % 10 == 0 else 'someone'}{i % 10}@x.test"])
            for i in range(count)]
    Event.objects.bulk_create(rows)
    return rows


def events_per_second(org, events=300) -> float:
    from routines import engine

    rows = _events(org, events)
    start = time.perf_counter()
    for event in rows:
        engine.match_event(event)
    return events / (time.perf_counter() - start)


def queries_per_event(org, events=100) -> float:
    """Statements per event in the same mix, BEGIN and COMMIT included."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from routines import engine

    rows = _events(org, events)
    with CaptureQueriesContext(connection) as queries:
        for event in rows:
            engine.match_event(event)
    return len(queries.captured_queries) / events


def tick_time(org, agent, count, repeat=15) -> float:
    from routines import engine
    from routines.models import Routine

    later = timezone.now() + datetime.timedelta(days=3)
    Routine.objects.bulk_create(
        [Routine(organization=org, agent=agent, name=f"At {i}", at="0 9 * * 1", next_at_time=later, next_fire_at=later)
         for i in range(count)],
        batch_size=2000,
    )
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        engine.tick()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run(report, reps: int = 5):
    _, small_org, small_agent = _workspace("routines-small")
    _, big_org, big_agent = _workspace("routines-big")
    _key_routines(small_org, small_agent, 10)
    _key_routines(big_org, big_agent, 10_000)
    events_per_second(small_org, events=50)  # warm: the code paths of a fire (the thread, the work) loaded
    events_per_second(big_org, events=50)
    # Interleaved, the order swapped each repetition, so a change in the machine's load falls on both alike.
    small_rates, big_rates = [], []
    for rep in range(reps):
        pair = [(small_org, small_rates), (big_org, big_rates)]
        for org, rates in pair if rep % 2 == 0 else reversed(pair):
            rates.append(events_per_second(org))
    ratios = [small / big for small, big in zip(small_rates, big_rates, strict=True)]

    def spread(rates):
        return f"{statistics.median(rates):,.0f} ({min(rates):,.0f}–{max(rates):,.0f})"

    report("## Routines\n")
    report(f"Events matched per second: {reps} repetitions of 300 events each, interleaved; median (min–max).\n")
    report("| measure | baseline (10 routines) | 10,000 routines | target |")
    report("| --- | ---: | ---: | --- |")
    report(f"| events matched per second (keys) | {spread(small_rates)} | {spread(big_rates)} | over 1,000 |")
    report(f"| statements per event, in the same mix | {queries_per_event(small_org):.1f} | "
           f"{queries_per_event(big_org):.1f} | |")
    _, tick_small_org, tick_small_agent = _workspace("tick-small")
    _, tick_big_org, tick_big_agent = _workspace("tick-big")
    small_tick = tick_time(tick_small_org, tick_small_agent, 10)
    big_tick = tick_time(tick_big_org, tick_big_agent, 10_000)
    report(
        f"| one scheduler tick, nothing due (median) | {small_tick * 1000:.2f} ms | {big_tick * 1000:.2f} ms | under "
        "200 ms |"
    )
    report(
        f"\nRatios, 10,000 against the baseline: matching {statistics.median(ratios):.2f}x slower "
        f"({min(ratios):.2f}–{max(ratios):.2f}x), tick {big_tick / small_tick:.2f}x.\n"
    )


if __name__ == "__main__":
    # Alone, on a fresh SQLite database in a temporary folder: python bench/routines_bench.py
    import os
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    # The settings bench/run.py uses.
    for name, value in (("DJANGO_SETTINGS_MODULE", "roadstar.settings.development"), ("SECRET_KEY", "bench-only-key"),
                        ("DEBUG", "0"), ("Q_SYNC", "1")):
        os.environ.setdefault(name, value)
    if not os.environ.get("DATABASE_URL"):
        os.environ["SQLITE_PATH"] = str(Path(tempfile.mkdtemp(prefix="roadstar-routines-")) / "db.sqlite3")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    run(print)
