"""dispatch: a conversation is claimed together with the worker task that runs it, or not at all."""

import pytest
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ

from agents import services
from agents.models import Conversation
from agents.runtime import scheduler


class WorkerDied(BaseException):
    """The web process killed between the claim and its task (nothing after it runs)."""


@pytest.fixture
def queued(org, staff):
    """A chat with something to act on, waiting for a dispatch."""
    chat = services.chat_for(agent=staff["Client desk"])
    Conversation.objects.filter(id=chat.id).update(state=Conversation.State.QUEUED, queued_at=timezone.now())
    return chat


def test_a_claim_commits_with_its_task(org, queued, monkeypatch):
    monkeypatch.setattr(Conf, "SYNC", False)  # as the web runs it: the task goes to django-q2's queue
    assert scheduler.dispatch(org_id=org.id) == [str(queued.id)]
    assert Conversation.objects.get(id=queued.id).state == Conversation.State.RUNNING
    assert OrmQ.objects.count() == 1


def test_a_process_that_dies_before_the_task_is_queued_leaves_the_conversation_queued(org, queued, monkeypatch):
    monkeypatch.setattr(Conf, "SYNC", False)

    def dies(*args, **kwargs):
        raise WorkerDied()

    monkeypatch.setattr("django_q.tasks.async_task", dies)
    with pytest.raises(WorkerDied):
        scheduler.dispatch(org_id=org.id)
    # Not left `running` with no task to run it: the minute's sweep (dispatch_all) claims it again.
    assert Conversation.objects.get(id=queued.id).state == Conversation.State.QUEUED
    assert OrmQ.objects.count() == 0
