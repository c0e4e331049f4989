"""EDGAR's budget (10 requests a second) shared through the database, driven by a fake clock: no real sleeping."""

import pytest

from research.models import RateWindow
from research.ratelimit import RateBudgetSpent, SharedRateLimit


class FakeTime:
    def __init__(self, start=1_764_600_000.0):
        self.now = start
        self.slept = []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def _limiter(time, **kw):
    return SharedRateLimit(name="edgar-test", limit=10, per=1.0, clock=time.clock, sleep=time.sleep, **kw)


def _most_in_any_second(times):
    times = sorted(times)
    return max(sum(1 for t in times if start <= t < start + 1.0) for start in times)


@pytest.mark.django_db
def test_ten_requests_a_second_then_it_waits():
    time = FakeTime()
    limiter = _limiter(time)
    taken = []
    for _ in range(25):
        limiter.acquire()
        taken.append(time.now)
    assert taken[:10] == [taken[0]] * 10  # the first ten go at once
    assert time.slept and _most_in_any_second(taken) == 10
    assert taken[-1] - taken[0] >= 2.0  # 25 requests need at least two more seconds


@pytest.mark.django_db
def test_two_processes_share_one_budget():
    """Two limiters (as two worker processes would hold) over one row: together never more than 10 a second."""
    time = FakeTime()
    first, second = _limiter(time), _limiter(time)
    taken = []
    for i in range(40):
        (first if i % 2 else second).acquire()
        taken.append(time.now)
    assert _most_in_any_second(taken) <= 10
    assert len(RateWindow.objects.get(name="edgar-test").times) == 10


@pytest.mark.django_db
def test_a_process_that_loses_the_race_reads_again_and_never_overspends():
    """Between one process's read and its write another takes a turn: the write's version no longer matches, so it
    reads again, and the turns taken are all counted."""
    time = FakeTime()
    other = _limiter(time)
    interfered = []

    def clock():
        if not interfered:
            interfered.append(True)
            other.acquire()  # another process takes a turn after this one read the row
        return time.now

    racing = SharedRateLimit(name="edgar-test", limit=10, per=1.0, clock=clock, sleep=time.sleep)
    racing.acquire()
    row = RateWindow.objects.get(name="edgar-test")
    assert len(row.times) == 2 and row.version == 2
    for _ in range(8):
        racing.acquire()
    assert time.slept == []  # ten turns in all: none waited
    racing.acquire()
    assert time.slept  # the eleventh waited for the window


@pytest.mark.django_db
def test_a_caller_that_cannot_wait_that_long_is_told():
    time = FakeTime()
    limiter = _limiter(time, max_wait=0.0)
    for _ in range(10):
        limiter.acquire()
    with pytest.raises(RateBudgetSpent):
        limiter.acquire()
