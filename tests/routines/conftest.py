import pytest

from tests.agents.conftest import model, staff  # noqa: F401  (fixtures shared with the agents tests)


@pytest.fixture
def keeper(staff):
    return staff["Bookkeeper"]
