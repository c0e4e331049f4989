import pytest

from agents.runtime.model import ScriptedModel, set_model
from tests.factories import AgentFactory


@pytest.fixture
def model():
    """The scripted model, in place of any configured one, for the length of a test."""
    scripted = ScriptedModel()
    set_model(scripted)
    yield scripted
    set_model(None)


@pytest.fixture
def staff(org):
    """Fernhill Studio's agents besides Roadstar (the org fixture makes Roadstar)."""
    return {
        "Client desk": AgentFactory(organization=org, name="Client desk",
                                    job="Answers new and current clients, and keeps Contacts and Companies up to date"),
        "Proposal writer": AgentFactory(organization=org, name="Proposal writer",
                                        job="Prices and writes proposals and quotes from the rate card"),
        "Bookkeeper": AgentFactory(organization=org, name="Bookkeeper",
                                   job="Sends invoices on time and chases what's overdue"),
    }
