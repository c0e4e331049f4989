"""The local mailbox on its own: search words, threads, attachments, drafts, sending through Django's email backend,
new mail for events, and importing .mbox / .eml."""

import datetime
import mailbox
from email.message import EmailMessage

import pytest
from django.core import mail as django_mail
from django.core.management import call_command

from core.errors import ToolError
from integrations.local.models_mail import LocalMailMessage, LocalMailThread, MailWatch
from integrations.mail_text import mime_message
from integrations.providers.base import MailQuery, OutgoingMail
from integrations.providers.local_mail import LocalMailProvider
from integrations.services import connection_create_local
from integrations.tasks_mail import poll_connection
from routines.models import Event
from tests.integrations.mail_helpers import DAY, mail_root, sent_copies, store  # noqa: F401


@pytest.fixture
def box(local):
    return LocalMailProvider(local)


def later(hours):
    return DAY + datetime.timedelta(hours=hours)


def titles(page):
    return [h.title for h in page.items]


def search(box, text=None, limit=10, **fields):
    return box.search(MailQuery(text=text, **fields), limit=limit)


# --- search ---------------------------------------------------------------------------------------------------


def test_search_gives_threads_newest_first(box, local):
    store(local, subject="Older", at=DAY)
    store(local, subject="Newer", at=later(2))
    assert titles(search(box)) == ["Newer", "Older"]


def test_a_reply_brings_its_thread_to_the_top(box, local):
    first = store(local, subject="Quote", at=DAY)
    store(local, subject="Other", at=later(1))
    store(local, subject="Re: Quote", at=later(2), thread=first.thread.key)
    assert titles(search(box)) == ["Quote", "Other"]


def test_a_hit_has_everyone_on_the_thread_but_the_owner(box, local):
    first = store(local, cc=["Rosa Ortiz <rosa@ortizbakery.test>"])
    store(local, sender="sam@fernhill.test", to=["dana@juniperdental.test", "marco@ruizprint.test"], box="sent",
          at=later(1), thread=first.thread.key)
    assert search(box).items[0].people == [
        "Dana Whitfield <dana@juniperdental.test>", "Rosa Ortiz <rosa@ortizbakery.test>", "marco@ruizprint.test"
    ]


def test_a_hit_carries_its_id_sender_date_and_snippet_without_quotes(box, local):
    message = store(local, text="Sounds good.\n\nOn Tue, Nov 10, 2026 at 9:00 AM Sam wrote:\n> Our quote is $8,400")
    hit = search(box).items[0]
    assert (hit.id, hit.type, hit.who, hit.date, hit.snippet, hit.url) == (
        f"{local.account_key}:{message.thread.key}", "email", "Dana Whitfield <dana@juniperdental.test>", DAY,
        "Sounds good.", f"mail:{local.account_key}:{message.thread.key}",
    )


@pytest.mark.parametrize("words, found", [
    ("from:dana", ["Dana's"]),
    ("from:rosa@ortizbakery.test", ["Rosa's"]),
    ("to:marco", ["Sam's"]),
    ("subject:menu", ["Rosa's"]),
    ("in:sent", ["Sam's"]),
    ("in:inbox", ["Rosa's", "Dana's"]),
    ("logo", ["Dana's"]),
    ('"menu boards"', ["Rosa's"]),
    ("-logo", ["Sam's", "Rosa's"]),
    ("from:dana OR from:rosa", ["Rosa's", "Dana's"]),
    ("{from:dana subject:menu}", ["Rosa's", "Dana's"]),
    ("in:sent -category:promotions", ["Sam's"]),
    ("has:attachment", ["Rosa's"]),
    ("filename:invoice", ["Rosa's"]),
    ("after:2026-11-11", ["Sam's", "Rosa's"]),
    ("before:2026/11/11", ["Dana's"]),
])
def test_search_words(box, local, words, found):
    store(local, subject="Dana's", text="A new logo", at=DAY)
    store(local, sender="Rosa Ortiz <rosa@ortizbakery.test>", subject="Rosa's menu", text="The menu boards",
          at=later(24), attachments=[("invoice.pdf", "application/pdf", b"%PDF")])
    store(local, sender="sam@fernhill.test", to=["marco@ruizprint.test"], subject="Sam's", text="Print run",
          box="sent", at=later(48))
    assert [t.split()[0] for t in titles(search(box, words))] == found


def test_search_fields_narrow_like_their_words(box, local):
    store(local, subject="Dana's", at=DAY)
    store(local, sender="rosa@ortizbakery.test", subject="Rosa's", at=later(24),
          attachments=[("a.txt", "text/plain", b"x")])
    narrowed = search(box, sender="rosa", after=datetime.date(2026, 11, 11), has_attachment=True)
    assert titles(narrowed) == ["Rosa's"]


def test_a_search_word_the_local_mailbox_lacks_is_refused_with_what_it_knows(box, local):
    with pytest.raises(ToolError) as caught:
        search(box, "category:promotions")
    assert caught.value.kind == "bad_input" and "in:sent" in caught.value.message


def test_a_bad_date_is_bad_input_naming_it(box, local):
    with pytest.raises(ToolError) as caught:
        search(box, "after:tomorrow")
    assert caught.value.message.startswith("after:")


def test_drafts_stay_out_of_search_unless_asked_for(box, local):
    store(local, sender="sam@fernhill.test", subject="Draft", box="draft")
    assert (titles(search(box)), titles(search(box, "in:drafts"))) == ([], ["Draft"])


def test_search_pages_with_next_page(box, local):
    for hour in range(5):
        store(local, subject=f"T{hour}", at=later(hour))
    first = search(box, limit=3)
    second = box.search(MailQuery(), limit=3, page=first.next_page)
    assert (titles(first), titles(second), second.next_page) == (["T4", "T3", "T2"], ["T1", "T0"], None)


def test_another_accounts_mail_is_not_searched(box, local, org):
    other = connection_create_local(org=org, account="studio@fernhill.test", groups=["mail"])
    store(other, subject="Elsewhere")
    assert titles(search(box)) == []


# --- reading --------------------------------------------------------------------------------------------------


def test_a_thread_reads_oldest_first_with_attachments(box, local):
    first = store(local, at=DAY, attachments=[("brief.txt", "text/plain", b"Logo and signage")])
    store(local, sender="sam@fernhill.test", box="sent", subject="Re: Rebrand", text="Yes!", at=later(1),
          thread=first.thread.key)
    thread = box.read_thread(first.thread.key)
    assert ([m.text for m in thread.messages], [(a.name, a.size) for a in thread.messages[0].attachments]) == (
        ["Could you quote a new logo?", "Yes!"], [("brief.txt", 16)]
    )


def test_a_thread_read_leaves_drafts_out(box, local):
    first = store(local)
    store(local, sender="sam@fernhill.test", box="draft", text="Draft", thread=first.thread.key, at=later(1))
    assert len(box.read_thread(first.thread.key).messages) == 1


def test_an_unknown_thread_is_not_found(box, local):
    with pytest.raises(ToolError) as caught:
        box.read_thread("0000000000000000")
    assert caught.value.kind == "not_found"


def test_an_attachment_reads_as_its_bytes(box, local):
    first = store(local, attachments=[("rates.csv", "text/csv", b"item,price\nlogo,4800\n")])
    attachment = box.read_thread(first.thread.key).messages[0].attachments[0]
    data = box.read_attachment(first.thread.key, attachment.id.split(":", 1)[1])
    assert (data.name, data.mime_type, data.data) == ("rates.csv", "text/csv", b"item,price\nlogo,4800\n")


def test_an_attachment_asked_for_in_another_thread_is_not_found(box, local):
    first = store(local, attachments=[("rates.csv", "text/csv", b"x")])
    other = store(local, subject="Other")
    key = box.read_thread(first.thread.key).messages[0].attachments[0].id.split(":", 1)[1]
    with pytest.raises(ToolError) as caught:
        box.read_attachment(other.thread.key, key)
    assert caught.value.kind == "not_found"


def test_attachments_bytes_are_kept_under_the_mail_folder(box, local, mail_root):  # noqa: F811
    store(local, attachments=[("rates.csv", "text/csv", b"x")])
    assert len([p for p in (mail_root / str(local.organization_id)).rglob("*") if p.is_file()]) == 1


# --- drafts and sending ---------------------------------------------------------------------------------------


def outgoing(**fields):
    values = {"to": ["dana@juniperdental.test"], "subject": "Re: Rebrand", "text": "Hi Dana"} | fields
    return OutgoingMail(**values)


def test_a_draft_is_kept_in_its_thread_and_sends_nothing(box, local):
    first = store(local)
    made = box.draft(outgoing(thread_id=first.thread.key))
    stored = LocalMailMessage.objects.get(key=made.draft_id.split(":")[1])
    assert (stored.box, stored.thread_id, made.thread_id, django_mail.outbox) == (
        "draft", first.thread_id, f"{local.account_key}:{first.thread.key}", []
    )


def test_send_goes_through_the_email_backend_with_its_message_id(box, local):
    box.send(outgoing(message_id="<roadstar.1@fernhill.test>", cc=["rosa@ortizbakery.test"]))
    sent = django_mail.outbox[0]
    assert (sent.to, sent.cc, sent.from_email, sent.extra_headers["Message-ID"]) == (
        ["dana@juniperdental.test"], ["rosa@ortizbakery.test"], "sam@fernhill.test", "<roadstar.1@fernhill.test>"
    )


def test_a_reply_goes_with_in_reply_to_and_stays_in_its_thread(box, local):
    first = store(local, message_id="<dana.1@juniperdental.test>")
    ref = box.send(outgoing(thread_id=first.thread.key, message_id="<r@fernhill.test>"))
    assert (django_mail.outbox[0].extra_headers["In-Reply-To"], ref.thread_id) == (
        "<dana.1@juniperdental.test>", f"{local.account_key}:{first.thread.key}"
    )


def test_a_sent_email_is_kept_as_sent_with_its_attachments(box, local):
    from integrations.providers.base import FileData

    box.send(outgoing(message_id="<r@fernhill.test>", attachments=[FileData("quote.pdf", "application/pdf", b"%PDF")]))
    copy = sent_copies(local)[0]
    assert (copy.message_id, [a.name for a in copy.attachments.all()], django_mail.outbox[0].attachments[0][0]) == (
        "<r@fernhill.test>", ["quote.pdf"], "quote.pdf"
    )


def test_find_sent_finds_an_email_by_its_message_id(box, local):
    ref = box.send(outgoing(message_id="<r@fernhill.test>"))
    assert (box.find_sent("<r@fernhill.test>"), box.find_sent("<other@fernhill.test>")) == (ref, None)


def test_a_delivery_that_fails_is_unavailable_and_keeps_no_sent_copy(box, local, settings):
    settings.MAILERS = {"default": {"BACKEND": "tests.integrations.test_local_mail.RefusingBackend"}}
    with pytest.raises(ToolError) as caught:
        box.send(outgoing(message_id="<r@fernhill.test>"))
    assert (caught.value.kind, sent_copies(local)) == ("unavailable", [])


class RefusingBackend:
    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        raise ConnectionRefusedError("no mail server")


# --- new mail -------------------------------------------------------------------------------------------------


def test_changes_first_starts_watching_from_now(box, local):
    store(local)
    changes = box.changes(None)
    assert (changes.items, box.changes(changes.cursor).items) == ([], [])


def test_changes_gives_mail_received_since_the_cursor_oldest_first(box, local):
    cursor = box.changes(None).cursor
    store(local, subject="One", at=DAY)
    store(local, sender="sam@fernhill.test", box="sent", subject="Mine", at=later(1))
    store(local, subject="Two", at=later(2))
    changes = box.changes(cursor)
    assert ([m.subject for m in changes.items], box.changes(changes.cursor).items) == (["One", "Two"], [])


def test_polling_emits_an_event_per_new_email_with_its_keys(local):
    poll_connection(local)
    message = store(local, cc=["rosa@ortizbakery.test", "sam@fernhill.test"])
    poll_connection(local)
    event = Event.objects.get()
    assert (event.kind, event.keys) == ("mail.received", [
        "kind:mail.received", "from:dana@juniperdental.test", "domain:juniperdental.test",
        "with:dana@juniperdental.test", "with:rosa@ortizbakery.test",
        f"thread:{local.account_key}:{message.thread.key}",
    ])


def test_an_events_text_is_the_sender_subject_and_words(local):
    poll_connection(local)
    store(local, text="Could you quote a new logo?\n\nOn Mon Sam wrote:\n> hello")
    poll_connection(local)
    assert Event.objects.get().text == (
        "From: Dana Whitfield <dana@juniperdental.test>\nSubject: Rebrand for our second clinic\n\n"
        "Could you quote a new logo?"
    )


def test_the_owners_own_mail_is_no_event(local):
    poll_connection(local)
    store(local, sender="Sam Rivera <sam@fernhill.test>", to=["dana@juniperdental.test"], box="inbox")
    assert (poll_connection(local), Event.objects.count()) == (0, 0)


def test_two_polls_of_one_stretch_tell_of_it_once(local, monkeypatch):
    poll_connection(local)
    store(local)
    watch = MailWatch.objects.get(connection=local)
    stale = watch.cursor
    poll_connection(local)
    MailWatch.objects.filter(pk=watch.pk).update(cursor=stale)
    real = MailWatch.objects.get_or_create

    def stale_watch(**kwargs):  # a second worker that read the cursor before the first moved it
        row, made = real(**kwargs)
        MailWatch.objects.filter(pk=row.pk).update(cursor="moved on")
        return row, made

    monkeypatch.setattr(MailWatch.objects, "get_or_create", stale_watch)
    assert (poll_connection(local), Event.objects.count()) == (0, 1)


def test_the_poll_task_goes_through_every_mail_account_and_a_failing_one_stops_no_other(local, org, monkeypatch):
    from integrations import tasks_mail

    other = connection_create_local(org=org, account="studio@fernhill.test", groups=["mail"])
    tasks_mail.poll()
    store(local)
    store(other, subject="Studio mail")
    real = LocalMailProvider.changes

    def failing_for_the_first(self, cursor):
        if self.connection.pk == local.pk:
            raise ToolError("unavailable", "down")
        return real(self, cursor)

    monkeypatch.setattr(LocalMailProvider, "changes", failing_for_the_first)
    assert (tasks_mail.poll(), Event.objects.get().payload["subject"]) == (1, "Studio mail")


# --- importing ------------------------------------------------------------------------------------------------


def raw_email(*, sender, to, subject, text, date, message_id, in_reply_to=None, attachment=None) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message["Date"], message["Message-ID"] = date, message_id
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = in_reply_to
    message.set_content(text)
    if attachment:
        message.add_attachment(attachment[1], maintype="text", subtype="csv", filename=attachment[0])
    return message.as_bytes()


@pytest.fixture
def exported(tmp_path):
    enquiry = raw_email(sender="Dana Whitfield <dana@juniperdental.test>", to="sam@fernhill.test",
                        subject="Rebrand for our second clinic", text="Could you quote a logo?",
                        date="Tue, 10 Nov 2026 10:12:00 -0500", message_id="<dana.1@juniperdental.test>",
                        attachment=("brief.csv", b"item\nlogo\n"))
    reply = raw_email(sender="Sam Rivera <sam@fernhill.test>", to="dana@juniperdental.test",
                      subject="Re: Rebrand for our second clinic", text="Happy to.",
                      date="Tue, 10 Nov 2026 11:00:00 -0500", message_id="<sam.1@fernhill.test>",
                      in_reply_to="<dana.1@juniperdental.test>")
    other = raw_email(sender="rosa@ortizbakery.test", to="sam@fernhill.test", subject="Menu boards", text="Thanks",
                      date="Wed, 11 Nov 2026 09:00:00 -0500", message_id="<rosa.1@ortizbakery.test>")
    folder = tmp_path / "export"
    folder.mkdir()
    archive = mailbox.mbox(str(folder / "all.mbox"))
    archive.add(enquiry)
    archive.add(other)
    archive.close()
    (folder / "reply.eml").write_bytes(reply)
    return folder


def test_import_mail_threads_replies_and_keeps_the_owners_mail_as_sent(org, local, exported, capsys):
    call_command("import_mail", str(exported))
    thread = LocalMailThread.objects.get(connection=local, subject="Rebrand for our second clinic")
    boxes = list(thread.messages.order_by("date").values_list("box", flat=True))
    assert (boxes, LocalMailThread.objects.filter(connection=local).count()) == (["inbox", "sent"], 2)


def test_import_mail_keeps_attachments(org, local, exported):
    call_command("import_mail", str(exported / "all.mbox"))
    message = LocalMailMessage.objects.get(connection=local, message_id="<dana.1@juniperdental.test>")
    attachment = message.attachments.get()
    assert (attachment.name, attachment.size) == ("brief.csv", len(b"item\nlogo\n"))


def test_importing_again_adds_nothing(org, local, exported, capsys):
    call_command("import_mail", str(exported))
    call_command("import_mail", str(exported))
    assert capsys.readouterr().out.strip().splitlines()[-1] == "0 messages imported, 3 already there."


def test_import_mail_makes_a_local_mailbox_when_there_is_none(org, exported, capsys):
    call_command("import_mail", str(exported / "reply.eml"))
    message = LocalMailMessage.objects.get()
    assert (message.connection.app, message.connection.account, message.box) == ("local", "sam@fernhill.test", "sent")


def test_an_imported_html_only_email_reads_as_text(org, local, tmp_path):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "dana@juniperdental.test", "sam@fernhill.test", "Hi"
    message["Message-ID"] = "<h@x.test>"
    message.set_content("<p>Hello <b>Sam</b></p><blockquote>old words</blockquote>", subtype="html")
    (tmp_path / "h.eml").write_bytes(message.as_bytes())
    call_command("import_mail", str(tmp_path / "h.eml"))
    stored = LocalMailMessage.objects.get()
    assert stored.text == "Hello Sam\n\n> old words"


def test_mime_message_carries_threading_headers_and_signature():
    made = mime_message(outgoing(message_id="<m@x.test>"), sender="sam@fernhill.test", in_reply_to="<a@x.test>",
                        references="<z@x.test>", signature="Sam Rivera\nFernhill Studio")
    assert (made["References"], made["Message-ID"], made.get_content()) == (
        "<z@x.test> <a@x.test>", "<m@x.test>", "Hi Dana\n\n-- \nSam Rivera\nFernhill Studio\n"
    )
