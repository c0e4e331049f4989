"""The owner in a real browser: sign in, Home, Undo, an ask answered in place, a chat with an agent on the
scripted model, and a worker's change appearing live, all against daphne and the worker as `make run` runs them.

Each test makes what it changes (act.py), so they pass in any order; they share one stack, so they run on one
worker of a parallel run (`-n 2 --dist loadgroup`)."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SCREENSHOT = "/tmp/roadstar-home.png"
# How long to wait for a live line before calling it missing. It is generous on purpose: this test proves the
# line arrives without a reload; how fast it arrives is measured in bench/, never asserted in a test.
LIVE_WAIT_MS = 20_000
# A reply needs the worker to pick the turn up and run it: on a loaded machine (CI runs the suite on two cores)
# that has taken longer than 30 s, so the wait is longer still; a missing reply still fails.
WORKER_REPLY_WAIT_MS = 90_000


def mark_page(page):
    """A mark that a reload would wipe: what appears after it appeared without one."""
    page.evaluate("window.__sameDocument = true")


def same_page(page) -> bool:
    return page.evaluate("window.__sameDocument === true")


def test_signing_in_opens_home_with_what_waits_and_what_was_done(signed_in, stack):
    page = signed_in
    waiting = page.locator('[data-live-part="waiting"]')
    assert "Client desk asks" in waiting.inner_text()
    assert "Set Rosa's Context to “Prefers invoices by post”?" in waiting.inner_text()
    work = page.locator('[data-live-part="work"]')
    assert "Ortiz Bakery" in work.inner_text()  # the thread's piece of work, under Client desk
    assert "Client desk " + stack.seed["change"]["sentence"] in work.inner_text()
    assert "Good morning, Sam." in page.locator('[data-live-part="summary"]').inner_text()
    page.screenshot(path=SCREENSHOT, full_page=True)


def test_undo_a_change_from_home(signed_in, stack):
    page = signed_in
    sentence = stack.act("undoable", "Dana Whitfield", "Prefers a call to email")["sentence"]
    line = page.locator("li.line", has_text="Client desk " + sentence)
    line.get_by_role("button", name="Undo").click()
    page.wait_for_selector(f"text=Undone: {sentence}.")
    assert page.locator("li.line--undone", has_text=sentence).count() == 1
    assert page.locator("li.line--undo", has_text="You undid: " + sentence).count() == 1


def test_a_held_email_counts_down_on_home_and_undo_stops_it(signed_in, stack):
    page = signed_in
    subject = "Proofs for the Juniper Dental signs"
    held = stack.act("held", subject)
    line = page.locator("li.held", has_text=f"Client desk is sending Dana Whitfield “{subject}”")
    line.wait_for(timeout=LIVE_WAIT_MS)  # it appears live on the open Home
    countdown = line.locator(".held__countdown")
    first = countdown.inner_text()
    assert re.fullmatch(r"[12]:\d\d", first), first  # under the two minutes, m:ss
    page.wait_for_function(  # the countdown ticks in the page: a new value within two seconds
        "([el, was]) => el.textContent.trim() !== was", arg=[countdown.element_handle(), first], timeout=10_000
    )
    second = countdown.inner_text()
    assert re.fullmatch(r"[0-2]:\d\d", second) and second < first, (first, second)
    line.get_by_role("button", name="Undo").click()
    page.wait_for_selector(f"text=Undone: {held['sentence']}.")
    assert page.locator("li.held", has_text=subject).count() == 0
    assert stack.act("held_state", held["id"]) == {"state": "undone", "sent": 0, "sent_at": False}


def test_a_workers_change_appears_live_without_a_reload(signed_in, stack):
    page = signed_in
    mark_page(page)
    stack.act("change", "added Lena Park to Contacts")
    page.locator("li.line", has_text="Client desk added Lena Park to Contacts").wait_for(timeout=LIVE_WAIT_MS)
    assert same_page(page)


def test_an_answer_being_written_survives_a_live_update(signed_in, stack):
    page = signed_in
    mark_page(page)
    stack.act("ask", "Harbor Florists", "Send Harbor Florists the spring price list?")
    card = page.locator("li.card--ask", has_text="Send Harbor Florists the spring price list?")
    card.wait_for(timeout=LIVE_WAIT_MS)  # an ask appears live too
    box = card.locator("textarea")
    box.click()
    box.press_sequentially("Let me check the prices")
    stack.act("change", "added Omar Haddad to Contacts")
    page.locator("li.line", has_text="added Omar Haddad to Contacts").wait_for(timeout=LIVE_WAIT_MS)
    assert box.input_value() == "Let me check the prices"
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    assert same_page(page)


def test_answer_an_ask_in_place_and_it_reaches_the_agents_chat(signed_in, stack):
    page = signed_in
    stack.act("ask", "Juniper Dental", "Send Dana the Juniper Dental quote for $8,400?")
    card = page.locator("li.card--ask", has_text="Send Dana the Juniper Dental quote")
    card.locator("textarea").fill("Yes, post them from now on.")
    card.get_by_role("button", name="Yes").click()
    page.wait_for_selector("text=Sent to Client desk: “Yes, post them from now on.”")
    assert page.locator("li.card--ask", has_text="Send Dana the Juniper Dental quote").count() == 0
    page.goto(f"/chat/{stack.seed['agents']['Client desk']}/")
    page.wait_for_selector("html[data-live-socket=open]")
    assert page.locator(".bubble--owner", has_text="Yes, post them from now on.").count() == 1
    # The worker's turn answers in the chat, and the reply appears without a reload.
    mark_page(page)
    page.locator(".bubble--agent", has_text="Got it: Yes, post them from now on.").wait_for(
        timeout=WORKER_REPLY_WAIT_MS
    )
    assert same_page(page)


def test_chat_with_an_agent_on_the_scripted_model(signed_in, stack):
    page = signed_in
    page.get_by_role("link", name="Chats").first.click()
    page.get_by_role("navigation", name="Chats").get_by_role("link", name="Proposal writer").click()
    page.wait_for_selector("html[data-live-socket=open]")
    assert page.locator("h1").inner_text() == "Proposal writer"
    mark_page(page)
    box = page.get_by_label("Write to Proposal writer")
    box.fill("Quote Juniper Dental for the signage")
    box.press("Enter")
    page.locator(".bubble--owner", has_text="Quote Juniper Dental for the signage").wait_for(timeout=LIVE_WAIT_MS)
    assert box.input_value() == ""
    page.locator(".bubble--agent", has_text="Got it: Quote Juniper Dental for the signage").wait_for(
        timeout=WORKER_REPLY_WAIT_MS
    )
    assert same_page(page)
    assert re.search(r"/chat/[0-9a-f-]+/$", page.url)
    page.screenshot(path="/tmp/roadstar-chat.png", full_page=True)
