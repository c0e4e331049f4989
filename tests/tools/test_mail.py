"""The mail group through use_tool, as a thread runs it, on the local mailbox: search across accounts, threads and
attachments read as text, drafts, and mail.send's two-minute hold with Undo."""

import datetime
import io

import pytest
from django.core import mail as django_mail
from django.utils import timezone
from freezegun import freeze_time

from core.actors import Actor
from core.models import Change
from core.services import change_undo
from core.timefmt import iso
from integrations import mail_hold
from integrations.local.models_mail import HeldEmail, LocalMailMessage
from integrations.models import Connection
from integrations.services import connection_create_local
from records.models import LogEntry
from tests.factories import ContactFactory
from tests.integrations.mail_helpers import DAY, mail_root, store  # noqa: F401
from tests.spec import spec_page, spec_tool_names, spec_tools
from tools import registry
from tools.pipeline import use_tool

NOW = datetime.datetime(2026, 11, 10, 15, 0, tzinfo=datetime.UTC)


@pytest.fixture
def box(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])


@pytest.fixture
def dana(org):
    return ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])


@pytest.fixture
def enquiry(box):
    return store(box, message_id="<dana.1@juniperdental.test>",
                 text="Could you quote a new logo and signage?\n\nDana Whitfield\nPractice manager, Juniper Dental")


def tid(connection, message) -> str:
    return f"{connection.account_key}:{message.thread.key}"


def bad_input_on(out: dict, field: str) -> bool:
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


def later(hours):
    return DAY + datetime.timedelta(hours=hours)


def after_the_hold():
    return timezone.now() + mail_hold.HOLD + datetime.timedelta(seconds=1)


# --- the declarations match the spec --------------------------------------------------------------------------


def mail_spec():
    return {n: t for n, t in spec_tools().items() if t["group"] == "mail"}


def test_the_group_has_the_spec_tools():
    assert sorted(t.name for t in registry.tools_of("mail")) == sorted(mail_spec())


@pytest.mark.parametrize("name", sorted(spec_tool_names(lambda t: t["group"] == "mail"), key=str))
def test_declaration_matches_spec(name):
    tool, spec = registry.get_tool(name).describe(), mail_spec()[name]
    assert (tool["description"], tool["owners_yes"], tool["your_work"]) == (
        spec["does"], spec["owners_yes"], spec["your_work"]
    )


@pytest.mark.parametrize("name", sorted(spec_tool_names(lambda t: t["group"] == "mail"), key=str))
def test_inputs_match_spec(name):
    schema = registry.get_tool(name).input_schema()
    spec = mail_spec()[name]
    assert (set(schema["properties"]), set(schema.get("required", []))) == (
        {i["name"] for i in spec["inputs"]}, {i["name"] for i in spec["inputs"] if i["required"]}
    )


def test_the_how_to_is_the_specs_word_for_word():
    block = spec_page("tools/mail.md").split("## How to use it", 1)[1].split("## Tools", 1)[0]
    how_to = " ".join(line[2:] for line in block.splitlines() if line.startswith("> ")).strip()
    assert (registry.GROUPS["mail"].how_to, registry.GROUPS["mail"].summary) == (how_to, "the owner's Gmail")


# --- limits ---------------------------------------------------------------------------------------------------

LONG = "x" * 20001


@pytest.mark.parametrize("tool, inp, field", [
    ("mail.search", {"query": "q" * 501}, "query"),
    ("mail.search", {"from": "f" * 201}, "from"),
    ("mail.search", {"to": "t" * 201}, "to"),
    ("mail.search", {"after": "a" * 41}, "after"),
    ("mail.search", {"after": "last week"}, "after"),
    ("mail.search", {"before": "2026-13-01"}, "before"),
    ("mail.search", {"source": "s" * 121}, "source"),
    ("mail.search", {"limit": 0}, "limit"),
    ("mail.search", {"limit": 21}, "limit"),
    ("mail.search", {"page": "p" * 4001}, "page"),
    ("mail.search", {"hasAttachment": "yes please"}, "hasAttachment"),
    ("mail.read", {"id": "ab"}, "id"),
    ("mail.read", {"id": "i" * 501}, "id"),
    ("mail.read", {"id": "7c41e2d0:abc", "attachment": "a" * 301}, "attachment"),
    ("mail.read", {"id": "7c41e2d0:abc", "offset": -1}, "offset"),
    ("mail.read", {}, "id"),
    ("mail.draft", {"subject": "s", "text": "t", "to": ["not an address"]}, "to[0]"),
    ("mail.draft", {"subject": "s", "text": "t", "to": [f"{'d' * 190}@juniper.test"]}, "to[0]"),
    ("mail.draft", {"subject": "s", "text": "t", "to": [f"p{i}@x.test" for i in range(21)]}, "to"),
    ("mail.draft", {"subject": "s", "text": "t", "cc": [f"p{i}@x.test" for i in range(21)]}, "cc"),
    ("mail.draft", {"subject": "s" * 301, "text": "t"}, "subject"),
    ("mail.draft", {"subject": "s", "text": LONG}, "text"),
    ("mail.draft", {"subject": "s", "text": "t", "threadId": "t" * 301}, "threadId"),
    ("mail.draft", {"subject": "s", "text": "t", "attach": [{"file": "f"}] * 11}, "attach"),
    ("mail.draft", {"subject": "s", "text": "t", "attach": [{"email": "e"}]}, "attach[0]"),
    ("mail.draft", {"subject": "s", "text": "t", "attach": [{"file": "f", "workspace": "w"}]}, "attach[0]"),
    ("mail.draft", {"text": "t"}, "subject"),
    ("mail.send", {"subject": "s", "text": ""}, "text"),
    ("mail.send", {"subject": "s", "text": LONG}, "text"),
    ("mail.send", {"subject": "s"}, "text"),
    ("mail.send", {"subject": "s", "text": "t", "to": ["dana.juniper"]}, "to[0]"),
    ("mail.send", {"subject": "s", "text": "t", "replyAll": "everyone"}, "replyAll"),
    ("mail.send", {"subject": "s", "text": "t", "bcc": ["x@y.test"]}, "bcc"),
])
def test_limits_are_bad_input_naming_the_field(use, tool, inp, field):
    assert bad_input_on(use(tool, **inp), field)


# --- search ---------------------------------------------------------------------------------------------------


def test_search_gives_hits_with_their_source_and_the_accounts_searched(use, box, enquiry):
    out = use("mail.search", query="logo")
    assert (out["hits"], out["searched"], out["failed"]) == ([{
        "id": tid(box, enquiry), "title": "Rebrand for our second clinic", "type": "email",
        "url": f"mail:{tid(box, enquiry)}", "who": "Dana Whitfield <dana@juniperdental.test>",
        "people": ["Dana Whitfield <dana@juniperdental.test>"], "snippet": " ".join(enquiry.text.split()),
        "date": "2026-11-10T15:12:00Z", "source": "sam@fernhill.test",
    }], ["sam@fernhill.test"], [])


def test_search_merges_accounts_newest_first(use, org, box):
    studio = connection_create_local(org=org, account="studio@fernhill.test", groups=["mail"])
    store(box, subject="A1", at=later(1))
    store(studio, subject="B2", at=later(2))
    store(box, subject="A3", at=later(3))
    assert [(h["title"], h["source"]) for h in use("mail.search")["hits"]] == [
        ("A3", "sam@fernhill.test"), ("B2", "studio@fernhill.test"), ("A1", "sam@fernhill.test")
    ]


def test_source_searches_only_the_accounts_it_names(use, org, box):
    studio = connection_create_local(org=org, account="studio@fernhill.test", groups=["mail"])
    store(box, subject="Mine")
    store(studio, subject="Studio's")
    out = use("mail.search", source="studio")
    assert ([h["title"] for h in out["hits"]], out["searched"]) == (["Studio's"], ["studio@fernhill.test"])


def test_a_source_that_names_no_account_is_bad_input_listing_them(use, box):
    out = use("mail.search", source="nobody")
    assert bad_input_on(out, "source") and "sam@fernhill.test" in out["message"]


def test_an_account_that_fails_is_listed_in_failed_and_the_rest_answer(use, org, box, enquiry):
    stopped = connection_create_local(org=org, account="old@fernhill.test", groups=["mail"])
    Connection.objects.filter(pk=stopped.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    out = use("mail.search")
    assert ([h["id"] for h in out["hits"]], out["failed"]) == ([tid(box, enquiry)], [{
        "source": "old@fernhill.test", "kind": "reauth", "message": out["failed"][0]["message"],
        "integration": "local", "connection": stopped.account_key,
    }])


def test_paging_across_accounts_shows_every_thread_once_newest_first(use, org, box):
    studio = connection_create_local(org=org, account="studio@fernhill.test", groups=["mail"])
    hours = {box: [1, 2, 3, 7, 8, 9, 12], studio: [4, 5, 6, 10, 11]}
    for connection, at in hours.items():
        for hour in at:
            store(connection, subject=f"T{hour:02d}", at=later(hour))
    seen, page = [], None
    for _ in range(10):
        out = use("mail.search", limit=3, **({"page": page} if page else {}))
        seen += [h["title"] for h in out["hits"]]
        page = out.get("nextPage")
        if page is None:
            break
    assert seen == [f"T{h:02d}" for h in range(12, 0, -1)]


@pytest.mark.parametrize("seed", range(5))
def test_paging_three_accounts_with_any_page_size_loses_and_repeats_nothing(use, org, box, seed):
    import random

    rng = random.Random(seed)
    accounts = [box] + [connection_create_local(org=org, account=f"a{i}@fernhill.test", groups=["mail"])
                        for i in range(2)]
    minutes = rng.sample(range(1, 500), 25)
    for minute in minutes:
        store(rng.choice(accounts), subject=f"M{minute:03d}", at=DAY + datetime.timedelta(minutes=minute))
    seen, page = [], None
    for _ in range(40):
        out = use("mail.search", limit=rng.randint(1, 6), **({"page": page} if page else {}))
        seen += [h["title"] for h in out["hits"]]
        page = out.get("nextPage")
        if page is None:
            break
    assert seen == [f"M{m:03d}" for m in sorted(minutes, reverse=True)]


def test_paging_stays_newest_first_when_an_app_gives_short_pages(use, org, box, monkeypatch):
    """Gmail may answer with fewer threads than asked and more to come: nothing older is shown before them."""
    from integrations import mail_service
    from integrations.providers.base import Hit, Page

    studio = connection_create_local(org=org, account="studio@fernhill.test", groups=["mail"])
    times = {box.account_key: [50, 40, 39, 38, 37], studio.account_key: [45, 10, 5, 4, 3]}

    class Short:
        def __init__(self, connection):
            self.key = connection.account_key

        def search(self, query, *, limit, page=None):
            start = int(page or 0)
            size = min(limit, 2) if self.key == box.account_key else limit
            hits = [Hit(id=f"{self.key}:{m}", title=str(m), type="email", url="u",
                        date=DAY + datetime.timedelta(minutes=m)) for m in times[self.key]]
            end = start + size
            return Page(hits[start:end], str(end) if end < len(hits) else None)

    monkeypatch.setattr(mail_service, "mail_provider", lambda connection, asker=None: Short(connection))
    seen, page = [], None
    for _ in range(20):
        out = use("mail.search", limit=4, **({"page": page} if page else {}))
        seen += [int(h["title"]) for h in out["hits"]]
        page = out.get("nextPage")
        if page is None:
            break
    assert seen == sorted(times[box.account_key] + times[studio.account_key], reverse=True)


def test_the_last_page_has_no_next_page(use, box, enquiry):
    assert "nextPage" not in use("mail.search", limit=5)


def test_a_page_from_another_search_is_bad_input(use, box):
    for hour in range(3):
        store(box, subject=f"T{hour}", at=later(hour))
    page = use("mail.search", query="T", limit=1)["nextPage"]
    assert bad_input_on(use("mail.search", query="other", page=page), "page")


def test_a_made_up_page_is_bad_input(use, box):
    assert bad_input_on(use("mail.search", page="not-a-page"), "page")


def test_limit_defaults_to_ten(use, box):
    for hour in range(12):
        store(box, subject=f"T{hour}", at=later(hour))
    assert len(use("mail.search")["hits"]) == 10


def test_counts_people_says_who_the_owner_writes_with_most(use, box):
    for hour, to in enumerate(["dana@juniperdental.test", "rosa@ortizbakery.test", "Dana Whitfield "
                               "<dana@juniperdental.test>"]):
        store(box, sender="sam@fernhill.test", to=[to], box="sent", subject=f"S{hour}", at=later(hour))
    assert use("mail.search", query="in:sent")["counts"]["people"] == {
        "Dana Whitfield <dana@juniperdental.test>": 2, "rosa@ortizbakery.test": 1
    }


def test_search_fields_filter(use, box, enquiry):
    store(box, sender="rosa@ortizbakery.test", subject="Menu", at=later(30))
    out = use("mail.search", **{"from": "rosa", "after": "2026-11-11", "hasAttachment": False})
    assert [h["title"] for h in out["hits"]] == ["Menu"]


def test_search_with_no_mail_account_is_not_connected(use, org):
    assert use("mail.search")["error"] == "not_connected"


# --- read -----------------------------------------------------------------------------------------------------


def test_read_gives_the_thread_as_its_messages_without_quoted_text(use, box, enquiry):
    store(box, sender="sam@fernhill.test", to=["dana@juniperdental.test"], box="sent", subject="Re: Rebrand",
          thread=enquiry.thread.key, at=later(1),
          text="Happy to, Dana.\n\nOn Tue, Nov 10, 2026 at 10:12 AM Dana Whitfield <dana@juniperdental.test> "
               "wrote:\n> Could you quote a new logo and signage?")
    out = use("mail.read", id=tid(box, enquiry))
    assert (out["title"], out["id"], out["source"], out["url"], out["text"]) == (
        "Rebrand for our second clinic", tid(box, enquiry), "sam@fernhill.test", f"mail:{tid(box, enquiry)}",
        "From: Dana Whitfield <dana@juniperdental.test>\nTo: sam@fernhill.test\n"
        "Date: Tue Nov 10, 2026, 10:12 AM EST\n\n"
        "Could you quote a new logo and signage?\n\nDana Whitfield\nPractice manager, Juniper Dental"
        "\n\n---\n\n"
        "From: sam@fernhill.test\nTo: dana@juniperdental.test\nDate: Tue Nov 10, 2026, 11:12 AM EST\n"
        "Subject: Re: Rebrand\n\nHappy to, Dana.",
    )


def test_read_lists_the_threads_attachments(use, box):
    message = store(box, attachments=[("rates.csv", "text/csv", b"item,price\n")])
    out = use("mail.read", id=tid(box, message))
    attachment = message.attachments.get()
    assert out["attachments"] == [{"id": f"{box.account_key}:{attachment.key}", "name": "rates.csv", "size": 11}]


def _pdf(text: str) -> bytes:
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        None,
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
    objects[3] = f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream"
    out, offsets = "%PDF-1.4\n", []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n" + "".join(f"{o:010d} 00000 n \n" for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return out.encode()


def _docx(text: str) -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Logo", "$4,800"
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _xlsx() -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    book.active.title = "Rates"
    book.active.append(["Item", "Price"])
    book.active.append(["Logo", 4800])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("name, mime, data, text", [
    ("rates.csv", "text/csv", b"item,price\nlogo,4800\n", "item,price\nlogo,4800\n"),
    ("notes.md", "application/octet-stream", b"# Notes\n\nTwo clinics", "# Notes\n\nTwo clinics"),
    ("quote.pdf", "application/pdf", _pdf("Logo and signage 8400"), "Logo and signage 8400"),
    ("brief.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
     _docx("Brand brief"), "Brand brief\nLogo | $4,800"),
    ("rates.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", _xlsx(),
     "## Rates\nItem,Price\nLogo,4800"),
])
def test_an_attachment_reads_as_its_text(use, box, name, mime, data, text):
    message = store(box, attachments=[(name, mime, data)])
    attachment = f"{box.account_key}:{message.attachments.get().key}"
    out = use("mail.read", id=tid(box, message), attachment=attachment)
    assert (out["title"], out["text"].strip(), out["id"], out["source"]) == (
        name, text.strip(), attachment, "sam@fernhill.test"
    )


def test_a_picture_attachment_comes_back_as_an_image(use, box):
    message = store(box, attachments=[("logo.png", "image/png", b"\x89PNG fake")])
    out = use("mail.read", id=tid(box, message), attachment=f"{box.account_key}:{message.attachments.get().key}")
    assert out["image"] == {"mimeType": "image/png", "data": "iVBORyBmYWtl"}


def test_an_attachment_without_text_is_unsupported(use, box):
    message = store(box, attachments=[("archive.zip", "application/zip", b"PK\x03\x04")])
    out = use("mail.read", id=tid(box, message), attachment=f"{box.account_key}:{message.attachments.get().key}")
    assert out["error"] == "unsupported"


def test_an_attachment_of_another_thread_is_not_found(use, box, enquiry):
    other = store(box, subject="Other", attachments=[("a.txt", "text/plain", b"x")])
    out = use("mail.read", id=tid(box, enquiry), attachment=f"{box.account_key}:{other.attachments.get().key}")
    assert out["error"] == "not_found"


def test_long_text_comes_in_pages_with_next_offset(use, box):
    message = store(box, text="word " * 8000)
    first = use("mail.read", id=tid(box, message))
    second = use("mail.read", id=tid(box, message), offset=first["nextOffset"])
    assert (len(first["text"]), first["nextOffset"], "nextOffset" in second, first["text"] + second["text"]) == (
        30000, 30000, False, use("mail.read", id=tid(box, message), offset=0)["text"] + second["text"]
    )


def test_an_offset_past_the_end_is_bad_input(use, box, enquiry):
    assert bad_input_on(use("mail.read", id=tid(box, enquiry), offset=99999), "offset")


def test_reading_an_unknown_thread_is_not_found(use, box):
    assert use("mail.read", id=f"{box.account_key}:0000000000000000")["error"] == "not_found"


# --- draft ----------------------------------------------------------------------------------------------------


def test_a_reply_draft_goes_in_its_thread_to_the_sender(use, box, enquiry):
    out = use("mail.draft", threadId=tid(box, enquiry), subject="Re: Rebrand", text="Happy to quote.")
    stored = LocalMailMessage.objects.get(box="draft")
    assert (out, stored.thread_id, stored.in_reply_to, django_mail.outbox) == (
        {"draftId": f"{box.account_key}:{stored.key}", "threadId": tid(box, enquiry),
         "to": ["dana@juniperdental.test"]},
        enquiry.thread_id, "<dana.1@juniperdental.test>", [],
    )


def test_a_draft_is_listed_on_home_without_undo(use, box):
    use("mail.draft", to=["dana@juniperdental.test"], subject="Quote", text="Hi")
    change = Change.objects.get(tool="mail.draft")
    assert (change.listing, change.sentence, change.undo) == (
        "home", "drafted an email to dana@juniperdental.test: “Quote”", None
    )


def test_a_draft_is_on_the_contacts_log(use, box, dana):
    out = use("mail.draft", to=["Dana@JuniperDental.test"], subject="Quote", text="Hi")
    entry = LogEntry.objects.get(contact=dana, kind="drafted")
    assert entry.extra == {"subject": "Quote", "to": ["dana@juniperdental.test"], "thread": out["threadId"]}


def test_a_draft_with_nobody_to_send_to_is_bad_input(use, box):
    assert bad_input_on(use("mail.draft", subject="Quote", text="Hi"), "to")


def test_a_draft_can_carry_an_attachment_from_another_email(use, box):
    message = store(box, attachments=[("rates.csv", "text/csv", b"a,b")])
    use("mail.draft", to=["rosa@ortizbakery.test"], subject="Rates", text="Attached.",
        attach=[{"email": tid(box, message), "attachment": f"{box.account_key}:{message.attachments.get().key}"}])
    assert [a.name for a in LocalMailMessage.objects.get(box="draft").attachments.all()] == ["rates.csv"]


# --- send -----------------------------------------------------------------------------------------------------


def send(use, **fields):
    return use("mail.send", **({"to": ["dana@juniperdental.test"], "subject": "Quote", "text": "Hi Dana"} | fields))


def test_send_holds_the_email_and_says_when_it_goes(use, box):
    with freeze_time(NOW):
        out = send(use)
    held = HeldEmail.objects.get()
    assert out == {
        "held": {"trigger": 1, "at": "2026-11-10T15:02:00Z", "to": ["dana@juniperdental.test"]},
        "threadId": f"{box.account_key}:held-1",
        "note": "Held on Home for two minutes, where Sam can Undo it; it goes to dana@juniperdental.test at "
                "Tue Nov 10, 2026, 10:02 AM EST. It's done: don't send it again.",
    } and held.state == "held"


def test_nothing_goes_during_the_hold(use, box):
    send(use)
    mail_hold.email_sweep(now=timezone.now() + datetime.timedelta(seconds=119))
    assert (django_mail.outbox, LocalMailMessage.objects.filter(box="sent").count()) == ([], 0)


def test_after_the_hold_the_worker_sends_it_once(use, box):
    send(use)
    mail_hold.email_sweep(now=after_the_hold())
    mail_hold.email_sweep(now=after_the_hold() + datetime.timedelta(minutes=20))
    assert ([m.to for m in django_mail.outbox], HeldEmail.objects.get().state) == (
        [["dana@juniperdental.test"]],
        "sent",
    )


def test_the_end_of_the_hold_is_scheduled_once(use, box):
    from django_q.models import Schedule

    with freeze_time(NOW):
        send(use)
    schedule = Schedule.objects.get(func="integrations.tasks_mail.send_held")
    assert (schedule.schedule_type, schedule.next_run, schedule.args) == (
        Schedule.ONCE, NOW + mail_hold.HOLD, repr((str(HeldEmail.objects.get().id),))
    )


def test_send_is_listed_on_home_with_undo(use, box):
    send(use)
    change = Change.objects.get(tool="mail.send")
    assert (change.listing, change.kind, change.sentence, change.can_undo) == (
        "home_undo", "sends", "emailed dana@juniperdental.test: “Quote”", True
    )


def test_undo_within_the_hold_sends_nothing(use, ctx, box):
    send(use)
    change_undo(org=ctx.org, change_id=Change.objects.get(tool="mail.send").id, actor=Actor.for_user(ctx.org.owner))
    mail_hold.email_sweep(now=after_the_hold())
    assert (django_mail.outbox, HeldEmail.objects.get().state) == ([], "undone")


def test_the_undo_is_recorded(use, ctx, box):
    send(use)
    change = Change.objects.get(tool="mail.send")
    undo = change_undo(org=ctx.org, change_id=change.id, actor=Actor.for_user(ctx.org.owner))
    assert (undo.undoes_id, undo.sentence) == (change.id, "undid: emailed dana@juniperdental.test: “Quote”")


def test_undo_after_it_went_is_changed(use, ctx, box):
    from core.errors import ToolError

    send(use)
    mail_hold.email_sweep(now=after_the_hold())
    with pytest.raises(ToolError) as caught:
        change_undo(org=ctx.org, change_id=Change.objects.get(tool="mail.send").id,
                    actor=Actor.for_user(ctx.org.owner))
    assert caught.value.kind == "changed" and "can't be called back" in caught.value.message


def test_the_contacts_log_gets_a_sent_entry(use, box, dana):
    with freeze_time(NOW):
        out = send(use)
    entry = LogEntry.objects.get(contact=dana, kind="sent")
    assert entry.extra == {"subject": "Quote", "to": ["dana@juniperdental.test"], "thread": out["threadId"],
                           "hold": 1, "approval": {"kind": "allowed"}}


def test_once_sent_the_log_entry_has_when_and_the_thread_it_went_in(use, box, dana):
    send(use)
    mail_hold.email_sweep(now=after_the_hold())
    entry = LogEntry.objects.get(contact=dana, kind="sent")
    held = HeldEmail.objects.get()
    assert (entry.extra["thread"], entry.extra["sentAt"]) == (held.sent_thread_id, iso(held.sent_at))


def test_an_undone_emails_log_entry_says_so(use, ctx, box, dana):
    send(use)
    change_undo(org=ctx.org, change_id=Change.objects.get(tool="mail.send").id, actor=Actor.for_user(ctx.org.owner))
    assert LogEntry.objects.get(contact=dana, kind="sent").extra["approval"]["kind"] == "undone"


def test_a_reply_goes_in_its_thread_to_the_latest_sender(use, box, enquiry):
    out = send(use, to=[], threadId=tid(box, enquiry), subject="Re: Rebrand")
    mail_hold.email_sweep(now=after_the_hold())
    copy = LocalMailMessage.objects.get(box="sent")
    assert (out["threadId"], out["held"]["to"], copy.thread_id, django_mail.outbox[0].extra_headers["In-Reply-To"]) == (
        tid(box, enquiry), ["dana@juniperdental.test"], enquiry.thread_id, "<dana.1@juniperdental.test>"
    )


def test_reply_all_answers_everyone_on_the_thread_but_the_owner(use, box):
    first = store(box, cc=["Rosa Ortiz <rosa@ortizbakery.test>", "sam@fernhill.test"])
    store(box, sender="marco@ruizprint.test", to=["dana@juniperdental.test", "sam@fernhill.test"],
          thread=first.thread.key, at=later(1))
    send(use, to=[], threadId=tid(box, first), replyAll=True)
    held = HeldEmail.objects.get()
    assert (held.to, held.cc) == (["marco@ruizprint.test"], ["dana@juniperdental.test", "rosa@ortizbakery.test"])


def test_a_new_emails_thread_id_reads_as_the_held_email_then_as_its_thread(use, box):
    out = send(use)
    waiting = use("mail.read", id=out["threadId"])
    mail_hold.email_sweep(now=after_the_hold())
    gone = use("mail.read", id=out["threadId"])
    assert (waiting["note"].startswith("It waits on Home"), waiting["text"].endswith("Hi Dana"), gone["id"]) == (
        True, True, HeldEmail.objects.get().sent_thread_id
    )


def test_replying_to_a_new_email_before_it_went_is_bad_input(use, box):
    out = send(use)
    assert bad_input_on(send(use, threadId=out["threadId"]), "threadId")


def test_send_carries_an_attachment_from_an_email(use, box):
    message = store(box, attachments=[("rates.csv", "text/csv", b"a,b")])
    send(use, attach=[{"attachment": f"{box.account_key}:{message.attachments.get().key}"}])
    mail_hold.email_sweep(now=after_the_hold())
    assert django_mail.outbox[0].attachments[0][:2] == ("rates.csv", "a,b")


def test_send_carries_a_drive_file_by_its_id(use, org, box, settings, tmp_path):
    from integrations.providers.base import FileData
    from integrations.providers.local_files import LocalFilesProvider

    settings.ROADSTAR_FILES_ROOT = tmp_path / "files"
    drive = connection_create_local(org=org, account="files@fernhill.test", groups=["files"])
    made = LocalFilesProvider(drive).upload(FileData("rate-card.pdf", "application/pdf", b"%PDF-1.4 rates"),
                                            name="rate-card.pdf", folder_id=None)
    send(use, attach=[{"file": made.value.id}])
    mail_hold.email_sweep(now=after_the_hold())
    assert django_mail.outbox[0].attachments[0][:2] == ("rate-card.pdf", b"%PDF-1.4 rates")


def test_an_undone_emails_thread_id_reads_as_never_sent(use, ctx, box):
    out = send(use)
    change_undo(org=ctx.org, change_id=Change.objects.get(tool="mail.send").id, actor=Actor.for_user(ctx.org.owner))
    assert use("mail.read", id=out["threadId"])["note"] == "Sam undid it: it was never sent."


def test_attachments_over_25_mb_in_all_are_too_large(use, box):
    message = store(box, attachments=[("a.bin", "application/octet-stream", b"x" * (13 * 1024 * 1024)),
                                      ("b.bin", "application/octet-stream", b"y" * (13 * 1024 * 1024))])
    keys = [f"{box.account_key}:{a.key}" for a in message.attachments.all()]
    out = send(use, attach=[{"attachment": k} for k in keys])
    assert (out["error"], HeldEmail.objects.count()) == ("too_large", 0)


def test_a_workspace_file_travels_with_the_held_email(use, ctx, box):
    use("workspace.write", path="/work/shared/quote.pdf", content="%PDF-1.4 Logo and signage")
    out = send(use, attach=[{"workspace": "shared/quote.pdf"}])
    assert "held" in out
    held = HeldEmail.objects.get()
    assert [a["name"] for a in held.attachments] == ["quote.pdf"]
    # The bytes were kept with the held email: the file changing in the workspace now changes nothing that goes.
    use("workspace.write", path="/work/shared/quote.pdf", content="changed after")
    mail_hold.email_sweep(now=after_the_hold())
    assert django_mail.outbox[0].attachments[0][:2] == ("quote.pdf", b"%PDF-1.4 Logo and signage")


def test_a_workspace_path_outside_the_folder_is_bad_input_naming_it(use, box):
    out = send(use, attach=[{"workspace": "../../etc/passwd"}])
    assert out["error"] == "bad_input" and out["message"].startswith("attach[0].workspace:")
    assert send(use, attach=[{"workspace": "missing.pdf"}])["error"] == "not_found"


def test_a_reply_to_someone_the_owner_never_named_is_checked_with_them(owner_says, box, enquiry):
    from tools.pipeline import use_tool

    ctx = owner_says("Send Rosa a friendly note about invoice 1042.")
    out = use_tool(ctx, "mail.send", {"threadId": tid(box, enquiry), "subject": "Re: Rebrand", "text": "Hi"})
    assert ("not_done_yet" in out, HeldEmail.objects.count()) == (True, 0)


def test_sending_to_whom_the_owner_named_goes(owner_says, box):
    from tools.pipeline import use_tool

    ctx = owner_says("Email dana@juniperdental.test that the quote is $8,400.")
    out = use_tool(ctx, "mail.send", {"to": ["dana@juniperdental.test"], "subject": "Quote",
                                      "text": "The quote is $8,400."})
    assert out["held"]["to"] == ["dana@juniperdental.test"]


# --- contacts.timeline ----------------------------------------------------------------------------------------


def test_contacts_timeline_lists_live_mail_threads_with_the_contact(use, box, dana, enquiry):
    store(box, sender="sam@fernhill.test", to=["dana@juniperdental.test"], box="sent", subject="Follow-up",
          at=later(5))
    store(box, sender="rosa@ortizbakery.test", subject="Not Dana", at=later(6))
    out = use("contacts.timeline", contactId=str(dana.id))
    mail = [i for i in out["items"] if i["kind"] == "mail"]
    assert [(i["title"], i["direction"]) for i in mail] == [("Follow-up", "out"), ("Rebrand for our second clinic",
                                                                                   "in")]


def test_contacts_timeline_without_mail_says_gmail_isnt_connected(use, dana):
    out = use("contacts.timeline", contactId=str(dana.id))
    assert [f["kind"] for f in out["failures"] if f["source"] == "mail"] == ["not_connected"]


# --- another workspace ----------------------------------------------------------------------------------------


@pytest.fixture
def elsewhere(other_org):
    far = connection_create_local(org=other_org, account="alex@far.test", groups=["mail"])
    message = store(far, attachments=[("far.txt", "text/plain", b"far")])
    return far, message


def test_reading_another_workspaces_thread_is_not_found(use, box, elsewhere):
    far, message = elsewhere
    assert use("mail.read", id=tid(far, message))["error"] == "not_found"


def test_reading_another_workspaces_attachment_is_not_found(use, box, enquiry, elsewhere):
    far, message = elsewhere
    out = use("mail.read", id=tid(box, enquiry), attachment=f"{far.account_key}:{message.attachments.get().key}")
    assert out["error"] == "not_found"


def test_searching_never_shows_another_workspaces_mail(use, box, elsewhere):
    assert use("mail.search")["hits"] == []


def test_drafting_in_another_workspaces_thread_is_not_found(use, box, elsewhere):
    far, message = elsewhere
    out = use("mail.draft", threadId=tid(far, message), subject="Re", text="Hi")
    assert out["error"] == "not_found"


def test_sending_in_another_workspaces_thread_is_not_found(use, box, elsewhere):
    far, message = elsewhere
    assert send(use, threadId=tid(far, message))["error"] == "not_found"


def test_attaching_another_workspaces_attachment_is_not_found(use, box, elsewhere):
    far, message = elsewhere
    out = send(use, attach=[{"attachment": f"{far.account_key}:{message.attachments.get().key}"}])
    assert (out["error"], HeldEmail.objects.count()) == ("not_found", 0)


def test_undoing_another_workspaces_held_email_is_not_found(org, other_org, box):
    from core.errors import ToolError

    far = connection_create_local(org=other_org, account="alex@far.test", groups=["mail"])
    held = HeldEmail.objects.create(
        organization=other_org, connection=far, number=1, send_at=timezone.now(), goes_at=timezone.now(),
        message_id="<far@far.test>", to=["x@y.test"], text="t", actor_kind="agent", actor_id="a", actor_name="A",
    )
    with pytest.raises(ToolError) as caught:
        mail_hold.email_undo(org=org, held_id=held.id, actor=Actor.system())
    assert caught.value.kind == "not_found"


def test_with_no_judge_set_up_an_undecided_send_waits_for_a_yes_unless_the_owner_lets_it_run(
        org, box, dana, owner_says, settings):
    settings.CHECK_JUDGE = False
    # A routine's note that describes whom to answer without naming them: only a judge could say it covers Dana.
    ctx = owner_says()
    ctx.conversation = lambda: [{"role": "routine", "name": "Enquiries", "text": "Answer new clients the same day."}]
    email = {"to": ["dana@juniperdental.test"], "subject": "Quote", "text": "It's $8,400."}
    held_back = use_tool(ctx, "mail.send", email)
    assert held_back["not_done_yet"].startswith("Check with Sam first: the check couldn't be reached")
    assert not HeldEmail.objects.exists()
    org.without_judge = "run"
    org.save(update_fields=["without_judge"])
    sent = use_tool(ctx, "mail.send", email)
    assert "held" in sent, sent
    entry = LogEntry.objects.get(contact=dana, kind="sent")
    assert entry.extra["approval"] == {"kind": "allowed"}
