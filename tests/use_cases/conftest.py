from tests.agents.conftest import model, staff  # noqa: F401  (fixtures shared with the agents tests)
