"""Which class serves each (app, group): providers register themselves, and provider_for finds them.

How to add a provider: in a module under integrations/providers/ (any depth, such as
integrations/providers/google/mail.py), subclass the group's base class from providers/base.py, implement every
abstract method, and register it at import:

    register_provider("google", "mail", GmailProvider)

Every module under integrations/providers/ is imported on first lookup, so nothing else needs editing. The
registry refuses a second class for the same (app, group), an app or group the catalog doesn't know, a group the
app doesn't serve, and a class that isn't a complete provider of that group. The classes are `PROVIDERS`, a
`core.registry.Registry` of `ProviderEntry` by (app, group), as every other kind of extension is.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from typing import Literal, overload

import integrations.providers as package
from core.errors import ToolError
from core.registry import Registry, RegistryError
from integrations import catalog
from integrations.providers.base import (
    GROUP_BASES,
    BooksProvider,
    CalendarProvider,
    FilesProvider,
    MailProvider,
    Provider,
)


class ProviderRegistryError(RegistryError):
    pass


@dataclass(frozen=True)
class ProviderEntry:
    """The class that serves one app's group."""

    app: str
    group: str
    cls: type[Provider]


PROVIDERS: Registry[tuple[str, str], ProviderEntry] = Registry(
    "provider", ProviderEntry, key=lambda entry: (entry.app, entry.group))
_loaded = False


def register_provider(app: str, group: str, cls: type[Provider]) -> type[Provider]:
    if app not in catalog.APPS:
        raise ProviderRegistryError(f"unknown app {app!r}; the apps are {', '.join(catalog.APPS)}")
    if group not in GROUP_BASES:
        raise ProviderRegistryError(f"unknown group {group!r}; the groups are {', '.join(GROUP_BASES)}")
    if group not in catalog.app(app).groups:
        raise ProviderRegistryError(f"{app} doesn't serve {group}")
    base = GROUP_BASES[group]
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ProviderRegistryError(f"{cls!r} must subclass {base.__name__}")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        raise ProviderRegistryError(f"{cls.__name__} doesn't implement {missing}")
    if (app, group) in PROVIDERS:
        raise ProviderRegistryError(
            f"{app}/{group} is registered twice: {PROVIDERS[(app, group)].cls.__name__} and {cls.__name__}"
        )
    cls.app, cls.group = app, group
    PROVIDERS.add(ProviderEntry(app, group, cls))
    return cls


def load_providers() -> None:
    """Import every module under integrations/providers/, which registers its providers. Safe to call again."""
    global _loaded
    if _loaded:
        return
    for module in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
        importlib.import_module(module.name)
    _loaded = True


def registered() -> dict[tuple[str, str], type[Provider]]:
    """Every (app, group) with a provider."""
    load_providers()
    return {key: entry.cls for key, entry in PROVIDERS.items()}


# The group names the provider's base class (GROUP_BASES), so a caller gets the group's methods typed.
@overload
def provider_class(app: str, group: Literal["mail"]) -> type[MailProvider] | None: ...
@overload
def provider_class(app: str, group: Literal["files"]) -> type[FilesProvider] | None: ...
@overload
def provider_class(app: str, group: Literal["calendar"]) -> type[CalendarProvider] | None: ...
@overload
def provider_class(app: str, group: Literal["books"]) -> type[BooksProvider] | None: ...
@overload
def provider_class(app: str, group: str) -> type[Provider] | None: ...
def provider_class(app: str, group: str) -> type[Provider] | None:
    load_providers()
    entry = PROVIDERS.get((app, group))
    return entry.cls if entry is not None else None


@overload
def provider_for(connection, group: Literal["mail"], **options) -> MailProvider: ...
@overload
def provider_for(connection, group: Literal["files"], **options) -> FilesProvider: ...
@overload
def provider_for(connection, group: Literal["calendar"], **options) -> CalendarProvider: ...
@overload
def provider_for(connection, group: Literal["books"], **options) -> BooksProvider: ...
@overload
def provider_for(connection, group: str, **options) -> Provider: ...
def provider_for(connection, group: str, **options) -> Provider:
    """The provider of `group` for this connection. `options` go to its constructor (tests: a fake transport)."""
    if not connection.serves(group):
        raise ToolError("not_found", f"{connection.account} isn't used for {group}.")
    cls = provider_class(connection.app, group)
    if cls is None:
        label = connection.app_info.group_labels.get(group, connection.app_info.label)
        raise ToolError("unsupported", f"{label} isn't built into this Roadstar yet, so {group} can't use it.")
    return cls(connection, **options)
