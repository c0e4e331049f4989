"""Tool groups are found by convention: every module of tools/groups/ and each installed app's `tool_groups` module,
imported once when Django loads the apps, with no list to edit; a group or tool declared twice is refused."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest
from django.apps import apps

from tools import registry
from tools.registry import RegistryError

GROUP_MODULE = '''
from tools.registry import Group, Tool, ToolInput, register, register_group

register_group(Group(name="{group}", summary="a group placed by convention", how_to="Try it."))


class Nothing(ToolInput):
    pass


register(Tool(name="{group}.look", description="Looks.", input=Nothing, run=lambda ctx, inp: {{}}, kind="reads"))
'''


@pytest.fixture
def registry_copy(monkeypatch):
    """The registry as loaded, so what a test registers goes when it ends."""
    monkeypatch.setattr(registry, "GROUPS", registry.GROUPS.copy())
    monkeypatch.setattr(registry, "TOOLS", registry.TOOLS.copy())


@pytest.fixture
def make_app(tmp_path, monkeypatch):
    """An app package on the path, with a `tool_groups` module declaring `group` when given one."""
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []

    def make(name: str, group: str | None):
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text("")
        if group is not None:
            (package / "tool_groups.py").write_text(textwrap.dedent(GROUP_MODULE.format(group=group)))
        made.append(name)
        importlib.invalidate_caches()
        return importlib.import_module(name)

    yield make
    for name in made:
        for module in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
            del sys.modules[module]


def test_every_module_in_tools_groups_is_loaded_without_a_list():
    folder = Path(registry.__file__).parent / "groups"
    modules = {f"tools.groups.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__"}
    assert modules and modules <= set(sys.modules)
    assert set(registry.group_modules(apps.get_app_config("tools").module)) == modules


def test_an_app_above_tools_is_found_by_its_tool_groups_module():
    assert registry.group_modules(apps.get_app_config("agent_templates").module) == ["agent_templates.tool_groups"]
    assert "templates" in registry.GROUPS and registry.get_tool("templates.search") is not None


def test_a_group_module_placed_by_convention_is_found(registry_copy, make_app):
    app = make_app("conventionapp", "conventiontest")
    assert "conventiontest" not in registry.GROUPS
    registry.load_groups_of(app)
    assert registry.GROUPS["conventiontest"].summary == "a group placed by convention"
    assert [t.name for t in registry.tools_of("conventiontest")] == ["conventiontest.look"]


def test_an_app_without_the_module_declares_nothing(registry_copy, make_app):
    before = dict(registry.GROUPS)
    app = make_app("plainapp", None)
    assert registry.group_modules(app) == []
    registry.load_groups_of(app)
    assert registry.GROUPS == before


def test_a_group_declared_again_by_another_app_is_refused(registry_copy, make_app):
    registry.load_groups_of(make_app("firstapp", "twicegroup"))
    with pytest.raises(RegistryError, match="'twicegroup' is registered twice"):
        registry.load_groups_of(make_app("secondapp", "twicegroup"))
    assert [t.name for t in registry.tools_of("twicegroup")] == ["twicegroup.look"]


def test_a_group_that_clashes_with_a_built_one_is_refused(registry_copy, make_app):
    with pytest.raises(RegistryError, match="'contacts' is registered twice"):
        registry.load_groups_of(make_app("clashapp", "contacts"))


def test_loading_again_registers_nothing_twice(monkeypatch):
    tools = dict(registry.TOOLS)
    registry.load_all()
    monkeypatch.setattr(registry, "_loaded", False)  # even walking the apps again: each module is imported once
    registry.load_all()
    assert registry.TOOLS == tools
