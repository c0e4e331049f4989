import re

import pytest

from core.models import Card
from integrations import services
from integrations.models import Connection
from integrations.services import Asker
from integrations.signals import connected
from tests.integrations.conftest import GOOGLE_READ, G, save_google


@pytest.fixture
def heard():
    got = []

    def receiver(sender, **kwargs):
        got.append(kwargs)

    connected.connect(receiver)
    yield got
    connected.disconnect(receiver)


def test_a_google_connection_serves_the_groups_its_scopes_allow(org, app_settings):
    connection = save_google(org, scopes=["openid", G + "gmail.readonly", G + "calendar.readonly"])
    assert connection.groups == ["mail", "calendar"]


def test_an_account_key_is_eight_lowercase_hex_characters(google):
    assert re.fullmatch(r"[0-9a-f]{8}", google.account_key)


def test_connecting_the_same_account_again_keeps_its_key(org, google):
    again = save_google(org, scopes=GOOGLE_READ + [G + "gmail.compose"])
    assert (again.pk, again.account_key) == (google.pk, google.account_key)


def test_connecting_again_marks_a_stopped_connection_connected(org, google):
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    assert save_google(org).status == Connection.Status.CONNECTED


def test_connecting_again_without_a_refresh_token_keeps_the_old_one(org, google):
    save_google(org, refresh_token=None)
    assert Connection.objects.get(pk=google.pk).read_tokens()["refresh_token"] == "g-refresh-1"


def test_a_second_account_gets_its_own_key(org, google):
    other = save_google(org, account="studio@fernhill.test")
    assert other.account_key != google.account_key


def test_a_sign_in_that_allowed_nothing_used_is_refused(org, app_settings):
    with pytest.raises(services.NothingGranted):
        save_google(org, scopes=["openid", G + "userinfo.email"])


def test_a_local_connection_serves_the_groups_given(org):
    connection = services.connection_create_local(org=org, account="sam@fernhill.test", groups=["mail", "books"])
    assert (connection.app, connection.groups, connection.can_write("mail")) == ("local", ["mail", "books"], True)


def test_a_local_connection_refuses_an_unknown_group(org):
    with pytest.raises(ValueError):
        services.connection_create_local(org=org, account="x", groups=["chat"])


def test_connecting_resolves_the_open_connect_card_for_its_app(org, app_settings):
    card, _ = services.connect_card_open(org=org, app="google", group="mail")
    save_google(org)
    card.refresh_from_db()
    assert card.resolved_at is not None and card.data["connected"]["account"] == "sam@fernhill.test"


def test_connecting_leaves_another_apps_card_open(org, app_settings):
    card, _ = services.connect_card_open(org=org, app="quickbooks", group="books")
    save_google(org)
    card.refresh_from_db()
    assert card.resolved_at is None


def test_a_write_card_stays_open_when_the_owner_still_allowed_only_reading(org, google):
    card = services.reconnect_card_open(connection=google, write_groups=["mail"])
    save_google(org)
    card.refresh_from_db()
    assert card.resolved_at is None


def test_a_write_card_is_resolved_once_writing_is_allowed(org, google):
    card = services.reconnect_card_open(connection=google, write_groups=["mail"])
    save_google(org, scopes=GOOGLE_READ + [G + "gmail.compose", G + "gmail.send"])
    card.refresh_from_db()
    assert card.resolved_at is not None


def test_the_card_records_the_conversation_that_asked(org, agent):
    card, _ = services.connect_card_open(
        org=org, app="google", group="mail", asked_by=Asker(agent_id=str(agent.id), conversation_id="thread-7")
    )
    assert card.data["asked_by"] == {"agent_id": str(agent.id), "conversation_id": "thread-7"}


def test_a_second_ask_joins_the_open_card(org, agent):
    first, _ = services.connect_card_open(org=org, app="google", group="mail", asked_by=Asker(str(agent.id), "t-1"))
    second, made = services.connect_card_open(
        org=org, app="google", group="files", asked_by=Asker(str(agent.id), "t-2")
    )
    assert (second.id, made, [a["conversation_id"] for a in second.data["askers"]]) == (first.id, False, ["t-1", "t-2"])


def test_the_signal_is_sent_after_commit_with_the_resolved_cards(
    org, app_settings, heard, django_capture_on_commit_callbacks
):
    card, _ = services.connect_card_open(org=org, app="google", group="mail", asked_by=Asker("a-1", "t-1"))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        connection = save_google(org)
    assert heard == []
    for callback in callbacks:
        callback()
    assert [(h["org"], h["connection"], [c.id for c in h["cards"]]) for h in heard] == [(org, connection, [card.id])]


def test_a_reconnect_card_links_to_the_connect_page_asking_for_writing(google):
    card = services.reconnect_card_open(connection=google, write_groups=["mail", "files"])
    assert card.action_url == f"/connections/google/?account={google.account_key}&write=mail,files"


def test_marking_needs_reconnect_opens_one_reconnect_card(google):
    services.connection_needs_reconnect(connection=google)
    services.connection_needs_reconnect(connection=google)
    cards = Card.objects.filter(kind=Card.Kind.RECONNECT, resolved_at__isnull=True)
    assert (cards.count(), Connection.objects.get(pk=google.pk).status) == (1, "needs_reconnect")


def test_a_token_write_from_a_stale_read_does_not_overwrite_newer_tokens(google):
    stale = Connection.objects.get(pk=google.pk)
    services.connection_tokens_save(connection=google, tokens={"access_token": "newer", "refresh_token": "r"})
    saved = services.connection_tokens_save(connection=stale, tokens={"access_token": "older", "refresh_token": "r"})
    assert (saved, Connection.objects.get(pk=google.pk).read_tokens()["access_token"]) == (False, "newer")
