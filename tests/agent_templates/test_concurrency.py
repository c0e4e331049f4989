"""Two presses of Add on the same ask (two tabs, a double click), at the same moment, add the template once."""

import pytest

from agent_templates import services
from agents.models import Agent
from core.actors import Actor
from core.errors import ToolError
from core.models import Change
from routines.models import Routine, Skill
from tests.concurrency import all_at_once, in_a_thread, threads_on_a_file
from tests.factories import AgentFactory, OrganizationFactory

PRESSES = 4


@pytest.fixture
def workspace(transactional_db):
    org = OrganizationFactory(name="Fernhill Studio", owner_name="Sam Rivera")
    AgentFactory(organization=org, name="Roadstar", is_roadstar=True)
    return org


def test_answering_the_same_ask_at_once_adds_it_once(workspace):
    asker = AgentFactory(organization=workspace, name="Client desk")
    card, _ = services.template_propose_add(org=workspace, actor=Actor.for_agent(asker),
                                            template_id="roadstar/bookkeeper", answers={}, under=None, to=None,
                                            why="fits")
    answers = {"accountant": "Priya Shah", "pay_how": "bank transfer"}
    with threads_on_a_file():
        results = all_at_once([
            (lambda: services.template_add(org=workspace, user=workspace.owner, card_id=card.id, answers=answers,
                                           place="Roadstar"))
            for _ in range(PRESSES)
        ])
        counts = in_a_thread(lambda: (
            Agent.objects.filter(organization=workspace, name="Bookkeeper").count(),
            Skill.objects.filter(organization=workspace).count(),
            Routine.objects.filter(organization=workspace).count(),
            Change.objects.filter(organization=workspace, tool="templates.add").count(),
        ))
    added = [r for r in results if isinstance(r, Change)]
    refused = [r for r in results if isinstance(r, ToolError)]
    assert len(added) == 1, results
    assert len(refused) == PRESSES - 1 and all(r.kind == "changed" for r in refused), results
    assert counts == (1, 2, 3, 1)
