"""Contacts: the list (search, filters, paging) and a contact's page (fields, Context, open items, log, companies,
projects, timeline) with Undo from its log."""

from __future__ import annotations

import dataclasses
import re

import pytest
from django.urls import reverse

from records.models import Contact, LogEntry
from tests.factories import ContactFactory

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    """The page's main text, tags dropped and spaces folded, as the owner reads it."""
    body = response.content.decode()
    main = re.search(r'<main class="page">(.*)</main>', body, re.S).group(1)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main)).replace("&#x27;", "'").replace("&amp;", "&")


def test_signed_out_owner_is_sent_to_sign_in(client, ws):
    response = client.get(reverse("pages:contacts"))
    assert response.status_code == 302 and response.url.startswith("/login/")


def test_list_shows_each_contact_with_company_open_item_and_label(owner, ws):
    page = text_of(owner.get(reverse("pages:contacts")))
    assert (
        "Dana Whitfield" in page
        and "Practice manager · Dana Dental" in page
        and "Follow up Check she got the quote" in page
        and "Client" in page
        and "1 in all" in page
    )


def test_list_links_to_each_contact(owner, ws):
    assert reverse("pages:contact", args=[ws.contact.id]) in owner.get(reverse("pages:contacts")).content.decode()


def test_search_finds_by_address(owner, ws, org):
    ContactFactory(organization=org, name="Priya Shah", emails=["priya@elsewhere.test"])
    page = text_of(owner.get(reverse("pages:contacts"), {"q": "elsewhere"}))
    assert "Priya Shah" in page and "Dana Whitfield" not in page


def test_search_with_no_match_says_so(owner, ws):
    assert "No contact matches" in text_of(owner.get(reverse("pages:contacts"), {"q": "nobody at all"}))


def test_open_filter_keeps_those_with_that_kind_open(owner, ws, org):
    ContactFactory(organization=org, name="Quiet Person")
    page = text_of(owner.get(reverse("pages:contacts"), {"open": "follow_up"}))
    assert "Dana Whitfield" in page and "Quiet Person" not in page


def test_label_filter(owner, ws, org):
    ContactFactory(organization=org, name="Supplier Sam", labels=["Supplier"])
    page = text_of(owner.get(reverse("pages:contacts"), {"label": "supplier"}))
    assert "Supplier Sam" in page and "Dana Whitfield" not in page


def test_list_pages_fifty_at_a_time(owner, org):
    for i in range(55):
        ContactFactory(organization=org, name=f"Person {i:02}")
    first = owner.get(reverse("pages:contacts"))
    second = owner.get(reverse("pages:contacts"), {"offset": 50})
    assert (
        "Person 49" in text_of(first) and "Person 50" not in text_of(first)
        and 'href="?offset=50" rel="next"' in first.content.decode()
        and "Person 50" in text_of(second) and "Person 54" in text_of(second)
        and "Showing 51–55 of 55" in text_of(second)
    )


def test_a_bad_offset_shows_the_first_page(owner, ws):
    assert owner.get(reverse("pages:contacts"), {"offset": "x"}).status_code == 200


def test_empty_list_says_how_contacts_arrive(owner, org):
    assert "No contacts yet" in text_of(owner.get(reverse("pages:contacts")))


# --- a contact's page -------------------------------------------------------------------------------------


def contact_page(owner, ws) -> str:
    response = owner.get(reverse("pages:contact", args=[ws.contact.id]))
    assert response.status_code == 200
    return text_of(response)


def test_page_shows_the_fields(owner, ws):
    page = contact_page(owner, ws)
    assert (
        "dana@juniperdental.test" in page
        and "+1 555 0100" in page
        and "Job title Practice manager" in page
        and "birthday May 2" in page
    )


def test_page_shows_the_context(owner, ws):
    assert "Context Dana prefers a call to email." in contact_page(owner, ws)


def test_page_shows_open_items(owner, ws):
    assert re.search(r"Open items Follow up Check she got the quote due \w{3} \d+, \d{4}", contact_page(owner, ws))


def test_page_shows_companies_with_their_roles(owner, ws):
    page = contact_page(owner, ws)
    assert "Companies Dana Dental · Practice manager" in page


def test_page_shows_a_company_left_as_left(owner, ws):
    link = ws.contact.company_links.get()
    link.role, link.ended = "Office manager", "2026-01-31"
    link.save()
    assert "Dana Dental · Office manager left" in contact_page(owner, ws) and "ended Jan 31, 2026" in contact_page(
        owner, ws
    )


def test_page_shows_projects(owner, ws):
    response = owner.get(reverse("pages:contact", args=[ws.contact.id]))
    assert "Projects Dana rebrand" in text_of(response) and f"?project={ws.project.id}" in response.content.decode()


@pytest.fixture
def apps(monkeypatch):
    """Set which apps the contact timeline reads: `apps(mail=provider or None, calendar=…)`."""
    from contacts import selectors

    def set_(**providers):
        for key, provider in providers.items():
            source = dataclasses.replace(selectors.TIMELINE_SOURCES[key], provider=lambda org, p=provider: p)
            monkeypatch.setattr(selectors, "TIMELINE_SOURCES", selectors.TIMELINE_SOURCES.with_entry(source))

    return set_


def test_timeline_shows_each_app_it_could_not_read_plainly(owner, ws, apps):
    apps(mail=None, calendar=None)
    page = contact_page(owner, ws)
    assert (
        "Gmail isn't connected, so mail threads with Dana Whitfield can't be read. Connect it" in page
        and "Google Calendar isn't connected, so meetings with Dana Whitfield can't be read." in page
    )


def test_timeline_shows_what_an_app_gives(owner, ws, apps):
    class Mail:
        connection = "conn-1"

        def contact_items(self, *, actor, addresses, limit):
            assert addresses == ["dana@juniperdental.test"] and actor.kind == "user"
            return [{"kind": "mail", "id": "m1", "title": "Re: quote", "at": "2026-11-02T15:00:00Z", "direction": "in",
                     "from": "Dana Whitfield", "snippet": "Looks good", "url": "javascript:alert(1)"}]

    apps(mail=Mail(), calendar=None)
    response = owner.get(reverse("pages:contact", args=[ws.contact.id]))
    page = text_of(response)
    assert (
        "mail · received Re: quote · Dana Whitfield Looks good" in page
        and "javascript:" not in response.content.decode()
    )


def test_log_is_newest_first(owner, ws):
    page = contact_page(owner, ws)
    order = [page.index(words) for words in (
        "Linked to the project Dana rebrand", "Dana asked about signage prices.", "Added Dana Whitfield",
    )]
    assert order == sorted(order)


def test_log_shows_what_changed_and_why(owner, ws):
    assert "Context Client desk set to Dana prefers a call to email. Why: She said so on the phone" in contact_page(
        owner, ws
    )


def test_log_offers_undo_where_the_change_allows_it(owner, ws):
    entry = LogEntry.objects.get(contact=ws.contact, kind="context")
    body = owner.get(reverse("pages:contact", args=[ws.contact.id])).content.decode()
    undo = reverse("pages:contact_log_undo", args=[ws.contact.id, entry.id])
    note = LogEntry.objects.get(contact=ws.contact, kind="note")
    assert undo in body and reverse("pages:contact_log_undo", args=[ws.contact.id, note.id]) not in body


def test_undo_from_the_log_restores_the_context(owner, ws):
    entry = LogEntry.objects.get(contact=ws.contact, kind="context")
    response = owner.post(reverse("pages:contact_log_undo", args=[ws.contact.id, entry.id]))
    assert (
        response.status_code == 302
        and response.url == reverse("pages:contact", args=[ws.contact.id]) + "#log"
        and Contact.objects.get(id=ws.contact.id).context is None
    )


def test_undo_twice_says_it_was_undone_already(owner, ws):
    entry = LogEntry.objects.get(contact=ws.contact, kind="context")
    url = reverse("pages:contact_log_undo", args=[ws.contact.id, entry.id])
    owner.post(url)
    response = owner.post(url, follow=True)
    assert "That was undone already." in text_of(response)


def test_undo_of_an_entry_with_no_change_says_so(owner, ws):
    note = LogEntry.objects.get(contact=ws.contact, kind="note")
    response = owner.post(reverse("pages:contact_log_undo", args=[ws.contact.id, note.id]), follow=True)
    assert "That entry has nothing to undo." in text_of(response)


def test_undo_needs_a_post(owner, ws):
    entry = LogEntry.objects.get(contact=ws.contact, kind="context")
    assert owner.get(reverse("pages:contact_log_undo", args=[ws.contact.id, entry.id])).status_code == 405


def test_long_log_shows_the_newest_and_a_link_to_older(owner, ws, org):
    from contacts.services import contact_note
    from core.actors import Actor

    for i in range(60):
        contact_note(org=org, actor=Actor.for_agent(ws.agent), contact=ws.contact, text=f"Note {i:02}")
    page = owner.get(reverse("pages:contact", args=[ws.contact.id]))
    older = owner.get(reverse("pages:contact", args=[ws.contact.id]), {"log": 100})
    assert (
        "Note 59" in text_of(page) and "Note 05" not in text_of(page) and "?log=100#log" in page.content.decode()
        and "Note 05" in text_of(older)
    )


def test_an_id_that_is_no_contact_is_404(owner, ws):
    assert owner.get(reverse("pages:contact", args=["00000000-0000-0000-0000-000000000000"])).status_code == 404
