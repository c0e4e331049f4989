"""integrations.signals.connected reaches the conversation that asked for the app: a note, and a turn.

This module never imports agents.connected: the receiver must be connected by AgentsConfig.ready()."""

import pytest

from agents import services
from agents.models import Conversation, Message
from agents.runtime.model import say
from agents.runtime.turn import drain
from integrations.models import Connection
from integrations.services import Asker, connect_card_open, connection_needs_reconnect
from integrations.signals import connected
from tests.factories import AgentFactory, OrganizationFactory
from tests.integrations.conftest import save_google
from tests.integrations.fakes import GOOGLE_SETTINGS


@pytest.fixture(autouse=True)
def google_settings(settings):
    for name, value in GOOGLE_SETTINGS.items():
        setattr(settings, name, value)


def _notes(conversation):
    return list(Message.objects.filter(conversation=conversation, role=Message.Role.SYSTEM,
                                       data__has_key="connected_event").values_list("text", flat=True))


def test_the_asking_thread_is_told_and_woken(org, staff, model, django_capture_on_commit_callbacks):
    desk = staff["Client desk"]
    thread = services.thread_start(agent=desk, title="Juniper Dental")
    connect_card_open(org=org, app="google", group="mail", why="to read Dana's mail",
                      asked_by=Asker(str(desk.id), str(thread.id), desk.name))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        save_google(org)
    assert _notes(thread) == []  # nothing before the connection commits
    for callback in callbacks:
        callback()  # the commit: the signal goes out (the wake's dispatch waits on the test's own transaction)
    assert _notes(thread) == [
        "Sam connected Gmail, Drive and Calendar (Gmail, Google Drive, Google Calendar) for sam@fernhill.test. "
        "It's ready now: try again what needed it."
    ]
    thread.refresh_from_db()
    assert thread.state == Conversation.State.QUEUED
    model.add(say("Reading Dana's mail now."))
    drain(org_id=org.id)
    sent = model.requests[-1]["messages"]
    assert any("Sam connected Gmail" in str(m.get("content")) for m in sent)
    assert Message.objects.filter(conversation=thread, role="agent").last().text == "Reading Dana's mail now."


def test_nobody_is_told_when_the_owner_connected_on_their_own(org, staff, model,
                                                               django_capture_on_commit_callbacks):
    thread = services.thread_start(agent=staff["Client desk"], title="Juniper Dental")
    connect_card_open(org=org, app="google", group="mail")  # offered by the owner's own visit, nobody asking
    with django_capture_on_commit_callbacks(execute=True):
        save_google(org)
    assert not Message.objects.filter(role=Message.Role.SYSTEM, data__has_key="connected_event").exists()
    thread.refresh_from_db()
    assert thread.state == Conversation.State.IDLE


def test_another_workspaces_thread_is_never_told(org, staff, model, django_capture_on_commit_callbacks):
    other_org = OrganizationFactory(name="Other Studio")
    stranger = services.thread_start(agent=AgentFactory(organization=other_org, name="Spy"), title="Theirs")
    # A card in Fernhill's workspace that names the other workspace's thread (a forged or mixed-up asker).
    connect_card_open(org=org, app="google", group="mail", asked_by=Asker("x", str(stranger.id)))
    with django_capture_on_commit_callbacks(execute=True):
        save_google(org)
    assert _notes(stranger) == []
    stranger.refresh_from_db()
    assert stranger.state == Conversation.State.IDLE


def test_a_renewed_connection_tells_the_asker_once(org, staff, model, django_capture_on_commit_callbacks):
    desk = staff["Client desk"]
    thread = services.thread_start(agent=desk, title="Inbox")
    with django_capture_on_commit_callbacks(execute=True):
        connection = save_google(org)
    connection_needs_reconnect(connection=connection, asked_by=Asker(str(desk.id), str(thread.id), desk.name))
    with django_capture_on_commit_callbacks(execute=True):
        save_google(org)  # the owner signs in again: the same connection, renewed
    assert len(_notes(thread)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        save_google(org)  # renewed again with nothing asking: nobody told again
    assert len(_notes(thread)) == 1


def test_one_note_however_many_asks_and_deliveries(org, staff, model, django_capture_on_commit_callbacks):
    desk = staff["Client desk"]
    thread = services.thread_start(agent=desk, title="Inbox")
    for group in ("mail", "files"):  # two asks from the same thread join one card
        connect_card_open(org=org, app="google", group=group, asked_by=Asker(str(desk.id), str(thread.id)))
    heard = []

    def keep(sender, **kwargs):
        heard.append(kwargs)

    connected.connect(keep)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            save_google(org)
    finally:
        connected.disconnect(keep)
    again = {k: v for k, v in heard[0].items() if k != "signal"}
    connected.send(sender=Connection, **again)  # the same event delivered a second time
    assert len(_notes(thread)) == 1


def test_a_closed_thread_is_told_in_the_agents_chat(org, staff, model,
                                                     django_capture_on_commit_callbacks):
    desk = staff["Client desk"]
    thread = services.thread_start(agent=desk, title="Juniper Dental")
    connect_card_open(org=org, app="google", group="mail", asked_by=Asker(str(desk.id), str(thread.id)))
    Conversation.objects.filter(id=thread.id).update(closed_at=thread.created_at)
    with django_capture_on_commit_callbacks(execute=True):
        save_google(org)
    assert _notes(thread) == []
    (note,) = _notes(services.chat_for(agent=desk))
    assert note.endswith("(You asked for it in your thread “Juniper Dental”, now closed.)")


def test_a_note_that_fails_is_logged_and_the_connection_stands(org, caplog, django_capture_on_commit_callbacks):
    """The owner's connect is committed before anyone is told: a receiver that fails must not undo it or reach
    the owner as an error page."""
    from integrations.models import Connection
    from integrations.services import connection_create_local
    from integrations.signals import connected

    def broken(**kwargs):
        raise RuntimeError("the note could not be written")

    connected.connect(broken, dispatch_uid="test-broken-receiver")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            connection = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    finally:
        connected.disconnect(dispatch_uid="test-broken-receiver")
    assert Connection.objects.filter(id=connection.id).exists()
    assert "the note could not be written" in caplog.text
