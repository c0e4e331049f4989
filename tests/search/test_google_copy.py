"""The copy of a Google account, against recorded Google API answers (googleapiclient's HttpMockSequence; nothing
reaches the internet): the first sync paged and resumed after a crash without duplicates, Gmail's history, Drive's
changes and Calendar's sync tokens keeping it current with deletions, an expired historyId and a 410 Gone listing
the account again, rate limits backed off, a refused sign-in waiting for the reconnect, and another workspace's
copy never seen."""

from __future__ import annotations

import datetime
import json
from urllib.parse import parse_qs, urlparse

import pytest
from django.utils import timezone

from core.models import Card
from integrations.models import Connection, SearchCopy
from integrations.services import connection_search_set
from search import accounts, sync
from search.models import SearchItem
from tests.factories import OrganizationFactory
from tests.integrations.conftest import G, no_internet, save_google  # noqa: F401  (no_internet: autouse)
from tests.integrations.fakes import GOOGLE_SETTINGS
from tests.integrations.mail_helpers import DAY, Recording, b64, error, gmail_message, ok
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db

BASICS = ["openid", G + "userinfo.email"]
SCOPES = {"mail": G + "gmail.readonly", "files": G + "drive.readonly", "calendar": G + "calendar.readonly"}


@pytest.fixture(autouse=True)
def google_settings(settings):
    for name, value in GOOGLE_SETTINGS.items():
        setattr(settings, name, value)


def account(org, group, address="sam@fernhill.test"):
    """A Google account serving one group, with search turned on."""
    connection = save_google(org, account=address, scopes=BASICS + [SCOPES[group]])
    assert connection.groups == [group]
    connection_search_set(org=org, account_key=connection.account_key, on=True)
    return connection


def query_of(request) -> dict:
    return {k: v[0] if len(v) == 1 else v for k, v in parse_qs(urlparse(request["uri"]).query).items()}


def path_of(request) -> str:
    return urlparse(request["uri"]).path


def keys(connection) -> list[str]:
    return sorted(SearchItem.objects.filter(connection=connection).values_list("key", flat=True))


def copy_of(connection) -> SearchCopy:
    return SearchCopy.objects.get(connection=connection)


def lease_over(connection):
    over = timezone.now() - datetime.timedelta(seconds=1)
    SearchCopy.objects.filter(connection=connection).update(claimed_until=over)


def message(mid, **kw):
    return ok(gmail_message(mid, f"t-{mid}", subject=kw.pop("subject", f"Order {mid}"), **kw))


def listed(*ids, next_page=None):
    body = {"messages": [{"id": i, "threadId": f"t-{i}"} for i in ids]}
    if next_page:
        body["nextPageToken"] = next_page
    return ok(body)


def batch(*answers):
    """Gmail's answer to a batch request (messages.get, 50 to a batch): each part a message's answer, or
    (its id, an error answer)."""
    boundary, parts = "batch_gcopy", []
    for answer in answers:
        if isinstance(answer[0], str):
            mid, (head, body) = answer
        else:
            (head, body), mid = answer, json.loads(answer[1])["id"]
        status = int(head["status"])
        parts.append(f"--{boundary}\r\nContent-Type: application/http\r\nContent-ID: <response-x + {mid}>\r\n\r\n"
                     f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\nContent-Type: application/json\r\n\r\n"
                     f"{body}\r\n")
    return {"status": "200", "content-type": f"multipart/mixed; boundary={boundary}"}, "".join(parts) + (
        f"--{boundary}--\r\n")


def first_sync(connection, *ids, history="1000"):
    """Copy a mailbox of these messages in one page."""
    http = Recording([ok({"historyId": history, "messagesTotal": len(ids)}), listed(*ids),
                      batch(*[message(i) for i in ids])])
    assert sync.copy_run(connection, http={"mail": http}) == "current"
    return http


class Died(BaseException):
    """A worker killed mid-batch: nothing after it runs, its transaction never commits, its claim stays."""


# --- Gmail: the first sync -------------------------------------------------------------------------------------


def test_a_first_sync_over_pages_killed_mid_way_resumes_at_its_page_without_duplicates(org, monkeypatch, client):
    gmail = account(org, "mail")
    key = gmail.account_key
    first = Recording([
        ok({"historyId": "1000", "messagesTotal": 6}),
        listed("m1", "m2", next_page="p2"), batch(message("m1"), message("m2")),
        listed("m3", "m4", next_page="p3"), batch(message("m3"), message("m4")),
        listed("m5", "m6"), batch(message("m5"), message("m6")),
    ])
    real_put, calls = sync.index.put, [0]

    def put_then_die(org_, entries):
        real_put(org_, entries)
        calls[0] += 1
        if calls[0] == 3:
            raise Died  # inside the third page's transaction

    monkeypatch.setattr(sync.index, "put", put_then_die)
    with pytest.raises(Died):
        sync.copy_run(gmail, http={"mail": first})
    monkeypatch.setattr(sync.index, "put", real_put)

    copy = copy_of(gmail)
    assert (keys(gmail), copy.position["gmail_page"], copy.position["gmail_history"], copy.claim != "") == (
        [f"mail:{key}:m:m{i}" for i in range(1, 5)], "p3", "1000", True)
    client.force_login(org.owner)
    assert "copying, 66% (4 of 6)" in client.get("/connections/").content.decode()
    assert sync.copy_run(gmail, http={"mail": Recording([])}) == "busy"  # the dead worker's lease still holds

    lease_over(gmail)
    resumed = Recording([listed("m5", "m6"), batch(message("m5"), message("m6"))])
    assert sync.copy_run(gmail, http={"mail": resumed}) == "current"
    items = list(SearchItem.objects.filter(connection=gmail).values_list("key", flat=True))
    copy = copy_of(gmail)
    assert (query_of(resumed.requests[0])["pageToken"], len(items), len(set(items)), copy.state, copy.claim,
            copy.position) == ("p3", 6, 6, "current", "", {"gmail_history": "1000"})
    assert "sam@fernhill.test's mail since" in accounts.how_to_for(org, sync_base())


def sync_base():
    from tools.groups.search import HOW_TO

    return HOW_TO


def test_a_copied_message_reads_with_its_labels_people_and_attachment_text(org, ctx):
    gmail = account(org, "mail")
    http = Recording([
        ok({"historyId": "1000", "messagesTotal": 2}), listed("m1", "m2"),
        batch(ok(gmail_message("m1", "t1", subject="PO 4471 for the signs", text="Please find the PO attached.",
                               labels=["INBOX", "STARRED", "Label_7"], attachments=[("po.csv", "text/csv", 30)])),
              ok(gmail_message("m2", "t1", sender="Sam Rivera <sam@fernhill.test>", to="dana@juniperdental.test",
                               subject="Re: PO 4471 for the signs", text="Thanks, on it.", labels=["SENT"],
                               at=DAY + datetime.timedelta(hours=1)))),
        ok({"labels": [{"id": "Label_7", "name": "Clients"}, {"id": "INBOX", "name": "INBOX"}]}),
        ok({"size": 30, "data": b64("item,qty\nbacklit sign,2")}),
    ])
    assert sync.copy_run(gmail, http={"mail": http}) == "current"
    out = use_tool(ctx, "search.search", {"query": "backlit"})
    assert [(r["title"], r["type"]) for r in out["results"]] == [("po.csv", "sheet")]
    found = use_tool(ctx, "search.search", {"in": ["label:Clients"], "has": ["star"]})
    assert [r["title"] for r in found["results"]] == ["PO 4471 for the signs"]
    assert use_tool(ctx, "search.search", {"dir": "sent"})["total"] == 1
    thread = use_tool(ctx, "search.read", {"id": f"mail:{gmail.account_key}:t:t1"})
    assert "Please find the PO attached." in thread["text"] and "Thanks, on it." in thread["text"]
    assert thread["attachments"] == [{"id": f"mail:{gmail.account_key}:a:m1.1", "name": "po.csv", "quality": "text"}]
    assert thread["url"].endswith("#all/t1")


# --- Gmail: kept current by its history ------------------------------------------------------------------------


def history(records, *, history_id="1010", next_page=None):
    body = {"history": records, "historyId": history_id}
    if next_page:
        body["nextPageToken"] = next_page
    return ok(body)


def test_history_adds_relabels_and_deletes_over_pages_from_the_kept_history_id(org, ctx):
    gmail = account(org, "mail")
    key = gmail.account_key
    http = Recording([
        ok({"historyId": "1000", "messagesTotal": 2}), listed("m1", "m2"),
        batch(ok(gmail_message("m1", "t-m1", subject="Quote", attachments=[("quote.txt", "text/plain", 12)])),
              message("m2")),
        ok({"size": 12, "data": b64("quote words")}),
    ])
    assert sync.copy_run(gmail, http={"mail": http}) == "current"
    assert f"mail:{key}:a:m1.1" in keys(gmail)

    later = Recording([
        history([{"id": "1003", "messagesAdded": [{"message": {"id": "m3"}}]},
                 {"id": "1004", "messagesDeleted": [{"message": {"id": "m1"}}]},
                 {"id": "1005", "labelsAdded": [{"message": {"id": "m2"}, "labelIds": ["STARRED"]}]}],
                history_id="1005", next_page="h2"),
        batch(message("m3", subject="Signage brief"), message("m2", labels=["INBOX", "STARRED"])),
        history([{"id": "1008", "messagesAdded": [{"message": {"id": "m4"}}]},
                 {"id": "1009", "labelsAdded": [{"message": {"id": "m3"}, "labelIds": ["TRASH"]}]}]),
        batch(message("m4"), message("m3", labels=["TRASH"])),
    ])
    assert sync.copy_run(gmail, http={"mail": later}) == "current"
    assert [query_of(r).get("startHistoryId") for r in later.requests if "/history" in path_of(r)] == ["1000", "1000"]
    assert query_of(later.requests[2])["pageToken"] == "h2"
    assert keys(gmail) == [f"mail:{key}:m:m2", f"mail:{key}:m:m4"]  # m1 deleted (its attachment too), m3 in the trash
    assert SearchItem.objects.get(key=f"mail:{key}:m:m2").starred
    assert copy_of(gmail).position == {"gmail_history": "1010"}
    assert use_tool(ctx, "search.search", {"query": "quote words"})["total"] == 0


def test_an_expired_history_id_lists_the_mailbox_again_and_drops_what_went_meanwhile(org):
    gmail = account(org, "mail")
    key = gmail.account_key
    first_sync(gmail, "m1", "m2", "m3")
    again = Recording([
        error(404, "notFound", "Requested entity was not found."),
        ok({"historyId": "5000", "messagesTotal": 3}), listed("m2", "m9", next_page="p2"),
        batch(message("m2"), ("m9", error(404, "notFound"))),  # deleted between the listing and the reading
        listed("m3"), batch(message("m3")),
    ])
    assert sync.copy_run(gmail, http={"mail": again}) == "current"
    assert keys(gmail) == [f"mail:{key}:m:m2", f"mail:{key}:m:m3"]
    assert copy_of(gmail).position == {"gmail_history": "5000"}


# --- rate limits and a refused sign-in --------------------------------------------------------------------------


@pytest.mark.parametrize("limited", [error(429, "rateLimitExceeded", "Too many requests"),
                                     error(403, "rateLimitExceeded", "Rate Limit Exceeded")])
def test_a_rate_limit_holds_the_copy_off_longer_each_time_then_it_goes_on_where_it_stopped(org, limited, client):
    gmail = account(org, "mail")
    first_sync(gmail, "m1")
    assert sync.copy_run(gmail, http={"mail": Recording([limited])}) == "paused"
    client.force_login(org.owner)
    assert "Paused: Google is limiting requests; copying goes on in 1 minute" in client.get(
        "/connections/").content.decode()
    copy = copy_of(gmail)
    assert (copy.claim, copy.claimed_until > timezone.now(), copy.position["backoff"], copy.state) == (
        "", True, 1, "current")
    assert "limiting requests; copying goes on in 1 minute" in copy.error
    untouched = Recording([])
    assert sync.copy_run(gmail, http={"mail": untouched}) == "busy" and untouched.requests == []
    lease_over(gmail)
    assert sync.copy_run(gmail, http={"mail": Recording([limited])}) == "paused"
    assert (copy_of(gmail).position["backoff"], "in 2 minutes" in copy_of(gmail).error) == (2, True)
    lease_over(gmail)
    resumed = Recording([history([{"id": "1001", "messagesAdded": [{"message": {"id": "m2"}}]}]),
                         batch(message("m2"))])
    assert sync.copy_run(gmail, http={"mail": resumed}) == "current"
    copy = copy_of(gmail)
    assert (query_of(resumed.requests[0])["startHistoryId"], copy.position, copy.error, len(keys(gmail))) == (
        "1000", {"gmail_history": "1010"}, "", 2)


def test_a_rate_limit_on_one_read_of_a_batch_keeps_the_page_to_copy_again(org):
    gmail = account(org, "mail")
    http = Recording([ok({"historyId": "1000", "messagesTotal": 4}), listed("m1", "m2", next_page="p2"),
                      batch(message("m1"), message("m2")), listed("m3", "m4"),
                      batch(message("m3"), ("m4", error(429, "rateLimitExceeded", "Too many concurrent requests")))])
    assert sync.copy_run(gmail, http={"mail": http}) == "paused"
    assert (keys(gmail), copy_of(gmail).position["gmail_page"]) == ([f"mail:{gmail.account_key}:m:m1",
                                                                      f"mail:{gmail.account_key}:m:m2"], "p2")
    lease_over(gmail)
    again = Recording([listed("m3", "m4"), batch(message("m3"), message("m4"))])
    assert sync.copy_run(gmail, http={"mail": again}) == "current"
    assert (query_of(again.requests[0])["pageToken"], len(keys(gmail))) == ("p2", 4)


def test_a_refused_sign_in_marks_the_connection_and_the_copy_waits_for_the_reconnect(org):
    gmail = account(org, "mail")
    first_sync(gmail, "m1")
    refused = ({"status": "400"}, json.dumps({"error": "invalid_grant", "error_description": "Token revoked."}))
    assert sync.copy_run(gmail, http={"mail": Recording([error(401, "authError"), refused])}) == "reauth"
    gmail.refresh_from_db()
    copy = copy_of(gmail)
    assert (gmail.status, copy.claim, copy.position, "signing in again" in copy.error) == (
        "needs_reconnect", "", {"gmail_history": "1000"}, True)
    assert Card.objects.filter(organization=org, title="Connect sam@fernhill.test again").exists()
    sync.sweep()  # nothing is asked of Google for an account waiting for its reconnect (no_internet would refuse)
    Connection.objects.filter(pk=gmail.pk).update(status=Connection.Status.CONNECTED)
    gmail.refresh_from_db()
    resumed = Recording([history([])])
    assert sync.copy_run(gmail, http={"mail": resumed}) == "current"
    assert query_of(resumed.requests[0])["startHistoryId"] == "1000"


# --- Drive -------------------------------------------------------------------------------------------------------


def drive_file(fid, name, mime, *, parents=(), size=None, modified="2026-11-10T15:12:00Z"):
    f = {"id": fid, "name": name, "mimeType": mime, "parents": list(parents), "modifiedTime": modified,
         "webViewLink": f"https://drive.google.com/open?id={fid}", "trashed": False,
         "lastModifyingUser": {"displayName": "Dana Whitfield", "emailAddress": "dana@juniperdental.test"}}
    if size is not None:
        f["size"] = str(size)
    return f


def raw(text: str):
    return {"status": "200"}, text


def test_drive_is_listed_with_text_and_folders_then_follows_its_changes(org, ctx):
    drive = account(org, "files")
    key = drive.account_key
    doc = drive_file("d1", "Signage brief", "application/vnd.google-apps.document", parents=["f1"])
    notes = drive_file("n1", "Notes.txt", "text/plain", size=20)
    photo = drive_file("p1", "Clinic.jpg", "image/jpeg", size=2000)
    first = Recording([
        ok({"startPageToken": "s1"}),
        ok({"files": [doc, notes], "nextPageToken": "fp2"}),
        raw("# Signage brief\n\nBacklit signs for two clinics."),
        ok({"id": "f1", "name": "Clients", "parents": ["root"]}), ok({"id": "root", "name": "My Drive"}),
        raw("Opening hours: 8 to 5"),
        ok({"files": [photo]}),
    ])
    assert sync.copy_run(drive, http={"files": first}) == "current"
    assert [path_of(r).rsplit("/", 1)[-1] for r in first.requests[2:3]] == ["export"]
    assert query_of(first.requests[1])["q"] == "trashed = false and mimeType != 'application/vnd.google-apps.folder'"
    assert query_of(first.requests[6])["pageToken"] == "fp2"
    found = use_tool(ctx, "search.search", {"query": "backlit", "in": ["Clients"]})
    assert [(r["title"], r["type"]) for r in found["results"]] == [("Signage brief", "doc")]
    assert keys(drive) == [f"files:{key}:d1", f"files:{key}:n1", f"files:{key}:p1"]

    changes = Recording([
        ok({"changes": [{"fileId": "d1", "removed": False, "file": {**doc, "modifiedTime": "2026-11-11T09:00:00Z"}}],
            "nextPageToken": "s1b"}),
        raw("# Signage brief\n\nFrosted vinyl, not backlit."),
        ok({"id": "f1", "name": "Clients", "parents": ["root"]}), ok({"id": "root", "name": "My Drive"}),
        ok({"changes": [{"fileId": "n1", "removed": True},
                        {"fileId": "p1", "removed": False, "file": {**photo, "trashed": True}}],
            "newStartPageToken": "s2"}),
    ])
    assert sync.copy_run(drive, http={"files": changes}) == "current"
    assert [query_of(r)["pageToken"] for r in changes.requests if path_of(r).endswith("/changes")] == ["s1", "s1b"]
    assert keys(drive) == [f"files:{key}:d1"]
    assert use_tool(ctx, "search.search", {"query": "frosted vinyl"})["total"] == 1
    assert copy_of(drive).position == {"drive_changes": "s2"}


def test_a_google_doc_whose_export_is_refused_is_copied_without_its_text(org):
    drive = account(org, "files")
    big = drive_file("d9", "Huge plan", "application/vnd.google-apps.document")
    http = Recording([ok({"startPageToken": "s1"}), ok({"files": [big]}),
                      error(403, "exportSizeLimitExceeded", "This file is too large to be exported.")])
    assert sync.copy_run(drive, http={"files": http}) == "current"
    assert SearchItem.objects.get(key=f"files:{drive.account_key}:d9").title == "Huge plan"


# --- Calendar ----------------------------------------------------------------------------------------------------


def event(eid, title, *, start="2026-11-12T10:00:00Z", status="confirmed", guests=()):
    return {"id": eid, "status": status, "summary": title, "htmlLink": f"https://calendar.google.com/e/{eid}",
            "start": {"dateTime": start}, "end": {"dateTime": start}, "location": "Juniper Dental, Portland",
            "organizer": {"email": "sam@fernhill.test"},
            "attendees": [{"email": g} for g in guests]}


def test_calendar_is_listed_then_follows_its_sync_token_and_a_410_lists_it_again(org, ctx):
    calendar = account(org, "calendar")
    key = calendar.account_key
    first = Recording([
        ok({"items": [event("e1", "Signage review", guests=["dana@juniperdental.test"])], "nextPageToken": "cp2"}),
        ok({"items": [event("e2", "Bakery tasting")], "nextSyncToken": "st1"}),
    ])
    assert sync.copy_run(calendar, http={"calendar": first}) == "current"
    assert (query_of(first.requests[1])["pageToken"], "syncToken" in query_of(first.requests[0])) == ("cp2", False)
    assert use_tool(ctx, "search.search", {"with": ["dana@juniperdental.test"], "type": ["meeting"]})["total"] == 1

    changed = Recording([
        ok({"items": [event("e1", "", status="cancelled"), event("e3", "Rebrand kickoff")], "nextSyncToken": "st2"}),
    ])
    assert sync.copy_run(calendar, http={"calendar": changed}) == "current"
    assert (query_of(changed.requests[0])["syncToken"], keys(calendar)) == (
        "st1", [f"meeting:{key}:e2", f"meeting:{key}:e3"])

    gone = Recording([
        error(410, "fullSyncRequired", "Sync token is no longer valid, a full sync is required."),
        ok({"items": [event("e3", "Rebrand kickoff")], "nextSyncToken": "st9"}),
    ])
    assert sync.copy_run(calendar, http={"calendar": gone}) == "current"
    assert (keys(calendar), copy_of(calendar).position) == ([f"meeting:{key}:e3"], {"calendar_sync": "st9"})


# --- workspaces --------------------------------------------------------------------------------------------------


def test_another_workspaces_copy_is_never_found_or_read(org, ctx):
    ours = account(org, "mail")
    other = OrganizationFactory(name="Other Studio", owner_email="lee@other.test")
    theirs = account(other, "mail", address="lee@other.test")
    first_sync(ours, "m1")
    http = Recording([ok({"historyId": "7", "messagesTotal": 1}), listed("x1"),
                      batch(message("x1", subject="Their secret tender", text="Tender words"))])
    assert sync.copy_run(theirs, http={"mail": http}) == "current"
    assert use_tool(ctx, "search.search", {"query": "tender"})["total"] == 0
    assert use_tool(ctx, "search.search", {})["sources"].get("lee@other.test") is None
    read = use_tool(ctx, "search.read", {"id": f"mail:{theirs.account_key}:m:x1"})
    assert read["error"] == "not_found"
