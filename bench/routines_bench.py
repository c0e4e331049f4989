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


def events_per_second(org, events=300) -> float:
    from routines import engine
    from routines.models import Event

    # One event in ten is from a client a routine listens for; the rest match nothing, as most mail doesn't.
    rows = [Event(organization=org, kind="mail.received",
                  keys=["kind:mail.received", f"from:{'client' if i % 10 == 0 else 'someone'}{i % 10}@x.test"])
            for i in range(events)]
    Event.objects.bulk_create(rows)
    start = time.perf_counter()
    for event in rows:
        engine.match_event(event)
    return events / (time.perf_counter() - start)


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


def run(report):
    _, small_org, small_agent = _workspace("routines-small")
    _, big_org, big_agent = _workspace("routines-big")
    _key_routines(small_org, small_agent, 10)
    _key_routines(big_org, big_agent, 10_000)
    small_rate, big_rate = events_per_second(small_org), events_per_second(big_org)
    report("## Routines\n")
    report("| measure | baseline (10 routines) | 10,000 routines | target |")
    report("| --- | ---: | ---: | --- |")
    report(f"| events matched per second (keys) | {small_rate:,.0f} | {big_rate:,.0f} | over 1,000 |")
    _, tick_small_org, tick_small_agent = _workspace("tick-small")
    _, tick_big_org, tick_big_agent = _workspace("tick-big")
    small_tick = tick_time(tick_small_org, tick_small_agent, 10)
    big_tick = tick_time(tick_big_org, tick_big_agent, 10_000)
    report(
        f"| one scheduler tick, nothing due (median) | {small_tick * 1000:.2f} ms | {big_tick * 1000:.2f} ms | under "
        "200 ms |"
    )
    report(
        f"\nRatios, 10,000 against the baseline: matching {small_rate / big_rate:.2f}x slower, tick "
        f"{big_tick / small_tick:.2f}x.\n"
    )
