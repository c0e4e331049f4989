"""Companies: the list, and a company's page (fields, details, Context, About with numbered sources, people,
open items, timeline of conversations, log) with Undo from the log, e.g. of an entry taken off the timeline."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from core.actors import Actor
from core.context import ToolContext
from records.models import CompanyPerson, LogEntry, TimelineEntry
from tests.factories import CompanyFactory, ContactFactory
from tests.pages.conftest import run
from tests.pages.test_contacts import text_of

pytestmark = pytest.mark.django_db


def company_page(owner, ws, **params) -> str:
    response = owner.get(reverse("pages:company", args=[ws.company.id]), params)
    assert response.status_code == 200
    return text_of(response)


def timeline_of(page: str) -> str:
    """The Timeline section of a company page's text."""
    return page.split(" Timeline ", 1)[1].split(" Log ", 1)[0]


def tool_ctx(ws) -> ToolContext:
    return ToolContext(org=ws.org, actor=Actor.for_agent(ws.agent), conversation_id="thread-test")


# --- the list ---------------------------------------------------------------------------------------------


def test_list_shows_each_company_with_people_handler_open_and_last(owner, ws):
    page = text_of(owner.get(reverse("pages:companies")))
    assert (
        "Dana Dental" in page
        and "danadental.test · handled by Client desk" in page
        and "Dana Whitfield" in page
        and "They owe you Sign the quote" in page
        and "Last " in page
    )


def test_list_search(owner, ws, org):
    CompanyFactory(organization=org, name="Harbor Bakery", domains=["harbor.test"])
    page = text_of(owner.get(reverse("pages:companies"), {"q": "harbor"}))
    assert "Harbor Bakery" in page and "Dana Dental" not in page


def test_list_pages_fifty_at_a_time(owner, org):
    for i in range(51):
        CompanyFactory(organization=org, name=f"Co {i:02}")
    first, second = owner.get(reverse("pages:companies")), owner.get(reverse("pages:companies"), {"offset": 50})
    assert "Co 49" in text_of(first) and "Co 50" not in text_of(first) and "Co 50" in text_of(second)


def test_empty_list_says_how_companies_arrive(owner, org):
    assert "No companies yet" in text_of(owner.get(reverse("pages:companies")))


# --- a company's page -------------------------------------------------------------------------------------


def test_page_shows_the_fields(owner, ws):
    page = company_page(owner, ws)
    assert (
        "Website https://danadental.test" in page
        and "Domains danadental.test" in page
        and "Handler Client desk" in page
    )


def test_website_is_a_link(owner, ws):
    body = owner.get(reverse("pages:company", args=[ws.company.id])).content.decode()
    assert '<a href="https://danadental.test" rel="noopener noreferrer nofollow">' in body


def test_a_website_that_is_not_a_web_address_is_no_link(owner, ws):
    ws.company.website = "javascript:alert(1)"
    ws.company.save()
    body = owner.get(reverse("pages:company", args=[ws.company.id])).content.decode()
    assert 'href="javascript' not in body


def test_page_shows_the_details(owner, ws):
    assert "Details Terms net 30" in company_page(owner, ws)


def test_page_shows_the_context_with_who_set_it(owner, ws):
    assert re.search(r"Context Dana Dental pays on time\. Client desk, \w{3} \d+", company_page(owner, ws))


def test_about_cites_its_sources_as_numbered_links(owner, ws):
    body = owner.get(reverse("pages:company", args=[ws.company.id])).content.decode()
    assert (
        '<sup><a href="#source-1" class="cite">[1]</a></sup>' in body
        and '<li id="source-1"><a href="https://juniperdental.test" rel="noopener noreferrer nofollow">'
            "Juniper Dental&#x27;s site</a></li>" in body
        and '<li id="source-2"><a href="https://news.test/juniper"' in body
    )


def test_about_shows_facts_and_lately(owner, ws):
    page = company_page(owner, ws)
    assert "Founded 2012" in page and "Third clinic announced [2] Oct 2, 2026" in page


def test_about_text_is_escaped(owner, ws):
    ws.company.about = {"text": "<script>x</script> [1] [9]", "sources": [{"title": "S", "url": "https://s.test"}]}
    ws.company.save()
    body = owner.get(reverse("pages:company", args=[ws.company.id])).content.decode()
    assert "<script>x</script>" not in body and "&lt;script&gt;x&lt;/script&gt;" in body and "[9]" in body


def test_a_source_that_is_not_a_web_address_is_plain_text(owner, ws):
    ws.company.about = {"text": "Says so [1]", "sources": [{"title": "Odd", "url": "javascript:alert(1)"}]}
    ws.company.save()
    body = owner.get(reverse("pages:company", args=[ws.company.id])).content.decode()
    assert '<li id="source-1">Odd</li>' in body and "javascript:" not in body


def test_page_shows_people_with_role_since_and_ended(owner, ws, org):
    left = ContactFactory(organization=org, name="Old Hand")
    CompanyPerson.objects.create(organization=org, company=ws.company, contact=left, role="Founder",
                                 since=datetime.date(2012, 3, 1), ended=datetime.date(2025, 6, 30))
    page = company_page(owner, ws)
    assert (
        "Dana Whitfield · Practice manager" in page
        and "Old Hand · Founder left" in page
        and "since Mar 1, 2012 · ended Jun 30, 2025" in page
    )


def test_page_shows_open_items(owner, ws):
    assert "Open items They owe you Sign the quote" in company_page(owner, ws)


def test_open_items_list_what_waits_on_someone_and_never_say_nothing_is_open_above_it(owner, ws):
    ws.company.open_items.all().delete()
    assert "Open items Nothing open: no one owes the next move." in company_page(owner, ws)
    TimelineEntry.objects.filter(company=ws.company).update(state="waiting_you")
    page = company_page(owner, ws)
    assert "Open items Waiting on you Quote for Dana Dental since" in page
    assert "Nothing open" not in page


def test_page_shows_the_timeline_of_conversations(owner, ws):
    page = company_page(owner, ws)
    assert (
        "Timeline mail Quote for Dana Dental Sent the rebrand quote; she'll reply Friday. With Dana Whitfield" in page
    )


def test_timeline_pages_twenty_at_a_time(owner, ws):
    ctx = tool_ctx(ws)
    now = timezone.now()
    for i in range(25):
        run(ctx, "companies.record", companyId=str(ws.company.id), kind="call", title=f"Call {i:02}",
            at=(now - datetime.timedelta(days=i + 1)).isoformat())
    first = owner.get(reverse("pages:company", args=[ws.company.id]))
    older = re.search(r'href="(\?before=[^"]+)#timeline" rel="next"', first.content.decode()).group(1)
    second = owner.get(reverse("pages:company", args=[ws.company.id]) + older.replace("&amp;", "&"))
    first, second = timeline_of(text_of(first)), timeline_of(text_of(second))
    assert "Call 18" in first and "Call 19" not in first and "Call 19" in second and "Call 24" in second


def test_log_lists_the_changes_newest_first(owner, ws):
    page = company_page(owner, ws)
    order = [page.index(w) for w in ("Recorded mail: Quote for Dana Dental", "Replaced the About", "Added Dana Dental")]
    assert order == sorted(order)


def test_log_shows_a_details_change_with_before_and_after(owner, ws):
    run(tool_ctx(ws), "companies.update", companyId=str(ws.company.id), details={"Terms": "net 15"},
        why="New contract")
    assert "Changed details details · Terms: net 30 → net 15 Why: New contract" in company_page(owner, ws)


def test_log_shows_a_field_set_for_the_first_time(owner, ws):
    assert "details · Terms: set to net 30 Why: From the contract" in company_page(owner, ws)


def test_unrecorded_entry_has_undo_on_the_log(owner, ws):
    run(tool_ctx(ws), "companies.unrecord", companyId=str(ws.company.id), entryId=str(ws.entry.id))
    entry = LogEntry.objects.get(company=ws.company, kind="unrecorded")
    body = owner.get(reverse("pages:company", args=[ws.company.id])).content.decode()
    page = text_of(owner.get(reverse("pages:company", args=[ws.company.id])))
    assert reverse("pages:company_log_undo", args=[ws.company.id, entry.id]) in body and (
        "Quote for Dana Dental" not in timeline_of(page)
    )


def test_undo_puts_the_entry_back_on_the_timeline(owner, ws):
    run(tool_ctx(ws), "companies.unrecord", companyId=str(ws.company.id), entryId=str(ws.entry.id))
    entry = LogEntry.objects.get(company=ws.company, kind="unrecorded")
    response = owner.post(reverse("pages:company_log_undo", args=[ws.company.id, entry.id]), follow=True)
    page = text_of(response)
    assert (
        TimelineEntry.objects.get(id=ws.entry.id).removed_at is None
        and "Undone: Took mail off the timeline: Quote for Dana Dental." in page
        and "Put mail back on the timeline: Quote for Dana Dental" in page
    )


def test_undo_when_the_conversation_was_recorded_again_says_why_nothing_changed(owner, ws):
    ctx = tool_ctx(ws)
    run(ctx, "companies.unrecord", companyId=str(ws.company.id), entryId=str(ws.entry.id))
    run(ctx, "companies.record", companyId=str(ws.company.id), kind="mail", title="Quote, again",
        at=timezone.now().isoformat(), thread="t-Dana")
    entry = LogEntry.objects.get(company=ws.company, kind="unrecorded")
    response = owner.post(reverse("pages:company_log_undo", args=[ws.company.id, entry.id]), follow=True)
    assert "recorded again since" in text_of(response) and TimelineEntry.objects.get(id=ws.entry.id).removed_at


def test_undo_of_another_companys_entry_is_404(owner, ws, org):
    elsewhere = CompanyFactory(organization=org)
    run(tool_ctx(ws), "companies.unrecord", companyId=str(ws.company.id), entryId=str(ws.entry.id))
    entry = LogEntry.objects.get(company=ws.company, kind="unrecorded")
    response = owner.post(reverse("pages:company_log_undo", args=[elsewhere.id, entry.id]))
    assert response.status_code == 404 and TimelineEntry.objects.get(id=ws.entry.id).removed_at is not None
