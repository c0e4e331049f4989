"""The provider registry: providers register themselves, duplicates and incomplete ones are refused."""

import pytest

from core.errors import ToolError
from integrations.providers import registry
from integrations.providers.base import Hit, MailProvider, Meeting
from integrations.providers.registry import ProviderRegistryError, provider_for, register_provider
from tests.integrations.fakes import complete_provider, providers


@pytest.fixture
def empty():
    with providers() as table:
        yield table


def test_a_registered_provider_is_found_for_its_connection(empty, google):
    cls = register_provider("google", "mail", complete_provider("mail"))
    found = provider_for(google, "mail")
    assert isinstance(found, cls) and found.connection == google and found.source == "sam@fernhill.test"


def test_provider_for_passes_options_to_the_provider(empty, google):
    register_provider("google", "mail", complete_provider("mail"))
    assert provider_for(google, "mail", http="fake").options == {"http": "fake"}


def test_registering_an_app_and_group_twice_is_refused(empty):
    register_provider("google", "mail", complete_provider("mail"))
    with pytest.raises(ProviderRegistryError, match="twice"):
        register_provider("google", "mail", complete_provider("mail", name="Other"))


def test_a_provider_missing_a_method_is_refused(empty):
    incomplete = type("Half", (MailProvider,), {"search": lambda self, *a, **k: None})
    with pytest.raises(ProviderRegistryError, match="doesn't implement"):
        register_provider("google", "mail", incomplete)


def test_a_provider_of_another_groups_class_is_refused(empty):
    with pytest.raises(ProviderRegistryError, match="must subclass MailProvider"):
        register_provider("google", "mail", complete_provider("files"))


def test_a_group_the_app_does_not_serve_is_refused(empty):
    with pytest.raises(ProviderRegistryError, match="doesn't serve"):
        register_provider("quickbooks", "mail", complete_provider("mail"))


def test_an_unknown_app_is_refused(empty):
    with pytest.raises(ProviderRegistryError, match="unknown app"):
        register_provider("dropbox", "files", complete_provider("files"))


def test_registering_names_the_class_with_its_app_and_group(empty):
    cls = register_provider("local", "files", complete_provider("files"))
    assert (cls.app, cls.group) == ("local", "files")


def test_a_group_not_built_for_the_app_is_unsupported(empty, google):
    with pytest.raises(ToolError) as caught:
        provider_for(google, "calendar")
    assert (caught.value.kind, caught.value.message) == (
        "unsupported", "Google Calendar isn't built into this Roadstar yet, so calendar can't use it."
    )


def test_a_group_the_connection_does_not_serve_is_not_found(empty, quickbooks):
    register_provider("google", "mail", complete_provider("mail"))
    with pytest.raises(ToolError) as caught:
        provider_for(quickbooks, "mail")
    assert caught.value.kind == "not_found"


def test_every_module_under_providers_is_imported_on_first_lookup(monkeypatch):
    imported = []
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry.importlib, "import_module", lambda name: imported.append(name))
    registry.load_providers()
    assert {"integrations.providers.base", "integrations.providers.registry"} <= set(imported)


def test_a_global_id_carries_the_account_key(empty, google):
    register_provider("google", "files", complete_provider("files"))
    assert provider_for(google, "files").global_id("1QmR8") == f"{google.account_key}:1QmR8"


def test_a_hit_gives_the_specs_shape_with_its_source():
    import datetime

    hit = Hit(id="7c41e2d0:19a", title="Quote", type="email", url="https://mail.google.com/x", who="Dana",
              people=["dana@juniperdental.test"], date=datetime.datetime(2026, 11, 10, 15, 12, tzinfo=datetime.UTC))
    assert hit.as_result(source="sam@fernhill.test") == {
        "id": "7c41e2d0:19a", "title": "Quote", "type": "email", "url": "https://mail.google.com/x", "who": "Dana",
        "people": ["dana@juniperdental.test"], "date": "2026-11-10T15:12:00Z", "source": "sam@fernhill.test",
    }


def test_a_meeting_gives_the_specs_calendar_item():
    import datetime

    start = datetime.datetime(2026, 11, 17, 15, tzinfo=datetime.UTC)
    meeting = Meeting(id="k:e1", title="Kickoff", start=start, end=start + datetime.timedelta(hours=1), guests=[],
                      url="https://calendar.google.com/e1")
    assert meeting.as_result()["end"] == "2026-11-17T16:00:00Z"

