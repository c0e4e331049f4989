"""Home: sign-in, Waiting for you (cards), Your work (lines, Undo, paging) and the buttons on it."""

import datetime
import decimal
import re
from urllib.parse import unquote

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from agents import services as agent_services
from agents.models import Usage
from core import selectors as core_selectors
from core.models import Card, Change
from core.owner_zone import owner_zone, zone_named
from core.services import card_open
from home.views import exact_time, relative_time
from records.models import Contact
from tests.factories import ContactFactory

NOW = timezone.now()


def make_line(org, *, sentence="added Dana Whitfield to Contacts", actor_name="Client desk", listing="home",
              at=None, undo=None, **extra):
    change = Change.objects.create(
        organization=org, actor_kind=extra.pop("actor_kind", "agent"), actor_id=extra.pop("actor_id", "a1"),
        actor_name=actor_name, tool=extra.pop("tool", "contacts.create"), kind=extra.pop("kind", "makes"),
        sentence=sentence, listing=listing, undo=undo, **extra,
    )
    if at is not None:
        Change.objects.filter(pk=change.pk).update(at=at)
        change.at = at
    return change


def make_lines(org, count, *, start=None, step=datetime.timedelta(minutes=1)):
    start = start or NOW
    rows = Change.objects.bulk_create(
        [
            Change(
                organization=org, actor_kind="agent", actor_id="a1", actor_name="Client desk", tool="contacts.create",
                kind="makes", sentence=f"added Person {i} to Contacts", listing="home", target_type="contact",
                target_id=str(i),
            )
            for i in range(count)
        ]
    )
    for i, row in enumerate(rows):
        row.at = start - step * i
    Change.objects.bulk_update(rows, ["at"])
    return rows


@pytest.fixture
def owner(org, client):
    client.force_login(org.owner)
    return org.owner


def page(client, **params):
    response = client.get(reverse("home"), params)
    assert response.status_code == 200
    return response.content.decode()


def undo_url(change):
    return reverse("change_undo", args=[change.id])


def messages_of(response):
    return [str(m) for m in response.context["messages"]] if response.context else []


# --- sign-in ----------------------------------------------------------------------------------------------


def test_home_sends_a_visitor_who_is_not_signed_in_to_sign_in(client, db):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=/")


def test_signing_in_with_the_password_opens_home(client, org):
    org.owner.set_password("fernhill-pass")
    org.owner.save()
    response = client.post("/login/", {"username": org.owner.username, "password": "fernhill-pass"}, follow=True)
    assert response.redirect_chain[-1][0] == "/" and "Fernhill Studio" in response.content.decode()


def test_a_wrong_password_shows_the_sign_in_page_again_with_an_error(client, org):
    response = client.post("/login/", {"username": org.owner.username, "password": "wrong"})
    assert response.status_code == 200 and "correct username and password" in response.content.decode()


def test_sign_out_by_post_ends_the_session(client, owner):
    client.post("/logout/")
    assert client.get("/").status_code == 302


def test_sign_out_by_get_signs_no_one_out(client, owner):
    # A GET answers the page with the Sign out button (tests/roadstar/test_signout.py); only its POST signs out.
    assert client.get("/logout/").status_code == 200 and client.get("/").status_code == 200


def test_a_sign_in_without_a_workspace_gets_a_page_saying_so(client, db):
    user = get_user_model().objects.create_user("nobody", password="x")
    client.force_login(user)
    response = client.get("/")
    assert response.status_code == 403 and "has no workspace" in response.content.decode()


def test_staff_without_a_workspace_are_pointed_at_the_admin(client, db):
    user = get_user_model().objects.create_user("staffer", password="x", is_staff=True)
    client.force_login(user)
    assert 'href="/admin/"' in client.get("/").content.decode()


# --- the header and the empty page ------------------------------------------------------------------------


def test_header_names_the_workspace_and_its_owner(client, owner, org):
    html = page(client)
    assert "Fernhill Studio" in html and "Sam Rivera" in html and 'action="/logout/"' in html


def test_an_empty_home_says_what_will_appear_there(client, owner, settings):
    settings.MODEL_CONFIGURED = True  # with none, the card that says how to connect one waits here
    html = page(client)
    assert "Nothing needs you right now" in html and "Every change your agents make" in html


# --- Waiting for you --------------------------------------------------------------------------------------


def test_open_cards_show_with_title_body_and_action(client, owner, org):
    Card.objects.create(
        organization=org, kind="connect", title="Connect Gmail", body="Client desk needs your mail.",
        action_label="Connect", action_url="/integrations/gmail/connect",
    )
    html = page(client)
    assert "Connect Gmail" in html and "Client desk needs your mail." in html
    assert 'href="/integrations/gmail/connect"' in html


def test_resolved_cards_and_other_workspaces_cards_are_not_shown(client, owner, org, other_org):
    Card.objects.create(organization=org, kind="budget", title="Raise the budget", resolved_at=NOW)
    Card.objects.create(organization=other_org, kind="connect", title="Connect Alex's Drive")
    html = page(client)
    assert "Raise the budget" not in html and "Alex" not in html


def test_a_card_link_that_is_not_a_web_address_is_not_offered(client, owner, org):
    Card.objects.create(organization=org, kind="connect", title="Odd", action_label="Go", action_url="javascript:x()")
    assert "javascript:" not in page(client)


def test_dismiss_resolves_the_card(client, owner, org):
    card = Card.objects.create(organization=org, kind="try_again", title="Work that couldn't finish")
    response = client.post(reverse("card_dismiss", args=[card.id]))
    card.refresh_from_db()
    assert response.status_code == 302 and card.resolved_at is not None


def test_dismissing_another_workspaces_card_is_not_found_and_leaves_it_open(client, owner, other_org):
    card = Card.objects.create(organization=other_org, kind="connect", title="Theirs")
    response = client.post(reverse("card_dismiss", args=[card.id]))
    card.refresh_from_db()
    assert response.status_code == 404 and card.resolved_at is None


# --- Your work --------------------------------------------------------------------------------------------


def test_lines_read_actor_then_sentence_newest_first(client, owner, org):
    make_line(org, sentence="added Rosa Ortiz to Contacts", at=NOW - datetime.timedelta(hours=2))
    make_line(org, sentence="set Dana Whitfield's Context: she said so", listing="home_undo", undo={"x": 1})
    html = page(client)
    assert html.index("Client desk set Dana Whitfield") < html.index("Client desk added Rosa Ortiz to Contacts")


def test_a_lines_words_are_shown_as_text_never_as_markup(client, owner, org):
    """A line's words come from what agents wrote (a contact's name, a subject): they are escaped, undone ones too."""
    make_line(org, sentence='added <script>alert("x")</script> & "Co" to Contacts', actor_name="<b>Desk</b>")
    make_line(org, sentence="renamed <i>Rosa</i>", listing="home_undo", undo={"before": {}, "after": {}},
              undone_at=NOW)
    html = page(client)
    assert "<script>" not in html and "<b>Desk</b>" not in html and "<i>Rosa</i>" not in html
    assert ("&lt;b&gt;Desk&lt;/b&gt; added &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;Co&quot; "
            "to Contacts") in html
    assert "<s>Client desk renamed &lt;i&gt;Rosa&lt;/i&gt;</s>" in html


def test_changes_shown_on_the_record_only_and_other_workspaces_changes_are_not_lines(client, owner, org, other_org):
    make_line(org, sentence="renamed the company", listing="record")
    make_line(other_org, sentence="added Alex's client")
    html = page(client)
    assert "renamed the company" not in html and "Alex's client" not in html


def test_a_line_shows_the_exact_time_in_the_owners_time_zone(client, owner, org):
    make_line(org, at=datetime.datetime(2026, 11, 10, 15, 12, tzinfo=datetime.UTC))
    assert 'title="Tue, Nov 10, 2026, 10:12 AM EST"' in page(client)


def test_a_lines_machine_readable_time_is_the_exact_instant_in_the_owners_time_zone(client, owner, org):
    make_line(org, at=datetime.datetime(2026, 11, 10, 15, 12, 7, 250, tzinfo=datetime.UTC))
    assert 'datetime="2026-11-10T10:12:07.000250-05:00"' in page(client)


def test_an_email_in_its_two_minute_hold_says_when_it_will_go_not_that_it_went(client, owner, org):
    goes = timezone.now() + datetime.timedelta(minutes=2)
    clock = goes.astimezone(owner_zone(org))
    clock_words = f"{clock.hour % 12 or 12}:{clock:%M} {'AM' if clock.hour < 12 else 'PM'}"
    make_line(org, sentence="emailed Dana Whitfield: “Your quote”", tool="mail.send", listing="home_undo",
              undo={"held": "h1", "goesAt": goes.isoformat()})
    html = page(client)
    assert f"Client desk will email Dana Whitfield at {clock_words}: “Your quote”" in html
    assert "emailed Dana" not in html and ">Undo</button>" in html


def test_an_email_whose_hold_has_ended_says_it_was_emailed(client, owner, org):
    make_line(org, sentence="emailed Dana Whitfield: “Your quote”", tool="mail.send", listing="home_undo",
              undo={"held": "h1", "goesAt": (timezone.now() - datetime.timedelta(minutes=1)).isoformat()})
    assert "Client desk emailed Dana Whitfield: “Your quote”" in page(client)


def test_an_undone_line_is_struck_through_and_says_when_it_was_undone(client, owner, org):
    make_line(org, listing="home_undo", undo={"before": {}, "after": {}},
              undone_at=datetime.datetime(2026, 11, 10, 15, 12, tzinfo=datetime.UTC))
    html = page(client)
    assert "<s>Client desk added Dana Whitfield to Contacts</s>" in html
    assert 'title="Undone Tue, Nov 10, 2026, 10:12 AM EST"' in html and 'class="line line--undone"' in html


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Kolkata", "UTC"])
def test_exact_time_says_what_strftime_says_all_year_round(zone):
    # exact_time spells the names itself (a line each on Home): the same words as the C locale's strftime.
    tz = zone_named(zone)
    at = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    for _ in range(1200):
        local = at.astimezone(tz)
        hour = local.hour % 12 or 12
        assert exact_time(at, tz=tz) == f"{local:%a, %b} {local.day}, {local.year}, {hour}:{local:%M %p %Z}"
        at += datetime.timedelta(hours=7, minutes=13)


def test_undo_is_offered_only_on_lines_listed_with_undo_that_can_be_undone(client, owner, org):
    undoable = make_line(org, listing="home_undo", undo={"before": {}, "after": {}})
    listed = make_line(org, listing="home", undo=None)
    done = make_line(org, listing="home_undo", undo={"before": {}, "after": {}}, undone_at=NOW)
    html = page(client)
    assert undo_url(undoable) in html
    assert undo_url(listed) not in html and undo_url(done) not in html


@pytest.mark.parametrize(
    "ago, words",
    [
        (datetime.timedelta(seconds=20), "just now"),
        (datetime.timedelta(minutes=5), "5 min ago"),
        (datetime.timedelta(hours=3), "3 h ago"),
        (datetime.timedelta(days=3), "3 days ago"),
        (datetime.timedelta(days=40), "Oct 1"),
        (datetime.timedelta(days=400), "Oct 6, 2025"),
    ],
)
def test_relative_time(ago, words):
    tz = zone_named("America/New_York")
    now = datetime.datetime(2026, 11, 10, 17, 0, tzinfo=datetime.UTC)
    assert relative_time(now - ago, now=now, tz=tz) == words


def test_exact_time_names_the_zone():
    at = datetime.datetime(2026, 7, 1, 4, 5, tzinfo=datetime.UTC)
    assert exact_time(at, tz=zone_named("America/New_York")) == "Wed, Jul 1, 2026, 12:05 AM EDT"


# --- Undo through the page --------------------------------------------------------------------------------


@pytest.fixture
def rosa(use):
    made = use("contacts.create", name="Rosa Ortiz", emails=["rosa@ortizbakery.test"])
    use("contacts.context", contactId=made["id"], text="Pays by bank transfer.", why="She said so")
    return Contact.objects.get(id=made["id"])


@pytest.fixture
def context_change(rosa):
    return Change.objects.get(tool="contacts.context")


def test_undo_through_the_page_restores_what_was_there(client, owner, rosa, context_change):
    response = client.post(undo_url(context_change))
    rosa.refresh_from_db()
    assert response.status_code == 302 and rosa.context is None


def test_after_undo_the_line_is_struck_through_and_the_undo_reads_you_undid(client, owner, context_change):
    client.post(undo_url(context_change))
    html = page(client)
    assert re.search(r"<s>Client desk set Rosa Ortiz&#x27;s Context: She said so</s>\s*<span[^>]*>undone</span>", html)
    assert "You undid: set Rosa Ortiz&#x27;s Context: She said so" in html


def test_after_undo_the_line_offers_no_undo(client, owner, context_change):
    client.post(undo_url(context_change))
    assert undo_url(context_change) not in page(client)


def test_undo_says_it_was_done(client, owner, context_change):
    response = client.post(undo_url(context_change), follow=True)
    assert "Undone: set Rosa Ortiz's Context: She said so." in messages_of(response)


def test_undo_is_recorded_as_the_owners(client, owner, org, context_change):
    client.post(undo_url(context_change))
    record = Change.objects.get(undoes=context_change)
    assert (record.actor_kind, record.actor_id) == ("user", str(org.owner_id))


def test_undoing_twice_tells_the_owner_it_was_undone_already(client, owner, context_change):
    client.post(undo_url(context_change), follow=True)  # reading the page takes its "Undone" message
    response = client.post(undo_url(context_change), follow=True)
    assert messages_of(response) == [
        "Couldn't undo “set Rosa Ortiz's Context: She said so”. That change was undone already."
    ]


def test_undo_after_a_later_change_says_it_changed_and_keeps_the_later_value(client, owner, use, rosa, context_change):
    use("contacts.context", contactId=str(rosa.id), text="Pays on the 1st.", why="New terms")
    response = client.post(undo_url(context_change), follow=True)
    rosa.refresh_from_db()
    assert rosa.context == "Pays on the 1st."
    assert "changed again since" in messages_of(response)[0]


def test_undo_of_another_workspaces_change_is_not_found_and_changes_nothing(client, owner, other_org):
    theirs = ContactFactory(organization=other_org, name="Their client", context="Keep")
    change = make_line(
        other_org, tool="contacts.context", kind="changes", listing="home_undo", target_type="contact",
        target_id=str(theirs.id), undo={"before": {"context": None}, "after": {"context": "Keep"}},
    )
    response = client.post(undo_url(change))
    theirs.refresh_from_db()
    change.refresh_from_db()
    assert response.status_code == 404 and theirs.context == "Keep" and change.undone_at is None


def test_undo_by_get_is_refused(client, owner, context_change):
    assert client.get(undo_url(context_change)).status_code == 405


def test_undo_returns_to_the_page_it_was_pressed_on(client, owner, context_change):
    response = client.post(undo_url(context_change), {"next": "/?before=2026-11-10T10:00:00Z"})
    assert response["Location"] == "/?before=2026-11-10T10:00:00Z"


def test_undo_never_sends_the_owner_to_another_site(client, owner, context_change):
    response = client.post(undo_url(context_change), {"next": "https://evil.test/"})
    assert response["Location"] == "/"


# --- paging -----------------------------------------------------------------------------------------------


def older_link(html):
    match = re.search(r'href="\?before=([^"]+)" rel="next"', html)
    return match and match.group(1)


def test_a_page_holds_fifty_lines_and_links_to_older(client, owner, org):
    make_lines(org, 60)
    html = page(client)
    assert html.count('<li class="line') == 50 and "Person 49 " in html and older_link(html)


def test_the_older_page_holds_the_rest_and_no_older_link(client, owner, org):
    make_lines(org, 60)
    html = page(client, before=unquote(older_link(page(client))))
    assert html.count('<li class="line') == 10 and "Person 50 " in html and "Person 59 " in html
    assert older_link(html) is None


def test_an_unreadable_before_shows_the_newest_page(client, owner, org):
    make_lines(org, 3)
    assert "Person 0 " in page(client, before="yesterday-ish")


def test_lines_made_at_the_same_instant_are_never_split_across_pages(org):
    make_lines(org, 4, step=datetime.timedelta(minutes=1))
    same = make_lines(org, 3, start=NOW - datetime.timedelta(minutes=10), step=datetime.timedelta(0))
    first = core_selectors.home_work_lines(org=org, limit=5)
    second = core_selectors.home_work_lines(org=org, before=first.next_before, limit=5)
    assert [len(first.lines), len(second.lines)] == [4, 3]
    assert {c.id for c in second.lines} == {c.id for c in same}


def test_a_page_all_made_at_one_instant_shows_every_line_of_it(org):
    same = make_lines(org, 7, step=datetime.timedelta(0))
    make_lines(org, 2, start=NOW - datetime.timedelta(hours=1))
    result = core_selectors.home_work_lines(org=org, limit=5)
    assert {c.id for c in result.lines} == {c.id for c in same} and result.next_before is not None


def test_home_costs_the_same_queries_for_5_lines_as_for_200(client, owner, org):
    Card.objects.create(organization=org, kind="connect", title="Connect Gmail")
    make_lines(org, 5)
    with CaptureQueriesContext(connection) as few:
        page(client)
    make_lines(org, 195, start=NOW - datetime.timedelta(days=1))
    ContactFactory.create_batch(30, organization=org)
    with CaptureQueriesContext(connection) as many:
        html = page(client)
    assert html.count('<li class="line') == 50
    assert len(many) == len(few)


# --- Try again and Raise the budget, on their cards -------------------------------------------------------


@pytest.fixture
def failed_chat(agent):
    return agent_services.chat_for(agent=agent)


@pytest.fixture
def try_again_card(org, failed_chat):
    return card_open(
        org=org, kind="try_again", subject=f"try_again:{failed_chat.id}", title="Client desk couldn't finish",
        action_label="Try again", data={"conversation_id": str(failed_chat.id)},
    )


@pytest.fixture
def paused(agent):
    agent.monthly_budget, agent.paused = decimal.Decimal("10"), True
    agent.save()
    return agent


@pytest.fixture
def budget_card(org, paused):
    return card_open(
        org=org, kind="budget", subject=f"budget:{paused.id}", title="Client desk is paused",
        action_label="Raise the budget", data={"agent_id": str(paused.id)},
    )


def test_a_try_again_card_offers_try_again(client, owner, try_again_card):
    assert reverse("card_try_again", args=[try_again_card.id]) in page(client)


def test_try_again_queues_the_conversation_again(client, owner, try_again_card, failed_chat):
    client.post(reverse("card_try_again", args=[try_again_card.id]))
    failed_chat.refresh_from_db()
    assert failed_chat.state == "queued"


def test_try_again_resolves_its_card(client, owner, try_again_card):
    client.post(reverse("card_try_again", args=[try_again_card.id]))
    try_again_card.refresh_from_db()
    assert try_again_card.resolved_at is not None


def test_try_again_pressed_twice_says_it_was_dealt_with(client, owner, try_again_card):
    client.post(reverse("card_try_again", args=[try_again_card.id]), follow=True)
    response = client.post(reverse("card_try_again", args=[try_again_card.id]), follow=True)
    assert messages_of(response) == ["That was dealt with already."]


def test_try_again_on_another_workspaces_card_is_not_found(client, owner, other_org):
    card = Card.objects.create(organization=other_org, kind="try_again", title="Theirs", data={"conversation_id": "x"})
    assert client.post(reverse("card_try_again", args=[card.id])).status_code == 404


def test_a_budget_card_offers_a_new_budget(client, owner, budget_card):
    html = page(client)
    assert reverse("card_raise_budget", args=[budget_card.id]) in html and 'name="monthly_budget"' in html


def test_raising_the_budget_lets_the_agent_work_again(client, owner, budget_card, paused):
    response = client.post(reverse("card_raise_budget", args=[budget_card.id]), {"monthly_budget": "$60"}, follow=True)
    paused.refresh_from_db()
    assert (paused.monthly_budget, paused.paused) == (decimal.Decimal("60.00"), False)
    assert messages_of(response) == ["Client desk can work again, with a budget of $60.00 a month."]


def test_raising_the_budget_resolves_its_card(client, owner, budget_card):
    client.post(reverse("card_raise_budget", args=[budget_card.id]), {"monthly_budget": "60"})
    budget_card.refresh_from_db()
    assert budget_card.resolved_at is not None


def test_a_budget_below_this_months_spend_keeps_the_agent_paused_and_says_so(client, owner, org, budget_card, paused):
    Usage.objects.create(organization=org, agent=paused, model="gpt-6.1-terra", cost=decimal.Decimal("25"))
    response = client.post(reverse("card_raise_budget", args=[budget_card.id]), {"monthly_budget": "20"}, follow=True)
    paused.refresh_from_db()
    assert paused.paused and "still paused: it has spent $25.00 this month" in messages_of(response)[0]


@pytest.mark.parametrize("typed", ["", "lots", "-5", "0", "NaN", "1e12"])
def test_a_budget_that_is_not_an_amount_is_refused_and_changes_nothing(client, owner, budget_card, paused, typed):
    response = client.post(reverse("card_raise_budget", args=[budget_card.id]), {"monthly_budget": typed}, follow=True)
    paused.refresh_from_db()
    assert paused.monthly_budget == decimal.Decimal("10") and "in dollars" in messages_of(response)[0]


def test_raising_a_budget_on_another_workspaces_card_is_not_found(client, owner, other_org):
    card = Card.objects.create(organization=other_org, kind="budget", title="Theirs", data={"agent_id": "x"})
    response = client.post(reverse("card_raise_budget", args=[card.id]), {"monthly_budget": "60"})
    assert response.status_code == 404


def test_work_whose_thread_is_named_after_it_is_named_once(client, org):
    # The morning summary's thread and task are both "Morning summary": Home showed "Morning summary · Morning summary".
    from agents import services as agent_services
    from agents.models import Agent

    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    thread = agent_services.thread_start(agent=roadstar, title="Morning summary")
    agent_services.work_open(org=org, agent=roadstar, conversation=thread, task="Morning summary", requester=None)
    client.force_login(org.owner)
    html = client.get("/").content.decode()
    work = html[html.index('data-key="agent-'):]
    work = work[:work.index("</article>")]
    assert work.count("Morning summary") == 1, work


def test_a_new_contact_and_a_new_doc_link_to_themselves_on_home(client, owner, org, use):
    contact = use("contacts.create", name="Priya Raman", emails=["priya@harbor.test"])
    doc = use("docs.write", title="Harbor quote", text="## Scope\n\nFlowers.")
    html = page(client)
    assert re.search(rf'<a class="line__link" href="/contacts/{contact["id"]}/">[^<]*added Priya Raman to Contacts',
                     html), html
    assert re.search(rf'<a class="line__link" href="/docs/{doc["pageId"]}/">[^<]*wrote the doc', html), html
