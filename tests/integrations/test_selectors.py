"""Finding the account for the work: connections_for, require_connection and ids that carry their account."""

import pytest

from core.errors import ToolError
from core.models import Card
from integrations.ids import join_id, split_id
from integrations.models import Connection
from integrations.selectors import connections_for, require_connection
from integrations.services import Asker
from tests.integrations.conftest import GOOGLE_READ, G, save_google


def _error(**kwargs) -> ToolError:
    with pytest.raises(ToolError) as caught:
        require_connection(**kwargs)
    return caught.value


# --- connections_for ------------------------------------------------------------------------------------------


def test_connections_for_lists_the_connected_accounts_serving_the_group(org, google, quickbooks):
    assert connections_for(org=org, group="mail") == [google]


def test_connections_for_leaves_out_a_connection_that_needs_reconnecting(org, google):
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    assert connections_for(org=org, group="mail") == []


def test_connections_for_filters_by_source(org, google):
    studio = save_google(org, account="studio@fernhill.test")
    assert connections_for(org=org, group="mail", source="Studio@") == [studio]


def test_connections_for_never_lists_another_workspaces_accounts(other_org, app_settings, org):
    save_google(other_org, account="alex@other.test")
    assert connections_for(org=org, group="mail") == []


# --- require_connection ---------------------------------------------------------------------------------------


def test_nothing_connected_is_not_connected_with_a_card(org):
    error = _error(org=org, group="mail")
    assert (error.kind, error.card) == ("not_connected", "Connect Gmail, Drive and Calendar")


def test_the_not_connected_card_is_a_connect_card_for_the_group(org):
    _error(org=org, group="mail")
    card = Card.objects.get(organization=org)
    assert (card.kind, card.subject, card.action_url) == ("connect", "connect:mail", "/connections/google/")


def test_books_not_connected_offers_quickbooks(org):
    assert _error(org=org, group="books").card == "Connect QuickBooks Online"


def test_the_card_remembers_who_asked(org, agent):
    _error(org=org, group="mail", asked_by=Asker(agent_id=str(agent.id), conversation_id="thread-1"))
    assert Card.objects.get(organization=org).data["asked_by"] == {
        "agent_id": str(agent.id),
        "conversation_id": "thread-1",
    }


def test_a_connected_account_is_returned(org, google):
    assert require_connection(org=org, group="files") == google


def test_a_stopped_sign_in_is_reauth_with_a_reconnect_card(org, google):
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    error = _error(org=org, group="mail")
    assert (error.kind, error.card, Card.objects.get(organization=org).kind) == (
        "reauth", "Connect sam@fernhill.test again", "reconnect"
    )


def test_writing_with_read_only_access_is_reauth(org, google):
    error = _error(org=org, group="mail", write=True)
    assert (error.kind, Card.objects.get(organization=org).data["write_groups"]) == ("reauth", ["mail"])


def test_writing_with_write_access_returns_the_account(org, app_settings):
    writer = save_google(org, scopes=GOOGLE_READ + [G + "gmail.compose", G + "gmail.send"])
    assert require_connection(org=org, group="mail", write=True) == writer


def test_writing_prefers_an_account_that_may_write(org, google):
    writer = save_google(org, account="studio@fernhill.test", scopes=GOOGLE_READ + [G + "drive"])
    assert require_connection(org=org, group="files", write=True) == writer


def test_a_local_connection_may_write(org, local):
    assert require_connection(org=org, group="calendar", write=True) == local


def test_an_account_key_picks_that_account(org, google):
    save_google(org, account="studio@fernhill.test")
    assert require_connection(org=org, group="mail", account_key=google.account_key) == google


def test_an_unknown_account_key_is_not_found(org, google):
    assert _error(org=org, group="mail", account_key="00000000").kind == "not_found"


def test_another_workspaces_account_key_is_not_found(org, other_org, app_settings):
    theirs = save_google(other_org, account="alex@other.test")
    assert _error(org=org, group="mail", account_key=theirs.account_key).kind == "not_found"


def test_an_account_key_of_a_removed_connection_is_not_connected(org, google):
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.REMOVED)
    assert _error(org=org, group="mail", account_key=google.account_key).kind == "not_connected"


def test_an_account_that_does_not_serve_the_group_is_not_found(org, google):
    assert _error(org=org, group="books", account_key=google.account_key).kind == "not_found"


# --- ids ------------------------------------------------------------------------------------------------------


def test_join_id_prefixes_the_account_key(google):
    assert join_id(google, "19a2c4e07d5b3f18") == f"{google.account_key}:19a2c4e07d5b3f18"


def test_split_id_gives_the_connection_and_the_apps_own_id(org, google):
    assert split_id(f"{google.account_key}:19a2c4e07d5b3f18", org=org) == (google, "19a2c4e07d5b3f18")


def test_split_id_keeps_colons_in_the_apps_own_id(org, google):
    assert split_id(f"{google.account_key}:a:b", org=org)[1] == "a:b"


@pytest.mark.parametrize("value", ["19a2c4e07d5b3f18", "7C41E2D0:abc", "7c41e2d:abc", "", "abcdef12:"])
def test_split_id_of_an_id_without_an_account_is_not_found(org, value):
    with pytest.raises(ToolError) as caught:
        split_id(value, org=org)
    assert caught.value.kind == "not_found"


def test_split_id_of_another_workspaces_account_is_not_found(org, other_org, app_settings):
    theirs = save_google(other_org, account="alex@other.test")
    with pytest.raises(ToolError) as caught:
        split_id(f"{theirs.account_key}:19a2c4e07d5b3f18", org=org)
    assert caught.value.kind == "not_found"


def test_the_connect_card_says_what_the_group_is_for(org):
    _error(org=org, group="mail")
    assert (
        Card.objects.get(organization=org).body == "Your agents need it to search and read your mail, draft and send."
    )


def test_connections_for_can_include_stopped_accounts_for_a_searchs_failures(org, google):
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    assert connections_for(org=org, group="mail", include_stopped=True) == [google]
