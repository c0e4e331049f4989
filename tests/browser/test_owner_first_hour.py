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
