"""A request budget shared by every process: at most `limit` requests in any `per` seconds (EDGAR asks for no more
than 10 a second from one user, whatever number of processes make them).

The budget is one database row (`RateWindow`) holding the times of the newest `limit` requests. Taking a turn is a
compare-and-set on its version: read the row, and if the oldest of those times is more than `per` seconds ago,
write the new list where the version is still the one read. A process that lost the race reads again; one that
finds the budget spent waits until the oldest time leaves the window. No row lock is held and no transaction stays
open while waiting, so this works the same on SQLite and PostgreSQL, across workers and machines.

The clock and the sleep are parameters, so tests drive time without waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from research.models import RateWindow


class RateBudgetSpent(Exception):
    """Waiting for a turn would take longer than the caller allows."""

    def __init__(self, wait: float):
        super().__init__(f"the request budget frees up in {wait:.2f} s")
        self.wait = wait


@dataclass
class SharedRateLimit:
    name: str
    limit: int = 10
    per: float = 1.0
    clock: Callable[[], float] = time.time  # wall-clock: every process must read the same time
    sleep: Callable[[float], None] = time.sleep
    max_wait: float = 30.0
    # Tries at the compare-and-set before giving up; each lost try means another process took a turn.
    max_races: int = 1000
    waited: list[float] = field(default_factory=list)

    def acquire(self) -> None:
        """Take one turn, waiting (with `sleep`) while the budget is spent."""
        total_wait = 0.0
        for _ in range(self.max_races):
            wait = self._try_take()
            if wait is None:
                return
            if wait == 0.0:
                continue  # another process took a turn between our read and write: read again
            total_wait += wait
            if total_wait > self.max_wait:
                raise RateBudgetSpent(wait)
            self.waited.append(wait)
            self.sleep(wait)
        raise RateBudgetSpent(self.per)

    def _try_take(self) -> float | None:
        """None when a turn was taken; else how long until one frees up (0 after losing a race: read again)."""
        row = self._row()
        now = self.clock()
        recent = [t for t in row.times if now - t < self.per]
        if len(recent) >= self.limit:
            return max(recent[-self.limit] + self.per - now, 0.001)
        times = (recent + [now])[-self.limit:]
        with transaction.atomic():
            won = RateWindow.objects.filter(name=self.name, version=row.version).update(
                times=times, version=row.version + 1
            )
        return None if won else 0.0

    def _row(self) -> RateWindow:
        row = RateWindow.objects.filter(name=self.name).first()
        if row is not None:
            return row
        try:
            with transaction.atomic():
                return RateWindow.objects.create(name=self.name, times=[], version=0)
        except IntegrityError:  # another process made it first
            return RateWindow.objects.get(name=self.name)
