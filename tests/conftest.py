"""Fixtures that build on each other: org -> agent -> ctx, and the same for a second, unrelated workspace."""

import os
import shutil
import tempfile

import pytest

from core.actors import Actor
from core.context import ToolContext
from tests.factories import AgentFactory, OrganizationFactory
from tools.pipeline import use_tool


@pytest.fixture(autouse=True)
def no_network_in_a_transaction(settings):
    """A network call (an app, the model, SMTP) made with a transaction open fails the test (roadstar/network.py)."""
    settings.ROADSTAR_NETWORK_GUARD = "raise"


@pytest.fixture(autouse=True)
def files_on_disk(settings, tmp_path_factory):
    """The local files' bytes go to a folder of the test's own, never to var/files."""
    settings.ROADSTAR_FILES_ROOT = str(tmp_path_factory.mktemp("files"))


@pytest.fixture(autouse=True)
def workspace_on_disk(settings):
    """The agents' workspace folders go to a folder of the test's own, never to var/workspace. Not under pytest's
    own temporary folder: as root, runs are made as another user, who must be able to reach the folders."""
    root = tempfile.mkdtemp(prefix="roadstar-test-workspace-")
    os.chmod(root, 0o711)
    settings.WORKSPACE_ROOT = root
    # Each pytest-xdist worker has a database of its own, whose first workspace gets the first run user: users of
    # their own per worker, so one worker's fork bomb never uses up another's process budget.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    settings.WORKSPACE_UID_BASE = 200_000 + 10_000 * (int(worker) if worker.isdigit() else 0)
    yield
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def org(db):
    organization = OrganizationFactory(name="Fernhill Studio", owner_name="Sam Rivera", owner_email="sam@fernhill.test")
    AgentFactory(organization=organization, name="Roadstar", is_roadstar=True, job="Chief of staff")
    return organization


@pytest.fixture
def agent(org):
    return AgentFactory(organization=org, name="Client desk")


@pytest.fixture
def ctx(org, agent):
    """A thread of Client desk's, in a workspace whose owner turned the check off: tools run as asked."""
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    return ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-1")


@pytest.fixture
def owner_says(org, agent):
    """A checked context: the check reads the owner's words given here. `owner_says("Set Dana's …")`."""

    def make(*words: str) -> ToolContext:
        turns = [{"role": "owner", "text": w} for w in words]
        return ToolContext(
            org=org, actor=Actor.for_agent(agent), conversation_id="thread-2", conversation=lambda: turns
        )

    return make


@pytest.fixture
def other_org(db):
    organization = OrganizationFactory(name="Other Studio", owner_name="Alex Stone")
    AgentFactory(organization=organization, name="Roadstar", is_roadstar=True)
    return organization


@pytest.fixture
def use(ctx):
    """`use("contacts.create", name="Dana")`: run a tool through use_tool in ctx, as a thread would.

    Pass `_ctx=` to run it in another context (another workspace, a checked conversation).
    """

    def run(_tool, _ctx=None, **inp):
        return use_tool(_ctx or ctx, _tool, inp)

    return run
