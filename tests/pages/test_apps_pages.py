"""The owner's mail, files, calendar and invoices pages: read-only, through the services the tools use, from the
example workspace's local mailbox, files, calendar and books; an app that can't answer is said plainly; another
workspace's ids are 404s."""

import html

import pytest

from core.errors import ToolError
from home.management.commands.seed_demo import APPS_ACCOUNT_KEY, seed_apps
from integrations.models import Connection
from integrations.providers.local_mail import LocalMailProvider


def text_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return html.unescape(response.content.decode())


@pytest.fixture
def apps(org):
    org.time_zone = "America/New_York"
    org.save(update_fields=["time_zone"])
    seed_apps(org)
    return Connection.objects.get(organization=org, account_key=APPS_ACCOUNT_KEY)


def test_mail_lists_the_threads_newest_first_and_a_thread_reads_in_the_owners_zone(owner, apps):
    page = text_of(owner.get("/mail/"))
    subjects = ["Rebrand for our second clinic", "Proofs for Harbor Florists", "Menu boards: final files"]
    assert [page.index(s) for s in subjects] == sorted(page.index(s) for s in subjects)
    thread = f"/mail/{APPS_ACCOUNT_KEY}:"
    start = page.index(thread, page.index("/mail/\""))
    href = page[start: page.index('"', start)]
    read = text_of(owner.get(href))
    assert "Rebrand for our second clinic" in read and "Dana Whitfield <dana@juniperdental.test>" in read
    assert "Nov 10, 2026, 10:12 AM" in read  # sent 10:12 in New York, shown in Sam's zone
    assert "mail:" not in read  # the local mailbox has no web page: no link out


def test_mail_search_narrows(owner, apps):
    page = text_of(owner.get("/mail/?q=proofs"))
    assert "Proofs for Harbor Florists" in page and "Rebrand for our second clinic" not in page


def test_files_show_the_top_folder_with_names_and_a_file_page(owner, apps):
    page = text_of(owner.get("/files/"))
    assert f'href="/files/{APPS_ACCOUNT_KEY}/' in page
    assert f"{APPS_ACCOUNT_KEY}:" not in page  # names, not raw ids
    found = text_of(owner.get("/files/?q=proposal"))
    start = found.index(f'href="/files/{APPS_ACCOUNT_KEY}/') + 6
    one = text_of(owner.get(found[start: found.index('"', start)]))
    assert "Last changed" in one


def test_calendar_shows_the_seeded_week_by_day_in_the_owners_zone(owner, apps):
    page = text_of(owner.get("/calendar/?from=2026-11-18"))  # any day: the page starts on its Monday
    assert "Monday, Nov 16, 2026" in page and "Studio planning" in page and "9:00 AM–10:00 AM" in page
    assert "with marco@ruizprint.test" in page
    assert "Two weeks earlier" in page and "?from=2026-11-30" in page


def test_invoices_list_and_one_invoice_with_its_lines(owner, apps):
    page = text_of(owner.get("/invoices/"))
    assert "Invoice 1043" in page and "Invoice 1038" in page
    assert "$1,250.00 overdue" in page
    only = text_of(owner.get("/invoices/?status=paid"))
    assert "Invoice 1038" in only and "Invoice 1043" not in only
    one = text_of(owner.get("/invoices/1042/"))
    assert "Menu board design, three boards" in one and "$750.00" in one
    assert 'href="https://app.qbo.intuit.com/app/invoice?txnId=1042"' in one and "Open its link" in one


@pytest.mark.parametrize("path, says", [
    ("/mail/", "Your mail isn't connected yet"),
    ("/files/", "Your files isn't connected yet"),
    ("/calendar/", "Your calendar isn't connected yet"),
    ("/invoices/", "Your books isn't connected yet"),
])
def test_nothing_connected_says_so_and_puts_no_card_on_home(owner, org, path, says):
    from core.models import Card

    page = text_of(owner.get(path))
    assert says in page and 'href="/connections/"' in page
    assert not Card.objects.filter(organization=org).exists()


def test_an_app_that_fails_says_so_with_its_way_back(owner, apps, monkeypatch):
    def broken(self, query, *, limit, page=None):
        raise ToolError("unavailable", "Gmail didn't answer (ConnectError). Try again later, or say so.")

    monkeypatch.setattr(LocalMailProvider, "search", broken)
    page = text_of(owner.get("/mail/"))
    assert "Roadstar's mailbox (" in page and "didn't answer just now" in page
    assert "ConnectError" not in page


def test_a_signed_out_account_asks_to_connect_again(owner, apps):
    Connection.objects.filter(pk=apps.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    page = text_of(owner.get("/calendar/?from=2026-11-16"))
    assert "Roadstar's calendar (" in page and "needs you to sign in again" in page
    assert f'href="/connections/local/?account={APPS_ACCOUNT_KEY}"' in page


def test_another_workspaces_records_are_not_found(owner, other_org):
    seed_apps(other_org)
    theirs = Connection.objects.get(organization=other_org)
    assert owner.get(f"/mail/{theirs.account_key}:fernhill-dana-enquiry/").status_code == 404
    assert owner.get(f"/files/{theirs.account_key}/1abc").status_code == 404
    assert owner.get("/invoices/1042/").status_code == 404
    assert owner.get("/mail/not-an-id/").status_code == 404
