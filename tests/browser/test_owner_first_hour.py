"""The owner's first hour, round two, in a real browser: a chat on a phone (390 px: the agents' names wrap, nothing
is cut, Send is on the screen), and what the owner sets up and changes without a terminal.

At a phone's width a mobile viewport lays a page that is too wide out wider and zooms it out, so `innerWidth` grows
with the page: each check here compares against the screen's 390 px, not against innerWidth."""

import pytest

from tests.browser.test_owner_pages import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 900}


@pytest.fixture
def phone(chromium, stack):
    context = chromium.new_context(base_url=stack.url, viewport=PHONE, device_scale_factor=2, is_mobile=True,
                                   has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    sign_in(page, stack)
    yield page
    context.close()


def widest(page) -> dict:
    return page.evaluate("""() => ({
        inner: window.innerWidth,
        scroll: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
        past: [...document.querySelectorAll('body *')]
            .filter(el => el.getBoundingClientRect().right > 391)
            .slice(0, 8).map(el => el.tagName.toLowerCase() + '.' + [...el.classList].join('.')),
    })""")


def test_a_chat_on_a_phone_wraps_the_agents_and_keeps_send_on_screen(phone, stack):
    phone.goto(f"/chat/{stack.seed['agents']['Client desk']}/")
    phone.wait_for_selector("html[data-live-socket=open]")
    long = "Please look up " + "the Juniper Dental signage proofs and " * 6 + "tell me."
    box = phone.locator("#chat-text")
    box.fill(long)
    box.press("Enter")
    phone.locator(".bubble--owner", has_text="tell me.").wait_for(timeout=20_000)
    seen = widest(phone)
    assert seen["inner"] == 390 and seen["scroll"] <= 390 and seen["past"] == [], seen
    names = phone.get_by_role("navigation", name="Chats").get_by_role("link")
    assert names.count() >= 4
    for n in range(names.count()):
        edge = names.nth(n).bounding_box()
        assert edge["x"] >= 0 and edge["x"] + edge["width"] <= 390, names.nth(n).inner_text()
    tops = {round(names.nth(n).bounding_box()["y"]) for n in range(names.count())}
    assert len(tops) > 1  # the names wrap to a second row rather than run off the screen
    send = phone.get_by_role("button", name="Send").bounding_box()
    assert send["x"] >= 0 and send["x"] + send["width"] <= 390
    assert box.input_value() == ""
    assert phone.locator("#chat-text-count").inner_text() == "0 of 20,000 characters"  # the counter reset too


# --- Settings, AI model, against a model server the test starts ---------------------------------------------


@pytest.fixture
def desk(chromium, stack):
    context = chromium.new_context(base_url=stack.url, viewport=DESK)
    context.set_default_timeout(15_000)
    page = context.new_page()
    sign_in(page, stack)
    yield page
    context.close()


def test_settings_test_calls_the_model_server_and_says_what_happened(desk):
    from tests.fake_model_server import FakeModelServer

    with FakeModelServer(key="sk-fernhill-browser", models=("gpt-4.1", "gpt-4.1-mini")) as server:
        desk.get_by_role("link", name="Settings").click()
        desk.locator("h1", has_text="AI model").wait_for()
        desk.get_by_label("Address").fill(server.url)
        desk.get_by_label("Key").fill("sk-wrong")
        desk.get_by_role("button", name="Test").click()
        result = desk.locator("[data-test-result]")
        assert "the key isn't right" in result.inner_text()
        desk.get_by_label("Key").fill("sk-fernhill-browser")
        desk.get_by_role("button", name="Test").click()
        assert f"It works: “gpt-4.1” at {server.url} answered “OK”." in desk.locator("[data-test-result]").inner_text()
        assert [r["body"]["model"] for r in server.requests] == ["gpt-4.1", "gpt-4.1"]
        desk.get_by_label("Key").fill("sk-fernhill-browser")
        desk.get_by_role("button", name="Save").click()
        desk.get_by_text("Saved. Your agents use it from their next step on.").wait_for()
        assert "sk-fernhill-browser" not in desk.content()  # never shown back
        assert desk.get_by_label("Key").get_attribute("placeholder").startswith("A key is saved")


# --- the owner's own records ---------------------------------------------------------------------------------


def test_add_and_edit_a_contact_then_undo_it_from_home(desk, stack):
    desk.goto("/contacts/")
    desk.get_by_text("Add a contact").click()
    desk.get_by_label("Name").fill("Priya Raman")
    desk.get_by_label("Phone (optional)").fill("555-0142")
    desk.get_by_role("button", name="Add", exact=True).click()
    desk.locator("h1", has_text="Priya Raman").wait_for()
    desk.get_by_text("Edit", exact=True).click()
    desk.get_by_label("Phone").fill("555-0199")
    desk.get_by_label("Job title").fill("Head of marketing")
    desk.get_by_role("button", name="Save").click()
    desk.get_by_text("Saved: you changed Priya Raman's phone to 555-0199 and job title to Head of "
                     "marketing.").wait_for()
    desk.goto("/")
    added = desk.locator("li.line", has_text="You added Priya Raman to Contacts")
    assert added.get_by_role("link").get_attribute("href").startswith("/contacts/")
    line = desk.locator("li.line", has_text="You changed Priya Raman's phone to 555-0199")
    line.get_by_role("button", name="Undo").click()
    desk.get_by_text("Undone: changed Priya Raman's phone").wait_for()
    desk.locator("li.line", has_text="Priya Raman to Contacts").get_by_role("link").click()
    desk.locator("h1", has_text="Priya Raman").wait_for()
    facts = desk.locator("dl.facts").inner_text()
    assert "555-0142" in facts and "Head of marketing" not in facts


# --- screenshots for the README ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [DESK, PHONE], ids=["1280", "390"])
def test_screenshots_of_home_a_chat_a_contact_and_settings(chromium, stack, size, tmp_path):
    """Home, a chat, a contact and Settings at a desk's and a phone's width, each page whole and nothing past the
    screen's edge. Run with ROADSTAR_SCREENS=<folder> to keep them (the README's `screens/` were made so)."""
    import os
    from pathlib import Path

    folder = Path(os.environ.get("ROADSTAR_SCREENS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    phone = size is PHONE
    context = chromium.new_context(base_url=stack.url, viewport=size, device_scale_factor=1, is_mobile=phone,
                                   has_touch=phone)
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        sign_in(page, stack)
        for name, url in (("home", "/"), ("chat", f"/chat/{stack.seed['agents']['Client desk']}/"),
                          ("contact", None), ("settings", "/settings/model/")):
            if url is None:
                page.goto("/contacts/")
                page.get_by_role("link", name="Dana Whitfield").first.click()
                page.locator("h1", has_text="Dana Whitfield").wait_for()
            else:
                page.goto(url)
            page.wait_for_load_state("networkidle")
            seen = widest(page)
            assert seen["scroll"] <= size["width"], (name, seen)
            page.screenshot(path=str(folder / f"{name}-{size['width']}.png"), full_page=True)
    finally:
        context.close()
