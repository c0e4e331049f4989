"""One registry mechanism (core.registry): typed entries, duplicates refused, every app's hooks module found by
convention, and every kind of extension Roadstar has registered through it when Django has loaded the apps."""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass

import pytest
from django.apps import AppConfig, apps

from core.registry import HOOKS, Registry, RegistryError, autodiscover


@dataclass(frozen=True)
class Card:
    name: str
    words: str


@dataclass(frozen=True)
class Other:
    name: str


def test_entries_are_read_as_a_mapping_in_the_order_they_came():
    cards = Registry("card", Card)
    cards.add(Card("b", "second letter"))
    cards.add(Card("a", "first letter"))
    assert list(cards) == ["b", "a"] and cards["a"].words == "first letter"
    assert "b" in cards and cards.get("c") is None and len(cards) == 2


def test_a_key_registered_twice_is_refused_and_the_first_stands():
    cards = Registry("card", Card)
    cards.add(Card("held", "the first"))
    with pytest.raises(RegistryError, match="card 'held' is registered twice"):
        cards.add(Card("held", "the second"))
    assert cards["held"].words == "the first"


def test_an_entry_of_another_type_is_refused():
    cards = Registry("card", Card)
    with pytest.raises(RegistryError, match="registered as a Card"):
        cards.add(Other("x"))  # type: ignore[arg-type]
    assert not cards


def test_the_entry_type_must_be_a_frozen_dataclass():
    @dataclass
    class Loose:
        name: str

    with pytest.raises(TypeError, match="frozen dataclass"):
        Registry("loose", Loose)


def test_a_key_of_its_own():
    cards = Registry("card", Card, key=lambda card: card.words)
    cards.add(Card("a", "same words"))
    with pytest.raises(RegistryError, match="'same words' is registered twice"):
        cards.add(Card("b", "same words"))


def test_a_single_registry_holds_one_entry_under_any_key():
    model = Registry("model", Other, single=True)
    assert model.only() is None
    model.add(Other("first"))
    with pytest.raises(RegistryError, match="there is one at most"):
        model.add(Other("second"))
    assert model.only() == Other("first")


def test_a_tests_copy_leaves_the_registry_as_it_was():
    cards = Registry("card", Card)
    cards.add(Card("a", "one"))
    cards.add(Card("b", "two"))
    replaced = cards.with_entry(Card("a", "another"))
    assert [c.words for c in replaced.values()] == ["another", "two"]  # in its place
    assert [c.words for c in cards.with_entry(Card("c", "three")).values()] == ["one", "two", "three"]
    assert list(cards.without("a")) == ["b"]
    assert [c.words for c in cards.values()] == ["one", "two"]


@pytest.fixture
def hooks_app(tmp_path, monkeypatch):
    """An installed app (on the path, in INSTALLED_APPS' configs) whose hooks.py registers into `CARDS` below."""
    monkeypatch.syspath_prepend(str(tmp_path))
    package = tmp_path / "hooksapp"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "hooks.py").write_text(
        "from tests.core.test_registry import CARDS, Card\n\nCARDS.add(Card('from_hooks', 'found by convention'))\n"
    )
    importlib.invalidate_caches()
    monkeypatch.setitem(apps.app_configs, "hooksapp", AppConfig("hooksapp", importlib.import_module("hooksapp")))
    yield
    for name in [m for m in sys.modules if m == "hooksapp" or m.startswith("hooksapp.")]:
        del sys.modules[name]


CARDS: Registry[str, Card] = Registry("card", Card)


def test_each_installed_apps_hooks_module_is_imported_once(hooks_app):
    found = autodiscover(HOOKS)
    assert "hooksapp.hooks" in found and CARDS["from_hooks"].words == "found by convention"
    autodiscover(HOOKS)  # a second walk imports nothing again, so registers nothing twice
    assert list(CARDS) == ["from_hooks"]
    CARDS.pop("from_hooks")


def test_the_apps_registered_their_extensions_when_django_loaded():
    from agents.runtime.instructions import SKILL_NAMES
    from contacts.selectors import TIMELINE_SOURCES
    from core.held import HELD_SOURCES
    from core.undo import UNDOS
    from integrations.mcp_apps_services import RESERVED_NAMES
    from integrations.signals import EVENT_RECORDER
    from research.page_services import COMMENT_LISTENERS, RESEARCH_WRITERS
    from research.table_run import TABLE_MODEL
    from tools.help.library import PAGE_SOURCES
    from tools.registry import AGENT_TOOLS, GROUPS, TOOLS, WORKSPACE_GROUPS

    assert {"agents.hooks", "integrations.hooks", "routines.hooks", "contacts.hooks",
            "agent_templates.hooks"} <= set(autodiscover(HOOKS))
    assert list(TIMELINE_SOURCES) == ["mail", "calendar"] and list(HELD_SOURCES) == ["mail"]
    assert {"contacts.owner_edit", "templates.add", "templates.share"} <= set(UNDOS)
    assert all(UNDOS[name].calls_apps for name in UNDOS if name.startswith(("files.", "calendar.")))
    for single in (SKILL_NAMES, EVENT_RECORDER, TABLE_MODEL):
        assert single.only() is not None
    assert RESEARCH_WRITERS and COMMENT_LISTENERS and PAGE_SOURCES and RESERVED_NAMES and WORKSPACE_GROUPS
    assert "contacts" in GROUPS and "contacts.find" in TOOLS and "hand_off" in AGENT_TOOLS
