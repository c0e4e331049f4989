"""The two-minute hold: sent once after it, never after Undo, never lost and never twice when a worker dies, tried
again when the app may get over it, and on Home with Try again when it can't."""

import datetime
import random
from collections import Counter

import pytest
from django.core import mail as django_mail
from django.utils import timezone

from core.actors import Actor
from core.errors import ToolError
from core.models import Card
from integrations import mail_hold, tasks_mail
from integrations.local.models_mail import HeldEmail
from integrations.mail_service import Outgoing, mail_provider
from integrations.models import Connection
from integrations.providers.local_mail import LocalMailProvider
from integrations.services import connection_create_local
from tests.integrations.mail_helpers import mail_root, sent_copies  # noqa: F401

T0 = datetime.datetime(2026, 11, 10, 15, 0, tzinfo=datetime.UTC)
DUE = T0 + mail_hold.HOLD
PAST_LEASE = mail_hold.LEASE + datetime.timedelta(seconds=1)


class Killed(BaseException):
    """The worker dies here (a BaseException: nothing in the send path may catch it)."""


@pytest.fixture
def box(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])


def hold(org, connection, *, to="dana@juniperdental.test", subject="Quote", now=T0) -> HeldEmail:
    outgoing = Outgoing(connection, mail_provider(connection), None, None, [to], [], [])
    held, _, _ = mail_hold.email_hold(org=org, actor=Actor.system(), conversation_id=None, outgoing=outgoing,
                                      subject=subject, text="Hi", signature=True, now=now)
    return held


def deliveries() -> Counter:
    return Counter(m.extra_headers["Message-ID"] for m in django_mail.outbox)


def state(held) -> str:
    return HeldEmail.objects.get(pk=held.pk).state


# --- the ordinary way -----------------------------------------------------------------------------------------


def test_nothing_goes_before_the_hold_ends(org, box):
    held = hold(org, box)
    assert (mail_hold.email_send(held.id, now=DUE - datetime.timedelta(seconds=1)), django_mail.outbox) == (
        "skipped", []
    )


def test_at_the_end_of_the_hold_it_is_sent(org, box):
    held = hold(org, box)
    outcome = mail_hold.email_send(held.id, now=DUE)
    assert (outcome, state(held), list(deliveries().values())) == ("sent", "sent", [1])


def test_a_sent_email_is_never_sent_again(org, box):
    held = hold(org, box)
    mail_hold.email_send(held.id, now=DUE)
    assert (mail_hold.email_send(held.id, now=DUE + PAST_LEASE), len(django_mail.outbox)) == ("skipped", 1)


def test_it_goes_with_the_message_id_it_was_given_and_is_kept_as_sent(org, box):
    held = hold(org, box)
    mail_hold.email_send(held.id, now=DUE)
    held.refresh_from_db()
    assert (list(deliveries()), sent_copies(box)[0].message_id, held.sent_message_id) == (
        [held.message_id], held.message_id, f"{box.account_key}:{sent_copies(box)[0].key}"
    )


def test_the_send_task_sends_a_due_email(org, box):
    held = hold(org, box, now=timezone.now() - mail_hold.HOLD)
    assert (tasks_mail.send_held(str(held.id)), len(django_mail.outbox)) == ("sent", 1)


def test_the_sweep_task_sends_what_is_due(org, box):
    hold(org, box, now=timezone.now() - mail_hold.HOLD)
    hold(org, box, now=timezone.now())
    assert (tasks_mail.sweep(), len(django_mail.outbox)) == (1, 1)


def test_holds_are_numbered_in_the_workspace(org, box, other_org):
    far = connection_create_local(org=other_org, account="alex@far.test", groups=["mail"])
    numbers = [hold(org, box).number, hold(org, box).number, hold(other_org, far).number]
    assert numbers == [1, 2, 1]


# --- Undo -----------------------------------------------------------------------------------------------------


def test_undo_within_the_hold_sends_nothing(org, box):
    held = hold(org, box)
    mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
    assert (mail_hold.email_send(held.id, now=DUE), state(held), django_mail.outbox) == ("skipped", "undone", [])


def test_undo_takes_the_scheduled_send_away(org, box):
    from django_q.models import Schedule

    held = hold(org, box)
    mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
    assert Schedule.objects.filter(func=mail_hold.SEND_TASK).count() == 0


def test_undo_while_a_worker_sends_it_is_changed(org, box):
    held = hold(org, box)
    HeldEmail.objects.filter(pk=held.pk).update(state="sending", claimed_at=DUE)
    with pytest.raises(ToolError) as caught:
        mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
    assert (caught.value.kind, "going out right now" in caught.value.message) == ("changed", True)


def test_undo_twice_is_changed(org, box):
    held = hold(org, box)
    mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
    with pytest.raises(ToolError) as caught:
        mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
    assert caught.value.kind == "changed"


# --- a worker that dies ---------------------------------------------------------------------------------------


def test_a_worker_that_died_after_claiming_leaves_it_to_the_sweep_after_the_lease(org, box, monkeypatch):
    held = hold(org, box)
    real = mail_hold._claim

    def claim_and_die(held_id, now):
        real(held_id, now)
        raise Killed

    monkeypatch.setattr(mail_hold, "_claim", claim_and_die)
    with pytest.raises(Killed):
        mail_hold.email_send(held.id, now=DUE)
    monkeypatch.setattr(mail_hold, "_claim", real)
    early = mail_hold.email_sweep(now=DUE + datetime.timedelta(minutes=1))
    late = mail_hold.email_sweep(now=DUE + PAST_LEASE)
    assert (early, late, list(deliveries().values())) == (0, 1, [1])


def test_a_worker_that_died_after_sending_is_not_followed_by_a_second_send(org, box, monkeypatch):
    held = hold(org, box)
    real = mail_hold._mark_sent

    def die(*args, **kwargs):
        raise Killed

    monkeypatch.setattr(mail_hold, "_mark_sent", die)
    with pytest.raises(Killed):
        mail_hold.email_send(held.id, now=DUE)
    monkeypatch.setattr(mail_hold, "_mark_sent", real)
    mail_hold.email_sweep(now=DUE + PAST_LEASE)
    assert (state(held), list(deliveries().values())) == ("sent", [1])


def test_a_send_of_unknown_outcome_is_looked_for_in_sent_mail_before_trying_again(org, box, monkeypatch):
    held = hold(org, box)
    real = LocalMailProvider.send

    def sent_but_no_answer(self, mail):
        real(self, mail)
        raise ToolError("unknown_outcome", "The mail server hung up.")

    monkeypatch.setattr(LocalMailProvider, "send", sent_but_no_answer)
    first = mail_hold.email_send(held.id, now=DUE)
    monkeypatch.setattr(LocalMailProvider, "send", real)
    second = mail_hold.email_send(held.id, now=DUE + datetime.timedelta(minutes=1))
    assert (first, second, list(deliveries().values())) == ("retrying", "sent", [1])


def gmail_hold(org, monkeypatch, *answers):
    """A held email on a Gmail account whose every request is answered from `answers`, in order."""
    from integrations.providers.gmail import GmailProvider
    from tests.integrations.conftest import GOOGLE_READ, G, save_google
    from tests.integrations.mail_helpers import Recording

    google = save_google(org, scopes=GOOGLE_READ + [G + "gmail.compose", G + "gmail.send"])
    http = Recording(list(answers))
    monkeypatch.setattr(mail_hold, "mail_provider", lambda connection: GmailProvider(connection, http=http))
    outgoing = Outgoing(google, GmailProvider(google, http=http), None, None, ["dana@juniperdental.test"], [], [])
    held, _, _ = mail_hold.email_hold(org=org, actor=Actor.system(), conversation_id=None, outgoing=outgoing,
                                      subject="Quote", text="Hi", signature=False, now=T0)
    return held, http


def gmail_calls(http) -> list[str]:
    from urllib.parse import parse_qs, urlparse

    return [f"{r['method']} {urlparse(r['uri']).path} {parse_qs(urlparse(r['uri']).query).get('q', [''])[0]}".strip()
            for r in http.requests]


SENT_PATH = "POST /gmail/v1/users/me/messages/send"
LOOK = "GET /gmail/v1/users/me/messages in:sent rfc822msgid:"


def test_gmail_a_worker_that_died_after_gmail_took_it_finds_it_by_its_message_id(org, app_settings, monkeypatch):
    from tests.integrations.mail_helpers import ok

    held, http = gmail_hold(org, monkeypatch, ok({"id": "m10", "threadId": "t10"}),
                            ok({"messages": [{"id": "m10", "threadId": "t10"}]}))
    real = mail_hold._mark_sent
    monkeypatch.setattr(mail_hold, "_mark_sent", lambda *a: (_ for _ in ()).throw(Killed()))
    with pytest.raises(Killed):
        mail_hold.email_send(held.id, now=DUE)
    monkeypatch.setattr(mail_hold, "_mark_sent", real)
    outcome = mail_hold.email_send(held.id, now=DUE + PAST_LEASE)
    held.refresh_from_db()
    bare = held.message_id.strip("<>")
    assert (outcome, held.state, held.sent_message_id, gmail_calls(http)) == (
        "sent", "sent", f"{held.connection.account_key}:m10", [SENT_PATH, f"{LOOK}{bare}"]
    )


def test_gmail_a_worker_that_died_as_the_hand_off_began_sends_it_once_after_a_look(org, app_settings, monkeypatch):
    """Gmail's sent mail tells: not there means it didn't go, so it goes (no card), once."""
    from tests.integrations.mail_helpers import ok

    held, http = gmail_hold(org, monkeypatch, ok({"resultSizeEstimate": 0}), ok({"id": "m10", "threadId": "t10"}))
    real = mail_hold._hand_off_begins

    def begins_and_dies(*args):
        real(*args)
        raise Killed

    monkeypatch.setattr(mail_hold, "_hand_off_begins", begins_and_dies)
    with pytest.raises(Killed):
        mail_hold.email_send(held.id, now=DUE)
    monkeypatch.setattr(mail_hold, "_hand_off_begins", real)
    outcome = mail_hold.email_send(held.id, now=DUE + PAST_LEASE)
    assert (outcome, gmail_calls(http)[0].startswith(LOOK), gmail_calls(http)[1:], Card.objects.count()) == (
        "sent", True, [SENT_PATH], 0
    )


def test_a_local_email_whose_worker_died_mid_hand_off_is_put_to_the_owner_not_sent_again(org, box, monkeypatch):
    from integrations.providers import local_mail

    held = hold(org, box)
    real = local_mail.message_store

    def die(*args):  # the server took it; the worker dies before the sent copy is written
        raise Killed

    monkeypatch.setattr(local_mail, "message_store", die)
    with pytest.raises(Killed):
        mail_hold.email_send(held.id, now=DUE)
    monkeypatch.setattr(local_mail, "message_store", real)
    outcome = mail_hold.email_send(held.id, now=DUE + PAST_LEASE)
    card = Card.objects.get(kind="try_again")
    assert (outcome, state(held), list(deliveries().values()), card.action_label) == ("unsure", "unsure", [1],
                                                                                     "Send again")


# --- failures -------------------------------------------------------------------------------------------------


def refuse(monkeypatch, kind="unavailable"):
    def send(self, mail):
        raise ToolError(kind, "The mail server didn't answer.")

    monkeypatch.setattr(LocalMailProvider, "send", send)


def test_a_failure_the_app_may_get_over_is_tried_again_later(org, box, monkeypatch):
    refuse(monkeypatch)
    held = hold(org, box)
    outcome = mail_hold.email_send(held.id, now=DUE)
    held.refresh_from_db()
    assert (outcome, held.state, held.send_at, held.last_error) == (
        "retrying", "held", DUE + mail_hold.RETRY_WAITS[0], "The mail server didn't answer."
    )


def test_after_its_tries_a_failed_send_waits_on_home_with_try_again(org, box, monkeypatch):
    refuse(monkeypatch)
    held = hold(org, box)
    now = DUE
    for _ in range(mail_hold.TRIES):
        mail_hold.email_send(held.id, now=now)
        now += datetime.timedelta(minutes=5)
    card = Card.objects.get(organization=org, kind="try_again")
    assert (state(held), card.title, card.action_label, card.data["held_email_id"]) == (
        "failed", "An email couldn't go: Quote", "Try again", str(held.id)
    )


def test_a_failure_no_retry_fixes_fails_at_once(org, box):
    held = hold(org, box)
    Connection.objects.filter(pk=box.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    outcome = mail_hold.email_send(held.id, now=DUE)
    assert (outcome, state(held), Card.objects.filter(kind="try_again").count(),
            Card.objects.filter(kind="reconnect").count()) == ("failed", "failed", 1, 1)


def test_try_again_sends_it_and_takes_the_card_away(org, box, monkeypatch, django_capture_on_commit_callbacks):
    refuse(monkeypatch, kind="forbidden")
    held = hold(org, box)
    mail_hold.email_send(held.id, now=DUE)
    monkeypatch.undo()
    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: queued.append((func, args)))
    with django_capture_on_commit_callbacks(execute=True):
        mail_hold.email_try_again(org=org, held_id=held.id)
    outcome = mail_hold.email_send(*queued[0][1])
    assert (queued[0][0], outcome, Card.objects.filter(resolved_at__isnull=True).count(), len(django_mail.outbox)) == (
        mail_hold.SEND_TASK, "sent", 0, 1
    )


def test_undo_of_a_failed_email_takes_its_card_away(org, box, monkeypatch):
    refuse(monkeypatch, kind="forbidden")
    held = hold(org, box)
    mail_hold.email_send(held.id, now=DUE)
    mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
    assert (state(held), Card.objects.filter(kind="try_again", resolved_at__isnull=True).count()) == ("undone", 0)


# --- the fault test -------------------------------------------------------------------------------------------

KILL_POINTS = ("before claim", "after claim", "as the hand-off begins", "between hand-off and commit",
               "after the app sent it", "before marking it sent")


def test_workers_killed_at_random_points_send_each_email_once_and_undone_ones_never(org, box, monkeypatch):
    """200 held emails, some undone (before the worker, or between its tries), workers killed at random points
    of the send path; sweeps run until nothing is left. Nothing goes twice, an undone one never; each one went
    once, or, when a worker died handing it to the local mailbox's SMTP server (which can't be asked whether it
    took it), it waits as `unsure` with a card asking the owner, having gone at most once."""
    from integrations.providers import local_mail

    rng = random.Random(20261110)
    kills = Counter()

    def maybe_die(point, chance=0.2):
        if rng.random() < chance:
            kills[point] += 1
            raise Killed(point)

    real_claim, real_mark, real_send = mail_hold._claim, mail_hold._mark_sent, LocalMailProvider.send
    real_begins, real_store = mail_hold._hand_off_begins, local_mail.message_store

    def claim(held_id, now):
        maybe_die("before claim")
        token = real_claim(held_id, now)
        if token:
            maybe_die("after claim")
        return token

    def begins(held, token, now):
        real_begins(held, token, now)
        maybe_die("as the hand-off begins", 0.05)

    def store(connection, incoming):  # the server took it; the sent copy isn't written yet
        maybe_die("between hand-off and commit", 0.05)
        return real_store(connection, incoming)

    def send(self, mail):
        sent = real_send(self, mail)
        maybe_die("after the app sent it")
        return sent

    def mark(held, token, sent, now):
        maybe_die("before marking it sent")
        return real_mark(held, token, sent, now)

    monkeypatch.setattr(mail_hold, "_claim", claim)
    monkeypatch.setattr(mail_hold, "_hand_off_begins", begins)
    monkeypatch.setattr(local_mail, "message_store", store)
    monkeypatch.setattr(mail_hold, "_mark_sent", mark)
    monkeypatch.setattr(LocalMailProvider, "send", send)

    emails = [hold(org, box, to=f"client{i}@clients.test", subject=f"Email {i}") for i in range(200)]
    undone = set()

    def try_undo(held):
        try:
            mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
        except ToolError:
            return
        undone.add(held.message_id)

    for held in rng.sample(emails, 30):  # undone within the hold
        try_undo(held)
    now = DUE
    for _ in range(200):
        if not HeldEmail.objects.filter(state__in=("held", "sending")).exists():
            break
        try:
            mail_hold.email_sweep(now=now)
        except Killed:
            pass
        for held in rng.sample(emails, 3):  # the owner presses Undo while workers come and go
            try_undo(held)
        now += PAST_LEASE

    sent = deliveries()
    states = Counter(HeldEmail.objects.values_list("state", flat=True))
    went = set(HeldEmail.objects.filter(state="sent").values_list("message_id", flat=True))
    unsure = set(HeldEmail.objects.filter(state="unsure").values_list("message_id", flat=True))
    asked = Card.objects.filter(kind="try_again", resolved_at__isnull=True, data__unsure=True).count()
    assert set(kills) == set(KILL_POINTS)  # every point was hit
    assert set(sent.values()) == {1}  # nothing went twice
    assert (set(states), states["undone"]) == ({"sent", "undone", "unsure"}, len(undone))
    assert went <= set(sent) and not set(sent) & undone and set(sent) - went <= unsure
    assert unsure & set(sent) and unsure - set(sent)  # killed after the server took it, and before
    assert (asked, len(sent_copies(box))) == (len(unsure), len(went))


# --- on Home --------------------------------------------------------------------------------------------------


def mail_send(use):
    return use("mail.send", to=["dana@juniperdental.test"], subject="Quote", text="Hi Dana")


@pytest.fixture
def dana(org):
    from tests.factories import ContactFactory

    return ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])


def test_home_shows_a_held_email_with_its_countdown_and_undo(client, org, box, use, dana):
    from core.models import Change

    mail_send(use)
    client.force_login(org.owner)
    page = client.get("/").content.decode()
    change = Change.objects.get(tool="mail.send")
    assert ("Client desk is sending Dana Whitfield “Quote”" in page, f"/changes/{change.id}/undo" in page,
            "held__countdown" in page) == (True, True, True)


def test_undo_on_home_stops_the_held_email(client, org, box, use):
    from core.models import Change

    mail_send(use)
    client.force_login(org.owner)
    client.post(f"/changes/{Change.objects.get(tool='mail.send').id}/undo", {"next": "/"})
    assert (HeldEmail.objects.get().state, mail_hold.held_lines(org)) == ("undone", [])


def test_held_lines_cost_three_queries_however_many_wait(org, box, use, django_assert_num_queries):
    for _ in range(4):
        mail_send(use)
    with django_assert_num_queries(3):
        assert len(mail_hold.held_lines(org)) == 4


def test_try_again_on_home_sends_a_failed_email(client, org, box, monkeypatch, django_capture_on_commit_callbacks):
    refuse(monkeypatch, kind="forbidden")
    held = hold(org, box)
    mail_hold.email_send(held.id, now=DUE)
    monkeypatch.undo()
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: mail_hold.email_send(*args))
    card = Card.objects.get(kind="try_again")
    client.force_login(org.owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/cards/{card.id}/try-again", {"next": "/"})
    assert (state(held), len(django_mail.outbox)) == ("sent", 1)


def test_homes_try_again_card_for_an_email_has_its_button(client, org, box, monkeypatch):
    refuse(monkeypatch, kind="forbidden")
    held = hold(org, box)
    mail_hold.email_send(held.id, now=DUE)
    client.force_login(org.owner)
    card = Card.objects.get(kind="try_again")
    assert f"/cards/{card.id}/try-again" in client.get("/").content.decode()


def test_the_workers_schedules_sweep_held_emails_and_poll_new_mail_every_minute(db):
    from django.core.management import call_command
    from django_q.models import Schedule

    call_command("schedule_ticks")
    rows = {s.name: (s.func, s.minutes) for s in Schedule.objects.filter(name__in=["held emails sweep", "new mail"])}
    assert rows == {"held emails sweep": ("integrations.tasks_mail.sweep", 1),
                    "new mail": ("integrations.tasks_mail.poll", 1)}


def test_once_the_email_has_gone_home_shows_it_sent_without_undo(client, org, box, use, dana):
    from core.models import Change

    mail_send(use)
    change = Change.objects.get(tool="mail.send")
    assert change.can_undo
    assert mail_hold.email_sweep(now=timezone.now() + mail_hold.HOLD) == 1
    change.refresh_from_db()
    assert not change.can_undo and change.undone_at is None
    client.force_login(org.owner)
    # An Undo from a page shown before it went says why nothing can be done.
    said = client.post(f"/changes/{change.id}/undo", {"next": "/"}, follow=True).content.decode()
    assert "can&#x27;t be called back" in said
    page = client.get("/").content.decode()
    assert "Client desk emailed dana@juniperdental.test: “Quote”" in page
    assert f"/changes/{change.id}/undo" not in page and "held__countdown" not in page


def test_an_email_that_failed_keeps_its_undo_until_it_goes(org, box, use, monkeypatch):
    from core.models import Change

    refuse(monkeypatch, kind="forbidden")
    mail_send(use)
    mail_hold.email_sweep(now=timezone.now() + mail_hold.HOLD)
    assert HeldEmail.objects.get().state == "failed" and Change.objects.get(tool="mail.send").can_undo


# --- at the same time -----------------------------------------------------------------------------------------


def test_a_contacts_last_written_while_the_email_is_marked_sent_is_kept(transactional_db, org, box, use, dana):
    """Marking an email sent merges into each recipient's `last`; a write to that contact committed meanwhile by
    another process must survive the merge (the rows are read again under their locks, not from a stale copy)."""
    import threading
    import time

    from django.db import transaction

    from core.locking import lock
    from records.models import Contact
    from tests.concurrency import all_at_once, in_a_thread, threads_on_a_file

    mail_send(use)
    held = HeldEmail.objects.get()
    locked = threading.Event()

    def another_process_writes_the_contact():
        with transaction.atomic():
            contact = Contact.objects.get(id=dana.id)
            lock(contact)
            locked.set()
            time.sleep(0.5)  # the sender reaches the contact meanwhile and must wait for this commit
            contact.last = {**(contact.last or {}), "summary": "Called Dana about the quote"}
            contact.save(update_fields=["last"])

    def the_worker_sends_it():
        locked.wait(timeout=60)
        return mail_hold.email_send(held.id, now=held.send_at)

    with threads_on_a_file():
        writer, sent = all_at_once([another_process_writes_the_contact, the_worker_sends_it])
        last = in_a_thread(lambda: Contact.objects.get(id=dana.id).last)
    assert (writer, sent) == (None, "sent")
    assert (last["summary"], last["channel"]) == ("Called Dana about the quote", "mail")
