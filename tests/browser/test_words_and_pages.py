"""Issue 27's words and pages as a person sees them, at 1280 px and at a phone's 390 px: the newsfeed page's parts
spaced and its Follow form whole (the address field not a clipped 100 px box, the menu styled), the MCP page's
Connect an app steps with the address to paste, the Agents page saying when an agent works from its
routines (the example Bookkeeper has none), and Your work saying what a held email will do, and when, while it
waits."""

import re

import pytest

from tests.browser.test_owner_pages import sideways, sign_in, wider_than_the_screen

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WIDTHS = {"desk": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=sorted(WIDTHS))
def screen(request, chromium, stack):
    context = chromium.new_context(base_url=stack.url, viewport=WIDTHS[request.param])
    context.set_default_timeout(10_000)
    page = context.new_page()
    sign_in(page, stack)
    yield page
    context.close()


def test_the_newsfeed_page_is_spaced_and_its_follow_form_whole(screen):
    screen.goto("/newsfeed/")
    url = screen.locator("#feed-url")
    menu = screen.locator("#feed-project")
    assert url.bounding_box()["width"] >= 200  # not the budget form's 6.5 rem box
    assert menu.evaluate("el => getComputedStyle(el).borderTopStyle") == "solid"  # styled, as the fields are
    for heading in ("#feeds-title", "#research-groups-title"):
        above = screen.locator(heading).evaluate(
            "h => h.getBoundingClientRect().top - h.closest('section').previousElementSibling"
            ".getBoundingClientRect().bottom")
        assert above >= 20, heading  # a section's margin, not a heading against the text above it
    assert sideways(screen) == 0, wider_than_the_screen(screen)


def test_connect_an_app_shows_its_steps_and_the_address_to_paste(screen, stack):
    screen.goto("/connections/mcp/")
    box = screen.locator("section", has=screen.locator("#connect-app"))
    assert box.locator("ol.steps > li").count() == 3
    address = box.locator("#mcp-url-connect")
    assert address.is_visible() and address.inner_text().endswith("/mcp")
    assert box.get_by_role("button", name="Copy").is_visible()
    assert box.get_by_label("It works as").is_visible() and box.get_by_label("What it is").is_visible()
    assert sideways(screen) == 0, wider_than_the_screen(screen)


def test_the_agents_page_says_when_each_works_from_its_routines(screen):
    screen.goto("/agents/")
    card = screen.locator("article.agent", has=screen.locator("h3", has_text="Bookkeeper"))
    text = " ".join(card.inner_text().split())
    assert "When asked: no routine of its own" in text and "Mondays at 9 AM" not in text
    assert sideways(screen) == 0, wider_than_the_screen(screen)


def test_your_work_says_a_held_email_will_go_and_when_not_that_it_went(screen, stack):
    subject = f"Proofs {screen.viewport_size['width']}"
    stack.act("held", subject)
    screen.goto("/")
    screen.locator("li.held", has_text=subject).wait_for()
    body = " ".join(screen.locator("main").inner_text().split())
    will = rf"Client desk will email dana@juniperdental\.test at \d{{1,2}}:\d\d [AP]M: “{subject}”"
    assert re.search(will, body), body
    assert f"emailed dana@juniperdental.test: “{subject}”" not in body
    assert sideways(screen) == 0, wider_than_the_screen(screen)
