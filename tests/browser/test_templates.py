"""The owner adds a template an agent proposed, from Home, in a real browser: the ask appears live, the owner
answers its questions and places it on the chart, presses Add, and Undo on the line takes all of it back.

It shares the browser tests' one stack (and so their xdist group)."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SCREENSHOT = "/tmp/roadstar-template-ask.png"
LIVE_WAIT_MS = 20_000  # generous: this proves the card arrives without a reload, not how fast


def test_the_owner_adds_a_proposed_template_from_home_and_undo_removes_it(signed_in, stack):
    page = signed_in
    assert stack.act("agent_made", "Scheduler") == {"exists": False}
    stack.act("propose_template", "roadstar/scheduler")
    card = page.locator("li.card--template", has_text="Add the template “Scheduler”?")
    card.wait_for(timeout=LIVE_WAIT_MS)  # live, on the open Home
    card.screenshot(path=SCREENSHOT)
    assert "Meetings with clients take you a dozen emails each" in card.inner_text()
    assert "Client desk found this in your email signature." in card.inner_text()
    hours = card.locator("input[name=answer-meeting_hours]")
    assert hours.input_value() == "Weekdays, 10 AM to 4 PM"
    card.locator("select[name=answer-buffer]").select_option("15 minutes")
    card.locator("select[name=place]").select_option("Client desk")
    card.get_by_role("button", name="Add", exact=True).click()
    page.wait_for_selector("text=Done: you added the template “Scheduler”")

    made = stack.act("agent_made", "Scheduler")
    assert made == {"exists": True, "reports_to": "Client desk", "skills": ["Find a time"],
                    "routines": ["Meeting requests", "The day ahead"]}
    assert page.locator("li.card--template").count() == 0

    line = page.locator("li.line", has_text="You added the template “Scheduler”")
    line.get_by_role("button", name="Undo").click()
    page.wait_for_selector("text=Undone: added the template “Scheduler”")
    assert stack.act("agent_made", "Scheduler") == {"exists": False}
