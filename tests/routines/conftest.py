import pytest

from tests.agents.conftest import model, staff  # noqa: F401  (fixtures shared with the agents tests)


@pytest.fixture
def keeper(staff):  # noqa: F811  (the pytest fixture imported above)
    return staff["Bookkeeper"]
