"""Gmail against recorded Gmail API answers (googleapiclient's HttpMockSequence): search, threads, attachments,
drafts, sending, the sent-mail check, history for events, and the failures (not_connected, reauth, rate_limited,
not_found, unavailable) and token refresh."""

import base64
import datetime
import email
import json
from email import policy
from unittest import mock
from urllib.parse import parse_qs, urlparse

import pytest

from core.errors import ToolError
from core.models import Card
from integrations.models import Connection
from integrations.providers.base import MailQuery, OutgoingMail
from integrations.providers.gmail import GmailProvider
from tests.integrations.conftest import GOOGLE_READ, G, an_hour_ago, save_google
from tests.integrations.fakes import GoogleTokenEndpoint
from tests.integrations.mail_helpers import DAY, Recording, b64, error, gmail_message, mail_root, ok  # noqa: F401

GOOGLE_WRITE = GOOGLE_READ + [G + "gmail.compose", G + "gmail.send"]


@pytest.fixture
def writer(org, app_settings):
    return save_google(org, scopes=GOOGLE_WRITE)


def gmail(connection, *answers):
    http = Recording(list(answers))
    return GmailProvider(connection, http=http), http


def query_of(request) -> dict:
    return {k: v[0] if len(v) == 1 else v for k, v in parse_qs(urlparse(request["uri"]).query).items()}


def path_of(request) -> str:
    return urlparse(request["uri"]).path


def sent_raw(request) -> email.message.EmailMessage:
    body = json.loads(request["body"])
    raw = body.get("raw") or body["message"]["raw"]
    return email.message_from_bytes(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)), policy=policy.default)


def thread(tid, *messages):
    return {"id": tid, "historyId": "900", "messages": list(messages)}


LATER = DAY + datetime.timedelta(hours=3)


# --- search ---------------------------------------------------------------------------------------------------


def test_search_passes_the_query_and_fields_to_gmails_q(google):
    provider, http = gmail(google, ok({"resultSizeEstimate": 0}))
    provider.search(MailQuery(text="in:sent -category:promotions", sender="dana@juniperdental.test",
                              after=datetime.date(2026, 5, 1), has_attachment=True), limit=20)
    assert (query_of(http.requests[0])["q"], query_of(http.requests[0])["maxResults"]) == (
        "in:sent -category:promotions from:dana@juniperdental.test after:2026/05/01 has:attachment", "20"
    )


def test_search_reads_each_threads_headers_into_a_hit(google):
    provider, http = gmail(
        google,
        ok({"threads": [{"id": "19a2c4e07d5b3f18", "snippet": "Could you quote"}], "nextPageToken": "p2"}),
        ok(thread("19a2c4e07d5b3f18",
                  gmail_message("m1", "19a2c4e07d5b3f18", cc="Rosa Ortiz <rosa@ortizbakery.test>", at=DAY),
                  gmail_message("m2", "19a2c4e07d5b3f18", sender="Sam Rivera <sam@fernhill.test>",
                                to="dana@juniperdental.test", subject="Re: Rebrand", at=LATER, labels=["SENT"]))),
    )
    page = provider.search(MailQuery(), limit=10)
    hit = page.items[0]
    assert (hit.id, hit.title, hit.who, hit.people, hit.date, hit.snippet, page.next_page) == (
        f"{google.account_key}:19a2c4e07d5b3f18", "Rebrand for our second clinic", "Sam Rivera <sam@fernhill.test>",
        ["Dana Whitfield <dana@juniperdental.test>", "Rosa Ortiz <rosa@ortizbakery.test>"], LATER, "Could you quote",
        "p2",
    )


def test_a_hits_url_opens_the_thread_in_the_owners_gmail(google):
    provider, _ = gmail(google, ok({"threads": [{"id": "t1"}]}), ok(thread("t1", gmail_message("m1", "t1"))))
    assert provider.search(MailQuery(), limit=1).items[0].url == (
        "https://mail.google.com/mail/?authuser=sam%40fernhill.test#all/t1"
    )


def test_search_asks_for_the_page_it_is_given(google):
    provider, http = gmail(google, ok({}))
    provider.search(MailQuery(), limit=5, page="p2")
    assert query_of(http.requests[0])["pageToken"] == "p2"


# --- reading --------------------------------------------------------------------------------------------------


def test_a_thread_reads_as_its_messages_with_attachments(google):
    provider, http = gmail(google, ok(thread(
        "t1",
        gmail_message("m1", "t1", attachments=[("brief.pdf", "application/pdf", 2048)]),
        gmail_message("m2", "t1", sender="sam@fernhill.test", text="Draft words", labels=["DRAFT"]),
    )))
    read = provider.read_thread("t1")
    message = read.messages[0]
    assert (len(read.messages), message.text, message.to, message.message_id,
            [(a.id, a.name, a.size) for a in message.attachments], query_of(http.requests[0])["format"]) == (
        1, "Could you quote a new logo?", ["sam@fernhill.test"], "<m1@mail.test>",
        [(f"{google.account_key}:m1.1", "brief.pdf", 2048)], "full",
    )


def test_a_message_with_only_html_reads_as_text(google):
    message = gmail_message("m1", "t1", html="<p>Hello <b>Sam</b></p>")
    message["payload"]["parts"][0]["parts"].pop(0)
    provider, _ = gmail(google, ok(thread("t1", message)))
    assert provider.read_thread("t1").messages[0].text == "Hello Sam"


def test_an_attachment_is_fetched_by_its_part(google):
    provider, http = gmail(
        google,
        ok(gmail_message("m1", "t1", attachments=[("rates.csv", "text/csv", 20)])),
        ok({"size": 20, "data": b64("item,price\nlogo,4800")}),
    )
    data = provider.read_attachment("t1", "m1.1")
    assert (data.name, data.data, path_of(http.requests[1])) == (
        "rates.csv", b"item,price\nlogo,4800", "/gmail/v1/users/me/messages/m1/attachments/ANGjdJ-m1-1"
    )


def test_an_attachment_over_25_mb_is_too_large(google):
    provider, http = gmail(google, ok(gmail_message("m1", "t1", attachments=[("big.zip", "application/zip",
                                                                                 26 * 1024 * 1024)])))
    with pytest.raises(ToolError) as caught:
        provider.read_attachment("t1", "m1.1")
    assert (caught.value.kind, len(http.requests)) == ("too_large", 1)


def test_an_unknown_attachment_part_is_not_found(google):
    provider, _ = gmail(google, ok(gmail_message("m1", "t1")))
    with pytest.raises(ToolError) as caught:
        provider.read_attachment("t1", "m1.7")
    assert caught.value.kind == "not_found"


# --- drafts and sending ---------------------------------------------------------------------------------------

SEND_AS = {"sendAs": [{"sendAsEmail": "sam@fernhill.test", "isDefault": True,
                       "signature": "<div>Sam Rivera<br>Fernhill Studio</div>"}]}


def outgoing(**fields):
    values = {"to": ["dana@juniperdental.test"], "subject": "Re: Rebrand", "text": "Hi Dana,\n\nHappy to.",
              "message_id": "<roadstar.7@fernhill.test>"} | fields
    return OutgoingMail(**values)


def test_a_reply_draft_goes_in_its_thread_with_reply_headers_and_signature(writer):
    provider, http = gmail(
        writer,
        ok(thread("t1", gmail_message("m1", "t1", message_id="<dana.1@juniperdental.test>"))),
        ok(SEND_AS),
        ok({"id": "r-123", "message": {"id": "m9", "threadId": "t1"}}),
    )
    made = provider.draft(outgoing(thread_id="t1"))
    raw = sent_raw(http.requests[2])
    assert (made.draft_id, made.thread_id, json.loads(http.requests[2]["body"])["message"]["threadId"],
            raw["In-Reply-To"], raw.get_content()) == (
        f"{writer.account_key}:r-123", f"{writer.account_key}:t1", "t1", "<dana.1@juniperdental.test>",
        "Hi Dana,\n\nHappy to.\n\n-- \nSam Rivera\nFernhill Studio\n",
    )


def test_a_new_draft_without_signature_asks_gmail_once(writer):
    provider, http = gmail(writer, ok({"id": "r-1", "message": {"id": "m9", "threadId": "t9"}}))
    provider.draft(outgoing(signature=False))
    assert [path_of(r) for r in http.requests] == ["/gmail/v1/users/me/drafts"]


def test_send_sends_with_the_message_id_roadstar_gave_it(writer):
    provider, http = gmail(writer, ok(SEND_AS), ok({"id": "m10", "threadId": "t10", "labelIds": ["SENT"]}))
    sent = provider.send(outgoing(cc=["rosa@ortizbakery.test"]))
    raw = sent_raw(http.requests[1])
    assert (sent.message_id, sent.thread_id, raw["Message-ID"], raw["To"], raw["Cc"], path_of(http.requests[1])) == (
        f"{writer.account_key}:m10", f"{writer.account_key}:t10", "<roadstar.7@fernhill.test>",
        "dana@juniperdental.test", "rosa@ortizbakery.test", "/gmail/v1/users/me/messages/send",
    )


def test_send_with_attachments_carries_them(writer):
    from integrations.providers.base import FileData

    provider, http = gmail(writer, ok({"id": "m10", "threadId": "t10"}))
    provider.send(outgoing(signature=False, attachments=[FileData("quote.pdf", "application/pdf", b"%PDF-1.4")]))
    parts = [p for p in sent_raw(http.requests[0]).iter_attachments()]
    assert [(p.get_filename(), p.get_content()) for p in parts] == [("quote.pdf", b"%PDF-1.4")]


def test_find_sent_looks_for_the_message_id_in_sent_mail(writer):
    provider, http = gmail(writer, ok({"messages": [{"id": "m10", "threadId": "t10"}]}), ok({"resultSizeEstimate": 0}))
    found = provider.find_sent("<roadstar.7@fernhill.test>")
    missing = provider.find_sent("<roadstar.8@fernhill.test>")
    assert (found.message_id, missing, query_of(http.requests[0])["q"]) == (
        f"{writer.account_key}:m10", None, "in:sent rfc822msgid:roadstar.7@fernhill.test"
    )


# --- new mail -------------------------------------------------------------------------------------------------


def test_changes_first_starts_from_the_mailboxs_history_id(google):
    provider, _ = gmail(google, ok({"emailAddress": "sam@fernhill.test", "historyId": "4321"}))
    changes = provider.changes(None)
    assert (changes.items, changes.cursor) == ([], "4321")


def test_changes_reads_messages_added_to_the_inbox(google):
    provider, http = gmail(
        google,
        ok({"history": [
            {"id": "4330", "messagesAdded": [{"message": {"id": "m1", "threadId": "t1", "labelIds": ["INBOX"]}}]},
            {"id": "4331", "messagesAdded": [{"message": {"id": "m2", "threadId": "t2", "labelIds": ["SENT"]}}]},
        ], "historyId": "4340"}),
        ok(gmail_message("m1", "t1")),
    )
    changes = provider.changes("4321")
    assert ([m.id for m in changes.items], changes.cursor, query_of(http.requests[0])["startHistoryId"]) == (
        [f"{google.account_key}:m1"], "4340", "4321"
    )


def test_changes_from_a_cursor_gmail_forgot_start_again_from_now(google):
    provider, _ = gmail(google, error(404, "notFound"), ok({"historyId": "5000"}))
    changes = provider.changes("12")
    assert (changes.items, changes.cursor) == ([], "5000")


def test_polling_gmail_tells_of_new_mail_as_events(google):
    from integrations.tasks_mail import poll_connection
    from routines.models import Event

    provider, _ = gmail(
        google,
        ok({"historyId": "4321"}),
        ok({"history": [{"id": "4330", "messagesAdded": [
            {"message": {"id": "m1", "threadId": "t1", "labelIds": ["INBOX"]}}]}], "historyId": "4340"}),
        ok(gmail_message("m1", "t1")),
    )
    poll_connection(google, provider=provider)
    poll_connection(google, provider=provider)
    event = Event.objects.get()
    assert (event.keys, event.payload["subject"]) == ([
        "kind:mail.received", "from:dana@juniperdental.test", "domain:juniperdental.test",
        "with:dana@juniperdental.test", f"thread:{google.account_key}:t1",
    ], "Rebrand for our second clinic")


# --- failures -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, kind", [
    (error(429, "rateLimitExceeded"), "rate_limited"),
    (error(403, "userRateLimitExceeded"), "rate_limited"),
    (error(404, "notFound"), "not_found"),
    (error(500, "backendError"), "unavailable"),
    (error(400, "invalidArgument", "Invalid id value"), "vendor"),
])
def test_gmail_errors_come_back_as_the_specs_kinds(google, answer, kind):
    provider, _ = gmail(google, answer)
    with pytest.raises(ToolError) as caught:
        provider.read_thread("t1")
    assert caught.value.kind == kind


def test_a_refused_sign_in_is_reauth_with_a_card_and_marks_the_connection(google):
    # Gmail refuses the token; the refresh (through the same transport) is refused too.
    refused = ({"status": "400"}, json.dumps({"error": "invalid_grant", "error_description": "Token revoked."}))
    provider, _ = gmail(google, error(401, "authError"), refused)
    with pytest.raises(ToolError) as caught:
        provider.read_thread("t1")
    assert (caught.value.kind, caught.value.card, Connection.objects.get(pk=google.pk).status) == (
        "reauth", "Connect sam@fernhill.test again", "needs_reconnect"
    )


def test_an_expired_token_is_refreshed_before_gmail_is_asked(org, app_settings):
    expired = save_google(org, expiry=an_hour_ago())
    endpoint = GoogleTokenEndpoint(200, {"access_token": "g-access-2", "expires_in": 3599, "token_type": "Bearer"})
    provider, http = gmail(expired, ok({}))
    with mock.patch("integrations.oauth.google_transport", return_value=endpoint):
        provider.search(MailQuery(), limit=1)
    assert (http.requests[0]["headers"]["authorization"], Connection.objects.get(pk=expired.pk).read_tokens()[
        "access_token"]) == ("Bearer g-access-2", "g-access-2")


def test_a_token_gmail_refuses_is_refreshed_once_and_the_call_made_again(google):
    provider, http = gmail(
        google, error(401, "authError"),
        ok({"access_token": "g-access-3", "expires_in": 3599, "token_type": "Bearer"}),
        ok({"threads": []}),
    )
    provider.search(MailQuery(), limit=1)
    assert (http.requests[2]["headers"]["authorization"],
            Connection.objects.get(pk=google.pk).read_tokens()["access_token"]) == ("Bearer g-access-3", "g-access-3")


# --- through the tools ----------------------------------------------------------------------------------------


def test_mail_search_without_a_mail_account_is_not_connected_with_a_card(use, org):
    result = use("mail.search", query="quote")
    assert (result["error"], result["card"], Card.objects.filter(organization=org, kind="connect").count()) == (
        "not_connected", "Connect Gmail, Drive and Calendar", 1
    )


def test_drafting_on_read_only_gmail_is_reauth_with_a_card(use, google):
    result = use("mail.draft", to=["dana@juniperdental.test"], subject="Quote", text="Hi")
    assert (result["error"], result["card"]) == ("reauth", "Connect sam@fernhill.test again")


def test_sending_on_read_only_gmail_is_reauth_and_nothing_is_held(use, google):
    from integrations.local.models_mail import HeldEmail

    result = use("mail.send", to=["dana@juniperdental.test"], subject="Quote", text="Hi")
    assert (result["error"], HeldEmail.objects.count()) == ("reauth", 0)


def test_mail_search_reads_gmail_through_the_tool(use, google, monkeypatch):
    http = Recording([ok({"threads": [{"id": "t1"}]}), ok(thread("t1", gmail_message("m1", "t1")))])
    real = GmailProvider.__init__

    def with_recorded_answers(self, connection, **options):
        real(self, connection, **options, http=http)

    monkeypatch.setattr(GmailProvider, "__init__", with_recorded_answers)
    result = use("mail.search", query="logo")
    assert ([h["id"] for h in result["hits"]], result["hits"][0]["source"], result["searched"]) == (
        [f"{google.account_key}:t1"], "sam@fernhill.test", ["sam@fernhill.test"]
    )
