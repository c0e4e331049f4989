"""The local mailbox's hand-off to a real SMTP server (tests/integrations/smtp_server.py): what went is told from
what may have gone, the hold never sends twice what may have gone, and no transaction is open while it goes."""

import datetime

import pytest
from django.db import connection

from core.actors import Actor
from core.errors import ToolError
from core.models import Card
from integrations import mail_hold
from integrations.local.models_mail import HeldEmail
from integrations.mail_service import Outgoing, mail_provider
from integrations.providers.base import OutgoingMail
from integrations.services import connection_create_local
from integrations.smtp import TrackingSMTP
from tests.integrations.mail_helpers import mail_root, sent_copies  # noqa: F401
from tests.integrations.smtp_server import SmtpServer

T0 = datetime.datetime(2026, 11, 10, 15, 0, tzinfo=datetime.UTC)
DUE = T0 + mail_hold.HOLD


@pytest.fixture
def box(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])


def smtp_to(settings, server: SmtpServer) -> None:
    settings.MAILERS = {"default": {"BACKEND": "integrations.smtp.EmailBackend", "OPTIONS": {
        "host": "127.0.0.1", "port": server.port, "use_tls": False, "timeout": 5,
    }}}


def hold(org, box, subject="Quote") -> HeldEmail:
    outgoing = Outgoing(box, mail_provider(box), None, None, ["dana@juniperdental.test"], [], [])
    held, _, _ = mail_hold.email_hold(org=org, actor=Actor.system(), conversation_id=None, outgoing=outgoing,
                                      subject=subject, text="Hi Dana", signature=True, now=T0)
    return held


def outgoing(message_id="<one@fernhill.test>") -> OutgoingMail:
    return OutgoingMail(to=["dana@juniperdental.test"], subject="Quote", text="Hi Dana", message_id=message_id)


def test_the_server_takes_it_once_and_a_sent_copy_is_kept(org, box, settings):
    with SmtpServer() as server:
        smtp_to(settings, server)
        sent = mail_provider(box).send(outgoing())
    assert (server.deliveries(), sent_copies(box)[0].message_id, sent.message_id.startswith(box.account_key)) == (
        {"<one@fernhill.test>": 1}, "<one@fernhill.test>", True
    )


def test_a_server_that_refuses_it_is_unavailable_and_nothing_is_kept(org, box, settings):
    with SmtpServer(after_dot=lambda mid: "refuse") as server:
        smtp_to(settings, server)
        with pytest.raises(ToolError) as caught:
            mail_provider(box).send(outgoing())
    assert (caught.value.kind, sent_copies(box)) == ("unavailable", [])


def test_a_server_that_hangs_up_after_the_whole_email_is_unknown_outcome(org, box, settings):
    with SmtpServer(after_dot=lambda mid: "take and hang up") as server:
        smtp_to(settings, server)
        with pytest.raises(ToolError) as caught:
            mail_provider(box).send(outgoing())
    assert (caught.value.kind, server.deliveries()) == ("unknown_outcome", {"<one@fernhill.test>": 1})


def test_no_server_at_all_is_unavailable(org, box, settings):
    with SmtpServer() as server:
        port = server.port
    settings.MAILERS = {"default": {"BACKEND": "integrations.smtp.EmailBackend", "OPTIONS": {
        "host": "127.0.0.1", "port": port, "use_tls": False, "timeout": 5}}}
    with pytest.raises(ToolError) as caught:
        mail_provider(box).send(outgoing())
    assert caught.value.kind == "unavailable"


def test_an_email_the_server_may_have_taken_is_not_sent_again_but_put_to_the_owner(org, box, settings):
    """The server had the whole email when the line dropped: the next try can't tell from the local mailbox whether
    it went, so it doesn't send it again; a card asks the owner, and its Send again sends it once more."""
    answers = iter(["take and hang up", "take"])
    with SmtpServer(after_dot=lambda mid: next(answers)) as server:
        smtp_to(settings, server)
        held = hold(org, box)
        first = mail_hold.email_send(held.id, now=DUE)
        second = mail_hold.email_send(held.id, now=DUE + datetime.timedelta(minutes=5))
        card = Card.objects.get(kind="try_again", resolved_at__isnull=True)
        after_unsure = dict(server.deliveries())
        mail_hold.email_try_again(org=org, held_id=held.id)  # the owner looked: it didn't arrive
        third = mail_hold.email_send(held.id)
    held.refresh_from_db()
    assert (first, second, third, held.state) == ("retrying", "unsure", "sent", "sent")
    assert (card.title, card.action_label, card.data["held_email_id"]) == (
        "Did this email go? Quote", "Send again", str(held.id)
    )
    assert after_unsure == {held.message_id: 1}
    assert server.deliveries() == {held.message_id: 2}  # the second only because the owner said so


def test_a_refused_email_is_tried_again_without_asking(org, box, settings):
    answers = iter(["refuse", "take"])
    with SmtpServer(after_dot=lambda mid: next(answers)) as server:
        smtp_to(settings, server)
        held = hold(org, box)
        outcomes = [mail_hold.email_send(held.id, now=DUE),
                    mail_hold.email_send(held.id, now=DUE + datetime.timedelta(minutes=5))]
    assert (outcomes, server.deliveries(), Card.objects.count()) == (["retrying", "sent"], {held.message_id: 1}, 0)


def test_undo_of_an_email_that_may_have_gone_is_changed(org, box, settings):
    with SmtpServer(after_dot=lambda mid: "take and hang up") as server:
        smtp_to(settings, server)
        held = hold(org, box)
        mail_hold.email_send(held.id, now=DUE)
        mail_hold.email_send(held.id, now=DUE + datetime.timedelta(minutes=5))
    with pytest.raises(ToolError) as caught:
        mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
    assert (HeldEmail.objects.get(pk=held.pk).state, caught.value.kind, "may have gone" in caught.value.message) == (
        "unsure", "changed", True
    )


@pytest.mark.django_db(transaction=True)
def test_the_hand_off_happens_with_no_transaction_open(org, box, settings, monkeypatch):
    seen = []
    real_data = TrackingSMTP.data

    def data(self, msg):
        seen.append(connection.in_atomic_block)
        return real_data(self, msg)

    monkeypatch.setattr(TrackingSMTP, "data", data)
    with SmtpServer() as server:
        smtp_to(settings, server)
        held = hold(org, box)
        outcome = mail_hold.email_send(held.id, now=DUE)
    assert (outcome, seen) == ("sent", [False])


@pytest.mark.django_db(transaction=True)
def test_sending_a_held_email_inside_a_transaction_is_refused(org, box, settings):
    from django.db import transaction

    from core.network import TransactionOpen

    settings.ROADSTAR_NETWORK_GUARD = "raise"
    held = hold(org, box)
    with pytest.raises(TransactionOpen), transaction.atomic():
        mail_hold.email_send(held.id, now=DUE)
