"""core.queue.others_waiting: the queue's rows say whether a task waits behind the running one."""

import pytest
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ

from core import queue


@pytest.fixture
def one_async_worker(monkeypatch):
    monkeypatch.setattr(Conf, "WORKERS", 1)
    monkeypatch.setattr(Conf, "SYNC", False)


def _queued():
    OrmQ.objects.create(key=Conf.PREFIX, payload="x", lock=timezone.now())


@pytest.mark.django_db
def test_the_running_task_alone_is_not_someone_waiting(one_async_worker):
    assert not queue.others_waiting()
    _queued()  # the running task's own row, acknowledged when it ends
    assert not queue.others_waiting()


@pytest.mark.django_db
def test_a_second_row_is_a_task_waiting(one_async_worker):
    _queued()
    _queued()
    assert queue.others_waiting()


@pytest.mark.django_db
def test_another_queue_s_rows_are_not_ours(one_async_worker):
    _queued()
    OrmQ.objects.create(key="another-cluster", payload="x", lock=timezone.now())
    assert not queue.others_waiting()


@pytest.mark.django_db
def test_with_more_workers_another_one_takes_it(one_async_worker, monkeypatch):
    monkeypatch.setattr(Conf, "WORKERS", 4)
    _queued()
    _queued()
    assert not queue.others_waiting()
