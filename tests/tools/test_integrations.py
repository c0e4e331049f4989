"""integrations.list and integrations.connect, as a thread runs them."""

import pytest

from core.models import Card, Change
from integrations.models import Connection

# The connection fixtures live with the integrations tests; imported here, they work the same in this module.
from tests.integrations.conftest import app_settings, google, no_internet, save_google  # noqa: F401
from tests.integrations.fakes import ALL_REAL, providers
from tests.spec import spec_page, spec_tools
from tools import registry
from tools.registry import tools_of


@pytest.fixture(autouse=True)
def built():
    """Every real provider built, as in a complete Roadstar; tests that need fewer open their own registry."""
    with providers(*ALL_REAL, ("local", "mail")):
        yield


# --- the declarations against the spec ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["integrations.list", "integrations.connect"])
def test_declaration_matches_the_spec(name):
    tool, spec = registry.TOOLS[name], spec_tools()[name]
    assert (tool.description, tool.owners_yes, tool.describe()["your_work"]) == (
        spec["does"], spec["owners_yes"], spec["your_work"]
    )


def test_the_group_how_to_is_the_specs_word_for_word():
    block = spec_page("tools/integrations.md").split("## How to use it", 1)[1].split("## Tools", 1)[0]
    how_to = " ".join(line[2:] for line in block.splitlines() if line.startswith("> ")).strip()
    assert registry.GROUPS["integrations"].how_to == how_to


def test_the_group_line_is_the_catalogs():
    from tools.catalog import browse_description

    assert "- integrations: the apps the owner has connected or could connect (2)" in browse_description()


# --- list -----------------------------------------------------------------------------------------------------

OTHER_APPS = {"integration": "apps", "app": "Another app, by its MCP address"}


def test_list_with_nothing_connected_offers_every_app(use):
    result = use("integrations.list")
    assert (result["apps"], result["connected"], result["canConnect"]) == ([], [], [
        {"integration": "google", "app": "Gmail, Drive and Calendar"},
        {"integration": "microsoft", "app": "OneDrive"},
        {"integration": "quickbooks", "app": "QuickBooks Online"},
        OTHER_APPS,  # any app with an MCP address, always
    ])


def test_list_has_nothing_not_yet_once_every_app_the_spec_names_is_built(use):
    # OneDrive was the last (integrations/providers/onedrive.py).
    assert use("integrations.list")["notYet"] == []


def test_list_shows_a_connected_account_without_a_status(use, google):  # noqa: F811  (the pytest fixture imported above)
    assert use("integrations.list")["connected"] == [{"integration": "google", "account": "sam@fernhill.test"}]


def test_list_shows_each_group_of_a_connected_app_with_its_tool_count(use, google):  # noqa: F811  (the pytest fixture imported above)
    assert use("integrations.list")["apps"] == [
        {"name": "mail", "app": "Gmail", "tools": len(tools_of("mail"))},
        {"name": "files", "app": "Google Drive", "tools": len(tools_of("files"))},
        {"name": "calendar", "app": "Google Calendar", "tools": len(tools_of("calendar"))},
    ]


def test_list_no_longer_offers_a_connected_app(use, google):  # noqa: F811  (the pytest fixture imported above)
    assert [c["integration"] for c in use("integrations.list")["canConnect"]] == ["microsoft", "quickbooks", "apps"]


def test_list_shows_a_stopped_connection_with_its_status(use, google):  # noqa: F811  (the pytest fixture imported above)
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    assert use("integrations.list")["connected"][0]["status"] == "needs_reconnect"


def test_list_offers_an_app_again_once_its_connection_is_removed(use, google):  # noqa: F811  (the pytest fixture imported above)
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.REMOVED)
    result = use("integrations.list")
    assert (result["apps"], [c["integration"] for c in result["canConnect"]]) == (
        [], ["google", "microsoft", "quickbooks", "apps"])


def test_list_shows_local_connections(use, org):
    from integrations.services import connection_create_local

    connection_create_local(org=org, account="Fernhill Studio", groups=["mail"])
    result = use("integrations.list")
    assert (result["connected"], result["apps"][0]["app"]) == (
        [{"integration": "local", "account": "Fernhill Studio"}], "Roadstar's mailbox"
    )


def test_list_puts_an_app_with_no_provider_built_in_not_yet(use):
    with providers(("google", "mail")):
        result = use("integrations.list")
    assert (result["canConnect"], result["notYet"]) == (
        [{"integration": "google", "app": "Gmail, Drive and Calendar"}, OTHER_APPS],
        ["Google Drive", "Google Calendar", "OneDrive", "QuickBooks Online"],
    )


def test_list_never_shows_another_workspaces_connections(use, other_org, app_settings):  # noqa: F811
    save_google(other_org, account="alex@other.test")
    assert use("integrations.list")["connected"] == []


def test_list_takes_no_input(use):
    result = use("integrations.list", app="google")
    assert result["error"] == "bad_input" and result["message"].startswith("app:")


# --- connect --------------------------------------------------------------------------------------------------


def test_connect_puts_a_connect_card_on_home(use, org):
    use("integrations.connect", integration="google", why="to read Dana's enquiry")
    card = Card.objects.get(organization=org)
    assert (card.kind, card.title, card.action_url, card.resolved_at) == (
        "connect", "Connect Gmail, Drive and Calendar", "/connections/google/", None
    )


def test_connect_returns_the_cards_text_with_the_why(use):
    assert use("integrations.connect", integration="google", why="to read Dana's enquiry") == {
        "card": "Connect Gmail, Drive and Calendar: to read Dana's enquiry"
    }


def test_connect_without_why_returns_the_cards_title(use):
    assert use("integrations.connect", integration="quickbooks") == {"card": "Connect QuickBooks Online"}


def test_the_card_says_who_asked_and_why(use, org, agent):
    use("integrations.connect", integration="google", why="to read Dana's enquiry")
    card = Card.objects.get(organization=org)
    assert (card.body, card.data["asked_by"]) == (
        "Client desk: to read Dana's enquiry", {"agent_id": str(agent.id), "conversation_id": "thread-1"}
    )


def test_connect_records_the_change_on_the_card(use, org):
    use("integrations.connect", integration="google")
    card, change = Card.objects.get(organization=org), Change.objects.get(organization=org)
    assert (change.tool, change.listing, change.target_type, change.target_id, change.kind) == (
        "integrations.connect", "record", "card", str(card.id), "makes"
    )


def test_connecting_twice_keeps_one_card_and_one_change(use, org):
    use("integrations.connect", integration="google", why="to read mail")
    use("integrations.connect", integration="gmail", why="to find the rate card")
    card = Card.objects.get(organization=org)
    assert (Change.objects.filter(organization=org).count(), card.body) == (
        1, "Client desk: to read mail\nClient desk: to find the rate card"
    )


def test_connect_takes_the_apps_other_names(use, org):
    use("integrations.connect", integration="Google Drive")
    assert Card.objects.get(organization=org).data["app"] == "google"


def test_connect_an_unknown_app_is_bad_input_naming_the_keys(use):
    assert use("integrations.connect", integration="dropbox") == {
        "error": "bad_input",
        "message": "integration: no app 'dropbox'; the keys are google (Gmail, Drive and Calendar), "
                   "microsoft (OneDrive), quickbooks (QuickBooks Online), apps (Another app, by its MCP address); "
                   "integrations.list shows them",
    }


def test_connect_onedrive_by_its_other_names_makes_the_microsoft_card(use, org):
    result = use("integrations.connect", integration="OneDrive")
    assert result["card"] == "Connect OneDrive" and Card.objects.get(organization=org).data["app"] == "microsoft"


def test_connect_an_app_with_no_provider_built_is_not_yet(use, org):
    with providers(("google", "mail")):
        result = use("integrations.connect", integration="quickbooks")
    assert set(result) == {"notYet"} and not Card.objects.filter(organization=org).exists()


def test_connect_an_app_whose_only_account_stopped_offers_to_connect_it_again(use, org, google):  # noqa: F811  (the pytest fixture imported above)
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    result = use("integrations.connect", integration="google")
    assert (result, Card.objects.get(organization=org).kind) == (
        {"card": "Connect sam@fernhill.test again"},
        "reconnect",
    )


def test_connect_puts_the_card_in_the_callers_workspace_only(use, org, other_org):
    use("integrations.connect", integration="google")
    assert (Card.objects.filter(organization=org).count(), Card.objects.filter(organization=other_org).count()) == (
        1,
        0,
    )


@pytest.mark.parametrize(
    "inp, field",
    [
        ({"integration": ""}, "integration:"),
        ({"integration": "g" * 101}, "integration:"),
        ({"integration": "google", "why": "w" * 201}, "why:"),
        ({}, "integration: required"),
        ({"integration": "google", "account": "x"}, "account:"),
    ],
)
def test_connect_limits_are_bad_input_naming_the_field(use, inp, field):
    result = use("integrations.connect", **inp)
    assert result["error"] == "bad_input" and result["message"].startswith(field)


def test_connect_takes_a_why_of_200_characters(use):
    assert "card" in use("integrations.connect", integration="google", why="w" * 200)
