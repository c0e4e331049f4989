"""One way to register an extension: a typed registry per kind, filled from each app's own module by convention.

A kind of extension (a tool group, an undo, a line Home holds, a timeline source, a research hook, …) is one
`Registry` made in the module of the layer that reads it, with its own entry type, a frozen dataclass. Apps
register into it from the module the kind's convention names, imported once per process while Django loads the
apps, so no list anywhere names them (as Django's admin finds every `admin.py` and Wagtail every `wagtail_hooks.py`):

- `<app>/hooks.py`: what an app hands the layers below it (research's writer, routines' event recorder, the mail
  app's held lines). CoreConfig.ready imports every installed app's, with `autodiscover(HOOKS)`.
- `<app>/tool_groups.py`, `<app>/agent_tools.py` and `tools/groups/*.py`: tools (ToolsConfig.ready, tools.registry).
- `integrations/providers/**`: the owner's apps' providers (integrations.providers.registry, on first lookup).

A registry in a low layer filled by an app above it is how every import runs downward (tests/test_layers.py): the
low layer calls what it is handed and never names the app that handed it.

A second entry under a key is refused (RegistryError), and so is an entry of the wrong type: two apps declaring
one name is a mistake to see at start, not a silent last-one-wins. A registry that holds one entry at most (`single`:
the model a research table calls) refuses a second under any key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterator, Mapping
from importlib import import_module
from typing import Generic, TypeVar

from django.apps import apps
from django.utils.module_loading import module_has_submodule

K = TypeVar("K", bound=Hashable)
E = TypeVar("E")

# The module every installed app may have, holding what it registers into the registries of the layers below it.
HOOKS = "hooks"


class RegistryError(Exception):
    """A registration that can't stand: a key taken, an entry of the wrong type."""


class Registry(Mapping[K, E], Generic[K, E]):
    """The entries of one kind, by key, in the order they were registered.

    It reads as a mapping (`get`, `in`, `values()`); `add` is the one way in. `kind` names it in errors ("tool",
    "undo"), `entry` is the frozen dataclass its entries are, and `key` gives an entry's key (its `name` unless told).
    """

    def __init__(self, kind: str, entry: type[E], *, key: Callable[[E], K] | None = None, single: bool = False):
        if not (dataclasses.is_dataclass(entry) and entry.__dataclass_params__.frozen):  # type: ignore[attr-defined]
            raise TypeError(f"the {kind} registry's entry type {entry.__name__} must be a frozen dataclass")
        self.kind = kind
        self.entry = entry
        self._key: Callable[[E], K] = key if key is not None else (lambda e: e.name)  # type: ignore[attr-defined]
        self.single = single
        self._entries: dict[K, E] = {}

    def add(self, entry: E) -> E:
        """Register `entry`; refused if it isn't this kind's entry type, or its key is taken."""
        if not isinstance(entry, self.entry):
            raise RegistryError(f"a {self.kind} is registered as a {self.entry.__name__}, not {entry!r}")
        key = self._key(entry)
        if key in self._entries:
            raise RegistryError(f"{self.kind} {key!r} is registered twice")
        if self.single and self._entries:
            there = next(iter(self._entries))
            raise RegistryError(f"a {self.kind} is registered already ({there!r}); there is one at most")
        self._entries[key] = entry
        return entry

    def only(self) -> E | None:
        """The entry of a registry that holds one at most, or None while none is registered."""
        return next(iter(self._entries.values()), None)

    def __getitem__(self, key: K) -> E:
        return self._entries[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"<Registry {self.kind}: {list(self._entries)!r}>"

    # --- for tests: a registry as loaded, with a test's entries in it, put back when the test ends -----------------

    def copy(self) -> Registry[K, E]:
        """A registry of the same kind with the same entries: a test registers into it and throws it away."""
        other: Registry[K, E] = Registry(self.kind, self.entry, key=self._key, single=self.single)
        other._entries = dict(self._entries)
        return other

    def with_entry(self, entry: E) -> Registry[K, E]:
        """A copy in which `entry` stands in for the one under its key, in its place (or is added): what a test puts
        in place with `monkeypatch.setattr(module, "NAME", NAME.with_entry(...))`."""
        other = self.copy()
        key = self._key(entry)
        if key in other._entries:
            if not isinstance(entry, self.entry):
                raise RegistryError(f"a {self.kind} is registered as a {self.entry.__name__}, not {entry!r}")
            other._entries[key] = entry
            return other
        if self.single:
            other._entries.clear()
        other.add(entry)
        return other

    def without(self, *keys: K) -> Registry[K, E]:
        """A copy without the entries under `keys`: a test's Roadstar that lacks them."""
        other = self.copy()
        for key in keys:
            del other._entries[key]
        return other

    def pop(self, key: K, default: E | None = None) -> E | None:
        """Take an entry out (a test's own, when it ends); the code never unregisters."""
        return self._entries.pop(key, default)


def autodiscover(module: str) -> list[str]:
    """Import the module `module` of every installed app that has one, in INSTALLED_APPS order; each registers what
    it declares as it is imported. Python imports a module once, so a second call registers nothing twice.
    Returns the modules' names."""
    found = []
    for config in apps.get_app_configs():
        if config.module is not None and module_has_submodule(config.module, module):
            name = f"{config.name}.{module}"
            import_module(name)
            found.append(name)
    return found
