"""A throwaway tool for running code through use_tool, as a provider-backed tool would (with no transaction open,
unless `calls_apps=False`), removed after the test."""

import pytest

from tools import registry
from tools.registry import Tool, ToolInput


class ProbeInput(ToolInput):
    pass


@pytest.fixture
def probe_tool():
    added = []

    def add(run, name="integrations.probe", calls_apps=True):
        registry.register(Tool(name=name, description="A probe", input=ProbeInput, run=run, kind="reads",
                               calls_apps=calls_apps))
        added.append(name)

    yield add
    for name in added:
        registry.TOOLS.pop(name, None)
