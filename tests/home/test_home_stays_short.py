"""Home stays readable: finished work is one line that opens (<details>) to its reply and links to where it
happened; work comes a page at a time with "Show earlier work"; change lines link to their record."""

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from agents import services as agent_services
from agents.models import Work
from home.selectors import WORK_PAGE
from tests.factories import AgentFactory


@pytest.fixture
def desk(org):
    return AgentFactory(organization=org, name="Client desk", job="Answers new and current clients")


@pytest.fixture
def owner(client, org):
    client.force_login(org.owner)
    return org.owner


def home(client, query: str = "") -> str:
    response = client.get(reverse("home") + query)
    assert response.status_code == 200
    return response.content.decode()


def _pieces(org, agent, n: int, *, done: bool = True) -> list[Work]:
    made = []
    for i in range(n):
        agent_services.owner_message_send(org=org, agent=agent, text=f"Task number {i}")
        work = Work.objects.filter(organization=org).order_by("-created_at", "-id").first()
        at = timezone.now() - datetime.timedelta(minutes=n - i)  # the last made is the newest
        Work.objects.filter(id=work.id).update(
            created_at=at, state=Work.State.ANSWERED if done else work.state, answered_at=at if done else None,
            latest_reply=f"The full reply to task {i}. " + "More words. " * 60)
        made.append(work)
    return made


def test_finished_work_is_one_line_that_opens_to_its_reply_and_its_chat(client, owner, org, desk):
    _pieces(org, desk, 1)
    html = home(client)
    item = html[html.index('data-key="work-'):]
    item = item[: item.index("</li>")]
    assert "<details" in item and "<summary" in item and "Task number 0" in item and ">done<" in item
    assert item.index("<summary") < item.index("Task number 0") < item.index("</summary>")
    reply_at = item.index("The full reply to task 0")
    assert reply_at > item.index("</summary>")  # inside the details, not on the line
    assert f'href="{reverse("chat", args=[desk.id])}"' in item and "Open the chat" in item


def test_work_comes_a_page_at_a_time(client, owner, org, desk):
    _pieces(org, desk, WORK_PAGE + 3)
    first = home(client)
    assert len(re.findall(r'data-key="work-', first)) == WORK_PAGE
    assert f"Task number {WORK_PAGE + 2}" in first and "Task number 2<" not in first
    assert f'href="?earlier={WORK_PAGE}"' in first and "Show earlier work" in first
    earlier = home(client, f"?earlier={WORK_PAGE}")
    assert len(re.findall(r'data-key="work-', earlier)) == 3
    assert "Task number 0" in earlier and "Show earlier work" not in earlier and "Newest work" in earlier
    assert len(re.findall(r'data-key="work-', home(client, "?earlier=nonsense"))) == WORK_PAGE


def test_work_still_moving_is_not_collapsed(client, owner, org, desk, settings):
    settings.MODEL_CONFIGURED = True
    agent_services.owner_message_send(org=org, agent=desk, text="Find Dana's number")
    html = home(client)
    item = html[html.index('data-key="work-'):]
    assert "<details" not in item[: item.index("</li>")] and ">up next<" in item


def test_a_project_line_links_to_the_project(client, owner, org):
    client.post("/projects/add", {"name": "Spring menu"})
    html = home(client)
    assert re.search(r'<a class="line__link" href="/docs/\?project=[0-9a-f-]+">You started the project Spring menu',
                     html)
